/// A request as the serializers built it, ready for the engine or for `--offline`.
package struct HTTPRequest: Sendable {
    /// The method as sent, e.g. `GET` or `PROPFIND`.
    package var method: HTTPMethod
    /// The absolute URL, query items already merged.
    package var url: String
    /// Header fields in the order they are sent, after `Host`.
    package var headers: HTTPHeaders
    /// Header names the user removed with `Name:`; libcurl must not add them either.
    package var removedHeaders: [String]
    /// The body, or nil for none.
    package var body: RequestBody?
    /// `--path-as-is`: the URL's dot segments (`/../`, `/./`) are sent, in redirect targets too.
    package var pathAsIs = false

    package init(method: HTTPMethod, url: String, headers: HTTPHeaders = HTTPHeaders(),
                removedHeaders: [String] = [], body: RequestBody? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.removedHeaders = removedHeaders
        self.body = body
    }

    /// Whether the user removed `name` with a `Name:` item.
    package func isRemoved(_ name: String) -> Bool {
        removedHeaders.contains { $0.lowercased() == name.lowercased() }
    }

    /// Whether `Transfer-Encoding` asks for chunked encoding (the body is then sent in chunks
    /// and no `Content-Length` is added).
    package var isChunked: Bool {
        headers["Transfer-Encoding"]?.lowercased().containsText("chunked") ?? false
    }
}

/// The response status line and header fields of one HTTP response.
package struct HTTPResponseHead: Sendable, Equatable {
    /// As on the wire: `HTTP/1.1`, `HTTP/2`.
    package var version: String
    package var status: Int
    package var reason: String
    package var headers: HTTPHeaders

    package init(version: String, status: Int, reason: String, headers: HTTPHeaders) {
        self.version = version
        self.status = status
        self.reason = reason
        self.headers = headers
    }

    /// Statuses that mean "try again later" (RFC 9110 §15.5.9, §15.6, RFC 6585 §4): what
    /// `--retry` retries, and what the cache never stores (stored, one would answer the retry).
    package static let tryAgainStatuses: Set<Int> = [408, 429, 500, 502, 503, 504]

    /// The statuses a redirect can have (301, 302, 303, 307, 308).
    package static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// Whether this head is a redirect that can be followed: a redirect status with a Location
    /// that names something (an empty one is none, as for curl and HTTPie: the 3xx is the answer).
    package var isRedirect: Bool {
        HTTPResponseHead.redirectStatuses.contains(status) && headers["Location"].map { !$0.trimmingSpaces().isEmpty } == true
    }

    /// The body's length as its Content-Length frames it (RFC 9112 §6.3): nil without one, when
    /// a Transfer-Encoding overrides it (chunked, or read to the close, as libcurl reads it), or
    /// when it names no one length (`contentLengthError`, which the engine refuses).
    package var contentLength: Int64? { framingLength.length }

    /// Why the Content-Length frames no body: fields or a list naming different lengths
    /// (`2, 5`), or one that is no length (`-1`, a number past Int64). RFC 9112 §6.3 makes it an
    /// unrecoverable error, libcurl reads one of them, and the body could be cut anywhere: every
    /// door refuses the response (the engine, before any body byte). Nil when it is one length,
    /// or none counts.
    package var contentLengthError: String? { framingLength.error }

    private var framingLength: (length: Int64?, error: String?) {
        let fields = headers.values("Content-Length")
        guard !fields.isEmpty, headers["Transfer-Encoding"] == nil else { return (nil, nil) }
        // The usual answer first: one field of digits (asked several times a response; the
        // general reading below built lists and a set for it, a batch line's largest share).
        if fields.count == 1, let only = fields.first, !only.isEmpty, only.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
           let length = Int64(only) {
            return (length, nil)
        }
        // Empty list elements are no lengths (RFC 9110 §5.6.1: `5,` names one, as libcurl reads it).
        let given = fields.flatMap { $0.split(separator: ",") }.map { String($0).trimmingSpaces() }.filter { !$0.isEmpty }
        let lengths = Set(given.map { text in text.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } ? Int64(text) : nil })
        if lengths.count == 1, let only = lengths.first, let length = only { return (length, nil) }
        let shown = TerminalSanitizer.excerpt(given.joined(separator: ", "))
        return (nil, lengths.count <= 1 ? "the server's Content-Length (\(shown)) is not a length swurl can take"
                                        : "the server's Content-Length names more than one length (\(shown))")
    }

    /// The media type of `Content-Type`, lower-cased, without parameters.
    package var mediaType: String? {
        guard let ct = headers["Content-Type"] else { return nil }
        let base = ct.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ct
        return base.trimmingSpaces().lowercased()
    }

    /// The `charset` parameter of `Content-Type`, lower-cased and unquoted, or nil.
    package var charset: String? {
        guard let ct = headers["Content-Type"] else { return nil }
        return HeaderParameters.value("charset", in: ct)?.lowercased()
    }
}

extension String {
    /// The string without leading spaces and tabs and without trailing spaces, tabs, CRs and LFs.
    ///
    /// Trims Unicode scalars, not Characters: "\r\n", or a space followed by a combining mark,
    /// is one Character and would never compare equal to a single separator.
    package func trimmingSpaces() -> String {
        var s = Substring(self).unicodeScalars
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" || l == "\n" { s.removeLast() }
        return String(s)
    }
}
