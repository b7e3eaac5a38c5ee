import SwurlResponseSerialization
import SwurlCore
/// The `auto` decoder (AFCompoundResponseSerializer): looks at the Content-Type first, then at
/// the first bytes, and hands the body to the decoder that fits — or shows it as text, or, for
/// binary on a terminal, as a one-line note. An explicit `--decode` choice skips the guessing.
final class CompoundResponseDecoder: ResponseDecoding {
    /// What a body is shown as.
    enum Kind: Equatable { case json, xml, plist, image, text, binary, raw }

    /// AFNetworking's acceptable content types per serializer, widened as the issue asks:
    /// AFJSONResponseSerializer, AFXMLParserResponseSerializer, AFPropertyListResponseSerializer.
    static let jsonTypes: Set<String> = ["application/json", "text/json", "text/javascript", "application/x-ndjson",
                                         "application/jsonl", "application/json-seq", "application/x-json"]
    static let xmlTypes: Set<String> = ["application/xml", "text/xml"]
    static let plistTypes: Set<String> = ["application/x-plist", "application/x-bplist", "application/plist",
                                          "application/x-apple-plist"]
    /// Types that say nothing about the content, so sniffing decides.
    static let genericTypes: Set<String> = ["text/plain", "application/octet-stream", "binary/octet-stream",
                                            "application/unknown", "application/x-download"]
    static let binaryTypes: Set<String> = ["application/zip", "application/gzip", "application/x-gzip", "application/pdf",
                                           "application/x-tar", "application/wasm", "application/x-bzip2",
                                           "application/x-xz", "application/x-7z-compressed", "font/woff", "font/woff2"]

    /// How many bytes are looked at before choosing: the first kilobyte, which the binary check
    /// (a NUL) and the property-list check read. Exactly these bytes are judged however the body
    /// was cut into chunks, so the choice never depends on the chunking (except with `--stream`,
    /// which chooses on the first chunk).
    static let sniffLength = TextResponseDecoder.sniffLength

    private let context: DecodingContext
    private var chosen: ResponseDecoding?
    private var head: [UInt8] = []
    /// The kind chosen, once the first bytes were seen.
    private(set) var kind: Kind?

    /// A `text/event-stream` is always streamed: each event is shown as it arrives (holding
    /// bytes back to sniff would hide one small event followed by silence).
    init(context: DecodingContext) {
        var context = context
        if context.mediaType == "text/event-stream" { context.options.stream = true }
        self.context = context
    }

    /// Picks a decoder from the media type, and when that is missing or generic, from the first bytes.
    /// - Parameter charset: a UTF-16 or UTF-32 charset keeps NUL bytes from meaning binary.
    static func kind(choice: DecoderChoice, mediaType: String?, head: [UInt8], terminal: Bool, charset: String? = nil,
                     stream: Bool = false) -> Kind {
        switch choice {
        case .json: return .json
        case .xml: return .xml
        case .plist: return .plist
        case .image: return .image
        case .text: return .text
        case .raw, .auto: break
        }
        let t = mediaType ?? ""
        if choice == .raw {
            let binary = t.hasPrefix("image/") || t.hasPrefix("audio/") || t.hasPrefix("video/") || binaryTypes.contains(t)
            return binary && terminal ? .binary : .raw
        }
        if jsonTypes.contains(t) || t.hasSuffix("+json") { return .json }
        if plistTypes.contains(t) { return .plist }
        if xmlTypes.contains(t) || t.hasSuffix("+xml") {
            return PropertyListReader.looksLikePropertyList(head) ? .plist : .xml
        }
        // A body labelled an image that is none: text (an error page served with the image's
        // type) is shown as text, anything else is binary.
        if t.hasPrefix("image/") {
            if ImageInfo.sniff(head) != nil { return terminal ? .image : .raw }
            return TextResponseDecoder.looksBinary(head) ? .binary : .text
        }
        if t.hasPrefix("audio/") || t.hasPrefix("video/") || binaryTypes.contains(t) { return .binary }
        if let charset, charset.hasPrefix("utf-16") || charset.hasPrefix("utf-32") || charset.hasPrefix("ucs-") {
            return t.isEmpty || t.hasPrefix("text/") || genericTypes.contains(t) ? .text : .binary
        }
        if !t.isEmpty && !genericTypes.contains(t) {
            return TextResponseDecoder.looksBinary(head) ? .binary : .text
        }
        // Sniffing.
        if head.starts(with: Array("bplist00".utf8)) { return .plist }
        if ImageInfo.sniff(head) != nil { return terminal ? .image : .raw }
        if TextResponseDecoder.looksBinary(head) { return .binary }
        var start = 0
        if head.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        while start < head.count, XMLTokenizer.isSpace(head[start]) { start += 1 }
        let rest = head[start...]
        if rest.starts(with: Array("<?xml".utf8)) || rest.starts(with: Array("<plist".utf8)) {
            return PropertyListReader.looksLikePropertyList(head) ? .plist : .xml
        }
        if let first = rest.first {
            // A stream labelled text/plain is shown as text: its first chunk cannot tell a JSON
            // document from a log whose lines start `[12:00:01]` (HTTPie and curl show them so).
            let json: Kind = stream && t == "text/plain" ? .text : .json
            if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") { return json }
            if JSONResponseDecoder.xssiGuards.contains(where: { rest.starts(with: $0) }) { return json }
            if first == UInt8(ascii: "<"), rest.count > 1, XMLTokenizer.isNameStart(rest[rest.startIndex + 1]),
               !t.isEmpty || !rest.prefix(16).map({ $0 | 0x20 }).starts(with: Array("<html".utf8)) {
                return t.isEmpty ? .xml : .text
            }
        }
        return .text
    }

