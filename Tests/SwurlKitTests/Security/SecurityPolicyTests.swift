import XCTest
import SwurlTestSupport
@testable import SwurlOutput
@testable import SwurlResponseSerialization
@testable import SwurlSecurity
@testable import SwurlCore

final class SecurityPolicyTests: XCTestCase {
    private func noFiles(_ path: String) throws(SwurlError) -> [UInt8] { throw .inputFile("no files here: \(path)") }

    func testKeyPinsParseSeveralJoinedBySemicolons() throws {
        var p = SecurityPolicy()
        let a = "sha256//" + Base64.encode([UInt8](repeating: 1, count: 32))
        let b = "sha256//" + Base64.encode([UInt8](repeating: 2, count: 32))
        try p.addKeyPins("\(a); \(b);", readFile: noFiles)
        try p.addKeyPins(a, readFile: noFiles)
        XCTAssertEqual(p.keyPins, [a, b])
        XCTAssertTrue(p.hasPins)
    }

    func testMalformedPinsAreUsageErrors() {
        for bad in ["sha256//", "sha256//abc", "sha256//" + String(repeating: "A", count: 40), "sha256//%%%%",
                    "sha256//" + Base64.encode([UInt8](repeating: 1, count: 32)) + ";sha1//AAAA"] {
            var p = SecurityPolicy()
            XCTAssertThrowsError(try p.addKeyPins(bad, readFile: noFiles), bad) { error in
                guard case SwurlError.usage = error else { return XCTFail("\(bad): \(error)") }
            }
        }
    }

    /// Pins joined by ',' got the generic "44 base64 characters" hint: it names ';'.
    func testPinsJoinedByCommasAreToldOfSemicolons() {
        let a = "sha256//" + Base64.encode([UInt8](repeating: 1, count: 32))
        var p = SecurityPolicy()
        XCTAssertThrowsError(try p.addKeyPins("\(a),\(a)", readFile: noFiles)) { error in
            guard case SwurlError.usage(_, let hint) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(hint, "several pins are joined by ';' (as curl's --pinnedpubkey), not ','")
        }
    }

    func testPinFilesMatchTheOpenSSLPipeline() throws {
        let pki = try CertificateFactory.shared()
        let read = { (path: String) throws(SwurlError) -> [UInt8] in try readWholeFile(path) }
        for name in ["leaf", "int", "root", "selfsigned"] {
            for file in ["\(name).pem", "\(name).pub.pem"] {
                var p = SecurityPolicy()
                try p.addKeyPins(pki.path(file), readFile: read)
                XCTAssertEqual(p.keyPins, [try pki.pin("\(name).pem")], file)
            }
        }
        // DER public key and DER certificate (written beside the test, never into the PKI).
        let der = TestPaths.temporaryDirectory()
        try CertificateFactory.shell("openssl pkey -pubin -in '\(pki.path("leaf.pub.pem"))' -outform der -out leaf.pub.der && openssl x509 -in '\(pki.path("leaf.pem"))' -outform der -out leaf.der", in: der)
        for file in ["leaf.pub.der", "leaf.der"] {
            var p = SecurityPolicy()
            try p.addKeyPins(der + "/" + file, readFile: read)
            XCTAssertEqual(p.keyPins, [try pki.pin("leaf.pem")], file)
        }
        // A chain would pin its CA's key too (any server it issued for): refused, naming the
        // server's own certificate (it offered --pin-cert with the chain, which anchors the CA too).
        var chain = SecurityPolicy()
        XCTAssertThrowsError(try chain.addKeyPins(pki.path("leaf-chain.pem"), readFile: read)) { error in
            guard case .badData(let message, let hint)? = error as? SwurlError else { return XCTFail("\(error)") }
            XCTAssertTrue(message.contains("holds 2 certificates (a chain)"), message)
            XCTAssertTrue(hint?.hasPrefix("give the server's own certificate (the first of 'swurl certs URL --pem') or key") == true, hint ?? "")
            XCTAssertTrue(hint?.contains("a chain given to --pin-cert would make each of its certificates a trust anchor") == true, hint ?? "")
        }
        XCTAssertEqual(chain.keyPins, [])
        // Several public keys (a key and its backup) are pins as meant.
        try CertificateFactory.shell("cat '\(pki.path("leaf.pub.pem"))' '\(pki.path("root.pub.pem"))' > keys.pem", in: der)
        var keys = SecurityPolicy()
        try keys.addKeyPins(der + "/keys.pem", readFile: read)
        XCTAssertEqual(keys.keyPins, [try pki.pin("leaf.pem"), try pki.pin("root.pem")])
        var certs = SecurityPolicy()
        try certs.addPinnedCertificates(file: pki.path("leaf-chain.pem"), readFile: read)
        try certs.addPinnedCertificates(file: der + "/leaf.der", readFile: read)
        XCTAssertEqual(certs.pinnedCertificates.count, 2, "two distinct certificates, the DER one a duplicate")
    }

