/// What `-v` shows about a TLS connection once the policy accepted it.
public struct TLSSummary: Sendable, Equatable {
    /// `TLSv1.3`.
    public var version: String
    /// `TLS_AES_256_GCM_SHA384`.
    public var cipher: String
    /// The negotiated ALPN protocol, nil when none.
    public var alpn: String?
    /// A one-line description of the leaf certificate.
    public var certificate: String
    /// What was checked (`chain verified, host matched, pin matched`).
    public var verification: String

    public init(version: String, cipher: String, alpn: String?, certificate: String, verification: String) {
        self.version = version
        self.cipher = cipher
        self.alpn = alpn
        self.certificate = certificate
        self.verification = verification
    }

    /// The line `-v` prints.
    public var line: String {
        "* TLS: \(version), \(cipher), ALPN \(alpn ?? "none"); certificate: \(certificate); \(verification)"
    }
}
