import XCTest
import Foundation
import SwurlTestSupport

/// `--curl` round trips: swurl sends a request to a capture server, then the printed curl
/// command (run by the real curl through /bin/sh) sends its own; the server must have received
/// the same method, target, headers (User-Agent and Accept-Encoding aside) and body.
final class CurlExportTests: XCTestCase {
    /// One request as received: request line, headers (lower-cased names, sorted), body (a
    /// chunked body decoded: curl and libcurl may cut chunks differently), and the subject of the
    /// client certificate presented over TLS (empty when none was).
    struct Received: Equatable, CustomStringConvertible {
        var line: String
        var headers: [String]
        var body: [UInt8]
        var peer = ""
        /// The TLS version and cipher suite, empty without TLS.
        var tls = ""
        var description: String {
            "\(line)\n\(headers.joined(separator: "\n"))\n\n\(String(decoding: body, as: UTF8.self))\n[\(tls)]\(peer.isEmpty ? "" : "\n[client: \(peer)]")"
        }
    }

    /// The payload of a chunked body; throws when the framing is broken.
    private func dechunk(_ body: [UInt8]) throws -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while true {
            guard let crlf = (i..<max(i, body.count - 1)).first(where: { body[$0] == 13 && body[$0 + 1] == 10 }),
                  let size = Int(String(decoding: body[i..<crlf], as: UTF8.self).split(separator: ";").first ?? "", radix: 16),
                  crlf + 2 + size + 2 <= body.count else {
                throw TestServerError("broken chunked body: \(String(decoding: body, as: UTF8.self))")
            }
            if size == 0 { return out }
            out += body[(crlf + 2)..<(crlf + 2 + size)]
            i = crlf + 2 + size + 2
        }
    }

    private func parse(_ data: Data, ignoring: Set<String>) throws -> Received {
        let bytes = [UInt8](data)
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = (0..<max(0, bytes.count - 3)).first(where: { Array(bytes[$0..<$0 + 4]) == separator }) else {
            throw TestServerError("no request head in \(String(decoding: bytes, as: UTF8.self))")
        }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let headers = lines.dropFirst().compactMap { line -> String? in
            guard let colon = line.firstIndex(of: ":") else { return line }
            let name = line[..<colon].lowercased()
            return ignoring.contains(name) ? nil : name + ":" + line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }.sorted()
        let body = Array(bytes[(end + 4)...])
        return Received(line: lines.first ?? "", headers: headers,
                        body: headers.contains("transfer-encoding:chunked") ? try dechunk(body) : body)
    }

    /// Runs swurl with `args`, then the printed curl command, each sending to `capture` (a
    /// plain one when nil). In `args`, {URL} is `base` (default: the capture server's own),
    /// {PORT} its port and {SOCK} its Unix socket.
    @discardableResult
    private func roundTrip(_ args: [String], capture given: CaptureServer? = nil, base givenBase: String? = nil,
                           ignoring: Set<String> = [], environment: [String: String] = [:],
                           file: StaticString = #filePath, line: UInt = #line) throws -> (swurl: Received, curl: Received, printed: SwurlResult) {
        let capture = try given ?? CaptureServer()
        let base = givenBase ?? capture.base
        let real = args.map {
            $0.replacingOccurrences(of: "{URL}", with: base).replacingOccurrences(of: "{PORT}", with: String(capture.server.port))
                .replacingOccurrences(of: "{SOCK}", with: capture.unixSocket ?? "")
        }
        let sent = try runSwurl(real, environment: environment)
        XCTAssertEqual(sent.status, 0, sent.stderr, file: file, line: line)
        let skip = ignoring.union(["user-agent", "accept-encoding"])
        var bySwurl = try parse(capture.captured, ignoring: skip)
        bySwurl.peer = capture.peerSubject
        bySwurl.tls = capture.tlsSession
        let printed = try runSwurl(["--curl"] + real, environment: environment)
        XCTAssertEqual(printed.status, 0, printed.stderr, file: file, line: line)
        // What curl sends must arrive fresh, not be swurl's request still on file.
        try FileManager.default.removeItem(atPath: capture.capturePath)
        try? FileManager.default.removeItem(atPath: capture.capturePath + ".peer")
        try? FileManager.default.removeItem(atPath: capture.capturePath + ".tls")
        // From a file, as `swurl --curl … > cmd.sh; sh cmd.sh` runs it (an argument holds at most 128 KiB).
        let script = TestPaths.temporaryDirectory() + "/command.sh"
        try printed.stdout.write(to: URL(fileURLWithPath: script))
        let ran = try runProcess("/bin/sh", [script], check: false)
        XCTAssertEqual(ran.status, 0, "\(printed.text.prefix(4000))\n\(ran.stderr)", file: file, line: line)
        var byCurl = try parse(capture.captured, ignoring: skip)
        byCurl.peer = capture.peerSubject
        byCurl.tls = capture.tlsSession
        return (bySwurl, byCurl, printed)
    }

    private func assertSame(_ args: [String], capture: CaptureServer? = nil, base: String? = nil, ignoring: Set<String> = [],
                            environment: [String: String] = [:], file: StaticString = #filePath, line: UInt = #line) throws {
        let r = try roundTrip(args, capture: capture, base: base, ignoring: ignoring, environment: environment, file: file, line: line)
        XCTAssertEqual(r.swurl, r.curl, "command:\n\(r.printed.text)", file: file, line: line)
        XCTAssertEqual(r.printed.stderr, "", file: file, line: line)
    }

    private func tempFile(_ bytes: [UInt8], name: String = "body.bin") throws -> String {
        let path = TestPaths.temporaryDirectory() + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func testBodiesRoundTrip() throws {
        try assertSame(["POST", "{URL}/j?x=1", "a=1", "n:=2", "nested[k][]=it's", "q==a b&c"])
        try assertSame(["-f", "POST", "{URL}/f", "user[name]=Ann Lee", "tags[]=a", "sym=%&+"])
        try assertSame(["--raw", "line one\nline 'two' $HOME `x` \\ \"q\"", "{URL}/r", "Content-Type:text/plain"])
        try assertSame(["--plist", "{URL}/p", "a=1", "b:=[1,2]"])
        try assertSame(["--plist=binary", "{URL}/pb", "a=1", "b:=true"])
        try assertSame(["PUT", "{URL}/file", "@" + (try tempFile(Array(0...255) + Array("tail\n".utf8)))])
    }

    /// A body over Linux's 128 KiB limit for one argument comes through the shell's own printf
    /// (it was one `--data-binary` argument: "Argument list too long"); one over 1 KiB turns curl's
    /// `Expect: 100-continue` off, as swurl sends none.
    func testALargeBodyIsPipedAndExpectIsTurnedOff() throws {
        let capture = try CaptureServer()
        let big = try tempFile(Array(repeating: UInt8(ascii: "a"), count: 140_000), name: "a.txt")
        let args = ["POST", capture.base + "/big", "a=@" + big]
        let sent = try runSwurl(args)
        XCTAssertEqual(sent.status, 0, sent.stderr)
        let bySwurl = try parse(capture.captured, ignoring: ["user-agent", "accept-encoding"])
        let printed = try runSwurl(["--curl"] + args)
        XCTAssertEqual(printed.status, 0, printed.stderr)
        XCTAssertTrue(printed.text.hasPrefix("printf '"), String(printed.text.prefix(200)))
        XCTAssertTrue(printed.text.contains("--header 'Expect:'") || printed.text.contains("--header Expect:"), String(printed.text.suffix(600)))
        // The command is too long to be one argument of sh -c itself: run as a script.
        let script = TestPaths.temporaryDirectory() + "/curl.sh"
        try printed.stdout.write(to: URL(fileURLWithPath: script))
        try FileManager.default.removeItem(atPath: capture.capturePath)
        let ran = try runProcess("/bin/sh", [script], check: false)
        XCTAssertEqual(ran.status, 0, ran.stderr)
        XCTAssertEqual(bySwurl, try parse(capture.captured, ignoring: ["user-agent", "accept-encoding"]))
        XCTAssertFalse(try runSwurl(["--curl", "POST", capture.base + "/small", "a=1"]).text.contains("Expect"))
    }

    /// A header field, URL or token too long to be one argument (Linux refuses one of 128 KiB)
    /// has no way into the command: refused (it printed a command that failed with "Argument list
    /// too long", exit 126), and so is a head swurl itself refuses to send (over 1 MiB).
    func testAnArgumentTooLongForACommandIsRefused() throws {
        let capture = try CaptureServer()
        let big = try tempFile(Array(repeating: UInt8(ascii: "h"), count: 140_000), name: "h.txt")
        for item in ["X-Big:@" + big, "q==@" + big] {
            XCTAssertEqual(try runSwurl(["--offline", capture.base + "/x", item]).status, 0, item)
            let r = try runSwurl(["--curl", capture.base + "/x", item])
            XCTAssertEqual(r.status, 64, r.stderr)
            XCTAssertTrue(r.stderr.contains("and Linux refuses an argument of 128 KiB or more"), r.stderr)
            XCTAssertTrue(r.stdout.isEmpty, item)
        }
        // Below Linux's limit it is written (it was refused from 100 KiB on), and curl sends it.
        let fits = try tempFile(Array(repeating: UInt8(ascii: "f"), count: 110_000), name: "f.txt")
        let written = try runSwurl(["--curl", capture.base + "/fits", "X-Fits:@" + fits])
        XCTAssertEqual(written.status, 0, written.stderr)
        let ran = try runProcess("/bin/sh", ["-c", written.text], check: false)
        XCTAssertEqual(ran.status, 0, ran.stderr)
        XCTAssertTrue(String(decoding: capture.captured, as: UTF8.self).contains("X-Fits: fff"), "curl sent the header")
        let huge = try tempFile(Array(repeating: UInt8(ascii: "h"), count: 60_000), name: "m.txt")
        let many = (0..<20).map { "X-H\($0):@" + huge }
        let refused = try runSwurl(["--curl", capture.base + "/x"] + many)
        XCTAssertEqual(refused.status, 64, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("libcurl sends at most 1 MiB"), refused.stderr)
    }

    func testFileBodyIsReferencedNotInlined() throws {
        let path = try tempFile(Array("from a file\n".utf8), name: "data.txt")
        let r = try roundTrip(["PUT", "{URL}/x", "@" + path])
        XCTAssertTrue(r.printed.text.contains("--data-binary @\(path)"), r.printed.text)
        XCTAssertFalse(r.printed.text.contains("from a file"), r.printed.text)
        XCTAssertEqual(r.swurl, r.curl)
    }

    func testHeadersRemovalsEmptiesAndMethodsRoundTrip() throws {
        try assertSame(["GET", "{URL}/h", "Accept:", "X-Empty;", "X-Quote:it's \"q\" $x", "X-Two:1", "X-Two:2"])
        try assertSame(["DELETE", "{URL}/d"])
        try assertSame(["HEAD", "{URL}/head"])
        try assertSame(["PATCH", "{URL}/p", "a=1"])
        try assertSame(["-f", "GET", "{URL}/g", "a=1"])
    }

    /// A user's own Accept-Encoding, and a Content-Length without a body, were left out of the
    /// command (curl sent its --compressed list, and no length): they are printed and sent.
    func testAUsersAcceptEncodingAndContentLengthAreKept() throws {
        let capture = try CaptureServer()
        let r = try roundTrip(["GET", "{URL}/ae", "Accept-Encoding:identity", "Content-Length:0"], capture: capture)
        XCTAssertEqual(r.swurl, r.curl, r.printed.text)
        XCTAssertTrue(r.printed.text.contains("--header 'Accept-Encoding: identity'"), r.printed.text)
        XCTAssertTrue(String(decoding: capture.captured, as: UTF8.self).lowercased().contains("accept-encoding: identity\r\n"),
                      String(decoding: capture.captured, as: UTF8.self))
        // swurl's own list is still curl's --compressed.
        let plain = try runSwurl(["--curl", "GET", capture.base + "/plain"])
        XCTAssertFalse(plain.text.contains("Accept-Encoding"), plain.text)
        XCTAssertTrue(plain.text.contains("--compressed"), plain.text)
    }

    func testAuthRoundTrips() throws {
        try assertSame(["-a", "ann:p@ss'word", "{URL}/basic"])
        try assertSame(["-A", "bearer", "-a", "tok en'1", "{URL}/bearer"])
        // The capture server sends no challenge, so neither sends Digest credentials.
        try assertSame(["-A", "digest", "-a", "ann:pw", "{URL}/digest"])
        let printed = try runSwurl(["--curl", "-A", "digest", "-a", "ann:pw", "http://127.0.0.1:1/"])
        XCTAssertTrue(printed.text.contains("--digest \\\n  --user ann:pw"), printed.text)
    }

    func testMultipartPartsRoundTrip() throws {
        // No part at all: a POST without a body (the command had no method and curl sent a GET).
        try assertSame(["--multipart", "POST", "{URL}/empty"])
        let path = try tempFile(Array("file body\n".utf8), name: "up load.txt")
        let r = try roundTrip(["--multipart", "{URL}/m", "a=1", "b=two words", "f@\(path);type=text/x-test;filename=n,1 (q).txt",
                               "user[name]=Ann", "o:={\"k\":[1,2]}", "n:=2", "g@\(path)"],
                              ignoring: ["content-type", "content-length"])
        XCTAssertEqual(r.swurl.line, r.curl.line)
        XCTAssertEqual(r.swurl.headers, r.curl.headers)
        XCTAssertEqual(try parts(r.swurl.body), try parts(r.curl.body), r.printed.text)
        XCTAssertEqual(try parts(r.swurl.body).count, 8)
    }

    func testQuoteAndBackslashInNamesAreSentAsSwurlSendsThem() throws {
        // swurl writes `"` in a name or filename as `%22` and `\\` as it is, as curl does (it wrote a
        // backslash before both, which curl wrote with --form-escape, and Node's parser refused).
        let path = try tempFile(Array("x".utf8), name: "a.txt")
        let r = try roundTrip(["--multipart", "{URL}/m", "f@\(path);filename=q\"x\\y.txt", "n\"a\\me=1"],
                              ignoring: ["content-type", "content-length"])
        XCTAssertEqual(r.printed.stderr, "")
        XCTAssertFalse(r.printed.text.contains("--form-escape"), r.printed.text)
        XCTAssertTrue(r.printed.text.contains("--form 'f=@\"\(path)\";type=text/plain;filename=\"q\\\"x\\\\y.txt\"'"), r.printed.text)
        XCTAssertEqual(try rawParts(r.swurl.body), try rawParts(r.curl.body), r.printed.text)
        // A last backslash goes as %5C (before the closing quote, RFC parsers read it as an
        // escaped quote and took the rest of the line into the value), by curl too.
        let last = try roundTrip(["--multipart", "{URL}/m", "f@\(path);filename=evil\\", "n\\\\=1"], ignoring: ["content-type", "content-length"])
        XCTAssertEqual(last.printed.stderr, "")
        XCTAssertTrue(String(decoding: last.swurl.body, as: UTF8.self).contains("name=\"f\"; filename=\"evil%5C\"\r\n"))
        XCTAssertTrue(String(decoding: last.swurl.body, as: UTF8.self).contains("name=\"n%5C\"\r\n"))
        XCTAssertEqual(try rawParts(last.swurl.body), try rawParts(last.curl.body), last.printed.text)
    }

    /// The parts of a multipart body, each exactly as sent (headers and content), without the
    /// boundary, which differs between swurl and curl.
    private func rawParts(_ body: [UInt8]) throws -> [String] {
        let text = String(decoding: body, as: UTF8.self)
        guard let first = text.components(separatedBy: "\r\n").first, first.hasPrefix("--") else {
            throw TestServerError("not multipart: \(text)")
        }
        return text.components(separatedBy: first).dropFirst().filter { !$0.hasPrefix("--") }
    }

    /// Hostile names, filenames, types, paths and values: each must reach the server from the
    /// printed curl command exactly as swurl sends it (curl's -F splits at `;`, `,` and the first
    /// `=`, trims blanks, reads `;headers=@FILE`, writes `"` as %22 unless told otherwise).
    func testHostileMultipartPartsRoundTrip() throws {
        let dir = TestPaths.temporaryDirectory() + "/hostile"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try Data("SECRET\n".utf8).write(to: URL(fileURLWithPath: dir + "/secret.txt"))
        let fileNames = ["secret.txt ", " secret.txt", "a;b,c.txt", "q\"x\\y.txt", "type=x.txt", "@at.txt", "<lt.txt",
                         "f;headers=@secret.txt,secret.txt", "é ü.txt", "back\\slash"]
        var paths: [String] = []
        for (i, name) in fileNames.enumerated() {
            paths.append(dir + "/" + name)
            try Data("content \(i) of \(name)\n".utf8).write(to: URL(fileURLWithPath: dir + "/" + name))
        }
        // Names as swurl's item grammar writes them (`\=`, `\@`, `\:` are escapes there).
        let names = ["a\\;b", "c,d", "q\"x", "b\\s", " lead", "trail ", "semi\\;type", "x\\@secret.txt\\;", "(paren", "é"]
        let filenames = ["a;b,c.txt", "q\"x\\y.txt", " lead.txt", "trail.txt ", "f;type=x/y", "h;headers=@secret.txt", "c,secret.txt",
                         "é.txt", "\\", "a\tb"]
        let types = ["text/plain; charset=utf-8", "x/y;q=\"a\\b\"", "application/x-t;v=1", "a/b;foo", "x/y ;z", "x/y\"q",
                     "te;xt/plain", "x/y;type=a/b", "x/y;;", "a/b; c"]
        let values = ["v;type=x/y", "x@secret.txt", "<secret.txt", "(x", "multi\nline", "a=b=c", " spaced ", "q\"\\", "é", ""]
        var items: [String] = []
        for i in 0..<max(names.count, paths.count) {
            items.append("\(names[i % names.count])@\(paths[i % paths.count]);type=\(types[i % types.count]);filename=\(filenames[i % filenames.count])")
            items.append("\(names[(i + 3) % names.count])=\(values[i % values.count])")
        }
        // Values that -F (not --form-string) would read as a file to upload or as subparts.
        items += ["at:=\"@secret.txt\"", "lt:=\"<secret.txt\"", "op:=\"(\""]
        let r = try roundTrip(["--multipart", "{URL}/m"] + items, ignoring: ["content-type", "content-length"])
        XCTAssertEqual(r.swurl.line, r.curl.line)
        XCTAssertEqual(r.swurl.headers, r.curl.headers)
        let bySwurl = try rawParts(r.swurl.body), byCurl = try rawParts(r.curl.body)
        XCTAssertEqual(bySwurl.count, 23)
        XCTAssertEqual(bySwurl, byCurl, r.printed.text)
        for (a, b) in zip(bySwurl, byCurl) where a != b { XCTFail("swurl sent\n\(a)\ncurl sent\n\(b)") }
        XCTAssertFalse(byCurl.joined().contains("SECRET"), r.printed.text)
        XCTAssertEqual(r.printed.stderr, "")
        let syntax = try runProcess("/bin/bash", ["-n", "-c", r.printed.text], check: false)
        XCTAssertEqual(syntax.status, 0, syntax.stderr)
    }

    /// Parts curl's -F cannot express are refused (64, naming the part and why), not printed
    /// as a command that sends something else.
    func testPartsCurlCannotSendAreRefused() throws {
        let path = try tempFile(Array("x".utf8), name: "file.txt")
        let cases: [(item: String, reason: String)] = [
            ("f@\(path);type=text/plain;headers=@secret.txt", "holds ';headers='"),
            ("f@\(path);type=text/plain,/etc/passwd", "holds ','"),
            ("f@\(path);type=a/b;encoder=base64", "holds ';encoder='"),
            ("f@\(path);type=a/b; FileName=x", "holds ';filename='"),
            // curl compares bytes: a combining mark after the `=` does not hide the keyword.
            ("f@\(path);type=a/b;headers=\u{301}@secret.txt", "holds ';headers='"),
            ("f@\(path);type=textplain", "must start with major/minor"),
            ("f@\(path);type=text/plain ", "starts or ends with a blank"),
            ("x\\=\\@secret.txt\\;=v", "its name holds '='"),
            ("a\\=b=c", "its name holds '='"),
            ("n\\=@\(path)", "its name holds '='"),
        ]
        for c in cases {
            let r = try runSwurl(["--curl", "--multipart", "http://127.0.0.1:1/m", c.item])
            XCTAssertEqual(r.status, 64, "\(c.item): \(r.text)")
            XCTAssertEqual(r.text, "", c.item)
            XCTAssertTrue(r.stderr.hasPrefix("swurl: error: --curl cannot write the multipart part "), r.stderr)
            XCTAssertTrue(r.stderr.contains(c.reason), "\(c.item): \(r.stderr)")
        }
        // The part is named as it was written.
        let named = try runSwurl(["--curl", "--multipart", "http://127.0.0.1:1/m", "ok=1", "f@\(path);type=a/b,c"])
        XCTAssertTrue(named.stderr.contains("part 'f@\(path);type=a/b,c'"), named.stderr)
        let field = try runSwurl(["--curl", "--multipart", "http://127.0.0.1:1/m", "a\\=b=c"])
        XCTAssertTrue(field.stderr.contains("part field 'a=b'"), field.stderr)
    }

    /// curl reads `[1-2]` and `{a,b}` in a URL as a glob: the export turns that off.
    func testBracketsAndBracesInTheURLAreNotGlobbed() throws {
        // Without --globoff curl sends /x1 and /x2, and fails on `a[0]` ("bad range").
        for target in ["/x[1-2]", "/q?a[0]=1", "/{a,b}?q={c,d}", "/p?x=%7B%7D[]"] {
            let r = try roundTrip(["{URL}\(target)"])
            XCTAssertEqual(r.swurl, r.curl, r.printed.text)
            // swurl may percent-encode some of them itself (`{}` in the path): then no glob is left.
            let url = r.printed.text.split(separator: "\n").first { $0.hasPrefix("  --url ") } ?? ""
            XCTAssertEqual(r.printed.text.contains("  --globoff \\\n"), url.contains { "[]{}".contains($0) }, r.printed.text)
            if target.hasPrefix("/x") || target.hasPrefix("/q") { XCTAssertTrue(r.printed.text.contains("--globoff"), r.printed.text) }
        }
        let plain = try runSwurl(["--curl", "http://127.0.0.1:1/x?a=1"])
        XCTAssertFalse(plain.text.contains("--globoff"), plain.text)
    }

    func testMultipartWithABoundarySendsTheSameBytes() throws {
        let path = try tempFile(Array(0...255) + Array("it's 100% \\ done\n".utf8), name: "b i'n.dat")
        let r = try roundTrip(["--multipart", "--boundary", "xyz-42", "{URL}/m", "a=1", "b=it's 100%", "f@\(path);type=application/x-t"])
        XCTAssertEqual(r.swurl, r.curl, r.printed.text)
        XCTAssertEqual(r.printed.stderr, "")
        XCTAssertTrue(r.printed.text.contains("cat -- '"), r.printed.text)
    }

    /// A field no argument can hold (a value over 100 KiB, or one with a NUL byte, read with
    /// `=@file`): the body's very bytes are piped in, as with --boundary, and curl sends the same
    /// parts (`--form-string` with it failed: "Argument list too long").
    func testAFieldNoArgumentCanHoldIsPipedIn() throws {
        let big = try tempFile(Array(repeating: UInt8(ascii: "x"), count: 200_000), name: "big.txt")
        let nul = try tempFile(Array("a\u{0}b".utf8), name: "nul.txt")
        let r = try roundTrip(["--multipart", "{URL}/m", "v=@\(big)", "n=@\(nul)", "w=small"], ignoring: ["content-type", "content-length"])
        XCTAssertEqual(r.swurl.line, r.curl.line)
        let bySwurl = try rawParts(r.swurl.body), byCurl = try rawParts(r.curl.body)
        XCTAssertEqual(bySwurl.count, 3)
        XCTAssertEqual(bySwurl, byCurl)
        XCTAssertTrue(r.printed.text.contains("--data-binary @-"), String(r.printed.text.suffix(300)))
        XCTAssertEqual(r.printed.stderr, "")
        // Fields each under the limit, over 1 MiB together: exec's limit for all arguments.
        let part = try tempFile(Array(repeating: UInt8(ascii: "y"), count: 90_000), name: "part.txt")
        let many = try roundTrip(["--multipart", "{URL}/m"] + (0..<15).map { "f\($0)=@\(part)" }, ignoring: ["content-type", "content-length"])
        XCTAssertEqual(try rawParts(many.swurl.body), try rawParts(many.curl.body))
        XCTAssertTrue(many.printed.text.contains("--data-binary @-"))
    }

    /// The parts of a multipart body: each part's lower-cased headers and content.
    private func parts(_ body: [UInt8]) throws -> [String] {
        let text = String(decoding: body, as: UTF8.self)
        guard let first = text.components(separatedBy: "\r\n").first, first.hasPrefix("--") else {
            throw TestServerError("not multipart: \(text)")
        }
        return text.components(separatedBy: first).dropFirst().compactMap { chunk -> String? in
            if chunk.hasPrefix("--") { return nil }
            let pieces = chunk.components(separatedBy: "\r\n\r\n")
            let head = (pieces.first ?? "").components(separatedBy: "\r\n").filter { !$0.isEmpty }.map { $0.lowercased() }.sorted()
            return head.joined(separator: "|") + "||" + pieces.dropFirst().joined(separator: "\r\n\r\n")
        }
    }

    func testTransferOptionsAreSpelledForCurl() throws {
        let pem = try tempFile([], name: "any.pem")
        // --cacert is checked for a certificate before anything else happens.
        let ca = try CertificateFactory.shared().path("root.pem")
        let r = try runSwurl(["--curl", "--follow", "--max-redirects", "3", "--timeout", "2.5", "--connect-timeout", "1",
                              "--http1.1", "--proxy", "http://127.0.0.1:9", "--resolve", "x.test:80:127.0.0.1",
                              "-4", "-k", "--cacert", ca, "--cert", pem,
                              "--key", pem, "http://x.test/"])
        XCTAssertEqual(r.status, 0, r.stderr)
        for expected in ["--location", "--max-redirs 3", "--connect-timeout 1", "--speed-time 3", "--http1.1",
                         "--proxy http://127.0.0.1:9", "--resolve x.test:80:127.0.0.1",
                         "--ipv4", "--insecure", "--cacert \(ca)", "--cert \(pem)", "--key \(pem)", "--compressed"] {
            XCTAssertTrue(r.text.contains("  \(expected) \\\n") || r.text.hasSuffix("  \(expected)\n"), "\(expected) in\n\(r.text)")
        }
        // A socket goes without the proxy (the two are refused together).
        let socket = try runSwurl(["--curl", "--unix-socket", "/tmp/s.sock", "http://x.test/"])
        XCTAssertEqual(socket.status, 0, socket.stderr)
        XCTAssertTrue(socket.text.contains("  --unix-socket /tmp/s.sock"), socket.text)
    }

    func testProxyRoundTrips() throws {
        // The capture server is the proxy: both must send it the same absolute-form request.
        try assertSame(["--proxy", "http://127.0.0.1:{PORT}", "http://swurl.test/via?q=1", "a=1"])
    }

    /// The printed command starts with `--disable`: curl then reads no `~/.curlrc`, whose
    /// header (or proxy, or -L) swurl never sent. A CA file named by `REQUESTS_CA_BUNDLE`,
    /// which curl does not read, is given as `--cacert` (not a file curl reads itself).
    func testTheCommandIgnoresCurlrcAndNamesHTTPiesCAFile() throws {
        let capture = try CaptureServer()
        let home = TestPaths.temporaryDirectory()
        try "header = \"X-From-Curlrc: 1\"\n".write(toFile: home + "/.curlrc", atomically: true, encoding: .utf8)
        let printed = try runSwurl(["--curl", capture.base + "/rc"])
        XCTAssertEqual(printed.status, 0, printed.stderr)
        XCTAssertTrue(printed.text.hasPrefix("curl \\\n  --disable \\\n"), printed.text)
        let script = home + "/command.sh"
        try printed.stdout.write(to: URL(fileURLWithPath: script))
        var env = ProcessInfo.processInfo.environment
        env["HOME"] = home
        let ran = try runProcess("/bin/sh", [script], environment: env, check: false)
        XCTAssertEqual(ran.status, 0, ran.stderr)
        let received = String(decoding: capture.captured, as: UTF8.self)
        XCTAssertTrue(received.hasPrefix("GET /rc "), received)
        XCTAssertFalse(received.lowercased().contains("x-from-curlrc"), received)

        let bundle = home + "/corp.pem"
        try "".write(toFile: bundle, atomically: true, encoding: .utf8)
        let named = try runSwurl(["--curl", "https://127.0.0.1:1/x"],
                                 environment: ["CURL_CA_BUNDLE": "", "SSL_CERT_FILE": "", "REQUESTS_CA_BUNDLE": bundle])
        XCTAssertTrue(named.text.contains("  --cacert " + bundle), named.text)
        let curls = try runSwurl(["--curl", "https://127.0.0.1:1/x"], environment: ["CURL_CA_BUNDLE": bundle])
        XCTAssertFalse(curls.text.contains("--cacert"), "curl reads its own variable: \(curls.text)")
        // With --cacert curl reads no SSL_CERT_DIR: it is given as --capath beside it; a file
        // that is not there (a stale variable) adds nothing to swurl's store, and is left out
        // (curl failed every https request with it).
        let withDirectory = try runSwurl(["--curl", "https://127.0.0.1:1/x"],
                                         environment: ["CURL_CA_BUNDLE": "", "SSL_CERT_FILE": "", "REQUESTS_CA_BUNDLE": bundle, "SSL_CERT_DIR": home])
        XCTAssertTrue(withDirectory.text.contains("  --cacert " + bundle) && withDirectory.text.contains("  --capath " + home), withDirectory.text)
        let stale = try runSwurl(["--curl", "https://127.0.0.1:1/x"], environment: ["CURL_CA_BUNDLE": "", "SSL_CERT_FILE": "", "REQUESTS_CA_BUNDLE": home + "/missing.pem"])
        XCTAssertFalse(stale.text.contains("--cacert"), stale.text)
        // But curl's own variable naming a missing file fails curl's every https request (77):
        // the file swurl reads is named instead.
        let curlsMissing = try runSwurl(["--curl", "https://127.0.0.1:1/x"],
                                        environment: ["CURL_CA_BUNDLE": home + "/missing.pem", "SSL_CERT_FILE": bundle, "REQUESTS_CA_BUNDLE": ""])
        XCTAssertTrue(curlsMissing.text.contains("  --cacert " + bundle), curlsMissing.text)
    }

    func testDigestAuthWorksWithCurl() throws {
        let printed = try runSwurl(["--curl", "-A", "digest", "-a", "ann:secret", try HTTPBin.url("/digest-auth/auth/ann/secret")])
        let ran = try runProcess("/bin/sh", ["-c", printed.text], check: false)
        XCTAssertEqual(ran.status, 0, ran.stderr)
        XCTAssertTrue(String(decoding: ran.stdout, as: UTF8.self).contains("\"authenticated\": true"), printed.text)
    }

    func testCacertAddIsAWarning() throws {
        let certs = try CertificateFactory.shared()
        let r = try runSwurl(["--curl", "--cacert-add", certs.path("leaf.pem"), "https://127.0.0.1:1/"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.hasPrefix("swurl: warning: curl cannot add certificates to the system store"), r.stderr)
    }

    /// What the printed command does differently is said: it writes the response to stdout, and
    /// curl keeps a body's Content-Type header on a redirect that turns the request into a GET.
    func testOutputFilesAndARedirectedContentTypeAreWarned() throws {
        let output = try runSwurl(["--curl", "-o", "out.json", "http://127.0.0.1:1/x"])
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertTrue(output.stderr.hasPrefix("swurl: warning: curl cannot save the response as -o or --download asked"), output.stderr)
        let redirected = try runSwurl(["--curl", "-F", "POST", "http://127.0.0.1:1/x", "a=1"])
        XCTAssertEqual(redirected.status, 0, redirected.stderr)
        XCTAssertTrue(redirected.stderr.contains("curl cannot drop the body's Content-Type when a redirect turns the request into a GET"), redirected.stderr)
        XCTAssertEqual(try runSwurl(["--curl", "POST", "http://127.0.0.1:1/x", "a=1"]).stderr, "")
    }

    func testResolveAndFollowWorkWithCurl() throws {
        try assertSame(["--resolve", "swurl.test:{PORT}:127.0.0.1", "--follow", "--max-redirects", "2",
                        "--timeout", "20", "--http1.1", "http://swurl.test:{PORT}/r"])
    }

    func testPinsArePinnedPubkeyAndWhatCurlCannotIsWarned() throws {
        let pin = "sha256//" + String(repeating: "A", count: 43) + "="
        let leaf = try runSwurl(["--curl", "--pin-pubkey", pin, "--pin-scope", "leaf", "https://127.0.0.1:1/"])
        XCTAssertEqual(leaf.status, 0, leaf.stderr)
        XCTAssertTrue(leaf.text.contains("--pinnedpubkey '\(pin)'") || leaf.text.contains("--pinnedpubkey \(pin)"), leaf.text)
        XCTAssertEqual(leaf.stderr, "")
        let any = try runSwurl(["--curl", "--pin-pubkey", pin, "https://127.0.0.1:1/"])
        XCTAssertTrue(any.stderr.hasPrefix("swurl: warning: curl cannot match a pin beyond the leaf"), any.stderr)
        let certs = try CertificateFactory.shared()
        let pinned = try runSwurl(["--curl", "--pin-cert", certs.path("leaf.pem"), "--no-verify-host", "https://127.0.0.1:1/"])
        XCTAssertEqual(pinned.status, 0, pinned.stderr)
        XCTAssertEqual(pinned.stderr.split(separator: "\n").map { String($0.prefix(42)) },
                       ["swurl: warning: curl cannot skip only the ", "swurl: warning: curl cannot match a pin be",
                        "swurl: warning: curl cannot pin certificat", "swurl: warning: curl cannot trust a pinned"])
        XCTAssertFalse(pinned.text.contains("leaf.pem"), pinned.text)
        // The pinned certificate goes as its key: the command never trusts more than swurl.
        let key = try certs.pin("leaf.pem")
        XCTAssertTrue(pinned.text.contains("--pinnedpubkey '\(key)'") || pinned.text.contains("--pinnedpubkey \(key)"), pinned.text)
    }

    /// Regression: `-k --pin-cert` (the way to pin a self-signed server) printed plain
    /// `curl --insecure`, which took any server; `--pin-cert` with a CA, a command trusting any
    /// certificate the CA issued. The printed command now pins the certificate's key, and curl
    /// refuses another server in the handshake as swurl does.
    func testPinnedCertificateIsPinnedByKeyInTheCommand() throws {
        let certs = try CertificateFactory.shared()
        let other = try CaptureServer(tls: (certs.path("selfsigned-chain.pem"), certs.path("selfsigned.key")))
        for args in [["-k", "--pin-cert", certs.path("leaf.pem")], ["--cacert", certs.path("root.pem"), "--pin-cert", certs.path("leaf.pem")]] {
            let url = other.base + "/pinned"
            XCTAssertNotEqual(try runSwurl(args + [url]).status, 0)
            let printed = try runSwurl(["--curl"] + args + [url])
            XCTAssertEqual(printed.status, 0, printed.stderr)
            let byCurl = try runProcess("/bin/sh", ["-c", printed.text], check: false)
            XCTAssertNotEqual(byCurl.status, 0, "\(args) \(printed.text)")
        }
        XCTAssertEqual(other.capturedAll.count, 0, String(decoding: other.capturedAll, as: UTF8.self))
        // The pinned server itself passes both.
        let (capture, _) = try tlsCapture()
        let r = try roundTrip(["--cacert", certs.path("root.pem"), "--pin-cert", certs.path("leaf.pem"), "--pin-scope", "leaf", "{URL}/ok"],
                              capture: capture)
        XCTAssertEqual(r.swurl, r.curl, r.printed.text)
    }

    /// curl presents `--cert` to every host a redirect leads to; swurl only to the first origin.
    func testClientCertificateWithFollowIsWarned() throws {
        let certs = try CertificateFactory.shared()
        let r = try runSwurl(["--curl", "--follow", "--cert", certs.path("client-chain.pem"), "--key", certs.path("client.key"),
                              "https://127.0.0.1:1/"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("curl cannot follow redirects without the client certificate"), r.stderr)
        let unfollowed = try runSwurl(["--curl", "--cert", certs.path("client-chain.pem"), "--key", certs.path("client.key"), "https://127.0.0.1:1/"])
        XCTAssertEqual(unfollowed.stderr, "")
    }

    func testSessionCookiesBecomeACookieHeaderCurlKeepsToTheirHost() throws {
        let session = TestPaths.temporaryDirectory() + "/s.json"
        try Data("""
            {"version": 1, "cookies": [
              {"domain": "127.0.0.1", "path": "/", "name": "a", "value": "1"},
              {"domain": "elsewhere.test", "path": "/", "name": "no", "value": "x"}
            ]}
            """.utf8).write(to: URL(fileURLWithPath: session))
        let r = try roundTrip(["--session-read-only", session, "{URL}/c"])
        XCTAssertEqual(r.swurl, r.curl, r.printed.text)
        XCTAssertTrue(r.curl.headers.contains("cookie:a=1"), "\(r.curl)")
        // A header, not `--cookie a=1`: curl sends a cookie string to every host a redirect leads
        // to, and drops a Cookie header there, as swurl keeps the session's cookies to their host.
        XCTAssertTrue(r.printed.text.contains("--header 'Cookie: a=1'"), r.printed.text)
        XCTAssertFalse(r.printed.text.contains("--cookie"), r.printed.text)
        let origin = try CacheOrigin()
        let other = try CaptureServer()
        let landing = other.base.replacingOccurrences(of: "127.0.0.1", with: "localhost") + "/landed"
        let start = origin.url("/go?status=302&loc=" + (landing.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? landing))
        let printed = try runSwurl(["--curl", "--session-read-only", session, "-F", start])
        XCTAssertEqual(printed.status, 0, printed.stderr)
        let ran = try runProcess("/bin/sh", ["-c", printed.text], check: false)
        XCTAssertEqual(ran.status, 0, "\(printed.text)\n\(ran.stderr)")
        XCTAssertEqual(origin.lastHeaders("/go")["Cookie"], "a=1")
        try other.sync()
        let landed = String(decoding: other.capturedAll, as: UTF8.self)
        XCTAssertTrue(landed.contains("GET /landed"), landed)
        XCTAssertFalse(landed.lowercased().contains("cookie"), landed)
    }

    func testNothingIsSent() throws {
        let capture = try CaptureServer()
        let r = try runSwurl(["--curl", "POST", "http://127.0.0.1:\(capture.server.port)/x", "a=1"])
        XCTAssertEqual(r.status, 0, r.stderr)
        try capture.sync()
        XCTAssertEqual(capture.captured.count, 0)
        XCTAssertEqual(try runSwurl(["--curl", "--offline", "http://127.0.0.1:1/"]).status, 64)
    }

    // MARK: Transports and TLS, run with curl

    func testUnixSocketRoundTrips() throws {
        // The host does not resolve: only the socket can carry the request.
        let capture = try CaptureServer(unixSocket: true)
        try assertSame(["--unix-socket", "{SOCK}", "POST", "http://swurl.test/u?q=1", "a=1"], capture: capture)
        XCTAssertEqual(String(decoding: capture.captured.prefix(16), as: UTF8.self), "POST /u?q=1 HTTP")
    }

    /// A capture server with the test PKI's leaf (root → int → leaf for 127.0.0.1).
    private func tlsCapture(_ leaf: String = "leaf", clientCA: String? = nil) throws -> (CaptureServer, CertificateFactory) {
        let certs = try CertificateFactory.shared()
        return (try CaptureServer(tls: (certs.path("\(leaf)-chain.pem"), certs.path("\(leaf).key")),
                                  clientCA: clientCA.map(certs.path)), certs)
    }

    func testCacertRoundTrips() throws {
        let (capture, certs) = try tlsCapture()
        let r = try roundTrip(["--cacert", certs.path("root.pem"), "PUT", "{URL}/tls?x=1", "a=1", "X-T:1"], capture: capture)
        XCTAssertEqual(r.swurl, r.curl, r.printed.text)
        XCTAssertEqual(r.printed.stderr, "")
        // swurl trusts only --cacert; curl would add its CA directory unless told there is none.
        XCTAssertTrue(r.printed.text.hasSuffix("  --capath /dev/null\n"), r.printed.text)
    }

    func testCiphersAndVersionsRoundTrip() throws {
        // Python's server would pick AES-256-GCM; a TLS 1.3 suite given to --ciphers must reach
        // curl's TLS 1.3 list, and a 1.2 suite its 1.2 list.
        let (capture, certs) = try tlsCapture()
        let root = certs.path("root.pem")
        let r13 = try roundTrip(["--cacert", root, "--ciphers", "ECDHE-ECDSA-AES128-GCM-SHA256:TLS_CHACHA20_POLY1305_SHA256",
                                 "{URL}/c13"], capture: capture)
        XCTAssertEqual(r13.swurl, r13.curl, r13.printed.text)
        XCTAssertEqual(r13.curl.tls, "TLSv1.3 TLS_CHACHA20_POLY1305_SHA256")
        let r12 = try roundTrip(["--cacert", root, "--tls-max", "1.2", "--ciphers", "ECDHE-ECDSA-CHACHA20-POLY1305:TLS_AES_128_GCM_SHA256",
                                 "{URL}/c12"], capture: capture)
        XCTAssertEqual(r12.swurl, r12.curl, r12.printed.text)
        XCTAssertEqual(r12.curl.tls, "TLSv1.2 ECDHE-ECDSA-CHACHA20-POLY1305")
        let min13 = try roundTrip(["--cacert", root, "--tls-min", "1.3", "{URL}/m13"], capture: capture)
        XCTAssertEqual(min13.swurl, min13.curl, min13.printed.text)
        XCTAssertTrue(min13.curl.tls.hasPrefix("TLSv1.3 "), min13.curl.tls)
    }

    func testCapathRoundTrips() throws {
        let (capture, certs) = try tlsCapture()
        let dir = TestPaths.temporaryDirectory() + "/ca dir"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: certs.path("root.pem"), toPath: dir + "/root.pem")
        try CertificateFactory.shell("openssl rehash .", in: dir)
        let r = try roundTrip(["--capath", dir, "{URL}/capath"], capture: capture)
        XCTAssertEqual(r.swurl, r.curl, r.printed.text)
        // curl keeps its CA bundle beside --capath: trusting more than swurl is said, not hidden.
        XCTAssertEqual(r.printed.stderr, "swurl: warning: curl cannot trust only the certificates in --capath; it also trusts its own CA bundle\n")
    }

    func testClientCertificateRoundTrips() throws {
        let (capture, certs) = try tlsCapture(clientCA: "root.pem")
        let r = try roundTrip(["--cacert", certs.path("root.pem"), "--cert", certs.path("client-chain.pem"),
                               "--key", certs.path("client.key"), "{URL}/mtls", "a=1"], capture: capture)
        XCTAssertEqual(r.swurl, r.curl, r.printed.text)
        XCTAssertEqual(r.curl.peer, "commonName=swurl client", capture.handshakeErrors)
        XCTAssertEqual(r.printed.stderr, "")
    }

    func testEncryptedClientKeyRoundTrips() throws {
        let (capture, certs) = try tlsCapture(clientCA: "root.pem")
        let r = try roundTrip(["--cacert", certs.path("root.pem"), "--cert", certs.path("client-chain.pem"),
                               "--key", certs.path("client-enc.key"), "--key-password", "secret", "{URL}/mtls"], capture: capture)
        XCTAssertEqual(r.swurl, r.curl, r.printed.text)
        XCTAssertEqual(r.curl.peer, "commonName=swurl client", capture.handshakeErrors)
    }

    func testClientCertificatePathWithAColonRoundTrips() throws {
        // curl reads `--cert FILE:PASSWORD`: a colon in the file name must be escaped for it.
        let (capture, certs) = try tlsCapture(clientCA: "root.pem")
        let dir = TestPaths.temporaryDirectory() + "/a:b\\c"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: certs.path("client-chain.pem"), toPath: dir + "/client:chain.pem")
        let r = try roundTrip(["--cacert", certs.path("root.pem"), "--cert", dir + "/client:chain.pem",
                               "--key", certs.path("client.key"), "{URL}/mtls"], capture: capture)
        XCTAssertEqual(r.swurl, r.curl, r.printed.text)
        XCTAssertEqual(r.curl.peer, "commonName=swurl client", capture.handshakeErrors)
    }

    func testInsecureRoundTripsWithASelfSignedServer() throws {
        let (capture, _) = try tlsCapture("selfsigned")
        try assertSame(["-k", "POST", "{URL}/k", "a=1"], capture: capture)
        // Without -k both refuse the server, so the test stands on -k.
        XCTAssertNotEqual(try runSwurl([capture.base + "/no"]).status, 0)
    }

    func testPinnedPubkeyWorksWithCurlAndAWrongPinFailsWithBoth() throws {
        let (capture, certs) = try tlsCapture()
        let right = try certs.pin("leaf.pem")
        let r = try roundTrip(["--cacert", certs.path("root.pem"), "--pin-pubkey", right, "--pin-scope", "leaf", "{URL}/pin"],
                              capture: capture)
        XCTAssertEqual(r.swurl, r.curl, r.printed.text)
        XCTAssertTrue(r.printed.text.contains("--pinnedpubkey '\(right)'") || r.printed.text.contains("--pinnedpubkey \(right)"),
                      r.printed.text)

        let wrong = try CaptureServer(tls: (certs.path("leaf-chain.pem"), certs.path("leaf.key")))
        let args = ["--cacert", certs.path("root.pem"), "--pin-pubkey", try certs.pin("leaf2.pem"), "--pin-scope", "leaf",
                    wrong.base + "/pin"]
        let bySwurl = try runSwurl(args)
        XCTAssertNotEqual(bySwurl.status, 0, bySwurl.stderr)
        let printed = try runSwurl(["--curl"] + args)
        XCTAssertEqual(printed.status, 0, printed.stderr)
        let byCurl = try runProcess("/bin/sh", ["-c", printed.text], check: false)
        // 90: CURLE_SSL_PINNEDPUBKEYNOTMATCH.
        XCTAssertEqual(byCurl.status, 90, byCurl.stderr)
        XCTAssertEqual(wrong.capturedAll.count, 0, String(decoding: wrong.capturedAll, as: UTF8.self))
    }

    func testInsecureWithAPinWarnsThatCurlSkipsTheHostCheck() throws {
        // swurl -k with a pin still checks the host name; curl --insecure cannot.
        let certs = try CertificateFactory.shared()
        let r = try runSwurl(["--curl", "-k", "--pin-pubkey", try certs.pin("leaf.pem"), "https://127.0.0.1:1/"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr.split(separator: "\n").map { String($0.prefix(47)) },
                       ["swurl: warning: curl cannot check the host name"], r.stderr)
        XCTAssertTrue(r.text.contains("--insecure"), r.text)
    }

    /// The protocol of each request nginx logged, once `count` are there (nginx writes a line
    /// after the response went out, so it may trail the client's exit by a moment).
    private func loggedProtocols(_ nginx: NginxServer, count: Int) -> [String] {
        for _ in 0..<100 where nginx.logLines().count < count { usleep(50_000) }
        return nginx.logLines().map { $0.split(separator: " ").last.map(String.init) ?? "" }
    }

    func testHTTP2RoundTripsThroughNginx() throws {
        // nginx speaks h2 (ALPN) and hands each request to the capture server, the same way for both.
        let capture = try CaptureServer()
        let certs = try CertificateFactory.shared()
        let nginx = try NginxServer(http2: true, tls: (certs.path("leaf-chain.pem"), certs.path("leaf.key")), serverConfig: """
            location / { proxy_pass http://127.0.0.1:\(capture.server.port); proxy_set_header Host $http_host; }
            """)
        try assertSame(["--http2", "--cacert", certs.path("root.pem"), "POST", "{URL}/h2?q=1", "a=1", "X-T:1"],
                       capture: capture, base: nginx.url(""))
        // curl would pick h2 by ALPN unaided; --http1.1 must reach it to keep both on 1.1.
        try assertSame(["--http1.1", "--cacert", certs.path("root.pem"), "{URL}/h1"], capture: capture, base: nginx.url(""))
        let protocols = loggedProtocols(nginx, count: 4)
        XCTAssertEqual(protocols, ["HTTP/2.0", "HTTP/2.0", "HTTP/1.1", "HTTP/1.1"], nginx.logLines().joined(separator: "\n"))
        // On plain http --http2 is an upgrade offer (Upgrade: h2c, HTTP2-Settings): the same from both.
        let upgrade = try roundTrip(["--http2", "{URL}/up"])
        XCTAssertEqual(upgrade.swurl, upgrade.curl, upgrade.printed.text)
        XCTAssertTrue(upgrade.curl.headers.contains("upgrade:h2c"), "\(upgrade.curl)")
    }

    func testHTTP2PriorKnowledgeRoundTripsThroughNginx() throws {
        let capture = try CaptureServer()
        let nginx = try NginxServer(http2: true, serverConfig: """
            location / { proxy_pass http://127.0.0.1:\(capture.server.port); proxy_set_header Host $http_host; }
            """)
        try assertSame(["--http2-prior-knowledge", "PUT", "{URL}/h2c", "a=1"], capture: capture, base: nginx.url(""))
        let protocols = loggedProtocols(nginx, count: 2)
        XCTAssertEqual(protocols, ["HTTP/2.0", "HTTP/2.0"], nginx.logLines().joined(separator: "\n"))
    }

    func testChunkedRoundTrips() throws {
        let path = try tempFile(Array(0...255) + Array("tail\n".utf8))
        for args in [["--chunked", "POST", "{URL}/c", "a=1"], ["--chunked", "PUT", "{URL}/cf", "@" + path]] {
            let r = try roundTrip(args)
            XCTAssertEqual(r.swurl, r.curl, r.printed.text)
            XCTAssertTrue(r.curl.headers.contains("transfer-encoding:chunked"), "\(r.curl)")
            XCTAssertFalse(r.curl.headers.contains { $0.hasPrefix("content-length:") }, "\(r.curl)")
            XCTAssertEqual(r.printed.stderr, "")
        }
    }

    /// A small body piped in goes with its length, from swurl and from the printed command
    /// (which asked curl for chunks, `Transfer-Encoding: chunked`, that some servers refuse).
    func testAPipedBodyGoesWithItsLengthFromTheCommandToo() throws {
        let capture = try CaptureServer()
        let body = Data("STDINBODY".utf8)
        let sent = try runSwurl(["POST", capture.base + "/s"], stdin: body)
        XCTAssertEqual(sent.status, 0, sent.stderr)
        let bySwurl = try parse(capture.captured, ignoring: ["user-agent", "accept-encoding"])
        let printed = try runSwurl(["--curl", "POST", capture.base + "/s"], stdin: body)
        XCTAssertFalse(printed.text.contains("Transfer-Encoding"), printed.text)
        try FileManager.default.removeItem(atPath: capture.capturePath)
        let script = TestPaths.temporaryDirectory() + "/command.sh"
        try printed.stdout.write(to: URL(fileURLWithPath: script))
        let ran = try runProcess("/bin/sh", [script], stdin: body, check: false)
        XCTAssertEqual(ran.status, 0, ran.stderr)
        let byCurl = try parse(capture.captured, ignoring: ["user-agent", "accept-encoding"])
        XCTAssertEqual(bySwurl, byCurl, printed.text)
        XCTAssertTrue(byCurl.headers.contains("content-length:9"), "\(byCurl)")
    }

    // MARK: Arguments that are not UTF-8

    /// Runs `swurl ARGS` and the command `swurl --curl ARGS` prints, by /bin/sh and by bash, in a
    /// directory holding the Latin-1 file `caf\xE9.txt`. ARGS is bash text (`$'\xe9'` for bytes
    /// Foundation's Process cannot pass); {URL} is the capture server. Returns what arrived from
    /// swurl, then from each shell's run, and the printed bytes.
    private func bytesRoundTrip(_ args: String, file: StaticString = #filePath, line: UInt = #line) throws
        -> (swurl: Received, curl: [Received], printed: Data, raw: [Data]) {
        let capture = try CaptureServer()
        let dir = TestPaths.temporaryDirectory()
        try Data([0x63, 0x61, 0x66, 0xE9, 0x0A, 0x00, 0xFF, 0x27]).write(to: URL(fileURLWithPath: dir + "/content"))
        try runProcess("/bin/bash", ["-c", "mv content $'caf\\xe9.txt'"], directory: dir)
        var env = ProcessInfo.processInfo.environment
        for key in ["http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy"] { env.removeValue(forKey: key) }
        env["SWURL"] = TestPaths.binary
        let real = args.replacingOccurrences(of: "{URL}", with: capture.base)
        let sent = try runProcess("/bin/bash", ["-c", "\"$SWURL\" \(real)"], directory: dir, environment: env, check: false)
        XCTAssertEqual(sent.status, 0, sent.stderr, file: file, line: line)
        let bySwurl = try parse(capture.captured, ignoring: ["user-agent", "accept-encoding"])
        let printed = try runProcess("/bin/bash", ["-c", "\"$SWURL\" --curl \(real)"], directory: dir, environment: env, check: false)
        XCTAssertEqual(printed.status, 0, printed.stderr, file: file, line: line)
        XCTAssertEqual(printed.stderr, "", file: file, line: line)
        // Neither U+FFFD nor swurl's private escape scalars (U+10FF80…) may stand for a byte.
        XCTAssertNil(printed.stdout.range(of: Data([0xEF, 0xBF, 0xBD])), file: file, line: line)
        XCTAssertNil(printed.stdout.range(of: Data([0xF4, 0x8F])), file: file, line: line)
        let script = TestPaths.temporaryDirectory() + "/printed.sh"
        try printed.stdout.write(to: URL(fileURLWithPath: script))
        var byCurl: [Received] = []
        var raw: [Data] = []
        for shell in ["/bin/sh", "/bin/bash"] {
            try FileManager.default.removeItem(atPath: capture.capturePath)
            let ran = try runProcess(shell, [script], directory: dir, check: false)
            XCTAssertEqual(ran.status, 0, "\(shell): \(ran.stderr)", file: file, line: line)
            raw.append(capture.captured)
            byCurl.append(try parse(capture.captured, ignoring: ["user-agent", "accept-encoding"]))
        }
        return (bySwurl, byCurl, printed.stdout, raw)
    }

    func testLatin1FileBodyAndURLBytesAreExported() throws {
        let r = try bytesRoundTrip("PUT $'{URL}/p\\xe9?a=\\xe9' q==$'\\xe9' @$'caf\\xe9.txt'")
        XCTAssertEqual(r.swurl.line, "PUT /p%E9?a=%E9&q=%E9 HTTP/1.1")
        XCTAssertEqual(r.swurl.body, [0x63, 0x61, 0x66, 0xE9, 0x0A, 0x00, 0xFF, 0x27])
        XCTAssertEqual(r.curl, [r.swurl, r.swurl], String(decoding: r.printed, as: UTF8.self))
        // The byte that is not UTF-8 is written so that a terminal shows it (it was printed raw).
        XCTAssertNotNil(r.printed.range(of: Data("/caf\\351.txt')\"\n".utf8)), String(decoding: r.printed, as: UTF8.self))
        XCTAssertFalse(r.printed.contains(0xE9), String(decoding: r.printed, as: UTF8.self))
    }

    /// A control character in a word (a carriage return would hide the rest of the line: the
    /// terminal showed another command than the one printed, the same in a file name) or an
    /// escape sequence is printed as `\ooo` in a `"$(printf '…')"`: never raw, and the same bytes
    /// are sent. One substitution a word: with one a byte, a text of 2,000 CRLF lines made dash
    /// overflow its stack (and bash take seconds).
    func testControlCharactersArePrintedVisibly() throws {
        let r = try bytesRoundTrip("POST {URL}/c --raw $'x\\r  --data-binary y; touch PWNED #\\e]0;TITLE\\a\\n\\n'")
        XCTAssertEqual(r.curl, [r.swurl, r.swurl], String(decoding: r.printed, as: UTF8.self))
        XCTAssertEqual(r.swurl.body.suffix(3), [0x07, 0x0A, 0x0A], "the trailing line breaks a substitution would drop")
        for control: UInt8 in [0x0D, 0x1B, 0x07] { XCTAssertFalse(r.printed.contains(control), String(decoding: r.printed, as: UTF8.self)) }
        XCTAssertNotNil(r.printed.range(of: Data("\"$(printf 'x\\015  --data-binary y; touch PWNED #\\033]0;TITLE\\007')\"'".utf8)),
                        String(decoding: r.printed, as: UTF8.self))
        let lines = try bytesRoundTrip("POST {URL}/crlf --raw \"$(for i in $(seq 2000); do printf 'line\\r\\n'; done)\"")
        XCTAssertEqual(lines.curl, [lines.swurl, lines.swurl])
        XCTAssertEqual(lines.swurl.body.count, 2000 * 6 - 1)
    }

    func testLatin1MultipartFileNamesAreExported() throws {
        let filename = Data("filename=\"caf".utf8) + Data([0xE9]) + Data(".txt\"".utf8)
        let renamed = Data("filename=\"n".utf8) + Data([0xE9, 0x27]) + Data(".bin\"".utf8)
        // curl's own boundary: the same parts, and the very file-name bytes.
        let r = try bytesRoundTrip("--multipart POST {URL}/m name=A f@$'caf\\xe9.txt' g@$'caf\\xe9.txt;filename=n\\xe9\\'.bin'")
        for (received, raw) in zip(r.curl, r.raw) {
            XCTAssertEqual(received.line, r.swurl.line)
            XCTAssertEqual(received.headers.filter { !$0.hasPrefix("content-") }, r.swurl.headers.filter { !$0.hasPrefix("content-") })
            XCTAssertEqual(try parts(received.body), try parts(r.swurl.body), String(decoding: r.printed, as: UTF8.self))
            XCTAssertNotNil(raw.range(of: filename), String(decoding: raw, as: UTF8.self))
            XCTAssertNotNil(raw.range(of: renamed), String(decoding: raw, as: UTF8.self))
        }
        // With --boundary: the same bytes, the file read by `cat`.
        let exact = try bytesRoundTrip("--multipart --boundary b-1 POST {URL}/m name=A f@$'caf\\xe9.txt;filename=n\\xe9\\'.bin'")
        XCTAssertEqual(exact.curl, [exact.swurl, exact.swurl], String(decoding: exact.printed, as: UTF8.self))
        XCTAssertNotNil(exact.swurl.body.firstRange(of: Array(renamed)))
    }

    /// `-a USER` without a password prints `--user USER` and asks nothing (curl asks when the
    /// command runs): a typed password, or one a REPL remembered, was printed in clear. An empty
    /// file part needs no warning (curl sends it the same); a part read from /proc does.
    func testATypedPasswordIsNeverPrinted() throws {
        let url = try HTTPBin.url("/get")
        let r = try runSwurl(["--curl", "-a", "bob", url])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.text.contains("--user bob \\") || r.text.contains("--user bob\n"), r.text)
        let given = try runSwurl(["--curl", "-a", "bob:pw", url])
        XCTAssertTrue(given.text.contains("--user bob:pw"), given.text)
        let dir = TestPaths.temporaryDirectory()
        FileManager.default.createFile(atPath: dir + "/empty", contents: Data())
        let empty = try runSwurl(["--curl", "--multipart", "POST", url, "f@empty"], directory: dir)
        XCTAssertFalse(empty.stderr.contains("curl cannot send the part"), empty.stderr)
        let proc = try runSwurl(["--curl", "--multipart", "POST", url, "f@/proc/sys/kernel/ostype"])
        XCTAssertTrue(proc.stderr.contains("curl cannot send the part 'f' whole"), proc.stderr)
    }

    /// What swurl judges in a response and curl cannot is a warning, not silence (the printed
    /// command exited 0 where swurl exits 3, 4, 5 or 8); Digest auth turns curl's cookie engine
    /// on, as swurl's keeps the challenge's cookies for the second request; a Cookie item with
    /// -F warns of curl's second Cookie header.
    func testVerdictsCurlCannotGiveAreWarnedAndDigestKeepsCookies() throws {
        let url = try HTTPBin.url("/status/200")
        let verdicts = try runSwurl(["--curl", "--accept-status", "404", "--accept-type", "text/html", "--decode", "json", url])
        XCTAssertEqual(verdicts.status, 0, verdicts.stderr)
        for option in ["--accept-status", "--accept-type", "--decode json"] {
            XCTAssertTrue(verdicts.stderr.contains("swurl: warning: curl cannot exit") && verdicts.stderr.contains(option), "\(option): \(verdicts.stderr)")
        }
        let digest = try runSwurl(["--curl", "-A", "digest", "-a", "ann:pw", try HTTPBin.url("/digest-auth/auth/ann/pw")])
        XCTAssertTrue(digest.text.contains("--cookie ''"), digest.text)
        let ran = try runProcess("/bin/sh", ["-c", digest.text.trimmingCharacters(in: .whitespacesAndNewlines) + " -s -o /dev/null -w '%{http_code}'"], check: false)
        XCTAssertEqual(String(decoding: ran.stdout, as: UTF8.self), "200")
        let cookie = try runSwurl(["--curl", "-F", url, "Cookie:pre=1"])
        XCTAssertTrue(cookie.stderr.contains("send one Cookie header after a redirect: curl sends the Cookie item as a fixed header"), cookie.stderr)
        // A session's cookies are a fixed header too: warned with -F and with Digest, not without.
        let session = TestPaths.temporaryDirectory() + "/s.json"
        try Data(#"{"version": 1, "cookies": [{"domain": "127.0.0.1", "includeSubdomains": false, "path": "/", "secure": false, "httpOnly": false, "expires": 0, "name": "sid", "value": "S"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: session))
        let stored = try runSwurl(["--curl", "-F", "--session-read-only", session, url])
        XCTAssertTrue(stored.text.contains("Cookie: sid=S"), stored.text)
        XCTAssertTrue(stored.stderr.contains("send one Cookie header after a redirect: curl sends the stored cookies as a fixed header"), stored.stderr)
        let storedDigest = try runSwurl(["--curl", "-A", "digest", "-a", "ann:pw", "--session-read-only", session, url])
        XCTAssertTrue(storedDigest.stderr.contains("send one Cookie header after the Digest challenge"), storedDigest.stderr)
        let plain = try runSwurl(["--curl", "--session-read-only", session, url])
        XCTAssertFalse(plain.stderr.contains("Cookie header"), plain.stderr)
    }

    /// Redirects as swurl follows them: cookies set along the way go with the next hops, a PUT
    /// keeps its body at a 302 (with a warning that curl keeps PUT at a 303), and an https
    /// request under a TLS policy is never followed to plain http.
    func testRedirectsFollowSwurlsRules() throws {
        let cookies = try runSwurl(["--curl", "-F", try HTTPBin.url("/cookies/set?a=b")])
        XCTAssertTrue(cookies.text.contains("--cookie ''"), cookies.text)
        let gotCookies = try runProcess("/bin/sh", ["-c", cookies.text + " -s"], check: false)
        XCTAssertTrue(String(decoding: gotCookies.stdout, as: UTF8.self).contains("\"a\": \"b\""),
                      String(decoding: gotCookies.stdout, as: UTF8.self))

        let delete = try runSwurl(["--curl", "-F", "DELETE", try HTTPBin.url("/redirect-to?url=/anything&status_code=303")])
        XCTAssertTrue(delete.stderr.contains("turn DELETE into a GET at a 303 redirect"), delete.stderr)
        let put = try runSwurl(["--curl", "-F", "PUT", try HTTPBin.url("/redirect-to?url=/anything&status_code=302"), "a=b"])
        XCTAssertTrue(put.stderr.contains("at a 303 redirect"), put.stderr)
        let sent = try runProcess("/bin/sh", ["-c", put.text + " -s"], check: false)
        let echoed = try XCTUnwrap(try JSONSerialization.jsonObject(with: sent.stdout) as? [String: Any])
        XCTAssertEqual(echoed["method"] as? String, "PUT")
        XCTAssertEqual(echoed["data"] as? String, "{\"a\":\"b\"}")

        let pki = try CertificateFactory.shared()
        let plain = try CaptureServer()
        let nginx = try NginxServer(tls: (pki.path("leaf-chain.pem"), pki.path("leaf.key")), serverConfig: """
            location = /away { return 302 \(plain.base)/plain; }
            """)
        let secure = try runSwurl(["--curl", "-F", "--cacert", pki.path("root.pem"), nginx.url("/away"), "X-Key:secret"])
        XCTAssertTrue(secure.text.contains("--proto-redir =https"), secure.text)
        let ran = try runProcess("/bin/sh", ["-c", secure.text + " -s"], check: false)
        XCTAssertNotEqual(ran.status, 0, "curl must refuse the redirect to plain http")
        XCTAssertTrue(nginx.logLines().contains { $0.contains("/away") }, "curl reached the redirect: \(nginx.logLines())")
        try plain.sync()
        XCTAssertFalse(String(decoding: plain.capturedAll, as: UTF8.self).contains("/plain"), "nothing went out in clear")
    }

    /// Regression: swurl follows only to http and https; the printed command of an http request
    /// (or an https one with -k) followed a redirect to ftp:// (curl 7.88 does by default),
    /// connecting where swurl never would.
    func testTheCommandFollowsOnlyToHTTPAndHTTPSAsSwurlDoes() throws {
        let listener = try CaptureServer()
        let port = URLComponents(string: listener.base)?.port ?? 0
        let away = SequenceServer.Reply("302 Found", ["Location: ftp://127.0.0.1:\(port)/x", "Content-Length: 0"])
        let server = try SequenceServer([away, away])
        XCTAssertEqual(try runSwurl(["-F", server.url("/away")]).status, 1)
        let printed = try runSwurl(["--curl", "-F", server.url("/away")])
        XCTAssertTrue(printed.text.contains("--proto-redir '=http,https'") || printed.text.contains("--proto-redir =http,https"), printed.text)
        // 1: the protocol is refused; it waited for an FTP greeting (28) before.
        let ran = try runProcess("/bin/sh", ["-c", printed.text.trimmingCharacters(in: .newlines) + " -sS --max-time 10"], check: false)
        XCTAssertEqual(ran.status, 1, ran.stderr)
    }

    /// A POST without a body sends Content-Length: 0 from both (servers may answer 411 without
    /// it); a Proxy-Authorization item is a --proxy-header, never sent on to a redirect's host.
    func testABodylessPostAndProxyAuthorizationAreExportedAsSwurlSendsThem() throws {
        let r = try roundTrip(["POST", "{URL}/empty"])
        XCTAssertEqual(r.swurl, r.curl, r.printed.text)
        XCTAssertTrue(r.curl.headers.contains("content-length:0"), "\(r.curl)")
        // Regression: a PUT or PATCH without a body went without a length (HTTPie sends one; nginx's
        // WebDAV PUT answered 500). A DELETE goes without, as curl's and browsers' do.
        for method in ["PUT", "PATCH", "DELETE"] {
            let m = try roundTrip([method, "{URL}/empty"])
            XCTAssertEqual(m.swurl, m.curl, m.printed.text)
            XCTAssertEqual(m.swurl.headers.contains("content-length:0"), method != "DELETE", "\(method): \(m.swurl)")
            XCTAssertFalse(m.swurl.headers.contains { $0.hasPrefix("content-type:") }, "\(method): \(m.swurl)")
            let offline = try runSwurl(["--offline", method, "http://127.0.0.1:9/empty"])
            XCTAssertEqual(offline.text.contains("Content-Length: 0"), method != "DELETE", offline.text)
            // At a 301 or 302 swurl keeps the method and the empty body's length; curl keeps them
            // only with --post301/--post302.
            let followed = try runSwurl(["--curl", "--follow", method, "http://127.0.0.1:9/empty"])
            XCTAssertEqual(followed.text.contains("--post301") && followed.text.contains("--post302"), method != "DELETE", followed.text)
        }
        let proxied = try runSwurl(["--curl", "-F", "--proxy", "http://127.0.0.1:9", "http://127.0.0.1:9/x", "Proxy-Authorization:zz"])
        XCTAssertTrue(proxied.text.contains("--proxy-header 'Proxy-Authorization: zz'"), proxied.text)
        XCTAssertFalse(proxied.text.contains("--header 'Proxy-Authorization"), proxied.text)
    }
}
