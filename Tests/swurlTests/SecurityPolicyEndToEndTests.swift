import XCTest
import Foundation
import SwurlTestSupport

/// The security policy against real TLS servers on 127.0.0.1 with a PKI made at test time.
/// Every rejection must also show that the server received zero application bytes.
final class SecurityPolicyEndToEndTests: XCTestCase {
    /// The servers of the decision table, started once per test process.
    final class Servers: @unchecked Sendable {
        let pki: CertificateFactory
        let good, wrongHost, expired, selfSigned, evil: TLSTestServer

        init() throws {
            let pki = try CertificateFactory.shared()
            self.pki = pki
            func server(_ name: String) throws -> TLSTestServer {
                try TLSTestServer(chain: pki.path("\(name)-chain.pem"), key: pki.path("\(name).key"))
            }
            good = try server("leaf")
            wrongHost = try server("wronghost")
            expired = try server("expired")
            selfSigned = try server("selfsigned")
            evil = try server("evil")
        }

        nonisolated(unsafe) static var shared: Servers?
        static let lock = NSLock()
        static func get() throws -> Servers {
            lock.lock()
            defer { lock.unlock() }
            if let shared { return shared }
            let s = try Servers()
            shared = s
            return s
        }
    }

    /// One row: which server, which options, what must happen.
    struct Case {
        var name: String
        var server: KeyPath<Servers, TLSTestServer>
        var args: [String]
        /// 0 accepted; 7 rejected with `check` named.
        var status: Int32
        var check: String? = nil
        var host = "127.0.0.1"
        /// Extra environment for the child (SSL_CERT_FILE / SSL_CERT_DIR name its default store).
        var environment: [String: String] = [:]
    }

    /// Runs one case and checks exit status, message and what the server saw.
    private func check(_ c: Case, _ s: Servers, file: StaticString = #filePath, line: UInt = #line) throws {
        let server = s[keyPath: c.server]
        let before = server.connections.count
        let args = c.args.map { $0.hasPrefix("@") ? s.pki.path(String($0.dropFirst())) : $0 }
        let r = try runSwurl(args + ["https://\(c.host):\(server.port)/table"], environment: c.environment)
        XCTAssertEqual(r.status, c.status, "\(c.name): \(r.stderr)", file: file, line: line)
        guard let conn = server.connection(after: before) else {
            XCTFail("\(c.name): the server logged no connection", file: file, line: line)
            return
        }
        if c.status == 0 {
            XCTAssertTrue(conn.handshake && conn.bytes > 0, "\(c.name): \(conn)", file: file, line: line)
            XCTAssertEqual(r.text, "ok", c.name, file: file, line: line)
        } else {
            // Rejected inside the handshake: it never completed, no request byte arrived.
            XCTAssertFalse(conn.handshake, "\(c.name): \(conn)", file: file, line: line)
            XCTAssertEqual(conn.bytes, 0, "\(c.name): \(conn)", file: file, line: line)
            XCTAssertTrue(r.stdout.isEmpty, c.name, file: file, line: line)
            if let check = c.check {
                XCTAssertTrue(r.stderr.contains("swurl: error: TLS \(check) check failed for \(c.host)"),
                              "\(c.name): \(r.stderr)", file: file, line: line)
            }
        }
    }

