#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlCore

/// Shows text: on a terminal, converted from the Content-Type charset to UTF-8 (iconv) and with
/// control characters made visible; anywhere else, the bytes as sent. On a terminal, a body that
/// turns out to be binary (a NUL byte early on, or `binary: true`) is not shown: a one-line note
/// says how many bytes there were and how to save them.
final class TextResponseDecoder: ResponseDecoding {
    private let sanitize: Bool
    private var converter: CharsetConverter?
    private var sanitizer = TerminalSanitizer()
    private let mediaType: String?
    private var suppress: Bool
    private var sniffed = false
    /// Whether the sniff waits for `sniffLength` bytes (not with `--stream`, which shows every
    /// chunk at once and so judges the first chunk alone).
    private let waitsForSniff: Bool
    /// The bytes held back until the sniff can look at the whole first kilobyte.
    private var sniffHead: [UInt8] = []
    private var total = 0

    /// How many bytes the binary check looks at.
    static let sniffLength = BinarySniffer.sniffLength

    /// - Parameters:
    ///   - convert: whether to convert the charset (false for `--decode raw`).
    ///   - binary: whether the body is known to be binary.
    init(context: DecodingContext, convert: Bool = true, binary: Bool = false) {
        sanitize = context.terminal
        mediaType = context.mediaType
        suppress = binary && context.terminal
        waitsForSniff = !context.options.stream
        if convert, context.terminal, let charset = context.charset, !TextResponseDecoder.isUTF8Compatible(charset) {
            converter = CharsetConverter(from: charset)
        }
    }

    /// Whether bytes look binary: a NUL in the first kilobyte.
    static func looksBinary(_ head: some Collection<UInt8>) -> Bool { BinarySniffer.hasNUL(head) }

    /// For a streaming decoder (JSON, XML) with `--stream`, which has no window to judge the
    /// body by: a first chunk on a terminal that looks binary makes the body text's, which shows
    /// a note instead of the bytes escaped one by one. Returns that decoder, having taken the
    /// chunk; nil (nothing taken) otherwise.
    static func binaryStream(_ chunk: UnsafeRawBufferPointer, context: DecodingContext, into out: inout [UInt8]) -> TextResponseDecoder? {
        guard context.terminal, looksBinary(chunk.prefix(sniffLength)) else { return nil }
        let t = TextResponseDecoder(context: context)
        t.decode(chunk, into: &out)
        return t
    }

    /// The fallback of every whole-body decoder that could not decode: the bytes shown as text.
    static func show(_ bytes: [UInt8], context: DecodingContext, into out: inout [UInt8]) {
        let t = TextResponseDecoder(context: context)
        t.decode(bytes, into: &out)
        _ = t.finish(into: &out)
    }

    /// Charsets whose bytes are already fine for a UTF-8 terminal.
    static func isUTF8Compatible(_ charset: String) -> Bool {
        ["utf-8", "utf8", "us-ascii", "ascii"].contains(charset.lowercased())
    }

    package func decode(_ chunk: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        total += chunk.count
        if !sniffed && chunk.count > 0 {
            guard sanitize && converter == nil && !suppress else {
                sniffed = true
                return decodeSniffed(chunk, &out)
            }
            guard waitsForSniff else {
                sniffed = true
                if TextResponseDecoder.looksBinary(chunk) { suppress = true }
                return decodeSniffed(chunk, &out)
            }
            // Judge the first kilobyte whatever the chunks: a NUL in a later chunk counts too.
            sniffHead.append(contentsOf: chunk)
            if sniffHead.count >= TextResponseDecoder.sniffLength { endSniff(&out) }
            return
        }
        decodeSniffed(chunk, &out)
    }

    /// Decides on the bytes held for the sniff and shows them unless they look binary.
    private func endSniff(_ out: inout [UInt8]) {
        sniffed = true
        if TextResponseDecoder.looksBinary(sniffHead) { suppress = true }
        let head = sniffHead
        sniffHead = []
        head.withUnsafeBytes { decodeSniffed($0, &out) }
    }

    private func decodeSniffed(_ chunk: UnsafeRawBufferPointer, _ out: inout [UInt8]) {
        if suppress { return }
        if let converter {
            let utf8 = converter.convert(chunk, final: false)
            utf8.withUnsafeBytes { emit($0, &out) }
        } else {
            emit(chunk, &out)
        }
    }

    /// Decodes a whole buffer at once (used by decoders falling back to text).
    package func decode(_ bytes: [UInt8], into out: inout [UInt8]) {
        bytes.withUnsafeBytes { decode($0, into: &out) }
    }

