import XCTest
import Foundation
import SwurlTestSupport

/// Set-Cookie conformance: one table of cases in the style of the public cookie suites (the
/// IETF httpwg http-state tests, WPT's cookie tests), each with the `Cookie` header RFC 6265
/// says the next request carries. Every case runs in two shapes, with swurl and with curl's
/// jar side by side, against `CookieServer`, which logs the header it received:
///
/// - **runs**: one run per response that sets cookies, then one that requests the case's URL,
///   sharing a file (`swurl --session FILE`, `curl -b FILE -c FILE`);
/// - **redirect**: one run that follows redirects through the same responses to that URL
///   (`swurl -F`, `curl -L`), so the cookies are set on one hop and sent on a later one.
///
/// swurl must match or beat curl: wherever curl's result is RFC 6265's, swurl's is too. The
/// summary table (case, expected, curl, swurl per shape) is printed. Host names other than
/// `localhost` and `127.0.0.1` reach the server through `--resolve`.
final class CookieConformanceTests: XCTestCase {
    /// One Set-Cookie case.
    struct Case {
        var name: String
        /// The `Set-Cookie` values of each response, in order (one response per inner array).
        var steps: [[String]]
        /// The `Cookie` header RFC 6265 gives the last request; nil for none.
        var expected: String?
        var setHost = "127.0.0.1"
        var setPath = "/set"
        /// The last request's host; nil for `setHost`.
        var getHost: String? = nil
        var getPath = "/get"
        /// The last request starts at this host and is redirected to `getHost`.
        var via: String? = nil
    }

    static let past = "Thu, 01 Jan 1970 00:00:01 GMT"
    static let future = "Wed, 01 Jan 2098 00:00:00 GMT"
    static let resolved = ["example.test", "www.example.test", "api.example.test", "www.example.co.uk", "api.example.co.uk"]

    static func c(_ name: String, _ steps: [[String]], _ expected: String?, set: String = "127.0.0.1",
                  setPath: String = "/set", get: String? = nil, getPath: String = "/get", via: String? = nil) -> Case {
        Case(name: name, steps: steps, expected: expected, setHost: set, setPath: setPath, getHost: get,
             getPath: getPath, via: via)
    }

