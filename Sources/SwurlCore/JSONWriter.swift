/// Writes compact JSON straight into bytes, for documents too many or too large to build as a
/// `JSONValue` tree first (a HAR file's entries). The caller writes the punctuation and keys as
/// fragments (`raw`) and the values with `quoted`, `decimal` and `millis`. Strings are escaped
/// by `JSONValue.writeString`, the one escaping rule; printable ASCII without `"` or `\`, which
/// it copies as it is, is copied here at once.
package struct JSONWriter: ~Copyable {
    package var bytes: ByteBuffer

    package init(capacity: Int = 256) { bytes = ByteBuffer(capacity: capacity) }

    /// JSON text of the caller's own (keys, punctuation), as it is.
    @inlinable @inline(__always)
    package mutating func raw(_ text: StaticString) { bytes.append(text) }

    /// `s` as a JSON string, quoted.
    @inlinable
    package mutating func quoted(_ s: String) {
        // A native or small string's bytes in place; another kind is copied first.
        if s.utf8.withContiguousStorageIfAvailable({ quoted(bytes: $0) }) != nil { return }
        var text = s
        text.withUTF8 { quoted(bytes: $0) }
    }

    /// Bytes from the wire as a JSON string, quoted: copied at once when they are printable
    /// ASCII without `"` or `\`, else decoded as UTF-8 (invalid sequences repaired) and escaped.
    @inlinable
    package mutating func quoted(bytes b: UnsafeBufferPointer<UInt8>) {
        guard JSONWriter.isPlain(b) else { return escaped(b) }
        bytes.write(upTo: b.count + 2) { p in
            p[0] = 0x22
            if let start = b.baseAddress { (p + 1).update(from: start, count: b.count) }
            p[b.count + 1] = 0x22
            return b.count + 2
        }
    }

    @usableFromInline
    mutating func escaped(_ b: UnsafeBufferPointer<UInt8>) {
        var escaped: [UInt8] = []
        escaped.reserveCapacity(2 * b.count + 8)
        JSONValue.writeString(String(decoding: b, as: UTF8.self), to: &escaped)
        bytes.append(contentsOf: escaped)
    }

    /// `{"name":NAME,"value":VALUE}`, after a comma unless `first`: a HAR name/value pair, the
    /// two written as `quoted` writes them; printable ones with one capacity check and no call.
    package mutating func pair(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, first: Bool) {
        guard let n = name.baseAddress, let v = value.baseAddress, JSONWriter.isPlain(name), JSONWriter.isPlain(value) else {
            if first { raw("{\"name\":") } else { raw(",{\"name\":") }
            quoted(bytes: name)
            raw(",\"value\":")
            quoted(bytes: value)
            raw("}")
            return
        }
        let open: StaticString = ",{\"name\":\"", middle: StaticString = "\",\"value\":\""
        let skip = first ? 1 : 0
        let total = open.utf8CodeUnitCount - skip + name.count + middle.utf8CodeUnitCount + value.count + 2
        bytes.write(upTo: total) { p in
            var at = p
            at.update(from: open.utf8Start + skip, count: open.utf8CodeUnitCount - skip)
            at += open.utf8CodeUnitCount - skip
            at.update(from: n, count: name.count)
            at += name.count
            at.update(from: middle.utf8Start, count: middle.utf8CodeUnitCount)
            at += middle.utf8CodeUnitCount
            at.update(from: v, count: value.count)
            at += value.count
            at[0] = 0x22
            at[1] = UInt8(ascii: "}")
            return total
        }
    }

    /// `pair` of two strings.
    package mutating func pair(name: String, value: String, first: Bool) {
        // A native or small string's bytes in place; another kind is copied first.
        let done = name.utf8.withContiguousStorageIfAvailable { n in
            value.utf8.withContiguousStorageIfAvailable { v in pair(name: n, value: v, first: first) }
        }
        if case .some(.some) = done { return }
        var name = name, value = value
        name.withUTF8 { n in value.withUTF8 { v in pair(name: n, value: v, first: first) } }
    }

    /// Whether every byte is printable ASCII other than `"` and `\`. Eight bytes at a time
    /// (most strings are shorter than a vector loop would need): a word has such a byte when
    /// one of its bytes is below 0x20, has the high bit, or equals 0x7F, `"` or `\`, each
    /// tested for all eight bytes with the carry tricks of "Bit Twiddling Hacks" (hasless,
    /// haszero), which are exact for "is there any".
    @inlinable
    static func isPlain(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let p = b.baseAddress else { return true }
        let ones: UInt64 = 0x0101_0101_0101_0101, high: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func zero(_ v: UInt64) -> UInt64 { (v &- ones) & ~v & high }
        @inline(__always) func flags(_ x: UInt64) -> UInt64 {
            ((x &- ones &* 0x20) & ~x & high) | (x & high)
                | zero(x ^ (ones &* 0x7F)) | zero(x ^ (ones &* 0x22)) | zero(x ^ (ones &* 0x5C))
        }
        var bad: UInt64 = 0
        var i = 0
        while i + 8 <= b.count {
            bad |= flags(UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self))
            i += 8
        }
        if i < b.count {
            if b.count >= 8 {
                // The last eight bytes, some of them seen already.
                bad |= flags(UnsafeRawPointer(p + b.count - 8).loadUnaligned(as: UInt64.self))
            } else {
                for k in i..<b.count {
                    let c = p[k]
                    if c < 0x20 || c >= 0x7F || c == 0x22 || c == 0x5C { return false }
                }
            }
        }
        return bad == 0
    }

    /// `n` in decimal.
    @inlinable @inline(__always)
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
