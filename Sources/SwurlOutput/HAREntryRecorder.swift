import SwurlCore

/// One hop of a `--har` log: sees what the hop sent and received (a `HopTap`), and when it
/// ends hands its HAR 1.2 entry, serialized, to the log. Holds the request head as sent, the
/// last response head, and with `--har-bodies` a text body up to `textLimit` bytes.
final class HAREntryRecorder: HopTap {
    /// Most bytes of a body recorded as text (request `postData.text`, response `content.text`);
    /// a longer body is recorded by its size, with a comment saying so.
    static let textLimit = 1 << 20

    private let request: HTTPRequest
    private let settings: HARLog.Settings
    private let comment: String?
    private let log: HARLog
    private var sentHead: [UInt8]?
    /// When the head left and when the last body bytes did (monotonic seconds): `timings.send`.
    private var headSentAt: Double?
    private var bodySentAt: Double?
    /// When the first response head arrived (monotonic seconds).
    private var headReceivedAt: Double?
    private var responseHead: HTTPResponseHead?
    private var bodyBytes: Int64 = 0
    private var bodyText: [UInt8] = []
    private var keepsText = false

    init(request: HTTPRequest, log: HARLog, comment: String?) {
        self.request = request
        self.settings = log.settings
        self.comment = comment
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
        if headReceivedAt == nil { headReceivedAt = MonotonicClock.now() }
        // 1xx heads come before the response; a 101 is the response.
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
        log.appendEntry { w in entry(end, &w) }
    }

    // MARK: - The entry (written straight into the log's bytes: a batch writes thousands)

    private func entry(_ end: HopEnd, _ w: inout JSONWriter) {
        let t = end.timing
        let timings = HARTimings(t, failed: end.error != nil, sendSeconds: sendSeconds(), firstByteAfterHead: firstByteAfterHead())
        w.raw("{\"startedDateTime\":\"")
        log.appendTimestamp(end.endedAt - max(0, t.total), to: &w)
        w.raw("\",\"time\":")
        w.millis(timings.total)
        w.raw(",\"request\":")
        requestValue(end, &w)
        w.raw(",\"response\":")
        responseValue(end, &w)
        w.raw(",\"cache\":{},\"timings\":")
        timings.write(&w)
        if let ip = t.remoteAddress { w.raw(",\"serverIPAddress\":"); w.quoted(ip) }
        if t.localPort > 0 { w.raw(",\"connection\":\""); w.decimal(Int64(t.localPort)); w.raw("\"") }
        if let comment { w.raw(",\"comment\":"); w.quoted(comment) }
        if let error = end.error { w.raw(",\"_error\":"); w.quoted(error.message) }
        w.raw("}")
    }

    /// Seconds from the request head leaving to the last body bytes leaving (0 without a body).
    private func sendSeconds() -> Double {
        guard let start = headSentAt, let end = bodySentAt else { return 0 }
        return max(0, end - start)
    }

    /// With a body: seconds from the request head leaving to the response head arriving
    /// (libcurl 7.88 starts CURLINFO_STARTTRANSFER when an upload starts, not at the first
    /// response byte); nil without a body or a response.
    private func firstByteAfterHead() -> Double? {
        guard bodySentAt != nil, let sent = headSentAt, let received = headReceivedAt else { return nil }
        return max(0, received - sent)
    }

    private func url(_ text: String) -> String { settings.secrets ? text : Redactor.url(text) }

