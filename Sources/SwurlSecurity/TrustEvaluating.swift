@preconcurrency import COpenSSL
@preconcurrency import CShims
import SwurlCore

/// One check of a server's trust, run inside the TLS handshake.
protocol TrustEvaluating {
    /// Returns why `trust` fails the check, or nil when it passes.
    func evaluate(_ trust: ServerTrust) -> TrustFailure?
}

/// The server's certificates during the handshake: a view on OpenSSL's `X509_STORE_CTX` in
/// the certificate verification callback (SSL_CTX_set_cert_verify_callback(3)).
final class ServerTrust {
    let storeContext: OpaquePointer
    let host: String
    /// What the peer sent, leaf first (X509_STORE_CTX_get0_untrusted(3)) — proves nothing by itself.
    let presented: [Certificate]
    /// The leaf (X509_STORE_CTX_get0_cert(3)); its key is what the handshake proves possession of.
    let leaf: Certificate?
    /// The verified path, leaf to anchor, once `ChainTrustEvaluator` succeeded.
    var verifiedPath: [Certificate]?

    init(storeContext: OpaquePointer, host: String) {
        self.storeContext = storeContext
        self.host = host
        presented = ServerTrust.certificates(X509_STORE_CTX_get0_untrusted(storeContext))
        leaf = Certificate(borrowing: X509_STORE_CTX_get0_cert(storeContext))
    }

    /// Copies (with X509_up_ref(3)) the certificates of a `STACK_OF(X509)`.
    static func certificates(_ stack: OpaquePointer?) -> [Certificate] {
        guard let stack else { return [] }
        let n = OPENSSL_sk_num(stack)
        guard n > 0 else { return [] }
        return (0..<n).compactMap { i in
            Certificate(borrowing: OpaquePointer(OPENSSL_sk_value(stack, i)))
        }
    }

    /// The presented list as a failure message shows it.
    var presentedForMessage: [TrustFailure.Presented] {
        presented.map { TrustFailure.Presented(subject: $0.subject, pin: $0.pin) }
    }

    /// The negotiated protocol, cipher and ALPN of the connection being verified.
    func connectionSummary(verification: String) -> TLSSummary {
        var version = "TLS", cipher = "?"
        var alpn: String?
        if let p = X509_STORE_CTX_get_ex_data(storeContext, SSL_get_ex_data_X509_STORE_CTX_idx()) {
            let ssl = OpaquePointer(p)
            if let v = SSL_get_version(ssl) { version = String(cString: v) }
            // During a TLS 1.2 handshake the negotiated suite is still the pending one.
            if let c = SSL_get_current_cipher(ssl) ?? SSL_get_pending_cipher(ssl), let name = SSL_CIPHER_get_name(c) {
                cipher = String(cString: name)
            }
            var buf = [CChar](repeating: 0, count: 256)
            if sw_ssl_alpn(ssl, &buf, Int32(buf.count)) > 0 {
                alpn = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        }
        return TLSSummary(version: version, cipher: cipher, alpn: alpn,
                          certificate: leaf?.summary ?? "none", verification: verification)
    }
}

/// Verifies the chain against the trust store (X509_verify_cert(3)): system CAs, `--cacert`,
/// `--capath` and pinned certificates (as partial-chain anchors).
struct ChainTrustEvaluator: TrustEvaluating {
    /// The `--pin-cert` certificates (DER), anchors of partial chains.
    var anchors: [[UInt8]] = []

    func evaluate(_ trust: ServerTrust) -> TrustFailure? {
        let ctx = trust.storeContext
        if X509_verify_cert(ctx) == 1 {
            var path = ServerTrust.certificates(X509_STORE_CTX_get0_chain(ctx))
            // OpenSSL 3.0 accepts a pinned leaf by its exact match in the store but leaves the
            // certificates the server sent after it on the chain, unverified: the path ends at
            // the first pinned one (`--pin-scope chain` asked the unverified intermediate to be
            // pinned too, and messages listed it as verified).
            if let i = path.firstIndex(where: { anchors.contains($0.der) }) { path = Array(path[...i]) }
            trust.verifiedPath = path
            return nil
        }
        let code = X509_STORE_CTX_get_error(ctx)
        let text = X509_verify_cert_error_string(Int(code)).map { String(cString: $0) } ?? "error \(code)"
        let depth = X509_STORE_CTX_get_error_depth(ctx)
        var reason = "\(text) (certificate at depth \(depth)"
        if let current = Certificate(borrowing: X509_STORE_CTX_get_current_cert(ctx)) {
            reason += ": \(TrustFailure.shown(current.subject))"
        }
        reason += ")"
        return TrustFailure(check: .chain, host: trust.host, reason: reason,
                            presented: trust.presentedForMessage, pinned: [])
    }
}

/// Checks the host name against the leaf: DNS names with X509_check_host(3), IP literals
/// against IP SANs with X509_check_ip_asc(3).
struct HostTrustEvaluator: TrustEvaluating {
    func evaluate(_ trust: ServerTrust) -> TrustFailure? {
        guard let leaf = trust.leaf else {
            return TrustFailure(check: .host, host: trust.host, reason: "the server sent no certificate",
                                presented: [], pinned: [])
        }
        if !trust.host.isEmpty && leaf.matches(host: trust.host) { return nil }
        let what = HostName.isIPLiteral(trust.host) ? "IP address" : "host name"
        return TrustFailure(check: .host, host: trust.host,
                            reason: "the certificate (\(TrustFailure.shown(leaf.subject))) does not match the \(what) '\(trust.host)'",
                            presented: trust.presentedForMessage, pinned: [],
                            certificateNames: leaf.subjectAlternativeNames)
    }
}

/// Matches pins against the verified path (or only the leaf when the chain is not verified),
/// never against the list the server merely sent.
struct PinnedTrustEvaluator: TrustEvaluating {
    package let policy: SecurityPolicy

