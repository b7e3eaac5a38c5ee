import XCTest
import Foundation
import SwurlTestSupport

final class OfflineAndErrorTests: XCTestCase {
    func testOfflinePrintsTheRequestAndOpensNoConnection() throws {
        let capture = try CaptureServer()
        let r = try runSwurl(["--offline", "POST", "http://127.0.0.1:\(capture.server.port)/x", "a=1"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.text.hasPrefix("POST /x HTTP/1.1\r\nHost: 127.0.0.1:\(capture.server.port)\r\n"), r.text)
        XCTAssertTrue(r.text.hasSuffix("\r\n\r\n{\"a\":\"1\"}"))
        try capture.sync()
        XCTAssertEqual(capture.captured.count, 0, "the offline run reached the server")
        let example = try runSwurl(["--offline", "POST", "example.org", "a=1"])
        XCTAssertEqual(example.status, 0)
        XCTAssertTrue(example.text.contains("Host: example.org\r\n"))
    }

    /// Found comparing the doors on many URLs: `--offline` showed `Host: h:80` where libcurl
    /// sends `Host: h`; the REPL's first base URL was not percent-encoded as `cd`'s and a one-shot
    /// URL are; a line feed in an invalid URL began a line of its own in the message; user info
    /// that is not UTF-8 went out as U+FFFD or swurl's escapes, and `--curl` printed a password
    /// with a line feed that every other door refuses.
    func testURLsAreShownAndCheckedAsTheyAreSent() throws {
        let capture = try CaptureServer()
        for (url, host) in [("http://localhost:80/o", "localhost"), ("https://localhost:443/o", "localhost"),
                            ("http://localhost:8080/o", "localhost:8080")] {
            let r = try runSwurl(["--offline", url])
            XCTAssertTrue(r.text.contains("\r\nHost: \(host)\r\n") || r.text.contains("\nHost: \(host)\n"), "\(url): \(r.text)")
        }
        let sent = try runSwurl([capture.base + "/x"])
        XCTAssertEqual(sent.status, 0, sent.stderr)
        let repl = try runSwurl(["repl", capture.base + "/s p"], stdin: Data("get x\n".utf8))
        XCTAssertEqual(repl.status, 0, repl.stderr)
        XCTAssertTrue(String(decoding: capture.captured, as: UTF8.self).hasPrefix("GET /s%20p/x HTTP/1.1\r\n"),
                      String(decoding: capture.captured, as: UTF8.self))
        // Not refused for a slash short: `http:8080/x` is the host `http` on port 8080, as curl reads it.
        let hostHTTP = try runSwurl(["--offline", "http:8080/x"])
        XCTAssertTrue(hostHTTP.text.contains("Host: http:8080"), hostHTTP.text + hostHTTP.stderr)
        let bad = try runSwurl(["--offline", "http://u:p@exa\nswurl: warning: x/"])
        XCTAssertEqual(bad.status, 64, bad.stderr)
        XCTAssertFalse(bad.stderr.contains("\nswurl: warning"), bad.stderr)
        XCTAssertTrue(bad.stderr.contains("u:****@exa\\nswurl"), bad.stderr)
        for (args, said) in [(["--offline", "http://u:%E9@127.0.0.1:9/"], "the password in the URL is not valid UTF-8 text"),
                             // A slash short: it went to a host named `http`.
                             (["--offline", "http:/127.0.0.1:9/a"], "'http:' needs two slashes"),
                             (["--offline", "HTTPS:127.0.0.1:9/a"], "'https:' needs two slashes"),
                             (["--curl", "http://u:p%0a@127.0.0.1:9/"], "the password in the URL: a line feed"),
                             // An '@' in the password: the masked URL looked valid, nothing said why.
                             (["--offline", "http://u:p@ss@127.0.0.1:9/"], "hint: write an '@' inside the user name or password as %40")] {
            let r = try runSwurl(args)
            XCTAssertEqual(r.status, 64, r.stderr)
            XCTAssertTrue(r.stderr.contains(said), r.stderr)
            XCTAssertEqual(r.stdout, Data(), "nothing printed")
        }
    }

    /// A request head over libcurl's 1 MiB failed after connecting as "the response could not be
    /// read": refused before connecting, on every door, naming the request.
    func testARequestHeadOverLibcurlsLimitIsRefusedBeforeConnecting() throws {
        let capture = try CaptureServer()
        let dir = TestPaths.temporaryDirectory()
        try Data(repeating: UInt8(ascii: "a"), count: 1_100_000).write(to: URL(fileURLWithPath: dir + "/big.txt"))
        let words = [capture.base + "/big", "X-Big:@" + dir + "/big.txt"]
        for args in [words, ["--offline"] + words] {
            let r = try runSwurl(args)
            XCTAssertEqual(r.status, 64, r.stderr)
            XCTAssertTrue(r.stderr.contains("the request's head (its URL and header fields) comes to 1100"), r.stderr)
            XCTAssertFalse(r.stderr.contains("response"), r.stderr)
        }
        try (words.joined(separator: " ") + "\n").write(toFile: dir + "/lines", atomically: true, encoding: .utf8)
        let batch = try runSwurl(["batch", dir + "/lines"])
        XCTAssertEqual(batch.status, 64, batch.text + batch.stderr)
        XCTAssertTrue(batch.text.contains("libcurl sends at most 1 MiB"), batch.text)
        try capture.sync()
        XCTAssertEqual(capture.capturedAll.count, 0, "nothing was sent")
    }

    /// --check-status and --timing with --offline had nothing to look at and said nothing.
    func testOfflineNotesWhatLooksAtAResponse() throws {
        let both = try runSwurl(["--offline", "--check-status", "--timing", ":9/x"])
        XCTAssertEqual(both.status, 0, both.stderr)
        XCTAssertTrue(both.stderr.contains("swurl: note: --check-status and --timing look at a response, and --offline sends nothing"), both.stderr)
        XCTAssertTrue(both.text.hasPrefix("GET /x HTTP/1.1\r\n"), both.text)
        XCTAssertFalse(try runSwurl(["--offline", "-q", "--timing", ":9/x"]).stderr.contains("note:"))
        XCTAssertFalse(try runSwurl(["--offline", ":9/x"]).stderr.contains("note:"))
    }

    /// `--offline` output must be exactly the bytes libcurl sends.
    /// Bodies as they were meant: a value's `\\` kept as typed (HTTPie's rule: a regular
    /// expression, a Windows path); two fields whose names are canonically equal (`é` and `e` +
    /// U+0301) both sent as parts; a CR in an XML plist string kept as `&#13;` (raw, an XML parser
    /// reads it as LF); a body whose framing header is removed refused before anything is sent.
    func testBodiesKeepWhatWasTypedAndAreNeverSentUnframed() throws {
        func offline(_ args: [String]) throws -> String {
            let r = try runSwurl(["--offline", "--print=B"] + args)
            XCTAssertEqual(r.status, 0, r.stderr)
            return r.text
        }
        // Typed as `re=\\d+` (two backslashes): both go, as JSON `\\\\`; `\=` stands for `=`.
        XCTAssertEqual(try offline(["POST", "http://127.0.0.1:9/x", #"re=\\d+"#, #"path=C:\\dir\\f"#, #"sep=a\=b"#, #"kept=\d"#]),
                       #"{"re":"\\\\d+","path":"C:\\\\dir\\\\f","sep":"a=b","kept":"\\d"}"#)
        let parts = try offline(["--multipart", "--boundary=B", "POST", "http://127.0.0.1:9/x", "\u{E9}=1", "e\u{301}=2", "x=3"])
        XCTAssertEqual(parts.components(separatedBy: "Content-Disposition: form-data").count - 1, 3, parts)
        let plist = try offline(["--plist", "POST", "http://127.0.0.1:9/x", "s=a\rb"])
        XCTAssertTrue(plist.contains("<string>a&#13;b</string>"), plist)
        let file = TestPaths.temporaryDirectory() + "/cr.plist"
        try Data(plist.utf8).write(to: URL(fileURLWithPath: file))
        let parsed = try runPython("import plistlib,sys; print(repr(plistlib.load(open(sys.argv[1],'rb'))['s']))", arguments: [file])
        XCTAssertEqual(parsed.trimmingCharacters(in: .whitespacesAndNewlines), "'a\\rb'")

        let capture = try CaptureServer()
        let unframed = try runSwurl(["POST", capture.base + "/x", "a=1", "Content-Length:"])
        XCTAssertEqual(unframed.status, 64, unframed.stderr)
        XCTAssertTrue(unframed.stderr.contains("'Content-Length:' removes the length of the body"), unframed.stderr)
        // Stdin past the 1 MiB read ahead has no length to send instead.
        let stdin = try runSwurl(["PUT", capture.base + "/x", "Transfer-Encoding:"], stdin: Data(repeating: 0x61, count: (1 << 20) + 1))
        XCTAssertEqual(stdin.status, 64, stdin.stderr)
        XCTAssertTrue(stdin.stderr.contains("removes the chunked framing of a body of unknown length (stdin or a pipe)"), stdin.stderr)
        try capture.sync()
        XCTAssertEqual(capture.captured.count, 0, "nothing was sent")
        // A short stdin is read whole: it goes with its length.
        let short = try runSwurl(["PUT", capture.base + "/x", "Transfer-Encoding:"], stdin: Data("abc\n".utf8))
        XCTAssertEqual(short.status, 0, short.stderr)
        XCTAssertTrue(String(decoding: capture.captured, as: UTF8.self).contains("Content-Length: 4\r\n"))
        // An empty body needs no length: nothing to find the end of.
        XCTAssertEqual(try runSwurl(["--offline", "--raw", "", "POST", capture.base + "/x", "Content-Length:"]).status, 0)
    }

    func testOfflineBytesEqualWhatTheServerReceives() throws {
        let cases: [[String]] = [
            ["POST", "{URL}/x?q=1", "a=1", "b[c]:=2", "X-A:1"],
            ["-f", "PUT", "{URL}/f", "user[name]=A B", "tags[]=x"],
            ["GET", "{URL}/g", "q==1", "Accept:", "X-E;"],
            ["--raw", "text body", "{URL}/r", "Content-Type:text/plain"],
            ["--chunked", "POST", "{URL}/c", "a=1"],
            ["POST", "{URL}/h", "Host:example.test", "a=1"],
            // No body: libcurl's default form Content-Type must not go out unseen.
            ["POST", "{URL}/empty"],
            ["-f", "POST", "{URL}/empty-form"],
            // A removed length on a bodyless POST: libcurl adds none, and --offline shows none.
            ["POST", "{URL}/no-length", "Content-Length:"],
            ["POST", "{URL}/bs", #"re=\\d+"#, #"q==a\\b"#, #"X-R:a\\b"#],
            ["--multipart", "--boundary=B", "POST", "{URL}/m", "\u{E9}=1", "e\u{301}=2"],
            ["{USERINFO}/u"],
            ["-A", "digest", "-a", "u:p", "{URL}/d"],
            ["{URL}/pé/a b?q=é ü&r=1", "s==ä b"],
            ["--session-read-only", "{SESSION}", "{URL}/x/y/z?q=1", "X-After:1"],
            ["--session-read-only", "{SESSION}", "{URL}/other/"],
            ["--session-read-only", "{SESSION}", "{URL}/elsewhere", "Cookie:mine=1"],
            // A Host header names another host of the session: none of its cookies go out.
            ["--session-read-only", "{SESSION}", "{URL}/x", "Host:other.test"],
        ]
        // Cookies of several paths, ages and name lengths, a secure one (127.0.0.1 counts as a
        // secure context for libcurl), an expired one and a subdomain one (never for an IP).
        let session = TestPaths.temporaryDirectory() + "/cookies.json"
        func cookie(_ name: String, _ path: String, secure: Bool = false, expires: Int = 0, subdomains: Bool = false) -> String {
            "{\"domain\": \"127.0.0.1\", \"includeSubdomains\": \(subdomains), \"path\": \"\(path)\", \"secure\": \(secure), "
                + "\"httpOnly\": false, \"expires\": \(expires), \"name\": \"\(name)\", \"value\": \"v-\(name)\"}"
        }
        let cookies = [cookie("a", "/"), cookie("bb", "/x"), cookie("c", "/x/y/"), cookie("o", "/other"),
                       cookie("sec", "/", secure: true), cookie("old", "/", expires: 1000), cookie("d", "/x"),
                       cookie("dom", "/", subdomains: true), cookie("e", "/x"), cookie("xy", "/x/yz"),
                       cookie("elsewhere", "/").replacingOccurrences(of: "\"127.0.0.1\"", with: "\"other.test\"")]
        try Data("{\"version\": 1, \"cookies\": [\(cookies.joined(separator: ", "))]}".utf8)
            .write(to: URL(fileURLWithPath: session))
        for args in cases {
            let capture = try CaptureServer()
            let base = "http://127.0.0.1:\(capture.server.port)"
            let filled = args.map {
                $0.replacingOccurrences(of: "{URL}", with: base)
                    .replacingOccurrences(of: "{USERINFO}", with: "http://us%20er:p%40ss@127.0.0.1:\(capture.server.port)")
                    .replacingOccurrences(of: "{SESSION}", with: session)
            }
            let offline = try runSwurl(["--offline"] + filled)
            XCTAssertEqual(offline.status, 0, offline.stderr)
            let sent = try runSwurl(filled)
            XCTAssertEqual(sent.status, 0, sent.stderr)
            XCTAssertEqual(String(decoding: capture.captured, as: UTF8.self), offline.text, "\(args)")
        }
    }

    /// A server that does not speak HTTP is a transport failure (1), never a usage error (64).
    func testNonHTTPServerIsATransportError() throws {
        var notHTTP = SequenceServer.Reply("200 OK")
        notHTTP.head = "NOT HTTP AT ALL\r\n\r\n"
        // A malformed HTTP head is said to be one (it was "did not answer in HTTP" too).
        for (reply, said) in [(notHTTP, "did not answer in HTTP"), (SequenceServer.Reply("99999 Weird"), "does not follow HTTP (a malformed head")] {
            let server = try SequenceServer([reply])
            let r = try runSwurl([server.url("/x")])
            XCTAssertEqual(r.status, 1, r.stderr)
            XCTAssertTrue(r.stderr.contains(said), r.stderr)
        }
    }

    /// Transport errors name the real cause: the Unix socket path, a plain-http port behind https.
    func testTransportErrorsNameTheRealCause() throws {
        let socket = try runSwurl(["--unix-socket", "/nonexistent-dir/swurl.sock", "http://localhost/x"])
        XCTAssertEqual(socket.status, 1, socket.stderr)
        XCTAssertTrue(socket.stderr.contains("Unix socket '/nonexistent-dir/swurl.sock'"), socket.stderr)
        XCTAssertFalse(socket.stderr.contains("port 80"), socket.stderr)
        let server = try ScriptedServer()
        let tls = try runSwurl(["https://127.0.0.1:\(server.port)/echo"])
        XCTAssertEqual(tls.status, 1, tls.stderr)
        XCTAssertTrue(tls.stderr.contains("try http://"), tls.stderr)
        let certs = try runSwurl(["certs", "https://127.0.0.1:\(server.port)/"])
        XCTAssertTrue(certs.stderr.contains("the port does not speak TLS"), certs.stderr)
        let huge = try SequenceServer([SequenceServer.Reply("200 OK", ["X-Big: " + String(repeating: "a", count: 1_000_000)], body: Data("ok".utf8))])
        let big = try runSwurl([huge.url("/big")])
        XCTAssertEqual(big.status, 1, big.stderr)
        XCTAssertTrue(big.stderr.contains("header line is larger than libcurl accepts"), big.stderr)
    }

    /// A head that arrived whole, then a body that never came (a timeout) or was cut before its
    /// first byte: `-h` and `-v` showed nothing of it, only the error; curl -i shows the head.
    /// Only the head that answered the failed request: not an earlier attempt's (--retry), not
    /// a Digest challenge's.
    func testAHeadWhoseBodyFailedIsStillShown() throws {
        let stalled = try SequenceServer([SequenceServer.Reply("503 Service Unavailable", ["Content-Length: 10"], hold: 3)])
        let timedOut = try runSwurl(["-h", "--timeout", "1", stalled.url("/x")])
        XCTAssertEqual(timedOut.status, 2, timedOut.stderr)
        XCTAssertTrue(timedOut.text.hasPrefix("HTTP/1.1 503 Service Unavailable"), timedOut.text)
        let cut = try SequenceServer([SequenceServer.Reply("500 Internal Server Error", ["Content-Length: 20"])])
        let closed = try runSwurl(["-v", cut.url("/y")])
        XCTAssertEqual(closed.status, 1, closed.stderr)
        XCTAssertTrue(closed.text.contains("HTTP/1.1 500 Internal Server Error"), closed.text)
        // Without headers asked for, the output is the body's alone, as before.
        XCTAssertEqual(try runSwurl([cut.url("/y")]).text, "")
        let retried = try SequenceServer([SequenceServer.Reply("200 OK", ["X-Attempt: 1", "Content-Length: 20"]),
                                          SequenceServer.Reply("not a status")])
        let second = try runSwurl(["-h", "--retry", "1", "--retry-delay", "0.1", retried.url("/z")])
        XCTAssertNotEqual(second.status, 0, second.stderr)
        XCTAssertFalse(second.text.contains("X-Attempt"), second.text)
        let digest = try SequenceServer([SequenceServer.Reply("401 Unauthorized", ["WWW-Authenticate: Digest realm=\"r\", nonce=\"n\"", "Content-Length: 0"]),
                                         SequenceServer.Reply("not a status")])
        let challenged = try runSwurl(["-h", "-A", "digest", "-a", "u:p", digest.url("/d")])
        XCTAssertNotEqual(challenged.status, 0, challenged.stderr)
        XCTAssertFalse(challenged.text.contains("401"), challenged.text)
    }

    /// Each bad input gives one error line (plus an optional hint), the right status, no crash.
    func testBadInputGivesAClearErrorAndStatus() throws {
        let url = "http://127.0.0.1:9/x"
        let cases: [([String], Int32, String)] = [
            (["--folow", url], 64, "unknown option '--folow'"),
            ([url, "a:=[1,"], 65, "invalid JSON"),
            ([url, "a=@missing-file"], 66, "missing-file"),
            (["http://"], 64, "invalid URL 'http://'"),
            (["GET"], 64, "needs a URL"),
            (["--timeout", "abc", url], 64, "--timeout"),
            ([url, ":value"], 64, "header name is empty"),
            ([url, "f@/"], 66, "is a directory"),
            ([url, "a[b]c=1"], 64, "bad nested key"),
            ([], 64, "no URL"),
            (["-p", "Z", url], 64, "unknown letter"),
            (["ftp://example.org"], 64, "unsupported URL scheme"),
            (["--timeout", "1e300", url], 64, "too long"),
            (["--connect-timeout", "1e19", url], 64, "too long"),
            ([url, "a" + String(repeating: "[b]", count: 600) + "=1"], 64, "levels of nesting"),
            ([url, "a[99999999999999999999]=1"], 64, "too large"),
            ([url, "X-A:a\u{01}b"], 64, "control characters"),
            (["POST", url, "a=1", "Content-Length:3"], 64, "does not match"),
            (["POST", url, "a=1", "Transfer-Encoding:gzip"], 64, "not supported"),
            (["--multipart", "POST", url, "f@/etc/hostname;type=text/plain\r\nX-Injected: 1"], 64, "cannot be sent in a header"),
            (["--proxy", "https://127.0.0.1:9", url], 64, "HTTPS proxies"),
            // `filename=""` reads as "no file chosen" to PHP and Rails.
            (["--multipart", "POST", url, "f@/etc/hostname;filename="], 64, "the ;filename= is empty"),
            (["--accept-type", "application/json;charset=utf-8", url], 64, "types are compared without them"),
            (["--accept-type", "application/json; charset=utf-8", url], 64, "types are compared without them"),
            // libcurl reads a leading '-' as "remove the entry": the name resolved through DNS.
            (["--resolve", "-foo.test:80:127.0.0.1", url], 64, "a host name cannot start with '-'"),
            // An empty path (an unset variable) was the working directory.
            (["--pin-cert", "", url], 64, "--pin-cert needs a file name"),
            (["--session-read-only", "", url], 64, "--session-read-only: '' is not a session name"),
            // `swurl help a b` went as a request to the host `help`.
            (["help", "a=1", "b=2"], 64, "'swurl help' takes one word"),
            // A 1 MB word was matched against every option name (20 s of CPU in a batch).
            (["--" + String(repeating: "a", count: 100_000), url], 64, "unknown option '--aaaa"),
        ]
        for (args, status, fragment) in cases {
            let r = try runSwurl(args)
            XCTAssertEqual(r.status, status, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.hasPrefix("swurl: error: "), "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(fragment), "\(args): \(r.stderr)")
            XCTAssertTrue(r.stdout.isEmpty)
        }
    }

    /// Regression: an item reading an endless source (`a=@/dev/zero`) grew until memory ran out
    /// and crashed (exit 134, a backtrace) under a memory limit; it is read up to a bound and
    /// refused, naming the item and the bodies that stream.
    func testAnEndlessItemSourceIsRefusedNotACrash() throws {
        for item in ["a=@/dev/zero", "a:=@/dev/zero", "X-A:@/dev/zero"] {
            let r = try runProcess("/bin/sh", ["-c", "ulimit -v 1000000 && exec \"$0\" --offline POST http://127.0.0.1:1/x \"$1\"", TestPaths.binary, item],
                                   check: false)
            XCTAssertEqual(r.status, 66, "\(item): \(r.stderr)")
            XCTAssertTrue(r.stderr.hasPrefix("swurl: error: cannot read '/dev/zero' (from '\(item)'): larger than "), r.stderr)
            XCTAssertTrue(r.stderr.contains("send a large file as the body (@/dev/zero)"), r.stderr)
        }
    }

    /// `@<(cmd)` and `@/dev/stdin` are pipes: no size to announce, so they are read ahead as
    /// stdin is: one that ends within 1 MiB goes with its length, a longer one streams chunked.
    func testAPipeAsTheWholeBodyStreamsChunked() throws {
        let sink = try SinkServer()
        let r = try runSwurl(["POST", sink.url + "/p", "@/dev/stdin", "Content-Type:text/plain"], stdin: Data("piped body".utf8))
        XCTAssertEqual(r.status, 0, r.stderr)
        let received = try r.json()
        XCTAssertEqual(received["length"] as? Int, 10)
        XCTAssertEqual((received["headers"] as? [String: String])?["Content-Length"], "10")
        XCTAssertNil((received["headers"] as? [String: String])?["Transfer-Encoding"])
        let big = try runSwurl(["POST", sink.url + "/p", "@/dev/stdin", "Content-Type:text/plain"], stdin: Data(repeating: 0x62, count: (1 << 20) + 10))
        XCTAssertEqual(big.status, 0, big.stderr)
        let streamed = try big.json()
        XCTAssertEqual(streamed["length"] as? Int, (1 << 20) + 10)
        XCTAssertEqual((streamed["headers"] as? [String: String])?["Transfer-Encoding"], "chunked")
        // --curl names such a file (curl reads it by name), not stdin: `@-` would read the
        // terminal or the wrong pipe.
        let curl = try runSwurl(["--curl", "POST", sink.url + "/p", "@/dev/stdin"], stdin: Data(repeating: 0x62, count: (1 << 20) + 10))
        XCTAssertEqual(curl.status, 0, curl.stderr)
        XCTAssertTrue(curl.text.contains("--data-binary @/dev/stdin"), curl.text)
        XCTAssertFalse(curl.text.contains("@-"), curl.text)
        XCTAssertTrue(curl.stderr.contains("curl cannot read '/dev/stdin' again if it is a pipe"), curl.stderr)
    }

    /// A body method with stdin a pipe that stays open and silent (ssh without -n, a CI agent)
    /// waited without a word: after 10 s a note says what swurl reads and how not to; what
    /// comes later is still the body.
    func testASilentStdinPipeGetsANote() throws {
        let sink = try SinkServer()
        let r = try runProcess("/bin/bash", ["-c", "(sleep 11; printf late) | \"$0\" DELETE \"$1\"", TestPaths.binary, sink.url + "/d"], check: false)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("swurl: note: waiting for the request body on stdin"), r.stderr)
        XCTAssertTrue(r.stderr.contains("--ignore-stdin"), r.stderr)
        let received = try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any]
        XCTAssertEqual(received?["length"] as? Int, 4)
        // A body that comes at once gets no note.
        let quick = try runSwurl(["DELETE", sink.url + "/d"], stdin: Data("now".utf8))
        XCTAssertEqual(quick.status, 0, quick.stderr)
        XCTAssertFalse(quick.stderr.contains("note"), quick.stderr)
    }

    /// Text from a server inside an error message is made visible, never interpreted.
    func testErrorMessagesQuotingServerTextAreTerminalSafe() throws {
        let fixtures = try FixtureServer()
        try fixtures.put("r", "")
        let url = fixtures.url("r", status: 302, headers: ["Location: http://bad host\u{1B}]0;x\u{07}/"])
        let r = try runSwurl(["-F", url])
        XCTAssertNotEqual(r.status, 0)
        XCTAssertFalse(r.stderr.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, r.stderr)
    }

    func testHelpAndVersion() throws {
        let help = try runSwurl(["--help"])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.text.contains("Usage: swurl [METHOD] URL [REQUEST_ITEM ...] [OPTIONS]"))
        let version = try runSwurl(["--version"])
        // The first line is VERSION's content and the commit: `swurl 0.9.0 (commit abc1234)`
        // (a hex hash under make, "unknown" from a plain `swift build`).
        let lines = version.text.split(separator: "\n").map(String.init)
        let expected = try TestPaths.version()
        XCTAssertTrue(lines.first?.hasPrefix("swurl \(expected) (commit ") == true, version.text)
        let commit = lines.first.map { $0.dropFirst("swurl \(expected) (commit ".count).dropLast() } ?? ""
        XCTAssertTrue(commit == "unknown" || (commit.count >= 7 && commit.allSatisfy(\.isHexDigit)), version.text)
        XCTAssertTrue(lines.count > 1 && lines[1].hasPrefix("libcurl 7."), version.text)
        XCTAssertTrue(version.text.contains("OpenSSL 3"))
    }
}
