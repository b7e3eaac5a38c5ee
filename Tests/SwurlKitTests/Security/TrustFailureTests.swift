import XCTest
@testable import SwurlSecurity
@testable import SwurlCore

final class TrustFailureTests: XCTestCase {
    func testPinFailureListsPresentedAndPinnedPins() {
        let f = TrustFailure(check: .pin, host: "api.example.org", reason: "no certificate of the verified path matches a pin",
                             presented: [.init(subject: "CN=api.example.org", pin: "sha256//LEAF="),
                                         .init(subject: "CN=CA", pin: "sha256//CA=")],
                             pinned: ["sha256//OLD="])
        guard case .trust(let message, let hint?) = f.error else { return XCTFail("\(f.error)") }
        XCTAssertEqual(message, "TLS pin check failed for api.example.org: no certificate of the verified path matches a pin")
        XCTAssertTrue(hint.contains("\n  sha256//LEAF=  CN=api.example.org\n  sha256//CA=  CN=CA\n"), hint)
        XCTAssertTrue(hint.contains("swurl: hint: pinned: sha256//OLD="), hint)
        XCTAssertEqual(ExitStatus(for: f.error), .trustFailure)
    }

    func testChainAndHostFailuresNameTheCheckAndGiveAOneLineHint() {
        let chain = TrustFailure(check: .chain, host: "h", reason: "self-signed certificate", presented: [], pinned: [])
        XCTAssertEqual(chain.error.message, "TLS chain check failed for h: self-signed certificate")
        XCTAssertFalse(chain.error.hint?.contains("\n") ?? true)
        let host = TrustFailure(check: .host, host: "10.0.0.1", reason: "mismatch", presented: [], pinned: [],
                                certificateNames: ["DNS:a.example"])
        XCTAssertTrue(host.error.hint?.contains("DNS:a.example") == true)
        // The leaf's key with --no-verify-host (a CA's would pass any name that CA signed).
        XCTAssertTrue(host.error.hint?.hasSuffix("pin the server's own key and add --no-verify-host --pin-scope leaf") == true, host.error.hint ?? "")
    }

    /// The host hint names what a URL could use: an e-mail name (`email:ann@example.org`) read as
    /// `user:password@host` was shown masked (`email:****@example.org`), and never matches a host.
    func testHostHintNamesOnlyHostNamesAndAddresses() {
        let host = TrustFailure(check: .host, host: "h", reason: "mismatch", presented: [], pinned: [],
                                certificateNames: ["email:admin@example.com", "DNS:ok.example", "URI:https://x.example/", "IP Address:10.0.0.1"])
        let hint = host.error.hint ?? ""
        XCTAssertTrue(hint.hasPrefix("the certificate is for DNS:ok.example, IP Address:10.0.0.1;"), hint)
        XCTAssertFalse(hint.contains("****"), hint)
        let none = TrustFailure(check: .host, host: "h", reason: "mismatch", presented: [], pinned: [],
                                certificateNames: ["email:admin@example.com"])
        XCTAssertTrue(none.error.hint?.hasPrefix("the certificate is for no host name or IP address") == true, none.error.hint ?? "")
    }

    /// A pin failure on a redirect's server: the pins hold for every hop, so "update the pin"
    /// (to that server's alone) failed the first hop; other hints are left as they are.
    func testAPinHintAfterARedirectSaysThePinsHoldForEveryHop() {
        let f = TrustFailure(check: .pin, host: "b", reason: "no certificate of the verified path matches a pin",
                             presented: [.init(subject: "CN=b", pin: "sha256//B=")], pinned: ["sha256//A="])
        guard case .trust(_, let hint?) = f.error else { return XCTFail("\(f.error)") }
        let after = TrustFailure.hintAfterRedirect(hint)
        XCTAssertTrue(after.contains("swurl: hint: the pins hold for every hop: to trust this server too, give its pin beside the others (--pin-pubkey again, or joined by ';'"), after)
        XCTAssertFalse(after.contains("update the pin"), after)
        XCTAssertEqual(TrustFailure.hintAfterRedirect("trust its CA with --cacert FILE"), "trust its CA with --cacert FILE")
    }