    func testDecisionTable() throws {
        let s = try Servers.get()
        let leaf = try s.pki.pin("leaf.pem"), int = try s.pki.pin("int.pem"), root = try s.pki.pin("root.pem")
        let selfPin = try s.pki.pin("selfsigned.pem"), wrongPin = try s.pki.pin("wronghost.pem")
        let expiredPin = try s.pki.pin("expired.pem")
        let ca = ["--cacert", "@root.pem"]
        let cases: [Case] = [
            // No pins: system CAs plus --cacert, host checked; -k lifts both.
            Case(name: "no pins, unknown CA", server: \.good, args: [], status: 7, check: "chain"),
            Case(name: "no pins, --cacert", server: \.good, args: ca, status: 0),
            Case(name: "no pins, --cacert, DNS name", server: \.good, args: ca, status: 0, host: "localhost"),
            Case(name: "no pins, wrong host", server: \.wrongHost, args: ca, status: 7, check: "host"),
            Case(name: "no pins, wrong host, --no-verify-host", server: \.wrongHost, args: ca + ["--no-verify-host"], status: 0),
            Case(name: "no pins, wrong host by name", server: \.wrongHost, args: ca, status: 7, check: "host", host: "localhost"),
            Case(name: "no pins, expired", server: \.expired, args: ca, status: 7, check: "chain"),
            Case(name: "no pins, self-signed", server: \.selfSigned, args: [], status: 7, check: "chain"),
            Case(name: "no pins, self-signed, -k", server: \.selfSigned, args: ["-k"], status: 0),
            Case(name: "no pins, wrong host, -k", server: \.wrongHost, args: ["-k"], status: 0),
            Case(name: "no pins, evil chain", server: \.evil, args: ca, status: 7, check: "chain"),
            // --pin-cert: pinned certificates are anchors; the verified path must contain one.
            Case(name: "pin-cert leaf", server: \.good, args: ["--pin-cert", "@leaf.pem"], status: 0),
            Case(name: "pin-cert intermediate", server: \.good, args: ["--pin-cert", "@int.pem"], status: 0),
            Case(name: "pin-cert root", server: \.good, args: ["--pin-cert", "@root.pem"], status: 0),
            Case(name: "pin-cert unrelated", server: \.good, args: ["--pin-cert", "@selfsigned.pem"], status: 7, check: "chain"),
            Case(name: "pin-cert unrelated, with --cacert", server: \.good, args: ca + ["--pin-cert", "@selfsigned.pem"], status: 7, check: "pin"),
            Case(name: "pin-cert self-signed, no -k", server: \.selfSigned, args: ["--pin-cert", "@selfsigned.pem"], status: 0),
            Case(name: "pin-cert other, self-signed server", server: \.selfSigned, args: ["--pin-cert", "@leaf.pem"], status: 7, check: "chain"),
            Case(name: "pin-cert int, evil presents int", server: \.evil, args: ["--pin-cert", "@int.pem"], status: 7, check: "chain"),
            Case(name: "pin-cert int, evil root trusted", server: \.evil, args: ["--pin-cert", "@int.pem", "--cacert", "@evilroot.pem"], status: 7, check: "pin"),
            Case(name: "pin-cert int, wrong host", server: \.wrongHost, args: ["--pin-cert", "@int.pem"], status: 7, check: "host"),
            Case(name: "pin-cert int, wrong host, --no-verify-host", server: \.wrongHost, args: ["--pin-cert", "@int.pem", "--no-verify-host"], status: 0),
            Case(name: "pin-cert int, expired leaf", server: \.expired, args: ["--pin-cert", "@int.pem"], status: 7, check: "chain"),
            Case(name: "pin-cert expired leaf, -k", server: \.expired, args: ["-k", "--pin-cert", "@expired.pem"], status: 0),
            Case(name: "pin-cert int, scope leaf", server: \.good, args: ["--pin-cert", "@int.pem", "--pin-scope", "leaf"], status: 7, check: "pin"),
            Case(name: "pin-cert leaf, scope leaf", server: \.good, args: ["--pin-cert", "@leaf.pem", "--pin-scope", "leaf"], status: 0),
            Case(name: "pin-cert leaf+int, scope chain", server: \.good, args: ["--pin-cert", "@leaf-chain.pem", "--pin-scope", "chain"], status: 0),
            Case(name: "pin-cert int, scope chain", server: \.good, args: ["--pin-cert", "@int.pem", "--pin-scope", "chain"], status: 7, check: "pin"),
            Case(name: "pin-cert leaf, -k", server: \.good, args: ["-k", "--pin-cert", "@leaf.pem"], status: 0),
            Case(name: "pin-cert int, -k (only the leaf counts)", server: \.good, args: ["-k", "--pin-cert", "@int.pem"], status: 7, check: "pin"),
            // --pin-pubkey: chain verified as usual (unless -k), then a key of the verified path.
            Case(name: "pin-pubkey leaf", server: \.good, args: ca + ["--pin-pubkey", leaf], status: 0),
            Case(name: "pin-pubkey intermediate", server: \.good, args: ca + ["--pin-pubkey", int], status: 0),
            Case(name: "pin-pubkey root (never sent)", server: \.good, args: ca + ["--pin-pubkey", root], status: 0),
            Case(name: "pin-pubkey leaf, unknown CA", server: \.good, args: ["--pin-pubkey", leaf], status: 7, check: "chain"),
            Case(name: "pin-pubkey leaf, -k", server: \.good, args: ["-k", "--pin-pubkey", leaf], status: 0),
            Case(name: "pin-pubkey int, -k (only the leaf counts)", server: \.good, args: ["-k", "--pin-pubkey", int], status: 7, check: "pin"),
            Case(name: "pin-pubkey unrelated", server: \.good, args: ca + ["--pin-pubkey", selfPin], status: 7, check: "pin"),
            Case(name: "pin-pubkey int, scope leaf", server: \.good, args: ca + ["--pin-pubkey", int, "--pin-scope", "leaf"], status: 7, check: "pin"),
            Case(name: "pin-pubkey all three, scope chain", server: \.good, args: ca + ["--pin-pubkey", "\(leaf);\(int);\(root)", "--pin-scope", "chain"], status: 0),
            Case(name: "pin-pubkey leaf+int, scope chain (root unpinned)", server: \.good, args: ca + ["--pin-pubkey", "\(leaf);\(int)", "--pin-scope", "chain"], status: 7, check: "pin"),
            Case(name: "pin-pubkey int, evil chain", server: \.evil, args: ca + ["--pin-pubkey", int], status: 7, check: "chain"),
            Case(name: "pin-pubkey int, evil root trusted, int only presented", server: \.evil, args: ["--cacert", "@evilroot.pem", "--pin-pubkey", int], status: 7, check: "pin"),
            Case(name: "pin-pubkey int, evil, -k", server: \.evil, args: ["-k", "--pin-pubkey", int], status: 7, check: "pin"),
            Case(name: "pin-pubkey self-signed key file, -k", server: \.selfSigned, args: ["-k", "--pin-pubkey", "@selfsigned.pub.pem"], status: 0),
            Case(name: "pin-pubkey self-signed, -k, DNS name", server: \.selfSigned, args: ["-k", "--pin-pubkey", selfPin], status: 0, host: "localhost"),
            Case(name: "pin-pubkey self-signed, no -k", server: \.selfSigned, args: ["--pin-pubkey", selfPin], status: 7, check: "chain"),
            Case(name: "pin-pubkey wrong-host leaf, -k: host still checked", server: \.wrongHost, args: ["-k", "--pin-pubkey", wrongPin], status: 7, check: "host"),
            Case(name: "pin-pubkey wrong-host leaf, -k --no-verify-host", server: \.wrongHost, args: ["-k", "--no-verify-host", "--pin-pubkey", wrongPin], status: 0),
            Case(name: "pin-pubkey from a certificate file", server: \.good, args: ca + ["--pin-pubkey", "@leaf.pem"], status: 0),
            Case(name: "pin-pubkey expired leaf", server: \.expired, args: ca + ["--pin-pubkey", expiredPin], status: 7, check: "chain"),
            Case(name: "pin-pubkey expired leaf, -k", server: \.expired, args: ["-k", "--pin-pubkey", expiredPin], status: 0),
            Case(name: "-k --verify-host with pin", server: \.selfSigned, args: ["-k", "--verify-host", "--pin-pubkey", selfPin], status: 0),
        ]
        XCTAssertGreaterThanOrEqual(cases.count, 30)
        for c in cases { try check(c, s) }
    }

    /// `--cacert`/`--capath` replace the default store (curl, HTTPie, AFNetworking);
    /// `--cacert-add` adds to it. The default store is pointed at the "evil" root with
    /// SSL_CERT_FILE (and an empty SSL_CERT_DIR), so it holds one known CA and nothing else.
    func testCacertReplacesTheDefaultStoreAndCacertAddExtendsIt() throws {
        let s = try Servers.get()
        let empty = TestPaths.temporaryDirectory(), rootDir = TestPaths.temporaryDirectory()
        defer { for d in [empty, rootDir] { try? FileManager.default.removeItem(atPath: d) } }
        try FileManager.default.copyItem(atPath: s.pki.path("root.pem"), toPath: rootDir + "/root.pem")
        try CertificateFactory.shell("openssl rehash .", in: rootDir)
        let env = ["SSL_CERT_FILE": s.pki.path("evilroot.pem"), "SSL_CERT_DIR": empty]
        let cases: [Case] = [
            Case(name: "private CA, no --cacert", server: \.good, args: [], status: 7, check: "chain", environment: env),
            Case(name: "private CA, --cacert", server: \.good, args: ["--cacert", "@root.pem"], status: 0, environment: env),
            Case(name: "default store from SSL_CERT_FILE", server: \.evil, args: [], status: 0, environment: env),
            Case(name: "--cacert replaces the default store", server: \.evil, args: ["--cacert", "@root.pem"], status: 7, check: "chain", environment: env),
            Case(name: "--capath replaces the default store", server: \.evil, args: ["--capath", rootDir], status: 7, check: "chain", environment: env),
            Case(name: "--capath trusts its CAs", server: \.good, args: ["--capath", rootDir], status: 0, environment: env),
            Case(name: "--cacert-add keeps the default store", server: \.evil, args: ["--cacert-add", "@root.pem"], status: 0, environment: env),
            Case(name: "--cacert-add trusts its CAs", server: \.good, args: ["--cacert-add", "@root.pem"], status: 0, environment: env),
            Case(name: "--cacert-add repeated", server: \.good, args: ["--cacert-add", "@selfsigned.pem", "--cacert-add", "@root.pem"], status: 0, environment: env),
            Case(name: "--cacert and --cacert-add", server: \.evil, args: ["--cacert", "@root.pem", "--cacert-add", "@evilroot.pem"], status: 0, environment: env),
            Case(name: "pin-cert still anchors", server: \.good, args: ["--pin-cert", "@int.pem"], status: 0, environment: env),
            Case(name: "pin-cert int, evil root in the default store", server: \.evil, args: ["--pin-cert", "@int.pem"], status: 7, check: "pin", environment: env),
        ]
        for c in cases { try check(c, s) }
    }

