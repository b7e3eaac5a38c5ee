import XCTest
import Foundation
import SwurlTestSupport

/// A reader that goes away, a terminal that closes, and Ctrl-C while the output waits for a
/// reader: swurl ends in order and writes what it promised (`--har`, the reports, the session).
final class BrokenPipeAndHangupTests: XCTestCase {
    private var dir = ""

    override func setUpWithError() throws {
        dir = TestPaths.temporaryDirectory()
    }

    /// Runs a Python script with the binary as argv[1] and `dir` as argv[2]; returns its stdout.
    private func python(_ script: String, _ args: [String] = []) throws -> String {
        let r = try runProcess("/usr/bin/python3", ["-c", script, TestPaths.binary, dir] + args, check: false)
        XCTAssertEqual(r.status, 0, r.stderr)
        return String(decoding: r.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func har(_ name: String) throws -> [[String: Any]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name))
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try XCTUnwrap((object["log"] as? [String: Any])?["entries"] as? [[String: Any]])
    }

    private func hiddenFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix(".") }
    }

    /// `swurl URL --har F | head -c 10`, `swurl batch … --report … | head -n 1` and a session:
    /// the write fails (exit 1) instead of SIGPIPE ending swurl, and the files are written.
    func testAReaderThatGoesAwayLeavesTheOutputsWritten() throws {
        let script = """
        import json, subprocess, sys
        binary, where, args = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
        p = subprocess.Popen([binary] + args, cwd=where, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        p.stdout.read(10)
        p.stdout.close()
        err = p.stderr.read().decode()
        print(json.dumps([p.wait(timeout=60), err]))
        """
        func run(_ args: [String]) throws -> (status: Int, stderr: String) {
            let out = try python(script, [String(decoding: try JSONSerialization.data(withJSONObject: args), as: UTF8.self)])
            let parsed = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [Any])
            return (try XCTUnwrap(parsed.first as? Int), parsed.last as? String ?? "")
        }
        let one = try run([try HTTPBin.url("/bytes/102400"), "--har", "one.har", "--session", dir + "/s.json", "X-Team:blue"])
        XCTAssertEqual(one.status, 1, one.stderr)
        XCTAssertTrue(one.stderr.contains("Broken pipe"), one.stderr)
        XCTAssertEqual(try har("one.har").count, 1)
        XCTAssertTrue((try? String(contentsOfFile: dir + "/s.json", encoding: .utf8))?.contains("blue") == true, "the session was saved")

        let lines = (1...400).map { _ in try? HTTPBin.url("/get") }.compactMap { $0 }.joined(separator: "\n") + "\n"
        try lines.write(toFile: dir + "/urls", atomically: true, encoding: .utf8)
        let batch = try run(["batch", "urls", "--parallel", "4", "--har", "b.har", "--report", "r.html", "--junit", "j.xml"])
        XCTAssertEqual(batch.status, 1, batch.stderr)
        let entries = try har("b.har").count
        XCTAssertGreaterThan(entries, 0)
        XCTAssertLessThan(entries, 400, "the batch stopped starting lines when its reader went away")
        let junit = try String(contentsOfFile: dir + "/j.xml", encoding: .utf8)
        XCTAssertTrue(junit.contains("</testsuites>"), String(junit.suffix(300)))
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/r.html"))
        XCTAssertEqual(try hiddenFiles().filter { $0.contains(".swurl-") }, [], "no temporary file left")

        // A JUnit file appended to the results (`-`) fails with them: one error, not a second
        // one naming '/dev/stdout'.
        let appended = try run(["batch", "urls", "--parallel", "4", "--junit", "-"])
        XCTAssertEqual(appended.status, 1, appended.stderr)
        XCTAssertEqual(appended.stderr, "swurl: error: writing to stdout failed: Broken pipe\n")
    }

    /// SIGHUP (a closed terminal) stops a request as SIGTERM does: the HAR written, -o's target as
    /// it was, no temporary file, and the process ended by SIGHUP; nohup's ignored SIGHUP stays
    /// ignored.
    func testSIGHUPWritesTheHarAndEndsByTheSignal() throws {
        try Data("old".utf8).write(to: URL(fileURLWithPath: dir + "/out.json"))
        let args = ["--har", "r.har", "-o", "out.json"]
        XCTAssertEqual(try runSwurlUntilSignalled(args + [try HTTPBin.url("/delay/10")], in: dir, signal: "SIGHUP"), "-1")
        let entry = try XCTUnwrap(try har("r.har").first)
        XCTAssertEqual(entry["_error"] as? String, "interrupted", "\(entry)")
        XCTAssertEqual(try String(contentsOfFile: dir + "/out.json", encoding: .utf8), "old")
        XCTAssertEqual(try hiddenFiles(), [], "no temporary file left")
        // Ignored by the parent (nohup): the request runs to its end.
        XCTAssertEqual(try runSwurlUntilSignalled(args + [try HTTPBin.url("/delay/1")], in: dir, signal: "SIGHUP", parentIgnores: true), "0")
        // So is an ignored SIGINT (a background job of `sh`), as curl leaves it.
        XCTAssertEqual(try runSwurlUntilSignalled(args + [try HTTPBin.url("/delay/1")], in: dir, signal: "SIGINT", parentIgnores: true), "0")
    }

    /// Ctrl-C while the response waits for a reader that does not read (`swurl URL | less`):
    /// the blocked write stops, the HAR is written, and swurl exits 130 at once.
    func testCtrlCStopsAWriteBlockedOnAPipe() throws {
        let script = """
        import glob, os, signal, subprocess, sys, time
        binary, where, url = sys.argv[1], sys.argv[2], sys.argv[3]
        p = subprocess.Popen([binary, "--har", "r.har", url], cwd=where, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        deadline = time.time() + 30
        while time.time() < deadline and not glob.glob(os.path.join(where, ".*.swurl-*")):
            time.sleep(0.02)
        time.sleep(1)
        p.send_signal(signal.SIGINT)
        try:
            print(p.wait(timeout=10))
        except subprocess.TimeoutExpired:
            p.kill()
            print("still blocked")
        """
        XCTAssertEqual(try python(script, [try HTTPBin.url("/bytes/102400")]), "-2", "ended by SIGINT (130 in a shell)")
        XCTAssertEqual(try har("r.har").count, 1)
        XCTAssertEqual(try hiddenFiles(), [], "no temporary file left")
        // A formatted body is written out at the end too: that write must not block either.
        let fixture = try FixtureServer()
        try fixture.put("big.json", "[" + (0..<20000).map { "{\"k\":\($0),\"v\":\"\(String(repeating: "y", count: 40))\"}" }.joined(separator: ",") + "]")
        let formatted = script.replacingOccurrences(of: "[binary, \"--har\", \"r.har\", url]", with: "[binary, \"--pretty=format\", \"--har\", \"f.har\", url]")
        XCTAssertEqual(try python(formatted, [fixture.url("big.json", type: "application/json")]), "-2", "ended by SIGINT")
        XCTAssertEqual(try har("f.har").count, 1)
    }

    /// A REPL script whose reader went away stops before its next line: its later requests
    /// would change things nobody sees (a batch likewise starts no new lines). It went on to
    /// send the next request and stopped only when its output could not be written.
    func testAREPLScriptStopsWhenItsReaderGoesAway() throws {
        let capture = try CaptureServer()
        let script = """
        import subprocess, sys, time
        binary, where, base = sys.argv[1], sys.argv[2], sys.argv[3]
        p = subprocess.Popen([binary, "repl", base], cwd=where, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        p.stdin.write(b"GET /first\\n")
        p.stdin.flush()
        p.stdout.read(1)
        p.stdout.close()
        time.sleep(0.5)
        p.stdin.write(b"POST /second a=1\\nDELETE /third\\n")
        p.stdin.close()
        print(p.wait(timeout=60))
        """
        XCTAssertEqual(try python(script, [capture.base]), "1")
        try capture.sync()
        let seen = String(decoding: capture.capturedAll, as: UTF8.self)
        XCTAssertTrue(seen.contains("GET /first"), seen)
        XCTAssertFalse(seen.contains("/second") || seen.contains("/third"), seen)
        // A stdout the shell closed (`>&-`) has no reader to lose: lines that write elsewhere run.
        let dir = TestPaths.temporaryDirectory()
        let closed = try runProcess("/bin/bash", ["-c", "printf 'GET /kept -o out.txt\\n' | \"$0\" repl \"$1\" >&-", TestPaths.binary, capture.base],
                                    directory: dir, check: false)
        XCTAssertEqual(closed.status, 0, closed.stderr)
        try capture.sync()
        XCTAssertTrue(String(decoding: capture.capturedAll, as: UTF8.self).contains("GET /kept"))
    }
}
