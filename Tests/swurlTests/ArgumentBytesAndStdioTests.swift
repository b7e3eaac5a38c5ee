import XCTest
import Foundation
import SwurlTestSupport

/// Arguments are bytes, standard streams may be closed or shared with a loop: what reaches the
/// server and the disk is exactly what the user gave, and nothing is eaten or written astray.
final class ArgumentBytesAndStdioTests: XCTestCase {
    /// Runs a bash script with `$SWURL` set to the binary (bash can pass bytes that are not
    /// UTF-8 in argv, which Foundation's Process cannot).
    func shell(_ script: String, directory: String? = nil) throws -> ShellResult {
        var env = ProcessInfo.processInfo.environment
        for key in ["http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy", "NO_COLOR"] {
            env.removeValue(forKey: key)
        }
        env["SWURL"] = TestPaths.binary
        let r = try runProcess("/bin/bash", ["-c", script], directory: directory, environment: env, check: false)
        return ShellResult(status: r.status, stdout: r.stdout, stderr: r.stderr)
    }

    func testLatin1OutputNameIsWrittenUnderExactlyThatName() throws {
        let capture = try CaptureServer()
        let dir = TestPaths.temporaryDirectory()
        let r = try shell("\"$SWURL\" -o $'out\\xe9' http://127.0.0.1:\(capture.server.port)/x && cat $'out\\xe9' && ls | od -An -tx1",
                          directory: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.text.hasPrefix("ok"), r.text)
        XCTAssertTrue(r.text.contains("6f 75 74 e9"), "the file name is not out\\xE9: \(r.text)")
    }

