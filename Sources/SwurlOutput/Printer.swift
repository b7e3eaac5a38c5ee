import SwurlResponseSerialization
import SwurlCore
/// Shows the exchange: request head and body as sent, then the final response head and body,
/// as `--print` selects. On a terminal (or with `--pretty`) heads are coloured and bodies
/// formatted; otherwise bytes go out as they came.
package final class Printer: TransferDelegate {
    /// How output is shaped.
    package struct Style: Sendable {
        package var format: Bool
        package var colors: Bool
        /// Whether the sink is a terminal (control characters are then made visible).
        package var terminal: Bool
        /// `--style`.
        package var themeStyle: ThemeStyle
        /// How many colours the terminal shows.
        package var colorDepth: ColorDepth
        package init(format: Bool, colors: Bool, terminal: Bool, themeStyle: ThemeStyle = .auto,
                    colorDepth: ColorDepth = .ansi16) {
            self.format = format
            self.colors = colors
            self.terminal = terminal
            self.themeStyle = themeStyle
            self.colorDepth = colorDepth
        }
    }

    private let sink: ByteSink
    private let selection: PrintSelection
    private let style: Style
    private let theme: Theme?
    private let decoding: DecodingOptions
    private let validator: ResponseValidator
    private var out: [UInt8] = []
    /// Whether the final body's writer was finished (it must be, exactly once).
    private var bodyFinished = false

    private var requestHeadsSeen = 0
    private var requestBodyWriter: BodyWriter?
    private var requestPrinted = false
    /// A request body went out unformatted (piped): a response part that follows is set apart
    /// by a blank line pair, as HTTPie does, instead of running on from the body's last byte.
    private var rawRequestBodyEnded = false
    private var pendingHead: HTTPResponseHead?
    private var headPrinted = false
    private var bodyWriter: BodyWriter?
    /// Where the request body's file segments lie, so binary files can be replaced by a note on
    /// a terminal while the multipart framing around them is still shown.
    /// The request body's segments: their length, and for one not shown its name and whether it
    /// is streamed (stdin, a pipe: its bytes are not looked at ahead) rather than a binary file.
    private var segmentMap: [(length: Int64, binaryLabel: String?, streamed: Bool)] = []
    private var segmentIndex = 0
    private var segmentOffset: Int64 = 0
    private var notedSegment = -1
    /// The final response head, once known.
    package private(set) var responseHead: HTTPResponseHead?
    /// Where `-v` shows TLS details (stderr), nil to show none; stdout stays byte-exact.
    package var diagnostics: ByteSink?
    /// Whether validation refused the final response's content type (its body was not decoded).
    private var contentTypeRejected = false
    /// The request's Content-Type media type, from `prepare(for:)`.
    private var requestMediaType: String?
    /// Bytes of the final response's body.
    package var responseBodyBytes: Int64 { bodyWriter?.byteCount ?? 0 }
    /// Why the chosen decoder could not decode the final response's body, after `finish`.
    package private(set) var decodingFailure: String?

    /// - Parameters:
    ///   - decoding: `--decode` and its companions (default: auto).
    ///   - validator: decides whether the content type may be decoded (default: any).
    package init(sink: ByteSink, selection: PrintSelection, style: Style,
                decoding: DecodingOptions = DecodingOptions(), validator: ResponseValidator = ResponseValidator()) {
        self.sink = sink
        self.selection = selection
        self.style = style
        self.theme = style.colors ? Theme(style: style.themeStyle, depth: style.colorDepth) : nil
        self.decoding = decoding
        self.validator = validator
    }

    // MARK: Request

    /// Tells the printer about the request before it is sent: its body's media type (how the
    /// body is shown) and what the body is made of (on a terminal, file segments that hold binary
    /// data are shown as a one-line note).
    package func prepare(for request: HTTPRequest) {
        requestMediaType = request.headers["Content-Type"]
            .flatMap { $0.split(separator: ";").first.map { String($0).trimmingSpaces().lowercased() } }
        let body = request.body
        segmentMap = []
        guard style.terminal, selection.requestBody, let body, body.length != nil,
              !(body.segments.count == 1 && body.inMemoryBytes != nil) else { return }
        for segment in body.segments {
            switch segment {
            case .bytes(let b):
                segmentMap.append((Int64(b.count), nil, false))
            case .file(let path, let size):
                let name = path.split(separator: "/").last.map(String.init) ?? path
                segmentMap.append((size, BinarySniffer.fileLooksBinary(path) ? name : nil, false))
            case .stream(_, let label, let length):
                segmentMap.append((length ?? 0, label, true))
            }
        }
    }

    package func transferDidSendRequestHead(_ bytes: [UInt8]) throws {
        requestHeadsSeen += 1
        // Only the first request; redirect hops repeat it. An authentication round inside one
        // transfer (Digest: a 401 challenge, then the request that answers it) is shown whole,
        // as `curl -v` does: the challenge's head, then the second request.
        guard requestHeadsSeen == 1 else {
            guard selection.requestHeaders, let challenge = pendingHead, challenge.status == 401 || challenge.status == 407
            else { return }
            if !headPrinted { try printHeadIfNeeded() }
            pendingHead = nil
            headPrinted = false
            bodyWriter = nil
            if style.format || style.terminal { try sink.write("\n") }
            try printRequestHead(bytes, String(decoding: bytes, as: UTF8.self))
            return
        }
        let text = String(decoding: bytes, as: UTF8.self)
        requestBodyWriter = newRequestBodyWriter()
        guard selection.requestHeaders else { return }
        try printRequestHead(bytes, text)
    }

    /// A writer for the request's body as the selection and style show it.
    private func newRequestBodyWriter() -> BodyWriter {
        BodyWriter(enabled: selection.requestBody, mediaType: requestMediaType, format: style.format, theme: theme, terminal: style.terminal)
    }

    private func printRequestHead(_ bytes: [UInt8], _ text: String) throws {
        requestPrinted = true
        if !style.format && !style.colors && !style.terminal {
            try sink.write(bytes)
            return
        }
        var lines = text.components(separatedByCRLF: ())
        while lines.last?.isEmpty == true { lines.removeLast() }
        var out = ""
        if let first = lines.first {
            let parts = first.split(separator: " ", maxSplits: 2).map(String.init)
            if parts.count == 3 {
                out += paint(TerminalSanitizer.clean(parts[0]), theme?.method) + " "
                    + paint(TerminalSanitizer.clean(parts[1]), theme?.target) + " "
                    + paint(parts[2], theme?.version) + "\n"
            } else {
                out += TerminalSanitizer.clean(first) + "\n"
            }
        }
        for line in lines.dropFirst() { out += headerLine(line) }
        out += "\n"
        try sink.write(out)
    }

    package func transferDidSendRequestBody(_ bytes: UnsafeRawBufferPointer) throws {
        guard requestHeadsSeen <= 1, var writer = requestBodyWriter, selection.requestBody else { return }
        requestPrinted = true
        var out: [UInt8] = []
        if segmentMap.isEmpty {
            writer.write(bytes, into: &out)
        } else {
            // Walk the chunk across the segments it covers.
            var rest = bytes[...]
            while !rest.isEmpty && segmentIndex < segmentMap.count {
                let segment = segmentMap[segmentIndex]
                let take = Int(min(Int64(rest.count), segment.length - segmentOffset))
                let piece = UnsafeRawBufferPointer(rebasing: rest.prefix(take))
                if let label = segment.binaryLabel {
                    if notedSegment != segmentIndex {
                        notedSegment = segmentIndex
                        // The text before it first: on a terminal the writer holds text back (it
                        // came out after every note), so it ends here and a new one takes the rest.
                        writer.finish(into: &out)
                        writer = newRequestBodyWriter()
                        requestBodyWriter = writer
                        // A stream is not called binary: its bytes were not looked at.
                        let what = segment.streamed ? "streamed data not shown" : "binary data not shown"
                        let note = "[swurl: \(what): \(segment.length) bytes from '\(TerminalSanitizer.clean(label))']"
                        // The body's last part ends its line (what follows is the shell's prompt).
                        let end = segmentIndex == segmentMap.count - 1 ? "\n" : ""
                        out += Array(((theme?.note ?? "") + note + (theme?.reset ?? "") + end).utf8)
                    }
                } else {
                    writer.write(piece, into: &out)
                }
                rest = rest.dropFirst(take)
                segmentOffset += Int64(take)
                if segmentOffset >= segment.length {
                    segmentIndex += 1
                    segmentOffset = 0
                }
            }
            if !rest.isEmpty { writer.write(UnsafeRawBufferPointer(rebasing: rest), into: &out) }
        }
        try sink.write(out)
    }

    // MARK: TLS

    package func transferDidVerifyTLS(_ summary: TLSSummary) {
        try? diagnostics?.write(TerminalSanitizer.clean(summary.line) + "\n")
    }

    // MARK: Response

    package func transferDidReceiveHead(_ head: HTTPResponseHead) throws {
        // 1xx heads (100 Continue) are not the response.
        if head.status >= 100 && head.status < 200 && head.status != 101 { return }
        pendingHead = head
        responseHead = head
        headPrinted = false
        bodyWriter = nil
        bodyFinished = false
    }

    package func transferDidReceiveBody(_ bytes: UnsafeRawBufferPointer) throws {
        try printHeadIfNeeded()
        guard let writer = bodyWriter else { return }
        if writer.passesThrough {
            writer.passedThrough(bytes)
            try sink.write(bytes)
            return
        }
        // In pieces: formatted output can be hundreds of times its input (deeply nested JSON),
        // so output goes out once a piece makes it pass `handOverSize` and memory stays flat.
        // Collecting the pieces' output up to that size lets a background writer take it as
        // one block instead of copying it; all of a chunk's output goes out before returning.
        var rest = bytes[...]
        out.removeAll(keepingCapacity: out.capacity <= Printer.keptOutputCapacity)
        repeat {
            let piece = rest.prefix(Printer.formatPiece)
            rest = rest.dropFirst(piece.count)
            writer.write(UnsafeRawBufferPointer(rebasing: piece), into: &out)
            // A decoder's backlog (the JSON window once it closes) comes out in blocks too.
            while writer.drain(into: &out, upTo: Printer.handOverSize) {
                try sink.write(handingOver: &out)
                out.removeAll(keepingCapacity: out.capacity <= Printer.keptOutputCapacity)
            }
            if !out.isEmpty && (rest.isEmpty || out.count >= Printer.handOverSize) {
                try sink.write(handingOver: &out)
                out.removeAll(keepingCapacity: out.capacity <= Printer.keptOutputCapacity)
            }
        } while !rest.isEmpty
    }

    /// The most body bytes formatted at a time.
    static let formatPiece = 16 << 10
    /// Output collected before it is written (the background writer's block size).
    static let handOverSize = 256 << 10
    /// The output buffer's capacity kept between pieces.
    static let keptOutputCapacity = 1 << 20

    /// Completes the output after the transfer: the head if no body came, and the body's end.
    package func finish() throws {
        try finishRequest()
        try printHeadIfNeeded()
        if let writer = bodyWriter, !bodyFinished {
            bodyFinished = true
            var out: [UInt8] = []
            // Held-back output that checks out (a JSON window) goes out in blocks, as a body's does.
            writer.endOfBody()
            while writer.drain(into: &out, upTo: Printer.handOverSize) {
                try sink.write(handingOver: &out)
                out.removeAll()
            }
            writer.finish(into: &out)
            decodingFailure = writer.decodingFailure
            if !out.isEmpty { try sink.write(out) }
        }
    }

    /// After a failed or interrupted transfer: shows what a decoder still holds of a body that had
    /// started (the first megabyte of JSON is held back), so no received byte is lost. A head
    /// that arrived whole but whose body failed before its first byte is shown when headers are
    /// (`-h`, `-v`: the 503 before the timeout, as `curl -i` shows it) when it is `failedHead`,
    /// the head that answered the failed request (not an earlier attempt's, not a challenge's).
    package func finishAfterFailure(failedHead: HTTPResponseHead? = nil) throws {
        if !headPrinted, let head = pendingHead, head == failedHead, selection.responseHeaders { try printHeadIfNeeded() }
        guard headPrinted, let writer = bodyWriter, !bodyFinished else { return }
        bodyFinished = true
        var out: [UInt8] = []
        if Interrupt.requested {
            // Ctrl-C or SIGTERM: the rest of the body as sent, not formatted (the held-back
            // megabyte of deeply nested JSON formatted to hundreds of megabytes, in memory at
            // once, after the Ctrl-C).
            writer.abandon()
        } else {
            // What came of a cut body goes out in blocks, as a whole body's does: formatted in
            // one piece it could take hundreds of megabytes.
            writer.endOfBody()
            while writer.drain(into: &out, upTo: Printer.handOverSize) {
                try sink.write(handingOver: &out)
                out.removeAll()
            }
        }
        writer.finish(into: &out, cutShort: true)
        if !out.isEmpty { try sink.write(out) }
    }

    /// Whether the response's body put out any bytes (`--all` sets such a hop apart from the
    /// next message when the output is raw, as HTTPie does when stdout is not a terminal).
    package var printedResponseBody: Bool { selection.responseBody && bodyWriter?.wrote == true }

    /// Ends the request part: closes its body and separates it from what follows.
    package func finishRequest() throws {
        guard let writer = requestBodyWriter else { return }
        requestBodyWriter = nil
        var out: [UInt8] = []
        writer.finish(into: &out)
        if requestPrinted && (style.format || style.terminal) && writer.byteCount > 0 {
            if out.last != 0x0A && !(out.isEmpty && writer.byteCount == 0) { out.append(0x0A) }
            out.append(0x0A)
        } else if requestPrinted && selection.requestBody && writer.byteCount > 0 {
            // Written only if a response part follows, so --offline output stays byte-exact.
            rawRequestBodyEnded = true
        }
        if !out.isEmpty { try sink.write(out) }
    }

    private func printHeadIfNeeded() throws {
        guard !headPrinted, let head = pendingHead else { return }
        headPrinted = true
        try finishRequest()
        contentTypeRejected = !validator.acceptsContentType(head.mediaType)
        bodyWriter = BodyWriter(enabled: selection.responseBody, mediaType: head.mediaType, charset: head.charset,
                                format: style.format, theme: theme, terminal: style.terminal,
                                decoding: decoding, decode: !contentTypeRejected)
        if rawRequestBodyEnded && (selection.responseHeaders || selection.responseBody) {
            rawRequestBodyEnded = false
            try sink.write("\n\n")
        }
        guard selection.responseHeaders else { return }
        if requestPrinted && (style.format || style.terminal) { try sink.write("\n") }
        let raw = !style.format && !style.colors && !style.terminal
        var out = ""
        if raw {
            out = "\(head.version) \(head.status) \(head.reason)\r\n"
            for f in head.headers { out += "\(f.name): \(f.value)\r\n" }
            out += "\r\n"
        } else {
            out = paint(head.version, theme?.version) + " "
                + paint("\(head.status) \(TerminalSanitizer.clean(head.reason))", theme?.status(head.status)) + "\n"
            for f in head.headers { out += headerLine("\(f.name): \(f.value)") }
            if selection.responseBody { out += "\n" }
        }
        try sink.write(out)
    }

    private func headerLine(_ line: String) -> String {
        let scalars = line.unicodeScalars   // by scalar: ':' before a combining mark is one Character
        guard let colon = scalars.firstIndex(of: ":") else { return TerminalSanitizer.clean(line) + "\n" }
        let name = String(scalars[..<colon])
        let value = String(scalars[scalars.index(after: colon)...]).trimmingSpaces()
        return paint(TerminalSanitizer.clean(name), theme?.headerName) + ": " + TerminalSanitizer.clean(value) + "\n"
    }

    private func paint(_ s: String, _ color: String?) -> String {
        guard let color, let theme else { return s }
        return color + s + theme.reset
    }
}

extension String {
    /// Splits on CRLF (and lone LF), keeping empty lines.
    func components(separatedByCRLF _: Void) -> [String] {
        Array(utf8).split(separator: 0x0A, omittingEmptySubsequences: false).map { line in
            String(decoding: line.last == 0x0D ? line.dropLast() : line, as: UTF8.self)
        }
    }
}