    /// The table. New cookie cases go here.
    static let cases: [Case] = {
        let (past, future) = (CookieConformanceTests.past, CookieConformanceTests.future)
        let many = (0..<40).map { String(format: "c%02d=%d", $0, $0) }
        let long = String(repeating: "x", count: 4000)
        return [
            // Names and values (RFC 6265 §5.2).
            c("basic", [["a=1"]], "a=1"),
            c("two in one response", [["a=1", "b=2"]], "a=1; b=2"),
            c("= in the value", [["a=b=c"]], "a=b=c"),
            c("quoted value kept", [["a=\"x y\""]], "a=\"x y\""),
            c("blanks around name and value", [["  a  =  1  "]], "a=1"),
            c("blank inside the value", [["a=1 2"]], "a=1 2"),
            c("empty value", [["a="]], "a="),
            c("empty name ignored", [["=abc"]], nil),
            c("no = ignored", [["abc"]], nil),
            c("non-ASCII value", [["a=caf\u{E9}"]], "a=caf\u{E9}"),
            c("non-ASCII name", [["caf\u{E9}=1"]], "caf\u{E9}=1"),
            // `\xE9` is the byte 0xE9 (not UTF-8) on the wire, both ways (CookieServer).
            c("value byte that is not UTF-8", [["a=caf\\xe9"]], "a=caf\\xe9"),
            c("4000-byte value", [["a=" + long]], "a=" + long),
            c("name byte that is not UTF-8", [["caf\\xe9=1"]], "caf\\xe9=1"),
            c("tab inside the value", [["a=x\ty"]], "a=x\ty"),
            c("comma in the value", [["a=1,2"]], "a=1,2"),
            c("blank inside the name", [["a b=1"]], "a b=1"),
            c("name starting with $", [["$Version=1"]], "$Version=1"),
            c("40 cookies in one response", [many], many.joined(separator: "; ")),
            c("; ends the value", [["a=1;b=2"]], "a=1"),
            // Path (§5.1.4, §5.2.4).
            c("Path below", [["a=1; Path=/dir"]], "a=1", getPath: "/dir/x"),
            c("Path exact", [["a=1; Path=/dir"]], "a=1", getPath: "/dir"),
            c("Path not a segment prefix", [["a=1; Path=/dir"]], nil, getPath: "/dirx"),
            c("Path elsewhere", [["a=1; Path=/dir"]], nil, getPath: "/other"),
            c("Path with trailing / vs the bare dir", [["a=1; Path=/dir/"]], nil, getPath: "/dir"),
            c("Path with trailing / below", [["a=1; Path=/dir/"]], "a=1", getPath: "/dir/x"),
            c("Path is case-sensitive", [["a=1; Path=/Dir"]], nil, getPath: "/dir/x"),
            c("empty Path is the default path", [["a=1; Path="]], "a=1", setPath: "/p/q/set", getPath: "/p/q/get"),
            c("empty Path is not /", [["a=1; Path="]], nil, setPath: "/p/q/set", getPath: "/get"),
            c("relative Path is the default path", [["a=1; Path=rel"]], "a=1", setPath: "/p/q/set", getPath: "/p/q/x"),
            c("relative Path is not /rel", [["a=1; Path=rel"]], nil, setPath: "/p/q/set", getPath: "/rel"),
            c("quoted Path is the default path", [["a=1; Path=\"/dir\""]], "a=1", getPath: "/get"),
            c("default path: sibling", [["a=1"]], "a=1", setPath: "/a/b/c", getPath: "/a/b/d"),
            c("default path: parent", [["a=1"]], nil, setPath: "/a/b/c", getPath: "/a"),
            c("default path: not a segment prefix", [["a=1"]], nil, setPath: "/a/b/c", getPath: "/a/bc"),
            c("default path of a top-level file is /", [["a=1"]], "a=1", setPath: "/set", getPath: "/x/y"),
            c("Path=/ from deep", [["a=1; Path=/"]], "a=1", setPath: "/a/b/c", getPath: "/z"),
            c("Path percent-encoded", [["a=1; Path=/a%20b"]], "a=1", getPath: "/a%20b/x"),
            // Domain (§5.1.3, §5.2.3, §5.3).
            c("Domain = host", [["a=1; Domain=localhost"]], "a=1", set: "localhost"),
            c("Domain with leading dot", [["a=1; Domain=.localhost"]], "a=1", set: "localhost"),
            c("Domain in capitals", [["a=1; Domain=LOCALHOST"]], "a=1", set: "localhost"),
            c("Domain of another site", [["a=1; Domain=example.com"]], nil, set: "localhost"),
            c("Domain = IP host", [["a=1; Domain=127.0.0.1"]], "a=1"),
            c("Domain a suffix of an IP", [["a=1; Domain=0.0.1"]], nil),
            c("Domain a name on an IP host", [["a=1; Domain=localhost"]], nil),
            c("empty Domain is host-only", [["a=1; Domain="]], "a=1", set: "localhost"),
            c("Domain with a trailing dot", [["a=1; Domain=example.test."]], nil, set: "www.example.test"),
            c("Domain: sent to a subdomain", [["a=1; Domain=example.test"]], "a=1", set: "www.example.test", get: "api.example.test"),
            c("Domain: sent to the setter", [["a=1; Domain=example.test"]], "a=1", set: "www.example.test"),
            c("Domain: sent to the domain itself", [["a=1; Domain=example.test"]], "a=1", set: "www.example.test", get: "example.test"),
            c("host-only: not to a sibling", [["a=1"]], nil, set: "www.example.test", get: "api.example.test"),
            c("host-only: not to a subdomain", [["a=1"]], nil, set: "example.test", get: "www.example.test"),
            c("Domain of a sibling refused", [["a=1; Domain=api.example.test"]], nil, set: "www.example.test", get: "api.example.test"),
            c("Domain a public suffix (co.uk)", [["a=1; Domain=co.uk"]], nil, set: "www.example.co.uk", get: "api.example.co.uk"),
            c("Domain a top-level domain", [["a=1; Domain=test"]], nil, set: "www.example.test", get: "api.example.test"),
            c("host-only: not to another host", [["a=1"]], nil, set: "localhost", get: "127.0.0.1"),
            c("redirect from another host: its own cookies", [["a=1"]], "a=1", get: "127.0.0.1", via: "localhost"),
            c("redirect from 127.0.0.1 to localhost", [["a=1"]], "a=1", set: "localhost", via: "127.0.0.1"),
            c("redirect to a subdomain of a Domain cookie", [["a=1; Domain=example.test"]], "a=1", set: "www.example.test",
              get: "api.example.test", via: "127.0.0.1"),
            c("redirect carries no cookie to another host", [["a=1"]], nil, set: "127.0.0.1", get: "localhost", via: "127.0.0.1"),
            // Max-Age (§5.2.2) before Expires (§5.3 step 3).
            c("Max-Age=0 is not stored", [["a=1; Max-Age=0"]], nil),
            c("negative Max-Age", [["a=1; Max-Age=-1"]], nil),
            c("Max-Age not a number ignored", [["a=1; Max-Age=abc"]], "a=1"),
            c("Max-Age with + ignored", [["a=1; Max-Age=+60"]], "a=1"),
            c("Max-Age in the future", [["a=1; Max-Age=3600"]], "a=1"),
            c("Max-Age past 64 bits", [["a=1; Max-Age=99999999999999999999"]], "a=1"),
            c("Expires in the year 9999", [["a=1; Expires=Fri, 31 Dec 9999 23:59:59 GMT"]], "a=1"),
            c("Max-Age beats a past Expires", [["a=1; Max-Age=3600; Expires=\(past)"]], "a=1"),
            c("Max-Age beats a past Expires before it", [["a=1; Expires=\(past); Max-Age=3600"]], "a=1"),
            c("Max-Age=0 beats a future Expires", [["a=1; Max-Age=0; Expires=\(future)"]], nil),
            c("duplicate Max-Age: last (0) wins", [["a=1; Max-Age=60; Max-Age=0"]], nil),
            c("duplicate Max-Age: last (60) wins", [["a=1; Max-Age=0; Max-Age=60"]], "a=1"),
            c("MAX-AGE in capitals", [["a=1; MAX-AGE=0"]], nil),
            // Expires (§5.1.1 dates).
            c("Expires in the past", [["a=1; Expires=\(past)"]], nil),
            c("Expires in the future", [["a=1; Expires=\(future)"]], "a=1"),
            c("Expires RFC 850 form, future", [["a=1; Expires=Wed, 01-Jan-2098 00:00:00 GMT"]], "a=1"),
            c("Expires asctime form, future", [["a=1; Expires=Wed Jan  1 00:00:00 2098"]], "a=1"),
            c("Expires without weekday, future", [["a=1; Expires=01 Jan 2098 00:00:00 GMT"]], "a=1"),
            c("Expires two-digit year 70 is 1970", [["a=1; Expires=Thu, 01-Jan-70 00:00:01 GMT"]], nil),
            c("Expires in 2000", [["a=1; Expires=Sat, 01 Jan 2000 00:00:00 GMT"]], nil),
            c("Expires garbage ignored", [["a=1; Expires=soon"]], "a=1"),
            // Flags and other attributes.
            c("Secure not sent over http (localhost)", [["a=1; Secure"]], nil, set: "localhost"),
            c("Secure not sent over http (a name)", [["a=1; Secure"]], nil, set: "www.example.test"),
            c("HttpOnly sent over HTTP", [["a=1; HttpOnly"]], "a=1"),
            c("SameSite=Strict ignored", [["a=1; SameSite=Strict"]], "a=1"),
            c("SameSite=None ignored", [["a=1; SameSite=None"]], "a=1"),
            c("unknown attribute ignored", [["a=1; Foo=bar"]], "a=1"),
            c("duplicate Path: last wins", [["a=1; Path=/dir; Path=/"]], "a=1"),
            c("duplicate Domain: last (bad) wins", [["a=1; Domain=localhost; Domain=example.com"]], nil, set: "localhost"),
            c("duplicate Domain: last (good) wins", [["a=1; Domain=example.com; Domain=localhost"]], "a=1", set: "localhost"),
            c("attribute names in lower case", [["a=1; path=/dir; max-age=60"]], "a=1", getPath: "/dir/x"),
            // Order (§5.4 step 2): longer paths first, then earlier creation.
            c("longer path first", [["a=1; Path=/", "b=2; Path=/x/y", "c=3; Path=/x"]], "b=2; c=3; a=1", getPath: "/x/y/z"),
            c("earlier creation first, across responses", [["b=1"], ["a=2"]], "b=1; a=2"),
            c("earlier creation first, longer name later", [["a=1", "zz=2"]], "a=1; zz=2"),
            c("earlier creation first, three responses", [["x=1"], ["y=2"], ["z=3"]], "x=1; y=2; z=3"),
            // Replacement and deletion (§5.3 step 11).
            c("a new value replaces", [["a=1"], ["a=2"]], "a=2"),
            c("a replaced cookie keeps its creation time", [["a=1", "b=2"], ["a=3"]], "a=3; b=2"),
            c("same name, other path: two cookies", [["a=1; Path=/"], ["a=2; Path=/dir"]], "a=2; a=1", getPath: "/dir/x"),
            c("deleted by Max-Age=0", [["a=1"], ["a=1; Max-Age=0"]], nil),
            c("deleted by a past Expires", [["a=1"], ["a=; Expires=\(past)"]], nil),
            c("deleting another path keeps this one", [["a=1; Path=/dir"], ["a=x; Path=/; Max-Age=0"]], "a=1", getPath: "/dir/x"),
            c("deleting one of two", [["a=1", "b=2"], ["a=1; Max-Age=0"]], "b=2"),
            c("a Domain cookie replaces the host-only one", [["a=1"], ["a=2; Domain=localhost"]], "a=2", set: "localhost"),
            c("a session cookie replaces a persistent one", [["a=1; Max-Age=3600"], ["a=2"]], "a=2"),
            c("set again after deletion", [["a=1"], ["a=1; Max-Age=0"], ["a=3"]], "a=3"),
        ]
    }()