    /// A hostile certificate's thousand names made a 90 KB hint: ten are shown, and how many
    /// more. A connection routed by --resolve or --proxy offers `swurl certs` with them.
    func testHostHintsAreBoundedAndCertsKeepsTheRouting() {
        var host = TrustFailure(check: .host, host: "h", reason: "mismatch", presented: [], pinned: [],
                                certificateNames: (0..<1200).map { "DNS:" + String(repeating: "n", count: 70) + "\($0).example" })
        host.server = "h:8443"
        let hint = host.error.hint ?? ""
        XCTAssertTrue(hint.contains("n9.example and 1190 more;"), hint)
        XCTAssertFalse(hint.contains("n10.example"), hint)
        XCTAssertLessThan(hint.utf8.count, 1200)
        var chain = TrustFailure(check: .chain, host: "h", reason: "self-signed certificate", presented: [], pinned: [])
        chain.server = "h:8443"
        XCTAssertTrue(chain.error.hint?.contains("'swurl certs https://h:8443' shows") == true, chain.error.hint ?? "")
        chain.routing = ["--resolve", "--proxy"]
        XCTAssertTrue(chain.error.hint?.contains("'swurl certs https://h:8443' with this request's --resolve and --proxy shows") == true,
                      chain.error.hint ?? "")
    }

    /// A chain fault no trust store mends, and a leaf sent without its intermediate, each get
    /// their own hint (both got "trust its CA with --cacert", which could not help the first).
    func testChainHintsFitTheFault() {
        let constrained = TrustFailure(check: .chain, host: "h", reason: "permitted subtree violation (depth 0)", presented: [], pinned: [])
        XCTAssertTrue(constrained.error.hint?.hasPrefix("the chain's own limits") == true, constrained.error.hint ?? "")
        let alone = TrustFailure(check: .chain, host: "h", reason: "unable to get local issuer certificate (depth 0)",
                                 presented: [.init(subject: "CN=h", pin: "sha256//X=")], pinned: [])
        XCTAssertTrue(alone.error.hint?.hasPrefix("the server sent its certificate alone, and its issuer is not trusted") == true, alone.error.hint ?? "")
        // OpenSSL 3's words for a certificate used for what its key usage forbids.
        let purpose = TrustFailure(check: .chain, host: "h", reason: "unsuitable certificate purpose (depth 0)", presented: [], pinned: [])
        XCTAssertTrue(purpose.error.hint?.hasPrefix("the chain's own limits") == true, purpose.error.hint ?? "")
        let both = TrustFailure(check: .chain, host: "h", reason: "unable to get local issuer certificate (depth 1)",
                                presented: [.init(subject: "CN=h", pin: "sha256//X="), .init(subject: "CN=i", pin: "sha256//Y=")], pinned: [])
        XCTAssertTrue(both.error.hint?.hasPrefix("trust its CA with --cacert FILE") == true, both.error.hint ?? "")
    }

    func testServerNamesCannotDriveTheTerminal() {
        let f = TrustFailure(check: .pin, host: "h", reason: "r", presented: [.init(subject: "CN=\u{1B}[31mred\u{9B}", pin: "sha256//X=")],
                             pinned: [])
        XCTAssertFalse(f.error.hint?.contains("\u{1B}") ?? true)
        XCTAssertTrue(f.error.hint?.contains("CN=\\x1B[31mred\\x9B") == true, f.error.hint ?? "")
    }

    func testVerboseLine() {
        let s = TLSSummary(version: "TLSv1.3", cipher: "TLS_AES_128_GCM_SHA256", alpn: nil, certificate: "CN=x",
                           verification: "chain verified")
        XCTAssertEqual(s.line, "* TLS: TLSv1.3, TLS_AES_128_GCM_SHA256, ALPN none; certificate: CN=x; chain verified")
    }
}