    func testCertificateDetailsMatchOpenSSL() throws {
        let pki = try CertificateFactory.shared()
        let certs = Certificate.parseAll(try readWholeFile(pki.path("leaf.pem")))
        XCTAssertEqual(certs.count, 1)
        let leaf = try XCTUnwrap(certs.first)
        XCTAssertEqual(leaf.fingerprint, try pki.fingerprint("leaf.pem"))
        XCTAssertEqual(leaf.pin, try pki.pin("leaf.pem"))
        XCTAssertEqual(leaf.subject, "CN=localhost")
        XCTAssertEqual(leaf.issuer, "CN=swurl Test Intermediate")
        XCTAssertEqual(leaf.subjectAlternativeNames, ["DNS:localhost", "IP Address:127.0.0.1"])
        XCTAssertEqual(leaf.keyDescription, "EC P-256")
        XCTAssertTrue(leaf.matches(host: "localhost"))
        XCTAssertTrue(leaf.matches(host: "127.0.0.1"))
        XCTAssertFalse(leaf.matches(host: "127.0.0.2"))
        XCTAssertFalse(leaf.matches(host: "example.org"))
        let expired = try XCTUnwrap(Certificate.parseAll(try readWholeFile(pki.path("expired.pem"))).first)
        XCTAssertTrue(expired.isExpired)
        XCTAssertLessThan(expired.daysLeft, 0)
        XCTAssertEqual(expired.notAfter, "2021-01-01 00:00:00 UTC")
        XCTAssertTrue(Certificate.parseAll(Array("not a certificate".utf8)).isEmpty)
        XCTAssertTrue(Certificate.parseAll([0x30, 0x82, 0xFF]).isEmpty)
    }

    func testHostCheckDefaultsFollowAFSecurityPolicy() throws {
        var p = SecurityPolicy()
        XCTAssertTrue(p.checksChain && p.checksHost)
        p.allowsInvalidCertificates = true
        XCTAssertFalse(p.checksChain)
        XCTAssertFalse(p.checksHost, "-k without pins lifts the host check")
        XCTAssertNotNil(p.weakeningWarning)
        try p.addKeyPins("sha256//" + Base64.encode([UInt8](repeating: 7, count: 32)), readFile: noFiles)
        XCTAssertTrue(p.checksHost, "with pins the host is still checked under -k")
        XCTAssertNil(p.weakeningWarning)
        p.hostVerification = false
        XCTAssertFalse(p.checksHost)
        var q = SecurityPolicy()
        q.caFile = "/etc/ssl/certs/ca-certificates.crt"
        XCTAssertNil(q.weakeningWarning, "--cacert weakens nothing")
        q.hostVerification = false
        XCTAssertNotNil(q.weakeningWarning)
    }

    func testInsecureVerifyHostWithoutPinsIsRefused() {
        var p = SecurityPolicy()
        p.allowsInvalidCertificates = true
        p.hostVerification = true
        XCTAssertThrowsError(try p.validate()) { error in
            guard case SwurlError.usage(_, let hint) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(hint?.contains("--pin-pubkey") == true)
        }
    }

    func testBase64RoundTrip() {
        for n in 0..<40 {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            XCTAssertEqual(Base64.decode(Base64.encode(bytes)), bytes)
        }
        XCTAssertEqual(Base64.encode(Array("foobar".utf8)), "Zm9vYmFy")
        XCTAssertEqual(Base64.encode(Array("fo".utf8)), "Zm8=")
        XCTAssertNil(Base64.decode("Zm9v!"))
        XCTAssertNil(Base64.decode("Z"))
        XCTAssertNil(Base64.decode("Zm=9"))
    }
}