    private func requestValue(_ end: HopEnd, _ w: inout JSONWriter) {
        w.raw("{\"method\":")
        w.quoted(request.method.rawValue)
        w.raw(",\"url\":")
        w.quoted(url(request.url))
        if let sentHead {
            sentHead.withUnsafeBufferPointer { head in
                let lines = HAREntryRecorder.headLines(head)
                w.raw(",\"httpVersion\":")
                w.quoted(bytes: HAREntryRecorder.version(head, lines.first))
                w.raw(",\"cookies\":[")
                var first = true
                for line in lines.dropFirst() where HAREntryRecorder.isNamed(head, line.name, "cookie") {
                    cookies(request: String(decoding: UnsafeBufferPointer(rebasing: head[line.value]), as: UTF8.self), &w, first: &first)
                }
                w.raw("],\"headers\":[")
                for (i, line) in lines.dropFirst().enumerated() {
                    let name = UnsafeBufferPointer(rebasing: head[line.name])
                    if !settings.secrets, Redactor.isRecordedSecretHeader(bytes: name) {
                        w.raw(i == 0 ? "{\"name\":" : ",{\"name\":")
                        w.quoted(bytes: name)
                        w.raw(",\"value\":")
                        w.quoted(Redactor.mask)
                        w.raw("}")
                    } else {
                        w.pair(name: name, value: UnsafeBufferPointer(rebasing: head[line.value]), first: i == 0)
                    }
                }
                w.raw("]")
            }
        } else {
            let fields = request.headers.fields
            w.raw(",\"httpVersion\":\"\",\"cookies\":[")
            var first = true
            for f in fields where HAREntryRecorder.isNamed(f.name, "cookie") { cookies(request: f.value, &w, first: &first) }
            w.raw("],\"headers\":")
            headers(fields, &w)
        }
        w.raw(",\"queryString\":[")
        if request.url.containsByte(UInt8(ascii: "?")) {
            for (i, q) in HAREntryRecorder.query(of: request.url).enumerated() { pair(name: q.name, value: q.value, &w, first: i == 0) }
        }
        w.raw("]")
        if let body = request.body {
            w.raw(",\"postData\":")
            postData(body, &w)
        }
        w.raw(",\"headersSize\":")
        w.decimal(sentHead.map { Int64($0.count) } ?? -1)
        w.raw(",\"bodySize\":")
        w.decimal(sentHead != nil ? end.timing.uploadedBytes : (request.body == nil ? 0 : -1))
        w.raw("}")
    }

