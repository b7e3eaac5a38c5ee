/// Writes one message body to the output the way the destination needs it: JSON formatted,
/// text made terminal-safe, binary replaced by a note on a terminal, or raw bytes.
final class BodyWriter {
    enum Mode { case discard, raw, sanitized, json(JSONStreamFormatter), binaryNote }

    private var mode: Mode?
    private let format: Bool
    private let theme: Theme?
    private let terminal: Bool
    private var sanitizer = TerminalSanitizer()
    private(set) var byteCount: Int64 = 0
    private var mediaType: String?
    private var lastByte: UInt8?
    private let enabled: Bool

    init(enabled: Bool, mediaType: String?, format: Bool, theme: Theme?, terminal: Bool) {
        self.enabled = enabled
        self.mediaType = mediaType
        self.format = format
        self.theme = theme
        self.terminal = terminal
    }

    static func isJSONType(_ t: String?) -> Bool {
        guard let t else { return false }
        return t == "application/json" || t == "text/json" || t == "text/javascript" || t.hasSuffix("+json")
            || t == "application/x-ndjson" || t == "application/jsonl"
    }

    static func isBinaryType(_ t: String?) -> Bool {
        guard let t else { return false }
        if t.hasPrefix("image/") || t.hasPrefix("audio/") || t.hasPrefix("video/") { return true }
        return ["application/octet-stream", "application/zip", "application/gzip", "application/pdf",
                "application/x-bplist", "application/x-tar"].contains(t)
    }

    private func choose(_ first: UnsafeRawBufferPointer) -> Mode {
        guard enabled else { return .discard }
        let head = first.prefix(1024)
        let looksBinary = BinarySniffer.looksBinary(first) || BodyWriter.isBinaryType(mediaType)
        if terminal && looksBinary { return .binaryNote }
        if format && !looksBinary {
            let firstSignificant = head.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
            let textual = mediaType == nil || mediaType == "text/plain"
            if BodyWriter.isJSONType(mediaType)
                || (textual && (firstSignificant == UInt8(ascii: "{") || firstSignificant == UInt8(ascii: "["))) {
                return .json(JSONStreamFormatter(theme: theme, sanitize: terminal))
            }
        }
        return terminal ? .sanitized : .raw
    }

    /// Appends the output for one chunk to `out`.
    func write(_ chunk: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        if mode == nil { mode = choose(chunk) }
        byteCount += Int64(chunk.count)
        if let l = chunk.last { lastByte = l }
        switch mode {
        case .raw: out.append(contentsOf: chunk)
        case .sanitized: sanitizer.append(chunk, to: &out)
        case .json(let f): f.feed(chunk, into: &out)
        default: break
        }
    }

    /// Whether a body was written that the reader should see a final newline after.
    /// Appends what closes the body: a formatter's end, a binary note, a final newline when formatting.
    func finish(into out: inout [UInt8]) {
        switch mode {
        case .json(let f):
            f.finish(into: &out)
            if out.last != 0x0A { out.append(0x0A) }
            if !f.isValid {
                note("the body is not valid JSON; shown as sent", &out)
            }
        case .binaryNote:
            let type = mediaType.map { " of \($0)" } ?? ""
            note("binary data not shown: \(byteCount) bytes\(type); use -o FILE or a pipe to save it", &out)
        case .sanitized:
            sanitizer.finish(into: &out)
            if byteCount > 0 && lastByte != 0x0A { out.append(0x0A) }
        default:
            break
        }
    }

    private func note(_ text: String, _ out: inout [UInt8]) {
        if let theme { out += Array(theme.note.utf8) }
        out += Array("[swurl: \(text)]".utf8)
        if let theme { out += Array(theme.reset.utf8) }
        out.append(0x0A)
    }
}
