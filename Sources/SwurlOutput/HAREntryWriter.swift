import SwurlCore

/// Writes a HAR 1.2 entry from a hop's record (`HAREntryRecorder` made it), straight into the
/// log's bytes: constant JSON as fragments, the fields from the record's bytes. A batch writes
/// thousands, on the log's second thread when there are enough of them (`HARLog`).
enum HAREntryWriter {
    typealias Field = (name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>)

    /// The entry of the record `r` reads.
    static func entry(_ r: inout RecordReader, settings: HARLog.Settings, cache: inout Timestamp.SecondCache,
                      connections: inout HARConnections, _ w: inout JSONWriter) {
        let started = r.double()
        // libcurl's counters as the recorder read them (`HAREntryRecorder.record`).
        var counters = TransferTiming()
        counters.nameLookup = r.double()
        counters.connect = r.double()
        counters.appConnect = r.double()
        counters.preTransfer = r.double()
        counters.startTransfer = r.double()
        counters.total = r.double()
        let failed = r.int() != 0
        let sendSeconds = r.double()
        let remoteAddress = r.bytes()
        let localPort = r.int()
        let remotePort = r.int()
        let newConnections = r.int()
        let opened = newConnections > 0
        // An IP address (HAR 1.2), not a Unix socket's path (libcurl's address with --unix-socket).
        let ipAddress = remoteAddress.map { HARTimings.isIPAddress(String(decoding: $0, as: UTF8.self)) } ?? false
        counters.newConnections = Int(newConnections)
        let timings = HARTimings(counters, socketPath: remoteAddress != nil && !ipAddress, failed: failed, sendSeconds: sendSeconds)
        let line = r.int()
        // 1: served by the cache; 2: a 304 from the network selected the cache's stored response.
        let fromCache = r.int()
        let error = r.bytes()
        w.raw("{\"startedDateTime\":\"")
        Timestamp.appendISO8601(started, to: &w.bytes, cache: &cache)
        w.raw("\",\"time\":")
        w.millis(timings.total)
        w.raw(",\"request\":")
        request(&r, settings, &w)
        w.raw(",\"response\":")
        // (When the response came, for a cookie's Max-Age: the hop's end.)
        response(&r, settings, error: error, receivedAt: started + Double(timings.total) / 1_000_000, &w)
        w.raw(",\"cache\":{},\"timings\":")
        timings.write(&w)
        if let remoteAddress, ipAddress {
            w.raw(",\"serverIPAddress\":"); w.quoted(bytes: remoteAddress)
        }
        if localPort > 0 {
            w.raw(",\"connection\":\"")
            w.decimal(Int64(connections.number(localPort: localPort, remotePort: remotePort, address: remoteAddress, opened: opened)))
            w.raw("\"")
        }
        if line >= 0 { w.raw(",\"comment\":\"line "); w.decimal(line); w.raw("\"") }
        // As browsers' HAR files mark a response their cache served (Chromium's `_fromCache`).
        if fromCache == 1 { w.raw(",\"_fromCache\":\"disk\"") }
        // The status and body shown are the stored response's; the network sent a 304 for it
        // (so no `_fromCache`, which says the network was not asked).
        if fromCache == 2 { w.raw(",\"_revalidated\":true") }
        if let error { w.raw(",\"_error\":"); w.quoted(bytes: error) }
        w.raw("}")
    }

    private static func url(_ text: String, _ settings: HARLog.Settings) -> String {
        settings.secrets ? text : Redactor.url(text, userAlone: true)
    }

