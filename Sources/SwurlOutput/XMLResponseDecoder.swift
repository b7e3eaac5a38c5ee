import SwurlResponseSerialization
import SwurlCore
/// Shows XML indented and coloured as it streams in (`XMLStreamFormatter`): one element per
/// line, an element holding only text on one line, comments, CDATA sections, processing
/// instructions, DOCTYPEs, namespace prefixes and entity references kept exactly as written.
///
/// Like the JSON decoder, it holds back the formatted output of the body's start
/// (`HoldBackWindow`), so a body that is not well-formed within it is shown as text with a note rather than half
/// formatted. Past the window, output is written as it comes; a document that turns out not to
/// be well-formed there keeps what was formatted, and the rest is shown as sent, with a note
/// that says so (as `JSONResponseDecoder` does).
final class XMLResponseDecoder: ResponseDecoding {
    private var context: DecodingContext
    private let formatter: XMLStreamFormatter
    /// The start of the body; closed from the start with `--stream`, which shows output as soon
    /// as there is some.
    private var window: HoldBackWindow
    /// The formatted output of the window's bytes, written when it closes.
    private var heldOutput: [UInt8] = []
    private let stream: Bool
    private var text: TextResponseDecoder?
    private var sawContent = false
    /// With `--stream` (no window): whether the first chunk was looked at for binary data.
    private var streamSniffed = false

    /// XML in another charset than UTF-8 (its Content-Type's; UTF-16 by its byte order mark,
    /// which wins over a UTF-8 label; without a charset, its declaration's `encoding`: XML 1.0
    /// §4.3.3, RFC 7303 §3.2) is converted to UTF-8 before it is checked and formatted; the decoders
    /// behind it then see UTF-8 (no charset). What is formatted is UTF-8, so its declaration is
    /// made to say so (`encoding="UTF-8"`, `declarationPatched`).
    private var transcoder: CharsetConverter?
    /// The body's first bytes, held until there are four (or the body ends) to look for a UTF-16
    /// byte order mark and, without a charset, until its declaration is whole (up to 64 KiB) to
    /// read its encoding; nil once looked at (or when not looking: another charset given).
    private var start: [UInt8]?
    /// Whether the declaration may name the charset (the Content-Type named none).
    private let declarationNamesCharset: Bool
    /// The converted body's start, held until its declaration is whole (or there is none) to
    /// make it name UTF-8; nil once done.
    private var declarationStart: [UInt8]? = []

    init(context: DecodingContext) {
        var context = context
        declarationNamesCharset = context.charset == nil
        if let cs = context.charset, !TextResponseDecoder.isUTF8Compatible(cs), let t = CharsetConverter(from: cs) {
            transcoder = t
            context.charset = nil
        }
        // The first bytes are looked at for a UTF-16 byte order mark whatever the label says.
        start = []
        self.context = context
        formatter = XMLStreamFormatter(theme: context.theme, sanitize: context.terminal)
        stream = context.options.stream
        window = HoldBackWindow(open: !stream)
    }

    /// UTF-16 by its byte order mark: `FE FF` or `FF FE` followed by `<` or a blank in that byte
    /// order, as a document must begin (binary data that happens to start with the mark, or
    /// UTF-32's `FF FE 00 00`, is not taken for UTF-16).
    static func isUTF16(_ b: [UInt8]) -> Bool {
        guard b.count >= 4 else { return false }
        let unit: UInt8
        if b[0] == 0xFE && b[1] == 0xFF && b[2] == 0 { unit = b[3] }
        else if b[0] == 0xFF && b[1] == 0xFE && b[3] == 0 { unit = b[2] }
        else { return false }
        return unit == UInt8(ascii: "<") || XMLTokenizer.isSpace(unit)
    }

