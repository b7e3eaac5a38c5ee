import SwurlCore

/// One hop of a `--har` log: sees what the hop sent and received (a `HopTap`), and when it
/// ends copies what its HAR 1.2 entry is made of into a record (`Record.swift`) that
/// the log turns into the entry (`HAREntryWriter`). Holds the request head as sent, the last
/// response head, and with `--har-bodies` a text body up to `textLimit` bytes.
final class HAREntryRecorder: HopTap {
    /// Most bytes of a body recorded as text (request `postData.text`, response `content.text`);
    /// a longer body is recorded by its size, with a comment saying so.
    static let textLimit = 1 << 20

    private let request: HTTPRequest
    private let settings: HARLog.Settings
    /// A batch's line number: the entry's comment `line N`.
    private let line: Int?
    private let log: HARLog
    private var sentHead: [UInt8]?
    /// When the head left and when the last body bytes did (monotonic seconds): `timings.send`.
    private var headSentAt: Double?
    private var bodySentAt: Double?
    private var responseHead: HTTPResponseHead?
    private var bodyBytes: Int64 = 0
    private var bodyText: [UInt8] = []
    private var keepsText = false

    init(request: HTTPRequest, log: HARLog, line: Int?) {
        self.request = request
        self.settings = log.settings
        self.line = line
        self.log = log
    }

    func transferDidSendRequestHead(_ bytes: [UInt8]) throws {
        // An authentication round in one transfer (Digest) sends a second head: it is the one answered.
        sentHead = bytes
        headSentAt = MonotonicClock.now()
        bodySentAt = nil
    }

    func transferDidSendRequestBody(_ bytes: UnsafeRawBufferPointer) throws {
        bodySentAt = MonotonicClock.now()
    }

    func transferDidReceiveHead(_ head: HTTPResponseHead) throws {
        // 1xx heads come before the response (a 101 is the response); a head after another
        // final one (Digest's second round, the tunnel's request after CONNECT) replaces it.
        guard head.status >= 200 || head.status == 101 || responseHead == nil else { return }
        responseHead = head
        bodyBytes = 0
        bodyText = []
        keepsText = settings.bodies && HAREntryRecorder.isText(head.headers["Content-Type"])
    }

    func transferDidReceiveBody(_ bytes: UnsafeRawBufferPointer) throws {
        bodyBytes += Int64(bytes.count)
        guard keepsText else { return }
        if bodyText.count + bytes.count > HAREntryRecorder.textLimit {
            keepsText = false
            bodyText = []
        } else {
            bodyText.append(contentsOf: bytes)
        }
    }

    func hopDidEnd(_ end: HopEnd) {
        log.appendRecord { out in record(end, &out) }
    }

    // MARK: - The record (the fields in the order HAREntryWriter reads them)

