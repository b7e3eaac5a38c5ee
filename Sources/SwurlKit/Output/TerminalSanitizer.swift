/// Makes control characters from a server visible instead of letting a terminal interpret them
/// (no escape-sequence injection). Used only when writing to a terminal; piped output stays raw.
///
/// C0 controls other than tab, newline and a CR that ends a line, DEL, and the UTF-8 encoded C1
/// controls U+0080–U+009F become `\xNN` / `\u{NN}`. State carries across chunk boundaries.
public struct TerminalSanitizer {
    private var pendingC2 = false
    private var pendingCR = false
    private static let hex = Array("0123456789abcdef".utf8)

    public init() {}

    /// Appends the visible form of `bytes` to `out`.
    public mutating func append(_ bytes: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        let hex = TerminalSanitizer.hex
        for b in bytes {
            if pendingCR {
                pendingCR = false
                if b == 0x0A { out += [0x0D, 0x0A]; continue }
                out += [UInt8(ascii: "\\"), UInt8(ascii: "x"), UInt8(ascii: "0"), UInt8(ascii: "d")]
            }
            if pendingC2 {
                pendingC2 = false
                if b >= 0x80 && b <= 0x9F {
                    out += Array("\\u{".utf8) + [hex[Int(b >> 4)], hex[Int(b & 0xF)], UInt8(ascii: "}")]
                    continue
                }
                out.append(0xC2)
            }
            switch b {
            case 0x09, 0x0A:
                out.append(b)
            case 0x0D:
                pendingCR = true
            case 0x00..<0x20, 0x7F:
                out += [UInt8(ascii: "\\"), UInt8(ascii: "x"), hex[Int(b >> 4)], hex[Int(b & 0xF)]]
            case 0xC2:
                pendingC2 = true
            default:
                out.append(b)
            }
        }
    }

    /// Writes out what is held back at the end of the input.
    public mutating func finish(into out: inout [UInt8]) {
        if pendingCR { out += Array("\\x0d".utf8) }
        if pendingC2 { out.append(0xC2) }
        pendingCR = false
        pendingC2 = false
    }

    /// A sanitized copy of a short string (header names and values, status reasons, error
    /// messages); tabs, newlines and every CR are shown too, since such a line holds none of them.
    /// Works on bytes: `"\r\n"` is one Character in Swift and would slip past a Character search.
    public static func clean(_ s: String) -> String {
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