    /// In a working directory whose name is not UTF-8, relative outputs are written there: its
    /// name was read as U+FFFD, a directory that does not exist (after the request was sent).
    func testRelativeOutputsInADirectoryWhoseNameIsNotUTF8() throws {
        let capture = try CaptureServer()
        let dir = TestPaths.temporaryDirectory()
        let url = "http://127.0.0.1:\(capture.server.port)/x"
        let r = try shell("mkdir $'lat\\xe9n' && cd $'lat\\xe9n' && \"$SWURL\" -d -q -o d.out \(url) && \"$SWURL\" -o o.out \(url)"
                          + " && \"$SWURL\" --har h.har \(url) >/dev/null && echo \(url) > urls && mkdir out"
                          + " && \"$SWURL\" batch urls --output-dir out -q && ls . out", directory: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        for name in ["d.out", "o.out", "h.har", "1.body"] { XCTAssertTrue(r.text.contains(name + "\n"), name + ": " + r.text) }
    }

    /// `swurl batch FILE` opens a Latin-1 file name as the bytes given, and names it with `\xE9`.
    func testLatin1BatchFileIsReadAndNamedByItsBytes() throws {
        let capture = try CaptureServer()
        let dir = TestPaths.temporaryDirectory()
        let r = try shell("echo http://127.0.0.1:\(capture.server.port)/lat > $'lat\\xe9.txt' && \"$SWURL\" batch $'lat\\xe9.txt' -q"
                          + " && \"$SWURL\" batch $'missing\\xe9.txt'", directory: dir)
        XCTAssertEqual(r.status, 66, r.stderr)
        XCTAssertTrue(String(decoding: capture.captured, as: UTF8.self).hasPrefix("GET /lat "))
        XCTAssertTrue(r.stderr.contains("cannot read 'missing\\xE9.txt'"), r.stderr)
    }

    func testLatin1FileIsUploadedWithItsExactName() throws {
        let capture = try CaptureServer()
        let dir = TestPaths.temporaryDirectory()
        let r = try shell("printf hello > $'caf\\xe9.txt' && \"$SWURL\" --form POST http://127.0.0.1:\(capture.server.port)/u f@$'caf\\xe9.txt' name=A",
                          directory: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        let sent = capture.captured
        XCTAssertNotNil(sent.range(of: Data("filename=\"caf".utf8) + Data([0xE9]) + Data(".txt\"".utf8)),
                        String(decoding: sent, as: UTF8.self))
        XCTAssertNotNil(sent.range(of: Data("\r\n\r\nhello\r\n".utf8)))
    }

    func testBytesInURLsAndQueriesArePercentEncoded() throws {
        let capture = try CaptureServer()
        let r = try shell("\"$SWURL\" $'http://127.0.0.1:\(capture.server.port)/p\\xe9?a=\\xe9' q==$'\\xe9' 'r==a b'")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(capture.captured.starts(with: Data("GET /p%E9?a=%E9&q=%E9&r=a%20b HTTP/1.1\r\n".utf8)),
                      String(decoding: capture.captured, as: UTF8.self))
        // A query's name and a `==@file` value likewise (they were refused, the file with a hint
        // about file fields).
        let dir = TestPaths.temporaryDirectory()
        let names = try CaptureServer()
        let n = try shell("printf 'x\\xe9y\\n' > v.bin && \"$SWURL\" http://127.0.0.1:\(names.server.port)/n $'\\xe9'==1 f==@v.bin", directory: dir)
        XCTAssertEqual(n.status, 0, n.stderr)
        XCTAssertTrue(names.captured.starts(with: Data("GET /n?%E9=1&f=x%E9y HTTP/1.1\r\n".utf8)),
                      String(decoding: names.captured, as: UTF8.self))
    }

    /// U+10FFFF is valid UTF-8 that swurl's own escapes for bytes use: it went out as `/%FF`.
    func testTheLastPrivateUseCharactersGoOutAsTheirOwnBytes() throws {
        let capture = try CaptureServer()
        let r = try shell("\"$SWURL\" $'http://127.0.0.1:\(capture.server.port)/\\xf4\\x8f\\xbf\\xbf?a=\\xf4\\x8f\\xbe\\x80'")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(capture.captured.starts(with: Data("GET /%F4%8F%BF%BF?a=%F4%8F%BE%80 HTTP/1.1\r\n".utf8)),
                      String(decoding: capture.captured, as: UTF8.self))
        // A batch line (quoted, so the shell-word splitter reads it) keeps a Latin-1 byte and the
        // character the same way.
        let batch = try shell("printf \"'http://127.0.0.1:\(capture.server.port)/b\\xe9\\xf4\\x8f\\xbf\\xbf'\\n\" | \"$SWURL\" batch - -q")
        XCTAssertEqual(batch.status, 0, batch.stderr)
        XCTAssertTrue(String(decoding: capture.captured, as: UTF8.self).contains("GET /b%E9%F4%8F%BF%BF HTTP/1.1\r\n"),
                      String(decoding: capture.captured, as: UTF8.self))
    }

    func testTextArgumentsThatAreNotUTF8AreRefusedByName() throws {
        let url = "http://127.0.0.1:9/x"
        let cases: [(String, Int32, String)] = [
            ("\"$SWURL\" \(url) X-A:$'\\xe9'", 64, "'X-A:\\xE9': the header value is not valid UTF-8"),
            ("\"$SWURL\" \(url) a=$'\\xe9'", 65, "'a=\\xE9': the value is not valid UTF-8"),
            ("\"$SWURL\" \(url) a:=$'\"\\xe9\"'", 65, "not valid UTF-8"),
            ("\"$SWURL\" \(url) $'\\xe9'=1", 64, "the name is not valid UTF-8"),
            // The bare `@` is the body item, whose message called it a file field.
            ("\"$SWURL\" \(url) @", 64, "'@': the body item needs a path after '@'"),
            ("\"$SWURL\" \(url) f@", 64, "'f@': a file field needs a path after '@'"),
            ("\"$SWURL\" -A bearer -a $'t\\xe9' \(url)", 64, "--auth '****' is not valid UTF-8"),
            ("\"$SWURL\" --timeout $'1\\xe9' \(url)", 64, "--timeout '1\\xE9' is not valid UTF-8"),
        ]
        for (script, status, message) in cases {
            let r = try shell(script)
            XCTAssertEqual(r.status, status, script + ": " + r.stderr)
            XCTAssertTrue(r.stderr.contains(message), script + ": " + r.stderr)
        }
    }

    /// An option value that is not UTF-8 is refused on every door, as on the command line: the
    /// config file, a batch line and a REPL line sent swurl's escapes for the bytes (a password
    /// `p\xE4ss` went as the UTF-8 of U+10FFE4), and the value is masked in the message.
    func testOptionValuesThatAreNotUTF8AreRefusedOnEveryDoor() throws {
        let capture = try CaptureServer()
        let url = "http://127.0.0.1:\(capture.server.port)/x"
        let config = TestPaths.temporaryDirectory() + "/config"
        try Data([UInt8]("-a ann:p".utf8) + [0xE4] + [UInt8]("ss\n".utf8)).write(to: URL(fileURLWithPath: config))
        let doors: [(String, String)] = [
            ("config", "SWURL_CONFIG='\(config)' \"$SWURL\" \(url)"),
            ("batch", "printf -- '\(url) -a ann:p\\344ss\\n' | \"$SWURL\" batch - -q"),
            ("repl", "printf -- '-a ann:p\\344ss\\n' | \"$SWURL\" repl \(url)"),
        ]
        for (door, script) in doors {
            let r = try shell(script)
            let said = r.stderr + r.text
            XCTAssertEqual(r.status, 64, door + ": " + said)
            // Masked whole: where the kind of credential is not known, a ':' may be inside a
            // bearer token (whose first part was shown).
            XCTAssertTrue(said.contains("--auth '****' is not valid UTF-8 text"), door + ": " + said)
            XCTAssertFalse(said.contains("ss'") || said.contains("ann"), door + ": the password is not shown")
        }
        try capture.sync()
        XCTAssertFalse(String(decoding: capture.capturedAll, as: UTF8.self).contains("Authorization"), "nothing was sent with the garbled password")
    }

    /// A closed stdout fails the run (no success reported, nothing written into whatever
    /// descriptor the kernel hands out as number 1 — here it would be the socket), before the
    /// request is sent: a POST went out and its answer was lost. With -o it runs.
    func testClosedStdoutFails() throws {
        let capture = try CaptureServer()
        let r = try shell("\"$SWURL\" POST http://127.0.0.1:\(capture.server.port)/x a=1 >&-")
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("stdout is closed (>&-): the response would be lost; give -o FILE"), r.stderr)
        try capture.sync()
        XCTAssertEqual(capture.capturedAll.count, 0, "the POST was sent")
        let kept = try shell("\"$SWURL\" -o /dev/null POST http://127.0.0.1:\(capture.server.port)/y a=1 >&-")
        XCTAssertEqual(kept.status, 0, kept.stderr)
        XCTAssertTrue(String(decoding: capture.captured, as: UTF8.self).hasPrefix("POST /y"))
        let offline = try shell("\"$SWURL\" --offline :9/x >&-")
        XCTAssertEqual(offline.status, 1, offline.stderr)
    }

    func testClosedStdinIsNoBody() throws {
        let capture = try CaptureServer()
        let r = try shell("\"$SWURL\" http://127.0.0.1:\(capture.server.port)/x <&-")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(capture.captured.starts(with: Data("GET /x HTTP/1.1\r\n".utf8)))
        let post = try shell("\"$SWURL\" POST http://127.0.0.1:\(capture.server.port)/y <&-")
        XCTAssertEqual(post.status, 0, post.stderr)
        XCTAssertTrue(String(decoding: capture.captured, as: UTF8.self).hasPrefix("POST /y"))
        XCTAssertFalse(String(decoding: capture.captured, as: UTF8.self).contains("Transfer-Encoding"))
    }

    /// A bare request inside `while read` neither eats the loop's input nor becomes a POST.
    func testWhileReadLoopKeepsItsInput() throws {
        let capture = try CaptureServer()
        let r = try shell("printf 'a\\nb\\nc\\n' | while read p; do \"$SWURL\" http://127.0.0.1:\(capture.server.port)/$p || exit 9; done")
        XCTAssertEqual(r.status, 0, r.stderr)
        let all = String(decoding: capture.capturedAll, as: UTF8.self)
        for p in ["a", "b", "c"] { XCTAssertTrue(all.contains("GET /\(p) HTTP/1.1"), all) }
        XCTAssertFalse(all.contains("POST"), all)
    }

    func testPipedStdinIsTheBodyOnlyWithABodyMethodOrAtDash() throws {
        let capture = try CaptureServer()
        let url = "http://127.0.0.1:\(capture.server.port)"
        _ = try shell("printf piped | \"$SWURL\" PUT \(url)/put")
        XCTAssertTrue(String(decoding: capture.captured, as: UTF8.self).hasPrefix("PUT /put"))
        XCTAssertTrue(String(decoding: capture.captured, as: UTF8.self).hasSuffix("\r\nContent-Length: 5\r\n\r\npiped"))
        _ = try shell("printf piped | \"$SWURL\" \(url)/at @-")
        XCTAssertTrue(String(decoding: capture.captured, as: UTF8.self).hasPrefix("POST /at"))
        XCTAssertTrue(String(decoding: capture.captured, as: UTF8.self).hasSuffix("\r\nContent-Length: 5\r\n\r\npiped"))
        _ = try shell("printf piped | \"$SWURL\" --chunked \(url)/at @-")
        XCTAssertTrue(String(decoding: capture.captured, as: UTF8.self).contains("\r\n5\r\npiped\r\n0\r\n\r\n"))
        _ = try shell("printf piped | \"$SWURL\" \(url)/get")
        XCTAssertTrue(String(decoding: capture.captured, as: UTF8.self).hasPrefix("GET /get"))
        XCTAssertFalse(String(decoding: capture.captured, as: UTF8.self).contains("piped"))
    }

    func testPipedStdinIgnoredForDataItemsIsReported() throws {
        let capture = try CaptureServer()
        let r = try shell("echo '{}' > in.json; \"$SWURL\" POST http://127.0.0.1:\(capture.server.port)/p a=1 < in.json",
                          directory: TestPaths.temporaryDirectory())
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("warning: stdin is not sent"), r.stderr)
        XCTAssertTrue(capture.captured.ends(with: Data("{\"a\":\"1\"}".utf8)))
        let quiet = try shell("echo '{}' | \"$SWURL\" --ignore-stdin POST http://127.0.0.1:\(capture.server.port)/p a=1")
        XCTAssertFalse(quiet.stderr.contains("warning"), quiet.stderr)
    }

