import XCTest
import Foundation
import SwurlTestSupport

/// TLS and pinning at their edges, against real TLS servers on 127.0.0.1: the REPL's client
/// certificate, `--curl` with an encrypted key, pins `reach` and anonymous suites could slip
/// past, the host checks libcurl makes after the handshake, and files and pins that are not
/// what they look like.
final class TLSEdgeTests: XCTestCase {
    /// A TLS 1.2 server that asks for a renegotiation on each connection's second request
    /// (Tests/Servers/renegotiate.c, built here with the C compiler the toolchain brings).
    private func renegotiatingServer(_ pki: CertificateFactory) throws -> (server: ServerProcess, log: String) {
        let dir = TestPaths.temporaryDirectory()
        let compilers = ["/usr/bin/cc", "/usr/bin/clang", "/usr/bin/gcc"]
            + (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { $0 + "/clang" }
        guard let cc = compilers.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw TestServerError("no C compiler (cc or clang) to build Tests/Servers/renegotiate.c")
        }
        _ = try runProcess(cc, ["-O1", "-o", dir + "/renegotiate", TestPaths.server("renegotiate.c"), "-lssl", "-lcrypto"])
        let log = dir + "/renegotiate.log"
        let server = try ServerProcess(executable: dir + "/renegotiate", arguments: [pki.path("leaf-chain.pem"), pki.path("leaf.key"), log])
        return (server, log)
    }

    /// A server's TLS 1.2 renegotiation on a connection a later transfer reused (the next batch
    /// line, a redirect's hop) ran the certificate check of the transfer that had opened it,
    /// which was gone: a crash, or a verdict read from freed memory. swurl refuses to
    /// renegotiate (TLS 1.3 has none): the connection ends, and libcurl sends the request again
    /// on a new one, whose handshake is checked.
    func testARenegotiationIsRefusedAndTheRequestGoesOnANewConnection() throws {
        let pki = try CertificateFactory.shared()
        let (server, log) = try renegotiatingServer(pki)
        defer { server.stop() }
        let dir = TestPaths.temporaryDirectory()
        let lines = (1...4).map { "https://127.0.0.1:\(server.port)/l\($0)" }
        try (lines.joined(separator: "\n") + "\n").write(toFile: dir + "/lines", atomically: true, encoding: .utf8)
        let pin = try pki.pin("leaf.pem")
        let r = try runSwurl(["batch", dir + "/lines", "--cacert", pki.path("root.pem"), "--pin-pubkey", pin,
                              "--parallel", "1", "--http1.1", "--jsonl"])
        XCTAssertEqual(r.status, 0, r.text + r.stderr)
        XCTAssertEqual(r.text.components(separatedBy: "\"status\":200").count - 1, 4, r.text)
        let events = try String(contentsOfFile: log, encoding: .utf8)
        XCTAssertTrue(events.contains("renegotiation refused"), events)
        XCTAssertFalse(events.contains("renegotiated"), events)
        // Every line was answered, each by a request of its own (the refused one sent again).
        for n in 1...4 { XCTAssertTrue(events.contains("request /l\(n)\n"), events) }
    }

    /// A REPL's default client certificate is a credential of the base's origin: a line to
    /// another origin is sent without it (before, it was presented to every origin, while `-a`
    /// stayed behind).
    func testTheREPLsClientCertificateStaysWithItsOrigin() throws {
        let pki = try CertificateFactory.shared()
        let base = try TLSTestServer(chain: pki.path("leaf-chain.pem"), key: pki.path("leaf.key"), clientCA: pki.path("root.pem"))
        let other = try TLSTestServer(chain: pki.path("leaf-chain.pem"), key: pki.path("leaf.key"), clientCA: pki.path("root.pem"))
        let r = try runSwurl(["--no-config", "repl", base.url, "--cacert", pki.path("root.pem"),
                              "--cert", pki.path("client-chain.pem"), "--key", pki.path("client.key")],
                             stdin: Data("/same\n\(other.url)/other\n".utf8))
        XCTAssertTrue(r.text.hasPrefix("ok"), r.text + r.stderr)
        XCTAssertTrue(r.stderr.contains("the default credentials (--cert) are not sent to https://127.0.0.1:\(other.port)"), r.stderr)
        XCTAssertEqual(base.connection(after: 0)?.handshake, true, "\(base.connections)")
        // The other origin asks for a certificate and gets none: its handshake fails, nothing is sent.
        XCTAssertEqual(other.connection(after: 0)?.handshake, false, "\(other.connections)")
        XCTAssertEqual(other.connection(after: 0)?.bytes, 0)
    }

