import Foundation
import XCTest
import SwurlTestSupport

/// A network namespace made for one test and removed after it: its links, addresses and routes
/// exist only inside it, so nothing a test does reaches the machine's network.
final class NetworkNamespace {
    let name: String
    private var background: [Process] = []

    /// - Throws: `XCTSkip` naming the reason where namespaces are not permitted.
    init() throws {
        name = "swurl-\(getpid())-\(UUID().uuidString.prefix(8))"
        let ip = NetworkNamespace.ip
        guard FileManager.default.isExecutableFile(atPath: ip) else {
            throw XCTSkip("iproute2 is not installed (no \(ip)); 'make test' installs it")
        }
        let r = try runProcess(ip, ["netns", "add", name], check: false)
        guard r.status == 0 else {
            throw XCTSkip("network namespaces are not permitted here: ip netns add: \(r.stderr.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
    }

    deinit {
        for p in background where p.isRunning {
            p.terminate()
            waitForExit(p)
        }
        _ = try? runProcess(NetworkNamespace.ip, ["netns", "del", name], check: false)
    }

    static let ip: String = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    } ?? "/usr/sbin/ip"

    /// Runs `ip ARGS` on this namespace (`ip -n NAME …`); fails the test when it fails.
    func ip(_ args: String) throws {
        _ = try runProcess(NetworkNamespace.ip, ["-n", name] + args.split(separator: " ").map(String.init))
    }

    /// Runs a program inside the namespace to its end.
    func run(_ program: String, _ args: [String]) throws -> SwurlResult {
        let r = try runProcess(NetworkNamespace.ip, ["netns", "exec", name, program] + args, check: false)
        return SwurlResult(status: r.status, stdout: r.stdout, stderr: r.stderr)
    }

    /// Runs swurl inside the namespace.
    func swurl(_ args: [String]) throws -> SwurlResult { try run(TestPaths.binary, args) }

    /// Starts a program inside the namespace (`ip netns exec` execs it: the PID is the program's);
    /// stdout goes to `output`. Stopped when the namespace goes.
    @discardableResult
    func start(_ program: String, _ args: [String], output: String? = nil) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: NetworkNamespace.ip)
        p.arguments = ["netns", "exec", name, program] + args
        if let output {
            FileManager.default.createFile(atPath: output, contents: nil)
            p.standardOutput = FileHandle(forWritingAtPath: output)
        } else {
            p.standardOutput = FileHandle.nullDevice
        }
        p.standardError = FileHandle.nullDevice
        p.standardInput = FileHandle.nullDevice
        try p.run()
        background.append(p)
        return p
    }

    /// An HTTP server on ADDRESS:PORT (IPv6 for an address with a colon, `::` taking IPv4 too)
    /// inside the namespace that answers every GET with `body`,
    /// starting to listen after `delay` seconds.
    @discardableResult
    func httpServer(address: String = "0.0.0.0", port: Int, body: String, delay: Double = 0) throws -> Process {
        let script = """
            import http.server, socket, sys, time
            time.sleep(float(sys.argv[3]))
            class S(http.server.HTTPServer):
                address_family = socket.AF_INET6 if ':' in sys.argv[1] else socket.AF_INET
            class H(http.server.BaseHTTPRequestHandler):
                def do_GET(self):
                    b = sys.argv[4].encode()
                    self.send_response(200); self.send_header('Content-Length', str(len(b))); self.end_headers()
                    self.wfile.write(b)
                def log_message(self, *a): pass
            S((sys.argv[1], int(sys.argv[2])), H).serve_forever()
            """
        return try start(TestPaths.venv + "/bin/python3", ["-c", script, address, String(port), String(delay), body])
    }

    /// Waits for a TCP listener on PORT inside the namespace (the server's own start-up time).
    func waitForListener(port: Int) throws {
        let code = "import socket,sys,time\nfor i in range(200):\n    try:\n        socket.create_connection(('127.0.0.1', int(sys.argv[1])), 1).close(); sys.exit(0)\n    except OSError: time.sleep(0.05)\nsys.exit(1)"
        let r = try run(TestPaths.venv + "/bin/python3", ["-c", code, String(port)])
        XCTAssertEqual(r.status, 0, "no listener on port \(port) in \(name)")
    }
}

