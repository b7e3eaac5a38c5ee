import SwurlResponseSerialization
import SwurlCore
/// Shows XML indented and coloured as it streams in (`XMLStreamFormatter`): one element per
/// line, an element holding only text on one line, comments, CDATA sections, processing
/// instructions, DOCTYPEs, namespace prefixes and entity references kept exactly as written.
///
/// Like the JSON decoder, it holds back the formatted output of the first `window` bytes, so a
/// body that is not well-formed within them is shown as text with a note rather than half
/// formatted. Past the window, output is written as it comes; a document that turns out not to
/// be well-formed there keeps what was formatted, and the rest is shown as sent, with a note
/// that says so (as `JSONResponseDecoder` does).
final class XMLResponseDecoder: ResponseDecoding {
    /// Bytes whose formatted output is held back at the start.
    static let window = 1 << 20
    /// The window is fed in pieces of this size, at fixed offsets of the body, so that
    /// `heldOutputBudget` is checked at the same places whatever the chunking.
    static let windowStep = 16 << 10
    /// Formatted output held back at most: nesting makes output larger than input (up to
    /// 130 bytes of indentation per `<a>`), so the window closes early past this.
    static let heldOutputBudget = 4 << 20

    private let context: DecodingContext
    private let formatter: XMLStreamFormatter
    private var held: [UInt8] = []
    private var heldOutput: [UInt8] = []
    /// Closed from the start with `--stream`, which shows output as soon as there is some.
    private var windowOpen: Bool
    private let stream: Bool
    private var text: TextResponseDecoder?
    private var sawContent = false

    init(context: DecodingContext) {
        self.context = context
        formatter = XMLStreamFormatter(theme: context.theme, sanitize: context.terminal)
        stream = context.options.stream
        windowOpen = !stream
    }

    public func decode(_ chunk: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        if let text { text.decode(chunk, into: &out); return }
        guard chunk.count > 0 else { return }
        if !sawContent, chunk.contains(where: { !XMLTokenizer.isSpace($0) }) { sawContent = true }
        guard windowOpen else {
            formatter.feed(chunk, into: &out, settle: stream)
            return
        }
        var rest = chunk[...]
        while !rest.isEmpty {
            let step = XMLResponseDecoder.windowStep - held.count % XMLResponseDecoder.windowStep
            let piece = UnsafeRawBufferPointer(rebasing: rest.prefix(min(step, XMLResponseDecoder.window - held.count)))
            rest = rest.dropFirst(piece.count)
            held.append(contentsOf: piece)
            let atStep = held.count % XMLResponseDecoder.windowStep == 0
            formatter.feed(piece, into: &heldOutput, settle: atStep, checkpoint: atStep)
            if formatter.failure != nil {
                fallBack(&out)
                text?.decode(UnsafeRawBufferPointer(rebasing: rest), into: &out)
                return
            }
            if held.count >= XMLResponseDecoder.window || (atStep && heldOutput.count > XMLResponseDecoder.heldOutputBudget) {
                out += heldOutput
                heldOutput = []
                held = []
                windowOpen = false
                if !rest.isEmpty { formatter.feed(UnsafeRawBufferPointer(rebasing: rest), into: &out) }
                return
            }
        }
    }

    /// Shows everything held so far as text; the rest follows as text too.
    private func fallBack(_ out: inout [UInt8]) {
        let t = TextResponseDecoder(context: context)
        t.decode(held, into: &out)
        held = []
        heldOutput = []
        windowOpen = false
        text = t
    }

    func finish(into out: inout [UInt8]) -> DecodingOutcome {
        if text == nil {
            guard sawContent else { return .decoded }
            if windowOpen {
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