    package func decode(_ chunk: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        if var held = start {
            // Let go first, so that the append grows the one array (a copy per chunk was quadratic).
            start = nil
            held.append(contentsOf: chunk)
            guard held.count >= 4 else { start = held; return }
            if !XMLResponseDecoder.isUTF16(held) && declarationNamesCharset
                && !XMLResponseDecoder.declarationDecided(held, added: chunk.count) && held.count < 64 << 10 {
                start = held
                return
            }
            chooseCharset(held)
            held.withUnsafeBytes { decode($0, into: &out) }
            return
        }
        if let transcoder {
            var utf8 = transcoder.convert(chunk, final: false)
            if var held = declarationStart {
                declarationStart = nil
                held += utf8
                // Held up to 64 KiB (a declaration may hold any amount of white space).
                if !XMLResponseDecoder.declarationDecided(held, added: utf8.count) && held.count < 64 << 10 {
                    declarationStart = held
                    return
                }
                XMLResponseDecoder.declareUTF8(&held)
                utf8 = held
            }
            utf8.withUnsafeBytes { decodeUTF8($0, into: &out) }
            return
        }
        decodeUTF8(chunk, into: &out)
    }

    /// The converter the body's start calls for: UTF-16 by its byte order mark, else (without a
    /// charset) the declaration's `encoding` when it is not UTF-8 and iconv knows it.
    private func chooseCharset(_ held: [UInt8]) {
        if XMLResponseDecoder.isUTF16(held) {
            // The mark wins over any label (RFC 7303 §3.2).
            transcoder = CharsetConverter(from: "UTF-16")
        } else if declarationNamesCharset, let name = XMLResponseDecoder.declaredCharset(held), let t = CharsetConverter(from: name) {
            transcoder = t
        }
    }

    /// The charset the declaration's `encoding` names when it is not UTF-8 and reads `<?xml` as
    /// ASCII; nil after a UTF-8 byte order mark (the body is UTF-8, whatever the declaration
    /// says) or without one.
    static func declaredCharset(_ bytes: [UInt8]) -> String? {
        guard declarationOffset(bytes) == 0, let range = declaredEncoding(bytes) else { return nil }
        let name = String(decoding: bytes[range], as: UTF8.self)
        return !TextResponseDecoder.isUTF8Compatible(name) && readsDeclarationAsASCII(name) ? name : nil
    }

    /// Whether `charset` reads `<?xml version` as those ASCII bytes, as a declaration read as
    /// ASCII must be in: not UTF-16, UCS-2 or EBCDIC, whatever the declaration names.
    static func readsDeclarationAsASCII(_ charset: String) -> Bool {
        guard let probe = CharsetConverter(from: charset) else { return false }
        let text = Array("<?xml version".utf8)
        return text.withUnsafeBytes { probe.convert($0, final: true) } == text
    }

    /// Where the declaration `<?xml ` would start in converted bytes (after a byte order mark).
    private static func declarationOffset(_ bytes: [UInt8]) -> Int {
        bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    }

    /// `declarationDecided(bytes)` for bytes that were undecided before their last `added`:
    /// once the opening `<?xml ` was there, only the added bytes can hold the `?` (looking
    /// through all of them again for every chunk of a body sent a byte at a time was quadratic).
    static func declarationDecided(_ bytes: [UInt8], added: Int) -> Bool {
        let before = bytes.count - added
        let opening = declarationOffset(bytes) + 6
        guard before > opening else { return declarationDecided(bytes) }
        return bytes[before...].contains(UInt8(ascii: "?"))
    }

    /// Whether the converted bytes tell whether a declaration starts them and, if one does, hold
    /// all of it (its `?`).
    static func declarationDecided(_ bytes: [UInt8]) -> Bool {
        let i = declarationOffset(bytes)
        let opening = Array("<?xml".utf8)
        let start = bytes[min(i, bytes.count)...]
        guard start.count > opening.count else { return !opening.starts(with: start) }
        guard start.starts(with: opening), XMLTokenizer.isSpace(start[start.startIndex + opening.count]) else { return true }
        return start.dropFirst(opening.count).contains(UInt8(ascii: "?"))
    }

    /// `<?xml … encoding="X"?>` at the start of converted bytes (after a byte order mark) made to
    /// name UTF-8, which they now are; left alone when the declaration is not all there. Only the
    /// declaration (`<?xml` and a blank), never `<?xml-stylesheet` or another instruction.
    static func declareUTF8(_ bytes: inout [UInt8]) {
        guard let range = declaredEncoding(bytes) else { return }
        bytes.replaceSubrange(range, with: Array("UTF-8".utf8))
    }

