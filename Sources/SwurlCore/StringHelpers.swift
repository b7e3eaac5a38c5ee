@preconcurrency import Glibc
/// Small string helpers every layer uses (no Foundation).
///
/// Text searches go through `containsText` and `rangeOfText`, not `contains(_: String)` or
/// `firstRange(of:)`: those two live in `_StringProcessing`, and one call to either links that
/// module and `_RegexParser` into the binary, which every start then maps and relocates
/// (docs/performance.md). `make release-binary` fails when they come back.
extension StringProtocol {
    /// The first occurrence of `needle`'s UTF-8 bytes (an empty needle is found at the start).
    /// Matched by bytes, like `containsText`; the bounds are scalar boundaries of valid text.
    package func rangeOfText(_ needle: String) -> Range<Index>? {
        let hay = utf8
        let pin = Array(needle.utf8)
        guard let first = pin.first else { return startIndex..<startIndex }
        var i = hay.startIndex
        while i != hay.endIndex {
            if hay[i] == first {
                var j = hay.index(after: i)
                var k = 1
                while k < pin.count, j != hay.endIndex, hay[j] == pin[k] {
                    hay.formIndex(after: &j)
                    k += 1
                }
                if k == pin.count { return i..<j }
            }
            hay.formIndex(after: &i)
        }
        return nil
    }

    /// Whether `needle`'s UTF-8 bytes occur (a `String` takes the faster contiguous search below).
    package func containsText(_ needle: String) -> Bool { rangeOfText(needle) != nil }
}

extension UInt8 {
    /// The byte as two upper-case hexadecimal digits (`0A`), as `\xHH` escapes and fingerprints
    /// write it.
    package var hexPair: String {
        let digits = Array("0123456789ABCDEF".utf8)
        return String(decoding: [digits[Int(self >> 4)], digits[Int(self & 0x0F)]], as: UTF8.self)
    }
}

extension Array where Element == UInt8 {
    /// Whether `needle` occurs in the bytes, found by memchr(3) and memcmp(3): the generic
    /// `firstRange(of:)` searched a 100 MB multipart field at some 7 MB/s (and links
    /// `_StringProcessing`).
    package func containsBytes(_ needle: [UInt8]) -> Bool {
        guard let first = needle.first else { return true }
        return withUnsafeBufferPointer { hay in
            needle.withUnsafeBufferPointer { pin in
                guard let base = hay.baseAddress, let pinBase = pin.baseAddress, hay.count >= pin.count else { return false }
                let last = hay.count - pin.count
                var i = 0
                while i <= last {
                    guard let found = memchr(base + i, Int32(first), last - i + 1) else { return false }
                    let at = UnsafeRawPointer(found) - UnsafeRawPointer(base)
                    if memcmp(base + at, pinBase, pin.count) == 0 { return true }
                    i = at + 1
                }
                return false
            }
        }
    }
}

