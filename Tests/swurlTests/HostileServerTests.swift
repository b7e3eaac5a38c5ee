import Foundation
import XCTest
import SwurlTestSupport

/// End-to-end runs against a server that breaks HTTP on purpose (Tests/Support/HostileServer):
/// each case ends with a clear error, the right exit status and bounded memory (peak RSS from
/// /usr/bin/time), and nothing half-written that looks complete.
final class HostileServerTests: XCTestCase {
    nonisolated(unsafe) static var shared: HostileServer?

    private func server() throws -> HostileServer {
        if let s = HostileServerTests.shared { return s }
        let s = try HostileServer()
        HostileServerTests.shared = s
        return s
    }

    override class func tearDown() {
        shared = nil
        super.tearDown()
    }

    struct Run {
        var status: Int32
        /// stdout, or everything the terminal received.
        var out: Data
        var err: String
        /// Peak resident set size of swurl, in KiB.
        var rssKB: Int
        var text: String { String(decoding: out, as: UTF8.self) }
    }

    /// Runs swurl under /usr/bin/time (peak RSS); with `terminal`, on a pseudo-terminal
    /// (util-linux `script`), where stderr shows up in `out` too. `pipe` sends stdout through `cat`;
    /// `count` through `wc -c`, leaving only the byte count in `out` (for bodies of gigabytes).
    private func run(_ arguments: [String], terminal: Bool = false, pipe: Bool = false, count: Bool = false,
                     directory: String? = nil) throws -> Run {
        let dir = TestPaths.temporaryDirectory()
        let quote = { (s: String) in "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let swurl = (["/usr/bin/time", "-o", dir + "/rss", "-f", "%M", TestPaths.binary] + arguments).map(quote).joined(separator: " ")
        let command: String
        if terminal {
            command = "/usr/bin/script -qec \(quote(swurl + "; echo \"[exit $?]\"")) /dev/null > \(quote(dir + "/out"))"
        } else if pipe || count {
            command = "{ \(swurl) 2> \(quote(dir + "/err")); echo $? > \(quote(dir + "/status")); } | \(count ? "wc -c" : "cat") > \(quote(dir + "/out"))"
        } else {
            command = "\(swurl) > \(quote(dir + "/out")) 2> \(quote(dir + "/err")); echo $? > \(quote(dir + "/status"))"
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", command]
        if let directory { p.currentDirectoryURL = URL(fileURLWithPath: directory) }
        var env = ProcessInfo.processInfo.environment
        for key in ["http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy", "NO_COLOR"] {
            env.removeValue(forKey: key)
        }
        env["TERM"] = "xterm"
        p.environment = env
        p.standardInput = FileHandle.nullDevice
        try p.run()
        waitForExit(p)
        let out = (try? Data(contentsOf: URL(fileURLWithPath: dir + "/out"))) ?? Data()
        var status: Int32 = -1
        if terminal {
            let text = String(decoding: out, as: UTF8.self)
            if let r = text.range(of: "[exit ", options: .backwards),
               let n = Int32(text[r.upperBound...].prefix { $0.isNumber }) { status = n }
        } else {
            let s = (try? String(contentsOfFile: dir + "/status", encoding: .utf8)) ?? ""
            status = Int32(s.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        }
        let rssText = (try? String(contentsOfFile: dir + "/rss", encoding: .utf8)) ?? ""
        // `time` prints "Command exited with non-zero status N" before the figure.
        let rss = rssText.split(separator: "\n").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.last ?? -1
        let err = (try? String(contentsOfFile: dir + "/err", encoding: .utf8)) ?? ""
        return Run(status: status, out: out, err: err, rssKB: rss)
    }

    /// Memory that does not grow with the body: 1 GiB bombs and 100 MB strings stay far below this.
    static let flatRSSKB = 150_000

    // MARK: - Broken framing

    /// --timeout counts a head that trickles in as data moving (it timed out with "without data"
    /// while header lines arrived every 0.4 s); a connection never made says so.
    func testTimeoutSeesHeaderLinesAndNamesAConnectionNeverMade() throws {
        let h = try server()
        let trickle = try runSwurl(["--no-config", "--timeout", "1", h.url("/head-trickle")])
        XCTAssertEqual(trickle.status, 0, trickle.stderr)
        XCTAssertEqual(trickle.text, "ok")
        // A listener whose queue is full (backlog 0, two connections waiting): SYNs are dropped.
        let script = """
        import socket, sys, time
        s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(0)
        port = s.getsockname()[1]
        held = []
        for _ in range(3):
            c = socket.socket(); c.setblocking(False)
            try: c.connect(("127.0.0.1", port))
            except BlockingIOError: pass
            held.append(c)
        time.sleep(0.3)
        print(port, flush=True)
        time.sleep(30)
        """
        let full = try ServerProcess(executable: TestPaths.venv + "/bin/python3", arguments: ["-c", script])
        defer { full.stop() }
        let stalled = try runSwurl(["--no-config", "--timeout", "1", "http://127.0.0.1:\(full.port)/"])
        XCTAssertEqual(stalled.status, 2, stalled.stderr)
        XCTAssertTrue(stalled.stderr.contains("connecting: the connection was not made"), stalled.stderr)
        // A --connect-timeout longer than --timeout is the connection's limit (--timeout's stall
        // check cut it to its own, naming that).
        let longer = try runSwurl(["--no-config", "--timeout", "0.5", "--connect-timeout", "2", "http://127.0.0.1:\(full.port)/"])
        XCTAssertEqual(longer.status, 2, longer.stderr)
        XCTAssertTrue(longer.stderr.contains("timed out after 2 seconds connecting"), longer.stderr)
    }

    /// Regression: a status line libcurl reads (blanks doubled, no blank after the code, a tab)
    /// but swurl's parser did not: its head was dropped and its body went nowhere, so a 500 ran
    /// as an empty success (exit 0, `--check-status` too; `-d` saved 0 bytes).
    func testOddlySpacedStatusLinesAreReadAsLibcurlReadsThem() throws {
        for (line, code, reason) in [(" 500  Internal Server Error", 500, "Internal Server Error"), ("200OK", 200, "OK"), ("500\tInternal", 500, "Internal")] {
            let server = try SequenceServer([.init(line, ["Content-Type: text/plain", "Content-Length: 6"], body: Data("error\n".utf8))])
            let r = try runSwurl(["-p", "hb", "--check-status", server.url("/x")])
            XCTAssertEqual(r.status, code == 500 ? 5 : 0, "\(line): \(r.stderr)")
            XCTAssertTrue(r.text.hasPrefix("HTTP/1.1 \(code) \(reason)\r\n"), "\(line): \(r.text.debugDescription)")
            XCTAssertTrue(r.text.hasSuffix("\r\n\r\nerror\n"), "\(line): \(r.text.debugDescription)")
        }
    }

    func testBodyShorterThanContentLength() throws {
        let s = try server()
        let r = try run([s.url("/short")])
        XCTAssertEqual(r.status, 1, r.err)
        XCTAssertTrue(r.err.contains("90 bytes remaining"), r.err)
        XCTAssertEqual(r.text, "0123456789")
    }

    /// gzip members one after another (RFC 1952 allows it; libcurl 7.88 decoded the first and
    /// failed) are one body, as gzip -d reads them; stray bytes after the compressed data are an
    /// error that says the body could not be decoded, not that a disk write failed.
    func testGzipMembersOneAfterAnotherAreOneBodyAndStrayBytesAreNamed() throws {
        let s = try server()
        let whole = try run([s.url("/gz-multi")])
        XCTAssertEqual(whole.status, 0, whole.err)
        XCTAssertEqual(whole.text, "first\nsecond\n")
        let r = try run([s.url("/gz-stray")])
        XCTAssertEqual(r.status, 1, r.err)
        XCTAssertTrue(r.err.contains("(Content-Encoding: gzip) could not be decoded: bytes follow the end of its compressed data"), r.err)
        XCTAssertTrue(r.err.contains("-d -o FILE"), r.err)
        XCTAssertFalse(r.err.contains("disk"), r.err)
        // The hint's way: a download saves the bytes as sent, and says they are encoded.
        let dir = TestPaths.temporaryDirectory()
        let d = try run(["-d", "-o", "multi.gz", s.url("/gz-multi")], directory: dir)
        XCTAssertEqual(d.status, 0, d.err)
        XCTAssertTrue(d.err.contains("multi.gz' ("), d.err)
        XCTAssertTrue(d.err.contains(" bytes, as sent: Content-Encoding gzip, not decoded)"), d.err)
        let gunzip = Process()
        gunzip.executableURL = URL(fileURLWithPath: "/bin/gzip")
        gunzip.arguments = ["-dc", dir + "/multi.gz"]
        let pipe = Pipe()
        gunzip.standardOutput = pipe
        try gunzip.run()
        let out = pipe.fileHandleForReading.readDataToEndOfFile()
        gunzip.waitUntilExit()
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "first\nsecond\n")
    }

