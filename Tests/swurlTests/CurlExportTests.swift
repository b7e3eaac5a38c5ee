import XCTest
import Foundation
import SwurlTestSupport

/// `--curl` round trips: swurl sends a request to a capture server, then the printed curl
/// command (run by the real curl through /bin/sh) sends its own; the server must have received
/// the same method, target, headers (User-Agent and Accept-Encoding aside) and body.
final class CurlExportTests: XCTestCase {
    /// One request as received: request line, headers (lower-cased names, sorted), body.
    struct Received: Equatable, CustomStringConvertible {
        var line: String
        var headers: [String]
        var body: [UInt8]
        var description: String { "\(line)\n\(headers.joined(separator: "\n"))\n\n\(String(decoding: body, as: UTF8.self))" }
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
        return Received(line: lines.first ?? "", headers: headers, body: Array(bytes[(end + 4)...]))
    }

    /// Runs swurl with `args` ({URL} is the capture server), then the printed curl command.
    @discardableResult
    private func roundTrip(_ args: [String], ignoring: Set<String> = [], environment: [String: String] = [:],
                           file: StaticString = #filePath, line: UInt = #line) throws -> (swurl: Received, curl: Received, printed: SwurlResult) {
        let capture = try CaptureServer()
        let base = "http://127.0.0.1:\(capture.server.port)"
        let real = args.map {
            $0.replacingOccurrences(of: "{URL}", with: base).replacingOccurrences(of: "{PORT}", with: String(capture.server.port))
        }
        let sent = try runSwurl(real, environment: environment)
        XCTAssertEqual(sent.status, 0, sent.stderr, file: file, line: line)
        let skip = ignoring.union(["user-agent", "accept-encoding"])
        let bySwurl = try parse(capture.captured, ignoring: skip)
        let printed = try runSwurl(["--curl"] + real, environment: environment)
        XCTAssertEqual(printed.status, 0, printed.stderr, file: file, line: line)
        let ran = try runProcess("/bin/sh", ["-c", printed.text], check: false)
        XCTAssertEqual(ran.status, 0, "\(printed.text)\n\(ran.stderr)", file: file, line: line)
        let byCurl = try parse(capture.captured, ignoring: skip)
        return (bySwurl, byCurl, printed)
    }

    private func assertSame(_ args: [String], ignoring: Set<String> = [], environment: [String: String] = [:],
                            file: StaticString = #filePath, line: UInt = #line) throws {
        let r = try roundTrip(args, ignoring: ignoring, environment: environment, file: file, line: line)
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

    func testAuthRoundTrips() throws {
        try assertSame(["-a", "ann:p@ss'word", "{URL}/basic"])
        try assertSame(["-A", "bearer", "-a", "tok en'1", "{URL}/bearer"])
        // The capture server sends no challenge, so neither sends Digest credentials.
        try assertSame(["-A", "digest", "-a", "ann:pw", "{URL}/digest"])
        let printed = try runSwurl(["--curl", "-A", "digest", "-a", "ann:pw", "http://127.0.0.1:1/"])
        XCTAssertTrue(printed.text.contains("--digest \\\n  --user ann:pw"), printed.text)
    }

    func testMultipartPartsRoundTrip() throws {
        let path = try tempFile(Array("file body\n".utf8), name: "up load.txt")
        let r = try roundTrip(["--multipart", "{URL}/m", "a=1", "b=two words", "f@\(path);type=text/x-test;filename=n,1 (q).txt",
                               "user[name]=Ann", "o:={\"k\":[1,2]}", "n:=2", "g@\(path)"],
                              ignoring: ["content-type", "content-length"])
        XCTAssertEqual(r.swurl.line, r.curl.line)
        XCTAssertEqual(r.swurl.headers, r.curl.headers)
        XCTAssertEqual(try parts(r.swurl.body), try parts(r.curl.body), r.printed.text)
        XCTAssertEqual(try parts(r.swurl.body).count, 8)
    }

    func testQuoteInAFilenameIsAWarning() throws {
        let path = try tempFile(Array("x".utf8), name: "a.txt")
        let r = try runSwurl(["--curl", "--multipart", "http://127.0.0.1:1/", "f@\(path);filename=q\"x.txt"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.hasPrefix("swurl: warning: curl cannot write a \" or \\ in a part's filename"), r.stderr)
        XCTAssertTrue(r.text.contains("--form 'f=@\(path);type=text/plain;filename=\"q\\\"x.txt\"'"), r.text)
    }

    func testMultipartWithABoundarySendsTheSameBytes() throws {
        let path = try tempFile(Array(0...255) + Array("it's 100% \\ done\n".utf8), name: "b i'n.dat")
        let r = try roundTrip(["--multipart", "--boundary", "xyz-42", "{URL}/m", "a=1", "b=it's 100%", "f@\(path);type=application/x-t"])
        XCTAssertEqual(r.swurl, r.curl, r.printed.text)
        XCTAssertEqual(r.printed.stderr, "")
        XCTAssertTrue(r.printed.text.contains("cat '"), r.printed.text)
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
        let r = try runSwurl(["--curl", "--follow", "--max-redirects", "3", "--timeout", "2.5", "--connect-timeout", "1",
                              "--http1.1", "--proxy", "http://127.0.0.1:9", "--resolve", "x.test:80:127.0.0.1",
                              "--unix-socket", "/tmp/s.sock", "-4", "-k", "--cacert", pem, "--cert", pem,
                              "--key", pem, "http://x.test/"])
        XCTAssertEqual(r.status, 0, r.stderr)
        for expected in ["--location", "--max-redirs 3", "--connect-timeout 1", "--speed-time 3", "--http1.1",
                         "--proxy http://127.0.0.1:9", "--resolve x.test:80:127.0.0.1", "--unix-socket /tmp/s.sock",
                         "--ipv4", "--insecure", "--cacert \(pem)", "--cert \(pem)", "--key \(pem)", "--compressed"] {
            XCTAssertTrue(r.text.contains("  \(expected) \\\n") || r.text.hasSuffix("  \(expected)\n"), "\(expected) in\n\(r.text)")
        }
    }

    func testProxyRoundTrips() throws {
        // The capture server is the proxy: both must send it the same absolute-form request.
        try assertSame(["--proxy", "http://127.0.0.1:{PORT}", "http://swurl.test/via?q=1", "a=1"])
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
                       ["swurl: warning: curl cannot skip only the ", "swurl: warning: curl cannot pin certificat"])
        XCTAssertFalse(pinned.text.contains("leaf.pem"), pinned.text)
    }

    func testSessionCookiesBecomeCookieOption() throws {
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
    }

    func testNothingIsSent() throws {
        let capture = try CaptureServer()
        let r = try runSwurl(["--curl", "POST", "http://127.0.0.1:\(capture.server.port)/x", "a=1"])
        XCTAssertEqual(r.status, 0, r.stderr)
        Thread.sleep(forTimeInterval: 0.7)
        XCTAssertEqual(capture.captured.count, 0)
        XCTAssertEqual(try runSwurl(["--curl", "--offline", "http://127.0.0.1:1/"]).status, 64)
    }
}