    /// SSL_CERT_DIR names a hashed directory (c_rehash links) that is searched during the
    /// handshake; --cacert still replaces it.
    func testDefaultStoreFromAHashedDirectory() throws {
        let s = try Servers.get()
        let dir = TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.copyItem(atPath: s.pki.path("evilroot.pem"), toPath: dir + "/evilroot.pem")
        try CertificateFactory.shell("openssl rehash .", in: dir)
        let env = ["SSL_CERT_DIR": dir, "SSL_CERT_FILE": dir + "/none.pem"]
        let cases: [Case] = [
            Case(name: "hashed dir: its CA", server: \.evil, args: [], status: 0, environment: env),
            Case(name: "hashed dir: other CA", server: \.good, args: [], status: 7, check: "chain", environment: env),
            Case(name: "hashed dir: --cacert replaces it", server: \.evil, args: ["--cacert", "@root.pem"], status: 7, check: "chain", environment: env),
            Case(name: "hashed dir: --cacert-add keeps it", server: \.evil, args: ["--cacert-add", "@root.pem"], status: 0, environment: env),
        ]
        for c in cases { try check(c, s) }
        // curl's, HTTPie's and OpenSSL's variables each name a file, all read (an empty value
        // counts as unset; a machine may set all three for every program, and a user then sets
        // the one of the tool they know).
        let empty = TestPaths.temporaryDirectory()
        let root = s.pki.path("root.pem"), evil = s.pki.path("evilroot.pem")
        let named: [Case] = [
            Case(name: "CURL_CA_BUNDLE", server: \.good, args: [], status: 0,
                 environment: ["SSL_CERT_DIR": empty, "SSL_CERT_FILE": "", "REQUESTS_CA_BUNDLE": "", "CURL_CA_BUNDLE": root]),
            Case(name: "REQUESTS_CA_BUNDLE", server: \.good, args: [], status: 0,
                 environment: ["SSL_CERT_DIR": empty, "SSL_CERT_FILE": "", "CURL_CA_BUNDLE": "", "REQUESTS_CA_BUNDLE": root]),
            Case(name: "CURL_CA_BUNDLE beside SSL_CERT_FILE", server: \.good, args: [], status: 0,
                 environment: ["SSL_CERT_DIR": empty, "SSL_CERT_FILE": evil, "CURL_CA_BUNDLE": root, "REQUESTS_CA_BUNDLE": evil]),
            Case(name: "REQUESTS_CA_BUNDLE beside the others", server: \.good, args: [], status: 0,
                 environment: ["SSL_CERT_DIR": empty, "SSL_CERT_FILE": evil, "CURL_CA_BUNDLE": evil, "REQUESTS_CA_BUNDLE": root]),
            Case(name: "SSL_CERT_FILE beside the others", server: \.good, args: [], status: 0,
                 environment: ["SSL_CERT_DIR": empty, "SSL_CERT_FILE": root, "CURL_CA_BUNDLE": evil, "REQUESTS_CA_BUNDLE": evil]),
            Case(name: "none names the server's CA", server: \.good, args: [], status: 7, check: "chain",
                 environment: ["SSL_CERT_DIR": empty, "SSL_CERT_FILE": evil, "CURL_CA_BUNDLE": evil, "REQUESTS_CA_BUNDLE": evil]),
        ]
        for c in named { try check(c, s) }
    }

    func testPinMismatchNamesHostAndPresentedPins() throws {
        let s = try Servers.get()
        let r = try runSwurl(["--cacert", s.pki.path("root.pem"), "--pin-pubkey", try s.pki.pin("selfsigned.pem"),
                              "\(s.good.url)/x"])
        XCTAssertEqual(r.status, 7)
        XCTAssertTrue(r.stderr.contains("TLS pin check failed for 127.0.0.1"), r.stderr)
        XCTAssertTrue(r.stderr.contains(try s.pki.pin("leaf.pem")), r.stderr)
        XCTAssertTrue(r.stderr.contains(try s.pki.pin("int.pem")), r.stderr)
        XCTAssertTrue(r.stderr.contains("pinned: \(try s.pki.pin("selfsigned.pem"))"), r.stderr)
    }

    /// `--pin-cert` and `--pin-pubkey` together are two checks: a pinned certificate and a pinned
    /// key. Pooled, a leaf key pinned beside the pinned intermediate restricted nothing: any
    /// certificate the intermediate issued passed (another leaf's key pinned, the leaf served).
    func testPinnedCertificatesAndPinnedKeysGivenTogetherMustBothMatch() throws {
        let s = try Servers.get()
        let int = ["--pin-cert", s.pki.path("int.pem")]
        XCTAssertEqual(try runSwurl(int + ["\(s.good.url)/x"]).status, 0)
        XCTAssertEqual(try runSwurl(int + ["--pin-pubkey", try s.pki.pin("leaf.pem"), "\(s.good.url)/x"]).status, 0)
        let other = try runSwurl(int + ["--pin-pubkey", try s.pki.pin("leaf2.pem"), "\(s.good.url)/x"])
        XCTAssertEqual(other.status, 7, other.stderr)
        XCTAssertTrue(other.stderr.contains("no certificate of the verified path has a --pin-pubkey key (--pin-cert and --pin-pubkey together: both must match)"), other.stderr)
        // One kind's pins are alternatives: any one of them matches.
        let either = try runSwurl(["--cacert", s.pki.path("root.pem"), "--pin-pubkey", try s.pki.pin("leaf2.pem") + ";" + (try s.pki.pin("leaf.pem")),
                                   "\(s.good.url)/x"])
        XCTAssertEqual(either.status, 0, either.stderr)
        let leaf = try runSwurl(["--pin-cert", s.pki.path("leaf.pem"), "--pin-pubkey", try s.pki.pin("int.pem"), "--pin-scope", "leaf", "\(s.good.url)/x"])
        XCTAssertEqual(leaf.status, 7, leaf.stderr)
        XCTAssertTrue(leaf.stderr.contains("the leaf's key is not a --pin-pubkey key (--pin-cert and --pin-pubkey together: both must match; --pin-scope leaf)"), leaf.stderr)
        // With both kinds the scope is the keys': a CA trusted with --pin-cert anywhere in the
        // path and the leaf's own key (a private CA's certificate for another name, as
        // documented); --pin-scope chain holds each kind to a match too.
        XCTAssertEqual(try runSwurl(int + ["--pin-pubkey", try s.pki.pin("leaf.pem"), "--pin-scope", "leaf", "\(s.good.url)/x"]).status, 0)
        let chain = try runSwurl(["--pin-cert", s.pki.path("leaf-chain.pem"), "--pin-cert", s.pki.path("root.pem"), "--pin-pubkey", try s.pki.pin("leaf2.pem"),
                                  "--pin-scope", "chain", "\(s.good.url)/x"])
        XCTAssertEqual(chain.status, 7, chain.stderr)
        XCTAssertTrue(chain.stderr.contains("has a --pin-pubkey key (--pin-cert and --pin-pubkey together: both must match; --pin-scope chain)"), chain.stderr)
        // Under -k the leaf is all there is: its wording says so once.
        let insecure = try runSwurl(["-k", "--pin-cert", s.pki.path("leaf.pem"), "--pin-pubkey", try s.pki.pin("leaf2.pem"), "\(s.good.url)/x"])
        XCTAssertEqual(insecure.status, 7, insecure.stderr)
        XCTAssertTrue(insecure.stderr.contains("the leaf's key is not a --pin-pubkey key (the chain is not verified with --insecure; --pin-cert and --pin-pubkey together: both must match)"), insecure.stderr)
    }

