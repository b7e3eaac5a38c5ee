@preconcurrency import CCurl
#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlCore

/// A parsed URL, through libcurl's own URL API (curl_url(3)), so that what swurl shows with
/// `--offline` is what libcurl would send.
package struct CurlURL: Sendable, Equatable {
    package var url: String
    package var scheme: String
    package var host: String
    /// The explicit port, or nil for the scheme's default.
    package var port: Int?
    /// Path and query as they go on the request line.
    package var requestTarget: String
    /// The path alone, as sent.
    package var path: String
    /// The user name and password of a `user:password@` part, percent-decoded; nil when absent.
    package var user: String?
    package var password: String?
    /// An IPv6 address's zone id (`[fe80::1%25eth0]` gives `eth0`); nil without one.
    package var zone: String?

    /// The scheme's own port: 443 for https, else 80.
    private var defaultPort: Int { scheme == "https" ? 443 : 80 }

    /// The port the URL names or its scheme's.
    package var effectivePort: Int { port ?? defaultPort }

    /// `host`, or `host:port` for a port other than the scheme's, as libcurl sends the Host
    /// header (`http://h:80/` goes as `Host: h`).
    package var hostHeader: String { port == nil || port == defaultPort ? host : "\(host):\(effectivePort)" }

    /// Parses an absolute URL.
    /// - Throws: `SwurlError.usage` with libcurl's reason when it is not a valid URL.
    /// - Parameter pathAsIs: keep dot segments in the path (`--path-as-is`).
    package init(parsing text: String, pathAsIs: Bool = false) throws(SwurlError) {
        let p = try CurlURL.parts(of: text, pathAsIs: pathAsIs) { part, host in
            (host: host, scheme: part(CURLUPART_SCHEME), port: part(CURLUPART_PORT), path: part(CURLUPART_PATH),
             query: part(CURLUPART_QUERY), url: part(CURLUPART_URL), user: part(CURLUPART_USER),
             password: part(CURLUPART_PASSWORD), zone: part(CURLUPART_ZONEID))
        }
        self.zone = p.zone
        self.host = p.host
        self.scheme = p.scheme ?? "http"
        self.port = p.port.flatMap { Int($0) }
        let path = p.path ?? "/"
        self.path = path
        self.requestTarget = path + (p.query.map { "?" + $0 } ?? "")
        self.url = p.url ?? text
        // Decoded here: libcurl's own CURLU_URLDECODE refuses control characters, and those are
        // exactly what a caller checking the user info must see.
        self.user = p.user.map(CurlURL.percentDecoded)
        self.password = p.password.map(CurlURL.percentDecoded)
    }

    /// `CurlURL(parsing: text).url` without the other parts (cheaper: two look-ups, not eight).
    /// - Throws: as `init(parsing:)`.
    package static func normalized(parsing text: String, pathAsIs: Bool = false) throws(SwurlError) -> String {
        try parts(of: text, pathAsIs: pathAsIs) { part, _ in part(CURLUPART_URL) ?? text }
    }

    /// A redirect's `Location` against the URL it answered, as libcurl 7.88 resolves one for
    /// CURLINFO_REDIRECT_URL (curl_url_set of the Location on the request's URL, encoding what a
    /// URL cannot hold: a space as `%20` in the path and `+` in the query): the same URL whether
    /// the hop came from the network or from the cache. Nil for an empty Location, which libcurl
    /// ignores; the Location as it came when libcurl cannot read it (as CURLINFO_REDIRECT_URL
    /// then is: the redirect policy refuses it), RFC 3986's resolution only without libcurl.
    /// With `pathAsIs` (`--path-as-is`), the target's dot segments stay, as libcurl keeps them
    /// under CURLOPT_PATH_AS_IS.
    package static func resolveRedirect(_ location: String, against url: String, pathAsIs: Bool = false) -> String? {
        let given = location.trimmingSpaces()
        guard !given.isEmpty else { return nil }
        guard (try? CurlLibrary.load()) != nil, let h = curl_url() else { return URLReference.resolveLocation(given, against: url) }
        defer { curl_url_cleanup(h) }
        guard curl_url_set(h, CURLUPART_URL, url, UInt32(CURLU_NON_SUPPORT_SCHEME)) == CURLUE_OK,
              curl_url_set(h, CURLUPART_URL, given, UInt32(CURLU_NON_SUPPORT_SCHEME | CURLU_URLENCODE | CURLU_ALLOW_SPACE)
                           | (pathAsIs ? UInt32(CURLU_PATH_AS_IS) : 0)) == CURLUE_OK
        else { return given }
        var out: UnsafeMutablePointer<CChar>?
        guard curl_url_get(h, CURLUPART_URL, &out, 0) == CURLUE_OK, let out else { return given }
        defer { curl_free(out) }
        return String(cString: out)
    }

    /// Scheme, host and port of an absolute URL, as `init(parsing:)` finds them, without the
    /// other parts (cheaper: no reassembled URL).
    /// - Throws: as `init(parsing:)`.
    package static func origin(parsing text: String) throws(SwurlError) -> (scheme: String, host: String, port: Int?) {
        try parts(of: text) { part, host in (part(CURLUPART_SCHEME) ?? "http", host, part(CURLUPART_PORT).flatMap { Int($0) }) }
    }

    /// Parses `text` with libcurl's URL API and hands `body` a look-up of its parts and the
    /// host, which must be there.
    /// - Throws: `SwurlError.usage` with libcurl's reason when it is not a valid URL.
    /// With `pathAsIs`, dot segments stay in the path (the fast path has none to keep).
    private static func parts<T>(of text: String, pathAsIs: Bool = false,
                                 _ body: (_ part: (CURLUPart) -> String?, _ host: String) -> T) throws(SwurlError) -> T {
        if let plain = PlainURL(text) {
            return body({ plain.part($0) }, plain.host)
        }
        return try libcurlParts(of: text, pathAsIs: pathAsIs, body)
    }

    /// `parts(of:_:)` through libcurl's URL API, for any URL.
    static func libcurlParts<T>(of text: String, pathAsIs: Bool = false,
                                _ body: (_ part: (CURLUPart) -> String?, _ host: String) -> T) throws(SwurlError) -> T {
        try CurlLibrary.load()
        guard let h = curl_url() else { throw .transport("out of memory") }
        defer { curl_url_cleanup(h) }
        let rc = curl_url_set(h, CURLUPART_URL, text, UInt32(CURLU_NON_SUPPORT_SCHEME) | (pathAsIs ? UInt32(CURLU_PATH_AS_IS) : 0))
        guard rc == CURLUE_OK else {
            let reason = curl_url_strerror(rc).map { String(cString: $0) } ?? "malformed"
            // Two '@' before the path: libcurl ends the user info at the first, the mask in the
            // message at the last, so the URL shown looks valid; the '@' in it is the fault.
            let authority = text.rangeOfText("://").map { text[$0.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" } } ?? ""
            let hint = authority.filter { $0 == "@" }.count > 1 ? "write an '@' inside the user name or password as %40" : nil
            throw .usage("invalid URL '\(Redactor.givenURL(text))': \(reason)", hint: hint)
        }
        var flags: UInt32 = 0
        func part(_ which: CURLUPart) -> String? {
            var out: UnsafeMutablePointer<CChar>?
            guard curl_url_get(h, which, &out, flags) == CURLUE_OK, let out else { return nil }
            defer { curl_free(out) }
            return String(cString: out)
        }
        guard let host = part(CURLUPART_HOST), !host.isEmpty else {
            throw .usage("invalid URL '\(Redactor.givenURL(text))': no host name")
        }
        if !host.utf8.allSatisfy({ $0 < 0x80 }) {
            // An international name goes out as its ASCII form (IDNA, `xn--…`), in the URL handed
            // to libcurl, the Host header, the TLS name check and what --offline shows, as curl
            // sends it. libidn2 reads the name in the locale's character set: swurl's text is UTF-8.
            flags = UInt32(CURLU_PUNYCODE)
            guard let ascii = UTF8Locale.run({ part(CURLUPART_HOST) }), ascii.utf8.allSatisfy({ $0 < 0x80 }) else {
                throw .usage("invalid URL '\(Redactor.givenURL(text))': the host name '\(TerminalSanitizer.clean(ArgumentBytes.shown(host)))' is not a valid international domain name")
            }
            return UTF8Locale.run { body(part, ascii) }
        }
        return body(part, host)
    }


    /// Every part (URL, scheme, host, port, path, query, user, password, options, fragment,
    /// zone id) as the fast path (nil when it does not take `text`) or libcurl finds them; for
    /// tests holding the two to the same answers.
    static func allParts(_ text: String, libcurl: Bool) throws(SwurlError) -> [String?]? {
        let which = [CURLUPART_URL, CURLUPART_SCHEME, CURLUPART_HOST, CURLUPART_PORT, CURLUPART_PATH, CURLUPART_QUERY,
                     CURLUPART_USER, CURLUPART_PASSWORD, CURLUPART_OPTIONS, CURLUPART_FRAGMENT, CURLUPART_ZONEID]
        if libcurl { return try libcurlParts(of: text) { part, _ in which.map(part) } }
        return PlainURL(text).map { plain in which.map { plain.part($0) } }
    }

    /// `%XX` sequences replaced by their bytes (control bytes stay); bytes that are not UTF-8 are
    /// kept as `ArgumentBytes` escapes (they read as U+FFFD), so that a user name or password
    /// holding them can be refused by name.
    static func percentDecoded(_ s: String) -> String {
        ArgumentBytes.decode(URLText.percentDecodedBytes(s))
    }
}

/// A URL in the plain form most URLs have (`http[s]://host[:port]/path[?query]` of lowercase
/// host names or a dotted IPv4 address, ordinary path bytes), split without libcurl's URL API:
/// for exactly these, libcurl's parse gives back the same text in the same parts (its
/// normalizations — scheme and IPv4 forms, ports, dot segments, encodings, user info, IPv6,
/// fragments — never apply), and the full parse is a large share of a batch line's cost
/// (docs/performance.md). Anything else returns nil and takes libcurl's parse; `CurlURLPlainTests` holds
/// the two to the same answers.
struct PlainURL {
    private let text: String
    private let ranges: (schemeEnd: Int, host: Range<Int>, port: Range<Int>?, path: Range<Int>?, query: Range<Int>?)
    let host: String

    init?(_ text: String) {
        var text = text
        guard let p = text.withUTF8({ PlainURL.split($0) }) else { return nil }
        self.text = text
        ranges = p
        host = PlainURL.slice(text, p.host)
    }

    /// The bytes of `r` as a String (made only for the parts a caller asks for).
    private static func slice(_ text: String, _ r: Range<Int>) -> String {
        var text = text
        return text.withUTF8 { String(decoding: UnsafeBufferPointer(rebasing: $0[r]), as: UTF8.self) }
    }

    func part(_ which: CURLUPart) -> String? {
        switch which {
        case CURLUPART_URL: return ranges.path == nil ? text + "/" : text
        case CURLUPART_SCHEME: return ranges.schemeEnd == 4 ? "http" : "https"
        case CURLUPART_HOST: return host
        case CURLUPART_PORT: return ranges.port.map { PlainURL.slice(text, $0) }
        case CURLUPART_PATH: return ranges.path.map { PlainURL.slice(text, $0) } ?? "/"
        case CURLUPART_QUERY: return ranges.query.map { PlainURL.slice(text, $0) }
        default: return nil // no user, password, options, fragment or zone id in a plain URL
        }
    }

    /// Byte ranges of the parts, or nil when `b` is not a plain URL.
    static func split(_ b: UnsafeBufferPointer<UInt8>)
        -> (schemeEnd: Int, host: Range<Int>, port: Range<Int>?, path: Range<Int>?, query: Range<Int>?)? {
        // libcurl refuses input over 8,000,000 bytes (CURL_MAX_INPUT_LENGTH): its parse says so.
        guard b.count <= 8_000_000 else { return nil }
        let schemeEnd: Int
        if hasPrefix(b, "http://") { schemeEnd = 4 } else if hasPrefix(b, "https://") { schemeEnd = 5 } else { return nil }
        let hostStart = schemeEnd + 3
        var i = hostStart
        while i < b.count, b[i] != UInt8(ascii: "/"), b[i] != UInt8(ascii: ":"), b[i] != UInt8(ascii: "?") { i += 1 }
        let host = hostStart..<i
        guard plainHost(UnsafeBufferPointer(rebasing: b[host])) else { return nil }
        var port: Range<Int>?
        if i < b.count, b[i] == UInt8(ascii: ":") {
            let start = i + 1
            i = start
            var value = 0
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39, i - start < 5 { value = value * 10 + Int(b[i] - 0x30); i += 1 }
            // libcurl rewrites a port with leading zeros and refuses 0 and values above 65535.
            guard i > start, b[start] != 0x30, value <= 65535 else { return nil }
            port = start..<i
        }
        if i == b.count { return (schemeEnd, host, port, nil, nil) }
        guard b[i] == UInt8(ascii: "/") else { return nil } // `host?query` gains a `/` from libcurl
        let pathStart = i
        var query: Range<Int>?
        while i < b.count {
            let c = b[i]
            if c == UInt8(ascii: "?") {
                guard query == nil else { i += 1; continue }
                query = (i + 1)..<b.count
                guard i + 1 < b.count else { return nil } // an empty query: libcurl's choice
            } else if c == UInt8(ascii: "%") {
                // Only well-formed escapes, and never an encoded dot (a dot segment in disguise).
                guard i + 2 < b.count, isHex(b[i + 1]), isHex(b[i + 2]) else { return nil }
                if query == nil, b[i + 1] == 0x32, b[i + 2] | 0x20 == UInt8(ascii: "e") { return nil }
            } else if c == UInt8(ascii: ".") {
                // Dot segments are removed by libcurl: a path with a segment starting with a dot
                // takes its parse.
                if query == nil, b[i - 1] == UInt8(ascii: "/") { return nil }
            } else if !pathByte[Int(c)] {
                return nil
            }
            i += 1
        }
        let pathEnd = query.map { $0.lowerBound - 1 } ?? b.count
        return (schemeEnd, host, port, pathStart..<pathEnd, query)
    }

    /// A lowercase DNS name that cannot be read as a number, or a dotted IPv4 address as
    /// libcurl writes it (four decimal parts 0–255 without leading zeros).
    static func plainHost(_ h: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !h.isEmpty, h.count <= 253, h[0] != UInt8(ascii: "."), h[h.count - 1] != UInt8(ascii: ".") else { return false }
        var nonNumericLetter = false, previousDot = false
        for c in h {
            switch c {
            case UInt8(ascii: "."):
                if previousDot { return false }
                previousDot = true
                continue
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "x"):
                break
            case UInt8(ascii: "g")...UInt8(ascii: "z"):
                nonNumericLetter = true
            default:
                return false
            }
            previousDot = false
        }
        if nonNumericLetter { return true }
        // No letter outside hex digits and `x`: libcurl may read it as an IPv4 number (`0x7f.1`,
        // `2130706433`), so only the canonical dotted form passes.
        var parts = 0, value = 0, digits = 0, first: UInt8 = 0
        for c in h {
            if c == UInt8(ascii: ".") {
                guard digits > 0, value <= 255, digits == 1 || first != 0x30 else { return false }
                parts += 1; value = 0; digits = 0
            } else {
                guard c >= 0x30, c <= 0x39, digits < 3 else { return false }
                if digits == 0 { first = c }
                value = value * 10 + Int(c - 0x30); digits += 1
            }
        }
        return parts == 3 && digits > 0 && value <= 255 && (digits == 1 || first != 0x30)
    }

    private static func hasPrefix(_ b: UnsafeBufferPointer<UInt8>, _ p: StaticString) -> Bool {
        guard b.count >= p.utf8CodeUnitCount else { return false }
        for k in 0..<p.utf8CodeUnitCount where b[k] != p.utf8Start[k] { return false }
        return true
    }

    private static func isHex(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c | 0x20 >= UInt8(ascii: "a") && c | 0x20 <= UInt8(ascii: "f"))
    }

    /// RFC 3986 path and query bytes that libcurl passes through as they are: unreserved,
    /// sub-delims, `:`, `@` and `/` (`%` and `.` and `?` are judged in `split`).
    static let pathByte: [Bool] = {
        // Built at every start: one pass over the listed bytes, not a search per byte value.
        var t = [Bool](repeating: false, count: 256)
        for r in [UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9")] {
            for c in r { t[Int(c)] = true }
        }
        for c in "-_~!$&'()*+,;=:@/".utf8 { t[Int(c)] = true }
        return t
    }()
}

extension CurlURL {
    /// Where the parts of the HTTP/1.1 request head libcurl 7.88 writes for a plain `http://`
    /// URL lie in the URL (`PlainURL`: libcurl keeps its path and query as they are), with
    /// `tail` as the rest of the head; nil for any other URL.
    package static func plainHTTPRequestHead(method: String, url: String, tail: [UInt8], cookieAt: Int) -> RebuiltRequestHead? {
        var text = url
        return text.withUTF8 { b -> RebuiltRequestHead? in
            guard let p = PlainURL.split(b), p.schemeEnd == 4 else { return nil }
            return RebuiltRequestHead(method: method, url: b, path: p.path, query: p.query, host: p.host, port: p.port, tail: tail, cookieAt: cookieAt)
        }
    }
}
