import XCTest
import Foundation
import SwurlTestSupport

/// Secrets never appear where swurl shows a URL or an option back: the REPL's `env`, batch
/// results (text and `--jsonl`), error messages about a proxy. One table of forms through every
/// printer; `--offline`, which shows the exact bytes, is not among them.
final class RedactionTests: XCTestCase {
    static let secret = "S3CRET"

    private func assertNoSecret(_ text: String, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(text.contains(RedactionTests.secret), "\(what): \(text)", file: file, line: line)
        XCTAssertFalse(text.contains("SECRETTOKEN123"), "\(what): \(text)", file: file, line: line)
    }

    func testREPLEnvMasksEveryKindOfCredential() throws {
        let root = try HTTPBin.url("")
        let base = root.replacingOccurrences(of: "http://", with: "http://ann:\(RedactionTests.secret)@")
        let lines = [
            "set -A bearer -a SECRETTOKEN123",
            "set --proxy ann:\(RedactionTests.secret)@127.0.0.1:9",
            "set --key-password \(RedactionTests.secret)",
            "set Authorization:'Basic \(RedactionTests.secret)' Proxy-Authorization:\(RedactionTests.secret) Cookie:sid=\(RedactionTests.secret)",
            "env",
            "unset -A -a",
            "set -qa ann:\(RedactionTests.secret)",
            "env",
        ]
        let r = try runSwurl(["repl", base], stdin: Data((lines.joined(separator: "\n") + "\n").utf8))
        XCTAssertEqual(r.status, 0, r.stderr)
        assertNoSecret(r.text, "env")
        assertNoSecret(r.stderr, "stderr")
        XCTAssertTrue(r.text.contains("--auth '****'") || r.text.contains("--auth ****"), r.text)
        XCTAssertTrue(r.text.contains("--auth ann:****"), r.text)
        XCTAssertTrue(r.text.contains("--proxy ann:****@127.0.0.1:9"), r.text)
        XCTAssertTrue(r.text.contains("base: http://ann:****@127.0.0.1"), r.text)
        XCTAssertTrue(r.text.contains("Proxy-Authorization:****"), r.text)
        XCTAssertTrue(r.text.contains("Cookie:****"), r.text)
    }

    /// `--no-auth=VALUE` and `--no-key-password=VALUE` are refused (the option takes no value),
    /// and the value is shown as the option's own would be: masked (it was echoed whole).
    func testAValueGivenToANoOptionIsMaskedAsTheOptionsOwn() throws {
        for arg in ["--no-auth=user:\(RedactionTests.secret)", "--no-key-password=\(RedactionTests.secret)", "--no-proxy=http://u:\(RedactionTests.secret)@h"] {
            let r = try runSwurl([arg, "http://127.0.0.1:1/"])
            XCTAssertEqual(r.status, 64, r.stderr)
            XCTAssertTrue(r.stderr.contains("takes no value"), r.stderr)
            assertNoSecret(r.stderr, arg)
        }
    }

    func testBatchResultsMaskURLPasswords() throws {
        let server = try CaptureServer()
        let dir = TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let url = server.base.replacingOccurrences(of: "http://", with: "http://ann:\(RedactionTests.secret)@") + "/x"
        let dead = "http://ann:\(RedactionTests.secret)@127.0.0.1:9/down"
        try Data("\(url)\n\(dead)\n".utf8).write(to: URL(fileURLWithPath: dir + "/lines"))
        for extra in [[], ["--jsonl"]] {
            let r = try runSwurl(["batch", dir + "/lines", "--order", "input"] + extra)
            XCTAssertEqual(r.status, 1, r.stderr)
            assertNoSecret(r.text, "batch \(extra)")
            assertNoSecret(r.stderr, "batch stderr \(extra)")
            XCTAssertTrue(r.text.contains("ann:****@127.0.0.1"), r.text)
        }
        // The server did get the credentials: only the display is masked.
        XCTAssertTrue(String(decoding: server.capturedAll, as: UTF8.self).contains("Authorization: Basic"))
    }