    /// A pinned leaf certificate is the whole verified path: OpenSSL took it by its match in the
    /// store but left the intermediate the server sent after it on the chain, unverified, so
    /// `--pin-scope chain` asked that one to be pinned too, and `-v` counted it as verified.
    func testAPinnedLeafCertificateIsTheWholeVerifiedPath() throws {
        let s = try Servers.get()
        let r = try runSwurl(["-v", "--pin-cert", s.pki.path("leaf.pem"), "--pin-scope", "chain", "\(s.good.url)/x"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("chain verified (1 certificate)"), r.stderr)
        // The intermediate pinned alone is still no pin of the leaf under chain scope.
        XCTAssertEqual(try runSwurl(["--pin-cert", s.pki.path("int.pem"), "--pin-scope", "chain", "\(s.good.url)/x"]).status, 7)
    }

    /// `-k` with a pin of the intermediate fails (only the leaf counts), and the hint said
    /// "update the pin", which is right already: it names -k as the cause, and drops it.
    func testAPinBeyondTheLeafUnderInsecureNamesMinusKNotTheKey() throws {
        let s = try Servers.get()
        for pin in [["--pin-cert", s.pki.path("int.pem")], ["--pin-pubkey", try s.pki.pin("int.pem")]] {
            let r = try runSwurl(["-k"] + pin + ["\(s.good.url)/x"])
            XCTAssertEqual(r.status, 7, r.stderr)
            XCTAssertTrue(r.stderr.contains("which the server presented beyond its leaf: with -k only the leaf's key counts"), r.stderr)
            XCTAssertTrue(r.stderr.contains("without -k a pin of the chain counts once the chain verifies"), r.stderr)
            XCTAssertFalse(r.stderr.contains("update the pin"), r.stderr)
        }
        // Not with --pin-scope leaf, nor for an out-of-date leaf: dropping -k fails those too.
        let leafScope = try runSwurl(["-k", "--pin-pubkey", try s.pki.pin("int.pem"), "--pin-scope", "leaf", "\(s.good.url)/x"])
        XCTAssertEqual(leafScope.status, 7)
        XCTAssertFalse(leafScope.stderr.contains("beyond its leaf"), leafScope.stderr)
        let expired = try runSwurl(["-k", "--pin-pubkey", try s.pki.pin("int.pem"), "\(s.expired.url)/x"])
        XCTAssertEqual(expired.status, 7)
        XCTAssertFalse(expired.stderr.contains("beyond its leaf"), expired.stderr)
        // A pin matching nothing the server sent keeps the old advice.
        let other = try runSwurl(["-k", "--pin-pubkey", try s.pki.pin("selfsigned.pem"), "\(s.good.url)/x"])
        XCTAssertEqual(other.status, 7)
        XCTAssertTrue(other.stderr.contains("update the pin"), other.stderr)
    }

    /// A certificate not valid yet is most often this machine's clock being behind (every site
    /// fails so): the request's hint and `swurl certs` name the clock's reading first; the hint
    /// went straight to -k --pin-pubkey.
    func testANotYetValidCertificateNamesThisMachinesClock() throws {
        let pki = try CertificateFactory.shared()
        let server = try TLSTestServer(chain: pki.path("notyet-chain.pem"), key: pki.path("notyet.key"))
        let r = try runSwurl(["--cacert", pki.path("root.pem"), "\(server.url)/x"])
        XCTAssertEqual(r.status, 7, r.stderr)
        XCTAssertTrue(r.stderr.contains("certificate is not yet valid"), r.stderr)
        XCTAssertTrue(r.stderr.contains("swurl: hint: this machine's clock reads "), r.stderr)
        XCTAssertTrue(r.stderr.contains("Z: if that is wrong, set the clock first\nswurl: hint: no --cacert"), r.stderr)
        let certs = try runSwurl(["certs", "--cacert", pki.path("root.pem"), server.url])
        XCTAssertEqual(certs.status, 0, certs.stderr)
        XCTAssertTrue(certs.text.contains("a certificate is not valid yet by this machine's clock ("), certs.text)
        // An expired one says nothing of the clock.
        let expired = try TLSTestServer(chain: pki.path("expired-chain.pem"), key: pki.path("expired.key"))
        let old = try runSwurl(["--cacert", pki.path("root.pem"), "\(expired.url)/x"])
        XCTAssertEqual(old.status, 7)
        XCTAssertFalse(old.stderr.contains("clock"), old.stderr)
    }

    /// A pin cannot be checked over plain http (a URL typed without https:// is http): refused
    /// with 7 before anything is sent, credentials included.
    func testAPinOnAPlainHTTPURLIsRefusedBeforeSending() throws {
        let s = try Servers.get()
        let plain = try ScriptedServer()
        for url in [plain.url("/echo"), "127.0.0.1:\(plain.port)/echo"] {
            let r = try runSwurl(["--pin-pubkey", try s.pki.pin("leaf.pem"), "-a", "u:secret", url])
            XCTAssertEqual(r.status, 7, r.stderr)
            XCTAssertTrue(r.stderr.contains("is plain http: the pin (--pin-pubkey, --pin-cert) is checked in a TLS handshake, and there is none"), r.stderr)
        }
        let pinCert = try runSwurl(["--pin-cert", s.pki.path("leaf.pem"), plain.url("/echo")])
        XCTAssertEqual(pinCert.status, 7, pinCert.stderr)
        // Nor is a curl command printed that would send the credentials in clear.
        let export = try runSwurl(["--curl", "--pin-pubkey", try s.pki.pin("leaf.pem"), "-a", "u:secret", plain.url("/echo")])
        XCTAssertEqual(export.status, 7, export.stderr)
        XCTAssertEqual(export.text, "")
        XCTAssertEqual(plain.requests().count, 0, "\(plain.requests())")
    }

    func testWarningsOnlyWhenSomethingIsWeakened() throws {
        let s = try Servers.get()
        let quiet = try runSwurl(["--cacert", s.pki.path("root.pem"), "\(s.good.url)/q"])
        XCTAssertEqual(quiet.status, 0)
        XCTAssertEqual(quiet.stderr, "", "a plain request with --cacert must print nothing on stderr")
        let insecure = try runSwurl(["-k", "\(s.selfSigned.url)/q"])
        XCTAssertEqual(insecure.status, 0)
        XCTAssertTrue(insecure.stderr.hasPrefix("swurl: warning: --insecure"), insecure.stderr)
        let pinned = try runSwurl(["-k", "--pin-pubkey", try s.pki.pin("selfsigned.pem"), "\(s.selfSigned.url)/q"])
        XCTAssertEqual(pinned.status, 0)
        XCTAssertEqual(pinned.stderr, "")
    }

    func testBadSecurityOptionsFailBeforeConnecting() throws {
        let pki = try CertificateFactory.shared()
        let url = "https://127.0.0.1:9/x"
        let cases: [([String], Int32, String)] = [
            (["-k", "--verify-host"], 64, "needs a pin"),
            (["--pin-pubkey", "sha256//abc"], 64, "not a SHA-256 pin"),
            (["--pin-pubkey", "sha256//" + String(repeating: "A", count: 43) + "=;md5//x"], 64, "not a sha256// pin"),
            (["--pin-pubkey", "/nonexistent/key.pem"], 66, "cannot read"),
            (["--pin-cert", pki.path("leaf.key")], 65, "holds no certificate"),
            (["--pin-cert", "/nonexistent.pem"], 66, "cannot read"),
            (["--pin-scope", "leaf"], 64, "needs --pin-pubkey or --pin-cert"),
            (["--pin-scope", "all", "--pin-cert", pki.path("leaf.pem")], 64, "invalid value 'all'"),
            (["--cacert", "/nonexistent.pem"], 66, "--cacert"),
            (["--capath", pki.path("root.pem")], 66, "not a directory"),
            (["--cacert-add", "/nonexistent.pem"], 66, "--cacert-add"),
            (["--cacert-add", pki.path("leaf.key")], 65, "holds no certificate"),
            (["--tls-min", "1.3", "--tls-max", "1.2"], 64, "above"),
            (["--tls-min", "1.1"], 64, "invalid value"),
            (["--key", pki.path("client.key")], 64, "--key needs --cert"),
            (["--cert", pki.path("client-chain.pem"), "--key", pki.path("client-enc.key")], 64, "is encrypted"),
            (["--verify-host", "--no-verify-host"], 64, "cannot be combined"),
            (["--pin-pubkey", String(repeating: "A", count: 43) + "="], 64, "looks like a pin without its sha256// prefix"),
            (["--pin-pubkey", "sha256/" + String(repeating: "A", count: 43) + "="], 64, "write it as --pin-pubkey 'sha256//AAA"),
            (["--pin-pubkey", String(repeating: "c8", count: 32)], 64, "looks like a SHA-256 in hex"),
            (["--pin-pubkey", Array(repeating: "C8", count: 32).joined(separator: ":")], 64, "a certificate's fingerprint?"),
            (["--cacert", pki.path("")], 66, "a directory of CA certificates is --capath DIR"),
            (["--cert", pki.path("client-chain.pem"), "--key", pki.path("client-enc.key"), "--key-password", "nope"], 64,
             "the password does not decrypt the private key"),
        ]
        for (args, status, fragment) in cases {
            let r = try runSwurl(args + [url])
            XCTAssertEqual(r.status, status, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.hasPrefix("swurl: error: "), "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(fragment), "\(args): \(r.stderr)")
        }
        // A file is named as it was given (--cacert-add showed the absolute path it resolved).
        let dir = TestPaths.temporaryDirectory()
        FileManager.default.createFile(atPath: dir + "/empty.pem", contents: Data())
        for option in ["--cacert-add", "--pin-cert", "--cacert"] {
            let r = try runSwurl([option, "empty.pem", url], directory: dir)
            XCTAssertEqual(r.status, 65, r.stderr)
            XCTAssertTrue(r.stderr.hasPrefix("swurl: error: \(option): 'empty.pem' holds no"), r.stderr)
        }
    }

    /// A redirect hop to a server with another key is checked with the same pins and rejected
    /// in its handshake.
    func testRedirectToAnotherKeyIsRejected() throws {
        let pki = try CertificateFactory.shared()
        let second = try TLSTestServer(chain: pki.path("leaf2-chain.pem"), key: pki.path("leaf2.key"))
        let first = try TLSTestServer(chain: pki.path("leaf-chain.pem"), key: pki.path("leaf.key"),
                                      redirect: "https://localhost:\(second.port)/next")
        let pin = try pki.pin("leaf.pem")
        let r = try runSwurl(["--follow", "--cacert", pki.path("root.pem"), "--pin-pubkey", pin, "\(first.url)/start"])
        XCTAssertEqual(r.status, 7, r.stderr)
        // The server that failed is named with its port, the redirect that led there too, and
        // the hint looks at that server, not at the URL typed (whose pin matches).
        XCTAssertTrue(r.stderr.contains("TLS pin check failed for localhost:\(second.port): "), r.stderr)
        XCTAssertTrue(r.stderr.contains("(after 1 redirect from https://127.0.0.1:\(first.port))"), r.stderr)
        // ... with the trust it was checked under (certs without --cacert offered -k and a pin),
        // and that the pins hold for every hop ("update the pin" to the second server's alone
        // failed the first hop): its pin goes beside the others, which then passes.
        XCTAssertTrue(r.stderr.contains("the pins hold for every hop: to trust this server too, give its pin beside the others "
                                        + "(--pin-pubkey again, or joined by ';'; for --pin-cert, a certificate of its path) "
                                        + "('swurl certs https://localhost:\(second.port)' with this request's --cacert prints it)"), r.stderr)
        XCTAssertFalse(r.stderr.contains("update the pin"), r.stderr)
        let both = try runSwurl(["--follow", "--cacert", pki.path("root.pem"), "--pin-pubkey", pin + ";" + (try pki.pin("leaf2.pem")), "\(first.url)/start"])
        XCTAssertEqual(both.status, 0, both.stderr)
        // The pins were held against the verified path, its anchor from --cacert included.
        let rootPin = try pki.pin("root.pem")
        XCTAssertTrue(r.stderr.contains("the verified path (leaf to anchor):") && r.stderr.contains(rootPin), r.stderr)
        XCTAssertTrue(r.stderr.contains(try pki.pin("leaf2.pem")), r.stderr)
        XCTAssertEqual(first.connection(after: 0)?.handshake, true)
        let hop = second.connection(after: 0)
        XCTAssertEqual(hop?.handshake, false, "\(String(describing: hop))")
        XCTAssertEqual(hop?.bytes, 0)
        // Without the pin the same redirect is followed.
        let plain = try runSwurl(["--follow", "--cacert", pki.path("root.pem"), "\(first.url)/start"])
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertEqual(plain.text, "ok")
    }

    /// A redirect back to the same server opens a new connection (the server closes each one);
    /// with TLS session resumption that handshake would carry no certificate and skip the
    /// policy. Both hops must run it in full.
    func testEveryHopRunsAFullVerifiedHandshake() throws {
        let pki = try CertificateFactory.shared()
        // A redirect that is a path goes to https://127.0.0.1:PORT/final on the server's own port.
        let server = try TLSTestServer(chain: pki.path("leaf-chain.pem"), key: pki.path("leaf.key"), redirect: "/final")
        let r = try runSwurl(["-v", "--follow", "--cacert", pki.path("root.pem"), "--pin-pubkey", try pki.pin("int.pem"),
                              "\(server.url)/start"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr.components(separatedBy: "* TLS: ").count - 1, 2, r.stderr)
        XCTAssertEqual(server.connections.count, 2)
    }

    func testMutualTLS() throws {
        let pki = try CertificateFactory.shared()
        let server = try TLSTestServer(chain: pki.path("leaf-chain.pem"), key: pki.path("leaf.key"), clientCA: pki.path("root.pem"))
        let ca = ["--cacert", pki.path("root.pem")]
        let without = try runSwurl(ca + ["\(server.url)/m"])
        XCTAssertNotEqual(without.status, 0)
        XCTAssertTrue(without.stderr.contains("--cert FILE --key FILE"), without.stderr)
        XCTAssertEqual(server.connection(after: 0)?.bytes, 0)
        XCTAssertEqual(server.connection(after: 0)?.handshake, false)
        let with = try runSwurl(ca + ["--cert", pki.path("client-chain.pem"), "--key", pki.path("client.key"), "\(server.url)/m"])
        XCTAssertEqual(with.status, 0, with.stderr)
        XCTAssertEqual(with.text, "ok")
        let encrypted = try runSwurl(ca + ["--cert", pki.path("client-chain.pem"), "--key", pki.path("client-enc.key"),
                                           "--key-password", "secret", "\(server.url)/m"])
        XCTAssertEqual(encrypted.status, 0, encrypted.stderr)
        let wrong = try runSwurl(ca + ["--cert", pki.path("client-chain.pem"), "--key", pki.path("client-enc.key"),
                                       "--key-password", "wrong", "\(server.url)/m"])
        // Named before anything is sent (libcurl said only "unable to set private key file").
        XCTAssertEqual(wrong.status, 64, wrong.stderr)
        XCTAssertTrue(wrong.stderr.contains("the password does not decrypt the private key '\(pki.path("client-enc.key"))'"), wrong.stderr)
        XCTAssertTrue(wrong.stderr.contains("check --key-password"), wrong.stderr)
        let mismatched = try runSwurl(ca + ["--cert", pki.path("client-chain.pem"), "--key", pki.path("leaf.key"), "\(server.url)/m"])
        XCTAssertEqual(mismatched.status, 65, mismatched.stderr)
        XCTAssertTrue(mismatched.stderr.contains("the private key '\(pki.path("leaf.key"))' does not belong to the certificate '\(pki.path("client-chain.pem"))'"),
                      mismatched.stderr)
        // Files that cannot be a client identity are bad data named by what is wrong (libcurl
        // said "unable to set private key file", exit 66, for each).
        let dir = TestPaths.temporaryDirectory()
        _ = try runProcess("/usr/bin/openssl", ["x509", "-in", pki.path("client-chain.pem"), "-outform", "der", "-out", dir + "/client.der"])
        _ = try runProcess("/usr/bin/openssl", ["pkey", "-in", pki.path("client.key"), "-outform", "der", "-out", dir + "/client.key.der"])
        let cases: [([String], String, String)] = [
            (["--cert", pki.path("client-chain.pem")], "'\(pki.path("client-chain.pem"))' holds no private key", "give the certificate's key with --key FILE"),
            (["--cert", pki.path("client-chain.pem"), "--key", dir + "/client.key.der"], "the private key '\(dir)/client.key.der' is not PEM", "openssl pkey -inform der"),
            (["--cert", dir + "/client.der", "--key", pki.path("client.key")], "the client certificate '\(dir)/client.der' is not PEM", "openssl x509 -inform der"),
            // A key given for --cert: libcurl's "could not load PEM client certificate", exit 66.
            (["--cert", pki.path("client.key"), "--key", pki.path("client.key")], "the client certificate file '\(pki.path("client.key"))' holds no certificate",
             "give the certificate with --cert FILE and its private key with --key FILE"),
        ]
        for (args, error, hint) in cases {
            let r = try runSwurl(ca + args + ["\(server.url)/m"])
            XCTAssertEqual(r.status, 65, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(error) && r.stderr.contains(hint), "\(args): \(r.stderr)")
        }
        // The REPL's default --cert is judged the same way (it said "not PEM" of a PEM key).
        let replKey = try runSwurl(["repl", server.url] + ca + ["--cert", pki.path("client.key")], stdin: Data())
        XCTAssertEqual(replKey.status, 65, replKey.stderr)
        XCTAssertTrue(replKey.stderr.contains("holds no certificate"), replKey.stderr)
        // A TRUSTED CERTIFICATE (openssl x509 -trustout), which OpenSSL loads, is no key file.
        _ = try runProcess("/usr/bin/openssl", ["x509", "-in", pki.path("client.pem"), "-trustout", "-out", dir + "/trusted.pem"])
        let withIssuer = try Data(contentsOf: URL(fileURLWithPath: dir + "/trusted.pem")) + Data(contentsOf: URL(fileURLWithPath: pki.path("int.pem")))
        try withIssuer.write(to: URL(fileURLWithPath: dir + "/trusted.pem"))
        let trusted = try runSwurl(ca + ["--cert", dir + "/trusted.pem", "--key", pki.path("client.key"), "\(server.url)/m"])
        XCTAssertEqual(trusted.status, 0, trusted.stderr)
        let pinFile = try runSwurl(ca + ["--pin-pubkey", dir + "/missing.pem", "\(server.url)/m"])
        XCTAssertEqual(pinFile.status, 66, pinFile.stderr)
        XCTAssertTrue(pinFile.stderr.contains("--pin-pubkey: cannot read '\(dir)/missing.pem'"), pinFile.stderr)
    }

    /// Runs swurl on a pty and answers every "password for the key" prompt with `secret`: the exit
    /// status, the number of prompts, and everything the terminal showed.
    private func runOnPty(_ arguments: [String]) throws -> (status: String, prompts: Int, shown: String) {
        let script = """
        import os, pty, sys
        pid, fd = pty.fork()
        if pid == 0:
            os.execv(sys.argv[1], sys.argv[1:])
        out, prompts = b'', 0
        while True:
            try:
                d = os.read(fd, 1024)
            except OSError:
                break
            if not d:
                break
            out += d
            if out.count(b'password for the key') > prompts:
                prompts += 1
                os.write(fd, b'secret\\n')
        _, status = os.waitpid(pid, 0)
        print(os.waitstatus_to_exitcode(status))
        print(prompts)
        print(out.decode(errors='replace'))
        """
        let out = try runPython(script, arguments: [TestPaths.binary] + arguments)
        let parts = out.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let prompts = Int(parts[1]) else { throw TestServerError("pty run: \(out)") }
        return (String(parts[0]), prompts, String(parts[2]))
    }

    /// Runs swurl with `arguments` on a pty and, at its first password prompt, presses Ctrl-C
    /// (`how` "ctrl-c"), Ctrl-\\ ("ctrl-backslash") or sends the signal named (`TERM`); returns
    /// its exit as Python words it (`-2`: by SIGINT), whether echo is on afterwards, and how many
    /// prompts showed: `-2 echo 1`.
    private func atThePrompt(_ how: String, _ arguments: [String]) throws -> String {
        let script = """
        import os, pty, sys, time, termios, signal
        how = sys.argv[1]
        pid, fd = pty.fork()
        if pid == 0:
            for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT): signal.signal(s, signal.SIG_DFL)
            os.execv(sys.argv[2], sys.argv[2:])
        out, end = b'', time.time() + 20
        while b'password for' not in out and time.time() < end:
            out += os.read(fd, 1024)
        time.sleep(0.2)
        if how == 'ctrl-c': os.write(fd, b'\\x03')
        elif how == 'ctrl-backslash': os.write(fd, b'ab\\x1c')
        else: os.kill(pid, getattr(signal, 'SIG' + how))
        while True:
            try:
                more = os.read(fd, 1024)
            except OSError:
                break
            if not more:
                break
            out += more
        _, status = os.waitpid(pid, 0)
        print(os.waitstatus_to_exitcode(status), 'echo' if termios.tcgetattr(fd)[3] & termios.ECHO else 'noecho',
              out.count(b'password for'))
        """
        return try runPython(script, arguments: [how, TestPaths.binary, "--no-config"] + arguments)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Ctrl-C at the key's password prompt ends swurl (by SIGINT, 130 in a shell) with echo back on: getpass(3) took
    /// it for nothing, and Enter then failed as a wrong password (64).
    func testCtrlCAtTheKeyPromptEndsIt() throws {
        let pki = try CertificateFactory.shared()
        let out = try atThePrompt("ctrl-c", ["--cacert", pki.path("root.pem"), "--cert", pki.path("client-chain.pem"),
                                         "--key", pki.path("client-enc.key"), "https://127.0.0.1:9/x"])
        XCTAssertEqual(out, "-2 echo 1", "ended by SIGINT (130 in a shell)")
    }

    /// A signal that ends the process at a password prompt (the key's, asked while the options
    /// are read; `-a`'s) ends it by that signal with echo back on: SIGTERM and SIGHUP before a
    /// request armed the orderly stop, SIGQUIT (Ctrl-\\) and SIGUSR1 at any prompt left the
    /// terminal without echo.
    func testASignalAtAPasswordPromptLeavesEchoOn() throws {
        let pki = try CertificateFactory.shared()
        let key = ["--cacert", pki.path("root.pem"), "--cert", pki.path("client-chain.pem"), "--key", pki.path("client-enc.key"),
                   "https://127.0.0.1:9/x"]
        let cases: [(String, [String], String)] = [
            ("TERM", key, "-15"), ("HUP", key, "-1"), ("ctrl-backslash", key, "-3"), ("USR1", key, "-10"),
            ("ctrl-backslash", ["-a", "ann", "http://127.0.0.1:9/x"], "-3"), ("USR1", ["-a", "ann", "http://127.0.0.1:9/x"], "-10"),
        ]
        for (how, arguments, status) in cases {
            XCTAssertEqual(try atThePrompt(how, arguments), status + " echo 1", "\(how) \(arguments[0])")
        }
    }

    /// Ctrl-C at a batch's key prompt stops the batch after one prompt: the line asked again at
    /// once (a second prompt, already interrupted).
    func testCtrlCAtABatchsKeyPromptAsksOnce() throws {
        let pki = try CertificateFactory.shared()
        let input = TestPaths.temporaryDirectory() + "/lines.txt"
        try "https://127.0.0.1:9/x\n".write(toFile: input, atomically: true, encoding: .utf8)
        XCTAssertEqual(try atThePrompt("ctrl-c", ["batch", input, "--cacert", pki.path("root.pem"), "--cert", pki.path("client-chain.pem"),
                                              "--key", pki.path("client-enc.key")]), "-2 echo 1")
    }

    /// On a terminal an encrypted client key asks for its password (no echo) instead of failing.
    func testEncryptedKeyPromptsOnATerminal() throws {
        let pki = try CertificateFactory.shared()
        let server = try TLSTestServer(chain: pki.path("leaf-chain.pem"), key: pki.path("leaf.key"), clientCA: pki.path("root.pem"))
        let r = try runOnPty(["--cacert", pki.path("root.pem"), "--cert", pki.path("client-chain.pem"),
                              "--key", pki.path("client-enc.key"), "\(server.url)/prompt"])
        XCTAssertEqual(r.status, "0", r.shown)
        XCTAssertEqual(r.prompts, 1, r.shown)
        XCTAssertFalse(r.shown.contains("secret"), "the password must not be echoed: \(r.shown)")
        XCTAssertTrue(r.shown.contains("200 OK"), r.shown)
    }

    /// A batch line that gives only its own `--cert` for the batch's encrypted `--key` keeps
    /// the batch's `--key-password` (the key is the same): it was dropped, and the line refused
    /// (64, "encrypted and no password was given").
    func testALinesOwnCertKeepsTheBatchsKeyPassword() throws {
        let pki = try CertificateFactory.shared()
        let server = try TLSTestServer(chain: pki.path("leaf-chain.pem"), key: pki.path("leaf.key"), clientCA: pki.path("root.pem"))
        let input = TestPaths.temporaryDirectory() + "/lines.txt"
        try "\(server.url)/own-cert --cert \(pki.path("client-chain.pem"))\n".write(toFile: input, atomically: true, encoding: .utf8)
        let r = try runSwurl(["batch", input, "--cacert", pki.path("root.pem"), "--key", pki.path("client-enc.key"),
                              "--key-password", "secret"])
        XCTAssertEqual(r.status, 0, r.text + r.stderr)
        XCTAssertTrue(r.text.hasPrefix("1 200 "), r.text)
    }

    /// A batch asks for an encrypted key's password once, also for lines with options of their own.
    func testBatchAsksForTheKeyPasswordOnce() throws {
        let pki = try CertificateFactory.shared()
        let server = try TLSTestServer(chain: pki.path("leaf-chain.pem"), key: pki.path("leaf.key"), clientCA: pki.path("root.pem"))
        let input = TestPaths.temporaryDirectory() + "/lines.txt"
        try ["\(server.url)/one", "\(server.url)/two X-Line:2", "\(server.url)/three --timeout 30"].joined(separator: "\n")
            .write(toFile: input, atomically: true, encoding: .utf8)
        let r = try runOnPty(["batch", input, "-q", "--parallel", "1", "--cacert", pki.path("root.pem"),
                              "--cert", pki.path("client-chain.pem"), "--key", pki.path("client-enc.key")])
        XCTAssertEqual(r.status, "0", r.shown)
        XCTAssertEqual(r.prompts, 1, r.shown)
        for (n, path) in [(1, "/one"), (2, "/two"), (3, "/three")] {
            XCTAssertTrue(r.shown.contains("\(n) 200 "), "line \(n) (\(path)): \(r.shown)")
        }
    }

    func testVerboseShowsTLSDetailsOnStderrOnly() throws {
        let s = try Servers.get()
        let r = try runSwurl(["-v", "--cacert", s.pki.path("root.pem"), "https://localhost:\(s.good.port)/v"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("* TLS: TLSv1.3, TLS_"), r.stderr)
        XCTAssertTrue(r.stderr.contains("ALPN http/1.1"), r.stderr)
        XCTAssertTrue(r.stderr.contains("certificate: CN=localhost (issuer CN=swurl Test Intermediate; EC P-256"), r.stderr)
        XCTAssertFalse(r.text.contains("* TLS"))
        let v12 = try runSwurl(["-v", "--tls-max", "1.2", "--cacert", s.pki.path("root.pem"), "\(s.good.url)/v"])
        XCTAssertEqual(v12.status, 0, v12.stderr)
        XCTAssertTrue(v12.stderr.contains("* TLS: TLSv1.2, ECDHE-ECDSA-"), v12.stderr)
        let quiet = try runSwurl(["--cacert", s.pki.path("root.pem"), "\(s.good.url)/v"])
        XCTAssertEqual(quiet.text, "ok")
        XCTAssertEqual(quiet.stderr, "")
    }

    func testCiphersAndVersionLimits() throws {
        let pki = try CertificateFactory.shared()
        let server12 = try TLSTestServer(chain: pki.path("leaf-chain.pem"), key: pki.path("leaf.key"), maxTLS: "1.2")
        let ca = ["--cacert", pki.path("root.pem")]
        let refused = try runSwurl(ca + ["--tls-min", "1.3", "\(server12.url)/t"])
        XCTAssertEqual(refused.status, 1, refused.stderr)
        XCTAssertEqual(server12.connection(after: 0)?.bytes, 0)
        let cipher = try runSwurl(ca + ["-v", "--ciphers", "ECDHE-ECDSA-AES128-GCM-SHA256", "\(server12.url)/t"])
        XCTAssertEqual(cipher.status, 0, cipher.stderr)
        XCTAssertTrue(cipher.stderr.contains("ECDHE-ECDSA-AES128-GCM-SHA256"), cipher.stderr)
        // A name OpenSSL does not know is a usage error before connecting (libcurl failed at
        // connect time, exit 1; inside a list OpenSSL dropped it without a word).
        let before = server12.connections.count
        for list in ["NOPE", "ECDHE-ECDSA-AES128-GCM-SHA256:NOPE", "TLS_NOPE"] {
            let r = try runSwurl(ca + ["--ciphers", list, "\(server12.url)/t"])
            XCTAssertEqual(r.status, 64, "\(list): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("--ciphers: OpenSSL knows no cipher"), r.stderr)
        }
        XCTAssertEqual(server12.connections.count, before, "nothing was sent")
    }

    /// TLS 1.2 at least, by default: a server that speaks only TLS 1.1 (a legacy suite, an RSA
    /// certificate the client trusts) gets no request; libcurl's own minimum is TLS 1.0.
    func testALegacyTLS11ServerIsRefusedByDefault() throws {
        let dir = TestPaths.temporaryDirectory()
        _ = try runProcess("/usr/bin/openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", dir + "/k.pem",
                                                "-out", dir + "/c.pem", "-days", "30", "-subj", "/CN=localhost",
                                                "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"])
        let server = try TLSTestServer(chain: dir + "/c.pem", key: dir + "/k.pem", maxTLS: "1.1")
        let r = try runSwurl(["--cacert", dir + "/c.pem", server.url + "/x"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("share no TLS version"), r.stderr)
        let c = try XCTUnwrap(server.connection(after: 0))
        XCTAssertFalse(c.handshake, "\(c)")
        XCTAssertEqual(c.bytes, 0)
    }

    /// A --pin-cert none of the presented certificates is, on a chain that does not verify: the
    /// hint said "pin the server with --pin-cert FILE" to someone who had; it lists what was
    /// presented and pinned. A key pin (no anchor) on an expired chain keeps the chain's hint.
    func testAnUnrelatedPinnedCertificateIsNamedInTheChainFailure() throws {
        let pki = try CertificateFactory.shared()
        let server = try TLSTestServer(chain: pki.path("leaf-chain.pem"), key: pki.path("leaf.key"))
        let r = try runSwurl(["--pin-cert", pki.path("selfsigned.pem"), "\(server.url)/x"])
        XCTAssertEqual(r.status, 7, r.stderr)
        XCTAssertTrue(r.stderr.contains("TLS chain check failed"), r.stderr)
        XCTAssertTrue(r.stderr.contains("none of the certificates the server presented is pinned"), r.stderr)
        XCTAssertTrue(r.stderr.contains("swurl: hint: pinned: certificate "), r.stderr)
        XCTAssertFalse(r.stderr.contains("pin the server with --pin-cert"), r.stderr)
        let expired = try TLSTestServer(chain: pki.path("expired-chain.pem"), key: pki.path("expired.key"))
        let rootPin = try pki.pin("root.pem")
        let e = try runSwurl(["--cacert", pki.path("root.pem"), "--pin-pubkey", rootPin, "\(expired.url)/x"])
        XCTAssertEqual(e.status, 7, e.stderr)
        XCTAssertTrue(e.stderr.contains("TLS chain check failed") && e.stderr.contains("makes an expired (or not yet valid) certificate valid"), e.stderr)
    }

    /// A client certificate is an identity bound to the first URL's origin, as credentials are:
    /// a redirect to another origin connects without it (an origin that requires one refuses).
    func testAClientCertificateIsNotPresentedToARedirectsOtherOrigin() throws {
        let pki = try CertificateFactory.shared()
        let other = try CaptureServer(tls: (pki.path("leaf-chain.pem"), pki.path("leaf.key")), clientCA: pki.path("root.pem"))
        let first = try NginxServer(tls: (pki.path("leaf-chain.pem"), pki.path("leaf.key")), serverConfig: """
            location = /away { return 302 https://localhost:\(other.server.port)/landed; }
            """)
        let cert = ["--cacert", pki.path("root.pem"), "--cert", pki.path("client-chain.pem"), "--key", pki.path("client.key")]
        let direct = try runSwurl(cert + [other.base.replacingOccurrences(of: "127.0.0.1", with: "localhost") + "/direct"])
        XCTAssertEqual(direct.status, 0, direct.stderr)
        XCTAssertEqual(other.peerSubject, "commonName=swurl client")
        try? FileManager.default.removeItem(atPath: other.capturePath + ".peer")
        let followed = try runSwurl(cert + ["-F", first.url("/away")])
        XCTAssertNotEqual(followed.status, 0, "the redirect's origin got no certificate: " + followed.stderr)
        XCTAssertEqual(other.peerSubject, "", "no identity shown to the redirect's origin")
        XCTAssertTrue(first.logLines().contains { $0.contains("/away") }, "\(first.logLines())")
        XCTAssertFalse(other.handshakeErrors.isEmpty, "the redirect reached the other origin, which wanted a certificate")
        // The message names the hop and says why it went without: "give --cert" (given) misled.
        XCTAssertTrue(followed.stderr.contains("(at https://localhost:\(other.server.port), after 1 redirect from https://127.0.0.1:"), followed.stderr)
        XCTAssertTrue(followed.stderr.contains("--cert goes to the first URL's origin only"), followed.stderr)
        XCTAssertFalse(followed.stderr.contains("give --cert"), followed.stderr)
    }
}