    /// Why the pins failed: no pin matched, or (both kinds given) which kind did not. `leaf`:
    /// the key check was held against the leaf alone (`--pin-scope leaf`, or the leaf being all
    /// there was: `basis` then says why). What qualifies it goes in one parenthetical.
    static func rule(_ unmatched: SecurityPolicy.PinKind?, _ policy: SecurityPolicy, basis: String, leaf: Bool, scope: String? = nil) -> String {
        let both = !policy.pinnedCertificates.isEmpty && !policy.pinnedKeyDigests.isEmpty
        // "the leaf (why)", not "no certificate of the leaf".
        let leafBasis = basis.hasPrefix("leaf")
        var notes: [String] = []
        if leafBasis, let open = basis.firstIndex(of: "("), let close = basis.lastIndex(of: ")"), open < close {
            notes.append(String(basis[basis.index(after: open)..<close]))
        }
        let text: String
        if both, let unmatched {
            notes.append("--pin-cert and --pin-pubkey together: both must match")
            switch unmatched {
            case .certificate: text = leafBasis ? "the leaf is not a --pin-cert certificate" : "no certificate of the \(basis) is a --pin-cert certificate"
            case .key: text = leaf || leafBasis ? "the leaf's key is not a --pin-pubkey key" : "no certificate of the \(basis) has a --pin-pubkey key"
            }
        } else {
            text = leaf || leafBasis ? "the leaf does not match a pin" : "no certificate of the \(basis) matches a pin"
        }
        if let scope { notes.append(scope) }
        return notes.isEmpty ? text : text + " (" + notes.joined(separator: "; ") + ")"
    }

    func evaluate(_ trust: ServerTrust) -> TrustFailure? {
        let candidates: [Certificate]
        let basis: String
        if let path = trust.verifiedPath, policy.checksChain {
            candidates = path
            basis = "verified path"
        } else {
            // Without chain verification the handshake proves possession of the leaf key only.
            candidates = trust.leaf.map { [$0] } ?? []
            basis = policy.checksChain ? "leaf (the chain did not verify)" : "leaf (the chain is not verified with --insecure)"
        }
        let ok: Bool
        let rule: String
        let both = !policy.pinnedCertificates.isEmpty && !policy.pinnedKeyDigests.isEmpty
        switch policy.scope {
        case .any:
            let unmatched = policy.unmatchedPinKind(in: candidates)
            ok = unmatched == nil
            rule = PinnedTrustEvaluator.rule(unmatched, policy, basis: basis, leaf: false)
        case .leaf:
            // With both kinds the scope is the keys': a pinned certificate (a private CA trusted
            // with --pin-cert) anywhere in the path, and the leaf's own key pinned. One kind alone
            // is held against the leaf.
            let leafOnly = candidates.first.map { [$0] } ?? []
            let unmatched: SecurityPolicy.PinKind?
            if leafOnly.isEmpty {
                unmatched = .key
            } else if both {
                unmatched = !candidates.contains(where: policy.isPinnedCertificate) ? .certificate
                    : !leafOnly.contains(where: policy.hasPinnedKey) ? .key : nil
            } else {
                unmatched = policy.unmatchedPinKind(in: leafOnly)
            }
            ok = unmatched == nil
            rule = PinnedTrustEvaluator.rule(unmatched, policy, basis: basis, leaf: true, scope: "--pin-scope leaf")
        case .chain:
            // Every certificate pinned by one kind or the other, and (both given) each kind
            // matching one: a key pin matching nothing was ignored, the strictest scope then the loosest.
            let unmatched = policy.unmatchedPinKind(in: candidates)
            let allPinned = !candidates.isEmpty && candidates.allSatisfy(policy.isPinned)
            ok = allPinned && unmatched == nil
            rule = unmatched != nil && allPinned
                ? PinnedTrustEvaluator.rule(unmatched, policy, basis: basis, leaf: false, scope: "--pin-scope chain")
                : "not every certificate of the \(basis) is pinned (--pin-scope chain)"
        }
        if ok { return nil }
        var pinned = policy.keyPins
        for der in policy.pinnedCertificates {
            if let c = Certificate(der: der) { pinned.append("certificate \(c.subject) (\(c.pin))") }
        }
        // The certificates the pins were held against: the verified path when there is one (its
        // anchor may come from the trust store, and `--pin-scope chain` wants it pinned too).
        var failure = TrustFailure(check: .pin, host: trust.host, reason: rule,
                                   presented: trust.presentedForMessage, pinned: pinned)
        if basis == "verified path" {
            failure.presented = candidates.map { TrustFailure.Presented(subject: $0.subject, pin: $0.pin) }
            failure.presentedIsPath = true
        } else if !policy.checksChain, policy.scope == .any, let leaf = trust.leaf, !leaf.isExpired, !leaf.isNotYetValid {
            // (Not for --pin-scope leaf, nor an out-of-date leaf: without -k those fail too.)
            failure.pinnedBeyondLeaf = trust.presented.dropFirst().first(where: policy.isPinned)?.subject
        }
        return failure
    }
}
