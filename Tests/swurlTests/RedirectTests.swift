import XCTest
import Foundation
import SwurlTestSupport

/// Redirects followed hop by hop: method and body rules, limits, `--all`, and credentials that
/// stay with their origin (checked by what the second server received).
final class RedirectTests: XCTestCase {
    private func redirect(_ code: Int, to target: String) throws -> String {
        try HTTPBin.url("/redirect-to?status_code=\(code)&url=" + target.urlQueryEscaped)
    }

    func testEveryRedirectCodeWithAndWithoutABody() throws {
        // (code, method sent, method expected at the target, body kept)
        let cases: [(Int, String, String, Bool)] = [
            (301, "POST", "GET", false), (302, "POST", "GET", false), (303, "POST", "GET", false),
            (307, "POST", "POST", true), (308, "POST", "POST", true),
            (301, "PUT", "PUT", true), (302, "PUT", "PUT", true), (303, "PUT", "GET", false),
            (307, "PUT", "PUT", true), (308, "PUT", "PUT", true),
        ]
        for (code, method, expected, kept) in cases {
            let r = try runSwurl(["-F", method, try redirect(code, to: "/anything"), "name=Ann"])
            XCTAssertEqual(r.status, 0, "\(code) \(method): \(r.stderr)")
            let echo = try r.json()
            XCTAssertEqual(echo["method"] as? String, expected, "\(code) \(method)")
            if kept {
                XCTAssertEqual(echo["json"] as? [String: String], ["name": "Ann"], "\(code) \(method)")
            } else {
                XCTAssertEqual(echo["data"] as? String, "", "\(code) \(method)")
                XCTAssertNil((echo["headers"] as? [String: String])?["Content-Type"], "\(code) \(method)")
            }
        }
        for code in [301, 302, 303, 307, 308] {
            let r = try runSwurl(["-F", try redirect(code, to: "/anything")])
            XCTAssertEqual(try r.json()["method"] as? String, "GET", "\(code) without a body")
        }
    }

    /// A URL's user info goes with every hop to its origin, also one an absolute Location names
    /// without it (as curl and HTTPie send it; it was dropped, and the hop got a 401); never to
    /// another origin.
    func testURLCredentialsFollowAnAbsoluteSameOriginRedirect() throws {
        let port = try HTTPBin.shared().port
        func to(_ host: String) -> String {
            let target = "http://\(host):\(port)/basic-auth/u/p"
            return "http://u:p@127.0.0.1:\(port)/redirect-to?url=" + (target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? target)
        }
        let same = try runSwurl(["--no-config", "-F", "--check-status", "-q", to("127.0.0.1")])
        XCTAssertEqual(same.status, 0, same.stderr)
        let other = try runSwurl(["--no-config", "-F", "--check-status", "-q", to("localhost")])
        XCTAssertEqual(other.status, 4, other.stderr)
    }

    func testAFileBodyIsSentAgainOn307() throws {
        let dir = TestPaths.temporaryDirectory()
        try "from a file".write(toFile: dir + "/body.txt", atomically: true, encoding: .utf8)
        let r = try runSwurl(["-F", "--multipart", "POST", try redirect(307, to: "/anything"), "doc@body.txt"], directory: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try r.json()["files"] as? [String: String], ["doc": "from a file"])
    }

