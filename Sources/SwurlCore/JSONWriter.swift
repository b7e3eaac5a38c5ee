/// Writes compact JSON straight into bytes, for documents too many or too large to build as a
/// `JSONValue` tree first (a HAR file's entries). Strings are escaped by `JSONValue.writeString`,
/// the one escaping rule; the caller writes keys and values in order, and the writer puts the
/// commas.
public struct JSONWriter {
    public var bytes: [UInt8] = []
    /// Whether the next key or value is the first in its object or array (no comma before it).
    private var first = true

    public init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    private mutating func separate() {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
    }

    /// `{` (after a comma when needed).
    public mutating func beginObject() { separate(); bytes.append(UInt8(ascii: "{")); first = true }
    public mutating func endObject() { bytes.append(UInt8(ascii: "}")); first = false }
    /// `[` (after a comma when needed).
    public mutating func beginArray() { separate(); bytes.append(UInt8(ascii: "[")); first = true }
    public mutating func endArray() { bytes.append(UInt8(ascii: "]")); first = false }

    /// `"key":`; the value written next belongs to it.
    public mutating func key(_ key: String) {
        separate()
        JSONValue.writeString(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        first = true
    }

    public mutating func string(_ s: String) { separate(); JSONValue.writeString(s, to: &bytes) }
    /// A number from its literal (`1.250`, `-1`), written as it is.
    public mutating func number(_ literal: String) { separate(); bytes.append(contentsOf: literal.utf8) }
    public mutating func number(_ n: Int64) { number(String(n)) }
    public mutating func bool(_ b: Bool) { separate(); bytes.append(contentsOf: (b ? "true" : "false").utf8) }

    /// `"key":"value"`.
    public mutating func member(_ key: String, _ value: String) { self.key(key); string(value) }
    /// `"key":literal`.
    public mutating func member(_ key: String, number literal: String) { self.key(key); number(literal) }
}