    private static func request(_ r: inout RecordReader, _ settings: HARLog.Settings, _ w: inout JSONWriter) {
        let method = r.someBytes()
        let target = r.string() ?? ""
        w.raw("{\"method\":")
        w.quoted(bytes: method)
        w.raw(",\"url\":")
        // The URL as requested: a fragment is never sent (browsers' HAR files leave it out too).
        let sent = target.containsByte(UInt8(ascii: "#")) ? String(target.prefix { $0 != "#" }) : target
        w.quoted(url(sent, settings))
        // The head as sent (0), as rebuilt from its parts (1, 3: on HTTP/1.0), or unknown: the
        // request's fields (2) (`HAREntryRecorder.record`).
        var madeSize: Int?
        switch r.int() {
        case 0:
            knownHead(r.someBytes(), settings, &w)
        case let kind where kind == 1 || kind == 3:
            let path = r.range(), query = r.range(), host = r.range(), port = r.range()
            let tail = r.someBytes()
            var made = ByteBuffer(capacity: 256 + tail.count)
            var text = target
            text.withUTF8 { u in
                guard let host, RebuiltRequestHead.fits(path: path, query: query, host: host, port: port, count: u.count) else { return }
                RebuiltRequestHead.append(method: method, url: u, path: path, query: query, host: host, port: port, tail: tail,
                                          http10: kind == 3, to: &made)
            }
            made.withUnsafeBytes { knownHead($0.assumingMemoryBound(to: UInt8.self), settings, &w) }
            madeSize = made.count
        default:
            let fields = r.fields()
            w.raw(",\"httpVersion\":\"\",\"cookies\":[")
            var first = true
            for f in fields where Redactor.isASCII(f.name, named: "cookie") { cookies(request: f.value, settings, &w, first: &first) }
            w.raw("],\"headers\":")
            headers(fields, settings, &w)
        }
        w.raw(",\"queryString\":[")
        if target.containsByte(UInt8(ascii: "?")) {
            for (i, q) in HAREntryRecorder.query(of: target).enumerated() { w.pair(name: q.name, value: q.value, first: i == 0) }
        }
        w.raw("]")
        if let postData = r.bytes() {
            w.raw(",\"postData\":")
            w.bytes.append(postData)
        }
        w.raw(",\"headersSize\":")
        let recordedSize = r.int()
        w.decimal(madeSize.map { Int64($0) } ?? recordedSize)
        w.raw(",\"bodySize\":")
        w.decimal(r.int())
        w.raw("}")
    }

    /// A request head's version, cookies and headers, from its bytes.
    private static func knownHead(_ head: UnsafeBufferPointer<UInt8>, _ settings: HARLog.Settings, _ w: inout JSONWriter) {
        let lines = HAREntryRecorder.headLines(head)
        w.raw(",\"httpVersion\":")
        w.quoted(bytes: HAREntryRecorder.version(head, lines.first))
        w.raw(",\"cookies\":[")
        var first = true
        for line in lines.dropFirst() where HAREntryRecorder.isNamed(head, line.name, "cookie") {
            cookies(request: UnsafeBufferPointer(rebasing: head[line.value]), settings, &w, first: &first)
        }
        w.raw("],\"headers\":[")
        for (i, line) in lines.dropFirst().enumerated() {
            field(name: UnsafeBufferPointer(rebasing: head[line.name]), value: UnsafeBufferPointer(rebasing: head[line.value]),
                  settings, &w, first: i == 0)
        }
        w.raw("]")
    }

