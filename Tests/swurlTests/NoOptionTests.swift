import XCTest
import Foundation
import SwurlTestSupport

/// `--no-OPTION` (HTTPie's): drops one default — the config file's, a batch's, the REPL's —
/// and the option's values given before it, checked against what httpbin answered.
final class NoOptionTests: XCTestCase {
    private func config(_ text: String) throws -> [String: String] { try TestPaths.config(text).env }

    /// The status line of the response swurl printed (`-h`).
    private func status(_ r: SwurlResult) -> String {
        r.text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n").first.map(String.init) ?? r.text
    }

    func testNoOptionDropsTheConfigsDefaultAndALaterOptionSetsItAgain() throws {
        let env = try config("--follow\n--timeout 30\n--form\n")
        let redirect = try HTTPBin.url("/redirect/1")
        let followed = try runSwurl([redirect, "-h"], environment: env)
        XCTAssertEqual(followed.status, 0, followed.stderr)
        XCTAssertEqual(status(followed), "HTTP/1.1 200 OK")
        for (args, expected) in [(["--no-follow"], "HTTP/1.1 302 FOUND"), (["--follow", "--no-follow"], "HTTP/1.1 302 FOUND"),
                                 (["--no-follow", "--follow"], "HTTP/1.1 200 OK"), (["-F", "--no-follow"], "HTTP/1.1 302 FOUND")] {
            let r = try runSwurl([redirect, "-h"] + args, environment: env)
            XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)")
            XCTAssertEqual(status(r), expected, "\(args)")
        }
        // The config's --form dropped: the body is JSON, the default.
        let posted = try runSwurl(["POST", try HTTPBin.url("/post"), "a=b", "--no-form"], environment: env)
        XCTAssertEqual(posted.status, 0, posted.stderr)
        let echo = try XCTUnwrap(try JSONSerialization.jsonObject(with: posted.stdout) as? [String: Any])
        XCTAssertEqual(echo["json"] as? [String: String], ["a": "b"], posted.text)
        // A value option: --no-timeout leaves no --timeout, so the qualifier check has nothing to see.
        let offline = try runSwurl(["--offline", "http://127.0.0.1:9/x", "--no-timeout", "--no-form"], environment: env)
        XCTAssertEqual(offline.status, 0, offline.stderr)
    }

    /// A config default that clashes with the command line names its line and says how to drop
    /// it for the run; --no-OPTION then does.
    func testAClashWithAConfigDefaultHintsAtNoOption() throws {
        let env = try config("--raw x\n")
        let clash = try runSwurl(["--offline", "POST", "http://127.0.0.1:9/x", "a=1"], environment: env)
        XCTAssertEqual(clash.status, 64, clash.stderr)
        XCTAssertTrue(clash.stderr.contains("drop the config's --raw for this run with --no-raw"), clash.stderr)
        let dropped = try runSwurl(["--offline", "POST", "http://127.0.0.1:9/x", "a=1", "--no-raw"], environment: env)
        XCTAssertEqual(dropped.status, 0, dropped.stderr)
        XCTAssertTrue(dropped.text.hasSuffix("{\"a\":\"1\"}"), dropped.text)
    }

    func testAMisspeltOrMalformedNoOptionIsAUsageError() throws {
        let url = try HTTPBin.url("/get")
        let typo = try runSwurl(["--no-config", url, "--no-folow"])
        XCTAssertEqual(typo.status, 64, typo.stderr)
        XCTAssertTrue(typo.stderr.contains("unknown option '--no-folow'"), typo.stderr)
        XCTAssertTrue(typo.stderr.contains("did you mean '--no-follow'?"), typo.stderr)
        let valued = try runSwurl(["--no-config", url, "--no-follow=yes"])
        XCTAssertEqual(valued.status, 64, valued.stderr)
        XCTAssertTrue(valued.stderr.contains("--no-follow takes no value"), valued.stderr)
        // --help, --version and --generate cannot be cancelled: no "did you mean --no-help".
        let help = try runSwurl(["--no-config", url, "--no-help"])
        XCTAssertEqual(help.status, 64, help.stderr)
        XCTAssertFalse(help.stderr.contains("did you mean"), help.stderr)
        // An option named no-… keeps its meaning: --no-verify-host is not "drop --verify-host".
        let offline = try runSwurl(["--no-config", "--offline", "https://127.0.0.1:9/x", "-k", "--no-verify-host"])
        XCTAssertEqual(offline.status, 0, offline.stderr)
    }

    func testABatchLineDropsTheBatchsDefault() throws {
        let dir = TestPaths.temporaryDirectory()
        let redirect = try HTTPBin.url("/redirect/1")
        try Data("\(redirect)\n\(redirect) --no-follow\n".utf8).write(to: URL(fileURLWithPath: dir + "/urls"))
        let r = try runSwurl(["--no-config", "batch", dir + "/urls", "--follow", "--jsonl", "--order", "input"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let statuses = r.text.split(separator: "\n").compactMap { line -> Int? in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["status"] as? Int
        }
        XCTAssertEqual(statuses, [200, 302], r.text)
        // A route option: the batch's proxy refuses connections, the line without it goes direct.
        let get = try HTTPBin.url("/get")
        try Data("\(get)\n\(get) --no-proxy\n".utf8).write(to: URL(fileURLWithPath: dir + "/proxied"))
        let proxied = try runSwurl(["--no-config", "batch", dir + "/proxied", "--proxy", "http://127.0.0.1:\(try ServerProcess.refusedPort())",
                                    "--jsonl", "--order", "input"])
        XCTAssertEqual(proxied.status, 1, proxied.stderr)
        let exits = proxied.text.split(separator: "\n").compactMap { line -> Int? in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["exit"] as? Int
        }
        XCTAssertEqual(exits.count, 2, proxied.text)
        XCTAssertNotEqual(exits.first, 0, proxied.text)
        XCTAssertEqual(exits.last, 0, proxied.text)
    }

    func testAREPLLineDropsADefaultForItselfAndSetDropsItForGood() throws {
        let base = try HTTPBin.url("")
        let script = ["set --follow", "/redirect/1 -h", "/redirect/1 -h --no-follow", "/redirect/1 -h", "set --no-follow", "/redirect/1 -h"]
        let r = try runSwurl(["--no-config", "repl", base], stdin: Data((script.joined(separator: "\n") + "\n").utf8))
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n").map(String.init).filter { $0.hasPrefix("HTTP/1.1 ") }
        XCTAssertEqual(lines, ["HTTP/1.1 200 OK", "HTTP/1.1 302 FOUND", "HTTP/1.1 200 OK", "HTTP/1.1 302 FOUND"], r.text)
    }

    /// A config line's --no-OPTION drops what the lines above it gave, as on a command line.
    func testAConfigLineDropsAnEarlierLinesOption() throws {
        let env = try config("--follow\n--no-follow\n")
        let r = try runSwurl([try HTTPBin.url("/redirect/1"), "-h"], environment: env)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(status(r), "HTTP/1.1 302 FOUND")
    }

    /// What a line cannot carry it cannot drop: a batch line's --no-har or --no-parallel, a REPL
    /// line's --no-stop-on-error are refused; a REPL line's --no-har keeps it out of the REPL's log.
    func testLinesCannotDropTheRunsOwnOptions() throws {
        let dir = TestPaths.temporaryDirectory()
        let get = try HTTPBin.url("/get")
        try Data("\(get) --no-har\n\(get) --no-parallel\n".utf8).write(to: URL(fileURLWithPath: dir + "/lines"))
        let batch = try runSwurl(["--no-config", "batch", dir + "/lines", "--har", dir + "/b.har", "--order", "input"])
        XCTAssertTrue(batch.text.contains("1 error 64") && batch.text.contains("2 error 64"), batch.text)
        let repl = try runSwurl(["--no-config", "repl", try HTTPBin.url(""), "--har", dir + "/r.har"],
                                stdin: Data("/get\n/get?x=1 --no-har\n/get --no-stop-on-error\n".utf8))
        XCTAssertTrue(repl.stderr.contains("--stop-on-error applies to 'swurl repl' itself"), repl.stderr)
        let har = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/r.har"))) as? [String: Any])
        let entries = try XCTUnwrap((har["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        XCTAssertEqual(entries.count, 1, "the --no-har line is not in the REPL's log")
    }

    /// A REPL line that drops the default credentials (--no-auth) does not bind them to its
    /// origin: with no base, they still go to the first origin that uses them.
    func testARejectedDefaultCredentialBindsNoOrigin() throws {
        let port = try HTTPBin.shared().port
        let r = try runSwurl(["--no-config", "repl", "-a", "ann:pw"],
                             stdin: Data("http://localhost:\(port)/headers --no-auth -b\nhttp://127.0.0.1:\(port)/headers -b\n".utf8))
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.text.components(separatedBy: "\"Authorization\": \"Basic ").count - 1, 1, r.text)
        XCTAssertFalse(r.stderr.contains("not sent"), r.stderr)
    }
}
