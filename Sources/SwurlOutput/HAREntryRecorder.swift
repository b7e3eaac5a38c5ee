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
    private let done: ([UInt8]) -> Void
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

    init(request: HTTPRequest, settings: HARLog.Settings, comment: String?, done: @escaping ([UInt8]) -> Void) {
        self.request = request
        self.settings = settings
        self.comment = comment
        self.done = done
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
        var w = JSONWriter(capacity: 2048)
        entry(end, &w)
        done(w.bytes)
    }

    // MARK: - The entry (written straight into bytes: a batch writes thousands)

    private func entry(_ end: HopEnd, _ w: inout JSONWriter) {
        let t = end.timing
        let timings = HARTimings(t, failed: end.error != nil, sendSeconds: sendSeconds(), firstByteAfterHead: firstByteAfterHead())
        w.beginObject()
        w.member("startedDateTime", Timestamp.iso8601(end.endedAt - max(0, t.total)))
        w.member("time", number: HARTimings.ms(timings.total))
        w.key("request")
        requestValue(end, &w)
        w.key("response")
        responseValue(end, &w)
        w.key("cache")
        w.beginObject()
        w.endObject()
        w.key("timings")
        timings.write(&w)
        if let ip = t.remoteAddress { w.member("serverIPAddress", ip) }
        if t.localPort > 0 { w.member("connection", String(t.localPort)) }
        if let comment { w.member("comment", comment) }
        if let error = end.error { w.member("_error", error.message) }
        w.endObject()
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
        var version = ""
        var fields: [HTTPHeaders.Field] = request.headers.fields
        if let sentHead {
            let parsed = HAREntryRecorder.parseRequestHead(sentHead)
            version = parsed.version
            fields = parsed.fields
        }
        w.beginObject()
        w.member("method", request.method.rawValue)
        w.member("url", url(request.url))
        w.member("httpVersion", version)
        w.key("cookies")
        w.beginArray()
        for f in fields where HAREntryRecorder.isNamed(f.name, "cookie") { cookies(request: f.value, &w) }
        w.endArray()
        w.key("headers")
        headers(fields, &w)
        w.key("queryString")
        w.beginArray()
        for q in HAREntryRecorder.query(of: request.url) { pair(name: q.name, value: q.value, &w) }
        w.endArray()
        if let body = request.body {
            w.key("postData")
            postData(body, &w)
        }
        w.member("headersSize", number: sentHead.map { String($0.count) } ?? "-1")
        let bodySize: Int64 = sentHead != nil ? end.timing.uploadedBytes : (request.body == nil ? 0 : -1)
        w.member("bodySize", number: String(bodySize))
        w.endObject()
    }

    private func postData(_ body: RequestBody, _ w: inout JSONWriter) {
        let mime = request.headers["Content-Type"] ?? ""
        w.beginObject()
        w.member("mimeType", mime)
        let length = body.length
        let bytes = body.inMemoryBytes
        if let bytes, HAREntryRecorder.isText(mime) || (mime.isEmpty && !BinarySniffer.hasNUL(bytes)),
           bytes.count <= HAREntryRecorder.textLimit, let text = String(validating: bytes, as: UTF8.self) {
            w.member("text", text)
            if mime.lowercased().hasPrefix("application/x-www-form-urlencoded") {
                w.key("params")
                w.beginArray()
                for p in HAREntryRecorder.formPairs(text) { pair(name: p.name, value: p.value, &w) }
                w.endArray()
            }
        } else {
            let kind = mime.lowercased().hasPrefix("multipart/") ? "multipart body"
                : bytes == nil ? "body read from a file or stdin"
                : (bytes?.count ?? 0) > HAREntryRecorder.textLimit ? "body over the \(HAREntryRecorder.textLimit / 1024) KiB text limit"
                : "binary body"
            let size = length.map { " of \($0) bytes" } ?? ""
            w.member("comment", "\(kind)\(size): recorded by its size, not its text")
        }
        w.endObject()
    }

    private func responseValue(_ end: HopEnd, _ w: inout JSONWriter) {
        w.beginObject()
        guard let head = responseHead else {
            w.member("status", number: "0")
            w.member("statusText", "")
            w.member("httpVersion", "")
            w.key("cookies"); w.beginArray(); w.endArray()
            w.key("headers"); w.beginArray(); w.endArray()
            w.key("content")
            w.beginObject()
            w.member("size", number: "0")
            w.member("mimeType", "x-unknown")
            w.endObject()
            w.member("redirectURL", "")
            w.member("headersSize", number: "-1")
            w.member("bodySize", number: "-1")
            w.endObject()
            return
        }
        let fields = head.headers.fields
        let contentType = head.headers["Content-Type"]
        w.member("status", number: String(head.status))
        w.member("statusText", head.reason)
        w.member("httpVersion", head.version)
        w.key("cookies")
        w.beginArray()
        for f in fields where HAREntryRecorder.isNamed(f.name, "set-cookie") { cookie(setCookie: f.value, &w) }
        w.endArray()
        w.key("headers")
        headers(fields, &w)
        w.key("content")
        w.beginObject()
        w.member("size", number: String(bodyBytes))
        let onWire = end.timing.downloadedBytes
        if onWire > 0 && onWire < bodyBytes { w.member("compression", number: String(bodyBytes - onWire)) }
        w.member("mimeType", contentType ?? "x-unknown")
        if settings.bodies {
            if keepsText, let text = String(validating: bodyText, as: UTF8.self) {
                w.member("text", text)
            } else if bodyBytes > 0 {
                let why = !HAREntryRecorder.isText(contentType) ? "not a text type"
                    : bodyBytes > Int64(HAREntryRecorder.textLimit) ? "over the \(HAREntryRecorder.textLimit / 1024) KiB text limit"
                    : "not valid UTF-8"
                w.member("comment", "body of \(bodyBytes) bytes not recorded: \(why)")
            }
        }
        w.endObject()
        let location = end.redirectURL.map(url) ?? ""
        w.member("redirectURL", head.status >= 300 && head.status < 400 ? location : "")
        w.member("headersSize", number: end.timing.headerBytes > 0 ? String(end.timing.headerBytes) : "-1")
        w.member("bodySize", number: String(onWire))
        w.endObject()
    }

    // MARK: - Pieces

    private func pair(name: String, value: String, _ w: inout JSONWriter) {
        w.beginObject()
        w.member("name", name)
        w.member("value", value)
        w.endObject()
    }

    private func secret(_ value: String) -> String { settings.secrets ? value : Redactor.mask }

    private func headers(_ fields: [HTTPHeaders.Field], _ w: inout JSONWriter) {
        w.beginArray()
        for f in fields { pair(name: f.name, value: Redactor.isRecordedSecretHeader(f.name) ? secret(f.value) : f.value, &w) }
        w.endArray()
    }

    /// `a=1; b=2` → the request's cookies.
    private func cookies(request value: String, _ w: inout JSONWriter) {
        for part in value.split(separator: ";") {
            let text = String(part).trimmingSpaces()
            guard !text.isEmpty else { continue }
            let (name, v) = HAREntryRecorder.split(text)
            pair(name: name, value: secret(v), &w)
        }
    }

    /// `id=1; Path=/; HttpOnly` → a response cookie (name, value, path, domain, httpOnly, secure).
    private func cookie(setCookie value: String, _ w: inout JSONWriter) {
        var parts = value.split(separator: ";", omittingEmptySubsequences: false).map { String($0).trimmingSpaces() }[...]
        guard let first = parts.popFirst(), !first.isEmpty else { return }
        let (name, v) = HAREntryRecorder.split(first)
        w.beginObject()
        w.member("name", name)
        w.member("value", secret(v))
        for attribute in parts {
            let (key, attr) = HAREntryRecorder.split(attribute)
            switch key.lowercased() {
            case "path": w.member("path", attr)
            case "domain": w.member("domain", attr)
            case "httponly": w.key("httpOnly"); w.bool(true)
            case "secure": w.key("secure"); w.bool(true)
            default: break
            }
        }
        w.endObject()
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

    /// A request head as libcurl sent it → its HTTP version and header fields.
    static func parseRequestHead(_ bytes: [UInt8]) -> (version: String, fields: [HTTPHeaders.Field]) {
        // By bytes: "\r\n" is one Character, and ':', blanks and line ends are ASCII.
        bytes.withUnsafeBufferPointer { b in
            var fields: [HTTPHeaders.Field] = []
            fields.reserveCapacity(12)
            var version = ""
            var start = 0
            var first = true
            while start < b.count {
                var end = start
                while end < b.count, b[end] != 0x0A { end += 1 }
                var stop = end
                if stop > start, b[stop - 1] == 0x0D { stop -= 1 }
                if first {
                    first = false
                    var space = stop
                    while space > start, b[space - 1] != 0x20 { space -= 1 }
                    let word = UnsafeBufferPointer(rebasing: b[space..<stop])
                    if word.starts(with: Array("HTTP/".utf8)) { version = String(decoding: word, as: UTF8.self) }
                } else if stop > start, let colon = b[start..<stop].firstIndex(of: UInt8(ascii: ":")) {
                    var v = colon + 1, w = stop
                    while v < w, b[v] == 0x20 || b[v] == 0x09 { v += 1 }
                    while w > v, b[w - 1] == 0x20 || b[w - 1] == 0x09 { w -= 1 }
                    fields.append(.init(name: String(decoding: UnsafeBufferPointer(rebasing: b[start..<colon]), as: UTF8.self),
                                        value: String(decoding: UnsafeBufferPointer(rebasing: b[v..<w]), as: UTF8.self)))
                }
                start = end + 1
            }
            return (version, fields)
        }
    }

    /// Whether a header `name` is `lower` (lower-case ASCII), in any case.
    static func isNamed(_ name: String, _ lower: String) -> Bool {
        name.utf8.count == lower.utf8.count && name.lowercased() == lower
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
