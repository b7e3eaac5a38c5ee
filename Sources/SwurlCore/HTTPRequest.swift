/// A request as the serializers built it, ready for the engine or for `--offline`.
public struct HTTPRequest: Sendable {
    /// The method as sent, e.g. `GET` or `PROPFIND`.
    public var method: HTTPMethod
    /// The absolute URL, query items already merged.
    public var url: String
    /// Header fields in the order they are sent, after `Host`.
    public var headers: HTTPHeaders
    /// Header names the user removed with `Name:`; libcurl must not add them either.
    public var removedHeaders: [String]
    /// The body, or nil for none.
    public var body: RequestBody?

    public init(method: HTTPMethod, url: String, headers: HTTPHeaders = HTTPHeaders(),
                removedHeaders: [String] = [], body: RequestBody? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.removedHeaders = removedHeaders
        self.body = body
    }

    /// Whether the user removed `name` with a `Name:` item.
    public func isRemoved(_ name: String) -> Bool {
        removedHeaders.contains { $0.lowercased() == name.lowercased() }
    }

    /// Whether `Transfer-Encoding` asks for chunked encoding (the body is then sent in chunks
    /// and no `Content-Length` is added).
    public var isChunked: Bool {
        headers["Transfer-Encoding"]?.lowercased().containsText("chunked") ?? false
    }
}

/// The response status line and header fields of one HTTP response.
public struct HTTPResponseHead: Sendable, Equatable {
    /// As on the wire: `HTTP/1.1`, `HTTP/2`.
    public var version: String
    public var status: Int
    public var reason: String
    public var headers: HTTPHeaders

    public init(version: String, status: Int, reason: String, headers: HTTPHeaders) {
        self.version = version
        self.status = status
        self.reason = reason
        self.headers = headers
    }

    /// The statuses a redirect can have (301, 302, 303, 307, 308).
    public static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// Whether this head is a redirect that can be followed: a redirect status with a Location.
    public var isRedirect: Bool {
        HTTPResponseHead.redirectStatuses.contains(status) && headers["Location"] != nil
    }

    /// The media type of `Content-Type`, lower-cased, without parameters.
    public var mediaType: String? {
        guard let ct = headers["Content-Type"] else { return nil }
        let base = ct.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ct
        return base.trimmingSpaces().lowercased()
    }

    /// The `charset` parameter of `Content-Type`, lower-cased and unquoted, or nil.
    public var charset: String? {
        guard let ct = headers["Content-Type"] else { return nil }
        for param in ct.split(separator: ";").dropFirst() {
            let kv = param.split(separator: "=", maxSplits: 1).map { String($0).trimmingSpaces() }
            if kv.count == 2, kv[0].lowercased() == "charset" {
                return kv[1].replacingAll("\"", with: "").lowercased()
            }
        }
        return nil
    }
}

extension String {
    /// The string without leading spaces and tabs and without trailing spaces, tabs, CRs and LFs.
    ///
    /// Trims Unicode scalars, not Characters: "\r\n", or a space followed by a combining mark,
    /// is one Character and would never compare equal to a single separator.
    public func trimmingSpaces() -> String {
        var s = Substring(self).unicodeScalars
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" || l == "\n" { s.removeLast() }
        return String(s)
    }
}