    /// Regression: a body of 1-byte chunks went out one write(2) a chunk (libcurl hands each
    /// chunk over alone): 20 MB took 19 s, where curl takes 1. Small pieces go on together now,
    /// and the bytes are the same. (strace counts the writes to stdout.)
    func testTinyChunksGoOutTogether() throws {
        let s = try server()
        let dir = TestPaths.temporaryDirectory()
        let r = try runProcess("/usr/bin/strace", ["-f", "-qq", "-e", "trace=write", "-e", "signal=none", "-o", dir + "/trace",
                                                   TestPaths.binary, "--no-config", "-o", dir + "/body", s.url("/tiny-chunks")], check: false)
        XCTAssertEqual(r.status, 0, r.stderr)
        let body = try Data(contentsOf: URL(fileURLWithPath: dir + "/body"))
        XCTAssertEqual(body, Data(String(repeating: "0123456789", count: 2000).utf8))
        let writes = try String(contentsOfFile: dir + "/trace", encoding: .utf8).split(separator: "\n").filter { $0.contains("write(") }
        XCTAssertLessThan(writes.count, 200, "\(writes.count) writes for 20,000 chunks")
    }

    /// zstd bodies are swurl's to decode too: frames one after another are one body, one cut
    /// short is an error (libcurl passed it as whole, exit 0), and a frame asking for a window
    /// over 8 MiB is refused (libcurl held up to 128 MiB for it: 2 GB for a batch's 16 lines;
    /// RFC 9659 caps the content coding's window at 8 MiB).
    func testZstdFramesAreOneBodyACutOneFailsAndAHugeWindowIsRefused() throws {
        let frame = try XCTUnwrap(Data(base64Encoded: "KLUv/QRYuQAAeyJhIjogMSwgImIiOiBbMSwyLDNdfQqtLug8"))
        let huge = Data([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x88, 0x91, 0x00, 0x00] + Array("{\"big\": \"window\"}\n".utf8))
        func reply(_ body: Data, length: Bool = true) -> SequenceServer.Reply {
            SequenceServer.Reply("200 OK", ["Content-Type: text/plain", "Content-Encoding: zstd"] + (length ? ["Content-Length: \(body.count)"] : []), body: body)
        }
        let server = try SequenceServer([reply(frame + frame), reply(frame.prefix(frame.count - 3), length: false), reply(huge),
                                         reply(frame + Data("GARBAGE".utf8))])
        let two = try runSwurl([server.url("/two")])
        XCTAssertEqual(two.status, 0, two.stderr)
        XCTAssertEqual(two.text, "{\"a\": 1, \"b\": [1,2,3]}\n{\"a\": 1, \"b\": [1,2,3]}\n")
        let cut = try runSwurl([server.url("/cut")])
        XCTAssertEqual(cut.status, 1, cut.stderr)
        XCTAssertTrue(cut.stderr.contains("(Content-Encoding: zstd) ended before the end of its compressed data: it was cut short"), cut.stderr)
        let window = try runSwurl([server.url("/window")])
        XCTAssertEqual(window.status, 1, window.stderr)
        XCTAssertTrue(window.stderr.contains("its zstd window is larger than the 8 MiB a response may use (RFC 9659)"), window.stderr)
        XCTAssertEqual(window.text, "")
        // Bytes after a whole frame that start no frame are named as after gzip's end.
        let stray = try runSwurl([server.url("/stray")])
        XCTAssertEqual(stray.status, 1, stray.stderr)
        XCTAssertTrue(stray.stderr.contains("(Content-Encoding: zstd) could not be decoded: bytes follow the end of its compressed data"), stray.stderr)
    }