    /// The response object; a failed hop's `error` is its `_error` too, where Chromium's HAR
    /// export puts it (the entry's `_error` stays, as earlier files had it).
    /// `text` converted to UTF-8 from the charset `contentType` names (one iconv knows, and not
    /// UTF-8's), nil when there is none or a byte is not of it.
    private static func converted(_ text: UnsafeBufferPointer<UInt8>, _ contentType: String?) -> String? {
        guard let contentType, let charset = HeaderParameters.value("charset", in: contentType)?.lowercased(),
              !TextResponseDecoder.isUTF8Compatible(charset), let converter = CharsetConverter(from: charset) else { return nil }
        let bytes = converter.convert(UnsafeRawBufferPointer(text), final: true)
        // U+FFFD made for a byte that is not of the charset: not its text.
        guard !bytes.withUnsafeBufferPointer({ b in b.indices.dropLast(2).contains { b[$0] == 0xEF && b[$0 + 1] == 0xBF && b[$0 + 2] == 0xBD } }) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func response(_ r: inout RecordReader, _ settings: HARLog.Settings, error: UnsafeBufferPointer<UInt8>?,
                                 receivedAt: Double, _ w: inout JSONWriter) {
        guard r.int() != 0 else {
            w.raw("{\"status\":0,\"statusText\":\"\",\"httpVersion\":\"\",\"cookies\":[],\"headers\":[],")
            w.raw("\"content\":{\"size\":0,\"mimeType\":\"x-unknown\"},\"redirectURL\":\"\",\"headersSize\":-1,\"bodySize\":-1")
            if let error { w.raw(",\"_error\":"); w.quoted(bytes: error) }
            w.raw("}")
            return
        }
        let status = r.int()
        let reason = r.someBytes(), version = r.someBytes()
        let fields = r.fields()
        let bodyBytes = r.int(), onWire = r.int()
        let text = r.bytes()
        let redirectURL = r.string()
        let headerBytes = r.int()
        // One look at each name: the first Content-Type (as `headers["Content-Type"]` finds it)
        // and whether there are cookies.
        var contentType: String?, contentEncoding: String?, setsCookies = false
        for f in fields {
            if contentType == nil, Redactor.isASCII(f.name, named: "content-type") { contentType = String(decoding: f.value, as: UTF8.self) }
            if Redactor.isASCII(f.name, named: "set-cookie") { setsCookies = true }
            if contentEncoding == nil, Redactor.isASCII(f.name, named: "content-encoding") { contentEncoding = String(decoding: f.value, as: UTF8.self) }
        }
        w.raw("{\"status\":")
        w.decimal(status)
        w.raw(",\"statusText\":")
        w.quoted(bytes: reason)
        w.raw(",\"httpVersion\":")
        w.quoted(bytes: version)
        w.raw(",\"cookies\":[")
        var first = true
        for f in fields where setsCookies && Redactor.isASCII(f.name, named: "set-cookie") {
            if cookie(setCookie: String(decoding: f.value, as: UTF8.self), settings, receivedAt: receivedAt, &w, first: first) { first = false }
        }
        w.raw("],\"headers\":")
        headers(fields, settings, &w)
        w.raw(",\"content\":{\"size\":")
        w.decimal(bodyBytes)
        if onWire > 0 && onWire < bodyBytes { w.raw(",\"compression\":"); w.decimal(bodyBytes - onWire) }
        w.raw(",\"mimeType\":")
        w.quoted(contentType ?? "x-unknown")
        if settings.bodies {
            // The text as UTF-8: as it came, or from the Content-Type's charset (HAR's text is
            // decoded text; `charset=iso-8859-1` was left out as "not valid UTF-8").
            if let text, let valid = String(validating: text, as: UTF8.self) ?? HAREntryWriter.converted(text, contentType) {
                w.raw(",\"text\":")
                w.quoted(valid)
            } else if bodyBytes > 0 {
                // A body still in its Content-Encoding (a download keeps the bytes as sent): its
                // size is what came, and it is no text.
                let coding = contentEncoding?.trimmingSpaces().lowercased() ?? ""
                let why = !HAREntryRecorder.isText(contentType) ? "not a text type"
                    : !coding.isEmpty && coding != "identity" && onWire >= bodyBytes ? "kept as sent, in its Content-Encoding (\(coding))"
                    : bodyBytes > Int64(HAREntryRecorder.textLimit) ? "over the \(HAREntryRecorder.textLimit / 1024) KiB text limit"
                    : "not valid UTF-8"
                w.raw(",\"comment\":")
                w.quoted("body of \(bodyBytes) bytes not recorded: \(why)")
            }
        }
        w.raw("},\"redirectURL\":")
        if let redirectURL { w.quoted(url(redirectURL, settings)) } else { w.raw("\"\"") }
        w.raw(",\"headersSize\":")
        w.decimal(headerBytes > 0 ? headerBytes : -1)
        w.raw(",\"bodySize\":")
        w.decimal(onWire)
        if let error { w.raw(",\"_error\":"); w.quoted(bytes: error) }
        w.raw("}")
    }

    // MARK: - Pieces

    /// The fields as HAR pairs (`field`).
    private static func headers(_ fields: [Field], _ settings: HARLog.Settings, _ w: inout JSONWriter) {
        w.raw("[")
        for (i, f) in fields.enumerated() { field(name: f.name, value: f.value, settings, &w, first: i == 0) }
        w.raw("]")
    }

    /// One header field as a HAR pair, unless `--har-secrets`: a credential's value masked, and
    /// the password in a URL a field carries (`Location`, `Content-Location`, `Referer`) masked
    /// as in the entry's URLs.
    private static func field(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, _ settings: HARLog.Settings,
                              _ w: inout JSONWriter, first: Bool) {
        guard !settings.secrets else { return w.pair(name: name, value: value, first: first) }
        if Redactor.isRecordedSecretHeader(bytes: name) {
            Redactor.mask.withUTF8Bytes { w.pair(name: name, value: $0, first: first) }
        } else if Redactor.isURLHeader(bytes: name), value.contains(UInt8(ascii: "@")) {
            Redactor.url(String(decoding: value, as: UTF8.self), userAlone: true).withUTF8Bytes { w.pair(name: name, value: $0, first: first) }
        } else {
            w.pair(name: name, value: value, first: first)
        }
    }

    private static func secret(_ value: String, _ settings: HARLog.Settings) -> String {
        settings.secrets ? value : Redactor.mask
    }

    /// `a=1; b=2` → the request's cookies.
    private static func cookies(request value: UnsafeBufferPointer<UInt8>, _ settings: HARLog.Settings, _ w: inout JSONWriter,
                                first: inout Bool) {
        for part in String(decoding: value, as: UTF8.self).split(separator: ";") {
            let text = String(part).trimmingSpaces()
            guard !text.isEmpty else { continue }
            let (name, v) = HAREntryRecorder.cookiePair(text)
            w.pair(name: name, value: secret(v, settings), first: first)
            first = false
        }
    }

    /// `id=1; Path=/; HttpOnly` → a response cookie (name, value, path, domain, httpOnly,
    /// secure, and `expires` from its Max-Age after `receivedAt`, which wins, RFC 6265 §5.3, or
    /// its Expires date, as browsers' HAR files have it); false (nothing written) for an empty one.
    private static func cookie(setCookie value: String, _ settings: HARLog.Settings, receivedAt: Double,
                               _ w: inout JSONWriter, first: Bool) -> Bool {
        var parts = value.split(separator: ";", omittingEmptySubsequences: false).map { String($0).trimmingSpaces() }[...]
        guard let firstPart = parts.popFirst(), !firstPart.isEmpty else { return false }
        let (name, v) = HAREntryRecorder.cookiePair(firstPart)
        w.raw(first ? "{\"name\":" : ",{\"name\":")
        w.quoted(name)
        w.raw(",\"value\":")
        w.quoted(secret(v, settings))
        var maxAge: Double?, expires: Double?
        for attribute in parts {
            let (key, attr) = HAREntryRecorder.split(attribute)
            switch key.lowercased() {
            case "path": w.raw(",\"path\":"); w.quoted(attr)
            case "domain": w.raw(",\"domain\":"); w.quoted(attr)
            case "httponly": w.raw(",\"httpOnly\":true")
            case "secure": w.raw(",\"secure\":true")
            // §5.2.2: an optional '-' and digits; the last one counts.
            case "max-age":
                let digits = attr.hasPrefix("-") ? attr.dropFirst() : Substring(attr)
                if !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
                    maxAge = Double(attr)
                }
            // RFC 6265's cookie dates (`01-Jan-2031`, `UTC`), as browsers read them.
            case "expires": expires = HTTPDate.cookieDate(attr) ?? expires
            default: break
            }
        }
        // Max-Age 0 or less: expired at once, as the earliest time; a date past the year 9999 (a
        // Max-Age of 99999999999) is the latest one written, not none (a session cookie's).
        if let when = maxAge.map({ $0 <= 0 ? 0 : receivedAt + $0 }) ?? expires {
            w.raw(",\"expires\":")
            w.quoted(Timestamp.iso8601(max(0, min(when, HTTPDate.latest))))
        }
        w.raw("}")
        return true
    }
}