    /// Stdin redirected from a regular file longer than the read-ahead is read again from where
    /// it started (the shell may have read some of it first) and sent again at a 307 and a
    /// `--retry`, as curl and HTTPie, which hold the file, send it; it failed with 66 ("cannot be
    /// read twice"). (The first hop is a server that reads the whole body before it answers:
    /// httpbin answers a redirect unread, and its close can reset the upload.)
    func testStdinFromARegularFileIsSentAgainAtA307AndARetry() throws {
        let dir = TestPaths.temporaryDirectory()
        let line = String(repeating: "0123456789abcdef", count: 4) + "\n"
        let text = String(repeating: line, count: (3 << 19) / line.utf8.count)
        try text.write(toFile: dir + "/big.txt", atomically: true, encoding: .utf8)
        let server = try ScriptedServer()
        let hop = server.url("/redirect?code=307&to=" + (try HTTPBin.url("/anything")).urlQueryEscaped)
        let r = try runSwurl(["-F", "POST", hop, "Content-Type:text/plain"], stdinFile: dir + "/big.txt")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try r.json()["data"] as? String, text)
        // The first 10 bytes read by someone else: the rest, from there, both times.
        let shell = try runProcess("/bin/sh", ["-c", "{ dd bs=10 count=1 of=/dev/null 2>/dev/null; exec \"$0\" -F POST \"$1\" Content-Type:text/plain; } < \"$2\"",
                                               TestPaths.binary, hop, dir + "/big.txt"], check: false)
        XCTAssertEqual(shell.status, 0, shell.stderr)
        let sent = try JSONSerialization.jsonObject(with: shell.stdout) as? [String: Any]
        XCTAssertEqual(sent?["data"] as? String, String(text.dropFirst(10)))
        // Stdin's offset ends where the body did, as a read(2) leaves it: a command after swurl
        // on the same stdin reads nothing more (it read the bytes past the first MiB again).
        let after = try runProcess("/bin/sh", ["-c", "{ \"$0\" -q POST \"$1\" > /dev/null; wc -c; } < \"$2\"",
                                               TestPaths.binary, try HTTPBin.url("/anything"), dir + "/big.txt"], check: false)
        XCTAssertEqual(String(decoding: after.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines), "0", after.stderr)
        let retried = try runSwurl(["--retry", "1", "--retry-delay", "0", "PUT", server.url("/flaky?key=stdin&fails=1")], stdinFile: dir + "/big.txt")
        XCTAssertEqual(retried.status, 0, retried.stderr)
        XCTAssertFalse(retried.stderr.contains("cannot resend"), retried.stderr)
        XCTAssertEqual(server.requests().filter { $0["method"] as? String == "PUT" }.map { $0["body_len"] as? Int }, [text.utf8.count, text.utf8.count])
    }

    /// A multipart file field fed on stdin (`f@-`) is read ahead as a stdin body is: from a
    /// regular file, or a pipe that ends within the read-ahead, a 307 and a `--retry` send it
    /// again, with its length (it was always streamed in chunks: "cannot be read twice", exit 66,
    /// and a hint to use a regular file that stdin already was).
    func testAMultipartFieldFromStdinIsSentAgainAtA307AndARetry() throws {
        let dir = TestPaths.temporaryDirectory()
        let bytes = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try bytes.write(to: URL(fileURLWithPath: dir + "/s.bin"))
        let server = try ScriptedServer()
        let hop = server.url("/redirect?code=307&to=" + (try HTTPBin.url("/anything")).urlQueryEscaped)
        for (name, run) in [("file", { try runSwurl(["-F", "--multipart", "POST", hop, "f@-"], stdinFile: dir + "/s.bin") }),
                            ("pipe", { try runSwurl(["-F", "--multipart", "POST", hop, "f@-"], stdin: bytes) })] {
            let r = try run()
            XCTAssertEqual(r.status, 0, "\(name): \(r.stderr)")
            guard let received = try? r.json() else { return XCTFail("\(name): \(r.stderr) \(r.text.prefix(300))") }
            XCTAssertEqual((received["files"] as? [String: Any])?["f"] as? String, "data:application/octet-stream;base64," + bytes.base64EncodedString(), name)
            XCTAssertNil((received["headers"] as? [String: Any])?["Transfer-Encoding"], name)
        }
        let retried = try runSwurl(["--retry", "1", "--retry-delay", "0", "--retry-all-methods", "--multipart", "POST",
                                    server.url("/flaky?key=mstdin&fails=1"), "f@-"], stdinFile: dir + "/s.bin")
        XCTAssertEqual(retried.status, 0, retried.stderr)
        XCTAssertFalse(retried.stderr.contains("cannot resend"), retried.stderr)
        let lengths = server.requests().filter { $0["method"] as? String == "POST" && ($0["path"] as? String)?.hasPrefix("/flaky") == true }
            .map { $0["body_len"] as? Int }
        XCTAssertEqual(lengths.count, 2)
        XCTAssertEqual(lengths.first, lengths.last)
        XCTAssertGreaterThan(lengths.first.flatMap { $0 } ?? 0, 5000)
        // Past the read-ahead a pipe cannot be sent again: the hint names a file field.
        let long = try runSwurl(["-F", "--multipart", "POST", hop, "f@-"], stdin: Data(count: 1_200_000))
        XCTAssertEqual(long.status, 66, long.stderr)
        XCTAssertTrue(long.stderr.contains("give it as the file field NAME@FILE"), long.stderr)
    }

    /// Stdin that ended within the read-ahead is held, and a 307 sends it again; streamed
    /// (--chunked) it cannot be read twice, and swurl says so.
    func testAStdinBodyCannotBeSentTwiceAndSaysSo() throws {
        let held = try runSwurl(["-F", "POST", try redirect(307, to: "/anything")], stdin: Data("piped".utf8))
        XCTAssertEqual(held.status, 0, held.stderr)
        XCTAssertEqual(try held.json()["data"] as? String, "piped")
        let r = try runSwurl(["-F", "--chunked", "POST", try redirect(307, to: "/anything")], stdin: Data("piped".utf8))
        XCTAssertEqual(r.status, 66)
        XCTAssertTrue(r.stderr.contains("streamed from stdin"), r.stderr)
        // A FIFO named with @ is named (it said "came from stdin" to someone who used @FILE).
        let fifo = TestPaths.temporaryDirectory() + "/body.fifo"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/bin/sh")
        writer.arguments = ["-c", "printf piped > \"$0\"", fifo]
        try writer.run()
        let named = try runSwurl(["-F", "--chunked", "POST", try redirect(307, to: "/anything"), "@" + fifo])
        writer.waitUntilExit()
        XCTAssertEqual(named.status, 66, named.stderr)
        XCTAssertTrue(named.stderr.contains("streamed from '\(fifo)'") && named.stderr.contains("save the body to a regular file"), named.stderr)
        // A 303 needs no body: that works with stdin.
        XCTAssertEqual(try runSwurl(["-F", "POST", try redirect(303, to: "/get")], stdin: Data("piped".utf8)).status, 0)
    }

    /// Regression: a failure on a redirect's hop (refused, timed out, an empty reply) read as if
    /// the URL typed had failed; only TLS check failures named the hop. They all do now.
    func testAFailureOnARedirectHopNamesTheHop() throws {
        let first = try redirect(302, to: "http://127.0.0.1:1/gone")
        let origin = try XCTUnwrap(first.range(of: "/redirect-to").map { String(first[..<$0.lowerBound]) })
        let r = try runSwurl(["-F", first])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("(at http://127.0.0.1:1, after 1 redirect from \(origin))"), r.stderr)
        // The first URL failing says nothing of redirects.
        let direct = try runSwurl(["http://127.0.0.1:1/gone"])
        XCTAssertFalse(direct.stderr.contains("redirect"), direct.stderr)
    }

    /// A redirect's body is no answer: cut short, it stopped the exchange (exit 1, "transfer
    /// closed with 95 bytes remaining") where curl -L and HTTPie --follow go on. An empty
    /// Location is no redirect (it was exit 1, "the redirect target '' is not a valid URL").
    func testACutRedirectBodyIsDroppedAndAnEmptyLocationIsTheAnswer() throws {
        let cut = try SequenceServer([SequenceServer.Reply("302 Found", ["Location: /two", "Content-Length: 100"], body: Data("short".utf8)),
                                      SequenceServer.Reply("200 OK", ["Content-Length: 2"], body: Data("ok".utf8))])
        let har = TestPaths.temporaryDirectory() + "/cut.har"
        let followed = try runSwurl(["-F", "--check-status", "--har", har, cut.url("/one")])
        XCTAssertEqual(followed.status, 0, followed.stderr)
        XCTAssertEqual(followed.text, "ok")
        // The redirect's entry still says where it led (its body's error beside it).
        let log = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: har))) as? [String: Any]
        let entries = (log?["log"] as? [String: Any])?["entries"] as? [[String: Any]] ?? []
        XCTAssertEqual(entries.count, 2)
        XCTAssertEqual((entries.first?["response"] as? [String: Any])?["redirectURL"] as? String, cut.url("/two"))
        // A relative Location resolves against the request's URL as it is (RFC 3986, as libcurl
        // does for a whole redirect): it went to /a/b/one/sibling, the REPL's base-URL join.
        let relative = try SequenceServer([SequenceServer.Reply("302 Found", ["Location: sibling?q=a b", "Content-Length: 100"], body: Data("short".utf8)),
                                           SequenceServer.Reply("200 OK", ["Content-Length: 2"], body: Data("ok".utf8))])
        let resolved = try runSwurl(["-F", relative.url("/a/b/one")])
        XCTAssertEqual(resolved.status, 0, resolved.stderr)
        XCTAssertEqual(relative.requests().last?.split(separator: "\r\n").first, "GET /a/b/sibling?q=a+b HTTP/1.1")
        let empty = try SequenceServer([SequenceServer.Reply("302 Found", ["Location: ", "Content-Length: 4"], body: Data("moved".utf8.prefix(4)))])
        let answered = try runSwurl(["-F", "--print=h", empty.url("/one")])
        XCTAssertEqual(answered.status, 0, answered.stderr)
        XCTAssertTrue(answered.text.hasPrefix("HTTP/1.1 302 Found"), answered.text)
        XCTAssertEqual(try runSwurl(["-F", "--check-status", empty.url("/one")]).status, 3)
    }

    func testWithoutFollowTheRedirectIsTheResponse() throws {
        let r = try runSwurl(["-h", try redirect(302, to: "/get")])
        XCTAssertEqual(r.status, 0)
        XCTAssertTrue(r.text.hasPrefix("HTTP/1.1 302"), r.text)
    }

    func testMaxRedirectsExitsSix() throws {
        let r = try runSwurl(["-F", "--max-redirects", "2", try HTTPBin.url("/redirect/3")])
        XCTAssertEqual(r.status, 6)
        XCTAssertTrue(r.stderr.contains("too many redirects"), r.stderr)
        XCTAssertEqual(try runSwurl(["-F", "--max-redirects", "3", try HTTPBin.url("/redirect/3")]).status, 0)
    }

    func testAllPrintsEveryHop() throws {
        let r = try runSwurl(["-F", "--all", "-h", try HTTPBin.url("/redirect/2")])
        XCTAssertEqual(r.status, 0, r.stderr)
        let statusLines = r.text.components(separatedBy: "\r\n").filter { $0.hasPrefix("HTTP/1.1 ") }
        XCTAssertEqual(statusLines.count, 3, r.text)
        let plain = try runSwurl(["-F", "-h", try HTTPBin.url("/redirect/2")])
        XCTAssertEqual(plain.text.components(separatedBy: "\r\n").filter { $0.hasPrefix("HTTP/1.1 ") }.count, 1)
    }

    /// -v with -F shows every hop, as HTTPie's -v and curl's -v do: it printed the first request
    /// (a POST with its body) above the last response (the GET's 200), as if one answered the
    /// other; `-p Hh` and `-p HBhb` did so still.
    func testVerboseFollowPrintsEveryHop() throws {
        let r = try runSwurl(["-v", "-F", "POST", try HTTPBin.url("/redirect-to"), "url==/anything", "a=1"])
        XCTAssertEqual(r.status, 0, r.stderr)
        // Lines by either ending: a raw request body ends with "\n\n" before the next head.
        let lines = r.text.replacingOccurrences(of: "\r\n", with: "\n").components(separatedBy: "\n")
        XCTAssertEqual(lines.filter { $0.hasPrefix("HTTP/1.1 ") }.map { String($0.prefix(12)) }, ["HTTP/1.1 302", "HTTP/1.1 200"], r.text)
        XCTAssertEqual(lines.filter { $0.hasPrefix("POST ") || $0.hasPrefix("GET ") }, ["POST /redirect-to?url=/anything HTTP/1.1", "GET /anything HTTP/1.1"], r.text)
        // So does any selection that shows the request (-p Hh, -p HBhb: what -v stands for).
        for letters in ["Hh", "HBhb", "H"] {
            let p = try runSwurl(["-p", letters, "-F", "POST", try HTTPBin.url("/redirect-to"), "url==/anything", "a=1"])
            XCTAssertEqual(p.status, 0, p.stderr)
            let shown = p.text.replacingOccurrences(of: "\r\n", with: "\n").components(separatedBy: "\n")
            XCTAssertEqual(shown.filter { $0.hasPrefix("POST ") || $0.hasPrefix("GET ") }, ["POST /redirect-to?url=/anything HTTP/1.1", "GET /anything HTTP/1.1"], letters + ": " + p.text)
            XCTAssertEqual(shown.filter { $0.hasPrefix("HTTP/1.1 ") }.map { String($0.prefix(12)) },
                           letters.contains("h") ? ["HTTP/1.1 302", "HTTP/1.1 200"] : [], letters + ": " + p.text)
        }
        // Without -F there is one hop, and -v is accepted without --all's "add -F".
        let one = try runSwurl(["-v", try HTTPBin.url("/redirect/1")])
        XCTAssertEqual(one.status, 0, one.stderr)
        XCTAssertEqual(one.text.components(separatedBy: "\r\n").filter { $0.hasPrefix("HTTP/1.1 ") }.count, 1, one.text)
    }

    /// `-vv` is HTTPie's: `-v` and the timing after the response (`m`); it was `-v` silently.
    func testDoubleVerboseAddsTheTiming() throws {
        let url = try HTTPBin.url("/get")
        let twice = try runSwurl(["-vv", url])
        XCTAssertEqual(twice.status, 0, twice.stderr)
        XCTAssertTrue(twice.text.contains("GET /get HTTP/1.1") && twice.text.contains("Total "), twice.text)
        XCTAssertFalse(try runSwurl(["-v", url]).text.contains("Total "))
    }

    /// Raw (piped) output keeps a body's bytes as they came; a hop's body without a final newline
    /// ran into the next message ("movedok", "movedGET /echo"). A blank line sets it apart, as
    /// HTTPie does when stdout is not a terminal; the final body stays byte for byte.
    func testAllSetsAnIntermediateBodyApartInRawOutput() throws {
        let server = try ScriptedServer()
        let url = server.url("/redirect?to=/echo&body=moved")
        let bodies = try runSwurl(["-F", "--all", "-b", url])
        XCTAssertEqual(bodies.status, 0, bodies.stderr)
        XCTAssertEqual(bodies.text, "moved\n\nok")
        let verbose = try runSwurl(["-F", "--all", "-v", url])
        XCTAssertTrue(verbose.text.contains("\r\n\r\nmoved\n\nGET /echo HTTP/1.1\r\n"), verbose.text)
        XCTAssertTrue(verbose.text.hasSuffix("\r\n\r\nok"), verbose.text)
        // Headers only: the head's blank line already ends it.
        let heads = try runSwurl(["-F", "--all", "-h", url])
        XCTAssertFalse(heads.text.contains("\r\n\r\n\n"), heads.text)
        XCTAssertEqual(server.requests().count, 6)
    }

    func testCredentialsAreKeptOnTheSameOrigin() throws {
        let r = try runSwurl(["-F", "-a", "u:p", try redirect(302, to: "/headers"), "Cookie:a=b", "X-Other:1"])
        let headers = try r.json()["headers"] as? [String: String] ?? [:]
        XCTAssertEqual(headers["Authorization"], "Basic dTpw")
        XCTAssertEqual(headers["Cookie"], "a=b")
    }

    func testCredentialsAreDroppedWhenTheHostChanges() throws {
        // 127.0.0.1 → localhost on the same port: another origin, the same httpbin echoes.
        let port = try HTTPBin.shared().port
        let target = "http://localhost:\(port)/headers"
        for extra in [["-a", "u:p"], ["Authorization:Bearer secret"], ["-A", "bearer", "-a", "tok"]] {
            let r = try runSwurl(["-F", try redirect(302, to: target), "Cookie:a=b", "Proxy-Authorization:Basic eDp5", "X-Other:1"] + extra)
            XCTAssertEqual(r.status, 0, r.stderr)
            let headers = try r.json()["headers"] as? [String: String] ?? [:]
            XCTAssertNil(headers["Authorization"], "\(extra)")
            XCTAssertNil(headers["Cookie"], "\(extra)")
            XCTAssertNil(headers["Proxy-Authorization"], "\(extra)")
            XCTAssertEqual(headers["X-Other"], "1", "other headers still go")
        }
    }

    /// User info a server puts in a Location is not the user's: not sent to the new origin (it
    /// was, as Basic), and a login alone there does not pull that host's netrc password when
    /// `-a` was given (it did). curl 7.88 sends neither.
    func testALocationsUserInfoIsNeverSent() throws {
        let port = try HTTPBin.shared().port
        let dir = TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "machine localhost login luser password netrcsecret\n".write(toFile: dir + "/netrc", atomically: true, encoding: .utf8)
        // Without -a a hop to another host takes that host's netrc entry (as curl's): the
        // first two run without one.
        for (target, extra, netrc) in [("http://lu:locsecret@localhost:\(port)/headers", [String](), dir + "/none"),
                                       ("http://lu:locsecret@127.0.0.1:\(port)/headers", [], dir + "/none"),
                                       ("http://luser@localhost:\(port)/headers", ["-a", "u:p"], dir + "/netrc")] {
            let r = try runSwurl(["-F", try redirect(302, to: target)] + extra, environment: ["NETRC": netrc])
            XCTAssertEqual(r.status, 0, r.stderr)
            // Also on the same origin (127.0.0.1): the Location's user info is not taken.
            XCTAssertNil((try r.json()["headers"] as? [String: String])?["Authorization"], target)
        }
        // Credentials in the first URL, as -a, keep another host's netrc password from a hop to it.
        let first = "http://u:p@127.0.0.1:\(port)/redirect-to?url=" + "http://localhost:\(port)/headers".urlQueryEscaped
        let netrcHop = try runSwurl(["-F", first], environment: ["NETRC": dir + "/netrc"])
        XCTAssertNil((try netrcHop.json()["headers"] as? [String: String])?["Authorization"], netrcHop.stderr)
        // The user's own credentials still follow a same-origin Location that carries other user info.
        let same = try runSwurl(["-F", "-a", "u:p", try redirect(302, to: "http://x:y@127.0.0.1:\(port)/headers")])
        XCTAssertEqual((try same.json()["headers"] as? [String: String])?["Authorization"], "Basic dTpw", same.stderr)
    }

    func testCredentialsAreDroppedWhenThePortChanges() throws {
        let second = try ScriptedServer()
        let r = try runSwurl(["-F", "-a", "u:p", try redirect(307, to: second.url("/echo")), "Cookie:a=b"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let received = second.requests().last?["headers"] as? [String: String] ?? [:]
        XCTAssertNil(received["Authorization"])
        XCTAssertNil(received["Cookie"])
        XCTAssertNotNil(received["User-Agent"])
    }

    /// https → http is another origin: nothing secret follows the downgrade (checked by what the
    /// plain-HTTP server received). With -k (no policy to keep) the redirect itself is followed.
    func testCredentialsAreDroppedOnAnHTTPSToHTTPDowngrade() throws {
        let pki = try CertificateFactory.shared()
        let target = try HTTPBin.url("/headers")
        let tls = try TLSTestServer(chain: pki.path("leaf-chain.pem"), key: pki.path("leaf.key"), redirect: target)
        let dir = TestPaths.temporaryDirectory()
        try "machine 127.0.0.1 login alice password s3cret\n".write(toFile: dir + "/netrc", atomically: true, encoding: .utf8)
        for extra in [["-a", "u:p"], ["Authorization:Bearer secret"], []] {
            let r = try runSwurl(["-k", "-F", "\(tls.url)/start", "Cookie:a=b", "X-Other:1"] + extra,
                                 environment: ["NETRC": dir + "/netrc"])
            XCTAssertEqual(r.status, 0, r.stderr)
            let headers = try r.json()["headers"] as? [String: String] ?? [:]
            XCTAssertNil(headers["Authorization"], "\(extra)")
            XCTAssertNil(headers["Cookie"], "\(extra)")
            XCTAssertEqual(headers["X-Other"], "1")
        }
        // The first hop did get them: the TLS server saw a request with bytes.
        XCTAssertGreaterThan(tls.connection(after: 0)?.bytes ?? 0, 0)
    }

    /// Under a TLS policy (a checked chain or pins) an https exchange never continues over plain
    /// http: exit 7, and the http server is never contacted.
    func testAVerifiedExchangeRefusesARedirectToPlainHTTP() throws {
        let pki = try CertificateFactory.shared()
        let plain = try CaptureServer()
        let tls = try TLSTestServer(chain: pki.path("leaf-chain.pem"), key: pki.path("leaf.key"),
                                    redirect: "http://127.0.0.1:\(plain.server.port)/plain")
        for policy in [["--cacert", pki.path("root.pem")], ["-k", "--pin-pubkey", try pki.pin("leaf.pem")]] {
            let r = try runSwurl(policy + ["-F", "\(tls.url)/start"])
            XCTAssertEqual(r.status, 7, r.stderr)
            XCTAssertTrue(r.stderr.contains("refused the redirect from https://127.0.0.1"), r.stderr)
        }
        try plain.sync()
        XCTAssertEqual(plain.captured.count, 0)
    }

    func testServerCookiesFollowTheChain() throws {
        let r = try runSwurl(["-F", try HTTPBin.url("/cookies/set?k=v")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try r.json()["cookies"] as? [String: String], ["k": "v"])
    }

    func testNonHTTPTargetsAreRefused() throws {
        let r = try runSwurl(["-F", try redirect(302, to: "file:///etc/passwd")])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("not an http or https URL"), r.stderr)
    }
}