    private func postData(_ body: RequestBody, _ w: inout JSONWriter) {
        let mime = request.headers["Content-Type"] ?? ""
        w.raw("{\"mimeType\":")
        w.quoted(mime)
        let length = body.length
        let bytes = body.inMemoryBytes
        if let bytes, HAREntryRecorder.isText(mime) || (mime.isEmpty && !BinarySniffer.hasNUL(bytes)),
           bytes.count <= HAREntryRecorder.textLimit, let text = String(validating: bytes, as: UTF8.self) {
            w.raw(",\"text\":")
            w.quoted(text)
            if mime.lowercased().hasPrefix("application/x-www-form-urlencoded") {
                w.raw(",\"params\":[")
                for (i, p) in HAREntryRecorder.formPairs(text).enumerated() { pair(name: p.name, value: p.value, &w, first: i == 0) }
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

    private func responseValue(_ end: HopEnd, _ w: inout JSONWriter) {
        guard let head = responseHead else {
            w.raw("{\"status\":0,\"statusText\":\"\",\"httpVersion\":\"\",\"cookies\":[],\"headers\":[],")
            w.raw("\"content\":{\"size\":0,\"mimeType\":\"x-unknown\"},\"redirectURL\":\"\",\"headersSize\":-1,\"bodySize\":-1}")
            return
        }
        let fields = head.headers.fields
        // One look at each name, by its bytes: the first Content-Type (as `headers["Content-Type"]`
        // finds it) and whether there are cookies.
        var contentType: String?, setsCookies = false
        for f in fields {
            f.name.withUTF8Bytes { n in
                if n.count == 12, contentType == nil, Redactor.isASCII(n, named: "content-type") { contentType = f.value }
                if n.count == 10, Redactor.isASCII(n, named: "set-cookie") { setsCookies = true }
            }
        }
        w.raw("{\"status\":")
        w.decimal(Int64(head.status))
        w.raw(",\"statusText\":")
        w.quoted(head.reason)
        w.raw(",\"httpVersion\":")
        w.quoted(head.version)
        w.raw(",\"cookies\":[")
        var first = true
        for f in fields where setsCookies && HAREntryRecorder.isNamed(f.name, "set-cookie") {
            if cookie(setCookie: f.value, &w, first: first) { first = false }
        }
        w.raw("],\"headers\":")
        headers(fields, &w)
        w.raw(",\"content\":{\"size\":")
        w.decimal(bodyBytes)
        let onWire = end.timing.downloadedBytes
        if onWire > 0 && onWire < bodyBytes { w.raw(",\"compression\":"); w.decimal(bodyBytes - onWire) }
        w.raw(",\"mimeType\":")
        w.quoted(contentType ?? "x-unknown")
        if settings.bodies {
            if keepsText, let text = String(validating: bodyText, as: UTF8.self) {
                w.raw(",\"text\":")
                w.quoted(text)
            } else if bodyBytes > 0 {
                let why = !HAREntryRecorder.isText(contentType) ? "not a text type"
                    : bodyBytes > Int64(HAREntryRecorder.textLimit) ? "over the \(HAREntryRecorder.textLimit / 1024) KiB text limit"
                    : "not valid UTF-8"
                w.raw(",\"comment\":")
                w.quoted("body of \(bodyBytes) bytes not recorded: \(why)")
            }
        }
        w.raw("},\"redirectURL\":")
        if head.status >= 300 && head.status < 400, let location = end.redirectURL { w.quoted(url(location)) } else { w.raw("\"\"") }
        w.raw(",\"headersSize\":")
        w.decimal(end.timing.headerBytes > 0 ? end.timing.headerBytes : -1)
        w.raw(",\"bodySize\":")
        w.decimal(onWire)
        w.raw("}")
    }

    // MARK: - Pieces

    private func pair(name: String, value: String, _ w: inout JSONWriter, first: Bool) {
        w.pair(name: name, value: value, first: first)
    }

    private func secret(_ value: String) -> String { settings.secrets ? value : Redactor.mask }

    private func headers(_ fields: [HTTPHeaders.Field], _ w: inout JSONWriter) {
        w.raw("[")
        for (i, f) in fields.enumerated() {
            f.name.withUTF8Bytes { name in
                if !settings.secrets, Redactor.isRecordedSecretHeader(bytes: name) {
                    Redactor.mask.withUTF8Bytes { w.pair(name: name, value: $0, first: i == 0) }
                } else {
                    f.value.withUTF8Bytes { w.pair(name: name, value: $0, first: i == 0) }
                }
            }
        }
        w.raw("]")
    }

    /// `a=1; b=2` → the request's cookies.
    private func cookies(request value: String, _ w: inout JSONWriter, first: inout Bool) {
        for part in value.split(separator: ";") {
            let text = String(part).trimmingSpaces()
            guard !text.isEmpty else { continue }
            let (name, v) = HAREntryRecorder.split(text)
            pair(name: name, value: secret(v), &w, first: first)
            first = false
        }
    }

    /// `id=1; Path=/; HttpOnly` → a response cookie (name, value, path, domain, httpOnly,
    /// secure); false (nothing written) for an empty one.
    private func cookie(setCookie value: String, _ w: inout JSONWriter, first: Bool) -> Bool {
        var parts = value.split(separator: ";", omittingEmptySubsequences: false).map { String($0).trimmingSpaces() }[...]
        guard let firstPart = parts.popFirst(), !firstPart.isEmpty else { return false }
        let (name, v) = HAREntryRecorder.split(firstPart)
        w.raw(first ? "{\"name\":" : ",{\"name\":")
        w.quoted(name)
        w.raw(",\"value\":")
        w.quoted(secret(v))
        for attribute in parts {
            let (key, attr) = HAREntryRecorder.split(attribute)
            switch key.lowercased() {
            case "path": w.raw(",\"path\":"); w.quoted(attr)
            case "domain": w.raw(",\"domain\":"); w.quoted(attr)
            case "httponly": w.raw(",\"httpOnly\":true")
            case "secure": w.raw(",\"secure\":true")
            default: break
            }
        }
        w.raw("}")
        return true
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
        return (String(text[..<eq]), String(text[text.index(after: eq)...]))
    }

    /// Whether a Content-Type is text a person reads: `text/*`, JSON, XML, JavaScript, forms.
    static func isText(_ contentType: String?) -> Bool {
        guard let type = contentType?.lowercased().split(separator: ";").first.map({ String($0).trimmingSpaces() }),
              !type.isEmpty else { return false }
        if type.hasPrefix("text/") { return true }
        return ["json", "xml", "javascript", "ecmascript", "x-www-form-urlencoded", "yaml", "graphql"]
            .contains { type.containsText($0) }
    }

    /// Whether a header `name` is `lower` (lower-case ASCII), in any case.
    static func isNamed(_ name: String, _ lower: StaticString) -> Bool {
        guard name.utf8.count == lower.utf8CodeUnitCount else { return false }
        var name = name
        return name.withUTF8 { Redactor.isASCII($0, named: lower) }
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
