import XCTest
import Foundation
import SwurlTestSupport

/// The TLS policy is part of the cache key, against nginx over TLS on 127.0.0.1 with the test
/// PKI: a response fetched under one `--cacert` or `--pin-pubkey` answers only requests with
/// the same trust, and one fetched with `-k` is never stored. nginx's access log shows which
/// requests reached the server.
final class CacheTLSKeyTests: XCTestCase {
    private var pki: CertificateFactory!
    private var nginx: NginxServer!
    private var dir = ""

    override func setUpWithError() throws {
        pki = try CertificateFactory.shared()
        nginx = try NginxServer(tls: (pki.path("leaf-chain.pem"), pki.path("leaf.key")),
                                serverConfig: "location /tls/ { add_header Cache-Control \"max-age=3600\"; }")
        try FileManager.default.createDirectory(atPath: nginx.root + "/tls", withIntermediateDirectories: true)
        try "fresh for an hour\n".write(toFile: nginx.root + "/tls/x.txt", atomically: true, encoding: .utf8)
        dir = TestPaths.temporaryDirectory() + "/cache"
    }

    override func tearDown() { nginx = nil }

    /// `swurl --cache --timing=json URL ARGS`: the exit status, the body and what the cache said.
    private func fetch(_ args: [String]) throws -> (status: Int32, body: String, cache: String) {
        let r = try runSwurl(["--cache=\(dir)", "--timing=json", nginx.url("/tls/x.txt")] + args)
        let line = r.stderr.split(separator: "\n").last { $0.hasPrefix("{") }.map(String.init) ?? "{}"
        let json = (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]) ?? [:]
        return (r.status, r.text, json["cache"] as? String ?? "")
    }

    /// Requests for the test file that reached nginx.
    private func served() -> Int { nginx.logLines().filter { $0.contains("/tls/x.txt") }.count }

    private func entries() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { !$0.hasPrefix(".") }
    }

    func testAResponseIsServedOnlyUnderTheCAItWasFetchedWith() throws {
        let root = pki.path("root.pem")
        // The same anchors in another file are another policy (the key names the file).
        let copy = TestPaths.temporaryDirectory() + "/root-copy.pem"
        try FileManager.default.copyItem(atPath: root, toPath: copy)
        XCTAssertEqual(try fetch(["--cacert", root]).cache, "miss, stored")
        XCTAssertEqual(try fetch(["--cacert", root]).cache.hasPrefix("hit"), true)
        XCTAssertEqual(served(), 1)
        let other = try fetch(["--cacert", copy])
        XCTAssertEqual(other.status, 0)
        XCTAssertEqual(other.cache, "miss, stored")
        XCTAssertEqual(served(), 2)
        // Without --cacert the system store does not know the test root: the handshake fails,
        // and neither stored response stands in for it.
        let system = try fetch([])
        XCTAssertNotEqual(system.status, 0)
        XCTAssertEqual(system.body, "")
        XCTAssertEqual(served(), 2)
        XCTAssertEqual(entries().count, 2)
    }

    func testAResponseIsServedOnlyUnderThePinItWasFetchedWith() throws {
        let root = pki.path("root.pem")
        let leafPin = try pki.pin("leaf.pem"), intPin = try pki.pin("int.pem")
        XCTAssertEqual(try fetch(["--cacert", root, "--pin-pubkey", leafPin]).cache, "miss, stored")
        XCTAssertTrue(try fetch(["--cacert", root, "--pin-pubkey", leafPin]).cache.hasPrefix("hit"))
        XCTAssertEqual(served(), 1)
        // Another pin that the server also passes: its own entry, fetched from the server.
        XCTAssertEqual(try fetch(["--cacert", root, "--pin-pubkey", intPin]).cache, "miss, stored")
        XCTAssertEqual(served(), 2)
        // The pin-less request under the same CA is another key too.
        XCTAssertEqual(try fetch(["--cacert", root]).cache, "miss, stored")
        XCTAssertEqual(served(), 3)
        // A pin the server fails is refused in the handshake, never answered from the cache.
        let wrong = try fetch(["--cacert", root, "--pin-pubkey", try pki.pin("selfsigned.pem")])
        XCTAssertEqual(wrong.status, 7)
        XCTAssertEqual(wrong.body, "")
        XCTAssertEqual(served(), 3)
    }

    /// Regression: the client certificate and key were keyed by their paths: another identity
    /// put at the same paths (a rotated certificate, a switched link) was answered with the
    /// first identity's stored response, without asking the server.
    func testAnotherClientIdentityAtTheSamePathsIsAnotherKey() throws {
        let id = TestPaths.temporaryDirectory()
        func use(_ cert: String, _ key: String) throws {
            for (from, to) in [(cert, "me.pem"), (key, "me.key")] {
                try? FileManager.default.removeItem(atPath: id + "/" + to)
                try FileManager.default.copyItem(atPath: pki.path(from), toPath: id + "/" + to)
            }
        }
        let args = ["--cacert", pki.path("root.pem"), "--cert", id + "/me.pem", "--key", id + "/me.key"]
        try use("client-chain.pem", "client.key")
        XCTAssertEqual(try fetch(args).cache, "miss, stored")
        XCTAssertTrue(try fetch(args).cache.hasPrefix("hit"))
        try use("leaf-chain.pem", "leaf.key")
        XCTAssertEqual(try fetch(args).cache, "miss, stored")
        XCTAssertEqual(served(), 2)
    }

    /// `--max-headers` holds a stored head as it holds the network's.
    func testAStoredHeadIsHeldToMaxHeaders() throws {
        let root = pki.path("root.pem")
        XCTAssertEqual(try fetch(["--cacert", root]).cache, "miss, stored")
        let limited = try fetch(["--cacert", root, "--max-headers", "2"])
        XCTAssertEqual(limited.status, 1)
        XCTAssertEqual(limited.body, "")
        XCTAssertEqual(served(), 1)
        // The fewest the network's head passes with passes the stored one too (the Age the
        // cache adds is not the server's).
        let fewest = try XCTUnwrap((1...40).first { n in
            (try? runSwurl(["--cacert", root, "--max-headers", String(n), nginx.url("/tls/x.txt")]).status) == 0
        })
        let hit = try fetch(["--cacert", root, "--max-headers", String(fewest)])
        XCTAssertEqual(hit.status, 0)
        XCTAssertTrue(hit.cache.hasPrefix("hit"), hit.cache)
    }

    func testInsecureResponsesOverTLSAreNeverStoredNorServed() throws {
        let k1 = try fetch(["-k"])
        XCTAssertEqual(k1.status, 0)
        XCTAssertEqual(k1.body, "fresh for an hour\n")
        XCTAssertEqual(k1.cache, "not stored: --insecure")
        XCTAssertEqual(try fetch(["-k"]).cache, "not stored: --insecure")
        XCTAssertEqual(served(), 2)
        XCTAssertEqual(entries(), [])
        // A response stored under a verified policy does not answer a -k request either.
        XCTAssertEqual(try fetch(["--cacert", pki.path("root.pem")]).cache, "miss, stored")
        XCTAssertEqual(try fetch(["-k"]).cache, "not stored: --insecure")
        XCTAssertEqual(served(), 4)
    }
}
