import XCTest
import Foundation
import SwurlTestSupport

/// A batch's defaults and its lines, held to the one-shot request: a line's option replaces the
/// defaults it excludes (as in the REPL and the config file), the batch takes the routing
/// options every line shares (`--proxy`, `--resolve`), a config default the batch cannot honour
/// is refused rather than dropped, and one line's trust never reaches another line.
final class BatchDefaultsAndTrustTests: XCTestCase {
    private func input(_ lines: [String]) throws -> String {
        let path = TestPaths.temporaryDirectory() + "/batch.txt"
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private func byLine(_ r: SwurlResult) throws -> [Int: [String: Any]] {
        var map: [Int: [String: Any]] = [:]
        for line in r.text.split(separator: "\n") {
            guard let o = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], let n = o["line"] as? Int else {
                throw TestServerError("not a result: \(line)")
            }
            map[n] = o
        }
        return map
    }

    /// A certificate one line pins (or adds with --cacert-add) is that line's trust only: libcurl
    /// would otherwise keep one certificate store for every connection of the batch, into which
    /// the line's handshake had added it, and later lines to any host accepted that certificate.
    func testALinesPinnedOrAddedCertificateIsNotTrustedByLaterLines() throws {
        let pki = try CertificateFactory.shared()
        let nginx = try NginxServer(tls: (pki.path("selfsigned.pem"), pki.path("selfsigned.key")))
        let path = try input([
            nginx.url("/small.txt?n=1") + " --pin-cert " + pki.path("selfsigned.pem"),
            nginx.url("/small.txt?n=2"),
            nginx.url("/small.txt?n=3") + " --cacert-add " + pki.path("selfsigned.pem"),
            nginx.url("/small.txt?n=4"),
        ])
        for parallel in ["1", "16"] {
            let before = nginx.logLines().count
            let r = try runSwurl(["batch", path, "--jsonl", "--parallel", parallel])
            let results = try byLine(r)
            for (line, exit) in [(1, 0), (2, 7), (3, 0), (4, 7)] {
                XCTAssertEqual(results[line]?["exit"] as? Int, exit, "--parallel \(parallel) line \(line): \(results[line] ?? [:])")
            }
            let served = nginx.logLines().dropFirst(before)
            XCTAssertFalse(served.contains { $0.contains("n=2") || $0.contains("n=4") }, "\(served)")
        }
    }

    /// A line's pin failure gave only its message: the pins the server presented, which the
    /// one-shot request's hint lists, were nowhere in the results. `--jsonl` has them as `hint`,
    /// the JUnit failure's text too; a line that passed has no `hint`.
    func testALinesPinFailureListsThePresentedAndPinnedPins() throws {
        let pki = try CertificateFactory.shared()
        let nginx = try NginxServer(tls: (pki.path("selfsigned.pem"), pki.path("selfsigned.key")))
        let presented = try pki.pin("selfsigned.pem"), wrong = try pki.pin("leaf.pem")
        let path = try input([
            nginx.url("/small.txt?n=1") + " -k --pin-pubkey " + wrong,
            nginx.url("/small.txt?n=2") + " -k --pin-pubkey " + presented,
        ])
        let junit = TestPaths.temporaryDirectory() + "/pins.xml"
        let r = try runSwurl(["batch", path, "--jsonl", "--junit", junit])
        let results = try byLine(r)
        XCTAssertEqual(results[1]?["exit"] as? Int, 7, r.text)
        let hint = results[1]?["hint"] as? String ?? ""
        XCTAssertTrue(hint.contains(presented), hint)
        XCTAssertTrue(hint.contains("pinned: \(wrong)"), hint)
        XCTAssertFalse(hint.contains("swurl: hint:"), hint)
        XCTAssertEqual(results[2]?["exit"] as? Int, 0, r.text)
        XCTAssertNil(results[2]?["hint"], r.text)
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        XCTAssertTrue(xml.contains("pinned: \(wrong)"), xml)
        XCTAssertFalse(nginx.logLines().contains { $0.contains("n=1") }, "the pinned-out line sent nothing")
    }