/// Numbers the connections a log's entries went over (HAR's `connection`: entries with the same
/// number shared one). libcurl 7.88 names no connection (CURLINFO_CONN_ID came with 8.2), and the
/// local port it gives comes round again: two connections to two servers can hold the same one
/// at once, and one server sees it again once an old connection closed. A hop that opened its
/// connection gets the next number; one that reused a connection gets the number of the last
/// connection with its local port, server address and server port. Over HTTP/2 a hop that shared
/// the connection may end before the one that opened it: the opener then takes the number the
/// sharer was given.
struct HARConnections {
    private struct Key: Hashable {
        let localPort: Int64, remotePort: Int64
        /// The server address's bytes, hashed (FNV-1a): no array made per entry.
        let address: UInt64
    }
    private var numbers: [Key: (number: Int, opened: Bool)] = [:]
    /// The keys in the order they came, to forget the oldest: libcurl keeps a few connections
    /// open for reuse, so only recent ones are asked for again.
    private var order: [Key] = []
    private var oldest = 0
    private var last = 0
    static let remembered = 4096

    /// The number of the connection a hop used (`opened`: the hop opened it).
    mutating func number(localPort: Int64, remotePort: Int64, address: UnsafeBufferPointer<UInt8>?, opened: Bool) -> Int {
        let key = Key(localPort: localPort, remotePort: remotePort, address: FNV1a.hash(address ?? UnsafeBufferPointer(start: nil, count: 0)))
        if let known = numbers[key] {
            if !opened { return known.number }
            if !known.opened {
                numbers[key] = (known.number, true)
                return known.number
            }
            last += 1
            numbers[key] = (last, true)
            return last
        }
        last += 1
        numbers[key] = (last, opened)
        order.append(key)
        if numbers.count > HARConnections.remembered {
            numbers[order[oldest]] = nil
            oldest += 1
            if oldest >= HARConnections.remembered {
                order.removeFirst(oldest)
                oldest = 0
            }
        }
        return last
    }
}
