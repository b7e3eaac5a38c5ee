import XCTest
@testable import SwurlEngine
import SwurlSecurity
import SwurlCore

/// The cache key's TLS and proxy material is written field by field (`HopCache.keyText`), not
/// by reflection: these tests fail when a field is added to the policy and not to the key, and
/// when two policies that differ write the same text.
final class HopCacheKeyTests: XCTestCase {
    func testEveryFieldOfThePolicyAndTheProxyIsInTheKeyText() {
        // Each field writes one "name..." line; a new stored property must get its own line.
        let policy = SecurityPolicy()
        let lines = HopCache.keyText(policy).split(separator: "\n").count
        let fields = Mirror(reflecting: policy).children.count - 1 + Mirror(reflecting: policy.defaultStore).children.count
        XCTAssertEqual(lines, fields, "SecurityPolicy gained or lost a field: HopCache.keyText must write it")
        XCTAssertEqual(HopCache.keyText(ProxySettings()).split(separator: "\n").count,
                       Mirror(reflecting: ProxySettings()).children.count)
    }

    func testPoliciesThatDifferWriteDifferentText() throws {
        func variant(_ change: (inout SecurityPolicy) throws -> Void) rethrows -> SecurityPolicy {
            var p = SecurityPolicy()
            try change(&p)
            return p
        }
        func pin(_ byte: UInt8) -> String { "sha256//" + Base64.encode([UInt8](repeating: byte, count: 32)) }
        let variants = [
            SecurityPolicy(),
            variant { $0.allowsInvalidCertificates = true },
            try variant { try $0.addKeyPins(pin(1)) { _ throws(SwurlError) in [] } },
            try variant { try $0.addKeyPins(pin(2)) { _ throws(SwurlError) in [] } },
            variant { $0.caFile = "/a" },
            variant { $0.caPath = "/a" },
            variant { $0.caFile = "" },
            variant { $0.hostVerification = false },
            variant { $0.minimumVersion = .v1_3 },
            variant { $0.ciphers = "ECDHE" },
            variant { $0.clientCertificate = "/c.pem" },
        ]
        let texts = variants.map { HopCache.keyText($0) }
        XCTAssertEqual(Set(texts).count, texts.count)
    }

    /// -4 and -6 choose where a name goes, as --resolve does: keyed apart (an IPv4 server's
    /// response answered -6); without them the key is what it was.
    func testTheAddressFamilyIsInTheKeyWhenGiven() {
        let request = HTTPRequest(method: "GET", url: "http://localhost:8080/x")
        var options = TransferOptions()
        let any = HopCache.key(request, options, nil)
        options.ipVersion = .v4
        let v4 = HopCache.key(request, options, nil)
        options.ipVersion = .v6
        let v6 = HopCache.key(request, options, nil)
        XCTAssertEqual(Set([any.variantDigest, v4.variantDigest, v6.variantDigest]).count, 3)
        XCTAssertEqual(Set([any.urlDigest, v4.urlDigest, v6.urlDigest]).count, 1, "one URL to invalidate")
    }
}