    func testFileFieldMediaTypesWithParameters() throws {
        let dir = TestPaths.temporaryDirectory()
        try "x".write(toFile: dir + "/f.txt", atomically: true, encoding: .utf8)
        let r = try runSwurl(["--offline", "--form", "POST", ":9/x", "f@f.txt;type=text/plain;charset=utf-8",
                              "g@f.txt;type=data;filename=n.bin"], directory: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.text.contains("name=\"f\"; filename=\"f.txt\"\r\nContent-Type: text/plain;charset=utf-8\r\n"), r.text)
        XCTAssertTrue(r.text.contains("name=\"g\"; filename=\"n.bin\"\r\nContent-Type: data\r\n"), r.text)
    }
}

struct ShellResult {
    var status: Int32
    var stdout: Data
    var stderr: String
    var text: String { String(decoding: stdout, as: UTF8.self) }
}

private extension Data {
    func ends(with suffix: Data) -> Bool { count >= suffix.count && self.suffix(suffix.count) == suffix }
}

/// An event stream is shown as each event arrives, also when formatting is on.
final class EventStreamTests: XCTestCase {
    /// --sort-keys and --drop-nulls read a JSON body whole: with -S that is said (an endless
    /// JSON-lines stream showed nothing, silently); without -S, or without them, nothing is.
    func testStreamWithSortKeysSaysTheBodyIsHeldWhole() throws {
        let url = try HTTPBin.url("/json")
        let held = try runSwurl(["-S", "--sort-keys", url])
        XCTAssertEqual(held.status, 0, held.stderr)
        XCTAssertTrue(held.stderr.contains("swurl: note: --sort-keys holds a JSON body whole before showing it: with --stream such a body shows when the response ends"), held.stderr)
        XCTAssertFalse(try runSwurl(["--sort-keys", url]).stderr.contains("note:"))
        XCTAssertFalse(try runSwurl(["-S", url]).stderr.contains("note:"))
    }

