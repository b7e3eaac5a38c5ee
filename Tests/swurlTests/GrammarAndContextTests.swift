import XCTest
import Foundation
import SwurlTestSupport

/// What a curl user types gets swurl's grammar in the hint; options that would do nothing
/// are refused; `-o` takes `-` for stdout and refuses a directory before sending anything.
final class GrammarAndContextTests: XCTestCase {
    func testCurlSpellingsGetSwurlsGrammar() throws {
        let url = "http://127.0.0.1:9/x"
        let cases: [([String], String)] = [
            (["-X", "POST", url], "the method is the first word"),
            (["-H", "A: b", url], "headers are request items"),
            (["--data", "x", url], "data are request items"),
            (["-d", "data", url], "looks like a URL, but the URL was 'data'"),
            (["-d", "@t.txt", url], "a body file is the item @t.txt after the URL"),
            (["-d", "@t.txt", "127.0.0.1:9/x"], "swurl's -d is --download, not curl's --data"),
            (["-i", url], "-h prints them alone, -p hb with the body"),
            (["--include", url], "-h prints them alone"),
            (["--location", url], "follow redirects with --follow"),
            (["--json", #"{"a":1}"#, url], "--json takes no value"),
            (["--json", #"[{"a":1}]"#, "127.0.0.1:9/x"], "--json takes no value"),
            // Without --json the hint does not name it (it did, to someone who typed curl's -d).
            (["-d", #"{"a":1}"#, url], "hint: give the fields as items after the URL (name=text, name:=1, name:='[1,2]'), or the whole body as @file, on stdin or as --raw TEXT"),
            (["POST", url, "--json", #"{"a": 1}"#], "is not a request item: it looks like a JSON body"),
            ([#"--json={"a":1}"#, url], "the whole body as @file or on stdin"),
            // The man page's COMMANDS list names them; the hint was to send a DOWNLOAD method.
            (["download", url], "'download' is no command word: a download is swurl -d URL"),
            (["request", url], "'request' is no command word"),
        ]
        for (args, hint) in cases {
            let r = try runSwurl(args)
            XCTAssertEqual(r.status, 64, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(hint), "\(args): \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("did you mean '-j'"), r.stderr)
        }
        // What only looks close stays what it is: a nested-key item, an IPv6 host.
        XCTAssertEqual(try runSwurl(["--offline", "POST", ":9/x", "[]:=1"]).status, 0)
        XCTAssertEqual(try runSwurl(["--offline", "[::1]:9/x"]).status, 0)
    }

    func testLowerCaseKnownMethodsAreAccepted() throws {
        let capture = try CaptureServer()
        let r = try runSwurl(["post", "http://127.0.0.1:\(capture.server.port)/m", "a=1"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(capture.captured.starts(with: Data("POST /m HTTP/1.1\r\n".utf8)))
        let offline = try runSwurl(["--offline", "delete", ":9/d"])
        XCTAssertTrue(offline.text.hasPrefix("DELETE /d HTTP/1.1"), offline.text)
    }

    func testOptionsThatWouldDoNothingAreRefused() throws {
        let all = try runSwurl(["--all", "--offline", ":9/x"])
        XCTAssertEqual(all.status, 64, all.stderr)
        XCTAssertTrue(all.stderr.contains("--all"), all.stderr)
        XCTAssertEqual(try runSwurl(["--all", "-F", "--offline", ":9/x"]).status, 0)
        let boundary = try runSwurl(["--boundary", "B", "--offline", ":9/x", "a=1"])
        XCTAssertEqual(boundary.status, 64, boundary.stderr)
        XCTAssertTrue(boundary.stderr.contains("--boundary"), boundary.stderr)
        XCTAssertEqual(try runSwurl(["--boundary", "B", "--multipart", "--offline", ":9/x", "a=1"]).status, 0)
    }

    func testDashOutputIsStdout() throws {
        let capture = try CaptureServer()
        let dir = TestPaths.temporaryDirectory()
        let r = try runSwurl(["-o", "-", "http://127.0.0.1:\(capture.server.port)/x"], directory: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.text, "ok")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/-"))
    }

    /// Regression: `-follow` was the cluster `-f -o llow` and replaced the file `llow` with the
    /// body; `-offline` sent the request (`-o ffline`). Refused before anything is sent, on the
    /// command line and in a REPL line.
    func testALongOptionWithOneDashIsRefusedBeforeSending() throws {
        let capture = try CaptureServer()
        let dir = TestPaths.temporaryDirectory()
        try Data("precious\n".utf8).write(to: URL(fileURLWithPath: dir + "/llow"))
        let r = try runSwurl(["-follow", capture.base + "/x"], directory: dir)
        XCTAssertEqual(r.status, 64, r.stderr)
        XCTAssertTrue(r.stderr.contains("'-follow' is not an option: a long option takes two dashes"), r.stderr)
        XCTAssertTrue(r.stderr.contains("did you mean '--follow'?"), r.stderr)
        XCTAssertEqual(try String(contentsOfFile: dir + "/llow", encoding: .utf8), "precious\n")
        let repl = try runSwurl(["repl", capture.base], stdin: Data("-offline DELETE /important\n".utf8), directory: dir)
        XCTAssertTrue(repl.stderr.contains("line 1: '-offline' is not an option"), repl.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/ffline"))
        try capture.sync()
        XCTAssertEqual(capture.captured.count, 0, "a request was sent")
    }

    /// "no URL given" said what took the URL's place: an option that took it as its value, `-h`
    /// meant as curl's help, `download` meant as a command; `-o` into a missing directory names
    /// the directory, and a directory given with its slash gets no second one in the hint.
    func testMissingURLAndOutputMessagesSayWhatHappened() throws {
        let swallowed = try runSwurl(["-o", "http://127.0.0.1:9/f"])
        XCTAssertEqual(swallowed.status, 64, swallowed.stderr)
        XCTAssertTrue(swallowed.stderr.contains("no URL given: --output took 'http://127.0.0.1:9/f' as its value"), swallowed.stderr)
        let help = try runSwurl(["-h"])
        XCTAssertTrue(help.stderr.contains("-h is --headers here (print the response headers); help is --help"), help.stderr)
        let proxy = try runSwurl(["--proxy", "http://127.0.0.1:9"])
        XCTAssertFalse(proxy.stderr.contains("took"), "a proxy's value is a URL: " + proxy.stderr)
        let download = try runSwurl(["download"])
        XCTAssertTrue(download.stderr.contains("'download' is no command word: a download is swurl -d URL"), download.stderr)
        let dir = TestPaths.temporaryDirectory()
        let missing = try runSwurl(["-o", dir + "/nodir/x", "http://127.0.0.1:9/"])
        XCTAssertEqual(missing.status, 1, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("cannot write '\(dir)/nodir/x': the directory '\(dir)/nodir' does not exist"), missing.stderr)
        // `-d -o nodir/` says it as `-o` does (it named a file `nodir/.part`).
        for extra in [[String](), ["-d"]] {
            let r = try runSwurl(extra + ["-o", dir + "/nodir/", "http://127.0.0.1:9/"])
            XCTAssertEqual(r.status, 1, r.stderr)
            XCTAssertEqual(r.stderr, "swurl: error: cannot write '\(dir)/nodir/': the directory '\(dir)/nodir' does not exist\n")
        }
        FileManager.default.createFile(atPath: dir + "/afile", contents: Data())
        let notDir = try runSwurl(["-d", "-o", dir + "/afile/", "http://127.0.0.1:9/"])
        XCTAssertEqual(notDir.stderr, "swurl: error: cannot write '\(dir)/afile/': '\(dir)/afile' is not a directory\n")
        let slash = try runSwurl(["-o", dir + "/", "http://127.0.0.1:9/"])
        XCTAssertTrue(slash.stderr.contains("give -o a file name in it: -o \(dir)/NAME"), slash.stderr)
    }

    func testDirectoryOutputFailsBeforeSending() throws {
        let capture = try CaptureServer()
        let dir = TestPaths.temporaryDirectory()
        let r = try runSwurl(["-o", dir, "http://127.0.0.1:\(capture.server.port)/x"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("is a directory; give -o a file name in it: -o \(dir)/NAME"), r.stderr)
        // A download's -o is the same output error (it was a usage error, 64).
        let d = try runSwurl(["-d", "-o", dir, "http://127.0.0.1:\(capture.server.port)/x"])
        XCTAssertEqual(d.status, 1, d.stderr)
        XCTAssertTrue(d.stderr.contains("is a directory; give -o a file name in it: -o \(dir)/NAME"), d.stderr)
        try capture.sync()
        XCTAssertEqual(capture.captured.count, 0, "the request was sent")
    }

    /// A credential item that cannot be sent is named without its value (a token read from a
    /// file with CRLF, a ';' typed for ':', a credential item in the config file).
    func testCredentialItemValuesAreNeverInMessages() throws {
        let url = "http://127.0.0.1:9/x"
        for item in ["Authorization:Bearer TOKSECRET\r", "Authorization;Bearer TOKSECRET", "proxy-authorization:Basic TOKSECRET\u{01}",
                     "Cookie:a=TOKSECRET\n", "Authorization Bearer TOKSECRET", "Cookie\\:x:TOKSECRET", "Authorization\tBearer TOKSECRET"] {
            let r = try runSwurl([url, item])
            XCTAssertEqual(r.status, 64, "\(item): \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("TOKSECRET"), r.stderr)
            XCTAssertTrue(r.stderr.contains("****"), r.stderr)
        }
        // Typed before the URL, where it is taken for the URL.
        for args in [["Authorization:Bearer TOKSECRET", url], ["Authorization:Bearer TOKSECRET"]] {
            let r = try runSwurl(args)
            XCTAssertEqual(r.status, 64, "\(args): \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("TOKSECRET"), r.stderr)
        }
        let config = TestPaths.temporaryDirectory() + "/config"
        try "Authorization:'Bearer CFGSECRET'\n".write(toFile: config, atomically: true, encoding: .utf8)
        XCTAssertEqual(chmod(config, 0o600), 0)
        let r = try runSwurl([url], environment: ["SWURL_CONFIG": config])
        XCTAssertEqual(r.status, 64, r.stderr)
        XCTAssertFalse(r.stderr.contains("CFGSECRET"), r.stderr)
    }

    /// More curl and HTTPie spellings, a form item typed where the URL goes (`-F name=@file
    /// host:port/path`: it parsed as a URL with the user `name=` and the host `file`), no
    /// `did you mean` for an unknown letter, and numbers only in decimal.
    func testMoreHabitsGetHintsAndItemsAreNotTakenForURLs() throws {
        let url = "http://127.0.0.1:9/x"
        let cases: [([String], String)] = [
            (["-x", "http://127.0.0.1:8", url], "a proxy is --proxy URL"),
            (["--max-time", "3", url], "for a deadline use timeout(1)"),
            (["-m", url], "HTTPie's -m (--meta) is -p m here"),
            (["--url", url], "the URL is a word of its own"),
            (["--response-mime", "application/json", url], "--decode json"),
            (["--format-options", "json.indent:2", url], "--pretty all|colors|format|none"),
            (["purge", url], "write another in capitals: swurl PURGE URL"),
            (["--fail", url], "-d --overwrite -o FILE leaves FILE as it was"),
            (["--head", url], "swurl HEAD URL"),
            (["--noproxy", "*", url], "--proxy ''"),
            (["--proxy", "*", url], "no proxy for this request is --proxy ''"),
            (["-D", "h.txt", url], "-h prints them"),
            (["--cookie-jar", "c.txt", url], "--session NAME"),
            (["-s", url], "curl's -s (silent) is -q (--quiet) here"),
            (["-A", "agent/1", url], "'User-Agent:NAME'"),
            (["--style", "monokai", url], "swurl has its own styles, not Pygments'"),
            (["-c", "cookies.txt", url], "curl's -c (cookie jar) is --session NAME here"),
            (["-b", "c.txt", url], "-b --body"),
            (["--verify=no", url], "-k (--insecure)"),
            (["--cert-key", "k.pem", url], "--key FILE"),
            (["-F", "file=@report.txt", "localhost:9/upload"], "'file=@report.txt' is not a URL: it reads as a request item"),
            (["-F", "-d", "email=bob@127.0.0.1:9", "localhost:9/login"], "is not a URL: it reads as a request item"),
            (["--offline", url, "a=1", "localhost:9/other"], "'localhost:9/other' looks like a URL"),
            (["-d", "HEAD", url], "a HEAD request gets none"),
            (["--timeout", "0x10", url], "is not a positive number of seconds"),
            (["--max-filesize", "1.5", url], "--max-filesize"),
        ]
        for (args, hint) in cases {
            let r = try runSwurl(args)
            XCTAssertEqual(r.status, 64, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(hint), "\(args): \(r.stderr)")
        }
        // curl's habit is named only for what curl spells so (`-s`), not for `--style` typed in full.
        XCTAssertFalse(try runSwurl(["--style", "monokai", url]).stderr.contains("curl's -s"))
        for letter in ["-O", "-C", "-z", "-Q"] {
            let r = try runSwurl([letter, url])
            XCTAssertEqual(r.status, 64)
            XCTAssertFalse(r.stderr.contains("did you mean"), r.stderr)
        }
        // What only looks close stays what it is: headers with numbers and slashes, a query
        // holding name=a@b; a file item's error shows the item as typed.
        // A dotted header name with a number (`Api.Key:123`) was refused as a URL without its path.
        for args in [[url, "X-Count:5"], [url, "X-Date:2024/01/01"], [url, "X-Forwarded-For:10.0.0.1:80"], [url, "Api.Key:123"],
                     ["localhost:9/anything?email=a@b.com"], ["example.org/a;x=1@2"], ["127.1:9/x"], ["2130706433"]] {
            let r = try runSwurl(["--offline"] + args)
            XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)")
        }
        for word in ["/tmp/cache", "./x", "5"] {
            let r = try runSwurl(["--offline", word, "http://127.0.0.1:9/"])
            XCTAssertEqual(r.status, 64, "\(word): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("'\(word)' is not a URL: it has no host"), r.stderr)
        }
        // A method in lower case before a bare `host:PORT` (no path): the URL was the method
        // word, and the host a header (`localhost: 8080`), -a's credentials sent to `propfind`.
        // After `localhost` (a host), such an item stays what it is.
        for item in ["X.Version:3", "app.example.com:443"] {
            let r = try runSwurl(["--offline", "localhost", item])
            XCTAssertEqual(r.status, 0, "\(item): \(r.stderr)")
        }
        // Nor after a method, nor a dotted name with a number (a header) after a lower-case word.
        for args in [["GET", "myhost", "X.Version:3"], ["myhost", "Api.Key:123"]] {
            let r = try runSwurl(["--offline"] + args)
            XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)")
        }
        for method in ["propfind", "purge"] {
            let r = try runSwurl(["--offline", method, "localhost:8080", "-a", "bob:pw"])
            XCTAssertEqual(r.status, 64, "\(method): \(r.text)")
            XCTAssertTrue(r.stderr.contains("'localhost:8080' looks like a URL, but the URL was '\(method)'"), r.stderr)
            XCTAssertTrue(r.stderr.contains("write another in capitals: swurl \(method.uppercased()) URL"), r.stderr)
            XCTAssertEqual(r.text, "")
        }
        let missing = try runSwurl(["--offline", "POST", url, "a:=@no-such-file.json"])
        XCTAssertEqual(missing.status, 66)
        XCTAssertTrue(missing.stderr.contains("'a:=@no-such-file.json'"), missing.stderr)
    }

    /// `-k` warns that the chain is not checked only where TLS can be spoken; `--retry` says when
    /// it cannot resend a request.
    func testWarningsAndNotesOnlyWhereTheyApply() throws {
        let plain = try runSwurl(["-k", try HTTPBin.url("/get")])
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertFalse(plain.stderr.contains("--insecure"), plain.stderr)
        let post = try runSwurl(["--retry", "1", "POST", try HTTPBin.url("/post"), "a=1"])
        XCTAssertEqual(post.status, 0, post.stderr)
        XCTAssertTrue(post.stderr.contains("--retry does not resend a POST"), post.stderr)
        let piped = try runSwurl(["--retry", "1", "--chunked", "PUT", try HTTPBin.url("/put")], stdin: Data("body".utf8))
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertTrue(piped.stderr.contains("--retry cannot resend a body read from stdin"), piped.stderr)
        // Held (it ended within the read-ahead): it can be resent, so no note.
        let held = try runSwurl(["--retry", "1", "PUT", try HTTPBin.url("/put")], stdin: Data("body".utf8))
        XCTAssertEqual(held.status, 0, held.stderr)
        XCTAssertFalse(held.stderr.contains("cannot resend"), held.stderr)
    }

    /// A file of /proc says its size is 0 whatever it holds: it was sent as an empty body (and
    /// an empty part) with exit 0. It is read to its end, as curl and HTTPie read it; an empty
    /// file is still an empty body with a length.
    func testFilesWhoseSizeSaysNothingAreReadToTheirEnd() throws {
        let capture = try CaptureServer()
        let whole = try runSwurl(["POST", capture.base + "/w", "@/proc/sys/kernel/ostype"])
        XCTAssertEqual(whole.status, 0, whole.stderr)
        XCTAssertTrue(String(decoding: capture.captured, as: UTF8.self).hasSuffix("\r\nContent-Length: 6\r\n\r\nLinux\n"),
                      String(decoding: capture.captured, as: UTF8.self))
        let part = try runSwurl(["--multipart", "--boundary", "b0", "POST", capture.base + "/m", "f@/proc/sys/kernel/ostype"])
        XCTAssertEqual(part.status, 0, part.stderr)
        XCTAssertTrue(String(decoding: capture.captured, as: UTF8.self).contains("filename=\"ostype\"\r\nContent-Type: application/octet-stream\r\n\r\nLinux\n\r\n--b0--"),
                      String(decoding: capture.captured, as: UTF8.self))
        let dir = TestPaths.temporaryDirectory()
        FileManager.default.createFile(atPath: dir + "/empty", contents: Data())
        let empty = try runSwurl(["POST", capture.base + "/e", "@empty"], directory: dir)
        XCTAssertEqual(empty.status, 0, empty.stderr)
        XCTAssertTrue(String(decoding: capture.captured, as: UTF8.self).hasSuffix("\r\nContent-Length: 0\r\n\r\n"),
                      String(decoding: capture.captured, as: UTF8.self))
        // The file read to its end is closed: a batch of such lines under a small descriptor
        // limit ran out of descriptors after a few dozen ("Too many open files").
        let lines = String(repeating: "POST \(try HTTPBin.url("/post")) @/proc/sys/kernel/ostype\n", count: 120)
        try lines.write(toFile: dir + "/lines", atomically: true, encoding: .utf8)
        let batch = try runProcess("/bin/sh", ["-c", "ulimit -n 48; \"$0\" batch \"$1\" --parallel 2", TestPaths.binary, dir + "/lines"], check: false)
        XCTAssertEqual(batch.status, 0, batch.stderr)
        XCTAssertEqual(String(decoding: batch.stdout, as: UTF8.self).split(separator: "\n").filter { $0.contains(" 200 ") }.count, 120)
    }

    /// `Content-Length:` on a body read from stdin still sends it in chunks, as before stdin was
    /// read ahead (it was refused as a body of known length).
    func testRemovingTheLengthOfAStdinBodySendsItInChunks() throws {
        let capture = try CaptureServer()
        let r = try runSwurl(["POST", capture.base + "/c", "Content-Length:"], stdin: Data("hello".utf8))
        XCTAssertEqual(r.status, 0, r.stderr)
        let sent = String(decoding: capture.captured, as: UTF8.self)
        XCTAssertTrue(sent.contains("Transfer-Encoding: chunked\r\n") && !sent.contains("Content-Length"), sent)
        XCTAssertTrue(sent.hasSuffix("\r\n\r\n5\r\nhello\r\n0\r\n\r\n"), sent)
        // A --proxy with an empty port is libcurl's default port, as curl takes it.
        XCTAssertEqual(try runSwurl(["--offline", "--proxy", "http://127.0.0.1:", capture.base + "/x"]).status, 0)
    }

    /// Stdin that ends within 1 MiB goes with a Content-Length, as HTTPie and curl's
    /// `--data-binary @-` send it: it always went chunked, and a server without chunked request
    /// bodies answered 411 or read none. Longer, or with --chunked, it streams in chunks.
    func testAShortStdinBodyGoesWithItsLength() throws {
        let capture = try CaptureServer()
        for (args, input) in [(["PUT", capture.base + "/a"], Data("{\"a\":1}\n".utf8)), (["POST", capture.base + "/b", "@-"], Data("x".utf8))] {
            let r = try runSwurl(args, stdin: input)
            XCTAssertEqual(r.status, 0, r.stderr)
            let head = String(decoding: capture.captured.prefix { $0 != 0 }, as: UTF8.self)
            XCTAssertTrue(head.contains("\r\nContent-Length: \(input.count)\r\n"), head)
            XCTAssertFalse(head.contains("Transfer-Encoding"), head)
            XCTAssertTrue(capture.captured.suffix(input.count) == input, head)
        }
        let chunked = try runSwurl(["--chunked", "PUT", capture.base + "/c"], stdin: Data("x".utf8))
        XCTAssertEqual(chunked.status, 0, chunked.stderr)
        XCTAssertTrue(String(decoding: capture.captured, as: UTF8.self).contains("Transfer-Encoding: chunked\r\n"))
        // Past the read-ahead (a pipe, whose size is unknown): chunked, every byte sent.
        let big = Data(repeating: 0x61, count: (1 << 20) + 100)
        let long = try runSwurl(["--offline", "PUT", ":9/d"], stdin: big)
        XCTAssertEqual(long.status, 0, long.stderr)
        XCTAssertTrue(long.text.contains("Transfer-Encoding: chunked\r\n"), String(long.text.prefix(300)))
        XCTAssertGreaterThan(long.text.utf8.count, big.count)
        XCTAssertTrue(long.text.hasSuffix("\r\n0\r\n\r\n"), String(long.text.suffix(20)))
    }

    /// A path where the URL goes names the `=` an optional value needs (`--cache DIR` read the
    /// host `tmp`); HTTPie's `--proxy=http:URL` is explained; a
    /// warning names --accept-status; a host that is not UTF-8 is a usage error shown as \xFF.
    func testOptionalValuesProxyFormsAndMessages() throws {
        // --cache and --wait-for-network take their value only after '=' (a batch's file or a
        // REPL path may follow them); the word left where the URL goes is named.
        let cached = try runSwurl(["--cache", "/tmp/c", try HTTPBin.url("/get")])
        XCTAssertEqual(cached.status, 64, cached.stderr)
        XCTAssertTrue(cached.stderr.contains("--cache=DIR"), cached.stderr)
        let proxy = try runSwurl(["--proxy=http:http://127.0.0.1:9", "http://127.0.0.1:9/x"])
        XCTAssertEqual(proxy.status, 64)
        XCTAssertTrue(proxy.stderr.contains("--proxy http://127.0.0.1:9"), proxy.stderr)
        // A proxy URL or a --resolve port libcurl refused only when sending (exit 1, "Unsupported
        // proxy syntax", "Couldn't parse CURLOPT_RESOLVE entry") is a usage error that says why.
        let capture = try CaptureServer()
        for (args, why) in [(["--proxy", "http://"], "'http://' is not a proxy URL: No host part"),
                            (["--proxy", "http://127.0.0.1:99999"], "is not a proxy URL: Port number was not a decimal number between 0 and 65535"),
                            (["--proxy", "socks5://[::1"], "is not a proxy URL: Bad IPv6 address"), (["--proxy", "://x"], "is not a proxy URL: Bad scheme"),
                            // A user name alone is a token (libcurl sends it as Basic TOKEN:): masked.
                            (["--proxy", "http://TOKEN@127.0.0.1:99999"], "'http://****@127.0.0.1:99999' is not a proxy URL"),
                            (["--proxy", "socks9://TOKEN@127.0.0.1:1"], "unsupported proxy scheme in 'socks9://****@127.0.0.1:1'"),
                            // A password not percent-encoded, its '/' or '?' read as a path or query by libcurl.
                            (["--proxy", "ann:TOKEN/YmFy@127.0.0.1:3128"], "--proxy: 'ann:****@127.0.0.1:3128' is not a proxy URL"),
                            (["--resolve", "a:99999:127.0.0.1"], "the port '99999' in 'a:99999:127.0.0.1' is not 1 to 65535"),
                            (["--max-filesize", "9000000000G"], "'9000000000G' is not below 10^15 bytes, the largest size swurl takes"),
                            (["--max-filesize", "lots"], "--max-filesize: 'lots' is not a size"),
                            // Checked without the cache on too, as every option's value is.
                            (["--cache-max", "lots"], "--cache-max: 'lots' is not a size"),
                            (["--cache=" + TestPaths.temporaryDirectory() + "/c", "--cache-max", "1e16"], "--cache-max: '1e16' is not below 10^15 bytes")] {
            let r = try runSwurl(args + [capture.base + "/x"])
            XCTAssertEqual(r.status, 64, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(why), "\(args): \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("TOKEN"), r.stderr)
        }
        let fromVariable = try runSwurl(["https://127.0.0.1:9/x"], environment: ["https_proxy": "https://TOKEN@127.0.0.1:3128"])
        XCTAssertEqual(fromVariable.status, 64, fromVariable.stderr)
        XCTAssertTrue(fromVariable.stderr.contains("'https://****@127.0.0.1:3128' (from https_proxy"), fromVariable.stderr)
        let slashed = try runSwurl([capture.base + "/x"], environment: ["http_proxy": "ann:TOKEN?YmFy@127.0.0.1:3128"])
        XCTAssertEqual(slashed.status, 64, slashed.stderr)
        XCTAssertTrue(slashed.stderr.contains("'ann:****@127.0.0.1:3128' (from http_proxy) is not a proxy URL"), slashed.stderr)
        XCTAssertFalse(slashed.stderr.contains("TOKEN"), slashed.stderr)
        try capture.sync()
        XCTAssertEqual(capture.captured.count, 0, "nothing was sent")
        XCTAssertEqual(try runSwurl(["--offline", "--proxy", "http://u:p@[::1]:3128/", capture.base + "/x"]).status, 0)
        let accepted = try runSwurl(["--accept-status", "200", try HTTPBin.url("/status/204")])
        XCTAssertEqual(accepted.status, 8, accepted.stderr)
        XCTAssertTrue(accepted.stderr.contains("outside --accept-status"), accepted.stderr)
        let bytes = try runProcess("/bin/sh", ["-c", "\"$0\" --offline \"$(printf 'http://a\\377b/')\"", TestPaths.binary], check: false)
        XCTAssertEqual(bytes.status, 64, bytes.stderr)
        XCTAssertTrue(bytes.stderr.contains("'a\\xFFb'"), bytes.stderr)
        // Every message shows such bytes as \xFF: an unknown option and a file name showed the
        // escape's own character (U+10FFFF).
        for (word, shown) in [("--\\377\\376", "unknown option '--\\xFF\\xFE'"), ("@/nonexistent/x\\377", "cannot read '/nonexistent/x\\xFF'")] {
            let r = try runProcess("/bin/sh", ["-c", "\"$0\" --offline POST :9/x \"$(printf -- '\(word)')\"", TestPaths.binary], check: false)
            XCTAssertTrue(r.stderr.contains(shown), r.stderr)
        }
    }
}
