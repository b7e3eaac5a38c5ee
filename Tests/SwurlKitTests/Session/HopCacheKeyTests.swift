import XCTest
@testable import SwurlSession
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
        var variants: [SecurityPolicy] = []
        let base = SecurityPolicy()
        variants.append(base)
        var p = base
        p.allowsInvalidCertificates = true
        variants.append(p)
        p = base
        try p.addKeyPins("sha256//" + Base64.encode([UInt8](repeating: 1, count: 32))) { _ throws(SwurlError) in [] }
        variants.append(p)
        p = base
        try p.addKeyPins("sha256//" + Base64.encode([UInt8](repeating: 2, count: 32))) { _ throws(SwurlError) in [] }
        variants.append(p)
        p = base
        p.caFile = "/a"
        variants.append(p)
        p = base
        p.caPath = "/a"
        variants.append(p)
        p = base
        p.caFile = ""
        variants.append(p)
        p = base
        p.hostVerification = false
        variants.append(p)
        p = base
        p.minimumVersion = .v1_3
        variants.append(p)
        p = base
        p.ciphers = "ECDHE"
        variants.append(p)
        p = base
        p.clientCertificate = "/c.pem"
        variants.append(p)
        let texts = variants.map { HopCache.keyText($0) }
        XCTAssertEqual(Set(texts).count, texts.count)
    }
}