    /// The hint's certificate names are the server's: a bidirectional control in one went into
    /// the JUnit failure's text as it was (`--jsonl` escapes it as JSON does): shown as `\u{202e}`.
    /// So is the HAR entry's `_error` when the message quotes the certificate's subject (a host
    /// check's): it kept the control, which turns the rest of the text around in a HAR viewer.
    func testAHostileCertificateNameInALinesHintIsShownEscaped() throws {
        let dir = TestPaths.temporaryDirectory()
        let odd = dir + "/bidi"
        _ = try runProcess("/usr/bin/openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-utf8",
                                                "-keyout", odd + ".key", "-out", odd + ".pem", "-days", "2", "-subj", "/CN=evil\u{202E}moc.knab",
                                                "-addext", "subjectAltName=IP:127.0.0.1"])
        let server = try TLSTestServer(chain: odd + ".pem", key: odd + ".key")
        let path = try input([server.url + "/x -k --pin-pubkey sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
                              "https://localhost:\(server.port)/y --cacert \(odd).pem"])
        let junit = dir + "/j.xml"
        let har = dir + "/h.har"
        let r = try runSwurl(["batch", path, "--jsonl", "--junit", junit, "--har", har])
        XCTAssertEqual(try byLine(r)[1]?["exit"] as? Int, 7, r.text)
        XCTAssertEqual(try byLine(r)[2]?["exit"] as? Int, 7, r.text)
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        XCTAssertFalse(xml.contains("\u{202E}"), xml)
        XCTAssertTrue(xml.contains("evil\\u{202e}moc.knab"), xml)
        let document = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: har))) as? [String: Any]
        let entries = (document?["log"] as? [String: Any])?["entries"] as? [[String: Any]] ?? []
        let errors = entries.compactMap { $0["_error"] as? String }
        XCTAssertEqual(errors.count, 2, "\(entries)")
        XCTAssertTrue(errors.contains { $0.contains("(CN=evil\\u{202e}moc.knab) does not match the host name 'localhost'") }, "\(errors)")
        XCTAssertFalse(errors.contains { $0.contains("\u{202E}") }, "\(errors)")
    }

    /// A line that drops one of the batch's TLS options (`--no-pin-pubkey`, `--no-cacert-add`) has
    /// a policy of its own too: it shared the batch's connections, so a pinned line's request
    /// (its body and token) went over the connection the unpinned line opened, and a line that
    /// dropped the added certificate was served over the connection that certificate let in.
    func testALineDroppingABatchTLSOptionGetsAConnectionOfItsOwn() throws {
        let pki = try CertificateFactory.shared()
        let nginx = try NginxServer(tls: (pki.path("selfsigned.pem"), pki.path("selfsigned.key")))
        let otherKey = try pki.pin("leaf.pem")
        let pinned = try input([
            nginx.url("/small.txt?n=1") + " --no-pin-pubkey",
            nginx.url("/small.txt?n=2"),
        ])
        let added = try input([
            nginx.url("/small.txt?n=3"),
            nginx.url("/small.txt?n=4") + " --no-cacert-add",
        ])
        for (path, options, refused) in [(pinned, ["-k", "--no-verify-host", "--pin-pubkey", otherKey], "n=2"),
                                         (added, ["--cacert-add", pki.path("selfsigned.pem")], "n=4")] {
            for parallel in ["1", "16"] {
                let before = nginx.logLines().count
                let r = try runSwurl(["batch", path, "--jsonl", "--parallel", parallel] + options)
                let results = try byLine(r)
                XCTAssertEqual(results.values.compactMap { $0["exit"] as? Int }.sorted(), [0, 7], "\(options) --parallel \(parallel): \(r.text)")
                let served = nginx.logLines().dropFirst(before)
                XCTAssertFalse(served.contains { $0.contains(refused) }, "\(options) --parallel \(parallel): \(served)")
            }
        }
    }

    /// A line with TLS options of its own keeps its connection from the other lines: on a
    /// connection of its own (HTTP/1.1, closed after it) it still sat in the batch's connection
    /// cache, and libcurl 7.88 sent a later line that asked for HTTP/2 over it while it ran, once
    /// the host's HTTP/2 connection was gone (nginx closes it after two requests here): that
    /// line's pins and CA were never checked. (The lines come 0.5 s apart so that the later ones
    /// start while the slow one runs.)
    /// The same for a line with an HTTP version of its own (`--http1.1`): its connection served a
    /// later line over HTTP/1.1.
    func testALineWithTLSOptionsOfItsOwnServesNoOtherLine() throws {
        let pki = try CertificateFactory.shared()
        for own in ["--cacert-add " + pki.path("selfsigned.pem"), "--http1.1"] {
            try checkNoOtherLineUsesTheConnectionOf(own, pki: pki)
        }
    }

    private func checkNoOtherLineUsesTheConnectionOf(_ own: String, pki: CertificateFactory) throws {
        let nginx = try NginxServer(http2: true, tls: (pki.path("leaf-chain.pem"), pki.path("leaf.key")),
                                    serverConfig: "keepalive_requests 2; location = /big { limit_rate 200k; }")
        try Data(repeating: 0x61, count: 500_000).write(to: URL(fileURLWithPath: nginx.root + "/big"))
        let lines = [nginx.url("/small.txt?n=1"), nginx.url("/big") + " " + own,
                     nginx.url("/small.txt?n=3"), nginx.url("/small.txt?n=4"), nginx.url("/small.txt?n=5")]
        let feed = lines.map { "echo '\($0)'" }.joined(separator: "; sleep 0.5; ")
        let r = try runProcess("/bin/sh", ["-c", "(\(feed)) | \"$0\" batch - --cacert \"$1\" --parallel 4 --jsonl -q",
                                           TestPaths.binary, pki.path("root.pem")], check: false)
        XCTAssertEqual(r.status, 0, r.stderr)
        let log = nginx.logLines()
        let connection = { (uri: String) in log.first { $0.contains("\"\(uri)\"") }?.split(separator: " ").first.map(String.init) }
        let big = try XCTUnwrap(connection("/big"), "\(log)")
        for n in 1...5 where n != 2 {
            XCTAssertNotEqual(connection("/small.txt?n=\(n)"), big, "line \(n) went over the \(own) line's connection: \(log)")
        }
    }

    /// Lines with TLS options libcurl compares itself before reusing a connection (`-k`,
    /// `--cacert`) keep the batch's cookie jar: a login line's cookie goes with the next line.
    func testLinesWithTLSOptionsLibcurlComparesShareTheJar() throws {
        let pki = try CertificateFactory.shared()
        let nginx = try NginxServer(tls: (pki.path("leaf-chain.pem"), pki.path("leaf.key")),
                                    serverConfig: "location = /login { add_header Set-Cookie \"sid=s1; Path=/\"; return 200 in; } location = /me { return 200 \"$http_cookie\"; }")
        let dir = TestPaths.temporaryDirectory()
        let path = try input([nginx.url("/login") + " --cacert " + pki.path("root.pem"), nginx.url("/me") + " -k"])
        let r = try runSwurl(["batch", path, "--parallel", "1", "--output-dir", dir, "--jsonl"])
        XCTAssertEqual(try byLine(r).values.compactMap { $0["exit"] as? Int }, [0, 0], r.text + r.stderr)
        XCTAssertEqual(try String(contentsOfFile: dir + "/2.body", encoding: .utf8), "sid=s1")
    }

    /// A line's `Proxy-Authorization` item goes on the CONNECT that opens its tunnel; libcurl
    /// compares a proxy URL's credentials before reusing a connection, not a header's, so the
    /// next line, without the item, went through that tunnel authorized as the first. Each opens
    /// its own tunnel now.
    func testALinesProxyAuthorizationTunnelServesNoOtherLine() throws {
        let pki = try CertificateFactory.shared()
        let nginx = try NginxServer(tls: (pki.path("leaf-chain.pem"), pki.path("leaf.key")))
        let (proxy, log) = try ServerProcess.connectProxy()
        defer { proxy.stop() }
        let path = try input([nginx.url("/small.txt?n=1") + " 'Proxy-Authorization:Basic cDpw'", nginx.url("/small.txt?n=2")])
        let r = try runSwurl(["batch", path, "--proxy", "http://127.0.0.1:\(proxy.port)", "--cacert", pki.path("root.pem"), "--parallel", "1", "--jsonl"])
        XCTAssertEqual(r.status, 0, r.text + r.stderr)
        let heads = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").components(separatedBy: "\r\n\r\n").filter { $0.hasPrefix("CONNECT ") }
        XCTAssertEqual(heads.count, 2, "\(heads)")
        XCTAssertEqual(heads.filter { $0.contains("Proxy-Authorization: Basic cDpw") }.count, 1, "\(heads)")
    }

    /// A line's own HTTP version has a connection of its own: libcurl 7.88 sends a request that
    /// asks for HTTP/2 over an idle HTTP/1.1 connection, so a `--http1.1` line's connection
    /// served the next line (HTTP/1.1 where it asked for HTTP/2), and a line's `--http2` under
    /// a batch `--http1.1` got the batch's HTTP/1.1 connection.
    func testALinesOwnHTTPVersionIsWhatItGets() throws {
        let pki = try CertificateFactory.shared()
        let nginx = try NginxServer(http2: true, tls: (pki.path("leaf-chain.pem"), pki.path("leaf.key")))
        let path = try input([nginx.url("/small.txt?n=1") + " --http1.1", nginx.url("/small.txt?n=2") + " --http2", nginx.url("/small.txt?n=3")])
        let r = try runSwurl(["batch", path, "--cacert", pki.path("root.pem"), "--parallel", "1", "--jsonl"])
        let results = try byLine(r)
        XCTAssertEqual([1, 2, 3].map { results[$0]?["http_version"] as? String }, ["1.1", "2", "2"], r.text)
        let old = try runSwurl(["batch", path, "--http1.1", "--cacert", pki.path("root.pem"), "--parallel", "1", "--jsonl"])
        XCTAssertEqual([1, 2, 3].map { try? byLine(old)[$0]?["http_version"] as? String }, ["1.1", "2", "1.1"], old.text)
    }

    /// `--proxy` and `--unix-socket` exclude each other as defaults and a line's choice: a line's
    /// `--unix-socket` under a batch `--proxy` was refused ("cannot be combined"), where alone
    /// it runs.
    func testALinesUnixSocketReplacesTheBatchsProxy() throws {
        let capture = try CaptureServer(unixSocket: true)
        let socket = try XCTUnwrap(capture.unixSocket)
        let path = try input(["http://localhost/over-socket --unix-socket " + socket])
        let r = try runSwurl(["batch", path, "--proxy", "http://127.0.0.1:9", "--jsonl"])
        // (Answered: the proxy's port 9 answers nothing.)
        XCTAssertEqual(try byLine(r)[1]?["exit"] as? Int, 0, r.text)
        XCTAssertEqual(try byLine(r)[1]?["status"] as? Int, 200, r.text)
    }

    /// A line's --json replaces a batch --form (a clash before), as a REPL line's does.
    func testALinesOptionReplacesTheBatchDefaultItExcludes() throws {
        let capture = try CaptureServer()
        let path = try input([capture.base + "/json a=b --json", capture.base + "/form a=b"])
        let r = try runSwurl(["batch", path, "--jsonl", "--form", "--parallel", "1"])
        XCTAssertEqual(r.status, 0, r.text + r.stderr)
        try capture.sync()
        let all = String(decoding: capture.capturedAll, as: UTF8.self)
        let json = try XCTUnwrap(all.range(of: "POST /json")), form = try XCTUnwrap(all.range(of: "POST /form"))
        let first = String(all[json.lowerBound..<(json.lowerBound < form.lowerBound ? form.lowerBound : all.endIndex)])
        XCTAssertTrue(first.contains("Content-Type: application/json") && first.contains("{\"a\":\"b\"}"), first)
        XCTAssertTrue(all.contains("application/x-www-form-urlencoded") && all.contains("\r\n\r\na=b"), all)
        // --raw goes with any format: a line's --json keeps the batch's --raw body.
        let raw = try CaptureServer()
        let rawLines = try input([raw.base + "/raw --json"])
        let sent = try runSwurl(["batch", rawLines, "--jsonl", "--raw", "{\"a\":1}"])
        XCTAssertEqual(sent.status, 0, sent.text + sent.stderr)
        try raw.sync()
        let got = String(decoding: raw.capturedAll, as: UTF8.self)
        XCTAssertTrue(got.contains("Content-Type: application/json") && got.contains("\r\n\r\n{\"a\":1}"), got)
    }

    /// A line's own -a is not of the batch's -a's type, as a REPL line's is not: under
    /// `-a tok -A bearer` a line's `-a bob:pw` went as `Authorization: Bearer bob:pw`. A batch
    /// -A given without -a stays the type of the lines' credentials.
    func testALinesOwnCredentialsAreNotOfTheBatchsAuthType() throws {
        let capture = try CaptureServer()
        let path = try input([capture.base + "/own -a bob:pw", capture.base + "/default"])
        let r = try runSwurl(["batch", path, "-q", "--parallel", "1", "-a", "tok", "-A", "bearer"])
        XCTAssertEqual(r.status, 0, r.text + r.stderr)
        try capture.sync()
        let all = String(decoding: capture.capturedAll, as: UTF8.self)
        let own = try XCTUnwrap(all.range(of: "GET /own")), other = try XCTUnwrap(all.range(of: "GET /default"))
        let first = String(all[own.lowerBound..<(own.lowerBound < other.lowerBound ? other.lowerBound : all.endIndex)])
        XCTAssertTrue(first.contains("Authorization: Basic Ym9iOnB3\r\n"), first)
        XCTAssertTrue(all.contains("Authorization: Bearer tok\r\n"), all)
        XCTAssertFalse(all.contains("Bearer bob:pw"), all)
        let typed = try CaptureServer()
        let typedLines = try input([typed.base + "/t -a tok2"])
        XCTAssertEqual(try runSwurl(["batch", typedLines, "-q", "-A", "bearer"]).status, 0)
        try typed.sync()
        XCTAssertTrue(String(decoding: typed.capturedAll, as: UTF8.self).contains("Authorization: Bearer tok2\r\n"))
    }

    /// --proxy and --resolve given to the batch route every line (a config's too, which the batch
    /// used to drop without a word, sending every line straight to the host).
    func testTheBatchsProxyAndResolveRouteEveryLine() throws {
        let proxy = try CaptureServer()
        let path = try input(["http://swurl-proxied.test/a", "http://swurl-proxied.test/b"])
        let r = try runSwurl(["batch", path, "--jsonl", "--proxy", proxy.base, "--parallel", "1"])
        XCTAssertEqual(r.status, 0, r.text + r.stderr)
        try proxy.sync()
        let seen = String(decoding: proxy.capturedAll, as: UTF8.self)
        XCTAssertTrue(seen.contains("GET http://swurl-proxied.test/a HTTP/1.1") && seen.contains("GET http://swurl-proxied.test/b HTTP/1.1"), seen)

        let port = try HTTPBin.shared().port
        let home = TestPaths.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: home + "/swurl", withIntermediateDirectories: true)
        try Data("--resolve swurl-resolved.test:\(port):127.0.0.1\n".utf8).write(to: URL(fileURLWithPath: home + "/swurl/config"))
        let lines = try input(["http://swurl-resolved.test:\(port)/get"])
        let resolved = try runSwurl(["batch", lines, "--jsonl"], environment: ["XDG_CONFIG_HOME": home])
        XCTAssertEqual(try byLine(resolved)[1]?["status"] as? Int, 200, resolved.text + resolved.stderr)
    }

    /// A config --offline says to send nothing; a batch cannot honour it and so refuses to run
    /// (it sent every line before). A config --session likewise.
    func testAConfigDefaultTheBatchCannotHonourIsRefused() throws {
        let capture = try CaptureServer()
        let path = try input([capture.base + "/x"])
        for option in ["--offline", "--curl", "--session work"] {
            let home = TestPaths.temporaryDirectory()
            try FileManager.default.createDirectory(atPath: home + "/swurl", withIntermediateDirectories: true)
            try Data("\(option)\n".utf8).write(to: URL(fileURLWithPath: home + "/swurl/config"))
            let r = try runSwurl(["batch", path], environment: ["XDG_CONFIG_HOME": home])
            XCTAssertEqual(r.status, 64, option + ": " + r.text + r.stderr)
            XCTAssertTrue(r.stderr.contains("swurl/config:1:") && r.stderr.contains("does not apply to 'swurl batch'"), r.stderr)
        }
        try capture.sync()
        XCTAssertFalse(String(decoding: capture.capturedAll, as: UTF8.self).contains("/x"), "nothing was sent")
    }

    /// A config default that only qualifies another is left out when that one is not given, as
    /// `--pin-scope` without a pin is: `--name-template` without `--output-dir` stopped every
    /// batch, `--key` without `--cert` every request (64). With its partner it is used.
    func testAConfigQualifierWithoutItsPartnerIsLeftOut() throws {
        let capture = try CaptureServer()
        let path = try input([capture.base + "/x"])
        let home = TestPaths.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: home + "/swurl", withIntermediateDirectories: true)
        let key = home + "/k.pem"
        try Data("x".utf8).write(to: URL(fileURLWithPath: key))
        try Data("--name-template '{line}.out' --key \(key)\n".utf8).write(to: URL(fileURLWithPath: home + "/swurl/config"))
        let r = try runSwurl(["batch", path, "-q"], environment: ["XDG_CONFIG_HOME": home])
        XCTAssertEqual(r.status, 0, r.text + r.stderr)
        let one = try runSwurl([capture.base + "/y", "-b"], environment: ["XDG_CONFIG_HOME": home])
        XCTAssertEqual(one.status, 0, one.stderr)
        let out = TestPaths.temporaryDirectory()
        let named = try runSwurl(["batch", path, "-q", "--output-dir", out], environment: ["XDG_CONFIG_HOME": home])
        XCTAssertEqual(named.status, 0, named.text + named.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/1.out"), "\((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? [])")
        // Typed alone, each is still the usage error that names its partner.
        XCTAssertEqual(try runSwurl(["--key", key, capture.base + "/z"]).status, 64)
    }

    /// A batch default no request could take (`--timeout abc`, a missing `--cacert`) is the
    /// batch's usage error, said once before any line runs, as a REPL's `set` refuses it: each
    /// line failed with it before, and the last run's report was replaced by one of failures.
    func testABadBatchDefaultIsRefusedOnceBeforeAnyLine() throws {
        let capture = try CaptureServer()
        let path = try input([capture.base + "/one", capture.base + "/two"])
        let dir = TestPaths.temporaryDirectory()
        let junit = dir + "/last.xml"
        try Data("<testsuites/>".utf8).write(to: URL(fileURLWithPath: junit))
        for (option, status) in [(["--timeout", "abc"], 64), (["--cacert", dir + "/missing.pem"], 66)] {
            let r = try runSwurl(["batch", path, "--junit", junit] + option)
            XCTAssertEqual(r.status, Int32(status), r.text + r.stderr)
            XCTAssertEqual(r.text, "", "no line ran: " + r.text)
            XCTAssertEqual(r.stderr.components(separatedBy: "swurl: error:").count, 2, "said once: " + r.stderr)
            XCTAssertTrue(r.stderr.contains("--" + option[0].dropFirst(2)), r.stderr)
            XCTAssertEqual(try String(contentsOfFile: junit, encoding: .utf8), "<testsuites/>", "the last report stays")
        }
        try capture.sync()
        XCTAssertFalse(String(decoding: capture.capturedAll, as: UTF8.self).contains("/one"), "nothing was sent")
        // A default that waits for a partner a line may bring is not judged alone: `--boundary`
        // waits for a multipart body (with --form, a file field), so lines without one go.
        let r = try runSwurl(["batch", path, "--form", "--boundary", "b0", "--jsonl"])
        XCTAssertEqual(r.status, 0, r.text + r.stderr)
        XCTAssertEqual(try byLine(r).count, 2, "each line judged: " + r.text)
    }

    /// A line with TLS options of its own speaks HTTP/1.1 on a connection of its own; one that
    /// also asks for HTTP/2 is refused with the reason, not quietly downgraded.
    func testALineAskingForHTTP2WithItsOwnTLSOptionsIsRefused() throws {
        let pki = try CertificateFactory.shared()
        let nginx = try NginxServer(http2: true, tls: (pki.path("leaf-chain.pem"), pki.path("leaf.key")))
        let path = try input([nginx.url("/small.txt") + " --http2 --cacert " + pki.path("root.pem")])
        let r = try runSwurl(["batch", path, "--jsonl"])
        let line = try XCTUnwrap(try byLine(r)[1])
        XCTAssertEqual(line["exit"] as? Int, 64, "\(line)")
        XCTAssertTrue((line["error"] as? String ?? "").contains("--http2 cannot be used on a batch line with TLS options"), "\(line)")
    }

    /// A line's --cache over a batch --no-cache (the cache stayed off), and a command line's
    /// --no-cache over a config --cache-only (refused as a clash).
    func testCacheChoicesFollowTheLaterOne() throws {
        let origin = try CacheOrigin()
        let url = origin.url("/c?cc=max-age%3D300")
        let dir = TestPaths.temporaryDirectory() + "/cache"
        XCTAssertEqual(try runSwurl(["--cache=" + dir, url]).status, 0)
        let path = try input([url + " --cache=" + dir])
        let r = try runSwurl(["batch", path, "--no-cache", "--jsonl"])
        XCTAssertEqual(r.status, 0, r.text + r.stderr)
        XCTAssertEqual(origin.count("/c"), 1, "the line's --cache served the stored response")
        let home = TestPaths.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: home + "/swurl", withIntermediateDirectories: true)
        try Data("--cache-only\n".utf8).write(to: URL(fileURLWithPath: home + "/swurl/config"))
        let fresh = try runSwurl([url, "--no-cache"], environment: ["XDG_CONFIG_HOME": home])
        XCTAssertEqual(fresh.status, 0, fresh.stderr)
        XCTAssertEqual(origin.count("/c"), 2)
    }
}
