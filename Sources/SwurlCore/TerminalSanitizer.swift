/// Makes control characters from a server visible instead of letting a terminal interpret them
/// (no escape-sequence injection). Used only when writing to a terminal; piped output stays raw.
///
/// C0 controls other than tab, newline and a CR that ends a line, and DEL become `\xNN`; the
/// UTF-8 encoded C1 controls U+0080–U+009F become `\u{NN}`; every byte that is not part of valid
/// UTF-8 (a lone 0x9B, the 8-bit CSI, among them) becomes `\xNN`. Valid UTF-8 passes untouched.
/// State (a pending CR, an unfinished UTF-8 sequence) carries across chunk boundaries.
public struct TerminalSanitizer {
    private var utf8 = UTF8SequenceTracker()
    private var pendingCR = false
    fileprivate static let hex = Array("0123456789abcdef".utf8)

    public init() {}

    /// Appends the visible form of `bytes` to `out`.
    public mutating func append(_ bytes: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        var sink = Sink()
        swap(&sink.out, &out)
        defer { swap(&sink.out, &out) }
        for b in bytes {
            if pendingCR {
                pendingCR = false
                if b == 0x0A { sink.out += [0x0D, 0x0A]; continue }
                sink.out += [UInt8(ascii: "\\"), UInt8(ascii: "x"), UInt8(ascii: "0"), UInt8(ascii: "d")]
            }
            if b >= 0x80 || utf8.isHolding, utf8.feed(b, into: &sink) { continue }
            switch b {
            case 0x09, 0x0A:
                sink.out.append(b)
            case 0x0D:
                pendingCR = true
            case 0x00..<0x20, 0x7F:
                sink.invalid(b)
            default:
                sink.out.append(b)
            }
        }
    }

    /// Writes out what is held back at the end of the input.
    public mutating func finish(into out: inout [UInt8]) {
        var sink = Sink()
        swap(&sink.out, &out)
        if pendingCR { sink.out += Array("\\x0d".utf8) }
        pendingCR = false
        utf8.flush(into: &sink)
        swap(&sink.out, &out)
    }

    /// Writes the tracker's verdicts in the sanitizer's notation.
    private struct Sink: VisibleTextSink {
        var out: [UInt8] = []
        mutating func text(_ byte: UInt8) { out.append(byte) }
        mutating func c1(_ byte: UInt8) {
            let hex = TerminalSanitizer.hex
            out += [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "{"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)], UInt8(ascii: "}")]
        }
        mutating func invalid(_ byte: UInt8) {
            let hex = TerminalSanitizer.hex
            out += [UInt8(ascii: "\\"), UInt8(ascii: "x"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
        }
    }

    /// A sanitized copy of a short string (header names and values, status reasons, error
    /// messages); tabs, newlines and every CR are shown too, since such a line holds none of them.
    /// Works on bytes: `"\r\n"` is one Character in Swift and would slip past a Character search.
    public static func clean(_ s: String) -> String {
        // Printable ASCII is shown as it is.
        if s.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return s }
        var out: [UInt8] = []
        var sanitizer = TerminalSanitizer()
        var copy = s
        copy.withUTF8 { sanitizer.append(UnsafeRawBufferPointer($0), to: &out) }
        sanitizer.finish(into: &out)
        var shown: [UInt8] = []
        shown.reserveCapacity(out.count)
        for b in out {
            switch b {
            case 0x0A: shown += Array("\\n".utf8)
            case 0x09: shown += Array("\\t".utf8)
            case 0x0D: shown += Array("\\x0d".utf8)
            default: shown.append(b)
            }
        }
        return String(decoding: shown, as: UTF8.self)
    }
}