    /// `--curl` and `--offline` send nothing: an encrypted key's password is not asked for (a
    /// typed one ended up in the printed command as `--pass`); one given with --key-password is
    /// printed as given.
    func testCurlWithAnEncryptedKeyAsksForNoPassword() throws {
        let pki = try CertificateFactory.shared()
        let key = ["--cert", pki.path("client-chain.pem"), "--key", pki.path("client-enc.key")]
        let printed = try runSwurl(["--no-config", "--curl"] + key + ["https://127.0.0.1:9/x"])
        XCTAssertEqual(printed.status, 0, printed.stderr)
        XCTAssertFalse(printed.text.contains("--pass"), printed.text)
        XCTAssertEqual(try runSwurl(["--no-config", "--offline"] + key + ["https://127.0.0.1:9/x"]).status, 0)
        let given = try runSwurl(["--no-config", "--curl"] + key + ["--key-password", "secret", "https://127.0.0.1:9/x"])
        XCTAssertTrue(given.text.contains("--pass secret"), given.text)
    }

    /// `reach` refuses a pin on plain http, as every other door does (it reported "reachable").
    func testReachRefusesAPinOnPlainHTTP() throws {
        let pki = try CertificateFactory.shared()
        let r = try runSwurl(["--no-config", "reach", try HTTPBin.url("/"), "--pin-pubkey", try pki.pin("leaf.pem")])
        XCTAssertEqual(r.status, 7, r.text + r.stderr)
        XCTAssertTrue(r.stderr.contains("is plain http: the pin"), r.stderr)
    }

    /// With a pin, anonymous suites stay out whatever --ciphers asks: a server sending no
    /// certificate never reaches the pin check, and the request went out (exit 0).
    func testAPinRefusesAServerWithoutACertificate() throws {
        let port = try ServerProcess.freePort()
        let server = try ServerProcess(executable: "/usr/bin/openssl",
                                       arguments: ["s_server", "-accept", "127.0.0.1:{PORT}", "-nocert", "-cipher", "aNULL:@SECLEVEL=0",
                                                   "-tls1_2", "-www"],
                                       port: port, readiness: .announcesPort { $0.hasPrefix("ACCEPT") ? port : nil })
        defer { server.stop() }
        let pki = try CertificateFactory.shared()
        let url = "https://127.0.0.1:\(port)/anon"
        let anonymous = ["--ciphers", "aNULL:@SECLEVEL=0", "--tls-max", "1.2", "-k", "--no-verify-host"]
        XCTAssertEqual(try runSwurl(["--no-config", url] + anonymous).status, 0, "the server answers an anonymous handshake")
        let pinned = try runSwurl(["--no-config", url, "--pin-pubkey", try pki.pin("leaf.pem")] + anonymous)
        XCTAssertNotEqual(pinned.status, 0, pinned.text)
        XCTAssertFalse(pinned.text.contains("<HTML>"), pinned.text)
    }

