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
            let keys = PEMText.read(bytes) { bio in PEM_read_bio_PUBKEY(bio, nil, nil, nil) }
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

/// Standard base64 with padding (RFC 4648 §4), for `sha256//` pins.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            let b0 = bytes[i], b1 = i + 1 < bytes.count ? bytes[i + 1] : 0, b2 = i + 2 < bytes.count ? bytes[i + 2] : 0
            out.append(alphabet[Int(b0 >> 2)])
            out.append(alphabet[Int((b0 & 3) << 4 | b1 >> 4)])
            out.append(i + 1 < bytes.count ? alphabet[Int((b1 & 15) << 2 | b2 >> 6)] : UInt8(ascii: "="))
            out.append(i + 2 < bytes.count ? alphabet[Int(b2 & 63)] : UInt8(ascii: "="))
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes padded or unpadded base64; nil on any character outside the alphabet.
    static func decode(_ text: String) -> [UInt8]? {
        var values: [UInt8] = []
        var padding = 0
        for c in text.utf8 {
            if c == UInt8(ascii: "=") { padding += 1; continue }
            guard padding == 0, let v = alphabet.firstIndex(of: c) else { return nil }
            values.append(UInt8(v))
        }
        guard padding <= 2, values.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        var i = 0
        while i < values.count {
            let chunk = Array(values[i..<min(i + 4, values.count)])
            let v0 = chunk[0], v1 = chunk.count > 1 ? chunk[1] : 0
            out.append(v0 << 2 | v1 >> 4)
            if chunk.count > 2 { out.append((v1 & 15) << 4 | chunk[2] >> 2) }
            if chunk.count > 3 { out.append((chunk[2] & 3) << 6 | chunk[3]) }
            i += 4
        }
        return out
    }
}

/// Host names as libcurl puts them in a URL.
enum HostName {
    /// `[::1]` → `::1`; other hosts unchanged.
    static func bare(_ host: String) -> String {
        if host.hasPrefix("["), host.hasSuffix("]") { return String(host.dropFirst().dropLast()) }
        return host
    }

    /// Whether `host` is an IPv4 or IPv6 literal (IP SANs are checked, not DNS names).
    static func isIPLiteral(_ host: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}
