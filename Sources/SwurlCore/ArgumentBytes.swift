#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Command-line arguments are bytes on Linux, and a file name or URL may hold bytes that are
/// not UTF-8 (a Latin-1 `caf\xE9.txt`). Swift strings cannot hold such bytes, so argv is decoded
/// with an escape: each byte that is not part of valid UTF-8 becomes the private-use scalar
/// U+10FF00 + byte (bytes 0x80–0xFF). The places that may carry bytes — file paths (`-o`,
/// `@file` items), multipart file names, URLs (percent-encoded) — turn the escapes back into the
/// exact bytes; every other place refuses an escaped argument by name instead of rewriting it.
package enum ArgumentBytes {
    static let base: UInt32 = 0x10FF00

    /// The process's arguments without the program name, decoded byte-exactly
    /// (`CommandLine.arguments` would replace non-UTF-8 bytes with U+FFFD).
    package static func processArguments() -> [String] {
        guard CommandLine.argc > 1 else { return [] }
        return (1..<Int(CommandLine.argc)).map { i in
            guard let arg = CommandLine.unsafeArgv[i] else { return "" }
            return decode(UnsafeRawBufferPointer(start: arg, count: strlen(arg)).map { $0 })
        }
    }

    /// Decodes one argument, escaping bytes that are not valid UTF-8, and the bytes of a real
    /// U+10FF80–U+10FFFF (F4 8F BE/BF xx), which would read as escapes: an escape always
    /// stands for its byte, so `bytes` gives back exactly the argument's.
    package static func decode(_ bytes: [UInt8]) -> String {
        if let s = String(validating: bytes, as: UTF8.self), !bytes.contains(0xF4) || !s.unicodeScalars.contains(where: isEscape) {
            return s
        }
        var out = String.UnicodeScalarView()
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            let length = b < 0x80 ? 1 : b >= 0xC2 && b < 0xE0 ? 2 : b >= 0xE0 && b < 0xF0 ? 3 : b >= 0xF0 && b < 0xF5 ? 4 : 0
            if length > 0, i + length <= bytes.count,
               let s = String(validating: bytes[i..<(i + length)], as: UTF8.self), let scalar = s.unicodeScalars.first,
               s.unicodeScalars.count == 1, !isEscape(scalar) {
                out.append(scalar)
                i += length
            } else {
                out.append(Unicode.Scalar(base + UInt32(b)) ?? "?")
                i += 1
            }
        }
        return String(out)
    }

    /// Whether `text` holds escaped bytes (an argument that was not valid UTF-8).
    package static func hasEscapes(_ text: String) -> Bool {
        text.unicodeScalars.contains { isEscape($0) }
    }

    static func isEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= base + 0x80 && scalar.value <= base + 0xFF
    }

    /// The exact bytes of an argument: escapes become the original bytes, the rest is UTF-8.
    package static func bytes(_ text: String) -> [UInt8] {
        guard hasEscapes(text) else { return Array(text.utf8) }
        var out: [UInt8] = []
        for scalar in text.unicodeScalars {
            if isEscape(scalar) { out.append(UInt8(scalar.value - base)) } else { out.append(contentsOf: String(scalar).utf8) }
        }
        return out
    }

    /// A path as the C string the kernel gets (for `open`, `stat`, `rename`).
    package static func path(_ text: String) -> [CChar] {
        bytes(text).map { CChar(bitPattern: $0) } + [0]
    }

    /// A path the system returned (a temporary file name), decoded the same way as argv.
    package static func decode(cString: [CChar]) -> String {
        decode(cString.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) })
    }

    /// `text` with escaped bytes percent-encoded (`%E9`), for URLs.
    package static func percentEncodingEscapes(_ text: String) -> String { replacingEscapes(text, prefix: "%") }

    /// `text` for messages: escaped bytes shown as `\xE9`.
    package static func shown(_ text: String) -> String { replacingEscapes(text, prefix: "\\x") }

    /// `text` with every escaped byte written as `prefix` and two upper-case hex digits.
    private static func replacingEscapes(_ text: String, prefix: String) -> String {
        guard hasEscapes(text) else { return text }
        let hex = Array("0123456789ABCDEF")
        var out = ""
        for scalar in text.unicodeScalars {
            if isEscape(scalar) {
                let v = UInt8(scalar.value - base)
                out += prefix + String(hex[Int(v >> 4)]) + String(hex[Int(v & 0xF)])
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