    /// Where the value of the declaration's `encoding` lies in `bytes` (inside its quotes), when
    /// the bytes start with a whole declaration (after a UTF-8 byte order mark) that has one.
    static func declaredEncoding(_ bytes: [UInt8]) -> Range<Int>? {
        var i = declarationOffset(bytes)
        guard bytes[i...].starts(with: Array("<?xml".utf8)), bytes.count > i + 5, XMLTokenizer.isSpace(bytes[i + 5]),
              let end = bytes[(i + 5)...].firstIndex(of: UInt8(ascii: "?")) else { return nil }
        let name = Array("encoding".utf8)
        while i + name.count < end {
            if bytes[i..<(i + name.count)].elementsEqual(name) { break }
            i += 1
        }
        i += name.count
        while i < end && XMLTokenizer.isSpace(bytes[i]) { i += 1 }
        guard i < end, bytes[i] == UInt8(ascii: "=") else { return nil }
        i += 1
        while i < end && XMLTokenizer.isSpace(bytes[i]) { i += 1 }
        guard i < end, bytes[i] == UInt8(ascii: "\"") || bytes[i] == UInt8(ascii: "'") else { return nil }
        let quote = bytes[i]
        guard let close = bytes[(i + 1)..<end].firstIndex(of: quote) else { return nil }
        return (i + 1)..<close
    }

    private func decodeUTF8(_ chunk: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        if let text { text.decode(chunk, into: &out); return }
        guard chunk.count > 0 else { return }
        if !sawContent, chunk.contains(where: { !XMLTokenizer.isSpace($0) }) { sawContent = true }
        guard window.isOpen else {
            if stream, !streamSniffed {
                streamSniffed = true
                if let t = TextResponseDecoder.binaryStream(chunk, context: context, into: &out) { text = t; return }
            }
            formatter.feed(chunk, into: &out, settle: stream)
            return
        }
        let outcome = window.take(chunk, context: context, into: &out) { piece, atStep in
            let before = heldOutput.count
            formatter.feed(piece, into: &heldOutput, settle: atStep, checkpoint: atStep)
            return formatter.failure == nil ? heldOutput.count - before : nil
        }
        if case .shownAsText(let t) = outcome {
            text = t
            heldOutput = []
        } else if case .closed(let rest) = outcome {
            _ = window.close()
            out += heldOutput
            heldOutput = []
            if !rest.isEmpty { formatter.feed(rest, into: &out) }
        }
    }

    /// Shows everything held so far as text; the rest follows as text too.
    private func fallBack(_ out: inout [UInt8]) {
        text = window.showAsText(context: context, into: &out)
        heldOutput = []
    }

    func finish(into out: inout [UInt8]) -> DecodingOutcome {
        if let held = start {
            // The whole body was held (short, or all declaration): its charset is decided now.
            start = nil
            chooseCharset(held)
            held.withUnsafeBytes { decode($0, into: &out) }
        }
        if let transcoder {
            var rest = transcoder.convert(UnsafeRawBufferPointer(start: nil, count: 0), final: true)
            if let held = declarationStart {
                declarationStart = nil
                rest = held + rest
                XMLResponseDecoder.declareUTF8(&rest)
            }
            rest.withUnsafeBytes { decodeUTF8($0, into: &out) }
        }
        if text == nil {
            guard sawContent else { return .decoded }
            if window.isOpen {
                formatter.finish(into: &heldOutput)
                if formatter.failure == nil {
                    out += heldOutput
                    heldOutput = []
                    return .decoded
                }
                fallBack(&out)
            } else {
                formatter.finish(into: &out)
                guard let failure = formatter.failure else { return .decoded }
                return .failed(XMLResponseDecoder.note(failure, streamed: true))
            }
        }
        // A binary body labelled XML says so (and is not shown), not "not well-formed".
        if case .note(let note)? = text?.finish(into: &out) { return .failed("the body is not XML but " + note) }
        guard let failure = formatter.failure else { return .failed("the body is not well-formed XML; shown as sent") }
        return .failed(XMLResponseDecoder.note(failure, streamed: false))
    }

    /// What went wrong, where, and what was shown.
    static func note(_ failure: XMLTokenizer.SyntaxError, streamed: Bool) -> String {
        let what = failure.isLimit
            ? "the body could not be formatted as XML (\(failure.reason) for formatting, at byte \(failure.offset))"
            : "the body is not well-formed XML (\(failure.reason) at byte \(failure.offset))"
        return what + (streamed ? "; formatted up to there, the rest is shown as sent" : "; shown as sent")
    }
}
