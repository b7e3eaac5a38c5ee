@preconcurrency import COpenSSL
@preconcurrency import CShims
import SwurlCore

/// Enforces a `SecurityPolicy` inside the TLS handshake of one libcurl handle.
///
/// libcurl calls `prepare(sslContext:host:)` from its CURLOPT_SSL_CTX_FUNCTION for every new
/// connection (also on each redirect hop); it installs `verify(storeContext:)` as OpenSSL's
/// certificate verification callback, so a failing check aborts the handshake before a single
/// HTTP byte is sent. One verifier per handle: it remembers the first failure and, in
/// `.inspect` mode (`swurl certs`), what it saw.
package final class HandshakeVerifier {
    /// What the verifier does with its findings.
    package enum Mode {
        /// Reject the handshake when a check fails.
        case enforce
        /// Accept every handshake and record the chain, path and check results.
        case inspect
    }

    package let policy: SecurityPolicy
    let mode: Mode
    /// The host of the connection being set up (from the URL of the current hop).
    package private(set) var host = ""
    /// The server being connected as messages name it: `host`, or `host:port` for a port other
    /// than the scheme's (a redirect hop's own, not the first URL's).
    package private(set) var server = ""
    /// The first failed check, if any.
    package private(set) var failure: TrustFailure?
    /// How many certificate verifications ran (one per full handshake).
    package private(set) var verifications = 0
    /// What `.inspect` mode found.
    package private(set) var inspection: CertificateInspection?
    /// Called after each accepted handshake (for `-v`).
    package var onVerified: ((TLSSummary) -> Void)?
    /// A redirect's hop to another origin, which `--cert` does not go to (for messages).
    package var clientCertificateWithheld = false

    package init(policy: SecurityPolicy, mode: Mode = .enforce) {
        self.policy = policy
        self.mode = mode
    }

    /// Configures a fresh `SSL_CTX*` before libcurl creates the connection's `SSL`.
    /// - Returns: false when the context cannot be set up (the transfer is then aborted).
    package func prepare(sslContext: UnsafeMutableRawPointer, host: String, server: String) -> Bool {
        let ctx = OpaquePointer(sslContext)
        self.host = HostName.bare(host)
        self.server = server
        // CURLOPT_SSL_VERIFYPEER=0 (-k) leaves SSL_VERIFY_NONE, under which OpenSSL ignores the
        // callback's verdict; VERIFY_PEER makes a 0 abort the handshake.
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
        // No TLS 1.2 renegotiation: its handshake would run the callback below on a connection a
        // later transfer reuses, when this verifier (held unretained) is gone — a crash, or a
        // verdict read from freed memory on the certificate the server sends then. curl 7.88
        // renegotiates; swurl refuses, as TLS 1.3 has none.
        sw_ssl_ctx_refuse_renegotiation(ctx)
        // Without a chain check (-k) no store is consulted, so none is loaded.
        if policy.checksChain || mode == .inspect {
            guard let store = SSL_CTX_get_cert_store(ctx) else {
                return setupFailed("OpenSSL gave no trust store to load the CA certificates into")
            }
            // libcurl loaded --cacert/--capath (CAINFO/CAPATH), which replace the default store;
            // without them both are unset and the system's store is added here, lazily.
            if policy.usesDefaultStore { policy.defaultStore.install(into: store) }
            for der in policy.addedCertificates {
                guard let c = Certificate(der: der) else { return setupFailed("a --cacert-add certificate could not be loaded") }
                _ = X509_STORE_add_cert(store, c.raw)
            }
            if !policy.pinnedCertificates.isEmpty {
                guard let param = SSL_CTX_get0_param(ctx) else {
                    return setupFailed("OpenSSL gave no verification parameters for the pinned certificates")
                }
                for der in policy.pinnedCertificates {
                    guard let c = Certificate(der: der) else { return setupFailed("a pinned certificate could not be loaded") }
                    // A certificate already in the store is not an error (X509_STORE_add_cert(3)).
                    _ = X509_STORE_add_cert(store, c.raw)
                }
                // Pinned certificates are anchors even when they are not self-signed roots.
                X509_VERIFY_PARAM_set_flags(param, UInt(X509_V_FLAG_PARTIAL_CHAIN))
            }
            ERR_clear_error()
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        SSL_CTX_set_cert_verify_callback(ctx, { storeContext, arg in
            guard let storeContext, let arg else { return 0 }
            return Unmanaged<HandshakeVerifier>.fromOpaque(arg).takeUnretainedValue().verify(storeContext: storeContext)
        }, context)
        return true
    }

    /// Records why the handshake cannot be secured; the transfer then fails closed (exit 7).
    private func setupFailed(_ reason: String) -> Bool {
        if failure == nil {
            failure = TrustFailure(check: .chain, host: host, reason: reason, presented: [], pinned: [])
            failure?.server = server
        }
        return false
    }

    /// The evaluators the policy calls for, in order: chain, host, pins.
    var evaluators: [TrustEvaluating] {
        var list: [TrustEvaluating] = []
        if policy.checksChain { list.append(ChainTrustEvaluator(anchors: policy.pinnedCertificates)) }
        if policy.checksHost { list.append(HostTrustEvaluator()) }
        if policy.hasPins { list.append(PinnedTrustEvaluator(policy: policy)) }
        return list
    }

    /// OpenSSL's certificate verification callback: 1 accepts the peer, 0 aborts the handshake.
    func verify(storeContext: OpaquePointer) -> Int32 {
        verifications += 1
        let trust = ServerTrust(storeContext: storeContext, host: host)
        if mode == .inspect {
            inspection = CertificateInspection(trust: trust, policy: policy)
            X509_STORE_CTX_set_error(storeContext, X509_V_OK)
            return 1
        }
        for evaluator in evaluators {
            if var failed = evaluator.evaluate(trust) {
                // Pinned certificates (anchors) none of the presented ones is, and a chain that
                // does not verify: the hint lists both ("pin the server with --pin-cert" misled
                // someone who had). A key pin is no anchor: the chain's own hint stands.
                if failed.check == .chain, !policy.pinnedCertificates.isEmpty, !trust.presented.contains(where: policy.isPinned),
                   let pins = PinnedTrustEvaluator(policy: policy).evaluate(trust) {
                    failed.pinned = pins.pinned
                }
                if failure == nil {
                    failure = failed
                    failure?.server = server
                }
                X509_STORE_CTX_set_error(storeContext, X509_V_ERR_APPLICATION_VERIFICATION)
                return 0
            }
        }
        X509_STORE_CTX_set_error(storeContext, X509_V_OK)
        onVerified?(trust.connectionSummary(verification: verificationText(trust)))
        return 1
    }

    private func verificationText(_ trust: ServerTrust) -> String {
        var parts: [String] = []
        parts.append(policy.checksChain ? "chain verified (\(counted(trust.verifiedPath?.count ?? 0, "certificate")))" : "chain NOT verified (--insecure)")
        parts.append(policy.checksHost ? "host '\(host)' matched" : "host NOT checked")
        if policy.hasPins { parts.append("pin matched (scope \(policy.scope.rawValue))") }
        return parts.joined(separator: ", ")
    }
}

/// What `swurl certs` learns from one handshake: the presented chain, the verified path and the
/// result of each check, without rejecting anything.
package struct CertificateInspection {
    let presented: [Certificate]
    let verifiedPath: [Certificate]?
    /// nil when the chain verified, else OpenSSL's reason.
    let chainError: String?
    let hostMatches: Bool
    /// nil without pins.
    let pinError: String?
    let tls: TLSSummary

    init(trust: ServerTrust, policy: SecurityPolicy) {
        presented = trust.presented
        let chain = ChainTrustEvaluator(anchors: policy.pinnedCertificates).evaluate(trust)
        verifiedPath = trust.verifiedPath
        chainError = chain?.reason
        hostMatches = HostTrustEvaluator().evaluate(trust) == nil
        if policy.hasPins {
            pinError = PinnedTrustEvaluator(policy: policy).evaluate(trust)?.reason
        } else {
            pinError = nil
        }
        tls = trust.connectionSummary(verification: chainError == nil ? "chain verified" : "chain NOT verified")
    }
}
