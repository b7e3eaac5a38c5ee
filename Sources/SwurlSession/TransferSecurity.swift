@preconcurrency import CCurl
@preconcurrency import CShims
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
        try set(CURLOPT_SSL_VERIFYPEER, policy.checksChain || mode == .inspect ? 1 : 0)
        // The verifier checks the host inside the handshake; libcurl's own later check stays as
        // a second line of defence whenever the policy wants the host checked.
        try set(CURLOPT_SSL_VERIFYHOST, policy.checksHost && mode == .enforce ? 2 : 0)
        try set(CURLOPT_SSL_SESSIONID_CACHE, 0)
        // --cacert/--capath replace the default store, so each unsets the other's compiled-in
        // default (Debian's libcurl has both). Without either, both stay unset: the verifier
        // adds the system store lazily instead of libcurl parsing the whole bundle.
        if let f = policy.caFile { try set(CURLOPT_CAINFO, f, "--cacert") } else { try set(CURLOPT_CAINFO, pointer: nil) }
        if let d = policy.caPath { try set(CURLOPT_CAPATH, d, "--capath") } else { try set(CURLOPT_CAPATH, pointer: nil) }
        if let c = policy.clientCertificate { try set(CURLOPT_SSLCERT, c, "--cert") }
        if let k = policy.clientKey { try set(CURLOPT_SSLKEY, k, "--key") }
        if let p = policy.keyPassword { try set(CURLOPT_KEYPASSWD, p, "--key-password") }
        if policy.minimumVersion != nil || policy.maximumVersion != nil {
            var value = Int(CURL_SSLVERSION_TLSv1_2)
            if policy.minimumVersion == .v1_3 { value = Int(CURL_SSLVERSION_TLSv1_3) }
            if policy.maximumVersion == .v1_2 { value |= Int(CURL_SSLVERSION_MAX_TLSv1_2) }
            if policy.maximumVersion == .v1_3 { value |= Int(CURL_SSLVERSION_MAX_TLSv1_3) }
            try set(CURLOPT_SSLVERSION, value, "--tls-min/--tls-max")
        }
        if let ciphers = policy.ciphers {
            let names = ciphers.split(separator: ":").map(String.init)
            let v13 = names.filter { $0.hasPrefix("TLS_") }
            let v12 = names.filter { !$0.hasPrefix("TLS_") }
            if !v12.isEmpty { try set(CURLOPT_SSL_CIPHER_LIST, v12.joined(separator: ":"), "--ciphers") }
            if !v13.isEmpty { try set(CURLOPT_TLS13_CIPHERS, v13.joined(separator: ":"), "--ciphers (TLS 1.3 suites)") }
        }
        try set(CURLOPT_SSL_CTX_DATA, pointer: Unmanaged.passUnretained(verifier).toOpaque())
        let rc = sw_setopt_ssl_ctx_cb(raw) { curl, sslContext, userData in
            guard let curl, let sslContext, let userData else { return CURLE_ABORTED_BY_CALLBACK }
            let verifier = Unmanaged<HandshakeVerifier>.fromOpaque(userData).takeUnretainedValue()
            // The URL of the hop being connected: libcurl updates it before following a redirect.
            var p: UnsafePointer<CChar>?
            guard sw_getinfo_str(curl, CURLINFO_EFFECTIVE_URL, &p) == CURLE_OK, let p,
                  let url = try? CurlURL(parsing: String(cString: p)) else { return CURLE_ABORTED_BY_CALLBACK }
            return verifier.prepare(sslContext: sslContext, host: url.host) ? CURLE_OK : CURLE_ABORTED_BY_CALLBACK
        }
        guard rc == CURLE_OK else {
            throw .transport("this libcurl cannot run swurl's TLS policy in the handshake (CURLOPT_SSL_CTX_FUNCTION: \(String(cString: curl_easy_strerror(rc))))",
                             hint: "swurl needs libcurl built with OpenSSL (libcurl4-openssl-dev)")
        }
        return verifier
    }
}

extension HandshakeVerifier {
    /// Adds what the TLS settings tell about a libcurl failure: a client certificate that does
    /// not load, or a server that hung up after the handshake (typically: it wants a client
    /// certificate).
    func explain(_ rc: CURLcode, _ error: SwurlError) -> SwurlError {
        if rc == CURLE_SSL_CERTPROBLEM {
            return .inputFile(error.message, hint: "check --cert, --key and --key-password (PEM; the key must belong to the certificate)")
        }
        let hungUp = [CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_SSL_CONNECT_ERROR, CURLE_GOT_NOTHING].contains(rc)
        if hungUp && policy.clientCertificate == nil && verifications > 0 {
            return .transport(error.message, hint: "the server ended the TLS connection; if it requires a client certificate, give --cert FILE --key FILE")
        }
        return error
    }
}
