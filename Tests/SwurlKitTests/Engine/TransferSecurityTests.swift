import XCTest
import SwurlTestSupport
@testable import SwurlOutput
@testable import SwurlEngine
@testable import SwurlResponseSerialization
@testable import SwurlRequestSerialization
@testable import SwurlSecurity
@testable import SwurlCore

/// The engine as the REPL and batch modes will use it: several transfers in one process.
final class TransferSecurityTests: XCTestCase {
    final class Collector: TransferDelegate {
        var body: [UInt8] = []
        var summaries: [TLSSummary] = []
        func transferDidSendRequestHead(_ bytes: [UInt8]) throws {}
        func transferDidSendRequestBody(_ bytes: UnsafeRawBufferPointer) throws {}
        func transferDidReceiveHead(_ head: HTTPResponseHead) throws {}
        func transferDidReceiveBody(_ bytes: UnsafeRawBufferPointer) throws { body += Array(bytes) }
        func transferDidVerifyTLS(_ summary: TLSSummary) { summaries.append(summary) }
    }

    private func policy(pin: String, ca: String) throws -> SecurityPolicy {
        var p = SecurityPolicy()
        p.caFile = ca
        try p.addKeyPins(pin) { (path: String) throws(SwurlError) -> [UInt8] in try readWholeFile(path) }
        return p
    }

    private func send(_ url: String, _ security: SecurityPolicy) throws(SwurlError) -> Collector {
        var options = TransferOptions()
        options.security = security
        let collector = Collector()
        _ = try Transfer(request: HTTPRequest(method: "GET", url: url), options: options, delegate: collector).perform()
        return collector
    }

    /// A matching pin, then a wrong one against the same server: TLS session resumption or a
    /// reused connection must not let the second request skip the check.
    func testSecondTransferWithWrongPinIsRejected() throws {
        let pki = try CertificateFactory.shared()
        let server = try TLSTestServer(chain: pki.path("leaf-chain.pem"), key: pki.path("leaf.key"))
        let good = try policy(pin: try pki.pin("leaf.pem"), ca: pki.path("root.pem"))
        let wrong = try policy(pin: try pki.pin("selfsigned.pem"), ca: pki.path("root.pem"))

        let first = try send("\(server.url)/one", good)
        XCTAssertEqual(first.body, Array("ok".utf8))
        XCTAssertEqual(first.summaries.count, 1)
        XCTAssertEqual(first.summaries.first?.alpn, "http/1.1")

        XCTAssertThrowsError(try send("\(server.url)/two", wrong)) { error in
            guard case SwurlError.trust(let message, _) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(message.contains("TLS pin check failed for 127.0.0.1"), message)
        }
        XCTAssertEqual(server.connection(after: 1)?.handshake, false)
        XCTAssertEqual(server.connection(after: 1)?.bytes, 0)

        // And the good pin still works afterwards.
        XCTAssertEqual(try send("\(server.url)/three", good).body, Array("ok".utf8))
        XCTAssertEqual(ExitStatus(for: .trust("x")), .trustFailure)
    }
}
