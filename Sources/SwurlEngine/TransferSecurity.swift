import SwurlCurl
import SwurlSecurity
import SwurlCore
extension EasyHandle {
    /// Puts a handle under `policy`: trust store and client certificate options for libcurl,
    /// and a `HandshakeVerifier` installed through CURLOPT_SSL_CTX_FUNCTION (curl_easy_setopt(3))
    /// so every TLS handshake of this handle — each redirect hop too — runs the policy.
    ///
    /// TLS session resumption is switched off (CURLOPT_SSL_SESSIONID_CACHE=0): a resumed session
    /// carries no certificate, so the verifier would never run.
    /// - Returns: the verifier; keep it alive as long as the handle.
    /// - Throws: `SwurlError.transport` when libcurl lacks a needed TLS option.
    func applySecurity(_ policy: SecurityPolicy, mode: HandshakeVerifier.Mode = .enforce) throws(SwurlError) -> HandshakeVerifier {
        let verifier = HandshakeVerifier(policy: policy, mode: mode)
        // In .inspect mode libcurl still loads the trust store; the verifier accepts anyway.
        try set(.verifyPeer(policy.checksChain || mode == .inspect))
        // The verifier checks the host inside the handshake; libcurl's own later check stays as
        // a second line of defence whenever the policy wants the host checked.
        try set(.verifyHost(policy.checksHost && mode == .enforce))
        try set(.sessionIDCache(false))
        // The verifier adds pinned and --cacert-add certificates (and the system store's lookup)
        // to the connection's store. libcurl would otherwise hand every connection of a batch one
        // cached store, and a line's pinned certificate would become trusted by every later line.
        try set(.noCAStoreCache, "the CA store cache")
        // --cacert/--capath replace the default store, so each unsets the other's compiled-in
        // default (Debian's libcurl has both). Without either, both stay unset: the verifier
        // adds the system store lazily instead of libcurl parsing the whole bundle.
        if let f = policy.caFile { try set(.caFile(f), "--cacert") } else { try set(.noCAFile, "--cacert") }
        if let d = policy.caPath { try set(.caPath(d), "--capath") } else { try set(.noCAPath, "--capath") }
        if let c = policy.clientCertificate { try set(.clientCertificate(c), "--cert") }
        if let k = policy.clientKey { try set(.clientKey(k), "--key") }
        if let p = policy.keyPassword { try set(.keyPassword(p), "--key-password") }
        // TLS 1.2 at least, always: libcurl's own default minimum is TLS 1.0, which the OpenSSL
        // build accepts from a server that offers nothing better.
        let maximum: EasyOption.TLSVersion? = policy.maximumVersion.map { $0 == .v1_2 ? .v1_2 : .v1_3 }
        try set(.tlsVersions(minimum: policy.minimumVersion == .v1_3 ? .v1_3 : .v1_2, maximum: maximum),
                "--tls-min/--tls-max")
        if let ciphers = policy.ciphers {
            let names = ciphers.split(separator: ":").map(String.init)
            let v13 = names.filter { $0.hasPrefix("TLS_") }
            let v12 = names.filter { !$0.hasPrefix("TLS_") }
            // A pin needs the server's certificate: with pins, the anonymous suites (aNULL, which
            // send none, so the pin check never runs) stay out whatever the list asks for.
            if !v12.isEmpty { try set(.cipherList(v12.joined(separator: ":") + (policy.hasPins ? ":!aNULL" : "")), "--ciphers") }
            if !v13.isEmpty { try set(.tls13Ciphers(v13.joined(separator: ":")), "--ciphers (TLS 1.3 suites)") }
        }
        try setTLSContextHandler { sslContext, host, server in verifier.prepare(sslContext: sslContext, host: host, server: server) }
        return verifier
    }
}

extension HandshakeVerifier {
    /// Adds what the TLS settings tell about a libcurl failure: a client certificate that does
    /// not load, or a server that hung up after the handshake before answering (typically: it
    /// wants a client certificate; not once a response began: `answered`).
    func explain(_ result: CurlResult, _ error: SwurlError, answered: Bool = false) -> SwurlError {
        if result.clientCertificateProblem {
            return .inputFile(error.message, hint: "check --cert, --key and --key-password (PEM; the key must belong to the certificate)")
        }
        if result.connectionEnded && policy.clientCertificate == nil && verifications > 0 && !answered {
            return .transport(error.message, hint: clientCertificateWithheld
                ? "the server ended the TLS connection; if it requires a client certificate: --cert goes to the first URL's origin only, not to a redirect's other origin (request this server's URL itself with --cert)"
                : "the server ended the TLS connection; if it requires a client certificate, give --cert FILE --key FILE")
        }
        return error
    }
}
