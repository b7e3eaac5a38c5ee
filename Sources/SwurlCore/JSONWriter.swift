/// Writes compact JSON straight into bytes, for documents too many or too large to build as a
/// `JSONValue` tree first (a HAR file's entries). The caller writes the punctuation and keys as
/// fragments (`raw`) and the values with `quoted`, `decimal` and `millis`. Strings are escaped
/// by `JSONValue.writeString`, the one escaping rule; printable ASCII without `"` or `\`, which
/// it copies as it is, is copied here at once.
package struct JSONWriter: ~Copyable {
    package var bytes: ByteBuffer

    package init(capacity: Int = 256) { bytes = ByteBuffer(capacity: capacity) }

    /// JSON text of the caller's own (keys, punctuation), as it is.
    @inline(__always)
    package mutating func raw(_ text: StaticString) { bytes.append(text) }

    /// `s` as a JSON string, quoted.
    package mutating func quoted(_ s: String) {
        var text = s
        text.withUTF8 { quoted(bytes: $0) }
    }

    /// Bytes from the wire as a JSON string, quoted: copied at once when they are printable
    /// ASCII without `"` or `\`, else decoded as UTF-8 (invalid sequences repaired) and escaped.
    package mutating func quoted(bytes b: UnsafeBufferPointer<UInt8>) {
        guard JSONWriter.isPlain(b) else {
            var escaped: [UInt8] = []
            JSONValue.writeString(String(decoding: b, as: UTF8.self), to: &escaped)
            bytes.append(contentsOf: escaped)
            return
        }
        bytes.write(upTo: b.count + 2) { p in
            p[0] = 0x22
            if let start = b.baseAddress { (p + 1).update(from: start, count: b.count) }
            p[b.count + 1] = 0x22
            return b.count + 2
        }
    }

    /// Whether every byte is printable ASCII other than `"` and `\` (one pass without early
    /// exit, so the loop vectorizes; the other case is rare).
    private static func isPlain(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        var bad: UInt8 = 0
        for c in b {
            // c < 0x20 or c >= 0x7F: below 0x20 wraps around past 0x5F.
            bad |= (c &- 0x20 >= 0x5F ? 1 : 0) | (c == 0x22 ? 1 : 0) | (c == 0x5C ? 1 : 0)
        }
        return bad == 0
    }

    /// `n` in decimal.
    @inline(__always)
    package mutating func decimal(_ n: Int64) { bytes.appendDecimal(n) }

    /// Microseconds as milliseconds with three decimals (`1234` → `1.234`); negative is `-1`.
    package mutating func millis(_ us: Int64) {
        guard us >= 0 else { raw("-1"); return }
        bytes.appendDecimal(us / 1000)
        let frac = Int(us % 1000)
        bytes.write(upTo: 4) { p in
            p[0] = UInt8(ascii: ".")
            p[1] = UInt8(truncatingIfNeeded: frac / 100) &+ 0x30
            p[2] = UInt8(truncatingIfNeeded: frac / 10 % 10) &+ 0x30
            p[3] = UInt8(truncatingIfNeeded: frac % 10) &+ 0x30
            return 4
        }
    }
}
