import SwurlCurl
import SwurlSecurity
import SwurlCore
/// Connects to an HTTPS server, completes the TLS handshake, sends no request, and reports the
/// certificates (`swurl certs`). Works on untrusted, self-signed and expired chains: the
/// verifier runs in `.inspect` mode and accepts every handshake.
package enum CertificateProbe {
    /// libcurl's "SSL connection timeout", in the words a request's timeout has (libcurl 7.88
    /// counts no connect time while a handshake goes on, so the two are not told apart).
    static let handshakeTimedOut = SwurlError.timedOut("timed out connecting: the connection or its TLS handshake was not made")

    /// - Parameters:
    ///   - url: an `https://` URL.
    ///   - policy: trust store, pins and client certificate to evaluate against (never enforced).
    ///   - connection: how to connect (timeouts, proxy, Unix socket, `--resolve`, IP version), as
    ///     for a request.
    /// - Throws: `.usage` for a non-HTTPS URL, `.transport` when the connection fails.
    package static func inspect(url: CurlURL, policy: SecurityPolicy, connection: TransferOptions = TransferOptions()) throws(SwurlError) -> CertificateReport {
        guard url.scheme == "https" else {
            throw .usage("swurl certs needs an https:// URL (got '\(url.url)')", hint: "e.g. swurl certs https://\(url.hostHeader)")
        }
        try Exchange.refuseUnreachableFamily(url.url, connection)
        let easy = try EasyHandle()
        try easy.set(.url(url.url), "the URL")
        try easy.set(.noSignal(true))
        try easy.set(.protocols("https"), "the protocol list")
        // CONNECT_ONLY: connect and handshake, then stop — zero HTTP bytes.
        try easy.set(.connectOnly(true))
        try easy.applyRoute(connection, url: url.url)
        let verifier = try easy.applySecurity(policy, mode: .inspect)
        let rc = withExtendedLifetime(verifier) { easy.perform() }
        if !rc.succeeded, rc.couldNotConnect, let path = connection.unixSocket { throw Transfer.unixSocketFailure(path) }
        // A proxy that is down or refuses the tunnel is named, as a request names it.
        if !rc.succeeded, let failure = Transfer.proxyFailure(rc, proxy: connection.proxy, url: url.url, connectCode: easy.connectCode,
                                                              credentialsItem: nil) {
            throw failure
        }
        guard rc.succeeded else { throw rc.timedOut ? CertificateProbe.handshakeTimedOut : verifier.explain(rc, rc.error) }
        guard let inspection = verifier.inspection else {
            throw .transport("the server at \(url.hostHeader) presented no certificate")
        }
        var report = CertificateReport(url: url.url, host: verifier.host, inspection: inspection, pinsGiven: policy.hasPins)
        report.insecure = policy.allowsInvalidCertificates
        return report
    }
}

extension CertificateProbe {
    /// Connects to `address` for the URL's host and completes the TLS handshake under `policy`
    /// (enforced, as for a request); sends no HTTP bytes (`swurl reach`).
    /// - Returns: the handshake's seconds and what was negotiated.
    /// - Throws: `.trust` when the policy rejects the server, `.transport`/`.timedOut` otherwise.
    package static func handshake(url: CurlURL, address: String, port: Int, policy: SecurityPolicy,
                                 timeout: Double?) throws(SwurlError) -> (seconds: Double, summary: TLSSummary?) {
        let easy = try EasyHandle()
        try easy.set(.url(url.url), "the URL")
        try easy.set(.noSignal(true))
        try easy.set(.protocols("https"), "the protocol list")
        try easy.set(.connectOnly(true))
        // No ALPN: a server that chose h2 sends its SETTINGS at once, and libcurl 7.88 fed them
        // to its HTTP/2 code from the read after the handshake (below), which has no stream and
        // crashed (SIGSEGV) on most real https servers. Offering http/1.1 alone instead made an
        // h2-only server (gRPC) refuse the handshake; without ALPN it picks nothing and answers.
        try easy.set(.alpn(false), "ALPN")
        var host = url.host
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        // The address that answered the TCP connect, not a fresh lookup.
        if host != address {
            try easy.set(.resolve(["\(host):\(port):" + (address.contains(":") ? "[\(address)]" : address)]), "the address")
        }
        if let t = timeout { try easy.set(.connectTimeoutMilliseconds(max(1, Int(t * 1000)))) }
        // The address the TCP step reached, straight: libcurl would otherwise take a proxy from
        // the environment (https_proxy) for this step alone.
        try easy.set(.proxy(""), "the proxy")
        let verifier = try easy.applySecurity(policy, mode: .enforce)
        var summary: TLSSummary?
        verifier.onVerified = { summary = $0 }
        let rc = withExtendedLifetime(verifier) { easy.perform() }
        if let trust = verifier.failure { throw trust.error }
        if Interrupt.requested { throw .interrupted }
        guard rc.succeeded else { throw rc.timedOut ? CertificateProbe.handshakeTimedOut : verifier.explain(rc, rc.error) }
        let seconds = max(0, easy.seconds(.appConnect) - easy.seconds(.connect))
        // TLS 1.3 lets the client finish first: a server that requires a client certificate
        // (or refuses the one given) says so after the handshake, with an alert. Wait for it
        // about two round trips (the handshake took one), at least 150 ms, at most a second.
        if summary?.version == "TLSv1.3" {
            let after = easy.awaitAfterConnect(milliseconds: min(1000, max(150, Int(seconds * 2000))))
            // Ctrl-C ends the wait (poll returns EINTR): it is an interruption, not a verdict.
            if Interrupt.requested { throw .interrupted }
            if !after.succeeded { throw verifier.explain(after, after.error) }
        }
        return (seconds, summary)
    }
}