    /// Errors that quote a URL or a proxy as given (swurl's "invalid URL", libcurl's own text)
    /// mask its password wherever the message goes: stderr, batch results, HAR and reports.
    func testErrorsQuotingAURLMaskItsPasswordInEveryOutput() throws {
        let s = RedactionTests.secret
        let badURL = "http://ann:\(s)@127.0.0.1:1:2/x"
        let badProxy = "http://ann:\(s)@127.0.0.1:1:2"
        let one = try runSwurl([badURL])
        XCTAssertEqual(one.status, 64, one.stderr)
        assertNoSecret(one.stderr, "invalid URL")
        XCTAssertTrue(one.stderr.contains("ann:****@"), one.stderr)
        // A password the URL did not percent-encode may hold a quote, a slash, a '#', a blank.
        for odd in ["it's\(s)", "p/\(s)", "p#\(s)", "p?\(s)", "sec \(s)", "p\"\(s)", "p<\(s)"] {
            let r = try runSwurl(["http://ann:\(odd)@127.0.0.1:99999/x"])
            XCTAssertEqual(r.status, 64, r.stderr)
            assertNoSecret(r.stderr, "invalid URL with the password \(odd)")
        }
        for (args, what) in [(["--proxy=http://ann:sec \(s)@127.0.0.1:1", "http://127.0.0.1:9/x"], "a blank in a proxy's password"),
                             (["ftp://ann:sec \(s)@127.0.0.1/x"], "an unsupported scheme")] {
            let r = try runSwurl(args)
            XCTAssertNotEqual(r.status, 0, what)
            assertNoSecret(r.stderr, what)
            XCTAssertTrue(r.stderr.contains("ann:****@"), r.stderr)
        }
        // An '@' in the query is no password: the URL is shown as it is.
        let query = try runSwurl(["http://127.0.0.1:99999/?e=ann@x.org"])
        XCTAssertTrue(query.stderr.contains("'http://127.0.0.1:99999/?e=ann@x.org'"), query.stderr)
        let viaProxy = try runSwurl(["--proxy=\(badProxy)", "http://127.0.0.1:9/x"])
        XCTAssertNotEqual(viaProxy.status, 0)
        assertNoSecret(viaProxy.stderr, "libcurl's proxy error")
        XCTAssertTrue(viaProxy.stderr.contains("ann:****@"), viaProxy.stderr)

        let dir = TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data("\(badURL)\nhttp://127.0.0.1:9/y --proxy=\(badProxy)\n".utf8).write(to: URL(fileURLWithPath: dir + "/lines"))
        let batch = try runSwurl(["batch", dir + "/lines", "--jsonl", "--har", dir + "/b.har", "--report", dir + "/b.html", "--junit", dir + "/b.xml"])
        XCTAssertNotEqual(batch.status, 0)
        assertNoSecret(batch.text, "batch results")
        assertNoSecret(batch.stderr, "batch stderr")
        XCTAssertTrue(batch.text.contains("ann:****@"), batch.text)
        for name in ["b.har", "b.html", "b.xml"] {
            let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name)), as: UTF8.self)
            assertNoSecret(text, name)
        }
    }

    func testProxyErrorsMaskThePasswordAndHintOnlySupportedSchemes() throws {
        for proxy in ["ftp://ann:\(RedactionTests.secret)@proxy.example:21", "https://ann:\(RedactionTests.secret)@127.0.0.1:9"] {
            let r = try runSwurl(["--proxy", proxy, "http://127.0.0.1:9/x"])
            XCTAssertEqual(r.status, 64, r.stderr)
            assertNoSecret(r.stderr, proxy)
            XCTAssertTrue(r.stderr.contains("ann:****@"), r.stderr)
            XCTAssertFalse(r.stderr.contains("hint: use http://, https://"), r.stderr)
        }
    }
}
