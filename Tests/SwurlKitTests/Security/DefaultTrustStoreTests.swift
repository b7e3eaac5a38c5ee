import XCTest
import SwurlTestSupport
@testable import SwurlOutput
@testable import SwurlResponseSerialization
@testable import SwurlSecurity
@testable import SwurlCore

final class DefaultTrustStoreTests: XCTestCase {
    private let dir = "/etc/ssl/certs", bundle = "/etc/ssl/certs/ca-certificates.crt"

    /// Paths are compared as strings here, plus the one link of the test: /etc/ssl/certs is
    /// also reachable as /usr/lib/ssl/certs and the bundle as /usr/lib/ssl/cert.pem.
    private func same(_ a: String, _ b: String) -> Bool {
        let canonical = ["/usr/lib/ssl/certs": dir, "/usr/lib/ssl/cert.pem": bundle]
        return (canonical[a] ?? a) == (canonical[b] ?? b)
    }

    private func where_(_ store: DefaultTrustStore, hashed: Bool) -> DefaultTrustStore.Locations {
        store.locations(defaultDirectory: dir, defaultFile: bundle, isHashed: { _ in hashed }, sameFile: same)
    }

    func testAHashedDefaultDirectoryIsUsedAloneWithoutTheBundle() {
        XCTAssertEqual(where_(DefaultTrustStore(), hashed: true), .init(directory: dir, files: []))
    }

    func testTheBundleIsTheFallbackWhereNoHashedDirectoryExists() {
        XCTAssertEqual(where_(DefaultTrustStore(), hashed: false), .init(directory: nil, files: [bundle]))
    }

    func testSSLCertDirAndFileReplaceTheirDefaults() {
        let both = DefaultTrustStore(variables: ["SSL_CERT_DIR": "/d", "SSL_CERT_FILE": "/f.pem"])
        XCTAssertEqual(where_(both, hashed: true), .init(directory: "/d", files: ["/f.pem"]))
        let fileOnly = DefaultTrustStore(variables: ["SSL_CERT_FILE": "/f.pem", "SSL_CERT_DIR": ""])
        XCTAssertEqual(where_(fileOnly, hashed: true), .init(directory: dir, files: ["/f.pem"]))
        XCTAssertEqual(where_(fileOnly, hashed: false), .init(directory: nil, files: ["/f.pem"]))
        let dirOnly = DefaultTrustStore(variables: ["SSL_CERT_DIR": "/d"])
        XCTAssertEqual(where_(dirOnly, hashed: true), .init(directory: "/d", files: [bundle]),
                       "another directory does not stand in for the system bundle")
    }

    /// Environments often export the system locations themselves (SSL_CERT_FILE pointing at
    /// ca-certificates.crt): that still takes the lazy directory, not the bundle.
    func testVariablesNamingTheSystemLocationsKeepTheLazyDirectory() {
        let system = DefaultTrustStore(variables: ["SSL_CERT_DIR": "/usr/lib/ssl/certs", "SSL_CERT_FILE": "/usr/lib/ssl/cert.pem"])
        XCTAssertEqual(where_(system, hashed: true), .init(directory: "/usr/lib/ssl/certs", files: []))
        XCTAssertEqual(where_(system, hashed: false), .init(directory: "/usr/lib/ssl/certs", files: ["/usr/lib/ssl/cert.pem"]))
        let fileOnly = DefaultTrustStore(variables: ["SSL_CERT_FILE": "/usr/lib/ssl/cert.pem"])
        XCTAssertEqual(where_(fileOnly, hashed: true), .init(directory: dir, files: []))
    }

    /// curl's, HTTPie's and OpenSSL's variables each name a file, read together (each path
    /// once): a user's own on top of a machine's exported system bundle is honoured whichever
    /// name it has; the system bundle beside the system directory is still skipped.
    func testEveryToolsVariableNamesAFile() {
        let all = DefaultTrustStore(variables: ["SSL_CERT_FILE": "/usr/lib/ssl/cert.pem", "CURL_CA_BUNDLE": bundle,
                                                "REQUESTS_CA_BUNDLE": "/corp.pem"])
        XCTAssertEqual(all.namedFiles.map(\.variable), ["CURL_CA_BUNDLE", "REQUESTS_CA_BUNDLE", "SSL_CERT_FILE"])
        XCTAssertEqual(where_(all, hashed: true), .init(directory: dir, files: ["/corp.pem"]))
        let same = DefaultTrustStore(variables: ["SSL_CERT_FILE": "/a.pem", "CURL_CA_BUNDLE": "/a.pem", "REQUESTS_CA_BUNDLE": ""])
        XCTAssertEqual(same.namedFiles.map(\.variable), ["CURL_CA_BUNDLE"])
        XCTAssertEqual(where_(same, hashed: false), .init(directory: nil, files: ["/a.pem"]))
    }

    func testSameFileFollowsLinks() throws {
        let d = TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: d) }
        FileManager.default.createFile(atPath: d + "/a", contents: Data("x".utf8))
        FileManager.default.createFile(atPath: d + "/b", contents: Data("x".utf8))
        try FileManager.default.createSymbolicLink(atPath: d + "/link", withDestinationPath: d + "/a")
        XCTAssertTrue(DefaultTrustStore.isSameFile(d + "/a", d + "/link"))
        XCTAssertFalse(DefaultTrustStore.isSameFile(d + "/a", d + "/b"))
        XCTAssertFalse(DefaultTrustStore.isSameFile(d + "/a", d + "/missing"))
    }

    func testHashLinkNames() {
        for good in ["1a2b3c4d.0", "ffffffff.12", "00000000.1"] {
            XCTAssertTrue(DefaultTrustStore.isHashLinkName(Array(good.utf8)), good)
        }
        for bad in ["1a2b3c4d", "1A2B3C4D.0", "1a2b3c4.0", "1a2b3c4d.", "1a2b3c4d.r0", "ca-certificates.crt", "1a2b3c4d.0.pem"] {
            XCTAssertFalse(DefaultTrustStore.isHashLinkName(Array(bad.utf8)), bad)
        }
    }

    func testHashLinksAreFoundOnlyInARehashedDirectory() throws {
        let pki = try CertificateFactory.shared()
        let d = TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: d) }
        try FileManager.default.copyItem(atPath: pki.path("root.pem"), toPath: d + "/root.pem")
        XCTAssertFalse(DefaultTrustStore.hasHashLinks(d))
        try CertificateFactory.shell("openssl rehash .", in: d)
        XCTAssertTrue(DefaultTrustStore.hasHashLinks(d))
        XCTAssertFalse(DefaultTrustStore.hasHashLinks(d + "/missing"))
    }
}
