import XCTest
import Foundation
import SwurlTestSupport

/// `--resolve`, proxies, `--unix-socket`, HTTP versions, `--limit-rate`, `--max-headers`.
final class ConnectionOptionsTests: XCTestCase {
    func testResolveConnectsToTheGivenAddress() throws {
        let port = try HTTPBin.shared().port
        let r = try runSwurl(["--resolve", "swurl.test:\(port):127.0.0.1", "http://swurl.test:\(port)/headers"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual((try r.json()["headers"] as? [String: String])?["Host"], "swurl.test:\(port)")
        // Several addresses, IPv6 in brackets among them.
        let several = try runSwurl(["--resolve", "swurl.test:\(port):[::1],127.0.0.1", "http://swurl.test:\(port)/headers"])
        XCTAssertEqual(several.status, 0, several.stderr)
        // A trailing comma is no address (libcurl skips it).
        let comma = try runSwurl(["--resolve", "swurl.test:\(port):127.0.0.1,", "http://swurl.test:\(port)/headers"])
        XCTAssertEqual(comma.status, 0, comma.stderr)
        let none = try runSwurl(["--resolve", "swurl.test:\(port):,", "http://swurl.test:\(port)/headers"])
        XCTAssertEqual(none.status, 64, none.stderr)
        XCTAssertTrue(none.stderr.contains("names no address"), none.stderr)
        // An entry for another port is named (libcurl said only "Could not resolve host").
        let otherPort = try runSwurl(["--resolve", "swurl.test:443:127.0.0.1", "http://swurl.test:\(port)/headers"])
        XCTAssertEqual(otherPort.status, 1, otherPort.stderr)
        XCTAssertTrue(otherPort.stderr.contains("--resolve names swurl.test for port 443, and the URL's port is \(port)"), otherPort.stderr)
        let plus = try runSwurl(["--resolve", "+swurl.test:443:127.0.0.1", "http://swurl.test:\(port)/headers"])
        XCTAssertTrue(plus.stderr.contains("--resolve names swurl.test for port 443"), plus.stderr)
        // An address that is none is a usage error before anything is tried.
        let bad = try runSwurl(["--resolve", "swurl.test:\(port):999.1.1.1", "http://swurl.test:\(port)/headers"])
        XCTAssertEqual(bad.status, 64, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("'999.1.1.1' in 'swurl.test:\(port):999.1.1.1' is not an IP address"), bad.stderr)
    }

    /// `--path-as-is` (curl's and HTTPie's) sends dot segments as given, in every door and in a
    /// redirect's target; without it they are squashed, as before. The option did not exist.
    func testPathAsIsSendsDotSegmentsInEveryDoor() throws {
        let base = try HTTPBin.url("")
        func url(_ r: SwurlResult) -> String? { (try? r.json())?["url"] as? String }
        let kept = try runSwurl(["--path-as-is", "\(base)/anything/a/./../b"])
        XCTAssertEqual(url(kept), "\(base)/anything/a/./../b", kept.stderr)
        let squashed = try runSwurl(["\(base)/anything/a/./../b"])
        XCTAssertEqual(url(squashed), "\(base)/anything/b", squashed.stderr)
        // A redirect's target keeps its dot segments too (curl -L --path-as-is).
        let location = "/anything/x/../y"
        let followed = try runSwurl(["--path-as-is", "-F", "\(base)/redirect-to?url=" + location.replacingOccurrences(of: "/", with: "%2F")])
        XCTAssertEqual(url(followed), "\(base)/anything/x/../y", followed.stderr)
        // --offline shows, and --curl spells, what would go.
        let offline = try runSwurl(["--path-as-is", "--offline", "\(base)/anything/a/../b"])
        XCTAssertTrue(offline.text.hasPrefix("GET /anything/a/../b HTTP/1.1\r\n"), offline.text)
        let curl = try runSwurl(["--path-as-is", "--curl", "\(base)/anything/a/../b"])
        XCTAssertTrue(curl.text.contains("--path-as-is"), curl.text)
        // A batch line and a REPL line (a path against the base).
        let file = TestPaths.temporaryDirectory() + "/dots.txt"
        try "\(base)/anything/q/../r --path-as-is\n\(base)/anything/q/../r\n".write(toFile: file, atomically: true, encoding: .utf8)
        let batch = try runSwurl(["batch", file, "--jsonl", "--order", "input"])
        let urls = batch.text.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["url"] as? String
        }
        XCTAssertEqual(urls, ["\(base)/anything/q/../r", "\(base)/anything/r"], batch.text)
        let repl = try runSwurl(["repl", "\(base)/anything/"], stdin: Data("GET z/../v --path-as-is\n".utf8))
        XCTAssertTrue(repl.text.contains("\"url\": \"\(base)/anything/z/../v\""), repl.text)
        // A cookie of Path=/anything/a matches /anything/a/../b as sent (libcurl sends it): --offline
        // showed none (the path was squashed to /anything/b), and the cache keyed without it.
        let session = TestPaths.temporaryDirectory() + "/s.json"
        let set = try runSwurl(["--session", session, "\(base)/response-headers?Set-Cookie=" + "x=1; Path=/anything/a".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!])
        XCTAssertEqual(set.status, 0, set.stderr)
        let shown = try runSwurl(["--offline", "--path-as-is", "--session-read-only", session, "\(base)/anything/a/../b"])
        XCTAssertTrue(shown.text.contains("Cookie: x=1\r\n"), shown.text)
        let sent = try runSwurl(["--path-as-is", "--session-read-only", session, "\(base)/anything/a/../b"])
        XCTAssertEqual(((try? sent.json())?["headers"] as? [String: String])?["Cookie"], "x=1", sent.text)
        // The REPL's base keeps its dot segments too under a default --path-as-is.
        let based = try runSwurl(["repl", "--path-as-is", "\(base)/anything/x/../y/"], stdin: Data("GET z\n".utf8))
        XCTAssertTrue(based.text.contains("\"url\": \"\(base)/anything/x/../y/z\""), based.text)
    }

    func testExplicitProxyGetsTheAbsoluteURL() throws {
        let proxy = try ScriptedServer()
        let r = try runSwurl(["--proxy", proxy.url(""), "http://swurl.test/x"])
        XCTAssertEqual(r.text, "proxied", r.stderr)
        XCTAssertEqual(proxy.requests().last?["path"] as? String, "http://swurl.test/x")
    }

    func testProxyFromTheEnvironmentAndNoProxy() throws {
        let proxy = try ScriptedServer()
        let r = try runSwurl(["http://swurl.test/y"], environment: ["http_proxy": proxy.url("")])
        XCTAssertEqual(r.text, "proxied", r.stderr)
        let bypass = try runSwurl([try HTTPBin.url("/get")], environment: ["http_proxy": proxy.url(""), "NO_PROXY": "127.0.0.1"])
        XCTAssertEqual(bypass.status, 0, bypass.stderr)
        XCTAssertNotNil(try bypass.json()["url"])
        XCTAssertEqual(proxy.requests().count, 1)
        // A proxy that is down is named with where it came from (libcurl names an address only).
        let port = try ServerProcess.refusedPort()
        let down = try runSwurl(["http://swurl.test/y"], environment: ["http_proxy": "http://127.0.0.1:\(port)", "no_proxy": "", "NO_PROXY": ""])
        XCTAssertEqual(down.status, 1, down.stderr)
        XCTAssertTrue(down.stderr.contains("that is the proxy http://127.0.0.1:\(port) (from http_proxy); is it running? --proxy '' connects directly"),
                      down.stderr)
        let option = try runSwurl(["--proxy", "127.0.0.1:\(port)", "http://swurl.test/y"])
        XCTAssertTrue(option.stderr.contains("that is the proxy 127.0.0.1:\(port) (from --proxy)"), option.stderr)
        // A proxy name that does not resolve is named with its setting too (a stale variable).
        let unknown = try runSwurl(["http://swurl.test/y"], environment: ["http_proxy": "http://no-such-proxy.invalid:3128", "no_proxy": "", "NO_PROXY": ""])
        XCTAssertEqual(unknown.status, 1, unknown.stderr)
        XCTAssertTrue(unknown.stderr.contains("that is the proxy http://no-such-proxy.invalid:3128 (from http_proxy); check its host name"), unknown.stderr)
        // A SOCKS proxy's too, which libcurl reports as the host not resolving.
        let socks = try runSwurl(["http://swurl.test/y"], environment: ["http_proxy": "socks5h://no-such-proxy.invalid:1080", "no_proxy": "", "NO_PROXY": ""])
        XCTAssertEqual(socks.status, 1, socks.stderr)
        XCTAssertTrue(socks.stderr.contains("that is the proxy socks5h://no-such-proxy.invalid:1080 (from http_proxy); check its host name"), socks.stderr)
        // A proxy without a port is tried on 1080, an IPv6 one named without brackets by
        // libcurl: both were blamed on the server ("is the server running…").
        for given in ["http://127.0.0.1", "socks5h://127.0.0.1", "http://[::1]:\(port)"] {
            let named = try runSwurl(["--proxy", given, "http://swurl.test/y"])
            XCTAssertEqual(named.status, 1, named.stderr)
            XCTAssertTrue(named.stderr.contains("that is the proxy \(given) (from --proxy)"), named.stderr)
        }
    }

    func testUnixSocket() throws {
        let socket = TestPaths.temporaryDirectory() + "/s.sock"
        let server = try ScriptedServer(unixSocket: socket)
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: socket) { usleep(20_000) }
        let r = try runSwurl(["--unix-socket", socket, "http://anything.test/echo"])
        XCTAssertEqual(r.text, "ok", r.stderr)
        XCTAssertEqual((server.requests().last?["headers"] as? [String: String])?["Host"], "anything.test")

        // libcurl would go to the socket and drop the proxy unsaid: the two are refused together
        // on the command line, before anything reaches the socket. A typed one replaces the
        // config file's other (they exclude each other, as a typed --json a config --form).
        let before = server.requests().count
        let proxy = "http://127.0.0.1:\(try ServerProcess.refusedPort())"
        let both = try runSwurl(["--no-config", "--proxy", proxy, "--unix-socket", socket, "http://anything.test/echo"])
        XCTAssertEqual(both.status, 64, both.stderr)
        XCTAssertTrue(both.stderr.contains("--proxy and --unix-socket cannot be combined"), both.stderr)
        let config = try TestPaths.config("--proxy \(proxy)\n")
        let fromConfig = try runSwurl(["--unix-socket", socket, "http://anything.test/echo"], environment: config.env)
        XCTAssertEqual(fromConfig.text, "ok", fromConfig.stderr)
        // `--proxy ''` (no proxy) goes with it.
        let none = try runSwurl(["--no-config", "--proxy", "", "--unix-socket", socket, "http://anything.test/echo"])
        XCTAssertEqual(none.text, "ok", none.stderr)
        // The proxy variables are not looked at (one swurl would refuse, https://, is no error).
        let variables = try runSwurl(["--no-config", "--unix-socket", socket, "http://anything.test/echo"],
                                     environment: ["http_proxy": "https://127.0.0.1:1", "ALL_PROXY": "https://127.0.0.1:1"])
        XCTAssertEqual(variables.text, "ok", variables.stderr)
        XCTAssertEqual(server.requests().count, before + 3)
        // A path that is no socket says so ("nothing is listening there" sent the user to start a
        // server); one longer than a socket address holds is refused before anything is tried.
        let dir = TestPaths.temporaryDirectory()
        FileManager.default.createFile(atPath: dir + "/plain", contents: Data())
        for (path, what) in [(dir + "/plain", "a file"), (dir, "a directory")] {
            let wrong = try runSwurl(["--no-config", "--unix-socket", path, "http://anything.test/echo"])
            XCTAssertEqual(wrong.status, 1, wrong.stderr)
            XCTAssertTrue(wrong.stderr.contains("it is \(what), not a socket"), wrong.stderr)
        }
        let long = try runSwurl(["--no-config", "--unix-socket", "/tmp/" + String(repeating: "s", count: 120), "http://anything.test/echo"])
        XCTAssertEqual(long.status, 64, long.stderr)
        XCTAssertTrue(long.stderr.contains("a socket's path holds at most 107"), long.stderr)
    }