    /// Regression: a gzip body cut short (its data stops before its end: the connection closed
    /// a body without Content-Length, or the server sent it short) was a success, exit 0: `-o`
    /// replaced a good file with half a document, a batch line passed, the cache kept it and
    /// answered with it. libcurl 7.88 cannot tell; swurl decodes gzip and deflate itself.
    func testACompressedBodyCutShortFailsAndReplacesNothing() throws {
        let s = try server()
        let dir = TestPaths.temporaryDirectory()
        try Data("good\n".utf8).write(to: URL(fileURLWithPath: dir + "/doc.json"))
        for path in ["/gz-cut", "/gz-cut-len"] {
            let r = try run(["-o", "doc.json", s.url(path)], directory: dir)
            XCTAssertEqual(r.status, 1, r.err)
            XCTAssertTrue(r.err.contains("the response body (Content-Encoding: gzip) ended before the end of its compressed data: it was cut short"), r.err)
            XCTAssertEqual(try String(contentsOfFile: dir + "/doc.json", encoding: .utf8), "good\n", path)
        }
        let lines = dir + "/lines.txt"
        try (s.url("/gz-cut") + "\n" + s.url("/gz-multi") + "\n").write(toFile: lines, atomically: true, encoding: .utf8)
        let batch = try run(["batch", lines, "--jsonl", "--order", "input"])
        XCTAssertEqual(batch.status, 1, batch.err)
        let results = batch.text.split(separator: "\n").map(String.init)
        XCTAssertTrue(results.first?.contains("\"exit\":1") == true, batch.text)
        XCTAssertTrue(results.last?.contains("\"exit\":0") == true, batch.text)
        // Not stored: a second request goes to the network and fails again.
        let cache = dir + "/cache"
        for _ in 0..<2 {
            let c = try run(["--cache=" + cache, "-v", s.url("/gz-cut")])
            XCTAssertEqual(c.status, 1, c.err)
            XCTAssertFalse(c.err.contains("cache: hit"), c.err)
        }
        // Whole deflate bodies, zlib-wrapped and raw, decode; raw with its last bytes held in
        // zlib past a full output buffer, and with an adler32 after it, too.
        // Raw deflate's first byte alone in a piece was refused (libcurl's way): the header
        // bytes are read again as raw deflate.
        for path in ["/deflate-zlib", "/deflate-raw", "/deflate-raw?split=1", "/deflate-zlib?split=1"] {
            let d = try run([s.url(path)])
            XCTAssertEqual(d.status, 0, d.err)
            XCTAssertEqual(d.text, String(repeating: "deflated body\n", count: 1000), path)
        }
        for path in ["/raw-held", "/raw-held?adler=1"] {
            let d = try run([s.url(path)])
            XCTAssertEqual(d.status, 0, "\(path): \(d.err)")
            XCTAssertEqual(d.text.count, 65546, path)
        }
        // A 206 of a gzip body is a range of the coded bytes, no stream cut short.
        let range = try run(["-o", dir + "/range.json", s.url("/gz-range")])
        XCTAssertEqual(range.status, 0, range.err)
        // A Digest 401 naming a coding nobody decodes left libcurl's decoding off for the answer:
        // its gzip body came out still compressed.
        let digest = try run(["-A", "digest", "-a", "u:p", s.url("/digest-coded")])
        XCTAssertEqual(digest.status, 0, digest.err)
        XCTAssertEqual(digest.text, "decoded\n")
    }

