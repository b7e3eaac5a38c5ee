/// Makes control characters from a server visible instead of letting a terminal interpret them
/// (no escape-sequence injection). Used only when writing to a terminal; piped output stays raw.
///
/// C0 controls other than tab, newline and a CR that ends a line, and DEL become `\xNN`; the
/// UTF-8 encoded C1 controls U+0080–U+009F become `\u{NN}`; every byte that is not part of valid
/// UTF-8 (a lone 0x9B, the 8-bit CSI, among them) becomes `\xNN`, and a backslash right before
/// any of these becomes `\x5c`, so no shown escape merges with it. Valid UTF-8 passes untouched.
/// State (a pending CR, an unfinished UTF-8 sequence) carries across chunk boundaries.
package struct TerminalSanitizer {
    private var utf8 = UTF8SequenceTracker()
    private var pendingCR = false
    /// A backslash not shown yet (see `Sink.heldBackslash`).
    private var heldBackslash = false
    fileprivate static let hex = Array("0123456789abcdef".utf8)

    package init() {}

    /// Appends the visible form of `bytes` to `out`.
    package mutating func append(_ bytes: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        var sink = Sink()
        sink.heldBackslash = heldBackslash
        swap(&sink.out, &out)
        defer {
            swap(&sink.out, &out)
            heldBackslash = sink.heldBackslash
        }
        for b in bytes {
            if pendingCR {
                pendingCR = false
                if b == 0x0A { sink.settle(beforeEscape: false); sink.out += [0x0D, 0x0A]; continue }
                sink.invalid(0x0D)
            }
            if b >= 0x80 || utf8.isHolding, utf8.feed(b, into: &sink) { continue }
            switch b {
            case 0x09, 0x0A:
                sink.text(b)
            case 0x0D:
                pendingCR = true
            case 0x00..<0x20, 0x7F:
                sink.invalid(b)
            case 0x5C:
                sink.settle(beforeEscape: false)
                sink.heldBackslash = true
            default:
                sink.text(b)
            }
        }
    }

    /// Writes out what is held back at the end of the input.
    package mutating func finish(into out: inout [UInt8]) {
        var sink = Sink()
        sink.heldBackslash = heldBackslash
        swap(&sink.out, &out)
        if pendingCR { sink.invalid(0x0D) }
        pendingCR = false
        utf8.flush(into: &sink)
        sink.settle(beforeEscape: false)
        heldBackslash = false
        swap(&sink.out, &out)
    }

    /// Writes the tracker's verdicts in the sanitizer's notation.
    private struct Sink: VisibleTextSink {
        var out: [UInt8] = []
        /// A backslash is shown only once the next byte is known: before a byte shown as `\xNN`
        /// it is shown as `\x5c` too, so that the pair never reads as an escaped backslash
        /// followed by text (`["\<E5>"]` would read `["\\xe5"]`, valid JSON of another string).
        var heldBackslash = false

        mutating func settle(beforeEscape: Bool) {
            guard heldBackslash else { return }
            heldBackslash = false
            if beforeEscape { hexEscape(0x5C) } else { out.append(0x5C) }
        }
        mutating func hexEscape(_ byte: UInt8) {
            let hex = TerminalSanitizer.hex
            out += [UInt8(ascii: "\\"), UInt8(ascii: "x"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
        }
        mutating func text(_ byte: UInt8) {
            settle(beforeEscape: false)
            out.append(byte)
        }
        mutating func c1(_ byte: UInt8) {
            settle(beforeEscape: true)
            let hex = TerminalSanitizer.hex
            out += [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "{"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)], UInt8(ascii: "}")]
        }
        mutating func invalid(_ byte: UInt8) {
            settle(beforeEscape: true)
            hexEscape(byte)
        }
    }

    /// What a server sent (a reason phrase, a Content-Type) as a message quotes it: `clean`, and
    /// cut after `limit` characters with its length said (`…(95000 bytes)`), so a server cannot
    /// make every message and retry notice hundreds of kilobytes long.
    package static func excerpt(_ s: String, limit: Int = 200) -> String {
        // By scalars: one Character may be a letter and 20,000 combining marks.
        guard s.utf8.count > limit, s.unicodeScalars.count > limit else { return clean(s) }
        return clean(String(String.UnicodeScalarView(s.unicodeScalars.prefix(limit)))) + "…(\(s.utf8.count) bytes)"
    }

    /// A reason phrase after its status code in a message: ` Not Found` (an `excerpt`), or
    /// nothing for an empty one (HTTP/2 has none: `HTTP 503 ; retrying` read oddly).
    package static func reasonSuffix(_ reason: String) -> String {
        reason.isEmpty ? "" : " " + excerpt(reason)
    }

    /// A sanitized copy of a short string (header names and values, status reasons, error
    /// messages); tabs, newlines and every CR are shown too, since such a line holds none of them.
    /// Works on bytes: `"\r\n"` is one Character in Swift and would slip past a Character search.
    package static func clean(_ s: String) -> String {
        // Printable ASCII is shown as it is (checked on the contiguous bytes: `swurl cache list`
        // cleans a URL per entry).
        var copy = s
        if copy.withUTF8({ $0.allSatisfy { $0 >= 0x20 && $0 < 0x7F } }) { return s }
        var out: [UInt8] = []
        var sanitizer = TerminalSanitizer()
        copy.withUTF8 { sanitizer.append(UnsafeRawBufferPointer($0), to: &out) }
        sanitizer.finish(into: &out)
        var shown: [UInt8] = []
        shown.reserveCapacity(out.count)
        var i = 0
        while i < out.count {
            let b = out[i]
            if let scalar = bidiControl(out, at: i) ?? invisible(out, at: i) {
                // A bidirectional override or isolate would reorder what follows it on the line
                // (a URL or a header that reads as another): shown as `\u{202e}`. So is a
                // character of no width (`'\u{feff}--proxy' is not an option` read as a refusal
                // of `--proxy`).
                shown += Array("\\u{\(String(scalar, radix: 16))}".utf8)
                i += scalar < 0x800 ? 2 : scalar < 0x10000 ? 3 : 4
                continue
            }
            switch b {
            case 0x0A: shown += Array("\\n".utf8)
            case 0x09: shown += Array("\\t".utf8)
            case 0x0D: shown += Array("\\x0d".utf8)
            default: shown.append(b)
            }
            i += 1
        }
        return String(decoding: shown, as: UTF8.self)
    }

    /// The scalar of a character that shows nothing and joins nothing, whose UTF-8 starts at
    /// `i` in `bytes`, or nil: the soft hyphen (U+00AD), the combining grapheme joiner (U+034F),
    /// the Mongolian vowel separator (U+180E), the zero width space (U+200B), the word joiner and
    /// invisible operators (U+2060–U+2064), the zero width no-break space, a byte order mark
    /// (U+FEFF), and the tag characters (U+E0000–U+E007F, which can spell hidden text). The
    /// joiners U+200C and U+200D shape scripts and emoji: shown as they are.
    private static func invisible(_ bytes: [UInt8], at i: Int) -> UInt32? {
        guard i + 1 < bytes.count else { return nil }
        switch (bytes[i], bytes[i + 1]) {
        case (0xC2, 0xAD): return 0xAD
        case (0xCD, 0x8F): return 0x34F
        default: break
        }
        guard i + 2 < bytes.count else { return nil }
        switch (bytes[i], bytes[i + 1], bytes[i + 2]) {
        case (0xE1, 0xA0, 0x8E): return 0x180E
        case (0xE2, 0x80, 0x8B): return 0x200B
        case (0xE2, 0x81, 0xA0...0xA4): return 0x2000 + UInt32(bytes[i + 2] - 0x80) + 0x40
        case (0xEF, 0xBB, 0xBF): return 0xFEFF
        default: break
        }
        // U+E0000–U+E007F: F3 A0 80 80 – F3 A0 81 BF.
        guard i + 3 < bytes.count, bytes[i] == 0xF3, bytes[i + 1] == 0xA0, bytes[i + 2] == 0x80 || bytes[i + 2] == 0x81 else { return nil }
        return 0xE0000 + UInt32(bytes[i + 2] - 0x80) << 6 + UInt32(bytes[i + 3] & 0x3F)
    }

    /// The scalar of the bidirectional embedding, override or isolate control (U+202A–U+202E,
    /// U+2066–U+2069) or the left-to-right, right-to-left or Arabic letter mark (U+200E, U+200F,
    /// U+061C) whose UTF-8 starts at `i` in `bytes`, or nil.
    private static func bidiControl(_ bytes: [UInt8], at i: Int) -> UInt32? {
        if bytes[i] == 0xD8, i + 1 < bytes.count, bytes[i + 1] == 0x9C { return 0x061C }
        guard bytes[i] == 0xE2, i + 2 < bytes.count else { return nil }
        let second = bytes[i + 1], third = bytes[i + 2]
        if second == 0x80, JSONValue.isBidiControl(third, after: 0x80) { return 0x2000 + UInt32(third - 0x80) }
        if second == 0x81, (0xA6...0xA9).contains(third) { return 0x2040 + UInt32(third - 0x80) }
        return nil
    }
}
