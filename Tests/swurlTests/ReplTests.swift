import Foundation
import XCTest
import SwurlTestSupport

/// `swurl repl` end to end: script mode (stdin not a terminal) against httpbin and a TLS server,
/// and a real terminal session on a pseudo-terminal.
final class ReplTests: XCTestCase {
    /// The `url` values httpbin echoed, in order.
    private func urls(_ text: String) -> [String] {
        text.split(separator: "\n").compactMap { line in
            let t = line.trimmingCharacters(in: .whitespaces)
            guard t.hasPrefix("\"url\": \"") else { return nil }
            return String(t.dropFirst(8).prefix { $0 != "\"" })
        }
    }

    private func script(_ lines: [String], _ args: [String]) throws -> SwurlResult {
        try runSwurl(["repl"] + args, stdin: Data((lines.joined(separator: "\n") + "\n").utf8))
    }

    /// A target with credentials (`user:pw@host:port/path`) is a URL, as in a one-shot request:
    /// it was taken for a header `user` (its value the password) sent to the base's host.
    func testATargetWithCredentialsIsAURLNotAHeaderToTheBase() throws {
        let r = try script(["u:pw9@localhost:9/get", "get ann@localhost:9/get"], ["http://127.0.0.1:9/base", "--offline"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertFalse(r.text.contains("pw9@"), r.text)
        XCTAssertFalse(r.text.contains("Host: 127.0.0.1"), r.text)
        XCTAssertEqual(r.text.components(separatedBy: "GET /get HTTP/1.1\r\nHost: localhost:9\r\n").count - 1, 2, r.text)
        XCTAssertTrue(r.text.contains("Authorization: Basic " + Data("u:pw9".utf8).base64EncodedString()), r.text)
    }

    /// Regression: with no path first, a path-shaped word among the items (`X-A:1
    /// '/items?id=3'`) became the body field `/items?id` POSTed to the base; a lone word in
    /// capitals (`README`) went to the base as a method; a note named an origin made up from a
    /// line then refused for its URL. Lines run against a capture server: nothing reaches it.
    func testPathsAfterItemsAndLoneCapitalWordsAreRefused() throws {
        let capture = try CaptureServer()
        let r = try script(["X-A:1 '/items?id=3'", "X-A:1 users?id=3", "README"], [capture.base + "/api/"])
        XCTAssertTrue(r.stderr.contains("line 1: '/items?id=3' looks like a path, but it comes after an item"), r.stderr)
        XCTAssertTrue(r.stderr.contains("put the path first: /items?id=3 and then the items"), r.stderr)
        XCTAssertTrue(r.stderr.contains("line 2: 'users?id=3' looks like a path"), r.stderr)
        XCTAssertTrue(r.stderr.contains("line 3: the method README needs a path or URL after it"), r.stderr)
        try capture.sync()
        XCTAssertEqual(capture.capturedAll.count, 0, "a line was sent")
        // A known method alone requests the base; the path first takes items after it; a body
        // file and a field with a `/` inside are items, not paths.
        let dir = TestPaths.temporaryDirectory()
        try Data("{}".utf8).write(to: URL(fileURLWithPath: dir + "/body.json"))
        let items = try runSwurl(["repl", capture.base + "/api/"], stdin: Data("X-A:1 @body.json\nX-A:1 content/type=x\n".utf8), directory: dir)
        XCTAssertEqual(items.status, 0, items.stderr)
        XCTAssertFalse(items.stderr.contains("looks like a path"), items.stderr)
        let ok = try script(["DELETE", "users?id=3 X-A:1"], [capture.base + "/api/"])
        XCTAssertEqual(ok.status, 0, ok.stderr)
        let sent = String(decoding: capture.capturedAll, as: UTF8.self)
        XCTAssertTrue(sent.contains("DELETE /api/ HTTP/1.1"), sent)
        XCTAssertTrue(sent.contains("GET /api/users?id=3 HTTP/1.1"), sent)
        // No base: a line without a host is refused without a note about a made-up origin.
        let n = try script([capture.base + "/a", "/local/ok"], ["-a", "u:p"])
        XCTAssertTrue(n.stderr.contains("'/local/ok' is not a URL: it has no host"), n.stderr)
        XCTAssertFalse(n.stderr.contains("http://local"), n.stderr)
    }

    /// `swurl repl api:8080`: a dotless host and port reads as a header item (as `X-Version:20`
    /// would); the REPL says so at the start, with the base URL's form, instead of leaving every
    /// path line to fail with "it has no host".
    func testADotlessHostPortAtTheStartIsNotedAsAHeader() throws {
        let r = try script(["env"], ["api:8080", "--offline"])
        XCTAssertTrue(r.stderr.contains("swurl: note: 'api:8080' is read as a header item, not a base URL; a host without a dot is a base URL with its scheme: http://api:8080"), r.stderr)
        XCTAssertTrue(r.text.contains("api:8080"), r.text)
        for quiet in [["http://api:8080", "--offline"], ["X-Retries:3", "--offline"], ["X-Version:20", "--offline"], ["localhost:8080", "--offline"], ["X-Token:abc", "--offline"]] {
            let q = try script(["env"], quiet)
            XCTAssertFalse(q.stderr.contains("note:"), "\(quiet): \(q.stderr)")
        }
    }

    /// Without a base URL, a line's lower-case method word alone (`get`, `delete`) is its URL,
    /// as any other word is (`foo` → http://foo/), and a default header item stays a header: the
    /// request read `delete api:8080` as a method and a URL, and sent a DELETE to the host the
    /// header item spelled.
    func testAMethodWordWithoutABaseIsTheURLNotTheMethodOfADefaultItem() throws {
        for word in ["get", "delete"] {
            let r = try script([word], ["X-Key:39773", "--offline"])
            XCTAssertEqual(r.status, 0, "\(word): \(r.stderr)")
            XCTAssertTrue(r.text.hasPrefix("GET / HTTP/1.1\r\nHost: \(word)\r\n") && r.text.contains("X-Key: 39773\r\n"), "\(word): \(r.text)")
        }
    }

    /// A built-in given more words than it takes is refused: `cd a b` went to `a`, `exit 3 4`
    /// exited 3, `env x` listed the defaults.
    func testBuiltinsRefuseExtraWords() throws {
        let r = try script(["cd a b", "exit 3 4", "env x", "help me", "cd v1", "env", "exit 5"], ["http://127.0.0.1:9/", "--offline"])
        XCTAssertEqual(r.status, 5, r.stderr)
        for (n, text) in [(1, "cd takes one path or URL, got 2 words"), (2, "exit takes one status, got 2 words"),
                          (3, "env takes no arguments"), (4, "help takes no arguments")] {
            XCTAssertTrue(r.stderr.contains("line \(n): \(text)"), r.stderr)
        }
        XCTAssertTrue(r.text.contains("base: http://127.0.0.1:9/v1/"), r.text)
    }

    /// `--version` on a line prints the version and sends nothing, as on the command line (the
    /// line's request went out); `--generate` is refused.
    func testVersionAndGenerateOnALineSendNothing() throws {
        let capture = try CaptureServer()
        let r = try script(["DELETE /anything --version", "/x --generate man", "set --version", "set --generate man", "env"], [capture.base])
        XCTAssertTrue(r.text.hasPrefix("swurl "), r.text)
        XCTAssertTrue(r.stderr.contains("line 2: --generate writes the man page or a completion script"), r.stderr)
        XCTAssertTrue(r.stderr.contains("line 3: set --version: it is no default for requests"), r.stderr)
        XCTAssertTrue(r.stderr.contains("line 4: set --generate: it is no default for requests"), r.stderr)
        XCTAssertFalse(r.text.contains("--generate"), r.text)
        try capture.sync()
        XCTAssertEqual(capture.captured.count, 0, "nothing was sent")
    }

    /// `unset NAME` matches a header's name in any case, a query or data item's as written.
    func testUnsetMatchesOnlyHeadersInAnyCase() throws {
        // (`unset q ID` is refused whole for ID, and leaves q too: then `unset q`.)
        let r = try script(["set q==1 Q==2 Id=5 id=6 X-T:1", "unset q ID", "unset q", "env"], ["http://127.0.0.1:9/", "--offline"])
        XCTAssertTrue(r.stderr.contains("unset: no default item named 'ID'"), r.stderr)
        XCTAssertTrue(r.text.contains("Q==2") && r.text.contains("Id=5") && r.text.contains("id=6"), r.text)
        XCTAssertFalse(r.text.contains("q==1"), r.text)
        let h = try script(["set X-Token:1", "unset x-token", "env"], ["http://127.0.0.1:9/", "--offline"])
        XCTAssertFalse(h.text.contains("X-Token"), h.text)
        // A name refused leaves every default as it was, as a refused `set` does.
        let atomic = try script(["set --follow X-A:1", "unset --follow --nope", "unset X-A X-B", "env"], ["http://127.0.0.1:9/", "--offline"])
        XCTAssertTrue(atomic.text.contains("--follow\n") && atomic.text.contains("X-A:1"), atomic.text)
        // A cluster of short options is split as set splits it (it was an unknown option '-vq').
        let cluster = try script(["set -vF", "unset -vF", "env", "set -v", "unset -vz"], ["http://127.0.0.1:9/", "--offline"])
        XCTAssertTrue(cluster.stderr.contains("unset: unknown option '-z' in '-vz'"), cluster.stderr)
        XCTAssertFalse(cluster.stderr.contains("unknown option '-vF'"), cluster.stderr)
        XCTAssertFalse(cluster.text.contains("--verbose") || cluster.text.contains("--follow"), cluster.text)
        // A base without a host is refused as the one-shot URL is (`/v1` went to the host `v1`,
        // with the default credentials; `5` to 0.0.0.5).
        for base in ["/v1", "5"] {
            let hostless = try script(["users --offline"], [base, "-a", "u:p"])
            XCTAssertEqual(hostless.status, 64, hostless.stderr)
            XCTAssertTrue(hostless.stderr.contains("is not a URL: it has no host"), hostless.stderr)
            XCTAssertFalse(hostless.text.contains("Authorization"), hostless.text)
        }
        // Items of no name are defaults too (`@file` the body, `==b`), as `swurl repl BASE @file`
        // takes them ("not a request item" before, and the POST went empty).
        let dir = TestPaths.temporaryDirectory()
        try "{\"from\":\"file\"}".write(toFile: dir + "/data.json", atomically: true, encoding: .utf8)
        let body = try script(["set @\(dir)/data.json ==b", "POST /x"], ["http://127.0.0.1:9/", "--offline"])
        XCTAssertEqual(body.status, 0, body.stderr)
        XCTAssertTrue(body.text.contains("{\"from\":\"file\"}") && body.text.contains("POST /x?=b "), body.text)
    }

    /// Every resolution case of issue 11, compared with the URL httpbin saw.
    func testPathsResolveAgainstTheBaseAsAFHTTPSessionManagerDoes() throws {
        let root = try HTTPBin.url("")
        let r = try script([
            "# a comment",
            "",
            "foo",                       // joins the base path (v1 gets its slash)
            "/anything/abs",             // replaces the path
            "foo?x=1",                   // keeps its query
            "foo/",                      // keeps its slash
            "q==1",                      // only items: the base
            "\(root)/anything/other",    // an absolute URL replaces the base
            "../up",                     // dot segments
            "GET bar",                   // with a method
            "swurl baz",                 // a pasted one-shot command
        ], ["\(root)/anything/v1"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(urls(r.text), [
            "\(root)/anything/v1/foo", "\(root)/anything/abs", "\(root)/anything/v1/foo?x=1",
            "\(root)/anything/v1/foo/", "\(root)/anything/v1/?q=1", "\(root)/anything/other",
            "\(root)/anything/up", "\(root)/anything/v1/bar", "\(root)/anything/v1/baz",
        ])
    }

    /// As on the command line, a lower-case method counts only with something after it: `get`
    /// alone is a path.
    func testALowerCaseMethodAloneIsAPath() throws {
        let root = try HTTPBin.url("")
        let r = try script(["get", "get anything/x", "post anything/y a=1"], [root])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(urls(r.text), ["\(root)/get", "\(root)/anything/x", "\(root)/anything/y"])
        XCTAssertTrue(r.text.contains("\"method\": \"POST\""), r.text)
    }

    /// A line's field replaces default fields of the same top-level name, nested or not
    /// (`a[0]=y` clashed with a default `a[]=1`, "index 0 is already set", where `a[]=3`
    /// replaced it, and `a[]=3` joined a default `a=1`); other names stay.
    func testALinesFieldReplacesDefaultsOfItsTopLevelName() throws {
        let capture = try CaptureServer()
        let r = try script(["set -f a[]=1 b=2", "POST /p a[1]=x a[0]=y", "set -f c=1", "POST /q c[]=3"], [capture.base])
        XCTAssertEqual(r.status, 0, r.stderr)
        try capture.sync()
        let all = String(decoding: capture.capturedAll, as: UTF8.self)
        XCTAssertTrue(all.contains("\r\n\r\nb=2&a%5B%5D=y&a%5B%5D=x"), all)
        XCTAssertTrue(all.contains("\r\n\r\na%5B%5D=1&b=2&c%5B%5D=3") || all.contains("\r\n\r\nb=2&a%5B%5D=1&c%5B%5D=3"), all)
        // Names past their first array part stay apart: an object's other members, other queries.
        let other = try CaptureServer()
        let kept = try script(["set -f user[name]=ann", "POST /p user[age]=4", "/q filter[type]==x"], [other.base, "filter[status]==open"])
        XCTAssertEqual(kept.status, 0, kept.stderr)
        try other.sync()
        let sent = String(decoding: other.capturedAll, as: UTF8.self)
        XCTAssertTrue(sent.contains("user%5Bname%5D=ann&user%5Bage%5D=4"), sent)
        XCTAssertTrue(sent.contains(" /q?filter%5Bstatus%5D=open&filter%5Btype%5D=x "), sent)
    }

    /// `propfind localhost:8080` under a base is refused as on the command line: it went to the
    /// base's `propfind` with a header named `localhost`.
    func testALowerCaseWordBeforeABareHostPortIsRefusedUnderABase() throws {
        let capture = try CaptureServer()
        let r = try script(["propfind localhost:\(capture.server.port)"], [capture.base + "/base/"])
        XCTAssertEqual(r.status, 64, r.stderr)
        XCTAssertTrue(r.stderr.contains("'localhost:\(capture.server.port)' looks like a URL, but the URL was 'propfind'"), r.stderr)
        try capture.sync()
        XCTAssertEqual(capture.capturedAll.count, 0, "nothing was sent")
        // A path and a header with a dotted name and a number, with or without a method, go.
        let header = try script(["users X.Version:3", "GET users Api.Key:123"], [capture.base + "/base/"])
        XCTAssertEqual(header.status, 0, header.stderr)
    }

    func testCdSetUnsetAndEnv() throws {
        let root = try HTTPBin.url("")
        let r = try script([
            "cd sub",
            "one",
            "cd ..",
            "two",
            "cd /anything/z",
            "three",
            "cd",
            "cd 'a b'",
            "c",
            "cd",
            "four",
            "set X-Token:abc -a user:secret Authorization:'Bearer hidden'",
            "env",
            "five",
            "unset X-Token Authorization",
            "unset -a",
            "env",
            "six",
        ], ["\(root)/anything/api"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(urls(r.text), [
            "\(root)/anything/api/sub/one", "\(root)/anything/api/two", "\(root)/anything/z/three",
            // `cd 'a b'` takes the path a request line would (it was refused: "Bad path").
            "\(root)/anything/api/a%20b/c",
            "\(root)/anything/api/four", "\(root)/anything/api/five", "\(root)/anything/api/six",
        ])
        // The defaults went with "five" only.
        XCTAssertEqual(r.text.components(separatedBy: "\"X-Token\": \"abc\"").count - 1, 1, r.text)
        // An Authorization item wins over -a, as in one-shot swurl.
        XCTAssertEqual(r.text.components(separatedBy: "\"Authorization\": \"Bearer hidden\"").count - 1, 1, r.text)
        // env: the base and the defaults, credentials masked.
        XCTAssertTrue(r.text.contains("base: \(root)/anything/api/\n--auth user:****\nX-Token:abc\nAuthorization:****\n"), r.text)
        // After unset: nothing left but the base.
        XCTAssertTrue(r.text.contains("base: \(root)/anything/api/\n{"), r.text)
        // Text with an '@' that is no URL is shown as set (it was masked as a secret); a URL's
        // password in a value is masked.
        let plain = try script(["set From:ann@example.org X-File:@/etc/hostname X-Up:http://u:pw@h/x q==http://u:pw2@h", "env"],
                               ["http://127.0.0.1:9/", "--offline"])
        XCTAssertTrue(plain.text.contains("From:ann@example.org\nX-File:@/etc/hostname\nX-Up:http://u:****@h/x\nq==http://u:****@h\n"),
                      plain.text)
        // A password in a value without a scheme (`user:pw@host:port`, as --proxy takes one) is
        // masked too: it was shown in clear.
        let schemeless = try script(["set X-Proxy:u:pw2@squid:3128", "env"], ["http://127.0.0.1:9/", "--offline"])
        XCTAssertTrue(schemeless.text.contains("X-Proxy:u:****@squid:3128\n"), schemeless.text)
        XCTAssertFalse(schemeless.text.contains("pw2"), schemeless.text)
        // A token given as a URL's user name (the base's, a --proxy's) is masked by env, as the
        // prompt masks it (env showed both).
        let tokens = try script(["env"], ["http://ghp_TOKEN1@127.0.0.1:9/b", "--proxy", "http://proxytok@127.0.0.1:9", "--offline"])
        XCTAssertTrue(tokens.text.contains("base: http://****@127.0.0.1:9/b/\n"), tokens.text)
        XCTAssertTrue(tokens.text.contains("--proxy http://****@127.0.0.1:9\n"), tokens.text)
        XCTAssertFalse(tokens.text.contains("TOKEN1") || tokens.text.contains("proxytok"), tokens.text)
        // A bearer token is masked whole, a ':' in it too (its first part was shown).
        let bearer = try script(["env"], ["http://127.0.0.1:9/b", "-A", "bearer", "-a", "abc.SECRETPART:tail", "--offline"])
        XCTAssertTrue(bearer.text.contains("--auth ****\n"), bearer.text)
        XCTAssertFalse(bearer.text.contains("SECRETPART"), bearer.text)
        XCTAssertFalse(r.text.contains("secret"), r.text)
        XCTAssertFalse(r.text.contains("hidden\n"), r.text)
    }

    /// Options and items given to `repl` are defaults; a line's own options override them.
    func testDefaultsFromTheCommandLineAndOverrides() throws {
        let root = try HTTPBin.url("")
        let r = try script([
            "POST post a=b",
            "POST post a=c --json",
            "POST post a=d X-Default:2",
        ], ["\(root)", "X-Default:1", "--form"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let docs = r.text.components(separatedBy: "\n}\n").filter { $0.contains("\"url\"") }
        XCTAssertEqual(docs.count, 3, r.text)
        guard docs.count == 3 else { return }
        XCTAssertTrue(docs[0].contains("\"form\": {\n    \"a\": \"b\"\n  }"), docs[0])
        XCTAssertTrue(docs[1].contains("\"json\": {\n    \"a\": \"c\"\n  }"), docs[1])
        XCTAssertTrue(docs[0].contains("\"X-Default\": \"1\""), docs[0])
        XCTAssertTrue(docs[1].contains("\"X-Default\": \"1\""), docs[1])
        XCTAssertTrue(docs[2].contains("\"X-Default\": \"2\""), docs[2])
        XCTAssertFalse(docs[2].contains("\"X-Default\": \"1"), docs[2])
    }

    /// A script's command goes on after a backslash or inside a quote, as typed at the prompt.
    func testABackslashOrAnOpenQuoteContinuesTheCommandOnTheNextLine() throws {
        let root = try HTTPBin.url("")
        let r = try script(["POST /post \\", "  X-A:1 \\", "  note='two", "lines'", "# it's a comment", "/get \\"], [root])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(urls(r.text), ["\(root)/post", "\(root)/get"])
        XCTAssertTrue(r.text.contains("\"X-A\": \"1\""), r.text)
        XCTAssertTrue(r.text.contains("\"note\": \"two\\nlines\""), r.text)
        // An error names the command's first line.
        let e = try script(["/get", "GET \\", "  --nope"], [root])
        XCTAssertEqual(e.status, 64, e.stderr)
        XCTAssertTrue(e.stderr.contains("line 2: unknown option '--nope'"), e.stderr)
        // A fault that no next line can mend (a NUL byte) ends its command at once.
        let nul = try runSwurl(["repl", root], stdin: Data("GET /x \"a\u{0}b\"\nexit 3\n".utf8))
        XCTAssertEqual(nul.status, 3, nul.stderr)
        XCTAssertTrue(nul.stderr.contains("line 1: a NUL byte cannot be part of an argument"), nul.stderr)
        // A quote never closed is reported after 1000 lines, and the script stops there: the lines
        // after were meant as quoted text, not as commands.
        let stray = try script(["/get 'open"] + Array(repeating: "filler", count: 1000) + ["/get"], [root])
        XCTAssertEqual(stray.status, 64, stray.stderr)
        XCTAssertTrue(stray.stderr.contains("line 1: the command is still open after 1001 lines; the script stops here"), stray.stderr)
        XCTAssertEqual(urls(stray.text), [])
    }

    /// A cookie one line receives goes with later lines to the host that set it, as a batch's
    /// lines share theirs; not to another host, and not to a line with its own Host header.
    func testLinesShareACookieJarForTheHostThatSetIt() throws {
        let root = try HTTPBin.url("")
        let port = try HTTPBin.shared().port
        let r = try script(["/cookies/set?a=1", "/cookies", "GET http://localhost:\(port)/cookies", "/cookies Host:127.0.0.1:\(port)"], [root, "-b"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.text.components(separatedBy: "\"a\": \"1\"").count - 1, 1, r.text)
        XCTAssertEqual(r.text.components(separatedBy: "\"cookies\": {}").count - 1, 2, r.text)
        // A route the REPL itself was given (here --resolve; a config's --proxy alike) is every
        // line's: they share the jar. A line with a route of its own does not.
        let routed = try script(["/cookies/set?b=2", "/cookies", "/cookies --resolve api.test:\(port):127.0.0.1"],
                                ["http://api.test:\(port)", "--resolve", "api.test:\(port):127.0.0.1", "-b"])
        XCTAssertEqual(routed.status, 0, routed.stderr)
        XCTAssertEqual(routed.text.components(separatedBy: "\"b\": \"2\"").count - 1, 1, routed.text)
        XCTAssertEqual(routed.text.components(separatedBy: "\"cookies\": {}").count - 1, 1, routed.text)
        // A `set` that changes the route (a local build under the real name) gets a jar of its
        // own: the first server's cookies do not go to the second; going back finds them again.
        let switched = try script(["/cookies/set?b=2", "/cookies",
                                   "set --resolve api.test:\(port):127.0.0.1 --resolve x.test:1:127.0.0.1", "/cookies",
                                   "set --resolve api.test:\(port):127.0.0.1", "/cookies"],
                                  ["http://api.test:\(port)", "--resolve", "api.test:\(port):127.0.0.1", "-b"])
        XCTAssertEqual(switched.status, 0, switched.stderr)
        XCTAssertEqual(switched.text.components(separatedBy: "\"b\": \"2\"").count - 1, 2, switched.text)
        XCTAssertEqual(switched.text.components(separatedBy: "\"cookies\": {}").count - 1, 1, switched.text)
    }

    func testFailuresDoNotEndTheScriptUnlessStopOnError() throws {
        let root = try HTTPBin.url("")
        let lines = ["/status/404 --check-status", "GET --no-such-option", "/get"]
        let goesOn = try script(lines, [root])
        XCTAssertEqual(goesOn.status, 0, goesOn.stderr)
        XCTAssertTrue(goesOn.stderr.contains("unknown option '--no-such-option'"), goesOn.stderr)
        XCTAssertEqual(urls(goesOn.text), ["\(root)/get"])

        let stops = try script(lines, [root, "--stop-on-error"])
        XCTAssertEqual(stops.status, 4, stops.stderr)
        XCTAssertEqual(urls(stops.text), [])

        // A command's warnings name its line, as its errors do (which request answered 404?).
        let warned = try script(["/get", "/status/404 --check-status", "# a comment", "/status/418 --check-status"], [root])
        XCTAssertTrue(warned.stderr.contains("swurl: warning: line 2: HTTP 404 NOT FOUND\n"), warned.stderr)
        XCTAssertTrue(warned.stderr.contains("swurl: warning: line 4: HTTP 418 I'M A TEAPOT\n"), warned.stderr)
        // So does every message a download or a retry writes itself (they had no line); a
        // message placed already is not placed twice, and a hint follows its message as it is.
        let dir = TestPaths.temporaryDirectory()
        let downloads = try runSwurl(["repl", root], stdin: Data("\n/status/404 -d -o \(dir)/a\n/get -d -o \(dir)/b\n/status/503 --retry 1 --retry-delay 0\n".utf8))
        XCTAssertTrue(downloads.stderr.contains("swurl: error: line 2: HTTP 404 NOT FOUND; nothing was saved\n"), downloads.stderr)
        XCTAssertTrue(downloads.stderr.contains("swurl: line 3: saved '\(dir)/b'"), downloads.stderr)
        XCTAssertTrue(downloads.stderr.contains("swurl: line 4: HTTP 503 SERVICE UNAVAILABLE; retrying"), downloads.stderr)
        XCTAssertFalse(downloads.stderr.contains("line 2: line 2:") || downloads.stderr.contains("hint: line"), downloads.stderr)
        // -qq on a line silences its warning, as on the command line; the next line's shows.
        let quiet = try script(["/status/404 --check-status -qq", "/status/418 --check-status"], [root])
        XCTAssertFalse(quiet.stderr.contains("404"), quiet.stderr)
        XCTAssertTrue(quiet.stderr.contains("swurl: warning: line 2: HTTP 418"), quiet.stderr)
        // --har naming stdout is a usage error, as in the one-shot request and batch.
        let har = try runSwurl(["repl", "--har", "-", root], stdin: Data("/get\n".utf8))
        XCTAssertEqual(har.status, 64, har.stderr)
        XCTAssertTrue(har.stderr.contains("cannot rewrite '-' after each request"), har.stderr)
        // A script's exit with a status swurl does not use still ends it (64), before the next
        // line; `https:/h` (a slash short) is refused as the one-shot request refuses it, not
        // sent to the base as a header `https`.
        let stopped = try script(["exit 255", "DELETE /delete"], [root])
        XCTAssertEqual(stopped.status, 64, stopped.stderr)
        XCTAssertTrue(stopped.stderr.contains("exit takes a status swurl uses"), stopped.stderr)
        XCTAssertEqual(urls(stopped.text), [])
        // A first line that sends nothing (--offline, --curl) binds no default credentials.
        let shown = try script(["http://localhost:9/x --offline", root + "/headers"], ["-a", "u:p"])
        XCTAssertTrue(shown.text.contains("\"Authorization\": \"Basic dTpw\""), shown.text + shown.stderr)
        // Items whose name is a scheme stay items (`https:=1`, `http:value`).
        let items = try script(["https:=1", "http:value"], [root, "--offline"])
        XCTAssertEqual(items.status, 0, items.stderr)
        XCTAssertTrue(items.text.contains("{\"https\":1}") && items.text.contains("http: value"), items.text)
        // Both slashes short before a host (`https:api.example.org/x`) is no header `https` to
        // the base either (it went there, with the defaults); `https:1` and `http:value` are.
        let short = try script(["https:/127.0.0.1:9/one", "HTTP:/x", "DELETE https:api.example.org/users/7", "http:localhost:9/x",
                                "https:[::1]:9/", "https:127.0.0.2:9/x", "https:alice:S3cr3t@api.example.org/v1", "http:TOKEN@h.example/",
                                "https:1", "https:1.5"], [root, "--offline"])
        XCTAssertFalse(short.text.contains("api.example.org") || short.text.contains("localhost") || short.text.contains("::1")
                       || short.text.contains("127.0.0.2") || short.text.contains("S3cr3t") || short.text.contains("TOKEN"), short.text)
        XCTAssertTrue(short.text.contains("https: 1\r\n") && short.text.contains("https: 1.5"), short.text)
        // Items whose name is a scheme and whose value starts with `=` or `@` stay items.
        let items2 = try script(["POST /x https:='\"ann@example.com\"'", "POST /y https:@/dev/null"], [root, "--offline"])
        XCTAssertEqual(items2.status, 0, items2.stderr)
        XCTAssertTrue(items2.text.contains("{\"https\":\"ann@example.com\"}"), items2.text)
        // A base a slash short is refused as a line is (it became a default header `https`).
        let base = try script(["/x --offline"], ["https:TOKEN@api.example.org"])
        XCTAssertEqual(base.status, 64, base.stderr)
        XCTAssertTrue(base.stderr.contains("needs two slashes") && !base.stderr.contains("TOKEN"), base.stderr)
        XCTAssertEqual(short.stderr.components(separatedBy: "needs two slashes").count - 1, 8, short.stderr)
        XCTAssertFalse(short.stderr.contains("S3cr3t") || short.stderr.contains("TOKEN"), short.stderr)
        // A URL with credentials and a path but no scheme nor port (`ann:pw@api.example.test/v1`)
        // was the header `ann` to the base, the password its value: refused, both spellings
        // named; after a path it stays a header, and without a path (`From:ann@example.org`) too.
        let creds = try script(["ann:S3cr3t@api.example.test/v1", "ann:pa/S3cr3t@api.example.test:8443/v1/x",
                                "/x ann:one@api.example.test/v1", "From:ann@example.org",
                                // A header read from a file (`:@`), a credential header's value and
                                // one no URL could hold stay items.
                                "X-Data:@/dev/null", "Cookie:sid=a@b.c/d", "Link:<a@b.c/>",
                                // Other spellings of a URL: a query or fragment after the host, an
                                // IPv6 literal, an IDN or single-label host.
                                "ann:S3cr3t@api.example.org?x=1", "ann:S3cr3t@[::1]/x", "ann:S3cr3t@bücher.example/x",
                                "ann:S3cr3t@intranet/x", "ann:S3cr3t@api.example.org#x"], [root, "--offline"])
        XCTAssertEqual(creds.stderr.components(separatedBy: "reads as a header 'ann' sent to the base, but looks like a URL with credentials").count - 1, 7,
                       creds.stderr)
        XCTAssertTrue(creds.stderr.contains("hint: for that URL, write its scheme: http://ann:****@api.example.test/v1;"), creds.stderr)
        XCTAssertFalse(creds.stderr.contains("S3cr3t") || creds.text.contains("S3cr3t"), creds.stderr + creds.text)
        XCTAssertTrue(creds.text.contains("ann: one@api.example.test/v1\r\n") && creds.text.contains("From: ann@example.org\r\n"), creds.text)
        XCTAssertTrue(creds.text.contains("Cookie: sid=a@b.c/d\r\n") && creds.text.contains("Link: <a@b.c/>\r\n"), creds.text)
        XCTAssertFalse(creds.stderr.contains("X-Data") || creds.stderr.contains("Cookie") || creds.stderr.contains("Link"), creds.stderr)
        // `env` shows a long --proxy whole (it was cut at 200 characters).
        let long = "http://127.0.0.1:1/" + String(repeating: "p", count: 400)
        XCTAssertTrue(try script(["set --proxy " + long, "env"], [root, "--offline"]).text.contains(long))
        // The status is the last command's.
        let last = try script(["/get", "/status/500 --check-status"], [root])
        XCTAssertEqual(last.status, 5)
        let usage = try script(["/get", "cd relative"], [])
        XCTAssertEqual(usage.status, 64, usage.stderr)
        // A bad line is reported and the script goes on; exit N ends it with N.
        let bad = try script(["GET --nope", "/get", "exit 3", "/get"], [root])
        XCTAssertEqual(bad.status, 3, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("line 1: unknown option '--nope'"), bad.stderr)
        XCTAssertEqual(urls(bad.text), ["\(root)/get"])
        // A quote left open takes the lines after it, as in a shell script, to the end.
        let open = try script(["/get", "x 'open", "/get", "exit 3"], [root])
        XCTAssertEqual(open.status, 64, open.stderr)
        XCTAssertTrue(open.stderr.contains("line 2: unterminated ' quote"), open.stderr)
        XCTAssertEqual(urls(open.text), ["\(root)/get"])
        // Stdin is the script: an @- item cannot take the next lines as its body.
        let stdinItem = try script(["POST /post @-", "/get"], [root])
        XCTAssertEqual(stdinItem.status, 0, stdinItem.stderr)
        XCTAssertTrue(stdinItem.stderr.contains("'@-' reads stdin, which a REPL line cannot"), stdinItem.stderr)
        XCTAssertEqual(urls(stdinItem.text), ["\(root)/get"])
        // Stdin named otherwise (`/dev/./stdin`) read the rest of the script as the value, and
        // was refused only then: the lines after it were gone (the writer keeps the pipe open).
        let spelt = try runProcess("/bin/sh", ["-c", "(printf 'POST /post a=@/dev/./stdin\\n'; sleep 1; printf '/get\\n') | exec \"$0\" repl --no-config \"$1\"",
                                               TestPaths.binary, root], check: false)
        XCTAssertTrue(spelt.stderr.contains("'a=@/dev/./stdin' reads stdin, which a REPL line cannot"), spelt.stderr)
        XCTAssertEqual(urls(String(decoding: spelt.stdout, as: UTF8.self)), ["\(root)/get"], spelt.stderr)
    }

    /// Default credentials (-a, Authorization, Cookie, Proxy-Authorization items) go only to the
    /// origin they were given for, as on a redirect; a line's own go where the line says, and
    /// `cd` to another origin does not take them along. httpbin reports what arrived.
    func testDefaultCredentialsGoOnlyToTheOriginTheyWereGivenFor() throws {
        let root = try HTTPBin.url("")
        let other = root.replacingOccurrences(of: "127.0.0.1", with: "localhost")
        let basic = { (s: String) in "Basic " + Data(s.utf8).base64EncodedString() }
        let r = try script([
            "/headers",
            "\(other)/headers",
            "\(other)/headers -a own:pw Cookie:mine",
            "cd \(other)",
            "/headers",
            "set -a b:c",
            "/headers",
            "cd \(root)",
            "/headers",
        ], [root, "-a", "ann:secret", "Cookie:c=1", "Proxy-Authorization:Basic eA==", "X-Plain:1"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let docs = r.text.components(separatedBy: "\n}\n").filter { $0.contains("\"headers\"") }
        XCTAssertEqual(docs.count, 6, r.text)
        guard docs.count == 6 else { return }
        func has(_ doc: Int, _ name: String, _ value: String) -> Bool { docs[doc].contains("\"\(name)\": \"\(value)\"") }
        func lacks(_ doc: Int, _ name: String) -> Bool { !docs[doc].contains("\"\(name)\":") }
        // 1: the base's origin gets every default.
        XCTAssertTrue(has(0, "Authorization", basic("ann:secret")) && has(0, "Cookie", "c=1")
                      && has(0, "Proxy-Authorization", "Basic eA=="), docs[0])
        // 2: another origin gets none of them, the other defaults still.
        XCTAssertTrue(lacks(1, "Authorization") && lacks(1, "Cookie") && lacks(1, "Proxy-Authorization"), docs[1])
        XCTAssertTrue(has(1, "X-Plain", "1"), docs[1])
        XCTAssertTrue(r.stderr.contains("are not sent to http://localhost:"), r.stderr)
        // 3: credentials typed on the line go to that line's URL.
        XCTAssertTrue(has(2, "Authorization", basic("own:pw")) && has(2, "Cookie", "mine"), docs[2])
        XCTAssertTrue(lacks(2, "Proxy-Authorization"), docs[2])
        // 4: cd to another origin does not move them.
        XCTAssertTrue(lacks(3, "Authorization") && lacks(3, "Cookie"), docs[3])
        // 5: set -a there binds the new -a to the new base's origin.
        XCTAssertTrue(has(4, "Authorization", basic("b:c")) && lacks(4, "Cookie"), docs[4])
        // 6: back at the first origin: its Cookie, not the -a given for the other.
        XCTAssertTrue(lacks(5, "Authorization") && has(5, "Cookie", "c=1"), docs[5])
        // A bearer (or digest) default withheld from another origin takes its -A along: the line
        // is sent without credentials, not refused for an -A without -a.
        let bearer = try script(["\(other)/headers"], [root, "-A", "bearer", "-a", "tok"])
        XCTAssertEqual(bearer.status, 0, bearer.stderr)
        XCTAssertFalse(bearer.text.contains("\"Authorization\""), bearer.text)
        // A line's own -a is not of the default -a's type (it went as a bearer token); a default
        // -A alone is the type of the lines' credentials.
        let own = try script(["/headers -a bob:pw", "/headers"], [root, "-A", "bearer", "-a", "tok"])
        XCTAssertEqual(own.status, 0, own.stderr)
        XCTAssertTrue(own.text.contains("\"Authorization\": \"\(basic("bob:pw"))\""), own.text)
        XCTAssertTrue(own.text.contains("\"Authorization\": \"Bearer tok\""), own.text)
        let typed = try script(["/headers -a tok2"], [root, "-A", "bearer"])
        XCTAssertTrue(typed.text.contains("\"Authorization\": \"Bearer tok2\""), typed.text)
        // Without a base, the first line that sends them binds them: not one refused before
        // sending (its -o a directory), which left the next line's origin without them.
        let dir = TestPaths.temporaryDirectory()
        let unbound = try script(["\(other)/headers -o \(dir)", "\(root)/headers"], ["-a", "ann:secret"])
        XCTAssertTrue(unbound.text.contains("\"Authorization\": \"\(basic("ann:secret"))\""), unbound.text + unbound.stderr)
        XCTAssertFalse(unbound.stderr.contains("are not sent to"), unbound.stderr)
        // Response options apply to the REPL's lines too.
        XCTAssertEqual(try script(["/get"], [root, "--sort-keys", "--stream"]).status, 0)
    }

    /// A base pinned to the server's key: after the server changes key, the next request is
    /// rejected in the handshake (7, no HTTP byte) and the REPL goes on.
    func testPinnedBaseWhoseServerChangesKey() throws {
        let pki = try CertificateFactory.shared()
        let root = try HTTPBin.url("")
        let first = try TLSTestServer(chain: pki.path("leaf-chain.pem"), key: pki.path("leaf.key"))
        let port = first.port
        let dir = TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        FileManager.default.createFile(atPath: dir + "/out", contents: nil)
        FileManager.default.createFile(atPath: dir + "/err", contents: nil)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: TestPaths.binary)
        p.arguments = ["repl", "https://127.0.0.1:\(port)/api", "--cacert", pki.path("root.pem"),
                       "--pin-pubkey", try pki.pin("leaf.pem")]
        let input = Pipe()
        p.standardInput = input
        p.standardOutput = FileHandle(forWritingAtPath: dir + "/out")
        p.standardError = FileHandle(forWritingAtPath: dir + "/err")
        try p.run()
        try input.fileHandleForWriting.write(contentsOf: Data("one\n".utf8))
        let accepted = first.connection(after: 0, timeout: 20)
        XCTAssertEqual(accepted?.handshake, true)
        // Wait until the response was printed before changing the server.
        for _ in 0..<200 where ((try? String(contentsOfFile: dir + "/out", encoding: .utf8)) ?? "").isEmpty { usleep(50_000) }
        first.server.stop()
        let second = try TLSTestServer(chain: pki.path("leaf2-chain.pem"), key: pki.path("leaf2.key"), port: port)
        // The REPL goes on; a pin is never "checked" over plain http (refused, 7), so the http
        // line runs once the default pin is unset.
        try input.fileHandleForWriting.write(contentsOf: Data("two\n\(root)/anything/pinned\nunset --pin-pubkey\n\(root)/anything/after\n".utf8))
        try input.fileHandleForWriting.close()
        waitForExit(p)
        let out = (try? String(contentsOfFile: dir + "/out", encoding: .utf8)) ?? ""
        let err = (try? String(contentsOfFile: dir + "/err", encoding: .utf8)) ?? ""
        let rejected = second.connection(after: 0)
        XCTAssertEqual(rejected?.handshake, false, "\(String(describing: rejected))")
        XCTAssertEqual(rejected?.bytes, 0)
        XCTAssertTrue(err.contains("TLS pin check failed"), err)
        XCTAssertTrue(err.contains("\(root) is plain http: the pin"), err)
        XCTAssertEqual(urls(out), ["\(root)/anything/after"], out)
        XCTAssertEqual(p.terminationStatus, 0, err)

        // With --stop-on-error the same rejection ends the script with 7.
        let again = try runSwurl(["repl", "https://127.0.0.1:\(port)/api", "--cacert", pki.path("root.pem"),
                                  "--pin-pubkey", try pki.pin("leaf.pem"), "--stop-on-error"],
                                 stdin: Data("x\n\(root)/get\n".utf8))
        XCTAssertEqual(again.status, 7, again.stderr)
        XCTAssertEqual(urls(again.text), [])
    }

    /// A terminal session on a pseudo-terminal: prompt, completion, a request, Ctrl-C during a
    /// slow request and at the prompt, a credential line, Ctrl-D; then the history file.
    func testTerminalSession() throws {
        let root = try HTTPBin.url("")
        let state = TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let out = try runProcess(TestPaths.venv + "/bin/python3", ["-c", ReplTests.ptyDriver, TestPaths.binary, root, state], check: false)
        let text = String(decoding: out.stdout, as: UTF8.self)
        XCTAssertEqual(out.status, 0, text + out.stderr)
        guard let data = text.split(separator: "\n").last.map({ Data($0.utf8) }),
              let result = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            return XCTFail("no result: \(text) \(out.stderr)")
        }
        XCTAssertEqual(result["prompt"] as? String, "swurl \(root)/> ")
        XCTAssertTrue((result["first"] as? String ?? "").contains("\"url\": \"\(root)/anything/one\""), "\(result)")
        XCTAssertTrue((result["first"] as? String ?? "").contains("HTTP/1.1 200 OK"), "\(result)")
        XCTAssertTrue((result["escaped"] as? String ?? "").contains("\"url\": \"\(root)/anything/my%20dir/x\""), "\(result)")
        XCTAssertTrue((result["after_cancel"] as? String ?? "").contains("swurl \(root)/ [130]> "), "\(result)")
        XCTAssertTrue((result["second"] as? String ?? "").contains("\"url\": \"\(root)/anything/two\""), "\(result)")
        XCTAssertEqual(result["exit"] as? Int, 0)

        let history = state + "/swurl/history"
        let attributes = try FileManager.default.attributesOfItem(atPath: history)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        let lines = try String(contentsOfFile: history, encoding: .utf8).split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.contains("/anything/one --follow "), "\(lines)")
        XCTAssertTrue(lines.contains("/delay/10"), "\(lines)")
        XCTAssertTrue(lines.contains("/anything/two"), "\(lines)")
        XCTAssertFalse(lines.contains { $0.contains("secret") }, "\(lines)")
    }

    /// The history file through a symbolic link that is the user's own (a dotfiles checkout):
    /// the target is rewritten (0600, old lines kept, the new ones after them) and the link
    /// stays a link, as for `-o` and session files; another user's link is never followed.
    func testHistoryIsWrittenThroughTheUsersOwnLink() throws {
        let state = TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        try FileManager.default.createDirectory(atPath: state + "/swurl", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: state + "/dotfiles", withIntermediateDirectories: true)
        let target = state + "/dotfiles/history", link = state + "/swurl/history"
        XCTAssertTrue(FileManager.default.createFile(atPath: target, contents: Data("old line\n".utf8),
                                                     attributes: [.posixPermissions: 0o644]))
        XCTAssertEqual(symlink("../dotfiles/history", link), 0)
        func session(_ lines: [String]) throws {
            let out = try runProcess(TestPaths.venv + "/bin/python3", ["-c", ReplTests.historyDriver, TestPaths.binary, state] + lines,
                                     check: false)
            XCTAssertEqual(out.status, 0, String(decoding: out.stdout, as: UTF8.self) + out.stderr)
        }
        try session(["cd /one", "env"])
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link), "../dotfiles/history")
        XCTAssertEqual(try String(contentsOfFile: target, encoding: .utf8), "old line\ncd /one\nenv\n")
        let mode = (try FileManager.default.attributesOfItem(atPath: target)[.posixPermissions] as? NSNumber)?.intValue
        XCTAssertEqual(mode, 0o600)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: state + "/dotfiles"), ["history"], "no temporary file left")
        // A line over 16 KiB is not kept (a pasted 1.5 MiB line was, read and rewritten each time).
        try session(["cd /" + String(repeating: "a", count: 17_000), "cd /three"])
        XCTAssertEqual(try String(contentsOfFile: target, encoding: .utf8), "old line\ncd /one\nenv\ncd /three\n")
        // A link another user owns is not followed: nothing is written, the link stays.
        if geteuid() == 0 {
            XCTAssertEqual(lchown(link, 12345, 12345), 0)
            try session(["cd /two"])
            XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link), "../dotfiles/history")
            XCTAssertEqual(try String(contentsOfFile: target, encoding: .utf8), "old line\ncd /one\nenv\ncd /three\n")
        }
    }

    /// A relative HOME is relative to the working directory, as sessions and the cache read it
    /// (and curl and HTTPie): the history's directories were made from `/` (`/NAME/.local/…` as
    /// root) and the history silently lost.
    func testARelativeHomeKeepsTheHistoryUnderTheWorkingDirectory() throws {
        let dir = TestPaths.temporaryDirectory()
        let name = "relhome-" + UUID().uuidString
        defer {
            try? FileManager.default.removeItem(atPath: dir)
            try? FileManager.default.removeItem(atPath: "/" + name)
        }
        var env = ProcessInfo.processInfo.environment
        env["HOME"] = name
        env["XDG_STATE_HOME"] = nil
        // The driver's state directory is given relative too, which XDG says to ignore.
        let out = try runProcess(TestPaths.venv + "/bin/python3", ["-c", ReplTests.historyDriver, TestPaths.binary, "relative", "cd /one"],
                                 directory: dir, environment: env, check: false)
        XCTAssertEqual(out.status, 0, String(decoding: out.stdout, as: UTF8.self) + out.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/" + name), "made under /")
        let history = dir + "/" + name + "/.local/state/swurl/history"
        XCTAssertEqual(try String(contentsOfFile: history, encoding: .utf8), "cd /one\n")
        let mode = (try FileManager.default.attributesOfItem(atPath: dir + "/" + name + "/.local/state/swurl")[.posixPermissions] as? NSNumber)?.intValue
        XCTAssertEqual(mode, 0o700)
    }

    /// Lines pasted at once (readline's bracketed paste hands them over as one buffer) run one
    /// after the other and are remembered one by one, as typed.
    func testPastedLinesRunOneByOne() throws {
        let state = TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let driver = ReplTests.replOnPty(["binary", "state", "base"], #""repl", base"#) + "\n" + #"""
        expect(b"> ")
        os.write(fd, b"\x1b[200~cd /anything\renv\x1b[201~\r")
        print(expect(b"base: "))
        expect(b"> ")
        # A command over two lines (a backslash, a quote) stays one command.
        os.write(fd, b"\x1b[200~set X-A:1 \\\r  X-B:two 'note=two\rlines'\x1b[201~\r")
        expect(b"> ")
        os.write(fd, b"env\r")
        print(expect(b"> "))
        # A comment ending in a backslash continues nothing; a backslash-continued command is
        # remembered as one line.
        os.write(fd, b"\x1b[200~cd /x # C:\\dir\\\rcd /y \\\r  \x1b[201~\r")
        expect(b"> ")
        os.write(fd, b"env\r")
        print(expect(b"> "))
        os.write(fd, b"\x04")
        _, status = os.waitpid(pid, 0)
        sys.exit(os.waitstatus_to_exitcode(status))
        """#
        let out = try runProcess(TestPaths.venv + "/bin/python3", ["-c", driver, TestPaths.binary, state, try HTTPBin.url("")], check: false)
        XCTAssertEqual(out.status, 0, String(decoding: out.stdout, as: UTF8.self) + out.stderr)
        let lines = try String(contentsOfFile: state + "/swurl/history", encoding: .utf8).split(separator: "\n").map(String.init)
        // A command continued with a backslash is kept joined, as the shell joins it; one with a
        // line break inside quotes is not kept in the file (it would read as two commands).
        XCTAssertEqual(lines, ["cd /anything", "env", "env", "cd /x # C:\\dir\\", "cd /y   ", "env"])
        let shown = String(decoding: out.stdout, as: UTF8.self)
        XCTAssertTrue(shown.contains("X-A:1") && shown.contains("X-B:two") && shown.contains("note=two"), shown)
        XCTAssertTrue(shown.contains("base: " + (try HTTPBin.url("/y"))), shown)
        XCTAssertFalse(shown.contains("error"), shown)
    }

    /// A command typed with a backslash at its end, or with a quote left open, goes on at a `> `
    /// prompt, as in the shell; Ctrl-C there drops the whole command, and the REPL goes on.
    func testATypedCommandGoesOnAtTheContinuationPrompt() throws {
        let state = TestPaths.temporaryDirectory()
        let out = state + "/out"
        let driver = ReplTests.replIntoFile(", \"-b\"") + "\n" + #"""
        def prompt():
            # The prompt that shows next: "main" (swurl URL> ) or "next" (a bare > ).
            seen = expect(b"> ")
            line = seen.replace("\x1b[?2004h", "").replace("\x1b[?2004l", "").split("\n")[-1]
            print("main" if "swurl" in line else "next")
        prompt()
        # Each typed line, then the prompt it brings; Ctrl-C (\x03) at "> " drops "two". A paste
        # runs its complete commands at once ("four"); Ctrl-D at "> " runs what was typed, its
        # last backslash dropped ("six").
        for keys in [b"get anything/one \\\r", b"q==1\r", b"get anything/two 'a\r", b"\x03",
                     b"get anything/three x=='b c\r", b"d'\r",
                     b"\x1b[200~get anything/four\rget anything/five 'x\x1b[201~\r", b"\x03",
                     b"get anything/six y==1 \\\r", b"\x04"]:
            os.write(fd, keys)
            prompt()
        os.write(fd, b"\x04")
        _, status = os.waitpid(pid, 0)
        sys.exit(os.waitstatus_to_exitcode(status))
        """#
        let r = try runProcess(TestPaths.venv + "/bin/python3", ["-c", driver, TestPaths.binary, state, try HTTPBin.url(""), out], check: false)
        let prompts = String(decoding: r.stdout, as: UTF8.self)
        XCTAssertEqual(r.status, 0, prompts + r.stderr)
        XCTAssertEqual(prompts.split(separator: "\n"), ["main", "next", "main", "next", "main", "next", "main", "next", "main", "next", "main"],
                       prompts)
        let text = try String(contentsOfFile: out, encoding: .utf8)
        let root = try HTTPBin.url("")
        XCTAssertEqual(urls(text), ["\(root)/anything/one?q=1", "\(root)/anything/three?x=b%20c%0Ad", "\(root)/anything/four",
                                    "\(root)/anything/six?y=1"], text)
    }

    /// `swurl repl > FILE` on a terminal: the prompt is on stderr, and so is the line end Ctrl-D
    /// writes; FILE gets no stray byte.
    func testCtrlDWritesNothingIntoARedirectedStdout() throws {
        let state = TestPaths.temporaryDirectory()
        let out = state + "/out"
        let driver = ReplTests.replIntoFile("") + "\n" + #"""
        expect(b"> ")
        os.write(fd, b"\x04")
        _, status = os.waitpid(pid, 0)
        sys.exit(os.waitstatus_to_exitcode(status))
        """#
        let r = try runProcess(TestPaths.venv + "/bin/python3", ["-c", driver, TestPaths.binary, state, try HTTPBin.url(""), out], check: false)
        XCTAssertEqual(r.status, 0, String(decoding: r.stdout, as: UTF8.self) + r.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: out)).count, 0, "stdout's file got a stray byte")
    }

    /// Options that need a partner a line may bring are fine as defaults (`set --all -h`, a line
    /// then adds -F); a line's option replaces the defaults of its set in every set the config
    /// file knows too (`--curl` over a default `--offline`, `--cache` over `--no-cache`).
    func testDefaultsWithPartnersAndEverySetOfExclusiveOptions() throws {
        let r = try script(["set --all -h", "-F /redirect/1"], [try HTTPBin.url("")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.text.contains("302") && r.text.contains("200"), r.text)
        let raw = try script(["set a=b", "set --raw xyz", "env"], [try HTTPBin.url("")])
        XCTAssertTrue(raw.stderr.contains("line 2: --raw cannot be combined with data items"), raw.stderr)
        // Default credentials bind to the origin of the first line that is a request: a line
        // refused before sending (a bad --timeout) bound them, and the next line lost them.
        let capture = try CaptureServer()
        let port = capture.server.port
        let bound = try script(["http://localhost:\(port)/x --timeout abc", "http://127.0.0.1:\(port)/y"], ["-a", "u:p"])
        XCTAssertTrue(bound.stderr.contains("line 1:") && !bound.stderr.contains("not sent"), bound.stderr)
        XCTAssertTrue(String(decoding: capture.captured, as: UTF8.self).contains("Authorization: Basic dTpw\r\n"),
                      String(decoding: capture.captured, as: UTF8.self))
        // A default that reads stdin is refused by `set` and at the start, as any default no
        // request could take (it was taken, and every later line failed).
        let stdinDefault = try script(["set f@-", "env"], [try HTTPBin.url("")])
        XCTAssertTrue(stdinDefault.stderr.contains("line 1: 'f@-' reads stdin, which a REPL default cannot"), stdinDefault.stderr)
        XCTAssertFalse(stdinDefault.text.contains("f@-"), stdinDefault.text)
        let stale = try script(["set --cache --stale-ok", "set --no-cache", "env"], [try HTTPBin.url("")])
        XCTAssertEqual(stale.status, 0, stale.stderr)
        XCTAssertTrue(stale.text.contains("--no-cache") && !stale.text.contains("--stale-ok"), stale.text)
        let curl = try script(["/get --curl"], [try HTTPBin.url(""), "--offline"])
        XCTAssertEqual(curl.status, 0, curl.stderr)
        XCTAssertTrue(curl.text.hasPrefix("curl"), curl.text)
    }

    /// Ctrl-Z at the prompt under a shell with job control: the terminal goes back to the shell
    /// as it was, and after `fg` readline has it again (raw, no echo) with the prompt and the
    /// line drawn anew. readline's own handlers are off, and nothing took SIGTSTP: after `fg` the
    /// terminal stayed canonical with echo, keys showed as `^[[D` while readline edited a line
    /// no longer on screen.
    func testCtrlZAtThePromptGivesTheTerminalBackAndTakesItAgainAfterFg() throws {
        let driver = #"""
        import os, pty, sys, time, select, termios
        binary, base = sys.argv[1:3]
        env = dict(os.environ, TERM="xterm", NO_COLOR="1", PS1="SH$ ", HOME="/nonexistent")
        pid, fd = pty.fork()
        if pid == 0:
            os.execve("/bin/bash", ["/bin/bash", "--norc", "--noprofile", "-i"], env)
        """# + "\n" + ReplTests.ptyExpect + "\n" + #"""
        def mode():
            lflag = termios.tcgetattr(fd)[3]
            return ("icanon" if lflag & termios.ICANON else "-icanon") + " " + ("echo" if lflag & termios.ECHO else "-echo")
        expect(b"SH$ ")
        os.write(fd, ("XDG_STATE_HOME=/nonexistent " + binary + " repl " + base + "\r").encode())
        expect(b"/> ")
        os.write(fd, b"/anything/abc")
        expect(b"abc")
        before = mode()
        os.write(fd, b"\x1a")
        expect(b"SH$ ")
        os.write(fd, b"fg\r")
        redrawn = expect(b"/> /anything/abc")
        time.sleep(0.3)
        after = mode()
        os.write(fd, b"\x1b[D\x1b[DX\r")
        sent = expect(b"aXbc")
        os.write(fd, b"exit\r")
        expect(b"SH$ ")
        os.write(fd, b"exit\r")
        os.waitpid(pid, 0)
        print(before + "|" + after)
        """#
        let out = try runProcess(TestPaths.venv + "/bin/python3", ["-c", driver, TestPaths.binary, try HTTPBin.url("")], check: false)
        let text = String(decoding: out.stdout, as: UTF8.self)
        XCTAssertEqual(out.status, 0, text + out.stderr)
        XCTAssertEqual(text.split(separator: "\n").last.map(String.init), "-icanon -echo|-icanon -echo", text)
    }

    /// On a terminal with stdout and stderr both sent to files, the prompt and the line typed
    /// show on the terminal (/dev/tty): they went into stdout's file between the bodies, and the
    /// terminal showed nothing of what was typed.
    func testThePromptStaysOnTheTerminalWhenStdoutAndStderrGoToFiles() throws {
        let dir = TestPaths.temporaryDirectory()
        let driver = #"""
        import os, pty, sys, time, select
        binary, base, out, err = sys.argv[1:5]
        env = dict(os.environ, TERM="xterm", NO_COLOR="1", XDG_STATE_HOME="/nonexistent")
        pid, fd = pty.fork()
        if pid == 0:
            os.dup2(os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 1)
            os.dup2(os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 2)
            os.execve(binary, [binary, "repl", base], env)
        """# + "\n" + ReplTests.ptyExpect + "\n" + #"""
        expect(b"/> ")
        os.write(fd, b"/anything/typed\r")
        expect(b"/anything/typed")
        expect(b"/> ")
        os.write(fd, b"exit\r")
        _, status = os.waitpid(pid, 0)
        sys.exit(os.waitstatus_to_exitcode(status))
        """#
        let run = try runProcess(TestPaths.venv + "/bin/python3", ["-c", driver, TestPaths.binary, try HTTPBin.url(""), dir + "/out", dir + "/err"], check: false)
        XCTAssertEqual(run.status, 0, String(decoding: run.stdout, as: UTF8.self) + run.stderr)
        let out = try String(contentsOfFile: dir + "/out", encoding: .utf8)
        XCTAssertTrue(out.contains("\"url\": \"\(try HTTPBin.url("/anything/typed"))\""), out)
        XCTAssertFalse(out.contains("swurl http") || out.contains("\u{1B}[?2004"), out)
    }

    /// On a terminal, a line whose option reads stdin by another name (`/dev/./stdin`, which is
    /// the terminal) is refused as `/dev/stdin` is: it read the lines typed next as its file.
    func testALineReadingTheTerminalByAnotherNameIsRefused() throws {
        let driver = ReplTests.replOnPty(["binary", "base"], #""repl", "--no-config", base"#) + "\n" + #"""
        expect(b"> ")
        os.write(fd, b"/anything/one --cacert /dev/./stdin\r")
        refused = expect(b"> ")
        os.write(fd, b"/anything/after\r")
        after = expect(b"> ")
        os.write(fd, b"exit\r")
        os.waitpid(pid, 0)
        print(json.dumps([refused, after]))
        """#
        let out = try runProcess(TestPaths.venv + "/bin/python3", ["-c", driver, TestPaths.binary, try HTTPBin.url("")], check: false)
        let text = String(decoding: out.stdout, as: UTF8.self)
        XCTAssertEqual(out.status, 0, text + out.stderr)
        let seen = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data((text.split(separator: "\n").last ?? "").utf8)) as? [String])
        XCTAssertEqual(seen.count, 2, text)
        XCTAssertTrue(seen.first?.contains("--cacert '/dev/./stdin' reads stdin, which a REPL line cannot") ?? false, text)
        // httpbin's answer names the whole URL (the terminal only echoed the path typed).
        XCTAssertTrue(seen.last?.contains("\"url\": \"\(try HTTPBin.url("/anything/after"))\"") ?? false, "the next line runs: " + text)
    }

    /// A pty driver for `swurl repl BASE -a bob -b`: types each step's line, and after it the
    /// password when the step has one, expecting the prompt for it first; a line without one
    /// expects the REPL's prompt back at once (a password asked for then times the driver out).
    static func passwordDriver(_ steps: [(line: String, password: String?)]) -> String {
        var script = ReplTests.replIntoFile(#", "-a", "bob", "-b""#) + "\nexpect(b\"> \")\n"
        for step in steps {
            script += "os.write(fd, b\"\(step.line)\\r\")\n"
            if let password = step.password {
                script += "expect(b\"password for bob@\")\nos.write(fd, b\"\(password)\\r\")\n"
            }
            script += "expect(b\"> \")\n"
        }
        return script + "os.write(fd, b\"exit\\r\")\n_, status = os.waitpid(pid, 0)\nsys.exit(os.waitstatus_to_exitcode(status))\n"
    }

    /// `swurl repl URL -a bob` asks for bob's password once for the host, not on every line (as a
    /// batch asks once); the output goes to a file and the prompts to the terminal.
    func testADefaultUserIsAskedForItsPasswordOnce() throws {
        let dir = TestPaths.temporaryDirectory()
        let line = "/basic-auth/bob/hunter2"
        let driver = ReplTests.passwordDriver([(line, "hunter2"), (line, nil)])
        let out = try runProcess(TestPaths.venv + "/bin/python3", ["-c", driver, TestPaths.binary, dir, try HTTPBin.url(""), dir + "/out"], check: false)
        XCTAssertEqual(out.status, 0, String(decoding: out.stdout, as: UTF8.self))
        let written = try String(contentsOfFile: dir + "/out", encoding: .utf8)
        XCTAssertEqual(written.components(separatedBy: "\"authenticated\": true").count - 1, 2, written)

        // A password the server refuses (401) is forgotten: the next line asks again, and the
        // right one typed then is sent (it was the wrong one until `set -a bob`).
        let retry = ReplTests.passwordDriver([(line, "wrong"), (line, "hunter2")])
        let again = try runProcess(TestPaths.venv + "/bin/python3", ["-c", retry, TestPaths.binary, dir, try HTTPBin.url(""), dir + "/out2"], check: false)
        XCTAssertEqual(again.status, 0, String(decoding: again.stdout, as: UTF8.self))
        let second = try String(contentsOfFile: dir + "/out2", encoding: .utf8)
        XCTAssertEqual(second.components(separatedBy: "\"authenticated\": true").count - 1, 1, second)
    }

    /// A pty driver's start: its arguments by `names` (from sys.argv[1:]: `binary` first; a
    /// `state` is XDG_STATE_HOME, an `out` the file stdout goes to), then `swurl` with `arguments`
    /// (Python list items) on a terminal, and `expect`; the driver's own lines follow.
    static func replOnPty(_ names: [String], _ arguments: String) -> String {
        let state = names.contains("state") ? "XDG_STATE_HOME=state, " : ""
        let redirect = names.contains("out") ? "    o = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)\n    os.dup2(o, 1)\n" : ""
        return "import os, pty, sys, time, select, signal, termios, json\n"
            + "\(names.joined(separator: ", ")) = sys.argv[1:\(names.count + 1)]\n"
            + "env = dict(os.environ, \(state)TERM=\"xterm\", NO_COLOR=\"1\")\n"
            + "pid, fd = pty.fork()\nif pid == 0:\n" + redirect
            + "    os.execve(binary, [binary, \(arguments)], env)\n" + ReplTests.ptyExpect
    }

    /// `replOnPty` for `swurl repl BASE` plus `extra`, stdout into the file OUT (its arguments:
    /// binary, state directory, base, out).
    static func replIntoFile(_ extra: String) -> String {
        replOnPty(["binary", "state", "base", "out"], "\"repl\", base" + extra)
    }

    /// The pty drivers' `expect(pattern)`: reads the terminal (`fd`) until `pattern` shows,
    /// returns what came up to it; exits 1 when it does not come.
    static let ptyExpect = #"""
    buf = b""
    def expect(pat, timeout=20):
        global buf
        end = time.time() + timeout
        while time.time() < end:
            i = buf.find(pat)
            if i >= 0:
                seen = buf[:i + len(pat)]
                buf = buf[i + len(pat):]
                return seen.decode(errors="replace")
            r, _, _ = select.select([fd], [], [], 0.05)
            if r:
                try:
                    d = os.read(fd, 65536)
                except OSError:
                    break
                if not d:
                    break
                buf += d
        print("timed out waiting for %r; got %r" % (pat, buf[-800:]))
        sys.exit(1)
    """#

    /// Types a request for a large text body, stops reading (the terminal's buffer fills and the
    /// output blocks), presses Ctrl-C, then expects the prompt back with 130 and exits with `exit`.
    static let interruptedOutputDriver = ReplTests.replOnPty(["binary", "url"], #""repl", "--pretty=none""#) + "\n" + #"""
    expect(b"> ")
    os.write(fd, url.encode() + b"\r")
    time.sleep(1.5)
    os.kill(pid, signal.SIGINT)
    expect(b"[130]> ", timeout=60)
    os.write(fd, b"exit\r")
    _, status = os.waitpid(pid, 0)
    sys.exit(os.waitstatus_to_exitcode(status))
    """#

    /// Three REPLs typing at once into one history file keep every line (each read the file, added
    /// its line and renamed it over, so one's line could be lost: 489 of 600 were kept).
    func testREPLsTypingAtOnceKeepEveryHistoryLine() throws {
        let driver = #"""
        import os, pty, sys, time, select
        binary, state = sys.argv[1:3]
        env = dict(os.environ, XDG_STATE_HOME=state, TERM="xterm", NO_COLOR="1")
        repls = []
        for n in range(3):
            pid, fd = pty.fork()
            if pid == 0:
                os.execve(binary, [binary, "repl", "http://127.0.0.1:9/"], env)
            repls.append((pid, fd))
        def expect(fd, pat, timeout=20):
            buf, end = b"", time.time() + timeout
            while time.time() < end and pat not in buf:
                r, _, _ = select.select([fd], [], [], 0.05)
                if r:
                    try:
                        buf += os.read(fd, 65536)
                    except OSError:
                        break
            if pat not in buf:
                print("timed out"); sys.exit(1)
        for pid, fd in repls:
            expect(fd, b"> ")
        for i in range(60):
            for n, (pid, fd) in enumerate(repls):
                os.write(fd, b"cd x%d-%d\r" % (n, i))
            for pid, fd in repls:
                expect(fd, b"> ")
        for pid, fd in repls:
            os.write(fd, b"exit\r")
            os.waitpid(pid, 0)
        kept = [l for l in open(os.path.join(state, "swurl", "history")).read().splitlines() if l.startswith("cd x")]
        print(len(kept), len(set(kept)))
        """#
        let state = TestPaths.temporaryDirectory()
        let out = try runProcess(TestPaths.venv + "/bin/python3", ["-c", driver, TestPaths.binary, state], check: false)
        XCTAssertEqual(String(decoding: out.stdout, as: UTF8.self), "180 180\n", out.stderr)
    }

    /// A token given as a base URL's user name alone is masked in the prompt, as in a HAR file
    /// and in messages (the prompt showed it).
    func testTheTokenOfABaseURLIsMaskedInThePrompt() throws {
        let driver = ReplTests.replOnPty(["binary", "state"], #""repl", "http://TOKEN10@127.0.0.1:9/""#) + "\n" + #"""
        seen = expect(b"> ")
        os.write(fd, b"exit\r")
        _, status = os.waitpid(pid, 0)
        print(seen)
        """#
        let out = try runProcess(TestPaths.venv + "/bin/python3", ["-c", driver, TestPaths.binary, TestPaths.temporaryDirectory()], check: false)
        let text = String(decoding: out.stdout, as: UTF8.self)
        XCTAssertTrue(text.contains("swurl http://****@127.0.0.1:9/> "), text + out.stderr)
        XCTAssertFalse(text.contains("TOKEN10"), text)
    }

    /// Ctrl-C in a history search (Ctrl-R) ends the search and clears the line: the search went
    /// on, and Enter after the next line typed ran the entry it had found (a DELETE, say).
    func testCtrlCEndsAHistorySearch() throws {
        let capture = try CaptureServer()
        let driver = ReplTests.replOnPty(["binary", "state", "base"], #""repl", base"#) + "\n" + #"""
        expect(b"> ")
        os.write(fd, b"get /first\r")
        expect(b"> ")
        os.write(fd, b"\x12fir")
        expect(b"fir")
        time.sleep(0.3)
        os.kill(pid, signal.SIGINT)
        time.sleep(0.5)
        os.write(fd, b"get /second\r")
        expect(b"> ")
        os.write(fd, b"exit\r")
        _, status = os.waitpid(pid, 0)
        sys.exit(os.waitstatus_to_exitcode(status))
        """#
        let state = TestPaths.temporaryDirectory()
        let out = try runProcess(TestPaths.venv + "/bin/python3", ["-c", driver, TestPaths.binary, state, capture.base], check: false)
        XCTAssertEqual(out.status, 0, String(decoding: out.stdout.suffix(2000), as: UTF8.self) + out.stderr)
        try capture.sync()
        let sent = String(decoding: capture.capturedAll, as: UTF8.self)
        XCTAssertTrue(sent.contains("GET /second "), sent)
        XCTAssertEqual(sent.components(separatedBy: "GET /first ").count - 1, 1, sent)
    }

    /// Ctrl-C while a response is being written to the terminal returns to the prompt; the
    /// stream it cut short is no failed stdout (which would end the REPL).
    func testCtrlCWhileOutputBlocksReturnsToThePrompt() throws {
        let nginx = try NginxServer()
        let line = Array("line of text number xxxxxxxxxxxxxxxxxxxxxxxxxxxx\n".utf8)
        var body: [UInt8] = []
        body.reserveCapacity(line.count * 200_000)
        for _ in 0..<200_000 { body += line }
        try Data(body).write(to: URL(fileURLWithPath: nginx.root + "/big.txt"))
        let out = try runProcess(TestPaths.venv + "/bin/python3", ["-c", ReplTests.interruptedOutputDriver, TestPaths.binary, nginx.url("/big.txt")],
                                 check: false)
        XCTAssertEqual(out.status, 0, String(decoding: out.stdout.suffix(2000), as: UTF8.self) + out.stderr)
    }

    /// Sends the signal named by its second argument to the REPL at its prompt (a line half
    /// typed), then prints how it ended and the terminal's modes afterwards.
    static let promptSignalDriver = ReplTests.replOnPty(["binary", "name"], #""repl", "http://127.0.0.1:9/""#) + "\n" + #"""
    seen = expect(b"> ")
    os.write(fd, b"get /x")
    time.sleep(0.3)
    os.kill(pid, getattr(signal, name))
    while True:
        r, _, _ = select.select([fd], [], [], 5)
        if not r:
            break
        try:
            d = os.read(fd, 65536)
        except OSError:
            break
        if not d:
            break
        buf += d
    _, status = os.waitpid(pid, 0)
    lflag = termios.tcgetattr(fd)[3]
    out = seen.encode() + buf
    print(os.waitstatus_to_exitcode(status), bool(lflag & termios.ECHO), bool(lflag & termios.ICANON),
          out.count(b"\x1b[?2004h") == out.count(b"\x1b[?2004l"))
    """#

    /// SIGTERM or SIGHUP at the prompt (`kill`, `timeout`, a closed window) left the terminal
    /// raw, without echo and in bracketed-paste mode: readline's own handlers are off. The
    /// terminal is put back, then swurl ends by the signal.
    func testASignalAtThePromptPutsTheTerminalBack() throws {
        for (name, number) in [("SIGTERM", 15), ("SIGHUP", 1)] {
            let out = try runProcess(TestPaths.venv + "/bin/python3", ["-c", ReplTests.promptSignalDriver, TestPaths.binary, name], check: false)
            let said = String(decoding: out.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            XCTAssertEqual(said, "-\(number) True True True", name + ": " + out.stderr)
        }
    }

    /// SIGTERM during a scripted REPL line (`timeout`, a CI job) left a hidden temporary file
    /// beside the line's -o target and no record in the REPL's HAR: the line stops as a one-shot
    /// request does, then the REPL ends by the signal.
    func testSIGTERMDuringAScriptLineStopsItCleanly() throws {
        let dir = TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data("old".utf8).write(to: URL(fileURLWithPath: dir + "/out.json"))
        let script = #"""
        import os, signal, subprocess, sys, time
        binary, where, url = sys.argv[1:4]
        p = subprocess.Popen([binary, "repl", "--har", "r.har"], cwd=where, stdin=subprocess.PIPE,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        p.stdin.write(("get " + url + " -o out.json\n").encode())
        p.stdin.flush()
        deadline = time.time() + 20
        while time.time() < deadline and not [n for n in os.listdir(where) if n.startswith(".out.json.swurl-")]:
            time.sleep(0.02)
        time.sleep(0.3)
        p.send_signal(signal.SIGTERM)
        print(p.wait(timeout=30))
        """#
        let out = try runProcess(TestPaths.venv + "/bin/python3", ["-c", script, TestPaths.binary, dir, try HTTPBin.url("/delay/10")], check: false)
        XCTAssertEqual(String(decoding: out.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines), "-15", out.stderr)
        XCTAssertEqual(try String(contentsOfFile: dir + "/out.json", encoding: .utf8), "old")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix(".") }, [], "no temporary file left")
        let har = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/r.har"))) as? [String: Any]
        let entries = (har?["log"] as? [String: Any])?["entries"] as? [[String: Any]] ?? []
        XCTAssertEqual(entries.first?["_error"] as? String, "interrupted", "\(entries)")
    }

    /// Types each argument after the first two as a line at the prompt, then Ctrl-D.
    static let historyDriver = ReplTests.replOnPty(["binary", "state"], #""repl""#) + "\n" + #"""
    expect(b"> ")
    for line in sys.argv[3:]:
        os.write(fd, line.encode() + b"\r")
        expect(b"> ")
    os.write(fd, b"\x04")
    _, status = os.waitpid(pid, 0)
    sys.exit(os.waitstatus_to_exitcode(status))
    """#

    /// The REPL's driver of `testNoHistoryIsMadeInAnotherUsersDirectory`: what came before the
    /// first prompt, and the exit status.
    static let historyNoteDriver = ReplTests.replOnPty(["binary", "state"], #""repl""#) + "\n" + #"""
    seen = expect(b"> ")
    os.write(fd, b"cd /x\r")
    expect(b"> ")
    os.write(fd, b"\x04")
    _, status = os.waitpid(pid, 0)
    print(json.dumps({"before": seen, "exit": os.waitstatus_to_exitcode(status)}))
    """#

    /// The REPL's driver of `testAHistoryThatCannotBeSavedSaysSoOnce`: everything the terminal
    /// showed after the first prompt, and the exit status.
    static let historySaveDriver = ReplTests.replOnPty(["binary", "state"], #""repl""#) + "\n" + #"""
    expect(b"> ")
    seen = ""
    for line in [b"cd /one", b"cd /two", b"cd /three"]:
        os.write(fd, line + b"\r")
        seen += expect(b"> ")
    os.write(fd, b"\x04")
    _, status = os.waitpid(pid, 0)
    print(json.dumps({"seen": seen, "exit": os.waitstatus_to_exitcode(status)}))
    """#

    /// Regression: a history file that could not be written (a full disk, a directory where it
    /// should be) lost every line without a word. It says so, once.
    func testAHistoryThatCannotBeSavedSaysSoOnce() throws {
        let state = TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        try FileManager.default.createDirectory(atPath: state + "/swurl/history", withIntermediateDirectories: true)
        let out = try runProcess(TestPaths.venv + "/bin/python3", ["-c", ReplTests.historySaveDriver, TestPaths.binary, state], check: false)
        let text = String(decoding: out.stdout, as: UTF8.self)
        XCTAssertEqual(out.status, 0, text + out.stderr)
        XCTAssertEqual(text.components(separatedBy: "the history is not saved: ").count, 2, text)
        XCTAssertTrue(text.contains("\"exit\": 0"), text)
    }

    /// Root with another user's HOME (`su` without `-`): the REPL made root's 0700 directories
    /// in that user's state directory (~/.local/state/swurl), which they could then not use,
    /// where a session or the cache is refused. No history is kept there, with a note.
    func testNoHistoryIsMadeInAnotherUsersDirectory() throws {
        guard geteuid() == 0 else { return }
        let top = TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: top) }
        let state = top + "/alice-state"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        XCTAssertEqual(chown(state, 12345, 12345), 0)
        XCTAssertEqual(chmod(state, 0o755), 0)
        let out = try runProcess(TestPaths.venv + "/bin/python3", ["-c", ReplTests.historyNoteDriver, TestPaths.binary, state], check: false)
        let text = String(decoding: out.stdout, as: UTF8.self)
        XCTAssertEqual(out.status, 0, text + out.stderr)
        XCTAssertTrue(text.contains("no history is kept: its directory would be made in \(state), which belongs to uid 12345"), text)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: state), [], "nothing made in another user's directory")
    }

    /// readline is opened when the terminal REPL starts: without it (here hidden by an empty file
    /// bound over it in a private mount namespace) the REPL names the library and the fix and
    /// exits 1, and one-shot requests, which never load it, still work.
    func testWithoutReadlineTheTerminalREPLSaysSoAndExits1() throws {
        let library = try XCTUnwrap(["/lib/x86_64-linux-gnu/libreadline.so.8", "/usr/lib/x86_64-linux-gnu/libreadline.so.8"]
            .first { FileManager.default.fileExists(atPath: $0) }, "libreadline.so.8 is not installed")
        let root = try HTTPBin.url("")
        let shell = """
            mount --bind /dev/null "$(readlink -f "$1")" || exit 99
            script -q -e -c "'$2' repl '$3'" /dev/null < /dev/null; echo "repl=$?"
            "$2" "$3/get" -b > /dev/null; echo "oneshot=$?"
            """
        let out = try runProcess("/usr/bin/unshare", ["-m", "sh", "-c", shell, "sh", library, TestPaths.binary, root], check: false)
        let text = String(decoding: out.stdout, as: UTF8.self)
        XCTAssertEqual(out.status, 0, text + out.stderr)
        XCTAssertTrue(text.contains("cannot load GNU readline for the interactive REPL"), text)
        XCTAssertTrue(text.contains("apt-get install libreadline8"), text)
        XCTAssertTrue(text.contains("repl=1"), text)
        XCTAssertTrue(text.contains("oneshot=0"), text)
    }

    /// On a terminal a REPL line prints exactly what the one-shot command prints (Date aside).
    func testTerminalOutputIsTheOneShotOutput() throws {
        let root = try HTTPBin.url("")
        let state = TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let out = try runProcess(TestPaths.venv + "/bin/python3", ["-c", ReplTests.sameOutputDriver, TestPaths.binary, root, state],
                                 check: false)
        let text = String(decoding: out.stdout, as: UTF8.self)
        XCTAssertEqual(out.status, 0, text + out.stderr)
        guard let data = text.split(separator: "\n").last.map({ Data($0.utf8) }),
              let result = try JSONSerialization.jsonObject(with: data) as? [String: String] else {
            return XCTFail("no result: \(text) \(out.stderr)")
        }
        let oneShot = result["oneshot"] ?? "", repl = result["repl"] ?? ""
        XCTAssertTrue(oneShot.contains("\u{1b}["), "colours on a terminal: \(oneShot)")
        XCTAssertTrue(oneShot.contains("/anything/same"), oneShot)
        XCTAssertEqual(repl, oneShot)
    }

    static let sameOutputDriver = #"""
    import os, pty, sys, time, select, json, re
    binary, base, state = sys.argv[1:4]
    env = dict(os.environ, XDG_STATE_HOME=state, TERM="xterm-256color")
    env.pop("NO_COLOR", None)
    def run(args, lines):
        pid, fd = pty.fork()
        if pid == 0:
            os.execve(binary, [binary] + args, env)
        # Each line is typed once one more prompt has shown than lines were typed (typed
        # earlier, readline may not be reading yet, and a lost Ctrl-D would leave the REPL up).
        buf = b""
        sent = 0
        end = time.time() + 30
        while time.time() < end:
            if sent < len(lines) and buf.count(b"> ") > sent:
                os.write(fd, lines[sent])
                sent += 1
            r, _, _ = select.select([fd], [], [], 0.05)
            if r:
                try:
                    d = os.read(fd, 65536)
                except OSError:
                    break
                if not d:
                    break
                buf += d
        if sent < len(lines) or time.time() >= end:
            os.kill(pid, 9)  # stuck: the comparison fails instead of hanging the class
        os.waitpid(pid, 0)
        return buf.decode(errors="replace")
    def clean(t):
        return "\n".join(l for l in t.split("\n") if "Date" not in l)
    one = run([base + "/anything/same"], [])
    # The REPL: the output between the echoed line and the next prompt.
    rep = run(["repl", base], [b"/anything/same\n", b"\x04"])
    start = rep.find("/anything/same\r\n")
    rest = rep[start + len("/anything/same\r\n"):]
    rest = rest.split("\x1b[?2004h")[0].replace("\x1b[?2004l\r", "")
    print(json.dumps({"oneshot": clean(one), "repl": clean(rest)}))
    """#

    static let ptyDriver = ReplTests.replOnPty(["binary", "base", "state"], #""repl", base"#) + "\n" + #"""
    res = {}
    prompt = expect(b"> ")
    res["prompt"] = prompt.split("\x1b[?2004h")[-1]
    os.write(fd, b"/anything/one --follo\t")
    expect(b"--follow ")
    os.write(fd, b"\n")
    res["first"] = expect(b"\"url\"") + expect(b"> ")
    # A remembered path with a blank: readline splits at the escaped blank, Tab still completes it.
    os.write(fd, b"'/anything/my dir/x'\n")
    expect(b"\"url\"")
    expect(b"> ")
    os.write(fd, b"/anything/my\\ d\t")
    expect(b"dir/x ")
    os.write(fd, b"\n")
    res["escaped"] = expect(b"\"url\"") + expect(b"> ")
    os.write(fd, b"/delay/10\n")
    expect(b"delay/10\r\n")
    time.sleep(0.5)
    started = time.time()
    os.write(fd, b"\x03")
    # The delay is 10 s: the prompt must come back well before it ends.
    res["after_cancel"] = expect(b"[130]> ", 5)
    res["cancel_seconds"] = time.time() - started
    os.write(fd, b"garbage\x03")
    expect(b"[130]> ")
    os.write(fd, b"/anything/two\n")
    res["second"] = expect(b"\"url\"") + expect(b"> ")
    os.write(fd, b"/anything/three -a user:secret\n")
    expect(b"\"url\"")
    expect(b"> ")
    os.write(fd, b"\x04")
    _, st = os.waitpid(pid, 0)
    res["exit"] = os.waitstatus_to_exitcode(st)
    print(json.dumps(res))
    """#

    /// Defaults no request could take are refused when they are set (`set` changes nothing) or
    /// when the REPL starts: kept, they failed every later line.
    func testDefaultsNoRequestCouldTakeAreRefusedWhenSet() throws {
        let r = try script(["set --max-filesize xyz", "set --cacert /no/such/ca.pem", "set --timeout abc", "env", "get"],
                           [try HTTPBin.url("/anything")])
        XCTAssertTrue(r.stderr.contains("line 1: --max-filesize: 'xyz'"), r.stderr)
        XCTAssertTrue(r.stderr.contains("line 2:") && r.stderr.contains("/no/such/ca.pem"), r.stderr)
        XCTAssertTrue(r.stderr.contains("line 3: --timeout: 'abc'"), r.stderr)
        XCTAssertFalse(r.text.contains("--max-filesize") || r.text.contains("--cacert") || r.text.contains("--timeout"), r.text)
        XCTAssertTrue(r.text.contains("\"url\": \""), "the request ran: " + r.text)
        let start = try runSwurl(["repl", try HTTPBin.url(""), "--timeout", "abc"], stdin: Data("get\n".utf8))
        XCTAssertEqual(start.status, 64, start.stderr)
        XCTAssertTrue(start.stderr.contains("--timeout: 'abc'"), start.stderr)
        // The client files and session names too (they failed every line, judged per line).
        let notPEM = TestPaths.temporaryDirectory() + "/cert.txt"
        try Data("not a certificate\n".utf8).write(to: URL(fileURLWithPath: notPEM))
        for (args, status, fragment) in [(["--cert", "/no/such/cert.pem"], Int32(66), "/no/such/cert.pem"), (["--key", "/no/such/key.pem"], 66, "/no/such/key.pem"),
                                         (["--cert", notPEM], 65, "is not PEM"), (["--session="], 64, "'' is not a session name")] {
            let bad = try runSwurl(["repl", try HTTPBin.url("")] + args, stdin: Data("get\n".utf8))
            XCTAssertEqual(bad.status, status, "\(args): \(bad.stderr)")
            XCTAssertTrue(bad.stderr.contains(fragment), "\(args): \(bad.stderr)")
            XCTAssertEqual(bad.text, "", "\(args): nothing ran")
        }
        let set = try script(["set --cert /no/such/cert.pem", "env"], [try HTTPBin.url("/anything")])
        XCTAssertTrue(set.stderr.contains("line 1:") && set.stderr.contains("/no/such/cert.pem"), set.stderr)
        XCTAssertFalse(set.text.contains("--cert"), set.text)
    }
}
