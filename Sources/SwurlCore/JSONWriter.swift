/// Writes compact JSON straight into bytes, for documents too many or too large to build as a
/// `JSONValue` tree first (a HAR file's entries). Strings are escaped by `JSONValue.writeString`,
/// the one escaping rule; the caller writes keys and values in order, and the writer puts the
/// commas.
package struct JSONWriter {
    package var bytes: [UInt8] = []
    /// Whether the next key or value is the first in its object or array (no comma before it).
    private var first = true

    package init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    private mutating func separate() {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
    }

    /// `{` (after a comma when needed).
    package mutating func beginObject() { separate(); bytes.append(UInt8(ascii: "{")); first = true }
    package mutating func endObject() { bytes.append(UInt8(ascii: "}")); first = false }
    /// `[` (after a comma when needed).
    package mutating func beginArray() { separate(); bytes.append(UInt8(ascii: "[")); first = true }
    package mutating func endArray() { bytes.append(UInt8(ascii: "]")); first = false }

    /// `"key":`; the value written next belongs to it.
    package mutating func key(_ key: String) {
        separate()
        JSONValue.writeString(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        first = true
    }

    package mutating func string(_ s: String) { separate(); JSONValue.writeString(s, to: &bytes) }
    /// A number from its literal (`1.250`, `-1`), written as it is.
    package mutating func number(_ literal: String) { separate(); bytes.append(contentsOf: literal.utf8) }
    package mutating func number(_ n: Int64) { number(String(n)) }
    package mutating func bool(_ b: Bool) { separate(); bytes.append(contentsOf: (b ? "true" : "false").utf8) }

    /// `"key":"value"`.
    package mutating func member(_ key: String, _ value: String) { self.key(key); string(value) }
    /// `"key":literal`.
    package mutating func member(_ key: String, number literal: String) { self.key(key); number(literal) }

    // MARK: - Fragments: the caller writes the punctuation (no comma is put for it)

    /// JSON text of the caller's own (keys, punctuation), as it is.
    package mutating func raw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// `s` as a JSON string, quoted; printable ASCII without `"` or `\` is copied at once.
    package mutating func quoted(_ s: String) {
        var text = s
        let copied = text.withUTF8 { b -> Bool in
            guard JSONWriter.isPlain(b) else { return false }
            bytes.reserveCapacity(bytes.count + b.count + 2)
            bytes.append(0x22)
            bytes.append(contentsOf: b)
            bytes.append(0x22)
            return true
        }
        if !copied { JSONValue.writeString(s, to: &bytes) }
    }

    /// Bytes from the wire as a JSON string, quoted: copied at once when they are printable
    /// ASCII without `"` or `\`, else decoded as UTF-8 (invalid sequences repaired) and escaped.
    package mutating func quoted(bytes b: UnsafeBufferPointer<UInt8>) {
        if JSONWriter.isPlain(b) {
            bytes.reserveCapacity(bytes.count + b.count + 2)
            bytes.append(0x22)
            bytes.append(contentsOf: b)
            bytes.append(0x22)
        } else {
            JSONValue.writeString(String(decoding: b, as: UTF8.self), to: &bytes)
        }
    }

    private static func isPlain(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        for c in b where c < 0x20 || c >= 0x7F || c == 0x22 || c == 0x5C { return false }
        return true
    }

    /// `n` in decimal.
    package mutating func decimal(_ n: Int64) {
        if n < 0 {
            bytes.append(UInt8(ascii: "-"))
            if n == .min { bytes.append(contentsOf: "9223372036854775808".utf8); return }
        }
        var v = n < 0 ? -n : n
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { d in
            repeat {
                d[19 - count] = UInt8(truncatingIfNeeded: v % 10) &+ 0x30
                v /= 10
                count += 1
            } while v > 0
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: d[(20 - count)..<20]))
        }
    }

    /// Microseconds as milliseconds with three decimals (`1234` → `1.234`); negative is `-1`.
    package mutating func millis(_ us: Int64) {
        guard us >= 0 else { bytes.append(UInt8(ascii: "-")); bytes.append(UInt8(ascii: "1")); return }
        decimal(us / 1000)
        let frac = Int(us % 1000)
        bytes.append(UInt8(ascii: "."))
        bytes.append(UInt8(truncatingIfNeeded: frac / 100) &+ 0x30)
        bytes.append(UInt8(truncatingIfNeeded: frac / 10 % 10) &+ 0x30)
        bytes.append(UInt8(truncatingIfNeeded: frac % 10) &+ 0x30)
    }
}