    private enum Tool: String { case swurl, curl }
    private enum Shape: String { case runs, redirect, jar }

    private struct Outcome: Equatable {
        var cookie: String?
        var reached = true
        var failures: [String] = []
        var shown: String {
            guard reached else { return "(not reached)" }
            return cookie.map { $0.count > 24 ? String($0.prefix(21)) + "…" : $0 } ?? "-"
        }
    }

    private static func enc(_ s: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~/")
        return s.addingPercentEncoding(withAllowedCharacters: allowed) ?? s
    }

    func testSwurlMatchesOrBeatsCurlsJarInEveryCase() throws {
        XCTAssertGreaterThanOrEqual(Self.cases.count, 60)
        XCTAssertEqual(Set(Self.cases.map(\.name)).count, Self.cases.count, "case names must be unique")
        var scripted: [String: [[String]]] = [:]
        for (i, k) in Self.cases.enumerated() { scripted["\(i)"] = k.steps }
        let server = try CookieServer(cases: scripted)
        let port = server.port
        let dir = TestPaths.temporaryDirectory()
        let resolve = Self.resolved.flatMap { ["--resolve", "\($0):\(port):127.0.0.1"] }
        var env = ProcessInfo.processInfo.environment
        for key in ["http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy", "no_proxy", "NO_PROXY"] {
            env.removeValue(forKey: key)
        }

        func run(_ tool: Tool, _ shape: Shape, _ index: Int) -> Outcome {
            let k = Self.cases[index]
            let tag = "\(tool)-\(shape)"
            let file = "\(dir)/\(index)-\(tag)"
            func url(_ host: String, _ path: String, _ query: String) -> String {
                "http://\(host):\(port)\(path)?\(query)&run=\(tag)"
            }
            let final = url(k.getHost ?? k.setHost, k.getPath, "get=\(index)")
            let last = k.via.map { url($0, "/hop", "to=" + Self.enc(final)) } ?? final
            var urls: [String] = []
            switch shape {
            case .runs:
                urls = k.steps.indices.map { url(k.setHost, k.setPath, "case=\(index)&step=\($0)") } + [last]
            case .redirect, .jar:
                var next = last
                for step in k.steps.indices.reversed() {
                    next = url(k.setHost, k.setPath, "case=\(index)&step=\(step)&to=" + Self.enc(next))
                }
                urls = [next]
            }
            var outcome = Outcome()
            for u in urls {
                let args: [String]
                let exe: String
                switch tool {
                case .swurl:
                    exe = TestPaths.binary
                    args = (shape == .jar ? [] : ["--session", file + ".json"]) + ["-F", "--timeout", "20"] + resolve + [u]
                case .curl:
                    exe = "/usr/bin/curl"
                    args = ["-sS", "-o", "/dev/null", "-b", file + ".jar", "-c", file + ".jar", "-L", "--max-time", "20"] + resolve + [u]
                }
                var runEnv = env
                runEnv["XDG_CONFIG_HOME"] = dir + "/config"
                do {
                    let r = try runProcess(exe, args, environment: runEnv, check: false)
                    if r.status != 0 { outcome.failures.append("\(tool) exited \(r.status) on \(u): \(r.stderr.prefix(300))") }
                } catch {
                    outcome.failures.append("\(tool) did not run: \(error)")
                }
            }
            return outcome
        }

        // The last shape: the redirect without a session, which must send what it sends with one
        // (an empty or relative Path was every path's without, the engine's own scope).
        let shapes: [(Tool, Shape)] = [(.curl, .runs), (.swurl, .runs), (.curl, .redirect), (.swurl, .redirect), (.swurl, .jar)]
        var results = Self.cases.indices.map { i in shapes.map { run($0.0, $0.1, i) } }
        // What the server received, read once at the end (not once a run: the log grows to some
        // 700 lines): the last request of each case and shape that asked for its cookies.
        var last: [String: CookieServer.Received] = [:]
        for r in server.requests() {
            if let get = r.query["get"], let run = r.query["run"] { last[get + " " + run] = r }
        }
        for i in results.indices {
            for (j, (tool, shape)) in shapes.enumerated() {
                let received = last["\(i) \(tool)-\(shape)"]
                results[i][j].reached = received != nil
                results[i][j].cookie = received?.cookie
            }
        }

        var lines = ["case | expected | curl runs | swurl runs | curl redirect | swurl redirect | swurl redirect, no session"]
        var counts = (curl: 0, swurl: 0, beats: 0, total: 0)
        var beaten: [String] = []
        for (i, k) in Self.cases.enumerated() {
            let row = results[i]
            let expected = Outcome(cookie: k.expected)
            func mark(_ o: Outcome) -> String { (o == expected ? "ok " : "XX ") + o.shown }
            lines.append("\(k.name) | \(expected.shown) | " + row.map(mark).joined(separator: " | "))
            for (curl, swurl, shape) in [(row[0], row[1], "runs"), (row[2], row[3], "redirect")] {
                counts.total += 1
                let curlPasses = curl == expected, swurlPasses = swurl == expected
                if curlPasses { counts.curl += 1 }
                if swurlPasses { counts.swurl += 1 }
                if swurlPasses && !curlPasses { counts.beats += 1; beaten.append("\(k.name) (\(shape))") }
                if curlPasses {
                    XCTAssertEqual(swurl.reached ? swurl.cookie ?? "-" : "(not reached)", expected.cookie ?? "-",
                                   "\(k.name) (\(shape)): curl's jar sends what RFC 6265 says, swurl does not")
                }
                // swurl never fails a run, whatever the server set (a saved cookie must never lock the session).
                XCTAssertEqual(swurl.failures, [], "\(k.name) (\(shape))")
            }
            XCTAssertEqual(row[4].reached ? row[4].cookie ?? "-" : "(not reached)", row[3].reached ? row[3].cookie ?? "-" : "(not reached)",
                           "\(k.name): one redirect chain sends other cookies without a session than with one")
        }
        lines.append("\(Self.cases.count) cases x 2 shapes = \(counts.total): curl passes \(counts.curl), swurl passes \(counts.swurl), "
                     + "swurl beats curl in \(counts.beats)" + (beaten.isEmpty ? "" : ": " + beaten.joined(separator: ", ")))
        print(lines.joined(separator: "\n"))
    }
}