    /// A head the connection's end cuts off is a transport error, not a success with nothing:
    /// the status it started with must not pass --check-status, a download or a batch line.
    func testAResponseHeadCutOffIsATransportError() throws {
        let s = try server()
        let dir = TestPaths.temporaryDirectory()
        for args in [["--check-status"], ["-h"], ["-d"]] {
            let r = try run(args + [s.url("/cut-head")], directory: dir)
            XCTAssertEqual(r.status, 1, "\(args): \(r.err)")
            XCTAssertTrue(r.err.contains("the server closed the connection before the end of the response head"), r.err)
            XCTAssertEqual(r.text, "", "\(args)")
        }
        XCTAssertEqual((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [], [])
        let lines = dir + "/lines"
        try Data("GET \(s.url("/cut-head"))\n".utf8).write(to: URL(fileURLWithPath: lines))
        let batch = try run(["batch", lines, "--jsonl"], directory: dir)
        XCTAssertEqual(batch.status, 1, batch.err)
        XCTAssertTrue(batch.text.contains(#""exit":1"#), batch.text)
        // Trailer fields come through the same callback after the body, with no status line and
        // no blank line: no head is open then, and the response is whole.
        let trailer = try run([s.url("/trailer")])
        XCTAssertEqual(trailer.status, 0, trailer.err)
        XCTAssertEqual(trailer.text, "hello\n")
        let saved = try run(["-d", s.url("/trailer")], directory: dir)
        XCTAssertEqual(saved.status, 0, saved.err)
        XCTAssertEqual(try String(contentsOfFile: dir + "/trailer.txt", encoding: .utf8), "hello\n")
    }

    /// Text served with an image's type (an error page) is shown as text on a terminal.
    func testTextLabelledAnImageIsShownAsText() throws {
        let s = try server()
        let r = try run(["-b", s.url("/png-lie")], terminal: true)
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertTrue(r.text.contains("<Error>AccessDenied</Error>"), r.text)
        XCTAssertFalse(r.text.contains("binary data not shown"), r.text)
    }

    func testShortBodyDownloadIsNotLeftLookingComplete() throws {
        let s = try server()
        let dir = TestPaths.temporaryDirectory()
        let r = try run(["-d", s.url("/short")], directory: dir)
        XCTAssertEqual(r.status, 1, r.err)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        XCTAssertEqual(files, ["short.txt.part"], "a cut download must keep its .part name")
        // The command that resumes it, whatever named the file.
        XCTAssertTrue(r.err.contains("resume it with --continue: swurl -d -c -o \(dir)/short.txt "), r.err)
    }

    /// A download cut before any byte arrived keeps no empty .part: there is nothing to resume.
    func testADownloadCutBeforeItsFirstByteLeavesNoFile() throws {
        let s = try server()
        let dir = TestPaths.temporaryDirectory()
        let r = try run(["-d", s.url("/nothing-short")], directory: dir)
        XCTAssertEqual(r.status, 1, r.err)
        XCTAssertEqual((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [], [])
    }

    /// A response's framing has one verdict in every door. Content-Length fields or a list that
    /// name different lengths, or a length past Int64, are refused before any body byte (the
    /// download alone refused them; the one-shot request, batch and the REPL took whichever
    /// libcurl read, and the cache stored it). A chunked body's Content-Length is no size
    /// (`-d` called a whole chunked body cut short), an unknown Transfer-Encoding is read to the
    /// close as the other doors read it (`-d` failed with libcurl's "content encoding"), and a
    /// final 101 is no file (`-d` said "saved (0 bytes)" and exited 0).
    func testResponseFramingHasOneVerdictInEveryDoor() throws {
        let conflicting: [(String, [String], String)] = [
            ("two fields", ["Content-Length: 2", "Content-Length: 5"], "names more than one length (2, 5)"),
            ("a list", ["Content-Length: 2, 5"], "names more than one length (2, 5)"),
            ("past Int64", ["Content-Length: 99999999999999999999999"], "(99999999999999999999999) is not a length"),
        ]
        for (name, fields, message) in conflicting {
            let server = try SequenceServer([.init("200 OK", ["Content-Type: text/plain"] + fields, body: Data("hihi!".utf8))])
            let dir = TestPaths.temporaryDirectory()
            let cache = dir + "/cache"
            let one = try runSwurl(["--no-config", "--cache=" + cache, server.url("/a")])
            XCTAssertEqual(one.status, 1, "\(name): \(one.stderr)")
            XCTAssertTrue(one.stderr.contains(message) && one.text.isEmpty, "\(name): \(one.stderr)")
            XCTAssertEqual(try runSwurl(["--no-config", "cache", "list", "--cache=" + cache]).text, "", name)
            let download = try runSwurl(["--no-config", "-d", server.url("/a")], directory: dir)
            XCTAssertEqual(download.status, 1, "\(name): \(download.stderr)")
            XCTAssertTrue(download.stderr.contains(message), "\(name): \(download.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/a"), name)
            try (server.url("/b") + "\n").write(toFile: dir + "/lines", atomically: true, encoding: .utf8)
            let batch = try runSwurl(["--no-config", "batch", dir + "/lines", "--jsonl", "-q"])
            XCTAssertEqual(batch.status, 1, "\(name): \(batch.stderr)")
            XCTAssertTrue(batch.text.contains(message) && batch.text.contains("\"exit\":1"), "\(name): \(batch.text)")
            let repl = try runSwurl(["--no-config", "repl", server.url("")], stdin: Data("/c\n".utf8))
            XCTAssertTrue(repl.stderr.contains(message), "\(name): \(repl.stderr)")
        }
        // One length said twice is one length; an empty list element is none (RFC 9110 §5.6.1).
        for spelled in ["2, 2", "2,"] {
            let twice = try SequenceServer([.init("200 OK", ["Content-Length: " + spelled], body: Data("hi".utf8))])
            let same = try runSwurl(["--no-config", twice.url("/x")])
            XCTAssertEqual(same.status, 0, "\(spelled): \(same.stderr)")
            XCTAssertEqual(same.text, "hi", spelled)
        }

        let dir = TestPaths.temporaryDirectory()
        let chunked = try SequenceServer([.init("200 OK", ["Content-Length: 100", "Transfer-Encoding: chunked"], body: Data("2\r\nhi\r\n0\r\n\r\n".utf8))])
        let whole = try runSwurl(["--no-config", "-d", chunked.url("/chunked.txt")], directory: dir)
        XCTAssertEqual(whole.status, 0, whole.stderr)
        XCTAssertEqual(try String(contentsOfFile: dir + "/chunked.txt", encoding: .utf8), "hi")
        let unknown = try SequenceServer([.init("200 OK", ["Transfer-Encoding: foo"], body: Data("hi".utf8))])
        let raw = try runSwurl(["--no-config", "-d", unknown.url("/raw.txt")], directory: dir)
        XCTAssertEqual(raw.status, 0, raw.stderr)
        XCTAssertEqual(try String(contentsOfFile: dir + "/raw.txt", encoding: .utf8), "hi")
        XCTAssertEqual(try runSwurl(["--no-config", unknown.url("/raw.txt")]).text, "hi")
        let upgrade = try SequenceServer([.init("101 Switching Protocols", ["Upgrade: websocket"], body: Data("hello raw stuff".utf8))])
        let switched = try runSwurl(["--no-config", "-d", upgrade.url("/ws.bin")], directory: dir)
        XCTAssertEqual(switched.status, 8, switched.stderr)
        XCTAssertTrue(switched.stderr.contains("HTTP 101 Switching Protocols; nothing was saved"), switched.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/ws.bin"))
        let listed = try runSwurl(["--no-config", "-d", "--accept-status", "101", upgrade.url("/ws.bin")], directory: dir)
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertEqual(try String(contentsOfFile: dir + "/ws.bin", encoding: .utf8), "hello raw stuff")
    }

    func testInvalidChunkSize() throws {
        let s = try server()
        let r = try run([s.url("/bad-chunk")])
        XCTAssertEqual(r.status, 1, r.err)
        XCTAssertTrue(r.err.lowercased().contains("chunk"), r.err)
    }

    func testSlowDripUnderTimeout() throws {
        let s = try server()
        let r = try run(["--timeout", "0.5", s.url("/drip")])
        XCTAssertEqual(r.status, 2, r.err)
        XCTAssertTrue(r.err.contains("timed out"), r.err)
    }

    func testEndlessChunkedBodyStopsOnCtrlC() throws {
        let s = try server()
        let dir = TestPaths.temporaryDirectory()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: TestPaths.binary)
        p.arguments = ["--timeout", "5", s.url("/endless")]
        FileManager.default.createFile(atPath: dir + "/out", contents: nil)
        p.standardOutput = FileHandle(forWritingAtPath: dir + "/out")
        p.standardError = FileHandle.nullDevice
        try p.run()
        // Wait until the body has started, then interrupt.
        var waited = 0
        func size() -> Int {
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: dir + "/out") else { return 0 }
            return (attributes[.size] as? Int) ?? 0
        }
        while size() < 12, waited < 400 {
            usleep(50_000); waited += 1
        }
        kill(p.processIdentifier, SIGINT)
        waitForExit(p)
        XCTAssertEqual(endingSignal(p), SIGINT, "ended by SIGINT (130 in a shell)")
    }

    /// Two downloads to one name at once: the second is refused before it touches the first's
    /// `.part` (they used to mix their bytes in it, and the first reported the mix as saved).
    func testASecondDownloadToTheSameNameIsRefusedWhileTheFirstRuns() throws {
        let s = try server()
        let dir = TestPaths.temporaryDirectory()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: TestPaths.binary)
        p.arguments = ["-d", "-o", "same", "--timeout", "20", s.url("/endless")]
        p.currentDirectoryURL = URL(fileURLWithPath: dir)
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        var waited = 0
        while (((try? FileManager.default.attributesOfItem(atPath: dir + "/same.part"))?[.size] as? Int) ?? 0) < 12, waited < 400 {
            usleep(50_000); waited += 1
        }
        let second = try run(["-d", "-o", "same", s.url("/short-json")], directory: dir)
        XCTAssertEqual(second.status, 1, second.err)
        XCTAssertTrue(second.err.contains("/same.part' is being written by another download running now"), second.err)
        XCTAssertFalse(second.err.contains("partial download was kept"), second.err)
        kill(p.processIdentifier, SIGINT)
        waitForExit(p)
        XCTAssertEqual(endingSignal(p), SIGINT, "ended by SIGINT (130 in a shell)")
        let part = (try? String(contentsOfFile: dir + "/same.part", encoding: .utf8)) ?? ""
        XCTAssertTrue(part.hasPrefix("more.\n"), part)
        XCTAssertFalse(part.contains("{"), part)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/same"))
    }

    // MARK: - Heads

    func testHundredThousandHeaders() throws {
        let s = try server()
        // No header-count limit by default (as curl and HTTPie): the 256 KiB cap on a head stops it.
        let r = try run([s.url("/many-headers")])
        XCTAssertEqual(r.status, 1, r.err)
        XCTAssertTrue(r.err.contains("larger than 256 KiB"), r.err)
        XCTAssertLessThan(r.rssKB, HostileServerTests.flatRSSKB)
        // With --max-headers the count is what stops it.
        let limited = try run(["--max-headers", "100", s.url("/many-headers")])
        XCTAssertEqual(limited.status, 1, limited.err)
        XCTAssertTrue(limited.err.contains("more than 100 header fields"), limited.err)
    }

    /// Regression: the size count started again at every status line, so a flood of 1xx heads
    /// never met swurl's 256 KiB limit (libcurl's own 300 KB one ended it, with its raw message).
    func testAFloodOfInterimHeadsMeetsTheHeadLimit() throws {
        let s = try server()
        let r = try run([s.url("/early-hints-flood")])
        XCTAssertEqual(r.status, 1, r.err)
        XCTAssertTrue(r.err.contains("larger than 256 KiB (with the interim 1xx heads before it)"), r.err)
        // A batch line whose final head failed has no status: it was reported as the 103's.
        let line = try runSwurl(["batch", "-", "--jsonl"], stdin: Data((s.url("/early-hints-flood") + "\n").utf8))
        XCTAssertEqual(line.status, 1, line.stderr)
        let o = try XCTUnwrap(try JSONSerialization.jsonObject(with: line.stdout) as? [String: Any])
        XCTAssertTrue(o["status"] == nil || o["status"] is NSNull, "\(o)")
    }

    func testMegabyteHeaderLine() throws {
        let s = try server()
        let r = try run([s.url("/long-header")])
        XCTAssertEqual(r.status, 1, r.err)
        XCTAssertTrue(r.err.contains("100 KB"), r.err)
    }

    func testHeaderWithNUL() throws {
        let s = try server()
        let r = try run([s.url("/nul-header")])
        XCTAssertEqual(r.status, 1, r.err)
        XCTAssertTrue(r.err.lowercased().contains("nul"), r.err)
    }

    func testEscapesInReasonPhraseAreMadeVisibleOnATerminal() throws {
        let s = try server()
        let r = try run([s.url("/evil-reason")], terminal: true)
        XCTAssertEqual(r.status, 0, r.text)
        XCTAssertTrue(r.text.contains("\\x1b]0;pwned\\x07"), r.text)
        XCTAssertFalse(r.text.contains("\u{1B}]0;"), "an OSC sequence reached the terminal")
        // A Location libcurl could not read stays relative: it is not a URL, not a "not http" one.
        let piped = try run(["-F", s.url("/evil-location")])
        XCTAssertEqual(piped.status, 1, piped.err)
        XCTAssertTrue(piped.err.contains("which could not be read as a URL"), piped.err)
    }

    /// `-o` naming the terminal is a terminal too: no escape sequence reaches it that way.
    func testEscapesAreMadeVisibleWhenOutputNamesTheTerminal() throws {
        let s = try server()
        for target in ["/dev/tty", "/dev/stdout"] {
            let r = try run(["-h", "-o", target, s.url("/evil-reason")], terminal: true)
            XCTAssertEqual(r.status, 0, r.text)
            XCTAssertTrue(r.text.contains("\\x1b]0;pwned\\x07"), "\(target): \(r.text)")
            XCTAssertFalse(r.text.contains("\u{1B}]0;"), "\(target): an OSC sequence reached the terminal")
            // A download keeps the bytes as sent: it refuses the terminal (it wrote the body's
            // escape sequences there).
            let d = try run(["-d", "-o", target, s.url("/evil-reason")], terminal: true)
            XCTAssertEqual(d.status, 64, "\(target): \(d.text)")
            XCTAssertTrue(d.text.contains("is a terminal"), "\(target): \(d.text)")
            XCTAssertFalse(d.text.contains("\u{1B}]0;"), "\(target): an OSC sequence reached the terminal")
        }
    }

    func testEscapesInLocationAreMadeVisible() throws {
        let s = try server()
        let r = try run(["-F", s.url("/evil-location")], terminal: true)
        XCTAssertNotEqual(r.status, 0, r.text)
        XCTAssertFalse(r.text.contains("\u{1B}[2J"), "a clear-screen sequence reached the terminal")
        XCTAssertFalse(r.text.contains("\u{1B}]0;"), "an OSC sequence reached the terminal")
    }

    /// Regression: server text went into messages whole when it held no control character:
    /// a 95,000-byte Location or Content-Encoding made one line of 95 KB. Cut at 200 characters.
    func testLongServerTextInMessagesIsCut() throws {
        let s = try server()
        let r = try run(["-F", s.url("/long-location")])
        XCTAssertEqual(r.status, 1, String(r.err.prefix(300)))
        XCTAssertTrue(r.err.contains("is not an http or https URL"), String(r.err.prefix(300)))
        XCTAssertTrue(r.err.contains("…(95008 bytes)"), String(r.err.prefix(600)))
        XCTAssertLessThan(r.err.utf8.count, 1000)
        let t = try run(["-b", s.url("/long-coding")], terminal: true)
        XCTAssertEqual(t.status, 0, String(t.text.prefix(300)))
        XCTAssertTrue(t.text.contains("still encoded ('xxxx"), String(t.text.prefix(600)))
        XCTAssertTrue(t.text.contains("…(95000 bytes)"), String(t.text.prefix(600)))
        XCTAssertLessThan(t.text.utf8.count, 1000)
    }

    // MARK: - Compression bombs

    func testBombsAreCutByMaxFilesize() throws {
        let s = try server()
        for kind in ["gzip", "deflate", "br", "zstd"] {
            let r = try run(["--max-filesize", "10M", s.url("/bomb/" + kind)], pipe: true)
            XCTAssertEqual(r.status, 8, "\(kind): \(r.err)")
            XCTAssertTrue(r.err.contains("--max-filesize"), "\(kind): \(r.err)")
            XCTAssertLessThanOrEqual(r.out.count, 10 << 20, kind)
            XCTAssertLessThan(r.rssKB, HostileServerTests.flatRSSKB, kind)
        }
    }

    func testBombToAFileKeepsMemoryFlatAndIsCut() throws {
        let s = try server()
        let dir = TestPaths.temporaryDirectory()
        let r = try run(["--max-filesize", "5M", "-o", dir + "/bomb.bin", s.url("/bomb/zstd")])
        XCTAssertEqual(r.status, 8, r.err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/bomb.bin"), "a cut body must not be left under the -o name")
        XCTAssertLessThan(r.rssKB, HostileServerTests.flatRSSKB)
    }

    func testBombToATerminalIsSummarisedInFlatMemory() throws {
        let s = try server()
        let r = try run([s.url("/bomb/gzip?type=text/plain")], terminal: true)
        XCTAssertEqual(r.status, 0, r.text)
        XCTAssertTrue(r.text.contains("binary data not shown"), r.text)
        XCTAssertLessThan(r.rssKB, HostileServerTests.flatRSSKB)
    }

    /// Regression: Ctrl-C was heard only at libcurl's progress calls, and one piece of a body
    /// coded twice (`gzip, gzip`) decoded to gigabytes in between: swurl went on writing them
    /// (30–70 s after the signal). Heard now between the decoded pieces: a Python reader counts
    /// the bytes, sends SIGINT after 64 MiB, and reads to the end.
    func testCtrlCStopsADecodingBombAtOnce() throws {
        let s = try server()
        let script = """
        import signal, subprocess, sys
        p = subprocess.Popen([sys.argv[1], "-b", sys.argv[2]], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        total, signalled = 0, False
        while True:
            chunk = p.stdout.read(1 << 20)
            if not chunk: break
            total += len(chunk)
            if total >= 64 << 20 and not signalled:
                p.send_signal(signal.SIGINT); signalled = True
        print(total, p.wait(), signalled)
        """
        let r = try runProcess("/usr/bin/python3", ["-c", script, TestPaths.binary, s.url("/bomb/gzip-gzip")])
        let words = String(decoding: r.stdout, as: UTF8.self).split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        XCTAssertEqual(words.count, 3, String(decoding: r.stdout, as: UTF8.self))
        guard words.count == 3, let total = Int(words[0]) else { return }
        XCTAssertEqual(words[2], "True", "the body came out before 64 MiB")
        XCTAssertEqual(words[1], "-2", "ended by SIGINT")
        // 8 GiB decoded whole before; a piece's worth (64 KiB), and the pipe's, after the signal now.
        XCTAssertLessThan(total, 1 << 30, "bytes written after Ctrl-C")
    }

    func testWholeBombToAPipeKeepsMemoryFlat() throws {
        let s = try server()
        let r = try run([s.url("/bomb/zstd")], count: true)
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertEqual(r.text.trimmingCharacters(in: .whitespacesAndNewlines), String(1 << 30))
        XCTAssertLessThan(r.rssKB, HostileServerTests.flatRSSKB)
    }

    func testMaxFilesizeNeedsASize() throws {
        let r = try run(["--max-filesize", "lots", "http://127.0.0.1:9/"])
        XCTAssertEqual(r.status, 64, r.err)
        XCTAssertTrue(r.err.contains("--max-filesize"), r.err)
    }

    // MARK: - Hostile documents

    /// Regression: 2 MB of `[`…`]` took 558 MB formatted (the first megabyte's formatted
    /// output, 260 bytes per `[`, was held back whole, and each chunk's output built up before
    /// it was written). Formatted through a pipe (as on a terminal, which is only slower).
    func testMillionDeepJSONFormattedStaysFlat() throws {
        let s = try server()
        let r = try run([s.url("/deep-json?n=1000000"), "--print=b", "--pretty=all"], count: true)
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertGreaterThan(Int(r.text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0, 100_000_000)
        XCTAssertLessThan(r.rssKB, HostileServerTests.flatRSSKB)
    }

    /// Ctrl-C while deeply nested JSON is formatted: nothing more of the body comes out. What
    /// was held back or pending was formatted whole after the signal: hundreds of megabytes
    /// written, and in memory at once. The reader stops reading, so swurl waits on the pipe with
    /// most of the body still to format, and takes the SIGINT there.
    func testCtrlCWhileFormattingDeepJSONStopsTheOutput() throws {
        let s = try server()
        let script = """
            import os, signal, subprocess, sys, time
            p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
            got = 0
            while got < 200000:
                more = os.read(p.stdout.fileno(), 65536)
                if not more: break
                got += len(more)
            time.sleep(0.5)
            p.send_signal(signal.SIGINT)
            after = 0
            while after < 50000000:
                more = os.read(p.stdout.fileno(), 1 << 20)
                if not more: break
                after += len(more)
            p.kill()
            p.wait()
            print(got, after, p.returncode)
            """
        let out = try runPython(script, arguments: [TestPaths.binary, "--no-config", s.url("/deep-json?n=1000000"), "--print=b", "--pretty=all"])
        let fields = out.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        XCTAssertEqual(fields.count, 3, out)
        XCTAssertGreaterThanOrEqual(fields.first ?? 0, 200_000, "formatting had begun: \(out)")
        // What the pipe and the output block held when the signal came, not the rest formatted.
        XCTAssertLessThan(fields.dropFirst().first ?? .max, 5_000_000, out)
    }

    /// Ctrl-C after a short body came and the server stalled: the bytes that came are shown (a
    /// decoder held them back), as sent, whatever their type (they were dropped with the
    /// held-back output the interrupt no longer formats).
    func testCtrlCAfterAShortBodyStillShowsIt() throws {
        let s = try server()
        let script = """
            import os, signal, subprocess, sys, time
            p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
            time.sleep(1)
            p.send_signal(signal.SIGINT)
            out = p.stdout.read()
            p.wait()
            sys.stdout.write(repr(out) + ' ' + str(p.returncode))
            """
        for (type, text) in [("application/json", "{\"a\": [1, 2"), ("text/plain", "hello world"), ("application/xml", "<a><b>x</b>")] {
            let url = s.url("/short-stall?type=\(type)&text=" + (text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
            let out = try runPython(script, arguments: [TestPaths.binary, "--no-config", url, "--print=b", "--pretty=format"])
            XCTAssertTrue(out.contains(text.replacingOccurrences(of: "\"", with: "\\\"")) || out.contains(text), "\(type): \(out)")
            XCTAssertTrue(out.hasSuffix(" -2"), "ended by SIGINT: \(out)")
        }
    }

    func testHugeStringAndNumberStayFlat() throws {
        let s = try server()
        let string = try run([s.url("/big-string?mb=100"), "--print=b"], count: true)
        XCTAssertEqual(string.status, 0, string.err)
        XCTAssertEqual(string.text.trimmingCharacters(in: .whitespacesAndNewlines), String((100 << 20) + 2))
        XCTAssertLessThan(string.rssKB, HostileServerTests.flatRSSKB)
        let number = try run([s.url("/big-number?digits=1000000"), "--print=b"], terminal: true)
        XCTAssertEqual(number.status, 0)
        XCTAssertLessThan(number.rssKB, HostileServerTests.flatRSSKB)
    }

    func testBillionLaughsIsNeverExpanded() throws {
        let s = try server()
        let r = try run([s.url("/laughs"), "--print=b"], terminal: true)
        XCTAssertEqual(r.status, 0)
        XCTAssertFalse(r.text.contains("lollollol"), "entities were expanded")
        XCTAssertLessThan(r.rssKB, HostileServerTests.flatRSSKB)
    }

    /// Regression: XML was held whole with every token and the whole output (7 MB of nested
    /// `<a>` took 728 MB, a 100 MB file far more); it now streams like JSON.
    func testLargeFlatXMLFormattedStaysFlat() throws {
        let s = try server()
        let r = try run([s.url("/flat-xml?mb=40"), "--print=b", "--pretty=all"], count: true)
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertGreaterThan(Int(r.text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0, 40_000_000)
        XCTAssertFalse(r.err.contains("XML"), r.err)
        XCTAssertLessThan(r.rssKB, HostileServerTests.flatRSSKB)
    }

    func testXMLNestedPastTheLimitIsShownAsSentInFlatMemory() throws {
        let s = try server()
        let r = try run([s.url("/deep-xml?n=2000000"), "--print=b", "--pretty=all", "--decode", "xml"], pipe: true)
        XCTAssertEqual(r.status, 8, r.err)
        XCTAssertEqual(r.out.count, 14_000_001, "the body as sent and a line break")
        XCTAssertTrue(r.err.contains("nested deeper than 10000 levels, the limit for formatting"), r.err)
        XCTAssertLessThan(r.rssKB, HostileServerTests.flatRSSKB)
    }

    func testPlistBombAndCycleAreRefused() throws {
        let s = try server()
        let bomb = try run([s.url("/plist-bomb")], terminal: true)
        XCTAssertTrue(bomb.text.contains("shared references expand"), bomb.text)
        XCTAssertLessThan(bomb.rssKB, HostileServerTests.flatRSSKB)
        let cycle = try run([s.url("/plist-cycle")], terminal: true)
        XCTAssertTrue(cycle.text.contains("loop"), cycle.text)
        let strict = try run(["--decode", "plist", s.url("/plist-bomb")])
        XCTAssertEqual(strict.status, 8, strict.err)
    }

    func testAbsurdImageDimensionsAreOnlyDescribed() throws {
        let s = try server()
        let r = try run([s.url("/huge-png")], terminal: true)
        XCTAssertEqual(r.status, 0)
        XCTAssertTrue(r.text.contains("2147483647"), r.text)
        XCTAssertLessThan(r.rssKB, HostileServerTests.flatRSSKB)
    }

    // MARK: - Protocol oddities

    func testHTTP09IsATransportErrorNotAUsageError() throws {
        let s = try server()
        let r = try run([s.url("/http09")])
        XCTAssertEqual(r.status, 1, r.err)
        XCTAssertTrue(r.err.contains("HTTP/0.9"), r.err)
    }

    func testHTTP10BodyWithoutLengthEndsAtClose() throws {
        let s = try server()
        let r = try run([s.url("/http10")])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertEqual(r.text, "body until close\n")
    }

    func testInformationalHeadsBeforeTheAnswer() throws {
        let s = try server()
        let r = try run([s.url("/informational"), "--print=hb"])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertTrue(r.text.contains("200 OK"), r.text)
        XCTAssertFalse(r.text.contains("102"), r.text)
        XCTAssertTrue(r.text.hasSuffix("final\n"), r.text)
    }

    func testNoBodyStatusesIgnoreABody() throws {
        let s = try server()
        for path in ["/204-body", "/304-body"] {
            let r = try run([s.url(path)])
            XCTAssertEqual(r.status, 0, "\(path): \(r.err)")
            XCTAssertFalse(r.text.contains("sneaky"), path)
        }
    }

    /// `--max-filesize` judges a body's announced length only where a body follows: a 204's, a
    /// 304's and a HEAD's Content-Length are no body (all three failed with 8), and a download
    /// kept as sent is judged by the length it names even when the server gzipped it (a
    /// `.part` was written first).
    func testMaxFilesizeJudgesOnlyABodyThatFollows() throws {
        let s = try server()
        for path in ["/204-body", "/304-body"] {
            let r = try run([s.url(path), "--max-filesize", "5"])
            XCTAssertEqual(r.status, 0, "\(path): \(r.err)")
        }
        let head = try run(["HEAD", try HTTPBin.url("/bytes/1000"), "--max-filesize", "10"])
        XCTAssertEqual(head.status, 0, head.err)
        let dir = TestPaths.temporaryDirectory()
        // Judged on the head: the body never comes (it waited for it, and timed out).
        let download = try run(["-d", s.url("/gzip-stall"), "--max-filesize", "10", "--timeout", "3"], directory: dir)
        XCTAssertEqual(download.status, 8, download.err)
        XCTAssertTrue(download.err.contains("larger than --max-filesize 10 bytes"), download.err)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), [], "nothing is written")
    }

    /// Codings named on two `Content-Encoding` lines are one list (RFC 9110 §5.3): one libcurl
    /// cannot decode passes the body through as received, as on one line (it failed, exit 1).
    func testCodingsOnTwoFieldLinesAreOneList() throws {
        let s = try server()
        let r = try run([s.url("/two-codings")], pipe: true)
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertEqual(Array(r.out.prefix(2)), [0x1F, 0x8B], "the gzip bytes as received: \(r.text.debugDescription.prefix(80))")
        let dir = TestPaths.temporaryDirectory()
        let download = try run(["-d", s.url("/two-codings")], directory: dir)
        XCTAssertEqual(download.status, 0, download.err)
        XCTAssertTrue(download.err.contains("as sent: Content-Encoding gzip, x-foo, not decoded"), download.err)
    }

    /// A head cut short after a Set-Cookie (a NUL in a later field) fails (1), and the session
    /// keeps the cookie libcurl's engine took, as curl's jar and a batch's do (it was not saved).
    func testASessionKeepsACookieSetBeforeAHeadFailed() throws {
        let s = try server()
        let dir = TestPaths.temporaryDirectory()
        for (args, file) in [([s.url("/cookie-then-nul")], "one.json"), (["-d", "-o", dir + "/out", s.url("/cookie-then-nul")], "dl.json")] {
            let r = try run(["--session", dir + "/" + file] + args, directory: dir)
            XCTAssertEqual(r.status, 1, r.err)
            let saved = (try? String(contentsOfFile: dir + "/" + file, encoding: .utf8)) ?? ""
            XCTAssertTrue(saved.contains("\"early\""), "\(file): \(saved)")
        }
        // A stored cookie the cut head changed (rotated) is kept with its new value.
        let rotated = try run(["--session", dir + "/one.json", s.url("/cookie-then-nul?v=rotated")], directory: dir)
        XCTAssertEqual(rotated.status, 1, rotated.err)
        XCTAssertTrue(((try? String(contentsOfFile: dir + "/one.json", encoding: .utf8)) ?? "").contains("\"rotated\""))
    }

    func testRedirectLoop() throws {
        let s = try server()
        let r = try run(["-F", s.url("/loop")])
        XCTAssertEqual(r.status, 6, r.err)
        XCTAssertTrue(r.err.contains("too many redirects"), r.err)
    }

    func testTLSServerSendingGarbageAfterTheHandshake() throws {
        let pki = try CertificateFactory.shared()
        let tls = try TLSTestServer(chain: pki.path("leaf-chain.pem"), key: pki.path("leaf.key"), garbageAfterHandshake: true)
        let r = try run(["--cacert", pki.path("root.pem"), tls.url])
        XCTAssertEqual(r.status, 1, r.err)
        XCTAssertTrue(r.err.contains("error:"), r.err)
        XCTAssertFalse(r.text.contains("garbage"), "plain bytes after the handshake were taken as the response")
        XCTAssertLessThan(r.rssKB, HostileServerTests.flatRSSKB)
    }

    /// A server that closes the connection when the ClientHello comes: OpenSSL's bare
    /// "SSL_ERROR_SYSCALL in connection to host:port " (with its trailing blank), no hint; it
    /// is said what happened, and what can cause it, in every door.
    func testATLSServerThatHangsUpInTheHandshakeIsNamed() throws {
        let pki = try CertificateFactory.shared()
        let tls = try TLSTestServer(chain: pki.path("leaf-chain.pem"), key: pki.path("leaf.key"), hangUp: true)
        for args in [[tls.url], ["certs", tls.url], ["reach", tls.url]] {
            let r = try run(args)
            XCTAssertNotEqual(r.status, 0, r.err)
            let said = r.err + r.text
            XCTAssertTrue(said.contains("the server closed the connection during the TLS handshake"), "\(args): \(said)")
            XCTAssertFalse(said.contains("SSL_ERROR_SYSCALL in connection to 127.0.0.1:\(tls.port) )"), said)
        }
    }

    /// A TLS connection reset after the response began is no sign of a missing client
    /// certificate: no such hint (it sent the user to --cert for a server that broke mid-body).
    func testATLSResetMidBodyDoesNotBlameAClientCertificate() throws {
        let pki = try CertificateFactory.shared()
        let tls = try TLSTestServer(chain: pki.path("leaf-chain.pem"), key: pki.path("leaf.key"), resetMidBody: true)
        let r = try run(["--cacert", pki.path("root.pem"), "-o", TestPaths.temporaryDirectory() + "/out", tls.url])
        XCTAssertEqual(r.status, 1, r.err)
        XCTAssertTrue(r.err.contains("error:"), r.err)
        XCTAssertFalse(r.err.contains("client certificate"), r.err)
    }

    /// A reason phrase or Content-Type a message quotes is cut (20,000 ESC bytes made each retry
    /// notice and the warning some 80 KB), its length said.
    func testMessagesQuoteALongReasonPhraseCut() throws {
        let s = try server()
        let r = try run(["--retry", "2", "--check-status", s.url("/long-reason")])
        XCTAssertEqual(r.status, 5, r.err)
        XCTAssertTrue(r.err.contains("…(20000 bytes); retrying"), r.err)
        XCTAssertEqual(r.err.components(separatedBy: "\n").filter { $0.hasPrefix("swurl: ") }.count, 3, r.err)
        XCTAssertLessThan(r.err.utf8.count, 5_000, "stderr is \(r.err.utf8.count) bytes")
        let dir = TestPaths.temporaryDirectory()
        let d = try run(["-d", "-o", dir + "/f", s.url("/long-reason")])
        XCTAssertEqual(d.status, 5)
        XCTAssertTrue(d.err.contains("…(20000 bytes); nothing was saved"), d.err)
        XCTAssertLessThan(d.err.utf8.count, 2_000)
        let typed = try run(["--accept-type", "text/plain", s.url("/long-reason")])
        XCTAssertTrue(typed.err.contains("…(20002 bytes) is not acceptable"), typed.err)
        XCTAssertLessThan(typed.err.utf8.count, 2_000)
    }

    /// A 204 naming a Content-Length has no body: -d saves an empty file as the other doors
    /// and curl succeed (it waited for 5 bytes: "stopped after 0 of 5 bytes", exit 1).
    func testADownloadOfA204WithALengthSavesAnEmptyFile() throws {
        let s = try server()
        let dir = TestPaths.temporaryDirectory()
        let r = try run(["-d", "-o", dir + "/empty", s.url("/no-content")])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertEqual((try? FileManager.default.attributesOfItem(atPath: dir + "/empty")[.size] as? Int) ?? -1, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/empty.part"))
        // A 204 to a resumed download says nothing of the file: the bytes stay, it fails.
        try Data("abc".utf8).write(to: URL(fileURLWithPath: dir + "/g.part"))
        let resumed = try run(["-d", "-c", "-o", dir + "/g", s.url("/no-content")])
        XCTAssertEqual(resumed.status, 1, resumed.err)
        XCTAssertTrue(resumed.err.contains("HTTP 204 No Content; nothing was saved"), resumed.err)
        XCTAssertEqual(try String(contentsOfFile: dir + "/g.part", encoding: .utf8), "abc")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/g"))
    }

    /// A file-size limit (`ulimit -f`) is a write error with its message, the old file kept and
    /// no temporary left (SIGXFSZ ended swurl with 153 and no word).
    func testAFileSizeLimitIsAWriteError() throws {
        let dir = TestPaths.temporaryDirectory()
        try Data("old\n".utf8).write(to: URL(fileURLWithPath: dir + "/keep.txt"))
        let r = try runProcess("/bin/sh", ["-c", "ulimit -f 1; exec \"$0\" \"$1\" -o \"$2\"", TestPaths.binary, try HTTPBin.url("/bytes/5000"), dir + "/keep.txt"],
                               check: false)
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("File too large"), r.stderr)
        XCTAssertEqual(try String(contentsOfFile: dir + "/keep.txt", encoding: .utf8), "old\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), ["keep.txt"])
    }

    func testRedirectsToOtherSchemesAreRefused() throws {
        let s = try server()
        for scheme in ["file", "ftp", "gopher", "dict", "data"] {
            let r = try run(["-F", s.url("/to?scheme=" + scheme)])
            XCTAssertEqual(r.status, 1, "\(scheme): \(r.err)")
            XCTAssertTrue(r.err.contains("not an http or https URL"), "\(scheme): \(r.err)")
            XCTAssertFalse(r.text.contains("root:"), scheme)
            // A user name alone in the Location (a token) is masked, as the HAR masks it.
            XCTAssertFalse(r.err.contains("TOKEN"), r.err)
        }
    }
}
