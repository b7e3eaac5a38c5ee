@preconcurrency import CCurl
import SwurlCore

/// A parsed URL, through libcurl's own URL API (curl_url(3)), so that what swurl shows with
/// `--offline` is what libcurl would send.
public struct CurlURL: Sendable, Equatable {
    public var url: String
    public var scheme: String
    public var host: String
    /// The explicit port, or nil for the scheme's default.
    public var port: Int?
    /// Path and query as they go on the request line.
    public var requestTarget: String
    /// The path alone, as sent.
    public var path: String
    /// The user name and password of a `user:password@` part, percent-decoded; nil when absent.
    public var user: String?
    public var password: String?

    /// `host` or `host:port` as in a Host header.
    public var hostHeader: String { port.map { "\(host):\($0)" } ?? host }

    /// Parses an absolute URL.
    /// - Throws: `SwurlError.usage` with libcurl's reason when it is not a valid URL.
    public init(parsing text: String) throws(SwurlError) {
        let p = try CurlURL.parts(of: text) { part, host in
            (host: host, scheme: part(CURLUPART_SCHEME), port: part(CURLUPART_PORT), path: part(CURLUPART_PATH),
             query: part(CURLUPART_QUERY), url: part(CURLUPART_URL), user: part(CURLUPART_USER),
             password: part(CURLUPART_PASSWORD))
        }
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
    public static func normalized(parsing text: String) throws(SwurlError) -> String {
        try parts(of: text) { part, _ in part(CURLUPART_URL) ?? text }
    }

    /// Scheme, host and port of an absolute URL, as `init(parsing:)` finds them, without the
    /// other parts (cheaper: no reassembled URL).
    /// - Throws: as `init(parsing:)`.
    public static func origin(parsing text: String) throws(SwurlError) -> (scheme: String, host: String, port: Int?) {
        try parts(of: text) { part, host in (part(CURLUPART_SCHEME) ?? "http", host, part(CURLUPART_PORT).flatMap { Int($0) }) }
    }

    /// Parses `text` with libcurl's URL API and hands `body` a look-up of its parts and the
    /// host, which must be there.
    /// - Throws: `SwurlError.usage` with libcurl's reason when it is not a valid URL.
    private static func parts<T>(of text: String,
                                 _ body: (_ part: (CURLUPart) -> String?, _ host: String) -> T) throws(SwurlError) -> T {
        guard let h = curl_url() else { throw .transport("out of memory") }
        defer { curl_url_cleanup(h) }
        let rc = curl_url_set(h, CURLUPART_URL, text, UInt32(CURLU_NON_SUPPORT_SCHEME))
        guard rc == CURLUE_OK else {
            let reason = curl_url_strerror(rc).map { String(cString: $0) } ?? "malformed"
            throw .usage("invalid URL '\(text)': \(reason)")
        }
        func part(_ which: CURLUPart) -> String? {
            var out: UnsafeMutablePointer<CChar>?
            guard curl_url_get(h, which, &out, 0) == CURLUE_OK, let out else { return nil }
            defer { curl_free(out) }
            return String(cString: out)
        }
        guard let host = part(CURLUPART_HOST), !host.isEmpty else {
            throw .usage("invalid URL '\(text)': no host name")
        }
        return body(part, host)
    }

    /// `%XX` sequences replaced by their bytes (invalid UTF-8 becomes U+FFFD; control bytes stay).
    static func percentDecoded(_ s: String) -> String {
        String(decoding: URLText.percentDecodedBytes(s), as: UTF8.self)
    }
}
