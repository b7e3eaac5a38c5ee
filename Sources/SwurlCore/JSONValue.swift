/// A JSON document that keeps key order and number literals exactly as written.
package indirect enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    /// The number's literal text, e.g. `1.50` or `12345678901234567890`, never rounded.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([Member])

    /// One key and value of an object, in document order.
    package struct Member: Equatable, Sendable {
        package var key: String
        package var value: JSONValue
        package init(_ key: String, _ value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// Compact JSON text (no spaces), UTF-8 kept as is, control characters (C0, DEL, C1) escaped.
    package var serialized: String {
        var out: [UInt8] = []
        write(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends compact JSON text to `out`.
    package func write(to out: inout [UInt8]) {
        switch self {
        case .null: out += Array("null".utf8)
        case .bool(let b): out += Array((b ? "true" : "false").utf8)
        case .number(let n): out += Array(n.utf8)
        case .string(let s): JSONValue.writeString(s, to: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                item.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (i, member) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONValue.writeString(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                member.value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `s` as a quoted JSON string. C0 controls, DEL and the C1 controls U+0080…U+009F
    /// (CSI among them) are written as `\u00XX` escapes, and the bidirectional embeddings,
    /// overrides and isolates as `\u202e` and the like, so the text is safe on a terminal.
    package static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most strings need no escape: copied at once.
        var plain = s
        let copied = plain.withUTF8 { b -> Bool in
            guard b.allSatisfy({ $0 >= 0x20 && $0 != 0x22 && $0 != 0x5C && $0 != 0x7F && $0 != 0xC2 && $0 != 0xD8 && $0 != 0xE2 }) else { return false }
            out.append(contentsOf: b)
            return true
        }
        if copied {
            out.append(UInt8(ascii: "\""))
            return
        }
        // Byte by byte, without an array literal per escape (a server's quoted ETag is escaped
        // in every HAR entry).
        JSONValue.escape(plain.utf8) { out.append($0) }
        out.append(UInt8(ascii: "\""))
    }

    /// Whether `E2 second third` is a scalar no terminal may get as it is: a bidirectional
    /// embedding, override or isolate (U+202A–U+202E, U+2066–U+2069), or a left-to-right or
    /// right-to-left mark (U+200E, U+200F). The Arabic letter mark U+061C (`D8 9C`), the third
    /// mark, is the one two-byte scalar of the kind (`isBidiControl(scalar:)` names them all).
    @inlinable @inline(__always)
    package static func isBidiControl(_ third: UInt8, after second: UInt8) -> Bool {
        second == 0x80 ? (0xAA...0xAE).contains(third) || third == 0x8E || third == 0x8F
            : second == 0x81 && (0xA6...0xA9).contains(third)
    }

    /// Whether a scalar is a bidirectional control or mark no terminal may get as it is (those
    /// of `isBidiControl(_:after:)` and U+061C).
    package static func isBidiControl(scalar v: UInt32) -> Bool {
        (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v) || v == 0x200E || v == 0x200F || v == 0x061C
    }

    /// The escaping rule of every JSON string swurl writes (`writeString`, and `JSONWriter` for
    /// bytes that need escapes): valid UTF-8 in, the string's inside out through `put`. `"` and
    /// the backslash are escaped, line feed, return, tab, backspace and form feed by their
    /// letters, other C0 controls, DEL and U+0080…U+009F as `\u00XX`, the bidirectional
    /// controls U+202A…U+202E and U+2066…U+2069 and the marks U+200E, U+200F and U+061C (which
    /// would reorder a terminal's line, as `TerminalSanitizer` says) as `\u202a`…; at most six
    /// bytes out for each byte in.
    @inlinable @inline(__always)
    package static func escape(_ bytes: some Sequence<UInt8>, _ put: (UInt8) -> Void) {
        let hex: StaticString = "0123456789abcdef"
        @inline(__always) func escape(_ c: UInt8) { put(0x5C); put(c) }
        @inline(__always) func unicode(_ high: UInt8, _ low: UInt8) {
            put(0x5C); put(UInt8(ascii: "u"))
            put(hex.utf8Start[Int(high >> 4)])
            put(hex.utf8Start[Int(high & 0xF)])
            put(hex.utf8Start[Int(low >> 4)])
            put(hex.utf8Start[Int(low & 0xF)])
        }
        // A lead byte held back until what follows tells whether it starts a scalar to escape:
        // 0xC2 (U+0080…U+009F), 0xD8 (U+061C), 0xE2 and 0xE2 0x80/0x81 (the bidirectional
        // controls).
        var lead: UInt8 = 0, second: UInt8 = 0
        for byte in bytes {
            if lead == 0xC2 {
                lead = 0
                if byte >= 0x80 && byte <= 0x9F {
                    unicode(0, byte)
                    continue
                }
                put(0xC2)
            } else if lead == 0xD8 {
                lead = 0
                if byte == 0x9C {
                    unicode(0x06, 0x1C)
                    continue
                }
                put(0xD8)
            } else if lead == 0xE2 && second == 0 {
                if byte == 0x80 || byte == 0x81 {
                    second = byte
                    continue
                }
                lead = 0
                put(0xE2)
            } else if lead == 0xE2 {
                let low = (second & 0x3) << 6 | (byte & 0x3F)
                let first = second, isBidi = JSONValue.isBidiControl(byte, after: first)
                lead = 0
                second = 0
                if isBidi {
                    unicode(0x20, low)
                    continue
                }
                put(0xE2)
                put(first)
            }
            switch byte {
            case 0xC2, 0xD8, 0xE2: lead = byte
            case UInt8(ascii: "\""): escape(0x22)
            case UInt8(ascii: "\\"): escape(0x5C)
            case 0x0A: escape(UInt8(ascii: "n"))
            case 0x0D: escape(UInt8(ascii: "r"))
            case 0x09: escape(UInt8(ascii: "t"))
            case 0x08: escape(UInt8(ascii: "b"))
            case 0x0C: escape(UInt8(ascii: "f"))
            case 0..<0x20, 0x7F: unicode(0, byte)
            default: put(byte)
            }
        }
        // Cannot happen in valid UTF-8, kept for safety.
        if lead != 0 { put(lead) }
        if second != 0 { put(second) }
    }

    /// The text a form or query string sends for a scalar: strings as they are, other scalars as JSON.
    package var formText: String? {
        switch self {
        case .null, .array, .object: return nil
        case .string(let s): return s
        default: return serialized
        }
    }
}
