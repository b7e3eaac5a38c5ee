import SwurlCurl
import SwurlCore
/// HTTPie's URL shorthands and the joining of query items.
package enum URLBuilder {
    /// Schemes swurl sends requests to.
    static let supportedSchemes = URLText.httpSchemes

    /// Expands `:8080/x` to `http://localhost:8080/x`, `:/x` to `http://localhost/x`, adds
    /// `defaultScheme` to a URL without one, and validates the result.
    /// - Throws: `SwurlError.usage` for an empty, host-less or unsupported URL.
    package static func resolve(_ raw: String, defaultScheme: String = "http", pathAsIs: Bool = false) throws(SwurlError) -> CurlURL {
        try CurlURL(parsing: absolute(raw, defaultScheme: defaultScheme), pathAsIs: pathAsIs)
    }

    /// `resolve(raw).url`, without the URL's other parts.
    /// - Throws: as `resolve`.
    package static func resolvedURL(_ raw: String, defaultScheme: String = "http", pathAsIs: Bool = false) throws(SwurlError) -> String {
        try CurlURL.normalized(parsing: absolute(raw, defaultScheme: defaultScheme), pathAsIs: pathAsIs)
    }

    /// The text `resolve` parses: the shorthands expanded, the default scheme added.
    private static func absolute(_ raw: String, defaultScheme: String) throws(SwurlError) -> String {
        var text = raw
        if text.hasPrefix("://") { text.removeFirst(3) }
        // A scheme-relative URL (`//host/path`, RFC 3986 §4.2) takes the default scheme.
        else if text.hasPrefix("//") && !text.hasPrefix("///") { text.removeFirst(2) }
        if text.isEmpty { throw .usage("the URL is empty") }
        if text.hasPrefix(":") {
            let rest = text.dropFirst()
            let digits = rest.prefix { $0.isASCIIDigit }
            let after = rest.dropFirst(digits.count)
            guard after.isEmpty || after.hasPrefix("/") || after.hasPrefix("?") || after.hasPrefix("#") else {
                throw .usage("invalid URL '\(Redactor.givenURL(raw))': ':' must be followed by a port or a path",
                             hint: "write :8080/path for http://localhost:8080/path")
            }
            text = "\(defaultScheme)://localhost" + (digits.isEmpty ? "" : ":" + digits) + after
        } else if let scheme = schemeOf(text) {
            guard supportedSchemes.contains(scheme.lowercased()) else {
                throw .usage("unsupported URL scheme '\(scheme)' in '\(Redactor.givenURL(raw))'", hint: "swurl speaks http and https")
            }
        } else {
            try refuseMissingSlashes(text, given: raw)
            text = "\(defaultScheme)://" + text
        }
        try refuseBackslashInAuthority(text, given: raw)
        return text
    }

    /// Refuses a URL with a `\` before its path (`hasBackslashInAuthority`), on the word as given
    /// (before its unsafe bytes are percent-encoded: `//good\@evil/` would hide it as a path).
    /// - Throws: `SwurlError.usage`, with what the `\` means to each reader.
    static func refuseBackslashInAuthority(_ text: String, given raw: String) throws(SwurlError) {
        guard hasBackslashInAuthority(text) else { return }
        throw .usage("invalid URL '\(Redactor.givenURL(raw))': a '\\' before the path",
                     hint: "browsers and HTTPie read '\\' there as '/', curl as part of a user name (and connect to the host after '@'); write '/' or %5C")
    }

    /// Whether the authority of `text` holds a backslash: `http://good\@evil/` is a request to
    /// `evil` for libcurl, to `good` for a browser. The authority is what follows `scheme://`
    /// (or `//`, or the start of a URL without a scheme) up to the first `/`, `?` or `#`; a scheme
    /// followed by anything but `//` (`http:\\host`) counts it all.
    static func hasBackslashInAuthority(_ text: String) -> Bool {
        let u = text.utf8
        let end = u.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? u.endIndex
        // `scheme://`: the first '/' comes right after the scheme's ':', and the authority after
        // both slashes.
        var start = u.startIndex
        if end != u.endIndex, end > u.startIndex, u[u.index(before: end)] == UInt8(ascii: ":") {
            // `http:/\host` (one slash) too.
            start = u.index(after: end)
            if start < u.endIndex, u[start] == UInt8(ascii: "/") { start = u.index(after: start) }
        } else if end == u.startIndex, u.starts(with: "//".utf8) {
            start = u.index(end, offsetBy: 2)
        } else {
            return u[..<end].contains(UInt8(ascii: "\\"))
        }
        return u[start...].prefix { $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
            .contains(UInt8(ascii: "\\"))
    }

    /// `http:/h/x` (one slash), as a REPL line's first word: read as a header `http` to the base,
    /// it would take the default credentials there. (`http:value`, `http:=1` stay items.)
    static func isOneSlashShort(_ word: String) -> Bool {
        guard URLText.schemeOf(word) == nil else { return false }
        let lower = word.prefix(8).lowercased()
        return supportedSchemes.contains { lower.hasPrefix($0 + ":/") && !lower.hasPrefix($0 + "://") }
            && word.count > word.prefix { $0 != "/" }.count + 1
    }

    /// `https:api.example.org/x` (both slashes short), as a REPL line's first word: what follows
    /// the colon is a host (dotted, `localhost`, an IPv6 literal), so it is no header `https`
    /// whose value it would be, sent to the base with the default credentials. (`http:value`,
    /// `https:1`, `http:=1`, `http:@file` stay items.)
    static func isSlashesShort(_ word: String) -> Bool {
        if isOneSlashShort(word) { return true }
        guard URLText.schemeOf(word) == nil else { return false }
        let lower = word.prefix(6).lowercased()
        guard let scheme = supportedSchemes.first(where: { lower.hasPrefix($0 + ":") }) else { return false }
        let authority = word.dropFirst(scheme.count + 1).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        // `https:=…`, `https:=@file`, `https:@file`: items of a field or header named https.
        if authority.hasPrefix("=") || authority.hasPrefix("@") { return false }
        if authority.hasPrefix("[") { return true }
        // User info before a host (`https:alice:pw@api.example/x`, `http:TOKEN@h/`): a URL, whose
        // password would otherwise go to the base in a header.
        if authority.contains("@") { return true }
        let host = authority.prefix { $0 != ":" }
        let hostLike = !host.isEmpty && host.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "." || $0 == "-" }
        // A number with a dot (`https:1.5`) is a value; an IPv4 address, or anything dotted
        // before `:PORT`, is a host.
        let port = authority.dropFirst(host.count)
        let hasPort = port.count > 1 && port.dropFirst().allSatisfy { $0.isASCIIDigit }
        let numeric = host.allSatisfy { $0.isASCIIDigit || $0 == "." }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        let quad = numeric && parts.count == 4 && !parts.contains { $0.isEmpty }
        return hostLike && (host.contains(".") && (!numeric || quad || hasPort) || host.lowercased() == "localhost")
    }

    /// `http:/h/x` or `https:h/x` (a slash short) would go to a host named `http` (or, on a REPL
    /// line, be read as a header `https` to the base): refused with the URL meant. `http:8080/x`
    /// is the host `http` on port 8080 (as curl reads it).
    /// - Throws: `SwurlError.usage` naming the scheme and the fix.
    static func refuseMissingSlashes(_ text: String, given raw: String) throws(SwurlError) {
        guard URLText.schemeOf(text) == nil else { return }
        let lower = text.prefix(6).lowercased()
        guard let scheme = supportedSchemes.first(where: { lower.hasPrefix($0 + ":") }),
              !URLText.isPortThenPath(text.dropFirst(scheme.count + 1)) else { return }
        let rest = text.dropFirst(scheme.count + 1).drop { $0 == "/" }
        throw .usage("invalid URL '\(Redactor.givenURL(raw))': '\(scheme):' needs two slashes",
                     hint: "write \(scheme)://\(Redactor.givenURL(String(rest)))")
    }

    /// The scheme of `text` when it starts with `scheme://`.
    static func schemeOf(_ text: String) -> String? { URLText.schemeOf(text) }
}