    func testOneEventFollowedBySilenceIsShown() throws {
        let script = """
        import socket, sys, time
        s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(('127.0.0.1', int(sys.argv[1]))); s.listen(4)
        print(s.getsockname()[1], flush=True)
        while True:
            c, _ = s.accept()
            if not c.recv(65536): c.close(); continue
            c.sendall(b'HTTP/1.1 200 OK\\r\\nContent-Type: text/event-stream\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n')
            ev = b'data: hello\\n\\n'
            c.sendall(b'%x\\r\\n%s\\r\\n' % (len(ev), ev))
            time.sleep(60)
        """
        let server = try ServerProcess(executable: TestPaths.venv + "/bin/python3", arguments: ["-c", script, "{PORT}"])
        defer { server.stop() }
        // The server never ends the stream: swurl is stopped once what it printed holds the
        // event (or, failing, after a minute).
        let out = TestPaths.temporaryDirectory() + "/out"
        FileManager.default.createFile(atPath: out, contents: nil)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: TestPaths.binary)
        p.arguments = ["--pretty=all", "http://127.0.0.1:\(server.port)/events"]
        p.standardOutput = FileHandle(forWritingAtPath: out)
        p.standardError = FileHandle.nullDevice
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let shown = { String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: out))) ?? Data(), as: UTF8.self) }
        let watchdog = Date().addingTimeInterval(60)
        while !shown().contains("data: hello"), p.isRunning, Date() < watchdog { usleep(10_000) }
        let running = p.isRunning
        if running { p.terminate() }
        waitForExit(p)
        XCTAssertTrue(shown().contains("data: hello"), "nothing shown: \(shown())")
        XCTAssertTrue(running, "swurl ended a stream that never ends")
    }
}
