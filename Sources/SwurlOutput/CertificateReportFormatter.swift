import SwurlCore
/// Writes a `CertificateReport` as text for people or as JSON for scripts (`swurl certs --json`).
package enum CertificateReportFormatter {
    /// The human-readable report.
    package static func text(_ r: CertificateReport) -> String {
        var s = "\(TerminalSanitizer.clean(Redactor.url(r.url)))\n"
        s += "TLS: \(r.tls.version), \(r.tls.cipher), ALPN \(r.tls.alpn ?? "none")\n\n"
        s += "Presented chain (\(counted(r.presented.count, "certificate")), leaf first):\n"
        for (i, e) in r.presented.enumerated() { s += entry(i, e) }
        s += "\n"
        if let path = r.verifiedPath {
            s += "Verified path (\(path.count), leaf to anchor):\n"
            for (i, e) in path.enumerated() {
                if let k = r.presented.firstIndex(where: { $0.fingerprint == e.fingerprint }) {
                    s += "  \(i) \(e.subject) (presented #\(k))\n    pin:         \(e.pin)\n"
                } else {
                    s += entry(i, e)   // an anchor from the trust store, never sent
                }
            }
        } else {
            s += "Verified path: none\n"
        }
        s += "\nVerification:\n"
        s += "  chain: " + (r.chainError.map { "FAILED: \($0)" } ?? "ok") + "\n"
        if let issuer = r.missingIntermediate {
            s += "         the server sent its certificate alone, and no trust store holds its issuer\n"
            s += "         (\(issuer)): an intermediate CA the server should send beside it, or your own\n"
            s += "         CA to trust with --cacert FILE\n"
        }
        if r.chainError != nil, r.presented.contains(where: \.notYetValid) {
            // Most often this machine's clock, behind (a board without a battery-backed clock).
            s += "         a certificate is not valid yet by this machine's clock (\(Timestamp.iso8601(Timestamp.now()).prefix(19))Z):\n"
            s += "         if the clock is wrong, set it first\n"
        }
        s += "  host:  " + (r.hostError.map { "FAILED: \($0)" } ?? "ok (\(r.host))") + "\n"
        if r.pinsGiven { s += "  pins:  " + (r.pinError.map { "FAILED: \($0)" } ?? "ok") + "\n" }
        if let option = r.pinOption {
            s += "\nPin this server's key (ready to paste):\n  \(option)\n"
            // Out of date by the chain's error, or by the leaf's dates when OpenSSL named another
            // fault first (a self-signed leaf that has also expired).
            let leafOutOfDate = r.presented.first.map { $0.expired || $0.notYetValid } ?? false
            if r.chainError != nil && r.insecure {
                s += "The chain does not verify: with -k, as given, a request checks this pin\(r.hostMatches ? " alone" : " (and the host name, without --no-verify-host)").\n"
            } else if let error = r.chainError, leafOutOfDate || error.containsText("expired") || error.containsText("not yet valid") {
                s += "The chain does not verify, and no CA or --pin-cert makes an out-of-date certificate valid:\nwith -k the pinned leaf key alone is trusted.\n"
            } else if let error = r.chainError, CertificateReport.isChainsOwnLimit(error) {
                // What the CA's own certificate forbids stays forbidden under any anchor.
                s += "The chain's own limits (name constraints, key usage) forbid this certificate, whatever --cacert or\n--pin-cert says: with -k the pinned leaf key alone is trusted.\n"
            } else if r.chainError != nil {
                s += "The chain does not verify: with -k the pinned leaf key alone is trusted; or pin the certificate\nitself with --pin-cert FILE (a pinned certificate is a trust anchor; --pem prints it).\n"
            } else if let issuer = r.issuerPin, r.hostMatches, !r.leafPinnedAsCertificate {
                // Not for a certificate of another name: with --no-verify-host, a CA's pin would
                // accept every certificate that CA issued, for any name. Nor beside a pinned leaf
                // certificate, which both must match: it would not survive the renewal either.
                s += "or its issuing CA's key, which survives a certificate renewal:\n  \(r.trustOptions)--pin-pubkey '\(issuer)'\n"
            }
            if r.hostError != nil {
                s += "The certificate is not for '\(r.host)': a pin does not skip the host check, --no-verify-host does.\n"
            }
        }
        // Names come from the server: make control characters visible, line by line.
        return s.split(separator: "\n", omittingEmptySubsequences: false)
            .map { TerminalSanitizer.clean(String($0)) }.joined(separator: "\n")
    }

    /// The certificates as PEM (`swurl certs --pem`): those presented, leaf first, then those of
    /// the verified path the server did not send (its anchor, from the trust store). Each block
    /// follows its `subject=` and `issuer=` lines, as `openssl x509 -subject -issuer` prints them;
    /// a PEM reader skips them. Names come from the server: control characters are made visible,
    /// so no name can end its line and start a block of its own, a run of five dashes is broken
    /// (a reader that finds `-----BEGIN` anywhere in a line took a certificate written into a
    /// name for one the server sent), and a name is cut after 200 characters (`TerminalSanitizer.excerpt`).
    package static func pem(_ r: CertificateReport) -> String {
        var entries = r.presented
        for e in r.verifiedPath ?? [] where !entries.contains(where: { $0.fingerprint == e.fingerprint }) { entries.append(e) }
        var s = ""
        for e in entries where !e.der.isEmpty {
            s += "subject=\(pemLineName(e.subject))\nissuer=\(pemLineName(e.issuer))\n"
            s += "-----BEGIN CERTIFICATE-----\n"
            var rest = Substring(Base64.encode(e.der))
            while !rest.isEmpty {
                s += rest.prefix(64) + "\n"
                rest = rest.dropFirst(64)
            }
            s += "-----END CERTIFICATE-----\n"
        }
        return s
    }

    /// A certificate's name on a `--pem` comment line (`pem`).
    private static func pemLineName(_ name: String) -> String {
        var shown = TerminalSanitizer.excerpt(name)
        while shown.containsText("-----") { shown = shown.replacingAll("-----", with: "--\\x2d--") }
        return shown
    }

    private static func entry(_ i: Int, _ e: CertificateReport.Entry) -> String {
        var s = "  \(i) subject:     \(e.subject)\n"
        s += "    issuer:      \(e.issuer)\(e.selfIssued ? " (self-issued)" : "")\n"
        if !e.subjectAlternativeNames.isEmpty { s += "    names:       \(e.subjectAlternativeNames.joined(separator: ", "))\n" }
        let state = e.expired ? "EXPIRED \(counted(-e.daysLeft, "day")) ago" : e.notYetValid ? "NOT YET VALID" : "\(counted(e.daysLeft, "day")) left"
        s += "    valid:       \(e.notBefore) to \(e.notAfter) (\(state))\n"
        s += "    key:         \(e.key)\n"
        s += "    sha256:      \(e.fingerprint)\n"
        s += "    pin:         \(e.pin)\n"
        return s
    }

    /// The report as one JSON object (followed by a newline).
    package static func json(_ r: CertificateReport) -> String {
        func str(_ s: String?) -> JSONValue { s.map { .string($0) } ?? .null }
        func entries(_ list: [CertificateReport.Entry]) -> JSONValue {
            .array(list.map { e in
                .object([
                    .init("subject", .string(e.subject)), .init("issuer", .string(e.issuer)),
                    .init("subject_alt_names", .array(e.subjectAlternativeNames.map { .string($0) })),
                    .init("not_before", .string(e.notBefore)), .init("not_after", .string(e.notAfter)),
                    .init("days_left", .number(String(e.daysLeft))), .init("expired", .bool(e.expired)),
                    .init("not_yet_valid", .bool(e.notYetValid)), .init("self_issued", .bool(e.selfIssued)),
                    .init("key", .string(e.key)), .init("sha256_fingerprint", .string(e.fingerprint)),
                    .init("pin", .string(e.pin)),
                ])
            })
        }
        let value: JSONValue = .object([
            .init("url", .string(Redactor.url(r.url))), .init("host", .string(r.host)),
            .init("tls", .object([.init("version", .string(r.tls.version)), .init("cipher", .string(r.tls.cipher)),
                                  .init("alpn", str(r.tls.alpn))])),
            .init("presented", entries(r.presented)),
            .init("verified_path", r.verifiedPath.map(entries) ?? .null),
            .init("chain_ok", .bool(r.chainError == nil)), .init("chain_error", str(r.chainError)),
            .init("host_ok", .bool(r.hostMatches)), .init("host_error", str(r.hostError)),
            .init("pins_ok", r.pinsGiven ? .bool(r.pinError == nil) : .null), .init("pin_error", str(r.pinError)),
            // Ready to paste: a chain that does not verify needs -k beside the pin.
            .init("pin_option", str(r.pinOption)),
        ])
        return value.serialized + "\n"
    }

    /// `--json` when no report could be made (no connection, a failed handshake): the URL, the
    /// error's message and the exit status, one object, so a script's `jq` still reads a line.
    package static func failureJSON(url: String, message: String, exit: Int32) -> String {
        JSONValue.object([
            .init("url", .string(Redactor.url(url))), .init("error", .string(message)),
            .init("exit", .number(String(exit))),
        ]).serialized + "\n"
    }
}