    private func record(_ end: HopEnd, _ out: inout ByteBuffer) {
        let t = end.timing
        out.recordDouble(end.endedAt - max(0, t.total))
        // libcurl's counters as read: the formatter works the phases out (`HARTimings`).
        out.recordDouble(t.nameLookup)
        out.recordDouble(t.connect)
        out.recordDouble(t.appConnect)
        out.recordDouble(t.preTransfer)
        out.recordDouble(t.startTransfer)
        out.recordDouble(t.total)
        out.recordInt(end.error == nil ? 0 : 1)
        out.recordDouble(sendSeconds())
        out.recordString(t.remoteAddress)
        out.recordInt(t.localPort)
        out.recordInt(t.remotePort)
        out.recordInt(t.newConnections)
        out.recordInt(line ?? -1)
        out.recordInt(end.fromCache ? 1 : end.revalidated ? 2 : 0)
        // Cleaned as batch results, reports and JUnit show it: a certificate's name may carry
        // a bidi override that would turn the rest of the text around in a HAR viewer.
        out.recordString(end.error.map { TerminalSanitizer.clean($0.message) })
        // The request.
        out.recordString(request.method.rawValue)
        out.recordString(request.url)
        // The head: as sent (0), as rebuilt, made from its parts where the entry is written (1;
        // 3 when its request line says HTTP/1.0), or not known: the request's own fields (2).
        let headKnown = sentHead != nil || end.rebuiltHead != nil
        if let sentHead {
            out.recordInt(0)
            sentHead.withUnsafeBufferPointer { out.recordBytes($0) }
        } else if let rebuilt = end.rebuiltHead {
            out.recordInt(rebuilt.http10 ? 3 : 1)
            out.recordRange(rebuilt.path)
            out.recordRange(rebuilt.query)
            out.recordRange(rebuilt.host)
            out.recordRange(rebuilt.port)
            rebuilt.tail.withUnsafeBufferPointer { out.recordBytes($0) }
        } else {
            out.recordInt(2)
            out.recordFields(request.headers.fields)
        }
        // libcurl's upload count has a chunked body's framing in it: the payload is at most the
        // body's own length, or what was read for it when that is unknown (stdin). Asked only
        // with a body: the header look-up was a fifth of a bodiless record's work.
        let sent = !headKnown ? (request.body == nil ? 0 : -1)
            : request.body == nil ? t.uploadedBytes
            : request.isChunked ? min(request.body?.length ?? t.bodyBytesRead, t.uploadedBytes)
            : t.uploadedBytes
        if let body = request.body {
            // Rare in a batch, and made of the body's own objects: written here, as JSON.
            var w = JSONWriter(capacity: 256)
            // A body that never left (the server answered first, or Digest's first round went
            // with `Content-Length: 0` and was the last) is described, not shown as sent.
            postData(body, notSent: sent == 0 && body.length != 0, &w)
            w.bytes.withUnsafeBytes { out.recordBytes($0.assumingMemoryBound(to: UInt8.self)) }
        } else {
            out.recordBytes(nil)
        }
        // (A rebuilt head's size is counted where it is made.)
        out.recordInt(sentHead.map { Int64($0.count) } ?? -1)
        out.recordInt(sent)
        // The response.
        guard let head = responseHead else {
            out.recordInt(0)
            return
        }
        out.recordInt(1)
        out.recordInt(head.status)
        out.recordString(head.reason)
        out.recordString(head.version)
        out.recordFields(head.headers.fields)
        out.recordInt(bodyBytes)
        // A response the cache served came over no wire: HAR 1.2's bodySize is 0 for it.
        out.recordInt(end.fromCache ? 0 : t.downloadedBytes)
        if settings.bodies && keepsText {
            bodyText.withUnsafeBufferPointer { out.recordBytes($0) }
        } else {
            out.recordBytes(nil)
        }
        out.recordString(head.status >= 300 && head.status < 400 ? end.redirectURL : nil)
        // Without the heads before it or a proxy's answer to CONNECT (a 1xx alone, the
        // response missing, keeps its own): the transfer's count of the response's own head.
        out.recordInt(t.responseHeadBytes)
    }

    /// Seconds from the request head leaving to the last body bytes leaving (0 without a body).
    private func sendSeconds() -> Double {
        guard let start = headSentAt, let end = bodySentAt else { return 0 }
        return max(0, end - start)
    }

    private func postData(_ body: RequestBody, notSent: Bool, _ w: inout JSONWriter) {
        let mime = request.headers["Content-Type"] ?? ""
        w.raw("{\"mimeType\":")
        w.quoted(mime)
        let length = body.length
        let bytes = body.inMemoryBytes
        if notSent {
            let size = length.map { " of \($0) bytes" } ?? ""
            w.raw(",\"comment\":")
            w.quoted("the body\(size) was not sent: the server answered before it went")
        } else if let bytes, HAREntryRecorder.isText(mime) || (mime.isEmpty && !BinarySniffer.hasNUL(bytes)),
           bytes.count <= HAREntryRecorder.textLimit, let text = String(validating: bytes, as: UTF8.self) {
            w.raw(",\"text\":")
            w.quoted(text)
            if mime.lowercased().hasPrefix("application/x-www-form-urlencoded") {
                w.raw(",\"params\":[")
                for (i, p) in HAREntryRecorder.formPairs(text).enumerated() { w.pair(name: p.name, value: p.value, first: i == 0) }
                w.raw("]")
            }
        } else {
            let kind = mime.lowercased().hasPrefix("multipart/") ? "multipart body"
                : bytes == nil ? "body read from a file or stdin"
                : (bytes?.count ?? 0) > HAREntryRecorder.textLimit ? "body over the \(HAREntryRecorder.textLimit / 1024) KiB text limit"
                : "binary body"
            let size = length.map { " of \($0) bytes" } ?? ""
            w.raw(",\"comment\":")
            w.quoted("\(kind)\(size): recorded by its size, not its text")
        }
        w.raw("}")
    }

    // MARK: - The head as sent, by bytes

    /// One line of a request head: where its name and its value (without the blanks around
    /// it) lie. The first line (the request line) has its whole text as `name`.
    struct HeadLine {
        var name: Range<Int>
        var value: Range<Int>
    }

