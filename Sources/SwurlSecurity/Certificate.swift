@preconcurrency import COpenSSL
@preconcurrency import CShims
#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlCore

/// One X.509 certificate, owning an OpenSSL `X509` reference (X509_free(3) in `deinit`).
///
/// Everything the rest of swurl needs is exposed as Swift values: DER bytes, names, SANs,
/// validity, key description, SHA-256 fingerprint and the `sha256//` SPKI pin.
final class Certificate {
    /// The owned `X509*`.
    package let raw: OpaquePointer

    /// Takes ownership of `raw` (one reference).
    init(owning raw: OpaquePointer) {
        self.raw = raw
    }

    /// Takes another reference on a certificate OpenSSL owns (X509_up_ref(3)).
    convenience init?(borrowing raw: OpaquePointer?) {
        guard let raw, X509_up_ref(raw) == 1 else { return nil }
        self.init(owning: raw)
    }

    /// Parses one DER certificate (d2i_X509(3)); nil when the bytes are not one.
    convenience init?(der: [UInt8]) {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buf in
            var p: UnsafePointer<UInt8>? = buf.baseAddress
            return d2i_X509(nil, &p, buf.count)
        }
        guard let parsed else { return nil }
        self.init(owning: parsed)
    }

    deinit { X509_free(raw) }

    /// Every certificate in `bytes`: all PEM blocks, or one DER certificate.
    static func parseAll(_ bytes: [UInt8]) -> [Certificate] {
        if PEMText.looksLikePEM(bytes) {
            return PEMText.read(bytes) { bio, phrase in PEM_read_bio_X509(bio, nil, nil, phrase) }.map(Certificate.init(owning:))
        }
        return Certificate(der: bytes).map { [$0] } ?? []
    }

    /// The DER encoding (i2d_X509(3)).
    var der: [UInt8] {
        let n = i2d_X509(raw, nil)
        guard n > 0 else { return [] }
        var out = [UInt8](repeating: 0, count: Int(n))
        out.withUnsafeMutableBufferPointer { buf in
            var p: UnsafeMutablePointer<UInt8>? = buf.baseAddress
            _ = i2d_X509(raw, &p)
        }
        return out
    }

    /// The subject's public key.
    var publicKey: PublicKey? {
        guard let key = X509_get_X509_PUBKEY(raw) else { return nil }
        let n = i2d_X509_PUBKEY(key, nil)
        guard n > 0 else { return nil }
        var out = [UInt8](repeating: 0, count: Int(n))
        out.withUnsafeMutableBufferPointer { buf in
            var p: UnsafeMutablePointer<UInt8>? = buf.baseAddress
            _ = i2d_X509_PUBKEY(key, &p)
        }
        return PublicKey(spki: out)
    }

    /// `sha256//BASE64` of the SubjectPublicKeyInfo, as curl and `--pin-pubkey` write it.
    var pin: String { publicKey?.pin ?? "sha256//?" }

    /// The SHA-256 fingerprint of the DER, as `openssl x509 -fingerprint -sha256` prints it
    /// (upper-case hex pairs joined by colons).
    var fingerprint: String {
        Digest.sha256(der).map(\.hexPair).joined(separator: ":")
    }

    /// The subject in RFC 2253 form (`CN=localhost,O=Example`).
    var subject: String { Certificate.name(X509_get_subject_name(raw)) }
    /// The issuer in RFC 2253 form.
    var issuer: String { Certificate.name(X509_get_issuer_name(raw)) }

    /// Whether subject and issuer are the same name (a self-issued, usually self-signed, certificate).
    var isSelfIssued: Bool {
        X509_NAME_cmp(X509_get_subject_name(raw), X509_get_issuer_name(raw)) == 0
    }

    /// The subjectAltName entries (`DNS:localhost`, `IP Address:127.0.0.1`), one per entry the
    /// certificate holds. A name's bytes that no host name, address or URI holds (a comma, a
    /// blank, a control or non-ASCII byte) are shown as `\xHH`: printed whole and split at its
    /// commas, one name `a.example, DNS:bank.example` read as two (and a NUL or a non-ASCII byte
    /// made the printer fail, so that no name was shown at all).
    var subjectAlternativeNames: [String] {
        guard let names = sw_x509_sans(raw) else { return [] }
        defer { sw_x509_sans_free(names) }
        var out: [String] = []
        for i in 0..<sw_x509_sans_count(names) {
            var data: UnsafePointer<UInt8>?
            var length: Int32 = 0
            let type = sw_x509_sans_entry(names, i, &data, &length)
            let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: Int(max(0, length)))) } ?? []
            switch type {
            case GEN_DNS: out.append("DNS:" + Certificate.nameText(bytes))
            case GEN_EMAIL: out.append("email:" + Certificate.nameText(bytes))
            case GEN_URI: out.append("URI:" + Certificate.nameText(bytes))
            case GEN_IPADD:
                let family = bytes.count == 4 ? AF_INET : bytes.count == 16 ? AF_INET6 : nil
                var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
                if let family, inet_ntop(family, bytes, &text, socklen_t(text.count)) != nil {
                    out.append("IP Address:" + String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
                } else {
                    out.append("IP Address:<invalid " + bytes.map(\.hexPair).joined() + ">")
                }
            case GEN_DIRNAME:
                // RFC 2253, as the subject is shown (a comma inside a value is escaped there).
                out.append("DirName:" + TrustFailure.visible(Certificate.name(sw_x509_sans_dirname(names, i))))
            default:
                // `othername:…`, `Registered ID:…`, as OpenSSL prints them.
                let text = MemoryBIO.text { bio in _ = sw_x509_sans_print(bio, names, i) }
                out.append(Certificate.nameText(Array(text.utf8), keepingBlanks: true))
            }
        }
        return out
    }

    /// A name's bytes as text: printable ASCII but the comma (and the blank, unless kept) as it
    /// is, every other byte `\xHH`.
    private static func nameText(_ bytes: [UInt8], keepingBlanks: Bool = false) -> String {
        var s = ""
        for b in bytes {
            if (b > 0x20 || (keepingBlanks && b == 0x20)) && b < 0x7F && b != UInt8(ascii: ",") {
                s.unicodeScalars.append(Unicode.Scalar(b))
            } else {
                s += "\\x" + b.hexPair
            }
        }
        return s
    }

    /// Start of validity as `YYYY-MM-DD hh:mm:ss UTC`.
    var notBefore: String { Certificate.time(X509_get0_notBefore(raw)) }
    /// End of validity as `YYYY-MM-DD hh:mm:ss UTC`.
    var notAfter: String { Certificate.time(X509_get0_notAfter(raw)) }

    /// Whole days from now until the end of validity; negative once expired.
    var daysLeft: Int {
        var days: Int32 = 0, seconds: Int32 = 0
        guard ASN1_TIME_diff(&days, &seconds, nil, X509_get0_notAfter(raw)) == 1 else { return 0 }
        if days == 0 && seconds < 0 { return -1 }
        return Int(days)
    }

    /// Whether the end of validity has passed.
    var isExpired: Bool {
        var days: Int32 = 0, seconds: Int32 = 0
        guard ASN1_TIME_diff(&days, &seconds, nil, X509_get0_notAfter(raw)) == 1 else { return false }
        return days < 0 || seconds < 0
    }

    /// Whether the start of validity is still in the future.
    var isNotYetValid: Bool {
        var days: Int32 = 0, seconds: Int32 = 0
        guard ASN1_TIME_diff(&days, &seconds, nil, X509_get0_notBefore(raw)) == 1 else { return false }
        return days > 0 || seconds > 0
    }

    /// `EC P-256`, `RSA 2048`, `ED25519 256`.
    var keyDescription: String {
        guard let key = X509_get0_pubkey(raw) else { return "unknown" }
        let bits = EVP_PKEY_get_bits(key)
        let id = EVP_PKEY_get_base_id(key)
        switch id {
        case EVP_PKEY_RSA: return "RSA \(bits)"
        case EVP_PKEY_EC:
            var buf = [CChar](repeating: 0, count: 80)
            var len = 0
            if EVP_PKEY_get_group_name(key, &buf, buf.count, &len) == 1, len > 0 {
                let group = String(decoding: buf.prefix(len).map { UInt8(bitPattern: $0) }, as: UTF8.self)
                let names = ["prime256v1": "P-256", "secp384r1": "P-384", "secp521r1": "P-521"]
                return "EC \(names[group] ?? group)"
            }
            return "EC \(bits)"
        default:
            if let p = OBJ_nid2sn(id) { return "\(String(cString: p)) \(bits)" }
            return "key \(bits)"
        }
    }

    /// Whether this certificate is valid for `host` (a DNS name or an IP literal), checked
    /// with X509_check_host(3) / X509_check_ip_asc(3) as libcurl checks it after the handshake:
    /// a name's trailing dot (`example.org.`, the absolute form) is not part of it, and a
    /// partial wildcard (`f*.example.org`) matches nothing. OpenSSL's defaults differ on both,
    /// so a certificate passed here that libcurl then refused (or the other way round).
    func matches(host: String) -> Bool {
        if HostName.isIPLiteral(host) {
            return X509_check_ip_asc(raw, host, 0) == 1
        }
        let name = host.hasSuffix(".") && host.count > 1 ? String(host.dropLast()) : host
        return X509_check_host(raw, name, name.utf8.count, UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS), nil) == 1
    }

    /// A one-line summary for `-v` and error messages.
    package var summary: String {
        "\(subject) (issuer \(issuer); \(keyDescription); \(isExpired ? "EXPIRED" : "valid until") \(notAfter))"
    }

    private static func name(_ name: OpaquePointer?) -> String {
        guard let name else { return "" }
        return MemoryBIO.text { bio in _ = sw_x509_name_print(bio, name) }
    }

    private static func time(_ t: UnsafePointer<ASN1_TIME>?) -> String {
        guard let t else { return "?" }
        var tm = tm()
        guard ASN1_TIME_to_tm(t, &tm) == 1 else { return "?" }
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(tm.tm_year + 1900)-\(two(tm.tm_mon + 1))-\(two(tm.tm_mday)) \(two(tm.tm_hour)):\(two(tm.tm_min)):\(two(tm.tm_sec)) UTC"
    }
}

