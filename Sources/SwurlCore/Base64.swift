/// Standard base64 with padding (RFC 4648 §4), for `sha256//` pins and
/// `Authorization: Basic`.
package enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    package static func encode(_ bytes: [UInt8]) -> String {
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
    /// - Parameter ignoringWhitespace: skip spaces, tabs and line breaks (property-list `<data>`).
    package static func decode(_ text: String, ignoringWhitespace: Bool = false) -> [UInt8]? {
        var values: [UInt8] = []
        var padding = 0
        for c in text.utf8 {
            if ignoringWhitespace && (c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09) { continue }
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
