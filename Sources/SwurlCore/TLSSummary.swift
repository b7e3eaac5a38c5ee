/// What `-v` shows about a TLS connection once the policy accepted it.
package struct TLSSummary: Sendable, Equatable {
    /// `TLSv1.3`.
    package var version: String
    /// `TLS_AES_256_GCM_SHA384`.
    package var cipher: String
    /// The negotiated ALPN protocol, nil when none.
    package var alpn: String?
    /// A one-line description of the leaf certificate.
    package var certificate: String
    /// What was checked (`chain verified, host matched, pin matched`).
    package var verification: String

    package init(version: String, cipher: String, alpn: String?, certificate: String, verification: String) {
        self.version = version
        self.cipher = cipher
        self.alpn = alpn
        self.certificate = certificate
        self.verification = verification
    }

    /// The line `-v` prints.
    package var line: String {
        "* TLS: \(version), \(cipher), ALPN \(alpn ?? "none"); certificate: \(certificate); \(verification)"
    }
}