/// Helpers for OpenSSL memory BIOs (BIO_s_mem(3)).
enum MemoryBIO {
    /// Runs `body` with a fresh memory BIO and returns what it wrote, as text.
    static func text(_ body: (OpaquePointer) -> Void) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { return "" }
        defer { BIO_free(bio) }
        body(bio)
        var p: UnsafePointer<CChar>?
        let n = sw_bio_mem_data(bio, &p)
        guard n > 0, let p else { return "" }
        return p.withMemoryRebound(to: UInt8.self, capacity: n) {
            String(decoding: UnsafeBufferPointer(start: $0, count: n), as: UTF8.self)
        }
    }
}

/// Reading PEM blocks from bytes (PEM_read_bio(3) family).
enum PEMText {
    /// Whether `bytes` contain a PEM armour line.
    static func looksLikePEM(_ bytes: [UInt8]) -> Bool {
        let marker = Array("-----BEGIN ".utf8)
        guard bytes.count >= marker.count else { return false }
        for i in 0...(bytes.count - marker.count) where bytes[i] == marker[0] {
            if Array(bytes[i..<(i + marker.count)]) == marker { return true }
        }
        return false
    }

    /// Reads objects with `read` until it returns nil. The memory BIO does not copy, so the
    /// bytes stay pinned for the whole loop. `read` gets the BIO and a pass phrase for OpenSSL's
    /// `u` argument (with no callback, OpenSSL takes it as the phrase): empty unless `password`
    /// is given, so an encrypted block never makes OpenSSL ask on the terminal itself.
    package static func read(_ bytes: [UInt8], password: String? = nil,
                             _ read: (OpaquePointer, UnsafeMutableRawPointer?) -> OpaquePointer?) -> [OpaquePointer] {
        var out: [OpaquePointer] = []
        var phrase = Array((password ?? "").utf8CString)
        phrase.withUnsafeMutableBytes { p in
            bytes.withUnsafeBytes { buf in
                guard let base = buf.baseAddress, let bio = BIO_new_mem_buf(base, Int32(buf.count)) else { return }
                defer { BIO_free(bio) }
                while let object = read(bio, p.baseAddress) { out.append(object) }
                ERR_clear_error()   // the loop ends on "no start line"; keep the error queue clean
            }
        }
        return out
    }
}

/// SHA-256 via SHA256_Init(3) and friends (`sw_sha256`), not EVP_Digest(3): the EVP route's
/// first call fetches the algorithm from OpenSSL's providers, a cost a cache hit — whose key and
/// entry digests are its only use of OpenSSL — would pay for nothing.
package enum Digest {
    /// The 32-byte digest of `bytes`.
    package static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { sha256($0) }
    }

    /// The 32-byte digest of `bytes`.
    package static func sha256(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 32) { out, count in
            sw_sha256(bytes.baseAddress, bytes.count, out.baseAddress)
            count = 32
        }
    }

    /// The 32-byte digest of `bytes`, written to `out` (nothing allocated: `swurl cache list`
    /// checks one per entry).
    package static func sha256(_ bytes: UnsafeRawBufferPointer, into out: UnsafeMutablePointer<UInt8>) {
        sw_sha256(bytes.baseAddress, bytes.count, out)
    }
}