    /// The lines of a request head as libcurl sent it ("\r\n" is one Character, so by bytes:
    /// ':', blanks and line ends are ASCII); header lines without a colon are left out.
    static func headLines(_ b: UnsafeBufferPointer<UInt8>) -> [HeadLine] {
        var lines: [HeadLine] = []
        lines.reserveCapacity(12)
        var start = 0
        while start < b.count {
            var end = start
            while end < b.count, b[end] != 0x0A { end += 1 }
            var stop = end
            if stop > start, b[stop - 1] == 0x0D { stop -= 1 }
            if lines.isEmpty {
                lines.append(HeadLine(name: start..<stop, value: stop..<stop))
            } else if stop > start, let colon = b[start..<stop].firstIndex(of: UInt8(ascii: ":")) {
                var v = colon + 1, e = stop
                while v < e, b[v] == 0x20 || b[v] == 0x09 { v += 1 }
                while e > v, b[e - 1] == 0x20 || b[e - 1] == 0x09 { e -= 1 }
                lines.append(HeadLine(name: start..<colon, value: v..<e))
            }
            start = end + 1
        }
        return lines
    }

    /// The request line's last word when it is an HTTP version (`HTTP/1.1`), else empty.
    static func version(_ b: UnsafeBufferPointer<UInt8>, _ requestLine: HeadLine?) -> UnsafeBufferPointer<UInt8> {
        guard let r = requestLine?.name else { return UnsafeBufferPointer(rebasing: b[0..<0]) }
        var space = r.upperBound
        while space > r.lowerBound, b[space - 1] != 0x20 { space -= 1 }
        let word = UnsafeBufferPointer(rebasing: b[space..<r.upperBound])
        return word.starts(with: "HTTP/".utf8) ? word : UnsafeBufferPointer(rebasing: b[0..<0])
    }

    /// Whether the bytes `name` of `b` are the header name `lower` (lower-case ASCII) in any case.
    static func isNamed(_ b: UnsafeBufferPointer<UInt8>, _ name: Range<Int>, _ lower: StaticString) -> Bool {
        Redactor.isASCII(UnsafeBufferPointer(rebasing: b[name]), named: lower)
    }

    /// A request head as libcurl sent it → its HTTP version and header fields.
    static func parseRequestHead(_ bytes: [UInt8]) -> (version: String, fields: [HTTPHeaders.Field]) {
        bytes.withUnsafeBufferPointer { b in
            let lines = headLines(b)
            let fields = lines.dropFirst().map { line in
                HTTPHeaders.Field(name: String(decoding: UnsafeBufferPointer(rebasing: b[line.name]), as: UTF8.self),
                                  value: String(decoding: UnsafeBufferPointer(rebasing: b[line.value]), as: UTF8.self))
            }
            return (String(decoding: version(b, lines.first), as: UTF8.self), fields)
        }
    }

    // MARK: - Parsing (pure, tested)

    /// `name=value` → (name, value); without `=`, the whole text is the name.
    static func split(_ text: String) -> (String, String) {
        guard let eq = text.firstIndex(of: "=") else { return (text, "") }
        // Blanks around the `=` are no part of either (RFC 6265 §5.2: `f = g` is `f` and `g`).
        return (String(text[..<eq]).trimmingSpaces(), String(text[text.index(after: eq)...]).trimmingSpaces())
    }

    /// A cookie's name and value: one without `=` is a value with an empty name, as browsers read
    /// it (RFC 6265bis §5.6), so that redacting the value hides it (`Cookie: TOKEN`).
    static func cookiePair(_ text: String) -> (String, String) {
        text.contains("=") ? split(text) : ("", text)
    }

    /// Whether a Content-Type is text a person reads: `text/*`, JSON, XML, JavaScript, forms.
    static func isText(_ contentType: String?) -> Bool {
        guard let type = contentType?.lowercased().split(separator: ";").first.map({ String($0).trimmingSpaces() }),
              !type.isEmpty else { return false }
        if type.hasPrefix("text/") { return true }
        return ["json", "xml", "javascript", "ecmascript", "x-www-form-urlencoded", "yaml", "graphql"]
            .contains { type.containsText($0) }
    }

    /// The query of a URL as name/value pairs, percent-decoded (`+` as in a form is left alone).
    static func query(of url: String) -> [(name: String, value: String)] {
        var rest = Substring(url)
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        guard let q = rest.firstIndex(of: "?") else { return [] }
        return pairs(String(rest[rest.index(after: q)...]), plusIsSpace: false)
    }

    /// An urlencoded form's pairs, decoded (`+` is a space).
    static func formPairs(_ text: String) -> [(name: String, value: String)] { pairs(text, plusIsSpace: true) }

    private static func pairs(_ text: String, plusIsSpace: Bool) -> [(name: String, value: String)] {
        text.split(separator: "&").map { part in
            let (name, value) = split(String(part))
            func decode(_ s: String) -> String {
                let spaced = plusIsSpace ? s.replacingAll("+", with: " ") : s
                return String(decoding: URLText.percentDecodedBytes(spaced), as: UTF8.self)
            }
            return (decode(name), decode(value))
        }
    }
}