    /// The host check in the handshake matches libcurl's after it: a trailing dot is not part of
    /// the name (the request failed with a host mismatch; curl's succeeds).
    func testAHostWithATrailingDotMatchesItsCertificate() throws {
        let pki = try CertificateFactory.shared()
        let server = try TLSTestServer(chain: pki.path("leaf-chain.pem"), key: pki.path("leaf.key"))
        let r = try runSwurl(["--no-config", "--cacert", pki.path("root.pem"), "--resolve", "localhost.:\(server.port):127.0.0.1",
                              "https://localhost.:\(server.port)/dot"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.text, "ok")
    }

    /// A server that sends its leaf without the intermediate: the hint says so and names
    /// --cacert-add (it said to trust the CA with --cacert, which the run already did); adding
    /// the intermediate fixes it.
    func testALeafSentAloneGetsAHintNamingTheMissingIntermediate() throws {
        let pki = try CertificateFactory.shared()
        let server = try TLSTestServer(chain: pki.path("leaf.pem"), key: pki.path("leaf.key"))
        let r = try runSwurl(["--no-config", "--cacert", pki.path("root.pem"), server.url + "/alone"])
        XCTAssertEqual(r.status, 7, r.stderr)
        XCTAssertTrue(r.stderr.contains("swurl: hint: the server sent its certificate alone"), r.stderr)
        let added = try runSwurl(["--no-config", "--cacert", pki.path("root.pem"), "--cacert-add", pki.path("int.pem"), server.url + "/alone"])
        XCTAssertEqual(added.status, 0, added.stderr)
    }

    /// Pins and files that are not what they look like get a usage error naming them, before
    /// any connection.
    func testMalformedPinsAndEndlessFilesAreNamed() throws {
        let pki = try CertificateFactory.shared()
        for pin in ["sha1//AAAA", "SHA256//AAAA", ";sha256//AAAA"] {
            let r = try runSwurl(["--no-config", "--pin-pubkey", pin, "https://127.0.0.1:9/"])
            XCTAssertEqual(r.status, 64, "\(pin): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("is neither a sha256// pin nor a file"), r.stderr)
        }
        let chain = try runSwurl(["--no-config", "-k", "--pin-scope", "chain", "--pin-pubkey", try pki.pin("leaf.pem"), "https://127.0.0.1:9/"])
        XCTAssertEqual(chain.status, 64, chain.stderr)
        XCTAssertTrue(chain.stderr.contains("--pin-scope chain needs a verified chain"), chain.stderr)
        // A missing file whose path holds // is a missing file (66), not a malformed pin.
        let path = try runSwurl(["--no-config", "--pin-pubkey", "./no-such-dir//key.pem", "https://127.0.0.1:9/"])
        XCTAssertEqual(path.status, 66, path.stderr)
        let password = try runSwurl(["--no-config", "--key-password", "x", "https://127.0.0.1:9/"])
        XCTAssertEqual(password.status, 64, password.stderr)
        XCTAssertTrue(password.stderr.contains("--key-password decrypts the key of --key or --cert, and neither is given"), password.stderr)
        for option in ["--pin-pubkey", "--pin-cert", "--cacert-add"] {
            let r = try runSwurl(["--no-config", option, "/dev/zero", "https://127.0.0.1:9/"])
            XCTAssertEqual(r.status, 66, "\(option): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("larger than"), r.stderr)
        }
    }

    /// A batch line that drops the batch's client certificate (--no-cert --no-key) gets no key
    /// password either (the batch's was put back, and the line failed with 64).
    func testABatchLineDroppingTheClientCertificateRuns() throws {
        let pki = try CertificateFactory.shared()
        let lines = TestPaths.temporaryDirectory() + "/lines"
        try Data("\(try HTTPBin.url("/get")) --no-cert --no-key\n".utf8).write(to: URL(fileURLWithPath: lines))
        let r = try runSwurl(["--no-config", "batch", lines, "--cert", pki.path("client-chain.pem"), "--key", pki.path("client-enc.key"),
                              "--key-password", "secret"])
        XCTAssertEqual(r.status, 0, r.text + r.stderr)
    }

    /// Regression: a batch with --limit-rate over HTTP/2 failed most lines ("libcurl rejected an
    /// option": libcurl 7.88 refuses CURLOPT_BUFFERSIZE on a handle an HTTP/2 transfer used, and
    /// batch lines reuse handles), and a handle given a small buffer, kept for a later line, made
    /// libcurl read past it (heap corruption, crashes). Such lines take a handle of their own.
    func testABatchWithLimitRateOverHTTP2RunsEveryLine() throws {
        let pki = try CertificateFactory.shared()
        let nginx = try NginxServer(http2: true, tls: (pki.path("leaf-chain.pem"), pki.path("leaf.key")))
        let lines = TestPaths.temporaryDirectory() + "/lines"
        let plain = Array(repeating: nginx.url("/small.txt"), count: 20)
        try Data((plain + plain.map { $0 + " --limit-rate 300K" } + plain).joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: lines))
        for extra in [["--limit-rate", "10M"], []] {
            let r = try runSwurl(["--no-config", "batch", lines, "--cacert", pki.path("root.pem"), "--parallel", "4", "--jsonl"] + extra)
            XCTAssertEqual(r.status, 0, "\(extra): " + r.stderr)
            let results = r.text.split(separator: "\n")
            XCTAssertEqual(results.count, 60, r.text)
            XCTAssertEqual(results.filter { $0.contains("\"exit\":0") }.count, 60, String(r.text.prefix(2000)))
            XCTAssertTrue(results.allSatisfy { $0.contains("\"http_version\":\"2\"") }, String(r.text.prefix(600)))
        }
    }
}