/// `swurl reach` and `--wait-for-network` in network namespaces built by the tests.
final class ReachTests: XCTestCase {
    private func lastLine(_ r: SwurlResult) -> String {
        r.text.split(separator: "\n").last.map(String.init) ?? ""
    }

    func testNoRouteIsNotReachableNamingWhy() throws {
        let ns = try NetworkNamespace()
        // A fresh namespace: loopback down, no routes at all.
        let r = try ns.swurl(["reach", "http://10.77.0.2:80"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(lastLine(r), "not reachable (no route to 10.77.0.2: network is unreachable)", r.text)
        let lo = try ns.swurl(["reach", "--json", "127.0.0.1:8080"])
        XCTAssertEqual(lo.status, 1)
        let json = try lo.json()
        XCTAssertEqual(json["reachable"] as? Bool, false)
        XCTAssertEqual(json["reason"] as? String, "no route to 127.0.0.1: network is unreachable")
        XCTAssertEqual((json["connects"] as? [Any])?.count, 0, "no connect without a route")
    }

    func testLoopbackListenerIsReachableViaLoopbackAndRefusedPortSaysSo() throws {
        let ns = try NetworkNamespace()
        try ns.ip("link set lo up")
        try ns.httpServer(port: 8080, body: "ok")
        try ns.waitForListener(port: 8080)
        let r = try ns.swurl(["reach", "127.0.0.1:8080"])
        XCTAssertEqual(r.status, 0, r.text + r.stderr)
        XCTAssertEqual(lastLine(r), "reachable via loopback (lo)")
        XCTAssertTrue(r.text.contains("route    127.0.0.1 dev lo src 127.0.0.1 — loopback (type 772)"), r.text)
        let refused = try ns.swurl(["reach", "127.0.0.1:8081"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertEqual(lastLine(refused), "not reachable (connection refused)")
        // IPv6: the route lookup with a 16-byte destination.
        let v6 = try ns.swurl(["reach", "--json", "http://[::1]:8081/"])
        let route = (try v6.json()["routes"] as? [[String: Any]])?.first
        XCTAssertEqual(route?["address"] as? String, "::1", v6.text)
        XCTAssertEqual(route?["interface"] as? String, "lo")
        XCTAssertEqual(route?["kind"] as? String, "loopback")
    }

    func testVethIsEthernetVirtualWithSourceAddress() throws {
        let a = try NetworkNamespace(), b = try NetworkNamespace()
        try a.ip("link add va type veth peer name vb netns \(b.name)")
        try a.ip("addr add 10.77.1.1/24 dev va")
        try a.ip("link set va up")
        try b.ip("addr add 10.77.1.2/24 dev vb")
        try b.ip("link set vb up")
        try b.ip("link set lo up")
        try b.httpServer(port: 8080, body: "veth")
        try b.waitForListener(port: 8080)
        let r = try a.swurl(["reach", "--json", "http://10.77.1.2:8080/"])
        XCTAssertEqual(r.status, 0, r.text + r.stderr)
        let json = try r.json()
        XCTAssertEqual(json["verdict"] as? String, "reachable via ethernet (va)")
        XCTAssertEqual(json["kind"] as? String, "ethernet")
        XCTAssertEqual(json["virtual"] as? Bool, true)
        let route = (json["routes"] as? [[String: Any]])?.first
        XCTAssertEqual(route?["interface"] as? String, "va")
        XCTAssertEqual(route?["source"] as? String, "10.77.1.1")
        XCTAssertTrue(route?["gateway"] is NSNull)
        // Through a gateway: the kernel's next hop is reported.
        try a.ip("route add 10.88.0.0/16 via 10.77.1.2")
        let via = try a.swurl(["reach", "--json", "--connect-timeout", "0.2", "http://10.88.0.5:80/"])
        let viaRoute = (try via.json()["routes"] as? [[String: Any]])?.first
        XCTAssertEqual(viaRoute?["gateway"] as? String, "10.77.1.2", via.text)
    }

    /// A link-local IPv6 URL names its interface as a zone (`[fe80::b%25va]`): reach and
    /// --wait-for-network route and connect through it, as the request does (its connect
    /// failed with "invalid argument", so --wait-for-network failed a request that works).
    func testALinkLocalAddressWithAZoneIsReachableThroughItsInterface() throws {
        let a = try NetworkNamespace(), b = try NetworkNamespace()
        try a.ip("link add va type veth peer name vb netns \(b.name)")
        try a.ip("addr add fe80::a/64 dev va nodad")
        try a.ip("link set va up")
        try b.ip("addr add fe80::b/64 dev vb nodad")
        try b.ip("link set vb up")
        try b.ip("link set lo up")
        try b.httpServer(address: "::", port: 8080, body: "zone")
        try b.waitForListener(port: 8080)
        let url = "http://[fe80::b%25va]:8080/"
        let r = try a.swurl(["reach", url])
        XCTAssertEqual(r.status, 0, r.text + r.stderr)
        XCTAssertTrue(r.text.contains("target   http://[fe80::b%va]:8080\n"), r.text)
        XCTAssertEqual(lastLine(r), "reachable via ethernet (va)", r.text)
        let waited = try a.swurl(["--wait-for-network=5", url])
        XCTAssertEqual(waited.status, 0, waited.stderr)
        XCTAssertEqual(waited.text, "zone")
    }

    /// The connect timeout bounds the connect step, not each address (as curl's): five
    /// addresses that drop every packet end it once, each but the last given half the time
    /// left. And `--watch --timeout` ends a re-check that is still connecting.
    func testTheConnectTimeoutBoundsAllAddressesTogether() throws {
        let a = try NetworkNamespace(), b = try NetworkNamespace()
        try a.ip("link add va type veth peer name vb netns \(b.name)")
        try a.ip("addr add 10.77.2.1/24 dev va")
        try a.ip("link set va up")
        try b.ip("addr add 10.77.2.2/24 dev vb")
        try b.ip("link set vb up")
        // b does not forward: what a sends on to 10.88.0.0/16 through it is dropped in silence.
        try a.ip("route add 10.88.0.0/16 via 10.77.2.2")
        let many = (1...5).map { "10.88.0.\($0)" }.joined(separator: ",")
        let r = try a.swurl(["reach", "--json", "--connect-timeout", "1", "--resolve", "m:80:" + many, "http://m/"])
        XCTAssertEqual(r.status, 2, r.text + r.stderr)
        let connects = try XCTUnwrap(try r.json()["connects"] as? [[String: Any]], r.text)
        XCTAssertEqual(connects.count, 5, r.text)
        // The tool's own account of its time: the five attempts share the one second (each
        // took a whole second before, five in all).
        let spent = connects.compactMap { $0["seconds"] as? Double }.reduce(0, +)
        XCTAssertLessThan(spent, 2.5, r.text)
        XCTAssertEqual(connects.last?["error"] as? String, "connect timed out after 1 s", r.text)
        let waited = try a.swurl(["--wait-for-network=1", "--resolve", "m:80:" + many, "http://m/"])
        XCTAssertEqual(waited.status, 2, waited.stderr)
        XCTAssertEqual(waited.stderr, "swurl: error: m:80 not reachable after 1 s (last: connect timed out after 1 s)\n")
        let watched = try a.swurl(["reach", "--watch", "--json", "--timeout", "1", "http://10.88.0.9/"])
        XCTAssertEqual(watched.status, 2, watched.stderr)
        let line = try XCTUnwrap(watched.text.split(separator: "\n").first.map(String.init))
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        XCTAssertEqual((report["connects"] as? [[String: Any]])?.first?["error"] as? String, "connect timed out after 1 s", line)
    }

    func testTunDeviceIsVPN() throws {
        let ns = try NetworkNamespace()
        try ns.ip("tuntap add dev tn0 mode tun")
        try ns.ip("addr add 10.77.2.1/24 dev tn0")
        try ns.ip("link set tn0 up")
        // Nobody reads the tun device, so it has no carrier: not reachable at once (issue 27),
        // and the route is still described.
        let r = try ns.swurl(["reach", "--json", "--timeout", "0.2", "http://10.77.2.9:80/"])
        XCTAssertEqual(r.status, 1, r.text + r.stderr)
        let json = try r.json()
        let route = (json["routes"] as? [[String: Any]])?.first
        XCTAssertEqual(route?["interface"] as? String, "tn0")
        XCTAssertEqual(route?["kind"] as? String, "vpn")
        XCTAssertEqual(route?["evidence"] as? String, "tun_flags")
        XCTAssertEqual(json["reason"] as? String, "no route to 10.77.2.9: interface tn0 is down")
    }

    /// /proc/PID/stat: user + system CPU time in clock ticks.
    private func cpuTicks(_ pid: Int32) throws -> Int {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
        guard let close = stat.lastIndex(of: ")") else { throw TestServerError("bad /proc/\(pid)/stat") }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let u = Int(fields[11]), let s = Int(fields[12]) else {
            throw TestServerError("bad /proc/\(pid)/stat: \(stat)")
        }
        return u + s
    }

    private func waitForLines(_ path: String, count: Int, timeout: Double = 10) -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        var lines: [String] = []
        repeat {
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            lines = text.split(separator: "\n").map(String.init)
            if lines.count >= count { break }
            usleep(20_000)
        } while Date() < deadline
        return lines
    }

    /// An https watch with less time left than the connect timeout (10 s) keeps watching: a
    /// re-check whose handshake passed was taken for one the deadline cut, and the watch ended
    /// at the first change without a word.
    func testAnHTTPSWatchWithLittleTimeLeftStillReportsChanges() throws {
        let pki = try CertificateFactory.shared()
        let ns = try NetworkNamespace()
        try ns.ip("link set lo up")
        let server = try ns.start("/usr/bin/openssl", ["s_server", "-accept", "127.0.0.1:8443", "-cert", pki.path("selfsigned.pem"),
                                                       "-key", pki.path("selfsigned.key"), "-www", "-quiet"])
        try ns.waitForListener(port: 8443)
        let out = TestPaths.temporaryDirectory() + "/watch.out"
        let watcher = try ns.start(TestPaths.binary, ["reach", "--watch", "--timeout", "8", "--cacert", pki.path("selfsigned.pem"),
                                                      "https://127.0.0.1:8443/"], output: out)
        let first = waitForLines(out, count: 1)
        XCTAssertTrue(first.first?.hasSuffix(" reachable via loopback (lo)") == true, "\(first)")
        // A change that leaves the verdict as it is, then one that changes it.
        try ns.ip("addr add 10.77.4.1/32 dev lo")
        sleep(1)
        server.terminate()
        waitForExit(server)
        try ns.ip("addr add 10.77.4.2/32 dev lo")
        let second = waitForLines(out, count: 2)
        XCTAssertTrue(second.last?.hasSuffix(" not reachable (connection refused)") == true, "\(second)")
        kill(watcher.processIdentifier, SIGINT)
        waitForExit(watcher)
    }

    func testWatchPrintsTransitionsOnLinkChangesAndIdlesInBetween() throws {
        let ns = try NetworkNamespace()
        // A listener first (checked over loopback), then loopback down: only the route is missing.
        try ns.ip("link set lo up")
        try ns.httpServer(port: 8080, body: "up")
        try ns.waitForListener(port: 8080)
        try ns.ip("link set lo down")
        let out = TestPaths.temporaryDirectory() + "/watch.out"
        let watcher = try ns.start(TestPaths.binary, ["reach", "--watch", "127.0.0.1:8080"], output: out)
        let first = waitForLines(out, count: 1)
        XCTAssertEqual(first.count, 1)
        XCTAssertTrue(first.first?.hasSuffix(" not reachable (no route to 127.0.0.1: interface lo is down)") == true, "\(first)")
        XCTAssertEqual(try String(contentsOfFile: "/proc/\(watcher.processIdentifier)/comm", encoding: .utf8), "swurl\n")

        // The change: loopback comes up (the listener was already bound to 0.0.0.0).
        let changed = Date()
        try ns.ip("link set lo up")
        let second = waitForLines(out, count: 2)
        let latency = Date().timeIntervalSince(changed)
        XCTAssertEqual(second.count, 2, "\(second)")
        XCTAssertTrue(second.last?.hasSuffix(" reachable via loopback (lo)") == true, "\(second)")
        print("reach --watch: transition printed \(Int(latency * 1000)) ms after 'ip link set lo up'")
        // The timestamp: 2026-11-30T22:10:01.123Z.
        let stamp = second.last.map { String($0.prefix { $0 != " " }) } ?? ""
        XCTAssertEqual(stamp.count, 24, stamp)
        XCTAssertTrue(stamp.hasSuffix("Z") && stamp.contains("T"), stamp)

        // Idle: no event, no work. 20 ms of CPU is 2 ticks at USER_HZ 100.
        let before = try cpuTicks(watcher.processIdentifier)
        sleep(5)
        let after = try cpuTicks(watcher.processIdentifier)
        let hz = Int(sysconf(Int32(_SC_CLK_TCK)))
        XCTAssertLessThan((after - before) * 1000 / max(hz, 1), 20, "CPU used while idle: \(after - before) ticks")
        XCTAssertEqual(waitForLines(out, count: 3, timeout: 0).count, 2, "a line without a change of verdict")

        // A change that leaves the verdict as it is prints nothing (else the third line would
        // repeat "reachable"); one that changes it prints.
        try ns.ip("addr add 10.77.3.1/24 dev lo")
        try ns.ip("link set lo down")
        let third = waitForLines(out, count: 3)
        XCTAssertEqual(third.count, 3, "\(third)")
        XCTAssertTrue(third.last?.hasSuffix(" not reachable (no route to 127.0.0.1: interface lo is down)") == true, "\(third)")

        // Ctrl-C: exit 130.
        kill(watcher.processIdentifier, SIGINT)
        waitForExit(watcher)
        XCTAssertEqual(endingSignal(watcher), SIGINT, "ended by SIGINT (130 in a shell)")
    }

    func testWatchJSONLinesAndTimeoutBound() throws {
        let ns = try NetworkNamespace()
        let r = try ns.swurl(["reach", "--watch", "--json", "--timeout", "0.5", "127.0.0.1:8080"])
        XCTAssertEqual(r.status, 2, r.stderr)
        let lines = r.text.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, r.text)
        let json = try JSONSerialization.jsonObject(with: Data(lines.first.map(String.init)?.utf8 ?? "".utf8)) as? [String: Any]
        XCTAssertNotNil(json?["time"] as? String)
        XCTAssertEqual(json?["reachable"] as? Bool, false)
    }

    func testWaitForNetworkSucceedsWhenRouteAndServerAppearLater() throws {
        let ns = try NetworkNamespace()
        // No loopback yet; the server starts listening 1 s after the link comes up.
        let out = TestPaths.temporaryDirectory() + "/wait.out"
        let client = try ns.start(TestPaths.binary, ["--wait-for-network=30", "--check-status", "http://127.0.0.1:8080/health"],
                                  output: out)
        sleep(1)
        try ns.ip("link set lo up")
        try ns.httpServer(port: 8080, body: "healthy", delay: 1)
        waitForExit(client)
        XCTAssertEqual(client.terminationStatus, 0)
        XCTAssertEqual(try String(contentsOfFile: out, encoding: .utf8), "healthy")
    }

    func testWaitForNetworkGivesUpWithExit2AndTheLastReason() throws {
        let ns = try NetworkNamespace()
        try ns.ip("link set lo up")
        let r = try ns.swurl(["--wait-for-network=1.5", "http://127.0.0.1:8080/"])
        XCTAssertEqual(r.status, 2)
        XCTAssertEqual(r.stderr, "swurl: error: 127.0.0.1:8080 not reachable after 1.5 s (last: connection refused)\n")
        let noRoute = try ns.swurl(["--wait-for-network=1", "http://10.77.4.4/"])
        XCTAssertEqual(noRoute.status, 2)
        XCTAssertEqual(noRoute.stderr, "swurl: error: 10.77.4.4:80 not reachable after 1 s (last: no route to 10.77.4.4: network is unreachable)\n")
    }

    func testTLSVerdictsUnderAPin() throws {
        let pki = try CertificateFactory.shared()
        let server = try TLSTestServer(chain: pki.path("leaf-chain.pem"), key: pki.path("leaf.key"))
        let good = try runSwurl(["reach", "--cacert", pki.path("root.pem"), "--pin-pubkey", try pki.pin("leaf.pem"), server.url])
        XCTAssertEqual(good.status, 0, good.text + good.stderr)
        XCTAssertEqual(lastLine(good), "reachable via loopback (lo)")
        XCTAssertTrue(good.text.contains("pin matched"), good.text)
        let bad = try runSwurl(["reach", "--json", "--cacert", pki.path("root.pem"), "--pin-pubkey", try pki.pin("leaf2.pem"), server.url])
        XCTAssertEqual(bad.status, 7, bad.text + bad.stderr)
        let json = try bad.json()
        XCTAssertEqual(json["reachable"] as? Bool, false)
        XCTAssertEqual(json["exit"] as? Int, 7, "the name batch --jsonl and certs --json use")
        // Refused before any check (an option, the target): still one object on stdout.
        for (args, status) in [(["--cacert", "/nonexistent/ca.pem", server.url], 66), (["127.0.0.1:99999"], 64)] {
            let early = try runSwurl(["reach", "--json"] + args)
            XCTAssertEqual(early.status, Int32(status), early.stderr)
            let object = try early.json()
            XCTAssertEqual(object["exit"] as? Int, status, early.text)
            XCTAssertEqual(object["reachable"] as? Bool, false, early.text)
            XCTAssertEqual(object["error"] as? String, early.stderr.components(separatedBy: "\n").first?.replacingOccurrences(of: "swurl: error: ", with: ""))
        }
        XCTAssertTrue((json["reason"] as? String)?.hasPrefix("TLS: ") == true, "\(json)")
        XCTAssertTrue((json["reason"] as? String)?.contains("pin") == true, "\(json)")
        XCTAssertEqual(((json["connects"] as? [[String: Any]])?.first?["error"]) is NSNull, true)
        // Untrusted chain (no --cacert): 7 as well; plain http to the same port is not checked for TLS.
        let untrusted = try runSwurl(["reach", server.url])
        XCTAssertEqual(untrusted.status, 7, untrusted.text)
        // The step is named once ("TLS: chain check failed", not "TLS: TLS chain check failed").
        XCTAssertTrue(lastLine(untrusted).hasPrefix("not reachable (TLS: chain check failed for "), untrusted.text)
        // -k: the chain is not checked (and said so), a pin still is.
        let insecure = try runSwurl(["reach", "-k", server.url])
        XCTAssertEqual(insecure.status, 0, insecure.text + insecure.stderr)
        XCTAssertTrue(insecure.stderr.hasPrefix("swurl: warning: "), insecure.stderr)
        let insecurePinned = try runSwurl(["reach", "-k", "--pin-pubkey", try pki.pin("leaf2.pem"), server.url])
        XCTAssertEqual(insecurePinned.status, 7, insecurePinned.text)
        let plain = try runSwurl(["reach", "--json", "http://127.0.0.1:\(server.port)"])
        XCTAssertEqual(plain.status, 0)
        XCTAssertTrue(try plain.json()["tls"] is NSNull)
    }

    /// A TLS 1.3 server that offers h2 (nginx's `http2`, most real https servers): reach died
    /// of SIGSEGV (139) in libcurl's HTTP/2 code, fed the server's SETTINGS by the read that
    /// waits for a late alert. The handshake offers HTTP/1.1 alone.
    func testATLS13ServerOfferingHTTP2IsReachable() throws {
        let pki = try CertificateFactory.shared()
        let nginx = try NginxServer(http2: true, tls: (pki.path("leaf-chain.pem"), pki.path("leaf.key")))
        let r = try runSwurl(["reach", "--cacert", pki.path("root.pem"), nginx.url("/")])
        XCTAssertEqual(r.status, 0, r.text + r.stderr)
        XCTAssertEqual(lastLine(r), "reachable via loopback (lo)")
        // A request to it still speaks h2.
        let get = try runSwurl(["--cacert", pki.path("root.pem"), "--timing=json", nginx.url("/small.txt")])
        XCTAssertTrue(get.stderr.contains("\"http_version\":\"2\""), get.stderr)
        // A server that speaks h2 alone (gRPC) refused a handshake offering http/1.1 alone ("no
        // application protocol"): the probe offers no protocol.
        let port = try ServerProcess.freePort()
        let h2only = try ServerProcess(executable: "/usr/bin/openssl",
                                       arguments: ["s_server", "-accept", "127.0.0.1:{PORT}", "-cert", pki.path("leaf.pem"),
                                                   "-cert_chain", pki.path("int.pem"), "-key", pki.path("leaf.key"), "-alpn", "h2", "-www"],
                                       port: port, readiness: .announcesPort { $0.hasPrefix("ACCEPT") ? port : nil })
        defer { h2only.stop() }
        let only = try runSwurl(["reach", "--cacert", pki.path("root.pem"), "https://127.0.0.1:\(port)/"])
        XCTAssertEqual(only.status, 0, only.text + only.stderr)
    }

    /// A server that requires a client certificate refuses its absence after a TLS 1.3
    /// handshake has finished, with an alert: reach stopped at the handshake and said
    /// "reachable" (exit 0) where every request failed. It waits for that verdict now, and names
    /// --cert; with the client certificate it is reachable. certs still reports the chain.
    func testAServerThatRequiresAClientCertificateIsNotReachableWithoutOne() throws {
        let pki = try CertificateFactory.shared()
        let server = try CaptureServer(tls: (pki.path("leaf-chain.pem"), pki.path("leaf.key")), clientCA: pki.path("root.pem"))
        let without = try runSwurl(["reach", "--cacert", pki.path("root.pem"), server.base])
        XCTAssertEqual(without.status, 1, without.text + without.stderr)
        XCTAssertTrue(lastLine(without).hasPrefix("not reachable (TLS: "), without.text)
        XCTAssertTrue(lastLine(without).contains("give --cert FILE --key FILE"), without.text)
        let with = try runSwurl(["reach", "--cacert", pki.path("root.pem"), "--cert", pki.path("client-chain.pem"),
                                 "--key", pki.path("client.key"), server.base])
        XCTAssertEqual(with.status, 0, with.text + with.stderr)
        XCTAssertEqual(lastLine(with), "reachable via loopback (lo)")
        // TLS 1.3, where the refusal comes after the handshake (over 1.2 it ends the handshake).
        XCTAssertTrue(with.text.contains("TLSv1.3"), with.text)
        let certs = try runSwurl(["certs", "--cacert", pki.path("root.pem"), server.base])
        XCTAssertEqual(certs.status, 0, certs.text + certs.stderr)
    }

    func testTLSVerdictsUnderAPinInsideANamespace() throws {
        let pki = try CertificateFactory.shared()
        let ns = try NetworkNamespace()
        try ns.ip("link set lo up")
        let script = """
            import socket, ssl, sys
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); ctx.load_cert_chain(sys.argv[1], sys.argv[2])
            s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(('127.0.0.1', 8443)); s.listen(16)
            while True:
                c, _ = s.accept()
                try:
                    t = ctx.wrap_socket(c, server_side=True); t.close()
                except Exception:
                    c.close()
            """
        try ns.start(TestPaths.venv + "/bin/python3", ["-c", script, pki.path("leaf-chain.pem"), pki.path("leaf.key")])
        try ns.waitForListener(port: 8443)
        let url = "https://127.0.0.1:8443"
        let good = try ns.swurl(["reach", "--cacert", pki.path("root.pem"), "--pin-pubkey", try pki.pin("int.pem"), url])
        XCTAssertEqual(good.status, 0, good.text + good.stderr)
        XCTAssertEqual(lastLine(good), "reachable via loopback (lo)")
        let bad = try ns.swurl(["reach", "--cacert", pki.path("root.pem"), "--pin-pubkey", try pki.pin("leaf2.pem"), url])
        XCTAssertEqual(bad.status, 7, bad.text + bad.stderr)
        XCTAssertTrue(lastLine(bad).hasPrefix("not reachable (TLS: "), bad.text)
        let scoped = try ns.swurl(["reach", "--cacert", pki.path("root.pem"), "--pin-pubkey", try pki.pin("int.pem"),
                                   "--pin-scope", "leaf", url])
        XCTAssertEqual(scoped.status, 7, scoped.text)
    }

    func testUsageErrors() throws {
        XCTAssertEqual(try runSwurl(["reach"]).status, 64)
        XCTAssertEqual(try runSwurl(["reach", "a.example", "b.example"]).status, 64)
        let proxy = try runSwurl(["reach", "--proxy", "http://127.0.0.1:1", "example.org"])
        XCTAssertEqual(proxy.status, 64)
        XCTAssertTrue(proxy.stderr.contains("--proxy does not apply to 'swurl reach'"), proxy.stderr)
        XCTAssertEqual(try runSwurl(["--watch", "example.org"]).status, 64)
        XCTAssertEqual(try runSwurl(["--wait-for-network=abc", "example.org"]).status, 64)
        XCTAssertEqual(try runSwurl(["reach", "--timeout", "-1", "example.org"]).status, 64)
    }
}