extension String {
    /// `body` over the string's UTF-8 bytes: in place for a native or small string, else over
    /// a copy (the writers of HAR entries and report rows read fields this way).
    @inlinable
    public func withUTF8Bytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let r = utf8.withContiguousStorageIfAvailable(body) { return r }
        var copy = self
        return copy.withUTF8(body)
    }

    /// Whether the UTF-8 bytes hold `byte` (memchr over a native string's storage; a search by
    /// Character or a generic `utf8.contains` costs many instructions a byte).
    package func containsByte(_ byte: UInt8) -> Bool {
        var s = self
        return s.withUTF8 { buf in
            guard let p = buf.baseAddress else { return false }
            return memchr(p, Int32(byte), buf.count) != nil
        }
    }

    /// Whether the UTF-8 bytes hold those of `needle` (unlike `contains(_:)`, which compares
    /// Characters, no table is built and a combining mark after a match does not undo it).
    package func containsText(_ needle: String) -> Bool {
        var s = self, n = needle
        return s.withUTF8 { hay in
            n.withUTF8 { pin in
                guard let first = pin.first else { return true }
                guard pin.count <= hay.count else { return false }
                var i = 0
                while i <= hay.count - pin.count {
                    if hay[i] == first && hay[i..<i + pin.count].elementsEqual(pin) { return true }
                    i += 1
                }
                return false
            }
        }
    }

    /// Replaces every occurrence of `target` (plain text, no patterns).
    package func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty, containsText(target) else { return self }
        var out = ""
        var rest = Substring(self)
        while let r = rest.rangeOfText(target) {
            out += rest[..<r.lowerBound]
            out += replacement
            rest = rest[r.upperBound...]
        }
        return out + rest
    }

    /// The string with ASCII letters in capitals and nothing else changed: `uppercased()` maps
    /// Unicode too (`ſ` → `S`, `ı` → `I`), so `poſt` would be a POST.
    package var asciiUppercased: String {
        var copy = self
        guard copy.withUTF8({ $0.contains { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") } }) else { return self }
        return String(decoding: copy.withUTF8 { $0.map { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") ? $0 - 32 : $0 } }, as: UTF8.self)
    }

    /// The string without trailing CRs and LFs, trimmed by Unicode scalar ("\r\n" is one Character).
    package func trimmingTrailingNewlines() -> String {
        var s = Substring(self).unicodeScalars
        while let l = s.last, l == "\n" || l == "\r" { s.removeLast() }
        return String(s)
    }

    /// The string with `&`, `<` and `>` as XML character entities (for element content), and a
    /// carriage return as `&#13;`: written raw, every XML parser reads it (and CRLF) as a line
    /// feed (XML 1.0 §2.11), so the value would change on its way. Other C0 controls (but tab and
    /// line feed), DEL, the C1 controls and the bidirectional controls as `&#xN;`.
    package var xmlEscaped: String {
        var out = ""
        for c in unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\r": out += "&#13;"
            // Other C0 controls (a binary plist's string may hold them) are no XML characters:
            // shown as a reference to them, readable, though no parser takes it (the writer
            // refuses them). DEL, the C1 controls (CSI among them) and the bidirectional controls,
            // which a terminal would act on or reorder the line by, stay references too, as a
            // server that escaped them sent them (`&#x202E;`): the same text to any XML parser.
            case _ where c.value < 0x20 && c != "\t" && c != "\n", _ where (0x7F...0x9F).contains(c.value),
                 _ where JSONValue.isBidiControl(scalar: c.value):
                out += "&#x\(String(c.value, radix: 16, uppercase: true));"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// The string safe inside an XML or HTML attribute value or element content: `&`, `<`, `>`,
    /// `"` and `'` as character references, tab, line feed and carriage return as numeric ones
    /// (an attribute keeps them), and what XML 1.0 cannot hold at all (other C0 controls, DEL,
    /// U+FFFE, U+FFFF) replaced by U+FFFD, so text from a URL or a server can neither end the
    /// value nor make the document invalid.
    package var markupEscaped: String {
        var out = ByteBuffer()
        appendMarkupEscaped(to: &out)
        return out.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// `markupEscaped`'s bytes appended to `out` (for writers that build a document as bytes).
    package func appendMarkupEscaped(to out: inout ByteBuffer) {
        var s = self
        s.withUTF8 { u in
            // Most text (a URL, a method) needs no escape: copied at once. One pass without an
            // early exit, so the check vectorizes.
            var special: UInt8 = 0
            for b in u {
                special |= (b < 0x20 ? 1 : 0) | (b == 0x26 ? 1 : 0) | (b == 0x3C ? 1 : 0) | (b == 0x3E ? 1 : 0)
                    | (b == 0x22 ? 1 : 0) | (b == 0x27 ? 1 : 0) | (b == 0x7F ? 1 : 0) | (b == 0xEF ? 1 : 0)
            }
            if special == 0 {
                out.append(u)
                return
            }
            let n = u.count
            var i = 0
            while i < n {
                let b = u[i]
                switch b {
                case 0x26: out.append("&amp;")
                case 0x3C: out.append("&lt;")
                case 0x3E: out.append("&gt;")
                case 0x22: out.append("&quot;")
                case 0x27: out.append("&#39;")
                case 0x09: out.append("&#9;")
                case 0x0A: out.append("&#10;")
                case 0x0D: out.append("&#13;")
                case 0x00..<0x20, 0x7F: out.append("\u{FFFD}")
                case 0xEF where i + 2 < n && u[i + 1] == 0xBF && (u[i + 2] == 0xBE || u[i + 2] == 0xBF):
                    // U+FFFE, U+FFFF
                    out.append("\u{FFFD}")
                    i += 2
                default: out.append(b)
                }
                i += 1
            }
        }
    }
}

/// `n` and its noun, singular for one: `1 certificate`, `2 certificates`, `1 day`.
package func counted(_ n: Int, _ noun: String) -> String {
    "\(n) \(noun)" + (n == 1 || n == -1 ? "" : "s")
}

extension Unicode.Scalar {
    /// `U+017F`: the scalar's code point as messages name one (four hex digits at least).
    package var codePoint: String {
        var hex = String(value, radix: 16, uppercase: true)
        while hex.count < 4 { hex = "0" + hex }
        return "U+" + hex
    }

    /// The joiners and variation selectors (U+200C, U+200D, U+FE00–U+FE0F, U+E0100–U+E01EF, and
    /// Mongolian's: its free variation selectors and vowel separator, U+180B–U+180F): they show
    /// nothing themselves but shape scripts (Persian words, Mongolian), emoji sequences and CJK
    /// variants, which text needs.
    package var isJoinerOrSelector: Bool {
        switch value {
        case 0x200C, 0x200D, 0x180B...0x180F, 0xFE00...0xFE0F, 0xE0100...0xE01EF: return true
        default: return false
        }
    }

    /// A character Unicode says may show as nothing (Default_Ignorable_Code_Point: the soft
    /// hyphen, the zero width space, the word joiner, a byte order mark, the tag characters, the
    /// Hangul fillers…) but the joiners and selectors: what makes two texts look alike. And the
    /// interlinear annotation marks (U+FFF9–FFFB), format characters terminals show as nothing.
    package var showsAsNothing: Bool {
        !isJoinerOrSelector && (properties.isDefaultIgnorableCodePoint || (0xFFF9...0xFFFB).contains(value))
    }

    /// `showsAsNothing`, or a joiner or selector where it changes nothing text needs and only
    /// hides in it: first, or after an ASCII character (`--pro\u{200d}xy`, `.\u{fe0f}`).
    /// - Parameter previous: the scalar before this one (nil: none).
    package func showsAsNothing(after previous: Unicode.Scalar?) -> Bool {
        showsAsNothing || (isJoinerOrSelector && (previous?.isASCII ?? true))
    }
}
