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
    private let context: DecodingContext
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

    init(context: DecodingContext) {
        self.context = context
        formatter = XMLStreamFormatter(theme: context.theme, sanitize: context.terminal)
        stream = context.options.stream
        window = HoldBackWindow(open: !stream)
    }

    package func decode(_ chunk: UnsafeRawBufferPointer, into out: inout [UInt8]) {
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
        if case .note(let note)? = text?.finish(into: &out) { return .failed("the body is labelled XML but is " + note) }
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
