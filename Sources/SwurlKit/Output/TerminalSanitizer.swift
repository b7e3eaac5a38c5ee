/// Makes control characters from a server visible instead of letting a terminal interpret them
/// (no escape-sequence injection). Used only when writing to a terminal; piped output stays raw.
public enum TerminalSanitizer {
    /// Appends `bytes` to `out`, replacing C0 controls (except tab and newline), DEL and the
    /// UTF-8 encoded C1 controls U+0080–U+009F with visible `\xNN` / `\u{NN}` forms.
    /// - Parameter pendingC2: carries a trailing 0xC2 byte across chunk boundaries.
    public static func append(_ bytes: UnsafeRawBufferPointer, to out: inout [UInt8], pendingC2: inout Bool) {
        let hex = Array("0123456789abcdef".utf8)
        for b in bytes {
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
            case 0x00..<0x20, 0x7F:
                out += [UInt8(ascii: "\\"), UInt8(ascii: "x"), hex[Int(b >> 4)], hex[Int(b & 0xF)]]
            case 0xC2:
                pendingC2 = true
            default:
                out.append(b)
            }
        }
    }

    /// A sanitized copy of a short string (header names and values, status reasons).
    public static func clean(_ s: String) -> String {
        var out: [UInt8] = []
        var pending = false
        var copy = s
        copy.withUTF8 { append(UnsafeRawBufferPointer($0), to: &out, pendingC2: &pending) }
        if pending { out.append(0xC2) }
        // Tabs and newlines inside a header line are shown too.
        return String(decoding: out, as: UTF8.self).replacingAll("\n", with: "\\n").replacingAll("\t", with: "\\t")
    }
}
