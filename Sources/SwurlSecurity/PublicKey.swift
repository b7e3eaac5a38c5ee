import SwurlCore
@preconcurrency import COpenSSL
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// A public key as its DER SubjectPublicKeyInfo — the bytes `sha256//` pins hash.
struct PublicKey: Equatable, Sendable {
    /// The DER SubjectPublicKeyInfo.
    let spki: [UInt8]

    /// The SHA-256 of the SPKI: what a `sha256//` pin holds.
    var digest: [UInt8] { Digest.sha256(spki) }

    /// `sha256//BASE64`, equal to `openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`.
    var pin: String { "sha256//" + Base64.encode(digest) }

    /// Every public key in `bytes`: PEM `PUBLIC KEY` blocks, PEM certificates (their keys), a DER
    /// SubjectPublicKeyInfo, or a DER certificate.
    static func parseAll(_ bytes: [UInt8]) -> [PublicKey] {
        if PEMText.looksLikePEM(bytes) {
            let keys = PEMText.read(bytes) { bio, phrase in PEM_read_bio_PUBKEY(bio, nil, nil, phrase) }
            let fromKeys = keys.compactMap { key -> PublicKey? in
                defer { EVP_PKEY_free(key) }
                return PublicKey(evp: key)
            }
            let fromCerts = Certificate.parseAll(bytes).compactMap(\.publicKey)
            return fromKeys + fromCerts
        }
        let parsed: OpaquePointer? = bytes.withUnsafeBufferPointer { buf in
            var p: UnsafePointer<UInt8>? = buf.baseAddress
            return d2i_PUBKEY(nil, &p, buf.count)
        }
        if let parsed {
            defer { EVP_PKEY_free(parsed) }
            if let key = PublicKey(evp: parsed) { return [key] }
        }
        return Certificate(der: bytes)?.publicKey.map { [$0] } ?? []
    }

    init(spki: [UInt8]) {
        self.spki = spki
    }

    /// The SPKI of an `EVP_PKEY` (i2d_PUBKEY(3)).
    init?(evp: OpaquePointer) {
        let n = i2d_PUBKEY(evp, nil)
        guard n > 0 else { return nil }
        var out = [UInt8](repeating: 0, count: Int(n))
        out.withUnsafeMutableBufferPointer { buf in
            var p: UnsafeMutablePointer<UInt8>? = buf.baseAddress
            _ = i2d_PUBKEY(evp, &p)
        }
        spki = out
    }
}

/// Host names as libcurl puts them in a URL.
package enum HostName {
    /// `[::1]` → `::1`; other hosts unchanged.
    package static func bare(_ host: String) -> String {
        if host.hasPrefix("["), host.hasSuffix("]") { return String(host.dropFirst().dropLast()) }
        return host
    }

    /// Whether `host` is an IPv4 or IPv6 literal (IP SANs are checked, not DNS names).
    static func isIPLiteral(_ host: String) -> Bool { isIPv4Literal(host) || isIPv6Literal(host) }

    /// Whether `host` (without brackets) is an IPv4 literal.
    package static func isIPv4Literal(_ host: String) -> Bool {
        var v4 = in_addr()
        return inet_pton(AF_INET, host, &v4) == 1
    }

    /// Whether `host` (without brackets) is an IPv6 literal.
    package static func isIPv6Literal(_ host: String) -> Bool {
        var v6 = in6_addr()
        return inet_pton(AF_INET6, host, &v6) == 1
    }
}
