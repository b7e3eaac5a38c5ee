import SwurlCore
/// Why a TLS server was not trusted: which check failed, for which host, and what the server
/// presented — so the message can show both what was pinned and what was found.
package struct TrustFailure: Sendable, Equatable {
    /// The check that failed.
    package enum Check: String, Sendable {
        case chain, host, pin
    }

    /// One certificate the server presented, as the message lists it.
    package struct Presented: Sendable, Equatable {
        /// The subject name, RFC 2253.
        package var subject: String
        /// `sha256//` of its key.
        package var pin: String
    }

    /// Which check failed.
    package var check: Check
    /// The host of the connection (the redirect hop's, on a redirect).
    package var host: String
    /// What went wrong, in words.
    package var reason: String
    /// The certificates the server sent, leaf first (the verified path, leaf to anchor, for a
    /// pin failure on a chain that verified: `presentedIsPath`).
    package var presented: [Presented]
    /// Whether `presented` is the verified path.
    package var presentedIsPath = false
    /// The pins that were required (`pin` failures; a `chain` failure under pinned certificates
    /// none of the presented ones is).
    package var pinned: [String]
    /// The subject of a presented certificate beyond the leaf that a pin matches (`pin`
    /// failures under `-k`, where only the leaf counts).
    package var pinnedBeyondLeaf: String?
    /// What the certificate is valid for (`host` failures only).
    package var certificateNames: [String] = []
    /// The server as the message names it (`host:port` when the port is not the scheme's), set
    /// by the handshake that failed: on a redirect it is the hop's server, not the first URL's.
    package var server: String?
    /// The options that routed the connection (`--resolve`, `--proxy`, `--unix-socket`) and
    /// that it was trusted by (`--cacert`, `--capath`, `--cacert-add`, `--pin-cert`): the
    /// `swurl certs` the hint offers needs them too.
    package var routing: [String] = []

    /// The error swurl reports: exit 7, naming the check, the host and the presented pins.
    /// Names come from the server's certificates, so control characters are made visible.
    package var error: SwurlError {
        let named = TrustFailure.visible(server ?? host)
        let message = "TLS \(check.rawValue) check failed for \(named): \(TrustFailure.visible(reason))"
        // The server that failed, to look at: on a redirect hop it is not the URL that was typed.
        let certs = (server == nil ? "'swurl certs URL'" : "'swurl certs https://\(named)'")
            + (routing.isEmpty ? "" : " with this request's \(routing.joined(separator: " and "))")
        var hint: String
        switch check {
        case .chain where reason.containsText("expired") || reason.containsText("not yet valid"):
            // No CA and no --pin-cert makes an out-of-date certificate valid: only a key pin
            // under -k accepts it.
            hint = "no --cacert or --pin-cert makes an expired (or not yet valid) certificate valid; to accept this server's key anyway, "
                + "-k --pin-pubkey PIN (\(certs) prints it)"
            // A certificate valid only from a later date is most often this machine's clock
            // being behind (a board without a battery-backed clock fails every site so).
            if reason.containsText("not yet valid") {
                hint = "swurl: hint: this machine's clock reads \(Timestamp.iso8601(Timestamp.now()).prefix(19))Z: if that is wrong, set the clock first\n"
                    + "swurl: hint: " + hint
            }
        case .chain where CertificateReport.isChainsOwnLimit(reason):
            // What the CA's own certificate forbids stays forbidden under any trust store.
            hint = "the chain's own limits (name constraints, key usage) forbid this certificate here, whatever --cacert or --pin-cert says; "
                + "to accept this server's key anyway, -k --pin-pubkey PIN (\(certs) prints it)"
        case .chain where presented.count == 1 && reason.containsText("unable to get local issuer certificate"):
            hint = "the server sent its certificate alone, and its issuer is not trusted: an intermediate CA it should send "
                + "beside it (add it with --cacert-add FILE), or a private CA (trust it with --cacert FILE); \(certs) names the issuer"
        case .chain where !pinned.isEmpty:
            // Pinned certificates, none of them presented nor an issuer the chain reached.
            hint = "none of the certificates the server presented is pinned, and the chain does not reach a pinned one or a trusted CA: pin a certificate of this server's chain (\(certs) shows them)\n"
                + pinLists
        case .chain:
            hint = "trust its CA with --cacert FILE, or pin the server with --pin-cert FILE (or -k --pin-pubkey PIN); \(certs) shows the chain and pins"
        case .host:
            // The names a URL could use (DNS and IP): an e-mail, URI or directory name never
            // matches a host, and `email:ann@example.org` read as `user:password@host` would be
            // masked in the message. A certificate may name thousands: the first ten, and how many more.
            let hostNames = certificateNames.filter { $0.hasPrefix("DNS:") || $0.hasPrefix("IP Address:") }
            let more = hostNames.count > 10 ? " and \(hostNames.count - 10) more" : ""
            let names = hostNames.isEmpty ? "no host name or IP address (no DNS or IP subjectAltName)"
                : hostNames.prefix(10).map(TrustFailure.shown).joined(separator: ", ") + more
            hint = "the certificate is for \(names); use that name in the URL, or pin the server's own key and add --no-verify-host --pin-scope leaf"
        case .pin:
            hint = pinLists
            if let subject = pinnedBeyondLeaf {
                // -k keeps that pin from counting; whether the chain would verify is not known
                // here (anyone can send a CA's certificate after a leaf of their own).
                hint += "\nswurl: hint: a pin matches \(TrustFailure.shown(subject)), which the server presented beyond its leaf: "
                    + "with -k only the leaf's key counts (the handshake proves that key alone); without -k a pin of the chain counts "
                    + "once the chain verifies (its CA trusted, or pinned with --pin-cert)"
            } else {
                hint += "\nswurl: hint: " + TrustFailure.updateThePin + " (\(certs) prints it)"
            }
        }
        return .trust(message, hint: hint)
    }

    private static let updateThePin = "if the server changed its key on purpose, update the pin"

    /// A pin failure's hint when the server was a redirect's: the pins hold for every hop, so
    /// replacing them with this server's (as "update the pin" said) failed the first hop.
    package static func hintAfterRedirect(_ hint: String) -> String {
        guard let r = hint.rangeOfText(updateThePin) else { return hint }
        var out = hint
        out.replaceSubrange(r, with: "the pins hold for every hop: to trust this server too, give its pin beside the others "
                            + "(--pin-pubkey again, or joined by ';'; for --pin-cert, a certificate of its path)")
        return out
    }

    /// The hint's lines of what the pins were held against (the presented certificates, or the
    /// verified path) and of the pins, as `swurl: hint:` lines.
    private var pinLists: String {
        var s = presentedIsPath ? "swurl: hint: the verified path (leaf to anchor):" : "swurl: hint: the server presented (leaf first):"
        for p in presented { s += "\n  \(p.pin)  \(TrustFailure.shown(p.subject))" }
        return s + "\nswurl: hint: pinned: \(TrustFailure.visible(pinned.joined(separator: ", ")))"
    }

    /// A name from a certificate as a message shows it: `visible`, and cut after 200 Unicode
    /// scalars (a hostile certificate's names can be long enough to flood the terminal; by
    /// scalars, as one Character may be a letter and 20,000 combining marks).
    package static func shown(_ name: String) -> String {
        guard name.unicodeScalars.count > 200 else { return visible(name) }
        return visible(String(String.UnicodeScalarView(name.unicodeScalars.prefix(200)))) + "…"
    }

    /// Replaces C0 and C1 control characters with `\xNN`, so a hostile certificate name cannot
    /// drive the terminal that shows the error.
    static func visible(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            let v = scalar.value
            if v < 0x20 || (v >= 0x7F && v <= 0x9F) {
                out += "\\x" + UInt8(v).hexPair
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
