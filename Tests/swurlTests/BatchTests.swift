import XCTest
import Foundation
import SwurlTestSupport

/// `swurl batch FILE`: many requests on one libcurl multi handle, each line through the one-shot
/// grammar and rules; checked against what nginx logged.
final class BatchTests: XCTestCase {
    private func input(_ lines: [String]) throws -> String {
        let path = TestPaths.temporaryDirectory() + "/batch.txt"
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A port nothing listens on: bind one, note it, close it.
    private static func deadPort() -> Int {
        let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(probe, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(probe, $0, &len) } }
        close(probe)
        return Int(UInt16(bigEndian: addr.sin_port))
    }

    private func objects(_ r: SwurlResult) throws -> [[String: Any]] {
        try r.text.split(separator: "\n").map { line in
            guard let o = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw TestServerError("not a JSON object: \(line)")
            }
            return o
        }
    }

    private func byLine(_ objects: [[String: Any]]) -> [Int: [String: Any]] {
        var map: [Int: [String: Any]] = [:]
        for o in objects { if let n = o["line"] as? Int { map[n] = o } }
        return map
    }

    /// A followed line's `time_first_byte` counts from the line's start, as its `time_total`
    /// does (and curl's `time_starttransfer` with -L): the redirect hops' time is in it.
    func testTimeFirstByteOfAFollowedLineCountsItsRedirects() throws {
        let dir = TestPaths.temporaryDirectory()
        let path = try input([try HTTPBin.url("/redirect/3") + " --follow"])
        let r = try runSwurl(["batch", path, "--jsonl", "--har", dir + "/b.har"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let line = try XCTUnwrap(try objects(r).first)
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/b.har"))) as? [String: Any])
        let entries = try XCTUnwrap((document["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        XCTAssertEqual(entries.count, 4)
        let redirects = entries.dropLast().compactMap { $0["time"] as? Double }.reduce(0, +) / 1000
        let first = try XCTUnwrap(line["time_first_byte"] as? Double), total = try XCTUnwrap(line["time_total"] as? Double)
        XCTAssertGreaterThanOrEqual(first + 0.000_01, redirects, "\(line)")
        XCTAssertLessThanOrEqual(first, total, "\(line)")
    }

    func testThousandLinesJSONLOnAtMostParallelConnections() throws {
        let nginx = try NginxServer()
        let path = try input((1...1000).map { nginx.url("/small.txt?n=\($0)") })
        let r = try runSwurl(["batch", path, "--jsonl", "--parallel", "8"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let results = try objects(r)
        XCTAssertEqual(results.count, 1000)
        XCTAssertEqual(Set(results.compactMap { $0["line"] as? Int }), Set(1...1000))
        for o in results {
            XCTAssertEqual(o["status"] as? Int, 200)
            XCTAssertEqual(o["exit"] as? Int, 0)
            XCTAssertEqual(o["size"] as? Int, 17)
            XCTAssertEqual(o["http_version"] as? String, "1.1")
            XCTAssertTrue(o["error"] is NSNull)
            XCTAssertNotNil(o["time_total"] as? Double)
            XCTAssertNotNil(o["time_first_byte"] as? Double)
        }
        // Every line reached nginx, over at most --parallel connections.
        let log = nginx.logLines()
        XCTAssertEqual(log.count, 1000)
        XCTAssertLessThanOrEqual(nginx.connections().count, 8, "connections nginx saw")
        XCTAssertGreaterThanOrEqual(nginx.connections().count, 1)
    }

    /// `--parallel` above what the soft limit on open files allows (1024 is the usual one, for
    /// `--parallel 1024`): lines failed with "Couldn't connect" or "Too many open files". The
    /// batch raises the soft limit toward the hard one.
    func testParallelPastTheSoftOpenFileLimitStillWorks() throws {
        let nginx = try NginxServer()
        let path = try input((1...600).map { nginx.url("/small.txt?n=\($0)") })
        let r = try runProcess("/bin/sh", ["-c", "ulimit -Sn 64 && exec \"$0\" batch \"$1\" --parallel 256 -q", TestPaths.binary, path],
                               check: false)
        XCTAssertEqual(r.status, 0, String(decoding: r.stdout, as: UTF8.self))
        XCTAssertEqual(nginx.logLines().count, 600)
        // Short of even the hard limit, it says so before the lines run.
        let short = try runProcess("/bin/sh", ["-c", "ulimit -n 100 && exec \"$0\" batch \"$1\" --parallel 256 -q", TestPaths.binary, path],
                                   check: false)
        XCTAssertTrue(short.stderr.hasPrefix("swurl: warning: --parallel 256 needs about 832 open files, and the limit is 100"), short.stderr)
        // A line that found no descriptor for its socket says so (libcurl words it as a refused
        // connection, and the hint asked whether the server was running).
        let starvedLines = try runProcess("/bin/sh", ["-c", "ulimit -n 20 && exec \"$0\" batch \"$1\" --parallel 64", TestPaths.binary, path],
                                          check: false)
        let failed = String(decoding: starvedLines.stdout, as: UTF8.self).split(separator: "\n").filter { $0.contains(" error ") }
        XCTAssertGreaterThan(failed.count, 0, starvedLines.stderr)
        for line in failed {
            XCTAssertTrue(line.hasSuffix("Couldn't connect to server: swurl had no file descriptor left for the socket: too many open files"), String(line))
        }
        XCTAssertEqual(starvedLines.status, 1)
        // With no descriptor left to open libcurl, the hint is the limit, not installing it.
        var loadFailures = 0
        for n in 3...6 {
            let starved = try runProcess("/bin/sh", ["-c", "ulimit -n \(n) && exec \"$0\" batch \"$1\" -q", TestPaths.binary, path], check: false)
            guard starved.stderr.contains("cannot load libcurl") else { continue }
            loadFailures += 1
            XCTAssertTrue(starved.stderr.contains("hint: raise the limit of open files (ulimit -n)"), starved.stderr)
            XCTAssertFalse(starved.stderr.contains("apt install"), starved.stderr)
        }
        XCTAssertGreaterThan(loadFailures, 0, "no limit from 3 to 6 left libcurl unloadable")
    }

    /// A line whose body is read ahead from a FIFO (or a pipe) is prepared once no other line
    /// runs: reading it blocked the thread that drives the running lines, and one of them timed
    /// out ("the connection was not made") while the FIFO had no writer.
    func testALineReadingAFIFOWaitsUntilTheOthersAreDone() throws {
        let fifo = TestPaths.temporaryDirectory() + "/body.fifo"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        // (With `;type=`, which the hold once read as part of the path.)
        let path = try input([try HTTPBin.url("/drip?duration=1&numbytes=3&delay=0"), "POST " + (try HTTPBin.url("/post")) + " @" + fifo + ";type=text/plain"])
        let r = try runProcess("/bin/sh", ["-c", "(sleep 6; timeout 10 sh -c 'echo late > \"$0\"' \"$2\") & exec \"$0\" batch \"$1\" --parallel 4 --timeout 4 --order input",
                                           TestPaths.binary, path, fifo], check: false)
        let lines = String(decoding: r.stdout, as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(r.status, 0, String(decoding: r.stdout, as: UTF8.self) + r.stderr)
        XCTAssertTrue(lines.first?.hasPrefix("1 200 ") == true, String(decoding: r.stdout, as: UTF8.self))
        XCTAssertTrue(lines.last?.hasPrefix("2 200 ") == true, String(decoding: r.stdout, as: UTF8.self))
    }

    /// A line held back for its pipe when `--fail-fast` stops the batch is reported as not run
    /// (it was in no output, and the note said the lines after it were not run).
    func testALineHeldForItsPipeIsReportedNotRunWhenTheBatchStops() throws {
        let path = try input([try HTTPBin.url("/status/500"), "POST " + (try HTTPBin.url("/anything")) + " @/dev/fd/3", try HTTPBin.url("/get")])
        let r = try runProcess("/bin/sh", ["-c", "echo x | { exec \"$0\" batch \"$1\" --fail-fast --check-status --order input 3<&0 </dev/null; }", TestPaths.binary, path],
                               check: false)
        let lines = String(decoding: r.stdout, as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(r.status, 5, r.stderr)
        XCTAssertEqual(lines.count, 2, String(decoding: r.stdout, as: UTF8.self))
        XCTAssertTrue(lines.last?.hasPrefix("2 error 1 ") == true && lines.last?.hasSuffix("not run: the batch stopped taking lines before this one") == true,
                      String(decoding: r.stdout, as: UTF8.self))
    }

    func testParallelOneUsesOneKeepAliveConnection() throws {
        let nginx = try NginxServer()
        let path = try input((1...50).map { _ in nginx.url("/small.txt") })
        let r = try runSwurl(["batch", path, "--parallel", "1", "--order", "input"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.text.split(separator: "\n")
        XCTAssertEqual(lines.count, 50)
        for (i, line) in lines.enumerated() {
            XCTAssertTrue(line.hasPrefix("\(i + 1) 200 "), String(line))
            XCTAssertTrue(line.hasSuffix(" 17 GET \(nginx.url("/small.txt"))"), String(line))
        }
        XCTAssertEqual(nginx.connections().count, 1)
    }

    /// Over plain http a line does not wait for the origin's first response (libcurl's wait for
    /// a connection that may multiplex is for HTTP/2): a fast line behind a slow one ends within
    /// its own timeout.
    func testASlowFirstLineDoesNotHoldUpTheLinesBehindIt() throws {
        let path = try input([try HTTPBin.url("/delay/3"), try HTTPBin.url("/get") + " --timeout 1"])
        let r = try runSwurl(["batch", path, "--jsonl"])
        XCTAssertEqual(r.status, 0, r.text + r.stderr)
        let lines = byLine(try objects(r))
        XCTAssertEqual(lines[1]?["status"] as? Int, 200)
        XCTAssertEqual(lines[2]?["status"] as? Int, 200, "\(lines[2] ?? [:])")
    }

    /// An output naming the input (its file, or the file stdin is redirected from) is refused
    /// before anything is sent: its rename would replace the list of URLs.
    func testAnOutputNamingTheInputIsRefusedAndTheInputKept() throws {
        let capture = try CaptureServer()
        let path = try input([capture.base + "/x"])
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        for (option, stdinFile) in [("--har", nil), ("--junit", path), ("--report", nil)] as [(String, String?)] {
            let args = ["batch", stdinFile == nil ? path : "-", option, path]
            let r = try runSwurl(args, stdinFile: stdinFile)
            XCTAssertEqual(r.status, 64, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("the input"), r.stderr)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before, "\(args)")
        }
        try capture.sync()
        XCTAssertEqual(capture.captured.count, 0, "nothing was sent")
        // Nor does a body land on it: stdin redirected from a file in --output-dir, named as line 1's body.
        let dir = TestPaths.temporaryDirectory() + "/bodies"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try before.write(to: URL(fileURLWithPath: dir + "/1.body"))
        let r = try runSwurl(["batch", "-", "--output-dir", dir], stdinFile: dir + "/1.body")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/1.body")), before)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/1-1.body"))
        // A pipe read and a pipe written are no file to refuse.
        let piped = try runSwurl(["batch", "-", "--junit", "-"], stdin: before)
        XCTAssertEqual(piped.status, 0, piped.stderr)
    }

    /// `--junit -`, `--report -` and a download to /dev/fd/1 into a file the shell opened: what
    /// the shell writes next goes after them (they move the file position, as writing to stdout does).
    func testOutputsOnStdoutLeaveTheShellsFilePositionAfterThem() throws {
        let path = try input([try HTTPBin.url("/get")])
        let out = TestPaths.temporaryDirectory() + "/out.txt"
        let script = "{ \"$SW\" batch \"$IN\" --junit -; \"$SW\" batch \"$IN\" --report -; echo AFTER; "
            + "\"$SW\" -d \"$URL\" -o /dev/fd/1 -q; echo END; } > \"$OUT\""
        let env = ["SW": TestPaths.binary, "IN": path, "OUT": out, "URL": try HTTPBin.url("/base64/Ym9keQ==")]
        let ran = try runProcess("/bin/sh", ["-c", script], environment: env, check: false)
        XCTAssertEqual(ran.status, 0, ran.stderr)
        let text = try String(contentsOfFile: out, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("1 200 "), text)
        XCTAssertTrue(text.contains("</testsuites>\n1 200 "), text)
        // A download to /dev/fd/1 too.
        XCTAssertTrue(text.hasSuffix("</html>\nAFTER\nbodyEND\n"), String(text.suffix(200)))
        // A stdout the shell closed is an error, not the /dev/null swurl keeps its number with.
        for output in ["-o /dev/stdout", "-d -o /dev/fd/1"] {
            let closed = try runProcess("/bin/sh", ["-c", "\"$SW\" \"$URL\" \(output) -q >&-"], environment: env, check: false)
            XCTAssertNotEqual(closed.status, 0, output)
            XCTAssertTrue(closed.stderr.contains("Bad file descriptor"), closed.stderr)
        }
        XCTAssertEqual(text.components(separatedBy: "<?xml").count, 2, text)
        // The file stdout goes to, named as a report: its rename would replace the results. Refused.
        for option in ["--report", "--junit"] {
            let named = try runProcess("/bin/sh", ["-c", "\"$SW\" batch \"$IN\" \(option) \"$OUT\" > \"$OUT\""], environment: env, check: false)
            XCTAssertEqual(named.status, 64, named.stderr)
            XCTAssertTrue(named.stderr.contains("is the file the results go to (stdout)"), named.stderr)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: out)), Data(), "nothing sent, nothing written")
        }
    }

    func testMixedStatusesWithCheckStatusReportEveryLineAndExitWithFirstFailureInInputOrder() throws {
        let nginx = try NginxServer(serverConfig: "location = /boom { return 500; }")
        let path = try input([
            nginx.url("/small.txt"),
            "# a comment",
            "",
            nginx.url("/boom"),
            nginx.url("/missing"),
            nginx.url("/small.txt"),
        ])
        let r = try runSwurl(["batch", path, "--jsonl", "--check-status"])
        XCTAssertEqual(r.status, 5, "the first failing line (4) is a 500: \(r.text)")
        let results = byLine(try objects(r))
        XCTAssertEqual(Set(results.keys), [1, 4, 5, 6])
        XCTAssertEqual(results[1]?["exit"] as? Int, 0)
        XCTAssertEqual(results[4]?["status"] as? Int, 500)
        XCTAssertEqual(results[4]?["exit"] as? Int, 5)
        XCTAssertEqual(results[5]?["status"] as? Int, 404)
        XCTAssertEqual(results[5]?["exit"] as? Int, 4)
        XCTAssertEqual(results[6]?["exit"] as? Int, 0)
        XCTAssertEqual(nginx.logLines().count, 4)

        // Without --check-status an error status is a result, not a failure; a line's own option applies to it alone.
        let lines = try input([nginx.url("/missing"), nginx.url("/boom") + " --check-status"])
        let plain = try runSwurl(["batch", lines, "--jsonl"])
        XCTAssertEqual(plain.status, 5, plain.text)
        let p = byLine(try objects(plain))
        XCTAssertEqual(p[1]?["exit"] as? Int, 0)
        XCTAssertEqual(p[2]?["exit"] as? Int, 5)
        // --accept-status from the batch is every line's default.
        let accepted = try runSwurl(["batch", lines, "--accept-status", "200-599"])
        XCTAssertEqual(accepted.status, 0, accepted.text + accepted.stderr)
    }

    func testRetriesWaitPerLineWithoutHoldingUpTheOthers() throws {
        let nginx = try NginxServer(serverConfig: "location = /busy { return 503; }")
        let path = try input([nginx.url("/busy") + " --retry 2 --retry-delay 0.2", nginx.url("/small.txt")])
        let r = try runSwurl(["batch", path, "--jsonl", "--order", "input", "--check-status"])
        XCTAssertEqual(r.status, 5, r.text)
        let results = try objects(r)
        XCTAssertEqual(results.count, 2)
        XCTAssertEqual(results.first?["status"] as? Int, 503)
        XCTAssertEqual(results.last?["exit"] as? Int, 0)
        XCTAssertEqual(nginx.logLines().filter { $0.contains("/busy") }.count, 3, "one request and two retries")
        XCTAssertTrue(r.stderr.contains("swurl: line 1: HTTP 503"), r.stderr)
        XCTAssertTrue(r.stderr.contains("(retry 2 of 2)"), r.stderr)
    }

    func testWaitForNetworkWaitsPerOriginAndFailsLinesThatNeverBecomeReachable() throws {
        let nginx = try NginxServer()
        let deadPort = BatchTests.deadPort()
        let path = try input([nginx.url("/small.txt"), "http://127.0.0.1:\(deadPort)/x", nginx.url("/small.txt")])
        let r = try runSwurl(["batch", path, "--order", "input", "--wait-for-network=1"])
        XCTAssertEqual(r.status, 2, r.text + r.stderr)
        let lines = r.text.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 3, r.text)
        XCTAssertTrue(lines[0].hasPrefix("1 200 "), lines[0])
        XCTAssertTrue(lines[1].hasPrefix("2 error 2 "), lines[1])
        XCTAssertTrue(lines[1].contains("not reachable after"), lines[1])
        XCTAssertTrue(lines[2].hasPrefix("3 200 "), lines[2])
    }

    func testLinesCannotAskForCurlExportOrASession() throws {
        let nginx = try NginxServer()
        let path = try input(["DELETE \(nginx.url("/small.txt")) --curl", "\(nginx.url("/small.txt")) --session s"])
        let r = try runSwurl(["batch", path, "--order", "input"])
        XCTAssertEqual(r.status, 64, r.text)
        let lines = r.text.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2, r.text)
        XCTAssertTrue(lines.allSatisfy { $0.contains(" error 64 ") }, r.text)
        XCTAssertEqual(nginx.logLines().count, 0, "neither line was sent")
    }

    func testMalformedLineFailsAloneWithItsLineNumber() throws {
        let nginx = try NginxServer()
        let path = try input([
            nginx.url("/small.txt"),
            "GET \(nginx.url("/small.txt")) --no-such-option",
            "POST \"unterminated",
            nginx.url("/small.txt"),
        ])
        let r = try runSwurl(["batch", path, "--order", "input"])
        XCTAssertEqual(r.status, 64, r.text)
        let lines = r.text.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 4, r.text)
        XCTAssertTrue(lines[0].hasPrefix("1 200 "), lines[0])
        XCTAssertTrue(lines[1].hasPrefix("2 error 64 "), lines[1])
        XCTAssertTrue(lines[1].contains("--no-such-option"), lines[1])
        XCTAssertTrue(lines[2].hasPrefix("3 error 64 "), lines[2])
        XCTAssertTrue(lines[2].contains("unterminated"), lines[2])
        XCTAssertTrue(lines[3].hasPrefix("4 200 "), lines[3])
        XCTAssertEqual(nginx.logLines().count, 2, "the malformed lines sent nothing")
    }

    func testOutputDirBodiesAreByteEqualToOneShotDownloadsAndFailuresWriteNothing() throws {
        let nginx = try NginxServer()
        var lines: [String] = []
        for i in 1...5 {
            var bytes = [UInt8](repeating: 0, count: 1000 * i * i + 7)
            for j in bytes.indices { bytes[j] = UInt8.random(in: 0...255) }
            try Data(bytes).write(to: URL(fileURLWithPath: nginx.root + "/f\(i).bin"))
            lines.append(nginx.url("/f\(i).bin"))
        }
        lines.append(nginx.url("/missing") + " --check-status")
        let path = try input(lines)
        let dir = TestPaths.temporaryDirectory()
        let r = try runSwurl(["batch", path, "--output-dir", dir, "-q"])
        XCTAssertEqual(r.status, 4, r.text + r.stderr)
        for i in 1...5 {
            let one = try runSwurl(["-o", dir + "/one\(i)", nginx.url("/f\(i).bin")])
            XCTAssertEqual(one.status, 0, one.stderr)
            let batchBody = try Data(contentsOf: URL(fileURLWithPath: dir + "/\(i).body"))
            XCTAssertEqual(batchBody, try Data(contentsOf: URL(fileURLWithPath: dir + "/one\(i)")), "line \(i)")
            XCTAssertEqual(batchBody, try Data(contentsOf: URL(fileURLWithPath: nginx.root + "/f\(i).bin")), "line \(i)")
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: dir)
        XCTAssertFalse(names.contains("6.body"), "a failed line leaves no body")
        XCTAssertFalse(names.contains { $0.hasPrefix(".") }, "no temporary file is left: \(names)")
    }

    /// With --follow, a result names the last hop's method and URL together: a POST a 303 sent
    /// on to /get is `GET …/get` (it paired the line's POST with the final URL, a request never sent).
    func testAFollowedLineShowsItsLastHopsMethodWithItsURL() throws {
        let start = try HTTPBin.url("/redirect-to?url=%2Fget&status_code=303")
        let r = try runSwurl(["batch", try input(["POST \(start) --follow a=1"]), "--jsonl"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let result = try JSONSerialization.jsonObject(with: Data(r.text.utf8)) as? [String: Any]
        XCTAssertEqual(result?["method"] as? String, "GET", r.text)
        XCTAssertEqual(result?["url"] as? String, try HTTPBin.url("/get"), r.text)
    }

    /// A line that ends at a redirect not followed (too many) has the last hop's status, and its
    /// method and URL with it: a POST a 303 sent on to a 302 is `GET …` 302 (it was `POST` of the
    /// first URL with the 302, a pair that never happened).
    func testARedirectNotFollowedShowsItsLastHopsMethodAndURL() throws {
        let second = try HTTPBin.url("/redirect-to?url=%2Fget&status_code=302")
        let start = try HTTPBin.url("/redirect-to?url=\(second.urlQueryEscaped)&status_code=303")
        let r = try runSwurl(["batch", try input(["POST \(start) --follow --max-redirects 1"]), "--jsonl"])
        XCTAssertEqual(r.status, 6, r.stderr)
        let result = try JSONSerialization.jsonObject(with: Data(r.text.utf8)) as? [String: Any]
        XCTAssertEqual(result?["status"] as? Int, 302, r.text)
        XCTAssertEqual(result?["method"] as? String, "GET", r.text)
        XCTAssertEqual(result?["url"] as? String, second, r.text)
        XCTAssertEqual(result?["exit"] as? Int, 6, r.text)
    }

    /// A body that fills the disk fails its line naming the line's body in --output-dir (it named
    /// the hidden temporary file), and leaves no file (in a private mount namespace: a 64 KiB tmpfs).
    func testABodyThatFillsTheDiskNamesItsLineAndLeavesNothing() throws {
        guard geteuid() == 0 else { throw XCTSkip("needs root for a mount namespace") }
        let dir = TestPaths.temporaryDirectory()
        let mnt = dir + "/mnt"
        try FileManager.default.createDirectory(atPath: mnt, withIntermediateDirectories: true)
        let lines = try input([try HTTPBin.url("/bytes/102400")])
        let r = try runProcess("/usr/bin/unshare", ["-m", "sh", "-c",
            "mount -t tmpfs -o size=64k tmpfs \"$1\" && \"$2\" batch \"$3\" --output-dir \"$1\" -q; echo \"exit $?\"; ls -A \"$1\"",
            "sh", mnt, TestPaths.binary, lines], check: false)
        let out = String(decoding: r.stdout, as: UTF8.self)
        XCTAssertTrue(out.contains("1 error 1 GET ") && out.contains("writing to line 1's body in '\(mnt)' failed: No space left on device"), out + r.stderr)
        XCTAssertTrue(out.hasSuffix("exit 1\n"), "nothing left in the directory: \(out)")
    }

    /// A pasted `swurl repl …` or `swurl cache list` line is refused by name, in a batch and in a
    /// REPL script (`repl` was sent as a request to the host `repl`, `list` read as an item).
    func testAPastedCommandOfItsOwnIsRefusedByName() throws {
        let batch = try runSwurl(["batch", "-", "-q"], stdin: Data("swurl repl http://127.0.0.1:9/\nswurl cache list\nswurl help\n".utf8))
        XCTAssertEqual(batch.status, 64, batch.text + batch.stderr)
        XCTAssertTrue(batch.text.contains("1 error 64 - -: 'swurl repl' is a command of its own"), batch.text)
        XCTAssertTrue(batch.text.contains("2 error 64 - -: 'swurl cache' is a command of its own"), batch.text)
        // `swurl help` went as a request to the host `help`.
        XCTAssertTrue(batch.text.contains("3 error 64 - -: 'swurl help' is a command of its own"), batch.text)
        let repl = try runSwurl(["repl", "http://127.0.0.1:9/"], stdin: Data("swurl certs http://127.0.0.1:9/\n".utf8))
        XCTAssertEqual(repl.status, 64, repl.stderr)
        XCTAssertTrue(repl.stderr.contains("'swurl certs' is a command of its own"), repl.stderr)
    }

    /// Stdin redirected from a directory is refused before the reports are opened (they were
    /// replaced by empty ones, as a directory named as the input no longer does).
    func testStdinFromADirectoryLeavesTheLastReportsAsTheyWere() throws {
        let dir = TestPaths.temporaryDirectory()
        let report = dir + "/r.html", junit = dir + "/j.xml"
        try "last run's report".write(toFile: report, atomically: true, encoding: .utf8)
        try "last run's junit".write(toFile: junit, atomically: true, encoding: .utf8)
        let r = try runSwurl(["batch", "--report", report, "--junit", junit], stdinFile: dir)
        XCTAssertEqual(r.status, 66, r.stderr)
        XCTAssertTrue(r.stderr.contains("stdin is a directory"), r.stderr)
        XCTAssertEqual(try String(contentsOfFile: report, encoding: .utf8), "last run's report")
        XCTAssertEqual(try String(contentsOfFile: junit, encoding: .utf8), "last run's junit")
    }

    /// Two batches writing into one `--output-dir` at once keep their bodies apart: a body's
    /// temporary file has a name of its own (both used `.1.body.part`, and the second batch
    /// removed the first one's, which then saved an empty file and reported success).
    func testTwoBatchesInOneOutputDirectoryKeepTheirBodies() throws {
        let dir = TestPaths.temporaryDirectory()
        let work = TestPaths.temporaryDirectory()
        let slow = work + "/a.txt", quick = work + "/b.txt"
        try (try HTTPBin.url("/drip?duration=2&numbytes=10&delay=0") + "\n").write(toFile: slow, atomically: true, encoding: .utf8)
        try (try HTTPBin.url("/anything/B") + "\n").write(toFile: quick, atomically: true, encoding: .utf8)
        // The first batch runs until its body's temporary file exists; the second runs whole meanwhile.
        let script = """
            import glob, os, subprocess, sys, time
            binary, d, slow, quick = sys.argv[1:5]
            a = subprocess.Popen([binary, "batch", slow, "--output-dir", d, "--name-template", "A{line}", "-q"], stdout=subprocess.DEVNULL)
            deadline = time.time() + 30
            while time.time() < deadline and not glob.glob(os.path.join(d, ".1.body*")):
                time.sleep(0.02)
            b = subprocess.run([binary, "batch", quick, "--output-dir", d, "--name-template", "B{line}", "-q"], stdout=subprocess.DEVNULL)
            print(a.wait(timeout=60), b.returncode)
            """
        let r = try runProcess("/usr/bin/python3", ["-c", script, TestPaths.binary, dir, slow, quick])
        XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self), "0 0\n", r.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/A1")).count, 10)
        let b = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/B1"))) as? [String: Any]
        XCTAssertEqual((b?["url"] as? String)?.hasSuffix("/anything/B"), true, "\(String(describing: b))")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir).sorted(), ["A1", "B1"])
    }

    /// Lines reuse the easy handles of finished lines: nothing of a line's own options (headers,
    /// credentials, method, body, timeouts) may reach the next line sent on the same handle.
    func testALineSendsNothingOfThePreviousLinesOptions() throws {
        let anything = try HTTPBin.url("/anything")
        let path = try input([
            "POST \(anything) X-First:one a=1 -a user:secret --timeout 30",
            "\(anything)",
            "PUT \(anything) X-Third:three --form b=2",
            "\(anything)",
        ])
        let dir = TestPaths.temporaryDirectory()
        let r = try runSwurl(["batch", path, "--parallel", "1", "--output-dir", dir, "-q"])
        XCTAssertEqual(r.status, 0, r.text + r.stderr)
        func received(_ line: Int) throws -> [String: Any] {
            let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/\(line).body"))
            return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        }
        let first = try received(1), third = try received(3)
        XCTAssertEqual(first["method"] as? String, "POST")
        XCTAssertEqual((first["headers"] as? [String: String])?["X-First"], "one")
        XCTAssertNotNil((first["headers"] as? [String: String])?["Authorization"])
        XCTAssertEqual(third["method"] as? String, "PUT")
        XCTAssertEqual((third["form"] as? [String: String])?["b"], "2")
        for line in [2, 4] {
            let got = try received(line)
            let headers = got["headers"] as? [String: String] ?? [:]
            XCTAssertEqual(got["method"] as? String, "GET", "line \(line)")
            XCTAssertEqual(got["data"] as? String, "", "line \(line): \(got)")
            for name in ["X-First", "X-Third", "Authorization", "Content-Type", "Content-Length"] {
                XCTAssertNil(headers[name], "line \(line) sent \(name): \(headers)")
            }
        }
    }

    /// Regression: libcurl 7.88 sends a refused HTTP/2 stream again on a fresh connection
    /// without a seek when none of its body had left (the other stream had the connection's
    /// window): the block it had read went with the refused stream, and the body went out
    /// 65,536 bytes short under its full Content-Length (the server answered 400; exit 0).
    /// Every request starts at its body's start now.
    func testARequestLibcurlSendsAgainCarriesItsWholeBody() throws {
        let pki = try CertificateFactory.shared()
        let server = try ServerProcess(executable: TestPaths.venv + "/bin/python3",
                                       arguments: [TestPaths.server("h2_refuse.py"), "{PORT}", pki.path("leaf-chain.pem"), pki.path("leaf.key")])
        defer { server.stop() }
        let dir = TestPaths.temporaryDirectory()
        FileManager.default.createFile(atPath: dir + "/body.bin", contents: Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }))
        let base = "https://127.0.0.1:\(server.port)/post"
        let path = try input(["POST \(base)?n=1 @\(dir)/body.bin", "POST \(base)?n=2 @\(dir)/body.bin"])
        let r = try runSwurl(["batch", path, "--http2", "--parallel", "2", "--cacert", pki.path("root.pem"), "--output-dir", dir, "-q"])
        XCTAssertEqual(r.status, 0, r.text + r.stderr)
        for n in ["1.body", "2.body"] {
            XCTAssertEqual(try String(contentsOfFile: dir + "/" + n, encoding: .utf8), "received 200000 of 200000\n", n)
        }
        let log = (try? String(contentsOfFile: server.logPath, encoding: .utf8)) ?? ""
        XCTAssertTrue(log.contains("refused stream"), "the server refused no stream: \(log)")
    }

    func testWrongPinFailsEveryLineWithSevenAndNginxSeesNoRequest() throws {
        let pki = try CertificateFactory.shared()
        let nginx = try NginxServer(tls: (pki.path("leaf-chain.pem"), pki.path("leaf.key")))
        let path = try input((1...20).map { nginx.url("/small.txt?n=\($0)") })
        let wrong = try runSwurl(["batch", path, "--jsonl", "--cacert", pki.path("root.pem"),
                                  "--pin-pubkey", try pki.pin("selfsigned.pem")])
        XCTAssertEqual(wrong.status, 7, wrong.text)
        let results = try objects(wrong)
        XCTAssertEqual(results.count, 20)
        for o in results { XCTAssertEqual(o["exit"] as? Int, 7, "\(o)") }
        XCTAssertEqual(nginx.logLines(), [], "no request reached the application")
        // The right pin: every line succeeds on the same server.
        let right = try runSwurl(["batch", path, "--jsonl", "--cacert", pki.path("root.pem"),
                                  "--pin-pubkey", try pki.pin("leaf.pem")])
        XCTAssertEqual(right.status, 0, right.text + right.stderr)
        XCTAssertEqual(nginx.logLines().count, 20)
    }

    /// A line with a pin of its own never rides on a connection another line's policy checked
    /// (libcurl matches connections on its own TLS options and cannot see swurl's pins): a wrong
    /// pin after a right one still fails, over HTTP/1.1 and multiplexed HTTP/2, and nothing of it
    /// reaches nginx.
    func testALinesOwnPinIsCheckedEvenWhenAnotherLineLeftAConnection() throws {
        let pki = try CertificateFactory.shared()
        let nginx = try NginxServer(http2: true, tls: (pki.path("leaf-chain.pem"), pki.path("leaf.key")))
        let right = try pki.pin("leaf.pem"), wrong = try pki.pin("selfsigned.pem")
        let path = try input([
            nginx.url("/small.txt?n=1") + " --pin-pubkey " + right,
            nginx.url("/small.txt?n=2") + " --pin-pubkey " + wrong,
            nginx.url("/small.txt?n=3"),
            nginx.url("/small.txt?n=4") + " --pin-pubkey " + wrong,
            nginx.url("/small.txt?n=5") + " --pin-pubkey " + right,
        ])
        for http in ["--http1.1", "--http2"] {
            let before = nginx.logLines().count
            let r = try runSwurl(["batch", path, "--jsonl", "--parallel", "1", "--cacert", pki.path("root.pem"), http])
            XCTAssertEqual(r.status, 7, r.text + r.stderr)
            let results = byLine(try objects(r))
            for (line, exit) in [(1, 0), (2, 7), (3, 0), (4, 7), (5, 0)] {
                XCTAssertEqual(results[line]?["exit"] as? Int, exit, "\(http) line \(line): \(results[line] ?? [:])")
            }
            let served = nginx.logLines().dropFirst(before)
            XCTAssertEqual(served.count, 3, "\(http): \(served)")
            XCTAssertFalse(served.contains { $0.contains("n=2") || $0.contains("n=4") }, "\(http): \(served)")
            // Lines with a pin of their own speak HTTP/1.1: no other line can be multiplexed onto
            // a connection their policy admitted; the others keep HTTP/2.
            if http == "--http2" {
                XCTAssertEqual(results[1]?["http_version"] as? String, "1.1", "\(results[1] ?? [:])")
                XCTAssertEqual(results[5]?["http_version"] as? String, "1.1", "\(results[5] ?? [:])")
                XCTAssertEqual(results[3]?["http_version"] as? String, "2", "\(results[3] ?? [:])")
            }
        }
    }

    func testRedirectsPerLineDropCredentialsAcrossOrigins() throws {
        let other = try NginxServer()
        let nginx = try NginxServer(serverConfig: """
        location = /away { return 302 \(other.url("/small.txt")); }
        location = /here { return 302 /small.txt; }
        """)
        let path = try input([
            nginx.url("/away") + " --follow -a ann:secret",
            nginx.url("/here") + " --follow -a bob:pw",
            nginx.url("/away"),
        ])
        let r = try runSwurl(["batch", path, "--jsonl", "--order", "input"])
        XCTAssertEqual(r.status, 0, r.text + r.stderr)
        let results = try objects(r)
        XCTAssertEqual(results.count, 3)
        XCTAssertEqual(results[0]["status"] as? Int, 200)
        XCTAssertEqual(results[0]["url"] as? String, other.url("/small.txt"))
        XCTAssertEqual(results[1]["url"] as? String, nginx.url("/small.txt"))
        XCTAssertEqual(results[2]["status"] as? Int, 302, "line 3 does not follow")
        let basicAnn = "Basic " + Data("ann:secret".utf8).base64EncodedString()
        let basicBob = "Basic " + Data("bob:pw".utf8).base64EncodedString()
        let here = nginx.logLines()
        XCTAssertTrue(here.contains { $0.contains("\"/away\" \"\(basicAnn)\"") }, "\(here)")
        XCTAssertTrue(here.contains { $0.contains("\"/small.txt\" \"\(basicBob)\"") }, "same origin keeps credentials: \(here)")
        let there = other.logLines()
        XCTAssertEqual(there.count, 1)
        XCTAssertTrue(there.allSatisfy { $0.contains("\"/small.txt\" \"-\"") }, "credentials crossed origins: \(there)")
    }

    func testHTTP2MultiplexesOneHundredLinesOnOneConnection() throws {
        let pki = try CertificateFactory.shared()
        let nginx = try NginxServer(http2: true, tls: (pki.path("leaf-chain.pem"), pki.path("leaf.key")))
        let path = try input((1...100).map { nginx.url("/small.txt?n=\($0)") })
        let r = try runSwurl(["batch", path, "--jsonl", "--http2", "--cacert", pki.path("root.pem")])
        XCTAssertEqual(r.status, 0, r.text + r.stderr)
        let results = try objects(r)
        XCTAssertEqual(results.count, 100)
        for o in results { XCTAssertEqual(o["http_version"] as? String, "2", "\(o)") }
        XCTAssertEqual(nginx.logLines().count, 100)
        XCTAssertTrue(nginx.logLines().allSatisfy { $0.hasSuffix("HTTP/2.0") }, "\(nginx.logLines().prefix(3))")
        XCTAssertEqual(nginx.connections().count, 1, "streams multiplexed on one connection")
    }

    /// Regression: a body file was measured when its line was prepared and opened when sent: a
    /// file replaced (or cut shorter) in between went as a piece of its new content under the
    /// old length, and the line passed. Line 2 is prepared while line 1 waits on the server.
    func testABodyFileReplacedAfterItWasMeasuredIsNotSent() throws {
        let server = try ScriptedServer()
        for replace in [true, false] {
            let dir = TestPaths.temporaryDirectory()
            let body = dir + "/body.txt", hold = dir + "/hold"
            try Data("AAAAAAAAAA".utf8).write(to: URL(fileURLWithPath: body))
            let path = try input([server.url("/file?size=10&hold=" + hold), "PUT " + server.url("/echo") + " @" + body])
            let r = try runSwurlWhileHeld(["batch", path, "--parallel", "1", "--order", "input"], hold: hold) {
                if replace {
                    try Data("DDDDDDDDDDDDDDDDDDDDDD".utf8).write(to: URL(fileURLWithPath: dir + "/new.txt"))
                    XCTAssertEqual(rename(dir + "/new.txt", body), 0)
                } else {
                    try Data("DDD".utf8).write(to: URL(fileURLWithPath: body))
                }
            }
            let text = r.text
            XCTAssertEqual(r.status, 66, text)
            XCTAssertTrue(text.contains("2 error 66 PUT "), text)
            XCTAssertTrue(text.contains(replace ? "was replaced by another file after it was measured" : "shrank after it was measured (10 bytes then, 3 now)"), text)
            XCTAssertFalse(server.requests().contains { ($0["path"] as? String) == "/echo" && ($0["body_len"] as? Int) ?? 0 > 0 }, "\(server.requests())")
        }
    }

    func testFailFastStartsNoNewLineAfterAFailure() throws {
        let nginx = try NginxServer()
        let path = try input([nginx.url("/missing")] + (1...30).map { _ in nginx.url("/small.txt") })
        let r = try runSwurl(["batch", path, "--check-status", "--fail-fast", "--parallel", "1"])
        XCTAssertEqual(r.status, 4, r.text)
        XCTAssertEqual(r.text.split(separator: "\n").count, 1, r.text)
        XCTAssertEqual(nginx.logLines().count, 1)
        // The lines not run were not said to be (a JUnit file of one case read as the whole run).
        XCTAssertEqual(r.stderr, "swurl: note: --fail-fast: line 1 failed, so the input was read no further; lines after line 1, if any, were not run\n")
        let all = try runSwurl(["batch", path, "--check-status", "--parallel", "1"])
        XCTAssertEqual(all.status, 4)
        XCTAssertEqual(all.text.split(separator: "\n").count, 31)
        XCTAssertEqual(all.stderr, "")
    }

    /// A line over the 1 MiB limit fails with 64 under its number (it was once read back as an
    /// empty line and skipped, so the batch exited 0 without it); the lines around it run.
    func testALineTooLongIsReportedNotSkipped() throws {
        let nginx = try NginxServer()
        let long = nginx.url("/small.txt?") + String(repeating: "a", count: 2 << 20)
        let path = try input([nginx.url("/small.txt?one"), long, nginx.url("/small.txt?three")])
        let r = try runSwurl(["batch", path, "--order", "input"])
        XCTAssertEqual(r.status, 64, r.text + r.stderr)
        let lines = r.text.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 3, r.text)
        XCTAssertTrue(lines[1].hasPrefix("2 error 64 "), lines[1])
        XCTAssertTrue(lines[1].contains("longer than 1024 KiB"), lines[1])
        XCTAssertEqual(nginx.logLines().count, 2)
    }

    func testReadsStdinAndRefusesBadInput() throws {
        let nginx = try NginxServer()
        let r = try runSwurl(["batch", "-"], stdin: Data((nginx.url("/small.txt") + "\n").utf8))
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.text.hasPrefix("1 200 "), r.text)
        let missing = try runSwurl(["batch", "/nonexistent/batch.txt"])
        XCTAssertEqual(missing.status, 66)
        XCTAssertTrue(missing.stderr.contains("/nonexistent/batch.txt"), missing.stderr)
        let parallel = try runSwurl(["batch", "-", "--parallel", "0"])
        XCTAssertEqual(parallel.status, 64)
        let download = try runSwurl(["batch", "-", "--jsonl"], stdin: Data("-d \(nginx.url("/small.txt"))\n".utf8))
        XCTAssertEqual(download.status, 64, download.text)
        XCTAssertTrue(download.text.contains("\"line\":1"), download.text)
    }

    /// `--name-template`: placeholders, download-name sanitizing (no hidden file, no separator,
    /// no bidi control), a name two lines share gets the later line's number, bodies byte-equal,
    /// failures write nothing; bad templates are usage errors before anything is sent.
    func testNameTemplateNamesBodiesSafelyAndNeverReplacesOne() throws {
        let nginx = try NginxServer()
        try FileManager.default.createDirectory(atPath: nginx.root + "/a", withIntermediateDirectories: true)
        let files = ["/a/one.json": "{\"n\":1}\n", "/two.txt": "two\n", "/\u{202E}gpj.exe": "bidi\n"]
        for (path, body) in files { try body.write(toFile: nginx.root + path, atomically: true, encoding: .utf8) }
        let path = try input([
            nginx.url("/a/one.json"),
            nginx.url("/two.txt"),
            nginx.url("/%E2%80%AEgpj.exe"),
            nginx.url("/two.txt"),
            nginx.url("/missing") + " --check-status",
            "HEAD " + nginx.url("/two.txt"),
        ])
        let dir = TestPaths.temporaryDirectory()
        let r = try runSwurl(["batch", path, "--output-dir", dir, "--name-template", "{line}-{host}-{port}{path}", "--jsonl"])
        XCTAssertEqual(r.status, 4, r.text + r.stderr)
        let results = byLine(try objects(r))
        let port = URL(string: nginx.url("/"))?.port ?? 0
        let expected = [
            1: "1-127.0.0.1-\(port)_a_one.json", 2: "2-127.0.0.1-\(port)_two.txt",
            3: "3-127.0.0.1-\(port)_gpj.exe", 4: "4-127.0.0.1-\(port)_two.txt", 6: "6-127.0.0.1-\(port)_two.txt",
        ]
        for (line, name) in expected { XCTAssertEqual(results[line]?["file"] as? String, name, "line \(line)") }
        XCTAssertNil(results[5]?["file"], "a failed line names no file")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir)
        XCTAssertEqual(Set(names), Set(expected.values), "\(names)")
        XCTAssertEqual(try String(contentsOfFile: dir + "/" + (expected[1] ?? ""), encoding: .utf8), files["/a/one.json"])
        XCTAssertEqual(try String(contentsOfFile: dir + "/" + (expected[3] ?? ""), encoding: .utf8), files["/\u{202E}gpj.exe"])
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/" + (expected[6] ?? ""))).count, 0, "HEAD: an empty file")

        // Names several lines share: the first to finish keeps it, the others get their line number in.
        let same = try input((1...3).map { _ in nginx.url("/a/one.json") } + ["POST " + nginx.url("/two.txt")])
        let dir2 = TestPaths.temporaryDirectory()
        let shared = try runSwurl(["batch", same, "--output-dir", dir2, "--name-template", ".{method}-{status}{path}",
                                   "--jsonl", "--parallel", "1"])
        XCTAssertEqual(shared.status, 0, shared.text + shared.stderr)
        let s = byLine(try objects(shared))
        XCTAssertEqual(s[1]?["file"] as? String, "GET-200_a_one.json", "a leading dot is dropped: no hidden file")
        XCTAssertEqual(s[2]?["file"] as? String, "GET-200_a_one-2.json")
        XCTAssertEqual(s[3]?["file"] as? String, "GET-200_a_one-3.json")
        XCTAssertEqual(s[4]?["file"] as? String, "POST-405_two.txt")
        let names2 = try FileManager.default.contentsOfDirectory(atPath: dir2).sorted()
        XCTAssertEqual(names2, ["GET-200_a_one-2.json", "GET-200_a_one-3.json", "GET-200_a_one.json", "POST-405_two.txt"])
        for name in names2 where name.hasPrefix("GET") {
            XCTAssertEqual(try String(contentsOfFile: dir2 + "/" + name, encoding: .utf8), files["/a/one.json"], name)
        }

        let before = nginx.logLines().count
        for (template, message) in [("{line}-{nope}", "unknown placeholder '{nope}'"), ("{line", "without a closing"),
                                    ("x/{line}", "cannot contain '/'"), ("..\\{line}", "cannot contain '\\'"),
                                    ("fixed.txt", "no placeholder")] {
            let bad = try runSwurl(["batch", path, "--output-dir", dir, "--name-template", template])
            XCTAssertEqual(bad.status, 64, template)
            XCTAssertTrue(bad.stderr.contains(message), bad.stderr)
            XCTAssertEqual(bad.text, "", template)
        }
        // A missing --output-dir says so, with the command that makes it; a file keeps its message.
        let missing = try runSwurl(["batch", path, "--output-dir", dir + "/no such"])
        XCTAssertEqual(missing.status, 66, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("/no such' does not exist\nswurl: hint: create it first: mkdir -p -- '\(dir)/no such'\n"), missing.stderr)
        let file = dir + "/a-file"
        try Data().write(to: URL(fileURLWithPath: file))
        let notDir = try runSwurl(["batch", path, "--output-dir", file])
        XCTAssertEqual(notDir.status, 66, notDir.stderr)
        XCTAssertTrue(notDir.stderr.contains("'\(file)' is not a directory\n"), notDir.stderr)
        // Regression: one that takes no new file (an immutable one stands for one the user cannot
        // write: the tests run as root) sent every line, each failing when its head came.
        let locked = dir + "/locked"
        try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: true)
        let immutable = try runProcess("/usr/bin/chattr", ["+i", locked], check: false)
        XCTAssertEqual(immutable.status, 0, "chattr +i is needed (ext4): \(immutable.stderr)")
        let sentBefore = nginx.logLines().count
        let refused = try runSwurl(["batch", path, "--output-dir", locked])
        _ = try? runProcess("/usr/bin/chattr", ["-i", locked], check: false)
        XCTAssertEqual(refused.status, 1, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("cannot create a file in --output-dir '\(locked)': Operation not permitted; nothing was sent"), refused.stderr)
        XCTAssertEqual(nginx.logLines().count, sentBefore, "no line was sent")
        // An empty one (an unset `$OUT`) wrote the bodies into the working directory.
        let empty = try runSwurl(["batch", path, "--output-dir", ""], directory: dir)
        XCTAssertEqual(empty.status, 64, empty.stderr)
        XCTAssertTrue(empty.stderr.hasPrefix("swurl: error: --output-dir needs a directory name\n"), empty.stderr)
        let noDir = try runSwurl(["batch", path, "--name-template", "{line}"])
        XCTAssertEqual(noDir.status, 64)
        XCTAssertTrue(noDir.stderr.contains("--output-dir"), noDir.stderr)
        XCTAssertEqual(nginx.logLines().count, before, "a bad template sends nothing")
    }

    /// A strict `--decode` judges each line's body as the one-shot request does: exit 8 for that
    /// line, no body kept, the batch's status the first failing line's.
    func testStrictDecodeFailsTheLineWithTheOneShotStatus() throws {
        let json = try HTTPBin.url("/json"), html = try HTTPBin.url("/html"), xml = try HTTPBin.url("/xml")
        let oneShot = try runSwurl(["--decode", "json", html])
        XCTAssertEqual(oneShot.status, 8, oneShot.stderr)
        let path = try input([json, html, html + " --decode auto", xml + " --decode xml", xml])
        let dir = TestPaths.temporaryDirectory()
        let r = try runSwurl(["batch", path, "--decode", "json", "--jsonl", "--output-dir", dir])
        XCTAssertEqual(r.status, oneShot.status, r.text + r.stderr)
        let results = byLine(try objects(r))
        XCTAssertEqual(results.count, 5, r.text)
        XCTAssertEqual(results[1]?["exit"] as? Int, 0)
        XCTAssertEqual(results[2]?["exit"] as? Int, 8)
        XCTAssertEqual(results[2]?["status"] as? Int, 200)
        XCTAssertTrue((results[2]?["error"] as? String)?.hasPrefix("--decode json: ") == true, "\(results[2] ?? [:])")
        XCTAssertEqual(results[3]?["exit"] as? Int, 0, "--decode auto on the line is not strict")
        XCTAssertEqual(results[4]?["exit"] as? Int, 0)
        XCTAssertEqual(results[5]?["exit"] as? Int, 8, "XML is not JSON")
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: dir))
        XCTAssertEqual(names, ["1.body", "3.body", "4.body"], "a rejected body is not kept")
        // Without --decode nothing is judged.
        let plain = try runSwurl(["batch", path])
        XCTAssertEqual(plain.status, 0, plain.text)
    }

    /// A line with no end in a regular file or a device (`batch /dev/zero`) is read until an
    /// interrupt: a read there never fails with EINTR, so Ctrl-C went unheard, and SIGTERM's
    /// fallback ended the batch after 3 s with its reports unwritten and their temporary files left.
    func testAnInterruptStopsReadingALineWithNoEnd() throws {
        for signal in ["SIGINT", "SIGTERM"] {
            let dir = TestPaths.temporaryDirectory()
            let ended = try runSwurlUntilSignalled(["--no-config", "batch", "/dev/zero", "--junit", "j.xml", "--report", "r.html"], in: dir, signal: signal)
            XCTAssertEqual(ended, signal == "SIGINT" ? "-2" : "-15", "it ends by the signal: \(signal)")
            let names = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
            XCTAssertEqual(names, ["j.xml", "r.html"], signal)
        }
    }

    /// An option whose file is stdin (`--cacert /dev/stdin`) is refused on a batch line read from
    /// stdin, and on a REPL script's line: it read the lines after it as certificates, and they
    /// were never run nor reported.
    func testAnOptionFileThatIsStdinIsRefusedOnALine() throws {
        let nginx = try NginxServer()
        let url = nginx.url("/small.txt")
        for (option, value) in [("--cacert", "/dev/stdin"), ("--pin-cert", "/proc/self/fd/0"), ("--cacert-add", "/dev/fd/0"), ("--pin-pubkey", "/dev/stdin")] {
            let script = "{ echo \"https://localhost:9/ \(option) \(value)\"; sleep 0.3; echo \"$1\"; echo \"$1?2\"; } | \"$0\" --no-config batch - --parallel 1 --order input"
            let r = try runProcess("/bin/sh", ["-c", script, TestPaths.binary, url], check: false)
            let out = String(decoding: r.stdout, as: UTF8.self)
            XCTAssertEqual(r.status, 64, option + ": " + out + r.stderr)
            XCTAssertTrue(out.contains("1 error 64 ") && out.contains("--\(option.dropFirst(2)) '\(value)' reads stdin, which a batch line cannot"), out)
            XCTAssertTrue(out.contains("2 200 ") && out.contains("3 200 "), option + ": " + out)
        }
        let repl = "{ echo \"$1 --cacert /dev/stdin\"; sleep 0.3; echo \"$1\"; } | \"$0\" --no-config repl"
        let r = try runProcess("/bin/sh", ["-c", repl, TestPaths.binary, url], check: false)
        XCTAssertTrue(r.stderr.contains("--cacert '/dev/stdin' reads stdin, which a REPL line cannot"), r.stderr)
        XCTAssertTrue(String(decoding: r.stdout, as: UTF8.self).contains("hello"), "the line after it ran: " + r.stderr)
    }

    /// Options that only change how a response is shown are refused on a line (64, that line
    /// only, nothing sent for it) and on the batch; so is an item that would read stdin.
    func testDisplayOptionsAndStdinItemsAreRefused() throws {
        let nginx = try NginxServer()
        let url = nginx.url("/small.txt")
        let refused = ["-v", "--verbose", "-p hb", "--print=H", "-h", "-b", "--timing", "--timing=json", "--pretty=all",
                       "--sort-keys", "--stream", "--all --follow"]
        let path = try input([url] + refused.map { "\(url) \($0)" } + ["POST \(url) @-", "POST \(url) --form f@-"])
        let r = try runSwurl(["batch", path, "--order", "input"], stdin: Data("secret stdin\n".utf8))
        XCTAssertEqual(r.status, 64, r.text)
        let lines = r.text.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, refused.count + 3, r.text)
        XCTAssertTrue(lines.first?.hasPrefix("1 200 ") == true, r.text)
        for (i, line) in lines.dropFirst().enumerated() {
            XCTAssertTrue(line.hasPrefix("\(i + 2) error 64 "), line)
            if i < refused.count {
                XCTAssertTrue(line.contains("cannot be used on a batch line"), line)
            } else {
                XCTAssertTrue(line.contains("reads stdin"), line)
            }
        }
        XCTAssertEqual(nginx.logLines().count, 1, "only the first line was sent")
        for option in ["-v", "-h", "-b", "--timing", "--print=b", "--sort-keys"] {
            let batch = try runSwurl(["batch", path, option])
            XCTAssertEqual(batch.status, 64, option)
            XCTAssertTrue(batch.stderr.contains("does not apply to 'swurl batch'"), batch.stderr)
        }
        XCTAssertEqual(nginx.logLines().count, 1)
    }

    /// Lines on a pipe start as they arrive: the second line is written only after nginx served
    /// the first and its result was printed, so a reader that waits for more input before starting
    /// the first line never gets there (the deadline fails the test instead of hanging it).
    func testStdinLinesStartAsTheyArriveFromASlowWriter() throws {
        let nginx = try NginxServer()
        let dir = TestPaths.temporaryDirectory()
        let outPath = dir + "/out"
        FileManager.default.createFile(atPath: outPath, contents: nil)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: TestPaths.binary)
        p.arguments = ["batch", "-"]
        let stdin = Pipe()
        p.standardInput = stdin
        p.standardOutput = FileHandle(forWritingAtPath: outPath)
        p.standardError = FileHandle.nullDevice
        try p.run()
        defer { if p.isRunning { p.terminate() } }
        let writer = stdin.fileHandleForWriting
        try writer.write(contentsOf: Data((nginx.url("/small.txt?first") + "\n").utf8))
        func waitFor(_ what: String, _ done: () -> Bool) {
            let deadline = Date().addingTimeInterval(60)
            while !done() && Date() < deadline { usleep(20_000) }
            XCTAssertTrue(done(), what)
        }
        let output = { (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "" }
        waitFor("line 1 ran and was reported while the pipe was still open") { output().hasPrefix("1 200 ") }
        XCTAssertEqual(nginx.logLines().count, 1)
        // Half a line, then the rest: the line starts once it is whole.
        try writer.write(contentsOf: Data(nginx.url("/small.txt?sec").utf8))
        usleep(200_000)
        try writer.write(contentsOf: Data("ond\n".utf8))
        waitFor("line 2 ran") { output().contains("\n2 200 ") }
        try writer.close()
        waitForExit(p)
        XCTAssertEqual(p.terminationStatus, 0)
        XCTAssertEqual(output().split(separator: "\n").count, 2, output())
        XCTAssertEqual(nginx.logLines().map { $0.split(separator: " ").dropFirst(2).first.map(String.init) ?? "" },
                       ["\"/small.txt?first\"", "\"/small.txt?second\""])
    }

    /// The next line is prepared while the running one waits (one at a time here) but sends
    /// nothing until that one has ended, and its clocks start when it does: a 1 s stall timeout
    /// and a 1 s retry budget are not used up by the 2 s it waited. Without `starts()` line 2
    /// timed out; with the retry budget counted from the preparation, /busy was not retried.
    func testALinePreparedAheadStartsOnlyWhenASlotFreesWithItsOwnClocks() throws {
        let nginx = try NginxServer(serverConfig: "location = /busy { return 503; }")
        let slow = try HTTPBin.url("/delay/2")
        let path = try input([slow, nginx.url("/busy") + " --retry 1 --retry-delay 0.1 --retry-max-time 1",
                              slow, nginx.url("/small.txt") + " --timeout 1"])
        final class Outcome: @unchecked Sendable { var result: SwurlResult? }
        let outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            outcome.result = try? runSwurl(["batch", path, "--jsonl", "--parallel", "1"])
            done.signal()
        }
        Thread.sleep(forTimeInterval: 1.0)
        XCTAssertEqual(nginx.logLines(), [], "a prepared line reached the server while line 1 was still running")
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success)
        let r = try XCTUnwrap(outcome.result)
        let lines = try objects(r)
        XCTAssertEqual(lines.map { $0["status"] as? Int }, [200, 503, 200, 200], r.text)
        XCTAssertEqual(lines.map { $0["exit"] as? Int }, [0, 0, 0, 0], r.text)
        XCTAssertEqual(nginx.logLines().filter { $0.contains("/busy") }.count, 2, "one request and one retry")
        XCTAssertEqual(nginx.logLines().count, 3)
    }

    /// A line whose preparation may wait (its own --wait-for-network, --key or --cert) is not
    /// read ahead: it is prepared in its turn, after the running line has ended. Here its wait
    /// for a port nothing listens on ends in a failure after 1 s; prepared ahead, that failure
    /// would be reported before line 1 (2 s), in completion order.
    func testALineThatMayWaitIsNotPreparedAhead() throws {
        let deadPort = BatchTests.deadPort()
        let path = try input([try HTTPBin.url("/delay/2"), "http://127.0.0.1:\(deadPort)/x --wait-for-network=1"])
        let r = try runSwurl(["batch", path, "--parallel", "1"])
        XCTAssertEqual(r.status, 2, r.text + r.stderr)
        let lines = r.text.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2, r.text)
        XCTAssertTrue(lines.first?.hasPrefix("1 200 ") == true, r.text)
        XCTAssertTrue(lines.last?.hasPrefix("2 error 2 ") == true, r.text)
    }

    /// `-a USER` without a password asks once for the batch, not once per line; the one-shot
    /// request's warnings (-k) are given once; a byte order mark before the first line is skipped.
    func testAPasswordIsAskedOnceAndWarningsGivenOnce() throws {
        let url = try HTTPBin.url("/basic-auth/u/p")
        // The same user at another host (localhost) is asked again: the prompt names the host.
        let other = url.replacingOccurrences(of: "127.0.0.1", with: "localhost")
        let path = try input(["\u{FEFF}# saved by Notepad", url, url, url + "?3", other])
        // The password typed once the prompt shows (typed before, the prompt's flush drops it).
        let driver = #"""
        import os, pty, sys, time, select
        argv = sys.argv[1:]
        pid, fd = pty.fork()
        if pid == 0:
            os.execve(argv[0], argv, dict(os.environ, TERM="xterm", SWURL_CONFIG=""))
        """# + "\n" + ReplTests.ptyExpect + "\n" + #"""
        # Every prompt answered once it shows (typed before, the prompt's flush drops it); a
        # prompt not answered would wait for ever: give up after 30 s.
        seen, end = 0, time.time() + 30
        try:
            while time.time() < end:
                r, _, _ = select.select([fd], [], [], 0.1)
                if r:
                    d = os.read(fd, 65536)
                    if not d: break
                    buf += d
                if buf.count(b"password for u@") > seen:
                    seen += 1
                    # At once: echo is off before the prompt shows (typed earlier, it is flushed).
                    os.write(fd, b"p\r")
        except OSError:
            pass
        if time.time() >= end:
            os.kill(pid, 9)
        _, status = os.waitpid(pid, 0)
        print(buf.decode(errors="replace"))
        sys.exit(os.waitstatus_to_exitcode(status))
        """#
        let r = try runProcess(TestPaths.venv + "/bin/python3", ["-c", driver, TestPaths.binary, "batch", path, "-a", "u", "--parallel", "1",
                                                                  "--check-status"], check: false)
        let screen = String(decoding: r.stdout, as: UTF8.self)
        XCTAssertEqual(r.status, 0, screen + r.stderr)
        XCTAssertEqual(screen.components(separatedBy: "password for u@127.0.0.1:").count - 1, 1, screen)
        XCTAssertEqual(screen.components(separatedBy: "password for u@localhost:").count - 1, 1, screen)
        // Each prompt starts a line of its own: the progress line is cleared first.
        for piece in screen.components(separatedBy: "swurl: password for").dropFirst().indices {
            let before = screen.components(separatedBy: "swurl: password for")[piece - 1]
            XCTAssertTrue(before.isEmpty || before.hasSuffix("\n") || before.hasSuffix("\r") || before.hasSuffix("\u{1B}[K"),
                          "a prompt after \(before.suffix(40).debugDescription)")
        }
        // Result lines (`LINE 200 …`), not the progress line's rate (`200 req/s` matched).
        let results = screen.split(whereSeparator: \.isNewline).filter { line in
            let fields = line.replacingOccurrences(of: "\u{1B}[K", with: "").split(separator: " ")
            return fields.count > 2 && fields[0].allSatisfy(\.isNumber) && fields[1] == "200"
        }
        XCTAssertEqual(results.count, 4, screen)
        // https to a port nothing listens on: the warning is given before the (quick) failure.
        let insecure = try input(["https://127.0.0.1:9/a", "https://127.0.0.1:9/b"])
        let k = try runSwurl(["batch", insecure, "-k", "-q"])
        XCTAssertEqual(k.stderr.components(separatedBy: "swurl: warning: --insecure").count - 1, 1, k.stderr)
    }

    /// Results and the progress line on one terminal: each result goes on a line of its own (the
    /// progress line is cleared before results are written, and drawn again after them).
    func testResultsOnTheProgressLinesTerminalAreNotGluedToIt() throws {
        let path = try input([try HTTPBin.url("/get"), try HTTPBin.url("/delay/1"), try HTTPBin.url("/get?after=1")])
        let command = ([TestPaths.binary, "batch", path, "--parallel", "1"]).map { "'" + $0 + "'" }.joined(separator: " ")
        let r = try runProcess("/usr/bin/script", ["-qec", command, "/dev/null"], environment: ["TERM": "xterm", "PATH": "/usr/bin:/bin"], check: false)
        XCTAssertEqual(r.status, 0, r.stderr)
        let screen = String(decoding: r.stdout, as: UTF8.self)
        XCTAssertTrue(screen.contains("done, "), "the progress line was drawn: \(screen)")
        var results = 0
        for segment in screen.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) {
            guard segment.contains(" GET http") else { continue }
            results += 1
            XCTAssertFalse(segment.contains("done, "), "a result glued to the progress line: \(segment.debugDescription)")
        }
        XCTAssertEqual(results, 3, screen)
        // Lines typed on the terminal get no progress line: its redraws wiped the line being typed.
        let typed = try runProcess("/usr/bin/script", ["-qec", "'\(TestPaths.binary)' batch -", "/dev/null"],
                                   environment: ["TERM": "xterm", "PATH": "/usr/bin:/bin"],
                                   stdin: Data((try HTTPBin.url("/get?typed=1") + "\n\u{04}").utf8), check: false)
        let typedScreen = String(decoding: typed.stdout, as: UTF8.self)
        XCTAssertEqual(typed.status, 0, typed.stderr)
        XCTAssertTrue(typedScreen.contains(" 200 ") && typedScreen.contains("typed=1"), typedScreen)
        XCTAssertFalse(typedScreen.contains("done, "), typedScreen)
    }

    /// Ctrl-C on a terminal: the progress line was on stderr, the finished lines' results stay,
    /// the running lines end as interrupted, exit 130.
    func testCtrlCOnAPtyKeepsResultsAndExits130() throws {
        let nginx = try NginxServer()
        let slow = try HTTPBin.url("/delay/10")
        let path = try input([nginx.url("/small.txt"), nginx.url("/small.txt")] + Array(repeating: slow, count: 4))
        let out = TestPaths.temporaryDirectory() + "/out.jsonl"
        // Runs swurl with stderr on a pty, waits for the two fast results, then sends SIGINT.
        let script = """
        import os, pty, signal, subprocess, sys, time
        binary, path, out = sys.argv[1:4]
        master, slave = pty.openpty()
        with open(out, "wb") as f:
            p = subprocess.Popen([binary, "batch", path, "--jsonl", "--parallel", "6"], stdout=f, stderr=slave,
                                 stdin=subprocess.DEVNULL, env=dict(os.environ, COLUMNS="80"))
        os.close(slave)
        deadline = time.time() + 60
        while time.time() < deadline:
            with open(out, "rb") as f:
                if f.read().count(b"\\n") >= 2: break
            time.sleep(0.05)
        time.sleep(0.3)
        p.send_signal(signal.SIGINT)
        code = p.wait(timeout=60)
        err = b""
        try:
            while True:
                chunk = os.read(master, 65536)
                if not chunk: break
                err += chunk
        except OSError:
            pass
        sys.stdout.write("%d\\n" % code)
        sys.stdout.buffer.write(err)
        """
        let r = try runProcess("/usr/bin/python3", ["-c", script, TestPaths.binary, path, out], check: false)
        let report = String(decoding: r.stdout, as: UTF8.self)
        XCTAssertTrue(report.hasPrefix("-2\n"), "ended by SIGINT (130 in a shell): " + report + r.stderr)
        XCTAssertTrue(report.contains("done, "), "the progress line was drawn on the terminal: \(report)")
        let text = try String(contentsOfFile: out, encoding: .utf8)
        let results = try text.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:]
        }
        let map = byLine(results)
        XCTAssertEqual(map[1]?["exit"] as? Int, 0, text)
        XCTAssertEqual(map[2]?["exit"] as? Int, 0, text)
        for line in 3...6 { XCTAssertEqual(map[line]?["exit"] as? Int, 130, text) }
    }

    /// 100,000 lines are read as they are needed: peak memory stays near that of 1,000 lines. And
    /// with both reports (`--report`, `--junit`), 100,000 lines peak near the same 100,000 lines
    /// without them: the reports hold aggregates, and their rows and JUnit cases go to their
    /// files through a few 64 KiB blocks of records, never all to memory (held, 100,000 of
    /// either would be well over 10 MB). The batch's own
    /// peak is the reports' baseline, so what the batch itself does with more lines is not
    /// charged to them. (One test, so the 100,000-line batch without reports runs once for both.)
    func testHundredThousandLinesKeepMemoryFlat() throws {
        let nginx = try NginxServer()
        let url = nginx.url("/small.txt")
        let dir = TestPaths.temporaryDirectory()
        func peakKiB(_ count: Int, reports: Bool = false) throws -> Int {
            let path = dir + "/lines-\(count).txt"
            try (String(repeating: url + "\n", count: count)).write(toFile: path, atomically: true, encoding: .utf8)
            let script = """
            import resource, subprocess, sys
            r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
            print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
            """
            let outputs = reports ? ["--report", dir + "/r-\(count).html", "--junit", dir + "/j-\(count).xml"] : []
            let r = try runProcess("/usr/bin/python3", ["-c", script, TestPaths.binary, "batch", path, "--parallel", "32", "-q"] + outputs)
            let fields = String(decoding: r.stdout, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" })
            XCTAssertEqual(fields.first, "0")
            return fields.count > 1 ? Int(fields[1]) ?? Int.max : Int.max
        }
        let small = try peakKiB(1000)
        let large = try peakKiB(100_000)
        XCTAssertLessThan(large, 40 * 1024, "peak RSS for 100,000 lines (KiB)")
        // Differences as subtractions: a peak that could not be read is Int.max, which must fail
        // the assertion, not overflow.
        // (libcurl 7.88 kept a reused handle's cookie-file list across curl_easy_reset: 65 bytes
        // a line, 6.5 MB here, until the list was dropped before the reset.)
        XCTAssertLessThan(large - 3 * 1024, small, "100,000 lines: \(large) KiB, 1,000 lines: \(small) KiB")

        let with = try peakKiB(100_000, reports: true)
        XCTAssertLessThan(with - 4 * 1024, large, "100,000 lines: \(with) KiB with both reports, \(large) KiB without")
        let junit = try String(contentsOfFile: dir + "/j-100000.xml", encoding: .utf8)
        XCTAssertEqual(junit.components(separatedBy: "<testcase ").count - 1, 100_000)
        let html = try String(contentsOfFile: dir + "/r-100000.html", encoding: .utf8)
        XCTAssertEqual(html.components(separatedBy: "class=\"bar\"").count - 1, 2000)
        XCTAssertTrue(html.contains("<dd id=\"lines\">100000</dd>"))
        XCTAssertEqual(nginx.logLines().count, 201_000)
    }

    // MARK: - Line isolation: network overrides and Host headers

    /// A line's `--resolve` stays that line's: a later line for the same host and port, without
    /// one, fails to resolve (as it would alone) and its credentials go nowhere.
    func testALinesResolveNeverReachesAnotherLine() throws {
        let capture = try CaptureServer()
        let port = capture.server.port
        let path = try input([
            "http://victim.test:\(port)/one --resolve victim.test:\(port):127.0.0.1",
            "http://victim.test:\(port)/two -a ann:secret",
        ])
        let r = try runSwurl(["batch", path, "--jsonl", "--parallel", "1", "--order", "input"])
        let map = byLine(try objects(r))
        XCTAssertEqual(map[1]?["exit"] as? Int, 0, r.text)
        XCTAssertEqual(map[2]?["exit"] as? Int, 1, r.text)
        XCTAssertEqual(r.status, 1, r.stderr)
        let received = String(decoding: capture.capturedAll, as: UTF8.self)
        XCTAssertTrue(received.contains("GET /one "), received)
        XCTAssertFalse(received.contains("/two"), received)
        XCTAssertFalse(received.contains("Authorization"), received)
    }

    /// Lines with routes of their own (`--resolve`, `--unix-socket`, `--proxy`) still work, each
    /// on its own; a plain line after them for the same made-up host still fails to resolve.
    func testLinesWithTheirOwnRouteStillWork() throws {
        let capture = try CaptureServer(unixSocket: true)
        let port = capture.server.port
        let socket = try XCTUnwrap(capture.unixSocket)
        let path = try input([
            "http://victim.test:\(port)/resolved --resolve victim.test:\(port):127.0.0.1",
            "http://victim.test:\(port)/socket --unix-socket \(socket)",
            "http://victim.test:\(port)/proxied --proxy http://127.0.0.1:\(port)",
            "http://victim.test:\(port)/plain -a ann:secret",
        ])
        for parallel in ["1", "16"] {
            let r = try runSwurl(["batch", path, "--jsonl", "--parallel", parallel, "--order", "input"])
            let map = byLine(try objects(r))
            for line in 1...3 { XCTAssertEqual(map[line]?["exit"] as? Int, 0, "line \(line): \(r.text)") }
            XCTAssertEqual(map[4]?["exit"] as? Int, 1, r.text)
        }
        let received = String(decoding: capture.capturedAll, as: UTF8.self)
        XCTAssertTrue(received.contains("GET /resolved "), received)
        XCTAssertTrue(received.contains("GET /socket "), received)
        XCTAssertTrue(received.contains("GET http://victim.test:\(port)/proxied "), received)
        XCTAssertFalse(received.contains("/plain"), received)
        XCTAssertFalse(received.contains("Authorization"), received)
    }

    /// The cookies httpbin's `/cookies` saw on each line (from the line's body in DIR).
    private func cookiesSeen(_ dir: String, line: Int) throws -> [String: String] {
        let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/\(line).body"))
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return object?["cookies"] as? [String: String] ?? [:]
    }

    /// The shared jar matches cookies on the URL's host: a line that names another origin in a
    /// `Host:` header gets none of that origin's cookies, while a line to that origin does.
    func testSharedCookiesFollowTheURLsHostNotAHostHeader() throws {
        let port = try HTTPBin.shared().port
        let dir = TestPaths.temporaryDirectory()
        let path = try input([
            "http://localhost:\(port)/cookies/set?sid=SECRET",
            "http://127.0.0.1:\(port)/cookies Host:localhost:\(port)",
            "http://localhost:\(port)/cookies",
        ])
        let r = try runSwurl(["batch", path, "--parallel", "1", "--output-dir", dir, "-q"])
        XCTAssertEqual(r.status, 0, r.stderr + r.text)
        XCTAssertEqual(try cookiesSeen(dir, line: 2), [:])
        XCTAssertEqual(try cookiesSeen(dir, line: 3), ["sid": "SECRET"], "lines to one origin share its cookies")
    }

    /// A line with its own `Host:` header cannot plant cookies for that host into the shared jar
    /// (session fixation).
    func testAHostHeaderLinePlantsNoCookiesForOtherLines() throws {
        let port = try HTTPBin.shared().port
        let dir = TestPaths.temporaryDirectory()
        let path = try input([
            "http://127.0.0.1:\(port)/cookies/set?sid=EVIL Host:localhost:\(port)",
            "http://localhost:\(port)/cookies",
            "http://127.0.0.1:\(port)/cookies",
        ])
        let r = try runSwurl(["batch", path, "--parallel", "1", "--output-dir", dir, "-q"])
        XCTAssertEqual(r.status, 0, r.stderr + r.text)
        XCTAssertEqual(try cookiesSeen(dir, line: 2), [:])
        XCTAssertEqual(try cookiesSeen(dir, line: 3), [:])
    }

    /// A line stopped by --max-redirects got responses: it keeps the last one's status and
    /// timings in --jsonl (it had none, and the report drew no bar).
    func testALineOverMaxRedirectsKeepsItsLastStatus() throws {
        let r = try runSwurl(["batch", "-", "--jsonl"], stdin: Data((try HTTPBin.url("/redirect/3") + " --follow --max-redirects 1\n").utf8))
        XCTAssertEqual(r.status, 6, r.stderr)
        let line = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.text.utf8)) as? [String: Any], r.text)
        XCTAssertEqual(line["status"] as? Int, 302, r.text)
        XCTAssertNotNil(line["time_total"] as? Double, r.text)
    }

    /// So does a line whose redirect is refused (a target that is no http(s) URL, a downgrade):
    /// it said `"status":null` and the report put it under "no response".
    func testALineWhoseRedirectIsRefusedKeepsItsLastStatus() throws {
        let lines = [try HTTPBin.url("/redirect-to?url=ftp%3A%2F%2Fx%2F") + " --follow",
                     try HTTPBin.url("/redirect-to?url=javascript%3Aalert(1)&status_code=307") + " --follow"]
        let r = try runSwurl(["batch", "-", "--jsonl", "--parallel", "1"], stdin: Data(lines.joined(separator: "\n").utf8))
        XCTAssertEqual(r.status, 1, r.stderr)
        let results = r.text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        XCTAssertEqual(results.map { $0["status"] as? Int }, [302, 307], r.text)
        XCTAssertEqual(results.map { $0["exit"] as? Int }, [1, 1], r.text)
        XCTAssertTrue(results.allSatisfy { $0["time_total"] is Double && $0["http_version"] is String }, r.text)
        XCTAssertTrue(results.allSatisfy { ($0["error"] as? String)?.contains("not an http or https URL") == true }, r.text)
    }

    /// A Digest line answered neither 401 nor 2xx left libcurl's "next request is the bodyless
    /// probe" on its connection: the next lines there (no credentials of their own) went with
    /// `Content-Length: 0` and no body, reported as sent. Each line's body reaches the server.
    func testALineAfterAnUnansweredDigestLineSendsItsBody() throws {
        let server = try RecordingServer()
        defer { server.stop() }
        let input = TestPaths.temporaryDirectory() + "/lines.txt"
        try ["PATCH \(server.base)/status/404 a=1 -A digest -a u:p", "POST \(server.base)/y b=2", "POST \(server.base)/z c=3"]
            .joined(separator: "\n").write(toFile: input, atomically: true, encoding: .utf8)
        let r = try runSwurl(["batch", input, "--parallel", "1"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let received = server.requests.map { String(decoding: $0, as: UTF8.self) }
        XCTAssertEqual(received.count, 3, "\(received)")
        guard received.count == 3 else { return }
        XCTAssertTrue(received[1].hasSuffix("\r\n\r\n{\"b\":\"2\"}"), received[1])
        XCTAssertTrue(received[2].hasSuffix("\r\n\r\n{\"c\":\"3\"}"), received[2])
    }

    /// An empty `Cookie;` beside the engine's cookies makes one Cookie line on every batch line,
    /// also on one set up before the cookie came (a line is set up ahead of its turn): those
    /// went with two, `Cookie: sid=abc` and an empty one.
    func testAnEmptyCookieItemMakesOneLineWhenTheCookieCameAfterTheLineWasSetUp() throws {
        let server = try RecordingServer()
        defer { server.stop() }
        let input = TestPaths.temporaryDirectory() + "/lines.txt"
        try (["\(server.base)/set-cookie?sid=abc"] + (1...30).map { "\(server.base)/p\($0) Cookie;" })
            .joined(separator: "\n").write(toFile: input, atomically: true, encoding: .utf8)
        let r = try runSwurl(["batch", input, "-q", "--parallel", "4"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let received = server.requests.map { String(decoding: $0, as: UTF8.self) }
        XCTAssertEqual(received.count, 31)
        var withCookie = 0
        for request in received where request.contains(" /p") {
            let lines = request.components(separatedBy: "\r\n\r\n")[0].components(separatedBy: "\r\n").filter { $0.lowercased().hasPrefix("cookie") }
            XCTAssertTrue(lines == ["Cookie:"] || lines == ["Cookie: sid=abc"], "\(lines)")
            if lines == ["Cookie: sid=abc"] { withCookie += 1 }
        }
        XCTAssertGreaterThan(withCookie, 20, "the later lines carry the cookie")
    }

    /// A line's `--no-OPTION` for an option no batch takes either is named so: it was called "the
    /// batch's" (`--no-download`), where `swurl batch --download` says it does not apply.
    func testALinesNoOptionForNoBatchOptionIsNamedSo() throws {
        let path = try input(["http://127.0.0.1:9/x --no-download", "http://127.0.0.1:9/y --no-jsonl"])
        let r = try runSwurl(["batch", path, "--order", "input"])
        XCTAssertEqual(r.status, 64, r.text)
        let lines = r.text.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2, r.text)
        XCTAssertTrue(lines.first?.hasSuffix("--no-download cannot be used on a batch line: --download is no option of a batch or its lines") ?? false, r.text)
        XCTAssertTrue(lines.last?.hasSuffix("--no-jsonl cannot be used on a batch line: --jsonl is the batch's, not a line's") ?? false, r.text)
    }
}