    /// The wrong way of speaking HTTP/2 to a port is named: prior knowledge to an HTTP/1 port
    /// gets nothing back ("Empty reply" alone), HTTP/1 to an h2c-only port gets frames.
    func testTheWrongHTTP2ChoiceIsNamed() throws {
        let plain = try NginxServer()
        let r = try runSwurl(["--http2-prior-knowledge", plain.url("/small.txt")])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("drop --http2-prior-knowledge"), r.stderr)
        let h2c = try NginxServer(http2: true)
        let h1 = try runSwurl([h2c.url("/small.txt")])
        XCTAssertEqual(h1.status, 1, h1.stderr)
        XCTAssertTrue(h1.stderr.contains("if the port speaks HTTP/2 alone (h2c), use --http2-prior-knowledge"), h1.stderr)
    }

    /// A response head past libcurl 7.88's HTTP/2 buffer (about 128 KiB; 140 fields of 1000
    /// bytes here) is named as such, with --http1.1 as the way around; it was nghttp2's
    /// "returned -902: The user callback function failed" alone.
    func testAnHTTP2HeadLibcurlRefusesIsNamed() throws {
        let fields = (0..<140).map { "add_header X-Big-\($0) \"\(String(repeating: "v", count: 1000))\";" }.joined(separator: " ")
        let nginx = try NginxServer(http2: true, serverConfig: "location = /small.txt { \(fields) }")
        let r = try runSwurl(["--http2-prior-knowledge", "-h", nginx.url("/small.txt")])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("a response head larger than the about 128 KiB libcurl takes over HTTP/2"), r.stderr)
        XCTAssertFalse(r.stderr.contains("client certificate"), r.stderr)
        // It would come again the same way: not retried (the retry's framing error hid it).
        let retried = try runSwurl(["--http2-prior-knowledge", "--retry", "1", "--retry-delay", "0.05", "-h", nginx.url("/small.txt")])
        XCTAssertFalse(retried.stderr.contains("retrying"), retried.stderr)
        XCTAssertTrue(retried.stderr.contains("libcurl takes over HTTP/2"), retried.stderr)
    }

    func testHTTP2PriorKnowledgeAgainstNginx() throws {
        let nginx = try NginxServer(http2: true, serverConfig: "location = /r301 { return 301 /small.txt; }")
        let r = try runSwurl(["--http2-prior-knowledge", "--timing=json", nginx.url("/small.txt")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.text, "hello from nginx\n")
        XCTAssertTrue(r.stderr.contains("\"http_version\":\"2\""), r.stderr)
        // Regression: libcurl 7.88 sends a second request on a cleartext prior-knowledge
        // connection as a framing error, so a batch's later lines and a redirect failed ("Error
        // in the HTTP2 framing layer"); each hop gets a connection of its own.
        let followed = try runSwurl(["--http2-prior-knowledge", "-F", nginx.url("/r301")])
        XCTAssertEqual(followed.status, 0, followed.stderr)
        XCTAssertEqual(followed.text, "hello from nginx\n")
        let lines = TestPaths.temporaryDirectory() + "/h2c.txt"
        try (0..<20).map { nginx.url("/small.txt?i=\($0)") }.joined(separator: "\n").write(toFile: lines, atomically: true, encoding: .utf8)
        for parallel in ["1", "4"] {
            let batch = try runSwurl(["batch", lines, "--http2-prior-knowledge", "--parallel", parallel])
            XCTAssertEqual(batch.status, 0, batch.text + batch.stderr)
            XCTAssertEqual(batch.text.split(separator: "\n").filter { $0.contains(" 200 ") }.count, 20, batch.text)
        }
    }

    /// A request head over the about 64 KiB HTTP/2 takes: libcurl gives up after five refused
    /// tries ("Connection died"), which swurl named as the server ending the TLS connection and
    /// hinted at a client certificate. It says what happened, with --http1.1 as the way around.
    func testAnHTTP2RequestHeadTooLargeIsNamed() throws {
        let nginx = try NginxServer(http2: true)
        let r = try runSwurl(["--http2-prior-knowledge", nginx.url("/small.txt"), "X-Big:" + String(repeating: "a", count: 70000)])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("the request was refused on every try"), r.stderr)
        XCTAssertTrue(r.stderr.contains("--http1.1, which also sends a request head up to 1 MiB"), r.stderr)
        XCTAssertFalse(r.stderr.contains("client certificate"), r.stderr)
    }

    /// A body of many receive buffers goes to stdout (a file here) and to -o byte for byte:
    /// raw output is written straight from libcurl's buffer.
    func testALargeRawBodyArrivesByteExact() throws {
        let nginx = try NginxServer()
        var generator = SystemRandomNumberGenerator()
        let body = Data((0..<(3 << 20) + 12345).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try body.write(to: URL(fileURLWithPath: nginx.root + "/big.bin"))
        let r = try runSwurl([nginx.url("/big.bin")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout.count, body.count)
        XCTAssertTrue(r.stdout == body, "stdout differs from what nginx served")
        let dir = TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let o = try runSwurl(["-o", dir + "/out.bin", nginx.url("/big.bin")])
        XCTAssertEqual(o.status, 0, o.stderr)
        XCTAssertTrue((try Data(contentsOf: URL(fileURLWithPath: dir + "/out.bin"))) == body, "-o file differs")
    }

    func testHTTPVersionFlagsExcludeEachOther() throws {
        XCTAssertEqual(try runSwurl(["--http1.1", "--http2", "--offline", "example.org"]).status, 64)
    }

    func testLimitRateThrottles() throws {
        let start = Date()
        let r = try runSwurl(["--limit-rate", "100K", try HTTPBin.url("/bytes/100000")])
        XCTAssertEqual(r.stdout.count, 100_000, r.stderr)
        XCTAssertGreaterThan(Date().timeIntervalSince(start), 0.8)
        XCTAssertEqual(try runSwurl(["--limit-rate", "fast", "--offline", "x.org"]).status, 64)
        // 0 is no limit, as in curl: it lifts a config default for one run (it was refused, 64).
        let config = try TestPaths.config("--limit-rate 10K\n")
        let limited = try runSwurl(["--curl", "x.org"], environment: config.env)
        XCTAssertTrue(limited.text.contains("--limit-rate 10240"), limited.text)
        for zero in ["0", "0K", "0.0M", "0B/s"] {
            let lifted = try runSwurl(["--curl", "--limit-rate", zero, "x.org"], environment: config.env)
            XCTAssertEqual(lifted.status, 0, lifted.stderr)
            XCTAssertFalse(lifted.text.contains("--limit-rate"), lifted.text)
        }
    }

    /// Regression: `--limit-rate` held a 64 KiB block of the body back until the rate allowed it,
    /// then sent it at once: the server saw the head, a silence (64 s at 1K, past nginx's body
    /// timeout), and a burst. Now a tenth of a second's bytes at a time (2 KiB at 20K); a batch
    /// line, paced by libcurl, sends 16 KiB blocks (its smallest buffer), not one of 64 KiB.
    func testLimitRatePacesAnUploadInSmallPieces() throws {
        let sink = try SinkServer()
        let dir = TestPaths.temporaryDirectory()
        FileManager.default.createFile(atPath: dir + "/body.bin", contents: Data(repeating: 0x61, count: 30_000))
        let r = try runSwurl(["--limit-rate", "20K", "POST", sink.url + "/up", "@" + dir + "/body.bin"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let one = try XCTUnwrap(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        XCTAssertEqual(one["length"] as? Int, 30_000)
        // 2 KiB pieces a tenth of a second apart (two may meet in one read on a busy machine).
        XCTAssertLessThanOrEqual(one["largest"] as? Int ?? .max, 8192, "\(one)")
        let lines = dir + "/lines"
        try "POST \(sink.url)/up @\(dir)/body.bin\n".write(toFile: lines, atomically: true, encoding: .utf8)
        let b = try runSwurl(["batch", lines, "--limit-rate", "20K", "--output-dir", dir, "-q"])
        XCTAssertEqual(b.status, 0, b.stderr)
        let line = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/1.body"))) as? [String: Any])
        XCTAssertEqual(line["length"] as? Int, 30_000)
        XCTAssertLessThanOrEqual(line["largest"] as? Int ?? .max, 16_384, "\(line)")
    }

    func testMaxHeadersCapsTheResponseHead() throws {
        let server = try ScriptedServer()
        let r = try runSwurl(["--max-headers", "5", server.url("/many-headers?n=20")])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("more than 5 header fields"), r.stderr)
        XCTAssertEqual(try runSwurl([server.url("/many-headers?n=20")]).status, 0)
        // No limit by default: curl and HTTPie print such a response.
        let many = try runSwurl([server.url("/many-headers?n=150")])
        XCTAssertEqual(many.status, 0, many.stderr)
    }

    /// An international host name goes out in its ASCII form (IDNA), as curl sends it, whatever
    /// the locale: in the Host header, and in what --offline shows.
    func testAnInternationalHostNameIsSentInItsASCIIForm() throws {
        let port = try HTTPBin.shared().port
        let args = ["--resolve", "xn--bcher-kva.test:\(port):127.0.0.1", "http://bücher.test:\(port)/headers"]
        for locale in ["C", "C.UTF-8"] {
            let r = try runSwurl(args, environment: ["LC_ALL": locale])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual((try r.json()["headers"] as? [String: String])?["Host"], "xn--bcher-kva.test:\(port)")
        }
        let offline = try runSwurl(["--offline"] + args)
        XCTAssertTrue(offline.text.contains("Host: xn--bcher-kva.test:\(port)\r\n"), offline.text)
        let bad = try runSwurl(["--offline", "http://a\u{FFFD}\u{0301}b..x/"])
        XCTAssertEqual(bad.status, 64, bad.stderr)
    }

    /// A proxy that refuses the tunnel with 407: the hint asks for credentials when none were
    /// given, and says they were refused when they were (it asked for them again).
    func testAProxysRefusalNamesCredentialsGivenOrNot() throws {
        let (proxy, _) = try ServerProcess.connectProxy()
        defer { proxy.stop() }
        let none = try runSwurl(["--proxy", "127.0.0.1:\(proxy.port)", "https://auth.test:9/x"])
        XCTAssertEqual(none.status, 1, none.stderr)
        XCTAssertTrue(none.stderr.contains("it asks for credentials: give them in the proxy's URL"), none.stderr)
        for extra in [["--proxy", "u:p@127.0.0.1:\(proxy.port)"], ["--proxy", "http://127.0.0.1:\(proxy.port)", "Proxy-Authorization:Basic eA=="]] {
            let given = try runSwurl([extra[0], extra[1], "https://auth.test:9/x"] + extra.dropFirst(2))
            XCTAssertEqual(given.status, 1, given.stderr)
            XCTAssertTrue(given.stderr.contains("it refused the credentials given"), given.stderr)
            XCTAssertFalse(given.stderr.contains("it asks for credentials"), given.stderr)
            // An item is named only where one was given (it was offered as the refused one).
            XCTAssertEqual(given.stderr.contains("Proxy-Authorization item"), extra.count == 3, given.stderr)
        }
        // The proxy's answer is no response of the server's: -h printed its head on stdout (a
        // Location or Set-Cookie of the proxy's read as the origin's), and the HAR recorded it.
        let dir = TestPaths.temporaryDirectory()
        let shown = try runSwurl(["-h", "--proxy", "127.0.0.1:\(proxy.port)", "--har", dir + "/p.har", "https://auth.test:9/x"])
        XCTAssertEqual(shown.status, 1, shown.stderr)
        XCTAssertEqual(shown.text, "", "nothing of the proxy's answer on stdout")
        let har = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/p.har"))) as? [String: Any]
        let entry = ((har?["log"] as? [String: Any])?["entries"] as? [[String: Any]])?.first
        XCTAssertEqual((entry?["response"] as? [String: Any])?["status"] as? Int, 0, "\(entry ?? [:])")
    }

    /// `swurl certs` through a proxy that is down or refuses the tunnel names the proxy and where
    /// it came from, as a request does (it asked whether "the server" was running, and said
    /// nothing of a 407).
    func testCertsNamesAProxyThatIsDownOrRefusesTheTunnel() throws {
        let down = try runSwurl(["certs", "https://localhost:9/"], environment: ["https_proxy": "http://pu:S3CRET@127.0.0.1:1"])
        XCTAssertEqual(down.status, 1, down.stderr)
        XCTAssertTrue(down.stderr.contains("hint: that is the proxy http://pu:****@127.0.0.1:1 (from https_proxy"), down.stderr)
        XCTAssertFalse(down.stderr.contains("S3CRET"), down.stderr)
        let (proxy, _) = try ServerProcess.connectProxy()
        defer { proxy.stop() }
        let refused = try runSwurl(["certs", "--proxy", "127.0.0.1:\(proxy.port)", "https://auth.test:9/"])
        XCTAssertEqual(refused.status, 1, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("(from --proxy) refused to open the tunnel to the server; it asks for credentials"), refused.stderr)
        // certs takes no items: the hint offers the proxy's URL alone.
        XCTAssertFalse(refused.stderr.contains("Proxy-Authorization"), refused.stderr)
    }

    /// A proxy that answers with no HTTP, or closes, is named with the setting it came from, in
    /// a request's hint and in a batch line's `hint`: the messages blamed "the server" (and
    /// offered --http2-prior-knowledge), and a batch said nothing of the proxy.
    func testABrokenProxyIsNamed() throws {
        let (proxy, _) = try ServerProcess.connectProxy()
        defer { proxy.stop() }
        let named = "the proxy http://u:****@127.0.0.1:\(proxy.port) (from --proxy)"
        for (url, words) in [("http://garbage.test:9/x", "the answer came through \(named)"),
                             ("https://garbage.test:9/x", "that is \(named), which did not open the tunnel"),
                             ("http://close.test:9/x", "the request went through \(named)"),
                             ("https://close.test:9/x", "that is \(named), which did not open the tunnel")] {
            let r = try runSwurl(["--proxy", "http://u:pw@127.0.0.1:\(proxy.port)", url])
            XCTAssertEqual(r.status, 1, r.stderr)
            XCTAssertTrue(r.stderr.contains(words), "\(url): \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("http2-prior-knowledge") || r.stderr.contains(":pw@"), r.stderr)
        }
        let lines = TestPaths.temporaryDirectory() + "/lines.txt"
        try "https://close.test:9/x --proxy http://u:pw@127.0.0.1:\(proxy.port)\n".write(toFile: lines, atomically: true, encoding: .utf8)
        let batch = try runSwurl(["batch", lines, "--jsonl"])
        let result = try JSONSerialization.jsonObject(with: Data(batch.text.utf8)) as? [String: Any]
        XCTAssertTrue((result?["hint"] as? String)?.contains("that is \(named), which did not open the tunnel") == true, batch.text)
    }

    /// A Proxy-Authorization item goes to the proxy: on the CONNECT of an https URL (it went
    /// inside the tunnel, to the origin), as curl's --proxy-header sends it.
    func testAProxyAuthorizationItemGoesToTheProxyNotTheOrigin() throws {
        let (proxy, log) = try ServerProcess.connectProxy()
        defer { proxy.stop() }
        let pki = try CertificateFactory.shared()
        let origin = try CaptureServer(tls: (pki.path("leaf-chain.pem"), pki.path("leaf.key")))
        let r = try runSwurl(["--proxy", "http://127.0.0.1:\(proxy.port)", "--cacert", pki.path("root.pem"),
                              origin.base + "/x", "Proxy-Authorization:Basic eHg6eXk="])
        XCTAssertEqual(r.status, 0, r.stderr)
        let connect = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        XCTAssertTrue(connect.contains("CONNECT 127.0.0.1:\(origin.server.port)") && connect.contains("Proxy-Authorization: Basic eHg6eXk="), connect)
        let received = String(decoding: origin.captured, as: UTF8.self)
        XCTAssertTrue(received.hasPrefix("GET /x"), received)
        XCTAssertFalse(received.lowercased().contains("proxy-authorization"), received)
        // swurl's CONNECT carries no User-Agent; the printed command's did (curl's own, which a
        // --header does not reach): it is removed there with --proxy-header.
        XCTAssertFalse(connect.lowercased().contains("user-agent"), connect)
        let printed = try runSwurl(["--curl", "--proxy", "http://127.0.0.1:\(proxy.port)", "--cacert", pki.path("root.pem"), origin.base + "/c"])
        try? FileManager.default.removeItem(atPath: log)
        let byCurl = try runProcess("/bin/sh", ["-c", printed.text.trimmingCharacters(in: .newlines) + " -s"], check: false)
        XCTAssertEqual(byCurl.status, 0, byCurl.stderr + printed.text)
        let curlConnect = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        XCTAssertTrue(curlConnect.contains("CONNECT 127.0.0.1:\(origin.server.port)"), curlConnect)
        XCTAssertFalse(curlConnect.lowercased().contains("user-agent"), curlConnect)

        // Through the same proxy, a redirect to another origin keeps it: it is the proxy's.
        let first = try NginxServer(tls: (pki.path("leaf-chain.pem"), pki.path("leaf.key")), serverConfig: """
            location = /away { return 302 https://localhost:\(origin.server.port)/landed; }
            """)
        try? FileManager.default.removeItem(atPath: log)
        let followed = try runSwurl(["--proxy", "http://127.0.0.1:\(proxy.port)", "--cacert", pki.path("root.pem"), "-F",
                                     first.url("/away"), "Proxy-Authorization:Basic eHg6eXk="])
        XCTAssertEqual(followed.status, 0, followed.stderr)
        let connects = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").components(separatedBy: "CONNECT ").dropFirst()
        XCTAssertEqual(connects.count, 2, "\(connects)")
        XCTAssertTrue(connects.allSatisfy { $0.contains("Proxy-Authorization: Basic eHg6eXk=") }, "\(connects)")
    }

    /// A SOCKS proxy reads no HTTP headers: a Proxy-Authorization item goes to the server, as
    /// --offline shows it and curl sends it (libcurl's proxy headers dropped it without a word),
    /// and `--curl` prints it as a --header; at a redirect to another origin it is dropped.
    func testAProxyAuthorizationItemThroughSOCKSGoesToTheServer() throws {
        let (proxy, log) = try ServerProcess.connectProxy()
        defer { proxy.stop() }
        let origin = try CaptureServer()
        let args = ["--proxy", "socks5://127.0.0.1:\(proxy.port)", origin.base + "/x", "Proxy-Authorization:Basic eHg6eXk="]
        let r = try runSwurl(args)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("SOCKS5 127.0.0.1:\(origin.server.port)"))
        let received = String(decoding: origin.captured, as: UTF8.self)
        XCTAssertTrue(received.hasPrefix("GET /x") && received.contains("Proxy-Authorization: Basic eHg6eXk=\r\n"), received)
        let printed = try runSwurl(["--curl"] + args)
        XCTAssertTrue(printed.text.contains("--header 'Proxy-Authorization: Basic eHg6eXk='"), printed.text)
        XCTAssertFalse(printed.text.contains("--proxy-header"), printed.text)

        let other = try CaptureServer()
        let first = try NginxServer(serverConfig: "location = /away { return 302 http://localhost:\(other.server.port)/landed; }")
        let followed = try runSwurl(["--proxy", "socks5://127.0.0.1:\(proxy.port)", "-F", first.url("/away"), "Proxy-Authorization:Basic eHg6eXk="])
        XCTAssertEqual(followed.status, 0, followed.stderr)
        let landed = String(decoding: other.captured, as: UTF8.self)
        XCTAssertTrue(landed.hasPrefix("GET /landed"), landed)
        XCTAssertFalse(landed.lowercased().contains("proxy-authorization"), landed)
    }

    /// A proxy's 3xx answer to CONNECT was followed as the server's redirect (with -F, and by
    /// every download): the request, its method, body and credentials went where the proxy
    /// chose, over verified TLS. It fails as the tunnel failing (curl -L: "CONNECT tunnel
    /// failed, response 307"), and nothing reaches the server.
    func testAProxysRedirectAnswerToCONNECTIsNotFollowed() throws {
        let (proxy, log) = try ServerProcess.connectProxy()
        defer { proxy.stop() }
        let pki = try CertificateFactory.shared()
        let origin = try CaptureServer(tls: (pki.path("leaf-chain.pem"), pki.path("leaf.key")))
        let target = "https://steer.test:\(origin.server.port)/api/profile"
        for args in [["-F", "PUT", target, "name=me", "Authorization:Bearer STEERSECRET"], ["-d", "-o", TestPaths.temporaryDirectory() + "/f.bin", target]] {
            let r = try runSwurl(["--proxy", "http://127.0.0.1:\(proxy.port)", "--cacert", pki.path("root.pem")] + args)
            XCTAssertNotEqual(r.status, 0, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("CONNECT tunnel failed, response 307"), r.stderr)
            // The hint names the proxy and where it came from (it asked whether the server ran).
            XCTAssertTrue(r.stderr.contains("hint: the proxy http://127.0.0.1:\(proxy.port) (from --proxy) refused to open the tunnel to the server; --proxy '' connects directly"),
                          r.stderr)
        }
        // Followed, the request went through a second tunnel, to localhost (logged before it opened).
        let connects = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        XCTAssertFalse(connects.contains("CONNECT localhost:"), connects)
        XCTAssertTrue(connects.contains("CONNECT steer.test:"), connects)
        XCTAssertEqual(origin.capturedAll.count, 0, String(decoding: origin.capturedAll, as: UTF8.self))
    }

    /// Through a tunnel, -v showed the proxy's CONNECT in place of the request (its headers,
    /// items and body were never shown). A host NO_PROXY bypasses goes direct: an https:// proxy
    /// variable no longer refuses it, and a Proxy-Authorization item goes to the server, as
    /// without a proxy; at a redirect from a proxied origin to a bypassed one it is dropped (it
    /// would reach that server).
    func testThroughATunnelVerboseShowsTheRequestAndNoProxyGoesDirect() throws {
        let (proxy, log) = try ServerProcess.connectProxy()
        defer { proxy.stop() }
        let pki = try CertificateFactory.shared()
        let origin = try CaptureServer(tls: (pki.path("leaf-chain.pem"), pki.path("leaf.key")))
        let viaProxy = ["https_proxy": "http://127.0.0.1:\(proxy.port)", "NO_PROXY": "", "no_proxy": ""]
        let v = try runSwurl(["-v", "--cacert", pki.path("root.pem"), "POST", origin.base + "/x", "X-Item:1", "a=b"],
                             environment: viaProxy)
        XCTAssertEqual(v.status, 0, v.stderr)
        XCTAssertTrue(((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("CONNECT "), "the request did not go through the proxy")
        XCTAssertTrue(v.text.contains("POST /x HTTP/1.1"), v.text)
        XCTAssertTrue(v.text.contains("X-Item: 1"), v.text)
        XCTAssertTrue(v.text.contains("{\"a\":\"b\"}"), v.text)
        XCTAssertFalse(v.text.contains("CONNECT"), v.text)

        let bypass = ["https_proxy": "https://127.0.0.1:\(proxy.port)", "NO_PROXY": "127.0.0.1"]
        let direct = try runSwurl(["--cacert", pki.path("root.pem"), origin.base + "/d", "Proxy-Authorization:Basic eHg6eXk="],
                                  environment: bypass)
        XCTAssertEqual(direct.status, 0, direct.stderr)
        XCTAssertTrue(String(decoding: origin.captured, as: UTF8.self).contains("Proxy-Authorization: Basic eHg6eXk="))
        // swurl alone decides what NO_PROXY bypasses (libcurl is handed no list): `/0` is the one
        // address for libcurl, never every one, so the item stays the proxy's, on the CONNECT.
        try? FileManager.default.removeItem(atPath: log)
        let zero = try runSwurl(["--cacert", pki.path("root.pem"), origin.base + "/z", "Proxy-Authorization:Basic emVybw=="],
                                environment: ["https_proxy": "http://127.0.0.1:\(proxy.port)", "NO_PROXY": "10.0.0.0/0"])
        XCTAssertEqual(zero.status, 0, zero.stderr)
        XCTAssertTrue(((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("Proxy-Authorization: Basic emVybw=="))
        XCTAssertFalse(String(decoding: origin.captured, as: UTF8.self).contains("emVybw=="))
        // Not bypassed, the https:// proxy is refused, and named by its variable.
        let refused = try runSwurl(["--cacert", pki.path("root.pem"), origin.base + "/d"],
                                   environment: ["https_proxy": "https://127.0.0.1:\(proxy.port)", "NO_PROXY": ""])
        XCTAssertEqual(refused.status, 64, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("(from https_proxy or HTTPS_PROXY)"), refused.stderr)
        // A variable's bad proxy is named before anything is sent, as --proxy's is (libcurl said
        // "Unsupported proxy syntax" and the hint was about the server).
        for bad in ["ftp://127.0.0.1:\(proxy.port)", "http://127.0.0.1:99999", "*", " 127.0.0.1:\(proxy.port)"] {
            let r = try runSwurl([origin.base.replacingOccurrences(of: "https:", with: "http:") + "/p"],
                                 environment: ["http_proxy": bad, "NO_PROXY": ""])
            XCTAssertEqual(r.status, 64, bad + ": " + r.stderr)
            XCTAssertTrue(r.stderr.contains("(from http_proxy)"), r.stderr)
        }

        // Proxied 127.0.0.1 redirects to localhost, which goes direct: the item is not sent there.
        let landing = try CaptureServer(tls: (pki.path("leaf-chain.pem"), pki.path("leaf.key")))
        let first = try NginxServer(tls: (pki.path("leaf-chain.pem"), pki.path("leaf.key")), serverConfig: """
            location = /away { return 302 https://localhost:\(landing.server.port)/landed; }
            """)
        let followed = try runSwurl(["--cacert", pki.path("root.pem"), "-F", first.url("/away"), "Proxy-Authorization:Basic eHg6eXk="],
                                    environment: ["https_proxy": "http://127.0.0.1:\(proxy.port)", "NO_PROXY": "localhost"])
        XCTAssertEqual(followed.status, 0, followed.stderr)
        let landed = String(decoding: landing.captured, as: UTF8.self)
        XCTAssertTrue(landed.hasPrefix("GET /landed"), landed)
        XCTAssertFalse(landed.lowercased().contains("proxy-authorization"), landed)
    }
}
