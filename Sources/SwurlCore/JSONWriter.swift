/// Writes compact JSON straight into bytes, for documents too many or too large to build as a
/// `JSONValue` tree first (a HAR file's entries). The caller writes the punctuation and keys as
/// fragments (`raw`) and the values with `quoted`, `decimal` and `millis`. Strings are escaped
/// by `JSONValue.writeString`, the one escaping rule; printable ASCII without `"` or `\`, which
/// it copies as it is, is copied here at once.
public struct JSONWriter: ~Copyable {
    public var bytes: ByteBuffer

    public init(capacity: Int = 256) { bytes = ByteBuffer(capacity: capacity) }

    /// JSON text of the caller's own (keys, punctuation), as it is.
    @inlinable @inline(__always)
    public mutating func raw(_ text: StaticString) { bytes.append(text) }

    /// `s` as a JSON string, quoted.
    @inlinable
    public mutating func quoted(_ s: String) {
        s.withUTF8Bytes { quoted(bytes: $0) }
    }

    /// Bytes from the wire as a JSON string, quoted: copied at once when they are printable
    /// ASCII without `"` or `\`, else decoded as UTF-8 (invalid sequences repaired) and escaped.
    @inlinable
    public mutating func quoted(bytes b: UnsafeBufferPointer<UInt8>) {
        var plain = true
        bytes.write(upTo: b.count + 2) { p in
            p[0] = 0x22
            guard JSONWriter.copyIfPlain(b, to: p + 1) else { plain = false; return 0 }
            p[b.count + 1] = 0x22
            return b.count + 2
        }
        if !plain { escaped(b) }
    }

    @usableFromInline
    mutating func escaped(_ b: UnsafeBufferPointer<UInt8>) {
        if !b.contains(where: { $0 >= 0x80 }) {
            // ASCII is valid UTF-8 as it is: escaped straight into the buffer (a quoted ETag).
            bytes.write(upTo: 6 * b.count + 2) { p in
                var n = 1
                p[0] = 0x22
                JSONValue.escape(b) { p[n] = $0; n += 1 }
                p[n] = 0x22
                return n + 1
            }
            return
        }
        var escaped: [UInt8] = []
        escaped.reserveCapacity(2 * b.count + 8)
        JSONValue.writeString(String(decoding: b, as: UTF8.self), to: &escaped)
        bytes.append(contentsOf: escaped)
    }

    /// `{"name":NAME,"value":VALUE}`, after a comma unless `first`: a HAR name/value pair, the
    /// two written as `quoted` writes them; printable ones in one reservation, each checked
    /// while it is copied (`copyIfPlain`), without a call.
    public mutating func pair(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, first: Bool) {
        let open: StaticString = ",{\"name\":\"", middle: StaticString = "\",\"value\":\""
        let skip = first ? 1 : 0
        let total = open.utf8CodeUnitCount - skip + name.count + middle.utf8CodeUnitCount + value.count + 2
        var plain = true
        bytes.write(upTo: total) { p in
            var at = p
            copyBytes(open.utf8Start + skip, to: at, count: open.utf8CodeUnitCount - skip)
            at += open.utf8CodeUnitCount - skip
            guard JSONWriter.copyIfPlain(name, to: at) else { plain = false; return 0 }
            at += name.count
            at += putBytes(middle, at: at)
            guard JSONWriter.copyIfPlain(value, to: at) else { plain = false; return 0 }
            at += value.count
            at[0] = 0x22
            at[1] = UInt8(ascii: "}")
            return total
        }
        guard !plain else { return }
        if first { raw("{\"name\":") } else { raw(",{\"name\":") }
        quoted(bytes: name)
        raw(",\"value\":")
        quoted(bytes: value)
        raw("}")
    }

    /// `pair` of two strings.
    public mutating func pair(name: String, value: String, first: Bool) {
        name.withUTF8Bytes { n in value.withUTF8Bytes { v in pair(name: n, value: v, first: first) } }
    }

    /// Copies `b` to `target` (room for `b.count` bytes) while testing that every byte is
    /// printable ASCII other than `"` and `\`: false when one is not, the copy then unfinished.
    /// Eight bytes at a time (most strings are shorter than a vector loop would need): a word
    /// has such a byte when one of its bytes is below 0x20, has the high bit, or equals 0x7F,
    /// `"` or `\`, each tested for all eight bytes with the carry tricks of "Bit Twiddling
    /// Hacks" (hasless, haszero), which are exact for "is there any".
    @inlinable @inline(__always)
    static func copyIfPlain(_ b: UnsafeBufferPointer<UInt8>, to target: UnsafeMutablePointer<UInt8>) -> Bool {
        guard let p = b.baseAddress else { return true }
        let n = b.count
        let from = UnsafeRawPointer(p), to = UnsafeMutableRawPointer(target)
        guard n >= 8 else {
            if n >= 4 {
                // Two words of four, overlapping when n < 8, tested as one.
                let head = from.loadUnaligned(as: UInt32.self), tail = from.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)
                guard notPlain(UInt64(head) | UInt64(tail) << 32) == 0 else { return false }
                to.storeBytes(of: head, as: UInt32.self)
                to.storeBytes(of: tail, toByteOffset: n - 4, as: UInt32.self)
                return true
            }
            for k in 0..<n {
                let c = p[k]
                guard isPlainByte(c) else { return false }
                target[k] = c
            }
            return true
        }
        var bad: UInt64 = 0
        var i = 0
        while i + 8 <= n {
            let w = from.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            bad |= notPlain(w)
            to.storeBytes(of: w, toByteOffset: i, as: UInt64.self)
            i += 8
        }
        if i < n {
            // The last eight bytes, some of them copied already.
            let w = from.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
            bad |= notPlain(w)
            to.storeBytes(of: w, toByteOffset: n - 8, as: UInt64.self)
        }
        return bad == 0
    }

    @inlinable @inline(__always)
    static func isPlainByte(_ c: UInt8) -> Bool { c >= 0x20 && c < 0x7F && c != 0x22 && c != 0x5C }

    /// The high bit of each byte of `x` that is not plain (for "is there any": exact).
    @inlinable @inline(__always)
    static func notPlain(_ x: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101, high: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func zero(_ v: UInt64) -> UInt64 { (v &- ones) & ~v & high }
        return ((x &- ones &* 0x20) & ~x & high) | (x & high)
            | zero(x ^ (ones &* 0x7F)) | zero(x ^ (ones &* 0x22)) | zero(x ^ (ones &* 0x5C))
    }

    /// `n` in decimal.
    @inlinable @inline(__always)
    public mutating func decimal(_ n: Int64) { bytes.appendDecimal(n) }

    /// Microseconds as milliseconds with three decimals (`1234` → `1.234`); negative is `-1`.
    public mutating func millis(_ us: Int64) {
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
