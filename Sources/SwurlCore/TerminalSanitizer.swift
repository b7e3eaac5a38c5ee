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
            if let scalar = bidiControl(out, at: i) ?? invisible(out, at: i) ?? lineSeparator(out, at: i) {
                // A bidirectional override or isolate would reorder what follows it on the line
                // (a URL or a header that reads as another): shown as `\u{202e}`. So is a
                // character of no width (`'\u{feff}--proxy' is not an option` read as a refusal
                // of `--proxy`). So is the line or paragraph separator: a reader that splits
                // lines on them (`str.splitlines`) cut a message, a result, a `--jsonl` line.
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

    /// The scalar whose UTF-8 starts at `i` in `bytes` when it shows as nothing there
    /// (`showsAsNothing(after:)`: the soft hyphen, the zero width space, the word joiner, a byte
    /// order mark, the tag characters that can spell hidden text…, and a joiner or selector
    /// first or after an ASCII character), or nil.
    private static func invisible(_ bytes: [UInt8], at i: Int) -> UInt32? {
        guard bytes[i] >= 0xC2 else { return nil }
        let n = bytes.withUnsafeBufferPointer { b in b.baseAddress.map { UTF8SequenceTracker.validSequenceLength($0, i, b.count) } ?? 0 }
        guard n > 1 else { return nil }
        var value = UInt32(bytes[i]) & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07)
        for k in 1..<n { value = value << 6 | UInt32(bytes[i + k] & 0x3F) }
        // What came before, as far as the rule asks: ASCII (or nothing), or not.
        let previous: Unicode.Scalar? = i == 0 ? nil : bytes[i - 1] < 0x80 ? Unicode.Scalar(bytes[i - 1]) : "\u{80}"
        guard let scalar = Unicode.Scalar(value), scalar.showsAsNothing(after: previous) else { return nil }
        return value
    }

    /// The line or paragraph separator (U+2028, U+2029) whose UTF-8 starts at `i` in `bytes`, or nil.
    private static func lineSeparator(_ bytes: [UInt8], at i: Int) -> UInt32? {
        guard bytes[i] == 0xE2, i + 2 < bytes.count, bytes[i + 1] == 0x80, bytes[i + 2] == 0xA8 || bytes[i + 2] == 0xA9 else { return nil }
        return 0x2000 + UInt32(bytes[i + 2] - 0x80)
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