    private func emit(_ bytes: UnsafeRawBufferPointer, _ out: inout [UInt8]) {
        if sanitize {
            sanitizer.append(bytes, to: &out)
        } else {
            out.append(contentsOf: bytes)
        }
    }

    func finish(into out: inout [UInt8]) -> DecodingOutcome {
        if !sniffed && !sniffHead.isEmpty { endSniff(&out) }
        if suppress {
            guard total > 0 else { return .decoded }
            // No Content-Type is no type (it said "22 bytes of ;").
            let type = mediaType.flatMap { $0.isEmpty ? nil : " of \($0)" } ?? ""
            return .note("binary data not shown: \(ImageResponseDecoder.byteText(total))\(type); use -o FILE or a pipe to save it")
        }
        if let converter {
            let rest = converter.convert(UnsafeRawBufferPointer(start: nil, count: 0), final: true)
            rest.withUnsafeBytes { emit($0, &out) }
        }
        sanitizer.finish(into: &out)
        return .decoded
    }
}

/// A streaming iconv conversion to UTF-8 that carries incomplete sequences across chunks and
/// shows undecodable bytes as U+FFFD.
final class CharsetConverter {
    private let cd: iconv_t
    private var leftover: [UInt8] = []
    /// The charset's code unit in bytes: what is skipped after a unit that is not text (a lone
    /// surrogate), so the text after it stays aligned: 2 for UTF-16 and UCS-2, 4 for UTF-32
    /// and UCS-4, 1 for the rest.
    private let unit: Int

    /// Nil when iconv does not know the charset (the text is then shown as sent). A name is
    /// letters, digits and `-_.:+()` only: iconv reads an empty one as the locale's charset
    /// (ASCII here: every other byte became U+FFFD) and `//TRANSLIT` or `//IGNORE` as its own
    /// options, which a server's label does not choose.
    init?(from charset: String) {
        guard !charset.isEmpty, charset.utf8.allSatisfy({ b in
            (0x30...0x39).contains(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) || "-_.:+()".utf8.contains(b)
        }) else { return nil }
        let cd = iconv_open("UTF-8", charset)
        guard let cd, Int(bitPattern: cd) != -1 else { return nil }
        self.cd = cd
        unit = CharsetConverter.codeUnitSize(charset)
    }

    static func codeUnitSize(_ charset: String) -> Int {
        let name = charset.lowercased().filter { $0 != "-" && $0 != "_" }
        if name.hasPrefix("utf32") || name.hasPrefix("ucs4") { return 4 }
        if name.hasPrefix("utf16") || name.hasPrefix("ucs2") || name == "unicode" { return 2 }
        return 1
    }

    deinit { iconv_close(cd) }

    /// Converts `chunk` (after any bytes left from the last call).
    /// - Parameter final: whether this is the end; leftover bytes then become U+FFFD.
    func convert(_ chunk: UnsafeRawBufferPointer, final: Bool) -> [UInt8] {
        var input = leftover
        input.append(contentsOf: chunk)
        leftover = []
        var out: [UInt8] = []
        var result = [UInt8](repeating: 0, count: max(64, input.count * 4))
        var consumed = 0
        input.withUnsafeMutableBytes { inBuf in
            guard let inBase = inBuf.baseAddress else { return }
            while consumed < inBuf.count {
                var inPtr: UnsafeMutablePointer<CChar>? = (inBase + consumed).assumingMemoryBound(to: CChar.self)
                var inLeft = inBuf.count - consumed
                let produced: Int = result.withUnsafeMutableBytes { outBuf -> Int in
                    guard let outBase = outBuf.baseAddress else { return 0 }
                    var outPtr: UnsafeMutablePointer<CChar>? = outBase.assumingMemoryBound(to: CChar.self)
                    var outLeft = outBuf.count
                    _ = iconv(cd, &inPtr, &inLeft, &outPtr, &outLeft)
                    return outBuf.count - outLeft
                }
                let err = errno
                out.append(contentsOf: result[0..<produced])
                let newConsumed = inBuf.count - inLeft
                let progressed = newConsumed > consumed || produced > 0
                consumed = newConsumed
                if consumed >= inBuf.count { break }
                if err == EINVAL && !final {
                    // An incomplete sequence at the end: keep it for the next chunk.
                    leftover = Array(UnsafeRawBufferPointer(rebasing: inBuf[consumed...]))
                    break
                }
                if err == E2BIG && progressed { continue }
                // Invalid (or incomplete at the very end): show U+FFFD and skip one code unit
                // (what is left, if less).
                out += [0xEF, 0xBF, 0xBD]
                consumed += min(unit, inBuf.count - consumed)
            }
        }
        return out
    }
}
