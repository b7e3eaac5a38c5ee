import SwurlResponseSerialization
import SwurlCore
/// Writes one message body to the output the way the destination needs it. When formatting,
/// the response decoders show it (JSON, XML, property list, image summary, text); otherwise the
/// bytes go out as sent — made terminal-safe, or replaced by a note when binary, on a terminal.
/// With a strict (explicitly chosen) decoder the body is also decoded for validation when it
/// is not shown decoded.
final class BodyWriter {
    private enum Mode { case discard, raw, decoder(ResponseDecoding) }

    private let mode: Mode
    /// Decodes a copy, output discarded, only to validate it (strict decoder, unformatted output).
    private let validator: ResponseDecoding?
    private let theme: Theme?
    private let terminal: Bool
    private let format: Bool
    private var scratch: [UInt8] = []
    private var lastOut: UInt8?
    /// Whether any output went out for the body (`Printer.printedResponseBody`).
    private(set) var wrote = false
    /// Off a terminal, the output's first kilobyte: output with a NUL there is binary, passed
    /// through as sent (an image, a binary body with any label), and gets no final newline.
    private var outputHead: [UInt8] = []
    private(set) var byteCount: Int64 = 0
    /// Why a decoder could not decode the body, after `finish`.
    private(set) var decodingFailure: String?

    /// - Parameters:
    ///   - enabled: whether the body is printed at all.
    ///   - mediaType: the Content-Type's media type, lower-cased.
    ///   - charset: the Content-Type's charset parameter.
    ///   - format: whether bodies are formatted (`--pretty=all|format`).
    ///   - decoding: `--decode` and its companions.
    ///   - decode: false when validation rejected the content type (the body is then shown undecoded).
    init(enabled: Bool, mediaType: String?, charset: String? = nil, format: Bool, theme: Theme?, terminal: Bool,
         decoding: DecodingOptions = DecodingOptions(), decode: Bool = true) {
        self.theme = theme
        self.terminal = terminal
        self.format = format
        let context = DecodingContext(options: decoding, theme: theme, terminal: terminal,
                                      mediaType: mediaType, charset: charset)
        let strict = decode && decoding.isStrict
        if !enabled {
            mode = .discard
        } else if format && decode {
            mode = .decoder(CompoundResponseDecoder(context: context))
        } else if terminal {
            // Unformatted on a terminal: safe text, or a note for binary.
            var raw = context
            raw.options.choice = .raw
            mode = .decoder(CompoundResponseDecoder(context: raw))
        } else {
            mode = .raw
        }
        var needsValidator = strict
        if case .decoder = mode, format && decode { needsValidator = false }
        if needsValidator {
            var quiet = context
            quiet.theme = nil
            quiet.terminal = false
            validator = CompoundResponseDecoder(context: quiet)
        } else {
            validator = nil
        }
    }

    /// Whether chunks go out exactly as received (raw output, nothing to validate): the caller
    /// then writes them straight from libcurl's buffer and reports them with `passedThrough`,
    /// so a large body is not copied on its way to write(2).
    var passesThrough: Bool {
        if case .raw = mode, validator == nil { return true }
        return false
    }

    /// Accounts for a chunk the caller wrote itself (see `passesThrough`).
    func passedThrough(_ chunk: UnsafeRawBufferPointer) {
        byteCount += Int64(chunk.count)
        if let last = chunk.last { wrote = true; lastOut = last }
    }

    /// Appends the output for one chunk to `out`.
    func write(_ chunk: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        byteCount += Int64(chunk.count)
        let before = out.count
        switch mode {
        case .raw: out.append(contentsOf: chunk)
        case .decoder(let d): d.decode(chunk, into: &out)
        case .discard: break
        }
        noteOutput(out, from: before)
        if let validator {
            validator.decode(chunk, into: &scratch)
            scratch.removeAll(keepingCapacity: true)
            while validator.drain(into: &scratch, upTo: BodyWriter.drainPiece) { scratch.removeAll(keepingCapacity: true) }
            scratch.removeAll(keepingCapacity: true)
        }
    }

    /// Records what `out[before...]` adds to the body's output.
    private func noteOutput(_ out: [UInt8], from before: Int) {
        guard out.count > before else { return }
        wrote = true
        lastOut = out.last
        if !terminal && outputHead.count < BinarySniffer.sniffLength {
            outputHead += out[before..<min(out.count, before + BinarySniffer.sniffLength - outputHead.count)]
        }
    }

    /// Output the validator's backlog is drained in.
    private static let drainPiece = 256 << 10

    /// Appends output the decoder left pending after `write` until `out` holds `limit` bytes;
    /// returns whether more is pending (see `ResponseDecoding.drain`).
    func drain(into out: inout [UInt8], upTo limit: Int) -> Bool {
        guard case .decoder(let d) = mode else { return false }
        let before = out.count
        let more = d.drain(into: &out, upTo: limit)
        noteOutput(out, from: before)
        return more
    }

    /// The run was interrupted: the decoder's held-back and pending bytes go out as sent (`abandon`).
    func abandon() {
        if case .decoder(let d) = mode { d.abandon() }
    }

    /// Says that the body is complete, before `finish`: output a decoder held back may then be
    /// pending for `drain` (in pieces) instead of coming out of `finish` at once.
    func endOfBody() {
        if let validator {
            validator.endOfBody()
            while validator.drain(into: &scratch, upTo: BodyWriter.drainPiece) { scratch.removeAll(keepingCapacity: true) }
            scratch.removeAll(keepingCapacity: true)
        }
        if case .decoder(let d) = mode { d.endOfBody() }
    }

    /// Appends what closes the body: a decoder's held-back output, a note, and on a terminal or
    /// when formatting a final newline.
    /// - Parameter cutShort: the transfer failed before the body ended: a decoder's verdict on
    ///   the part that came ("not valid JSON") is no note, since the transfer's error says why.
    func finish(into out: inout [UInt8], cutShort: Bool = false) {
        if let validator, case .failed(let reason) = validator.finish(into: &scratch) {
            decodingFailure = reason
        }
        scratch = []
        guard case .decoder(let d) = mode else { return }
        let before = out.count
        let outcome = d.finish(into: &out)
        noteOutput(out, from: before)
        // A final newline on a terminal, and for formatted output; binary output written as
        // sent keeps its bytes (`--pretty=format URL > logo.png` is the image).
        if wrote && lastOut != 0x0A && (terminal || (format && !BinarySniffer.hasNUL(outputHead))) { out.append(0x0A) }
        switch outcome {
        case .decoded: break
        case .failed(let reason):
            decodingFailure = reason
            if terminal && !cutShort { note(reason, &out) }
        case .note(let text):
            if terminal || format { note(text, &out) }
        }
    }

    private func note(_ text: String, _ out: inout [UInt8]) {
        if let theme { out += Array(theme.note.utf8) }
        out += Array("[swurl: \(TerminalSanitizer.clean(text))]".utf8)
        if let theme { out += Array(theme.reset.utf8) }
        out.append(0x0A)
    }
}
