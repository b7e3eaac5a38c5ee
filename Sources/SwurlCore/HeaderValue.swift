/// The one check for text that ends up in a request header line: header items, `--auth`
/// (basic, digest and bearer), netrc credentials, multipart part headers, and, as a last guard,
/// every field handed to libcurl.
///
/// CR and LF would end the line and start a header of the sender's choosing; NUL cuts it short
/// in libcurl; the other C0 controls and DEL have no business in a header either. Horizontal tab
/// is allowed (RFC 9110 field values may hold it). curl sends such values as given; HTTPie
/// refuses them, and so does swurl.
package enum HeaderValue {
    /// The first character `value` may not carry into a header, or nil when it is clean.
    package static func forbiddenScalar(in value: String) -> Unicode.Scalar? {
        // The forbidden scalars are ASCII, one byte each in UTF-8: a byte scan finds whether
        // there is one before the search by scalar.
        var v = value
        let clean = v.withUTF8 { bytes in !bytes.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F } }
        return clean ? nil : value.unicodeScalars.first(where: isForbidden)
    }

    /// Whether a header line cannot hold `scalar`: C0 controls except tab, and DEL.
    package static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar != "\t") || scalar.value == 0x7F
    }

    /// Refuses a value that would break or extend its header line.
    /// - Parameters:
    ///   - value: the text as it would be sent.
    ///   - label: what the user calls its source, e.g. `--auth`, `'X-A:b'`, `the netrc entry for
    ///     example.org`; the message starts with it (made only for a refused value).
    /// - Throws: `SwurlError.usage` (exit 64) naming `label` and the character, with a hint for
    ///   the common case of a value read from a file with CRLF line ends.
    package static func check(_ value: String, _ label: @autoclosure () -> String) throws(SwurlError) {
        guard let bad = forbiddenScalar(in: value) else { return }
        var hint: String?
        if value.unicodeScalars.last == "\r",
           value.unicodeScalars.dropLast().allSatisfy({ !isForbidden($0) }) {
            hint = "the value ends with a carriage return (a file with CRLF line ends?)"
        } else if bad == "\n" || bad == "\r" {
            hint = "a header value is one line; remove the line break"
        }
        throw .usage("\(label()): \(describe(bad)) cannot be sent in a header (line breaks and other control characters are refused)",
                     hint: hint)
    }

    /// `a line feed (\n)`, `a NUL byte (\x00)`, … for the error message.
    static func describe(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\r": return "a carriage return (\\r)"
        case "\n": return "a line feed (\\n)"
        case "\0": return "a NUL byte (\\x00)"
        default:
            let hex = String(scalar.value, radix: 16, uppercase: false)
            return "the control character \\x" + (hex.count < 2 ? "0" + hex : hex)
        }
    }
}
