/// What `swurl certs` found: the presented chain, the verified path and each check's result.
package struct CertificateReport: Sendable, Equatable {
    /// One certificate as the report shows it.
    package struct Entry: Sendable, Equatable {
        /// The subject name, RFC 2253 (`CN=localhost`).
        package var subject: String
        /// The issuer name, RFC 2253.
        package var issuer: String
        /// subjectAltName entries (`DNS:localhost`, `IP Address:127.0.0.1`).
        package var subjectAlternativeNames: [String]
        /// Start of validity, `YYYY-MM-DD hh:mm:ss UTC`.
        package var notBefore: String
        /// End of validity, `YYYY-MM-DD hh:mm:ss UTC`.
        package var notAfter: String
        /// Days until expiry; negative once expired.
        package var daysLeft: Int
        /// Whether the end of validity has passed.
        package var expired: Bool
        /// Whether the start of validity is in the future.
        package var notYetValid: Bool
        /// `EC P-256`, `RSA 2048`.
        package var key: String
        /// SHA-256 of the DER, colon-separated hex (as `openssl x509 -fingerprint -sha256`).
        package var fingerprint: String
        /// `sha256//BASE64` of the SubjectPublicKeyInfo.
        package var pin: String
        /// Whether subject and issuer are the same name.
        package var selfIssued: Bool
        /// The certificate's DER encoding (`swurl certs --pem`).
        package var der: [UInt8]

        package init(subject: String, issuer: String, subjectAlternativeNames: [String], notBefore: String, notAfter: String,
                    daysLeft: Int, expired: Bool, notYetValid: Bool, key: String, fingerprint: String, pin: String, selfIssued: Bool,
                    der: [UInt8] = []) {
            self.subject = subject
            self.issuer = issuer
            self.subjectAlternativeNames = subjectAlternativeNames
            self.notBefore = notBefore
            self.notAfter = notAfter
            self.daysLeft = daysLeft
            self.expired = expired
            self.notYetValid = notYetValid
            self.key = key
            self.fingerprint = fingerprint
            self.pin = pin
            self.selfIssued = selfIssued
            self.der = der
        }
    }

    /// The URL that was probed.
    package var url: String
    /// The host the certificate was checked against.
    package var host: String
    /// Negotiated protocol, cipher and ALPN.
    package var tls: TLSSummary
    /// What the server sent, leaf first.
    package var presented: [Entry]
    /// The verified path, leaf to anchor; nil when the chain did not verify.
    package var verifiedPath: [Entry]?
    /// Why the chain did not verify; nil when it did.
    package var chainError: String?
    /// Whether the leaf is valid for `host`.
    package var hostMatches: Bool
    /// Whether pins were given (with `--pin-pubkey`/`--pin-cert`) and, if so, why they failed.
    package var pinsGiven: Bool
    /// Why the pins did not match; nil when they did or none were given.
    package var pinError: String?
    /// Whether `-k` was given: a chain that does not verify is then not checked for requests.
    package var insecure = false
    /// The trust options `certs` was given (`--cacert 'root.pem'`, `--capath`, `--cacert-add`,
    /// `--pin-cert`), shell-quoted with a space after: the chain verified under them, so a pasted
    /// pin needs them too.
    package var trustOptions = ""
    /// Whether the leaf itself is pinned with `--pin-cert`: a CA's key pinned beside it does not
    /// survive a renewal (both must match).
    package var leafPinnedAsCertificate = false

    /// Whether a chain's fault is one the chain's own certificates make (name constraints, key
    /// usage, a CA certificate that may not sign): no trust store, `--cacert` or `--pin-cert`
    /// mends it; only `-k` with a key pin accepts the server.
    package static func isChainsOwnLimit(_ reason: String) -> Bool {
        reason.containsText("subtree violation") || reason.containsText("name constraint")
            || reason.containsText("unsupported certificate purpose") || reason.containsText("unsuitable certificate purpose")
            || reason.containsText("invalid CA certificate")
    }

    package init(url: String, host: String, tls: TLSSummary, presented: [Entry], verifiedPath: [Entry]?,
                chainError: String?, hostMatches: Bool, pinsGiven: Bool, pinError: String?) {
        self.url = url
        self.host = host
        self.tls = tls
        self.presented = presented
        self.verifiedPath = verifiedPath
        self.chainError = chainError
        self.hostMatches = hostMatches
        self.pinsGiven = pinsGiven
        self.pinError = pinError
    }

    /// The pin of the leaf: what `--pin-pubkey` should hold for this server.
    package var leafPin: String? { presented.first?.pin }

    /// The issuing CA's key pin (survives a leaf renewal), when the path shows one.
    package var issuerPin: String? {
        if let path = verifiedPath, path.count > 1 { return path[1].pin }
        return presented.count > 1 ? presented[1].pin : nil
    }

    /// A ready-to-paste option for the leaf's key, with what it needs to pass as pasted: `-k` when
    /// the chain does not verify, the trust options it verified under, `--no-verify-host` when
    /// the certificate is not for the host (a pin alone does not skip the host check).
    package var pinOption: String? {
        leafPin.map { (chainError != nil ? "-k " : trustOptions) + pinOptionPrefix + "--pin-pubkey '\($0)'" }
    }

    /// What a pasted `--pin-pubkey` needs before it: `--no-verify-host --pin-scope leaf ` when the
    /// certificate is for another name (the leaf's own key then, never a CA's, which would
    /// accept every certificate the CA issued for any name).
    package var pinOptionPrefix: String { hostMatches ? "" : "--no-verify-host --pin-scope leaf " }

    /// Why the leaf does not match the host; nil when it does.
    package var hostError: String? { hostMatches ? nil : "the certificate does not match '\(host)'" }

    /// The chain stopped at a certificate the server sent alone, whose issuer it did not send
    /// and no trust store holds: a server that leaves out its intermediate, or a private CA.
    package var missingIntermediate: String? {
        guard let error = chainError, error.containsText("unable to get local issuer certificate"),
              presented.count == 1, let leaf = presented.first, !leaf.selfIssued else { return nil }
        return leaf.issuer
    }
}
