import XCTest
import Foundation
import SwurlTestSupport

/// Issue 27 §4: the config file's defaults under the command line's rules, and the network
/// wait and `reach` honouring the connection options.
final class ConfigWaitReachTests: XCTestCase {
    private func config(_ text: String) throws -> (env: [String: String], file: String) { try TestPaths.config(text) }

    /// A default config path the user cannot read (here a 0700 home of root, read as nobody) is
    /// no config: the run goes on, with no exit 66 and no SWURL_CONFIG hint.
    func testAnUnreadableDefaultConfigIsAbsent() throws {
        let home = TestPaths.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: home + "/.config/swurl", withIntermediateDirectories: true)
        try Data("--form\n".utf8).write(to: URL(fileURLWithPath: home + "/.config/swurl/config"))
        chmod(home, 0o700)
        var env = ProcessInfo.processInfo.environment
        env["HOME"] = home
        env.removeValue(forKey: "XDG_CONFIG_HOME")
        env.removeValue(forKey: "SWURL_CONFIG")
        let r = try runProcess("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", TestPaths.binary,
                                                     "--offline", "POST", ":9/x", "a=1"], environment: env, check: false)
        let out = String(decoding: r.stdout, as: UTF8.self)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertFalse(r.stderr.contains("SWURL_CONFIG"), r.stderr)
        XCTAssertTrue(out.contains("Content-Type: application/json"), "the unreadable --form applied: \(out)")
    }

    /// A mode from the config (--curl, --download) gives way to another on the command line.
    func testTheCommandLineModeBeatsTheConfigs() throws {
        for mode in ["--curl", "--download"] {
            let (env, _) = try config("\(mode)\n")
            let r = try runSwurl(["--offline", "http://127.0.0.1:9/x"], environment: env)
            XCTAssertEqual(r.status, 0, "\(mode): \(r.stderr)")
            XCTAssertTrue(r.text.hasPrefix("GET /x HTTP/1.1\r\n"), "\(mode): \(r.text)")
        }
    }

    /// A config default that only qualifies another option waits for it: the man page's own
    /// sample (`--pin-scope chain`) made every request without a pin a usage error. On the
    /// command line the same option alone is still one, naming what it needs.
    func testConfigQualifiersWithoutTheirOptionAreLeftOut() throws {
        let (env, _) = try config("--pin-scope chain\n--all\n--har-bodies --har-secrets\n")
        let r = try runSwurl(["--offline", "http://127.0.0.1:9/x"], environment: env)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.text.hasPrefix("GET /x HTTP/1.1\r\n"), r.text)
        let alone = try runSwurl(["--no-config", "--offline", "--pin-scope", "chain", "https://127.0.0.1:9/x"])
        XCTAssertEqual(alone.status, 64, alone.stderr)
        XCTAssertTrue(alone.stderr.contains("--pin-scope needs --pin-pubkey or --pin-cert"), alone.stderr)
        // With its option given, the default applies: --all without -F on the command line is
        // refused, with -F from the config it is not.
        let (follow, _) = try config("--all\n-F\n")
        XCTAssertEqual(try runSwurl(["--offline", "http://127.0.0.1:9/x"], environment: follow).status, 0)
        // `certs` and `reach` too (they were 64, naming the config's line): the tool that
        // prints pins stayed closed to whoever set a --pin-scope policy.
        let (tls, _) = try config("--pin-scope chain\n--key-password x\n")
        let reach = try runSwurl(["reach", try HTTPBin.url("/get")], environment: tls)
        XCTAssertEqual(reach.status, 0, reach.stderr)
        let pki = try CertificateFactory.shared()
        let nginx = try NginxServer(tls: (pki.path("selfsigned.pem"), pki.path("selfsigned.key")))
        let certs = try runSwurl(["certs", nginx.url("/")], environment: tls)
        XCTAssertEqual(certs.status, 0, certs.stderr)
        XCTAssertTrue(certs.text.contains("sha256//"), certs.text)
    }

    /// A batch keeps a config --pin-scope for the lines that pin: a line pinning the root under a
    /// config `--pin-scope leaf` is refused (7), as it was before the one-shot rule.
    func testAConfigPinScopeReachesTheLinesThatPin() throws {
        let certs = try CertificateFactory.shared()
        let server = try CaptureServer(tls: (certs.path("leaf-chain.pem"), certs.path("leaf.key")))
        let (env, _) = try config("--pin-scope leaf\n--cacert \(certs.path("root.pem"))\n")
        let lines = TestPaths.temporaryDirectory() + "/lines"
        try Data("\(server.base)/p --pin-pubkey \(try certs.pin("root.pem"))\n".utf8).write(to: URL(fileURLWithPath: lines))
        let batch = try runSwurl(["batch", lines], environment: env)
        XCTAssertEqual(batch.status, 7, batch.text + batch.stderr)
        XCTAssertTrue(batch.text.contains("--pin-scope leaf"), batch.text)
        let repl = try runSwurl(["repl", server.base, "--stop-on-error"], stdin: Data("get /p --pin-pubkey \(try certs.pin("root.pem"))\n".utf8),
                                environment: env)
        // The REPL starts (its defaults have no pin yet: the scope waits for one), and the line
        // that pins gets the config's scope: refused (7), never sent under a looser scope.
        XCTAssertEqual(repl.status, 7, repl.text + repl.stderr)
        XCTAssertEqual(server.capturedAll.count, 0, "nothing was sent to a server the pin refused")
    }

    /// A default that only qualifies another (OptionTable.qualifiers) waits for its partner on
    /// every door: a batch line, a REPL line or a one-shot request without the partner leaves it
    /// out (before, the REPL refused to start, batch lines failed with 64, and a config
    /// --boundary or -A failed every request without --multipart or -a); one with the partner
    /// gets it.
    func testQualifierDefaultsWaitForTheirPartnerOnEveryDoor() throws {
        let get = try HTTPBin.url("/get"), redirect = try HTTPBin.url("/redirect/1")
        let lines = TestPaths.temporaryDirectory() + "/lines"
        try Data("\(get)\n\(redirect) -F\n".utf8).write(to: URL(fileURLWithPath: lines))
        for text in ["--pin-scope leaf", "--har-bodies --har-secrets", "--all", "--boundary zz", "-A digest", "--continue", "--overwrite"] {
            let (env, _) = try config(text + "\n")
            let batch = try runSwurl(["batch", lines, "-q"], environment: env)
            XCTAssertEqual(batch.status, 0, "\(text): \(batch.text) \(batch.stderr)")
            let repl = try runSwurl(["repl", try HTTPBin.url(""), "-q", "--stop-on-error"], stdin: Data("get\n/redirect/1 -F\n".utf8), environment: env)
            XCTAssertEqual(repl.status, 0, "\(text): \(repl.stderr)")
            let one = try runSwurl(["POST", try HTTPBin.url("/post"), "a=1", "-q"], environment: env)
            XCTAssertEqual(one.status, 0, "\(text): \(one.stderr)")
        }
        // The REPL's own --continue waits for a line's -d.
        let own = try runSwurl(["--no-config", "repl", try HTTPBin.url(""), "--continue", "-q", "--stop-on-error"], stdin: Data("get\n".utf8))
        XCTAssertEqual(own.status, 0, own.stderr)
        // With the partner, the default applies: the config's boundary to --multipart, its
        // --all to a REPL line's -F, its -A digest to -a.
        let (env, _) = try config("--boundary zz\n--all\n-A digest\n")
        let multipart = try runSwurl(["--offline", "--multipart", "POST", "http://127.0.0.1:9/x", "a=1"], environment: env)
        XCTAssertTrue(multipart.text.contains("Content-Type: multipart/form-data; boundary=zz\r\n"), multipart.text)
        let hops = try runSwurl(["repl", try HTTPBin.url(""), "--stop-on-error"], stdin: Data("/redirect/1 -F -h\n".utf8), environment: env)
        XCTAssertEqual(hops.status, 0, hops.stderr)
        XCTAssertTrue(hops.text.contains("302 FOUND") && hops.text.contains("200 OK"), "--all shows both hops: \(hops.text)")
        let digest = try runSwurl([try HTTPBin.url("/digest-auth/auth/ann/pw"), "-a", "ann:pw", "-q"], environment: env)
        XCTAssertEqual(digest.status, 0, digest.stderr)
    }

    /// A bad value in the config is reported at its FILE:LINE, as its syntax errors are.
    func testBadValuesInTheConfigNameTheFileAndLine() throws {
        let cases: [(String, Int32)] = [("--timeout abc", 64), ("--limit-rate 10Q", 64), ("--pin-pubkey sha256//bad", 64),
                                        ("--cacert /nonexistent/ca.pem", 66), ("--pin-cert missing.pem", 66)]
        for (line, status) in cases {
            let (env, file) = try config("# defaults\n\n\(line)\n")
            let r = try runSwurl(["--offline", "http://127.0.0.1:9/x"], environment: env)
            XCTAssertEqual(r.status, status, "\(line): \(r.stderr)")
            XCTAssertTrue(r.stderr.hasPrefix("swurl: error: \(file):3: "), "\(line): \(r.stderr)")
        }
        // The same value on the command line is the command line's.
        let (env, file) = try config("--timeout 5\n")
        let r = try runSwurl(["--offline", "http://127.0.0.1:9/x", "--timeout", "abc"], environment: env)
        XCTAssertEqual(r.status, 64)
        XCTAssertFalse(r.stderr.contains(file), r.stderr)
    }

    /// `--json` in the config is a request default: `reach` and `certs` reports stay text.
    func testJSONInTheConfigDoesNotTurnReportsIntoJSON() throws {
        let capture = try CaptureServer()
        let (env, _) = try config("--json\n")
        let r = try runSwurl(["reach", capture.base], environment: env)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertFalse(r.text.hasPrefix("{"), r.text)
        XCTAssertTrue(r.text.contains("reachable"), r.text)
        let asked = try runSwurl(["reach", capture.base, "--json"], environment: env)
        XCTAssertTrue(asked.text.hasPrefix("{"), asked.text)
    }

    /// The network wait and `reach` connect where --resolve says, as the request does.
    func testWaitForNetworkAndReachHonourResolve() throws {
        let capture = try CaptureServer()
        let port = capture.server.port
        let resolve = ["--resolve", "api.test:\(port):127.0.0.1"]
        let r = try runSwurl(["--wait-for-network=3"] + resolve + ["http://api.test:\(port)/x"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(String(decoding: capture.captured, as: UTF8.self).contains("Host: api.test:\(port)\r\n"))
        let reach = try runSwurl(["reach", "http://api.test:\(port)"] + resolve)
        XCTAssertEqual(reach.status, 0, reach.text + reach.stderr)
        XCTAssertTrue(reach.text.contains("api.test → 127.0.0.1"), reach.text)
        let batch = TestPaths.temporaryDirectory() + "/lines"
        try Data("http://api.test:\(port)/b --wait-for-network=3 \(resolve.joined(separator: " "))\n".utf8)
            .write(to: URL(fileURLWithPath: batch))
        let lines = try runSwurl(["batch", batch])
        XCTAssertEqual(lines.status, 0, lines.text + lines.stderr)
    }

    /// `--wait-for-network` waits for the proxy the request will go through, also one from
    /// `http_proxy` (it waited for the origin, which only the proxy reaches), and for the origin
    /// when `NO_PROXY` names its host.
    func testWaitForNetworkWaitsForTheProxyFromTheEnvironment() throws {
        let proxy = try CaptureServer()
        let origin = try ServerProcess.refusedPort()
        let url = "http://127.0.0.1:\(origin)/through"
        let r = try runSwurl(["--wait-for-network=3", url], environment: ["http_proxy": "http://127.0.0.1:\(proxy.server.port)"])
        XCTAssertNotEqual(r.status, 2, r.stderr)
        let dead = try ServerProcess.refusedPort()
        let waited = try runSwurl(["--wait-for-network=1", url], environment: ["http_proxy": "http://127.0.0.1:\(dead)"])
        XCTAssertEqual(waited.status, 2, waited.stderr)
        XCTAssertTrue(waited.stderr.contains("; that is the proxy http://127.0.0.1:\(dead) (from http_proxy)"), waited.stderr)
        XCTAssertTrue(String(decoding: proxy.captured, as: UTF8.self).hasPrefix("GET \(url) HTTP/1.1\r\n"), r.stderr)
        let direct = try runSwurl(["--wait-for-network=1", url],
                                  environment: ["http_proxy": "http://127.0.0.1:\(proxy.server.port)", "NO_PROXY": "example.org, 127.0.0.1"])
        XCTAssertEqual(direct.status, 2, direct.stderr)
        XCTAssertTrue(direct.stderr.contains("127.0.0.1:\(origin) not reachable"), direct.stderr)
    }

    /// A config `--timeout` (a request's silence, the docs' example) is not `reach`'s: it ended
    /// every `--watch` after that many seconds, exit 2, without a word. A watchdog ends the watch
    /// here (124); a typed `--timeout` still ends it (2).
    func testAConfigTimeoutDoesNotEndAReachWatch() throws {
        let nginx = try NginxServer()
        let (env, _) = try config("--timeout 1\n")
        let watched = try runProcess("/usr/bin/timeout", ["4", TestPaths.binary, "reach", "--watch", nginx.url("/")],
                                     environment: env, check: false)
        XCTAssertEqual(watched.status, 124, watched.stderr)
        XCTAssertTrue(String(decoding: watched.stdout, as: UTF8.self).contains("reachable"), watched.stderr)
        let typed = try runProcess("/usr/bin/timeout", ["60", TestPaths.binary, "reach", "--watch", "--timeout", "1", nginx.url("/")],
                                   environment: env, check: false)
        XCTAssertEqual(typed.status, 2, typed.stderr)
    }

    /// An interface without carrier (a veth whose peer is down: the route is `linkdown`) or
    /// set down is reported at once, from rtnetlink, with exit 1 — not after the connect timeout.
    func testReachThroughAnInterfaceThatIsDownSaysSoAtOnce() throws {
        let ns = try NetworkNamespace()
        try ns.ip("link add v0 type veth peer name v1")
        try ns.ip("addr add 10.79.0.1/24 dev v0")
        try ns.ip("link set v0 up")
        // "At once" is shown without a clock: swurl runs under strace, and no connect(2) to the
        // address may appear (a connect that failed after a while would be one). The connect
        // timeout is an hour and `timeout` a watchdog, so waiting for it fails (exit 124).
        let dir = TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let trace = dir + "/connects"
        let r = try ns.run("/usr/bin/timeout", ["120", "/usr/bin/strace", "-f", "-qq", "-e", "trace=connect", "-o", trace,
                                                TestPaths.binary, "reach", "--connect-timeout", "3600", "http://10.79.0.2:80/"])
        XCTAssertEqual(r.status, 1, r.text + r.stderr)
        XCTAssertTrue(r.text.contains("not reachable (no route to 10.79.0.2: interface v0 is down)"), r.text)
        let connects = try String(contentsOfFile: trace, encoding: .utf8)
        XCTAssertFalse(connects.contains("10.79.0.2"), "swurl tried to connect before saying the interface is down:\n\(connects)")
        // Without a sysfs of its own (unshare -n: /sys/class/net is another namespace's), the
        // link's state and kind still come from rtnetlink.
        let unshared = try runProcess("/usr/bin/unshare", ["-n", "sh", "-c",
            "ip link add v0 type veth peer name v1 && ip addr add 10.79.1.1/24 dev v0 && ip link set v0 up && exec timeout 120 \"$0\" reach --connect-timeout 3600 http://10.79.1.2:80/",
            TestPaths.binary], check: false)
        let text = String(decoding: unshared.stdout, as: UTF8.self)
        XCTAssertEqual(unshared.status, 1, text + unshared.stderr)
        XCTAssertTrue(text.contains("— ethernet, virtual (IFLA_INFO_KIND veth): interface v0 is down"), text)
    }
    /// Without HOME (cron, `env -i`), the home directory is the password database's, as curl and
    /// HTTPie (Python's expanduser) find it: the config file, a named session and the cache live
    /// under it, not under `/`. Here root's entry names a temporary directory, by a copy of
    /// /etc/passwd bound over it in a private mount namespace. A user the database does not know
    /// gets a usage error for a session NAME or the default cache.
    func testWithoutHOMEThePasswordDatabaseNamesTheHome() throws {
        let home = TestPaths.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: home + "/.config/swurl", withIntermediateDirectories: true)
        try Data("--form\n".utf8).write(to: URL(fileURLWithPath: home + "/.config/swurl/config"))
        let passwd = try String(contentsOfFile: "/etc/passwd", encoding: .utf8).split(separator: "\n").map { line -> String in
            var fields = line.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            if fields.count == 7, fields[2] == "0" { fields[5] = home }
            return fields.joined(separator: ":")
        }.joined(separator: "\n") + "\n"
        let passwdCopy = TestPaths.temporaryDirectory() + "/passwd"
        try Data(passwd.utf8).write(to: URL(fileURLWithPath: passwdCopy))
        let root = try HTTPBin.url("")
        let shell = """
            mount --bind "$1" /etc/passwd || exit 99
            clean="env -u HOME -u XDG_CONFIG_HOME -u XDG_CACHE_HOME -u XDG_STATE_HOME -u SWURL_CONFIG -u NETRC"
            $clean "$2" -b --session work "$3/anything" a=1 X-Probe:kept; echo "session=$?"
            $clean "$2" -b --cache "$3/cache/60" > /dev/null; echo "cache=$?"
            """
        let out = try runProcess("/usr/bin/unshare", ["-m", "sh", "-c", shell, "sh", passwdCopy, TestPaths.binary, root], check: false)
        let text = String(decoding: out.stdout, as: UTF8.self)
        XCTAssertEqual(out.status, 0, text + out.stderr)
        XCTAssertTrue(text.contains("session=0") && text.contains("cache=0"), text + out.stderr)
        XCTAssertTrue(text.contains("\"form\": {\n    \"a\": \"1\""), "the home's config (--form) applied: " + text)
        let origin = root.replacingOccurrences(of: "http://", with: "").replacingOccurrences(of: ":", with: "_")
        let session = try String(contentsOfFile: "\(home)/.config/swurl/sessions/\(origin)/work.json", encoding: .utf8)
        XCTAssertTrue(session.contains("X-Probe"), session)
        let cached = try FileManager.default.contentsOfDirectory(atPath: home + "/.cache/swurl/http")
        XCTAssertFalse(cached.isEmpty, "the response was stored under the home's cache")

        // A user without an entry: a session NAME and the default cache have nowhere to go.
        for args in [["--session", "work", root + "/anything"], ["--cache", root + "/cache/60"]] {
            let r = try runProcess("/usr/bin/setpriv", ["--reuid=54321", "--regid=54321", "--clear-groups", TestPaths.binary] + args,
                                   environment: ["PATH": "/usr/bin:/bin"], check: false)
            XCTAssertEqual(r.status, 64, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("there is no home directory") && r.stderr.contains("set HOME or XDG_"), r.stderr)
        }
    }
}
