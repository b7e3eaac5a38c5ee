import XCTest
import Foundation
import SwurlTestSupport

/// The built binary against httpbin under gunicorn on 127.0.0.1: what httpbin echoed is what
/// swurl sent.
final class HTTPBinEndToEndTests: XCTestCase {
    func testJSONItemsAndHeadersReachTheServer() throws {
        let r = try runSwurl(["POST", try HTTPBin.url("/anything"), "name=Ann", "age:=30", #"tags:=["a","b"]"#, "X-Trace:1"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let echo = try r.json()
        XCTAssertEqual(echo["json"] as? NSDictionary, ["name": "Ann", "age": 30, "tags": ["a", "b"]] as NSDictionary)
        let headers = echo["headers"] as? [String: String] ?? [:]
        XCTAssertEqual(headers["X-Trace"], "1")
        XCTAssertEqual(headers["Content-Type"], "application/json")
        XCTAssertEqual(headers["Accept"], "application/json, */*;q=0.5")
        XCTAssertEqual(headers["User-Agent"], "swurl/\(try TestPaths.version())")
        XCTAssertEqual(echo["method"] as? String, "POST")
    }

    func testFormSendsTheSameItemsUrlencoded() throws {
        let r = try runSwurl(["-f", "POST", try HTTPBin.url("/anything"), "name=Ann", "age:=30", "user[name]=A B"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let echo = try r.json()
        XCTAssertEqual(echo["form"] as? [String: String], ["name": "Ann", "age": "30", "user[name]": "A B"])
        XCTAssertEqual(echo["data"] as? String, "")
        XCTAssertEqual((echo["headers"] as? [String: String])?["Content-Type"], "application/x-www-form-urlencoded; charset=utf-8")
    }

    func testMethodDefaultsToGETWithoutBodyAndPOSTWithOne() throws {
        XCTAssertEqual(try runSwurl([try HTTPBin.url("/anything")]).json()["method"] as? String, "GET")
        XCTAssertEqual(try runSwurl([try HTTPBin.url("/anything"), "a=1"]).json()["method"] as? String, "POST")
        XCTAssertEqual(try runSwurl(["PATCH", try HTTPBin.url("/anything"), "a=1"]).json()["method"] as? String, "PATCH")
        XCTAssertEqual(try runSwurl(["DELETE", try HTTPBin.url("/anything")]).json()["method"] as? String, "DELETE")
    }

    func testHeaderRemovalEmptyHeaderAndFileHeader() throws {
        let dir = TestPaths.temporaryDirectory()
        try "secret-token\n".write(toFile: dir + "/tok", atomically: true, encoding: .utf8)
        let r = try runSwurl([try HTTPBin.url("/headers"), "Accept:", "User-Agent:", "X-Empty;", "X-Tok:@tok",
                              "Accept-Encoding:"], directory: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        let headers = try r.json()["headers"] as? [String: String] ?? [:]
        XCTAssertNil(headers["Accept"])
        XCTAssertNil(headers["User-Agent"])
        XCTAssertNil(headers["Accept-Encoding"])
        XCTAssertEqual(headers["X-Empty"], "")
        XCTAssertEqual(headers["X-Tok"], "secret-token")
    }

    func testQueryItemsCombineWithTheURLQuery() throws {
        let r = try runSwurl([try HTTPBin.url("/anything?x=1"), "q==a b", "q==c&d", "t[]==1"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let echo = try r.json()
        XCTAssertEqual(echo["args"] as? NSDictionary, ["x": "1", "q": ["a b", "c&d"], "t[]": "1"] as NSDictionary)
    }

    /// Regression: a URL whose last query value ends in `?` (a return-to path) took the item
    /// into that value (`next=/home?q=1`), in the query and in `-f` fields of a GET.
    func testQueryItemsAfterAValueEndingInAQuestionMark() throws {
        let r = try runSwurl([try HTTPBin.url("/anything?next=/home?"), "q==1"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try r.json()["args"] as? NSDictionary, ["next": "/home?", "q": "1"] as NSDictionary)
        let form = try runSwurl(["-f", "GET", try HTTPBin.url("/anything?next=/home?"), "q=1"])
        XCTAssertEqual(try form.json()["args"] as? NSDictionary, ["next": "/home?", "q": "1"] as NSDictionary, form.stderr)
    }

    func testPipedBodyIsByteExact() throws {
        let expected = try fetchWithCurl(try HTTPBin.url("/bytes/100000?seed=7"))
        let r = try runSwurl([try HTTPBin.url("/bytes/100000?seed=7")])
        XCTAssertEqual(r.status, 0)
        XCTAssertEqual(r.stdout.count, 100_000)
        XCTAssertEqual(r.stdout, expected)
    }

    func testCompressedResponsesAreDecoded() throws {
        for path in ["/gzip", "/deflate", "/brotli"] {
            let r = try runSwurl([try HTTPBin.url(path)])
            XCTAssertEqual(r.status, 0, r.stderr)
            let echo = try r.json()
            let flag = ["gzip": "gzipped", "deflate": "deflated", "brotli": "brotli"][String(path.dropFirst())]!
            XCTAssertEqual(echo[flag] as? Bool, true, path)
        }
    }

    /// Past the 1 MiB read-ahead, stdin streams in chunks.
    func testStdinIsStreamedAsTheBody() throws {
        let payload = Data((0..<1_200_000).map { UInt8(truncatingIfNeeded: $0 * 7) })
        let r = try runSwurl(["PUT", try HTTPBin.url("/anything")], stdin: payload)
        XCTAssertEqual(r.status, 0, r.stderr)
        let echo = try r.json()
        let data = echo["data"] as? String ?? ""
        XCTAssertTrue(data.hasPrefix("data:application/octet-stream;base64,") || data.count > 0)
        XCTAssertEqual((echo["headers"] as? [String: String])?["Transfer-Encoding"], "chunked")
    }

    func testStdinFromAFileGetsAContentLength() throws {
        let dir = TestPaths.temporaryDirectory()
        try "{\"from\":\"file\"}".write(toFile: dir + "/body.json", atomically: true, encoding: .utf8)
        let r = try runSwurl(["POST", try HTTPBin.url("/anything")], stdinFile: dir + "/body.json")
        XCTAssertEqual(r.status, 0, r.stderr)
        let echo = try r.json()
        XCTAssertEqual(echo["json"] as? [String: String], ["from": "file"])
        XCTAssertEqual(echo["method"] as? String, "POST")
        XCTAssertEqual((echo["headers"] as? [String: String])?["Content-Length"], "15")
    }

    func testEmptyStdinMeansNoBody() throws {
        let r = try runSwurl([try HTTPBin.url("/anything")], stdin: Data())
        XCTAssertEqual(try r.json()["method"] as? String, "GET")
        // `@-` asks for stdin as the body: an empty one is an empty body, as `curl -d @-` sends.
        let asked = try runSwurl([try HTTPBin.url("/anything"), "@-"], stdin: Data())
        XCTAssertEqual(asked.status, 0, asked.stderr)
        XCTAssertEqual(try asked.json()["method"] as? String, "POST")
        XCTAssertEqual((try asked.json()["headers"] as? [String: String])?["Content-Length"], "0")
    }

    func testStdinIsIgnoredWithDataItemsAndWithIgnoreStdin() throws {
        let r = try runSwurl([try HTTPBin.url("/anything"), "a=1"], stdin: Data("not this".utf8))
        XCTAssertEqual(try r.json()["json"] as? [String: String], ["a": "1"])
        let i = try runSwurl(["-I", try HTTPBin.url("/anything")], stdin: Data("not this".utf8))
        XCTAssertEqual(try i.json()["method"] as? String, "GET")
        XCTAssertEqual(try i.json()["data"] as? String, "")
    }

    func testRawBody() throws {
        let r = try runSwurl(["--raw", "hello raw", try HTTPBin.url("/anything"), "Content-Type:text/plain"])
        let echo = try r.json()
        XCTAssertEqual(echo["data"] as? String, "hello raw")
        XCTAssertEqual(echo["method"] as? String, "POST")
    }

    func testCheckStatusMapsStatusClasses() throws {
        for (code, status) in [(200, 0), (204, 0), (302, 3), (404, 4), (418, 4), (500, 5), (503, 5)] as [(Int, Int32)] {
            let r = try runSwurl(["--check-status", try HTTPBin.url("/status/\(code)")])
            XCTAssertEqual(r.status, status, "HTTP \(code)")
            if status != 0 { XCTAssertTrue(r.stderr.contains("warning: HTTP \(code)"), r.stderr) }
        }
        XCTAssertEqual(try runSwurl([try HTTPBin.url("/status/500")]).status, 0)
        // -qq silences the warning (HTTPie's), -q does not; an error and its hint still show.
        let quiet = try runSwurl(["-q", "--check-status", try HTTPBin.url("/status/404")])
        XCTAssertTrue(quiet.stderr.contains("warning: HTTP 404"), quiet.stderr)
        let silent = try runSwurl(["-qq", "--check-status", try HTTPBin.url("/status/404")])
        XCTAssertEqual(silent.status, 4)
        XCTAssertEqual(silent.stderr, "")
        let failed = try runSwurl(["-q", "-q", "--max-redirects", "1", "-F", try HTTPBin.url("/redirect/3")])
        XCTAssertEqual(failed.status, 6)
        XCTAssertTrue(failed.stderr.hasPrefix("swurl: error: ") && failed.stderr.contains("too many redirects"), failed.stderr)
    }

    func testFollowRedirectsAndTheLimit() throws {
        let followed = try runSwurl(["--follow", try HTTPBin.url("/redirect/3")])
        XCTAssertEqual(followed.status, 0, followed.stderr)
        XCTAssertTrue((try followed.json()["url"] as? String ?? "").hasSuffix("/get"))
        let unfollowed = try runSwurl(["-p", "h", try HTTPBin.url("/redirect/1")])
        XCTAssertTrue(unfollowed.text.hasPrefix("HTTP/1.1 302"), unfollowed.text)
        let limited = try runSwurl(["-F", "--max-redirects", "2", try HTTPBin.url("/redirect/3")])
        XCTAssertEqual(limited.status, 6, limited.stderr)
        XCTAssertTrue(limited.stderr.contains("too many redirects"))
    }

    func testTimeoutExitsWithTwo() throws {
        let r = try runSwurl(["--timeout", "1", try HTTPBin.url("/delay/4")])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.hasPrefix("swurl: error: timed out"), r.stderr)
    }

    func testConnectionRefusedIsATransportError() throws {
        let port = try ServerProcess.refusedPort()
        let r = try runSwurl(["http://127.0.0.1:\(port)/"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.hasPrefix("swurl: error: "), r.stderr)
    }

    func testPrintSelectionWhenPiped() throws {
        let h = try runSwurl(["-h", try HTTPBin.url("/get")])
        XCTAssertTrue(h.text.hasPrefix("HTTP/1.1 200 OK\r\n"), h.text)
        XCTAssertTrue(h.text.hasSuffix("\r\n\r\n"))
        let v = try runSwurl(["-v", try HTTPBin.url("/anything"), "a=1"])
        XCTAssertTrue(v.text.hasPrefix("POST /anything HTTP/1.1\r\nHost: 127.0.0.1:"), v.text)
        // The request body and the response are set apart by a blank line pair, as in HTTPie.
        XCTAssertTrue(v.text.contains("\r\n\r\n{\"a\":\"1\"}\n\nHTTP/1.1 200 OK\r\n"), v.text)
        // --offline (no response part) stays byte-exact: nothing after the body.
        let offline = try runSwurl(["--offline", try HTTPBin.url("/anything"), "a=1"])
        XCTAssertTrue(offline.text.hasSuffix("\r\n\r\n{\"a\":\"1\"}"), offline.text)
    }

    func testPrettyFormatIndentsJSONInAPipe() throws {
        let r = try runSwurl(["--pretty=format", try HTTPBin.url("/json")])
        XCTAssertTrue(r.text.hasPrefix("{\n    \"slideshow\": {\n"), r.text)
        let colors = try runSwurl(["--pretty=all", try HTTPBin.url("/json")])
        XCTAssertTrue(colors.text.contains("\u{1B}["))
        // An explicit --pretty wins over NO_COLOR (no-color.org: arguments override it).
        let noColor = try runSwurl(["--pretty=all", try HTTPBin.url("/json")], environment: ["NO_COLOR": "1"])
        XCTAssertTrue(noColor.text.contains("\u{1B}["), noColor.text)
    }

    func testOutputFileIsWrittenOnlyOnSuccess() throws {
        let dir = TestPaths.temporaryDirectory()
        let ok = try runSwurl(["-o", "out.bin", try HTTPBin.url("/bytes/5000?seed=1")], directory: dir)
        XCTAssertEqual(ok.status, 0, ok.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/out.bin")).count, 5000)
        try "keep me".write(toFile: dir + "/old.txt", atomically: true, encoding: .utf8)
        let failed = try runSwurl(["-o", "old.txt", "--timeout", "1", try HTTPBin.url("/delay/4")],
                                  directory: dir)
        XCTAssertEqual(failed.status, 2, failed.stderr)
        XCTAssertEqual(try String(contentsOfFile: dir + "/old.txt", encoding: .utf8), "keep me")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir).sorted(), ["old.txt", "out.bin"])
    }
}

final class InterruptTests: XCTestCase {
    /// Ctrl-C at a terminal (SIGINT to the whole process group) stops a shell script looping over
    /// swurl, as over curl: swurl ends by SIGINT, and bash goes on only after a child that exited
    /// (swurl exited 130 and the loop ran its next request).
    func testCtrlCStopsAShellLoopOverSwurl() throws {
        let script = """
            import os, signal, subprocess, sys, time
            binary, url = sys.argv[1:3]
            loop = 'for i in 1 2 3; do "$0" -q "$1" > /dev/null; echo "after $i: $?"; done'
            p = subprocess.Popen(["bash", "-c", loop, binary, url], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                 start_new_session=True)
            time.sleep(1.5)
            os.killpg(p.pid, signal.SIGINT)
            try:
                out, _ = p.communicate(timeout=10)
                print(p.returncode, out.decode().strip())
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                print("still running")
            """
        let r = try runProcess("/usr/bin/python3", ["-c", script, TestPaths.binary, try HTTPBin.url("/delay/8")])
        XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self), "-2 \n", "bash ended by SIGINT, nothing after the first request")
    }


    /// Ctrl-C while an output waits for a FIFO's reader is an interruption, as anywhere else (it
    /// was "cannot write …: Interrupted system call", exit 1); a long name is refused before the
    /// request, as `-d` refuses one (it failed at the rename, after the request went out), and so
    /// is an empty --report.
    func testCtrlCWhileAnOutputWaitsForAFIFOsReaderIsAnInterruption() throws {
        let dir = TestPaths.temporaryDirectory()
        let fifo = dir + "/fifo"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let capture = try CaptureServer()
        let (p, text) = try signalDuringATransfer(SIGINT, ["POST", capture.base + "/x", "a=1", "-o", fifo])
        XCTAssertEqual(endingSignal(p), SIGINT, "ended by SIGINT (130 in a shell)")
        XCTAssertEqual(text, "swurl: error: interrupted\n")
        let long = dir + "/" + String(repeating: "n", count: 300)
        for args in [["POST", capture.base + "/y", "a=1", "-o", long], ["POST", capture.base + "/y", "a=1", "--har", long]] {
            let r = try runSwurl(args)
            XCTAssertEqual(r.status, 64, r.stderr)
            XCTAssertTrue(r.stderr.contains("its name is 300 bytes, longer than the file system allows (255)"), r.stderr)
        }
        let lines = dir + "/lines"
        try (capture.base + "/z\n").write(toFile: lines, atomically: true, encoding: .utf8)
        let batch = try runSwurl(["batch", lines, "--report", long])
        XCTAssertEqual(batch.status, 64, batch.stderr)
        let empty = try runSwurl(["batch", lines, "--junit", ""])
        XCTAssertEqual(empty.status, 64, empty.stderr)
        XCTAssertTrue(empty.stderr.contains("--junit needs a file name"), empty.stderr)
        try capture.sync()
        XCTAssertFalse(String(decoding: capture.capturedAll, as: UTF8.self).contains("/y") || String(decoding: capture.capturedAll, as: UTF8.self).contains("/z"),
                       "nothing was sent")
    }

    /// Runs swurl with `arguments` (default: a request that waits 8 s for its response), sends
    /// `signal` once its Ctrl-C handler is in place, and returns how it ended and its stderr.
    private func signalDuringATransfer(_ signal: Int32, _ arguments: [String]? = nil) throws -> (process: Process, stderr: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: TestPaths.binary)
        p.arguments = try arguments ?? [HTTPBin.url("/delay/8")]
        p.standardOutput = FileHandle.nullDevice
        let err = Pipe()
        p.standardError = err
        try p.run()
        waitForHandler(of: SIGINT, in: p.processIdentifier)
        Thread.sleep(forTimeInterval: 0.5)
        kill(p.processIdentifier, signal)
        waitForExit(p)
        return (p, String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    }

    /// Ctrl-\ (SIGQUIT) during a transfer ends swurl by the signal, as curl: the Swift runtime's
    /// crash reporter printed "Program crashed", waited for a key, and the transfer went on to
    /// its end.
    func testSIGQUITEndsATransfer() throws {
        let (p, text) = try signalDuringATransfer(SIGQUIT)
        XCTAssertEqual(endingSignal(p), SIGQUIT)
        XCTAssertFalse(text.contains("crashed"), text)
    }

    /// Ctrl-C stops a transfer cleanly and ends swurl by SIGINT (130 in a shell), as curl ends.
    func testSIGINTExitsWith130() throws {
        let (p, text) = try signalDuringATransfer(SIGINT)
        XCTAssertEqual(endingSignal(p), SIGINT, "ended by SIGINT (130 in a shell)")
        XCTAssertEqual(text, "swurl: error: interrupted\n")
    }
}