    /// The decoder for a kind.
    static func make(_ kind: Kind, context: DecodingContext) -> ResponseDecoding {
        switch kind {
        case .json: return JSONResponseDecoder(context: context)
        case .xml: return XMLResponseDecoder(context: context)
        case .plist: return PropertyListResponseDecoder(context: context)
        case .image: return ImageResponseDecoder(context: context)
        case .text: return TextResponseDecoder(context: context)
        case .binary: return TextResponseDecoder(context: context, convert: false, binary: true)
        case .raw: return TextResponseDecoder(context: context, convert: false)
        }
    }

    func drain(into out: inout [UInt8], upTo limit: Int) -> Bool {
        chosen?.drain(into: &out, upTo: limit) ?? false
    }

    func endOfBody() { chosen?.endOfBody() }

    /// (A body not yet sniffed is a few bytes: shown as any other at its end.)
    func abandon() { chosen?.abandon() }

    package func decode(_ chunk: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        if let chosen { chosen.decode(chunk, into: &out); return }
        head.append(contentsOf: chunk)
        // A stream (`-S`) is shown as it comes. One labelled an image, or with no telling label,
        // waits until its first bytes can say what it is (WebP's magic number is 12 bytes long,
        // `bplist00` 8): a PNG whose first chunk was 4 bytes was taken for text and shown escaped.
        // A JSON or text stream's first small event goes out at once.
        if head.count >= CompoundResponseDecoder.sniffLength
            || (context.options.stream && (head.count >= CompoundResponseDecoder.streamSniffLength || !sniffsMagicNumbers)) {
            choose(&out)
        }
    }

    /// Bytes a stream whose kind is sniffed waits for (every magic number `kind` looks for).
    static let streamSniffLength = 16

    /// Whether the body's kind comes from its magic number: an image's label, or none that tells
    /// (`application/octet-stream` and the like).
    private var sniffsMagicNumbers: Bool {
        let t = context.mediaType ?? ""
        return t.isEmpty || t.hasPrefix("image/") || (CompoundResponseDecoder.genericTypes.contains(t) && t != "text/plain")
    }

    private func choose(_ out: inout [UInt8]) {
        let k = CompoundResponseDecoder.kind(choice: context.options.choice, mediaType: context.mediaType,
                                             head: Array(head.prefix(CompoundResponseDecoder.sniffLength)),
                                             terminal: context.terminal, charset: context.charset, stream: context.options.stream)
        kind = k
        let d = CompoundResponseDecoder.make(k, context: context)
        chosen = d
        head.withUnsafeBytes { d.decode($0, into: &out) }
        head = []
    }

    func finish(into out: inout [UInt8]) -> DecodingOutcome {
        if chosen == nil {
            if isBlank(head) {
                // Empty bodies (HEAD, 204, 304, a lone space) are fine for every decoder.
                if context.terminal || head.isEmpty { return .decoded }
                out += head
                return .decoded
            }
            choose(&out)
        }
        let outcome = chosen?.finish(into: &out) ?? .decoded
        // A body labelled text/plain that only looked like JSON, shown as sent: it is what it
        // claimed to be, no note (`[x] todo`). One formatted in part still says so.
        if kind == .json, context.mediaType == "text/plain", context.options.choice == .auto,
           outcome == .failed(JSONResponseDecoder.notJSONShownAsSent) {
            return .decoded
        }
        return outcome
    }
}
