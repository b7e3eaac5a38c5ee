import SwurlCurl
import SwurlSecurity
import SwurlCore

/// The `Cookie` header libcurl's cookie engine puts on a request for the cookies it holds, so
/// that `--offline` shows the bytes a session's cookies make libcurl send. It follows libcurl's
/// `Curl_cookie_getlist` and `Curl_http_cookies` (7.88): expired cookies dropped, secure cookies
/// only in a secure context, domain and path matching (a one-label domain's cookie for its own
/// host only), at most 150 cookies in the order they
/// were added, sorted by path length, domain length and name length (longest first), then the
/// one added last first, and the header cut before it reaches 8190 bytes. `Exchange`
/// hands a session's cookies to the engine newest first, so of cookies in the order they were
/// created (the session file's order) the oldest goes first. The capture test compares it with
/// what the engine really sends.
package enum EngineCookieHeader {
    static let maxCookies = 150
    static let maxLength = 8190

    /// The header's value (`a=1; b=2`), or nil when no cookie applies.
    /// - Parameters:
    ///   - host: the host the engine matches against: the URL's (without IPv6 brackets), or
    ///     the host part of a `Host` header given.
    ///   - path: the URL's path as sent (percent-encoded), without the query.
    ///   - https: whether the scheme is https.
    ///   - cookies: in the order they were created, oldest first (the session file's order).
    /// The value for `request`'s first hop: its URL's path and scheme, its host or `Host`
    /// header (`cookieHost`), as `--offline` shows it and `--curl` exports it.
    package static func value(for request: HTTPRequest, cookies: [SessionCookie],
                              now: Int64 = Int64(Exchange.wallClock())) throws(SwurlError) -> String? {
        guard !cookies.isEmpty else { return nil }
        let url = try request.sentURL()
        return value(cookies, host: cookieHost(urlHost: url.host, hostHeader: request.headers["Host"]), path: url.path,
                     https: url.scheme.lowercased() == "https", now: now)
    }

    static func value(_ cookies: [SessionCookie], host: String, path: String, https: Bool, now: Int64) -> String? {
        let h = host.lowercased()
        let secureContext = https || h == "localhost" || host == "127.0.0.1" || host == "::1"
        let isIP = isIPAddress(host)
        var matched: [(offset: Int, cookie: SessionCookie)] = []
        // The engine holds them newest first (as they were handed to it).
        for (i, c) in cookies.enumerated().reversed() {
            if c.expires != 0 && c.expires < now { continue }
            if c.secure && !secureContext { continue }
            let d = c.domain.lowercased()
            // A domain of one label (`localhost`, `intranet`) matches itself only: libcurl looks
            // a host's cookies up under its last two labels, where such a cookie never is.
            let domainMatches = (c.includeSubdomains && !isIP && d.contains(".")) ? (h == d || h.hasSuffix("." + d)) : h == d
            guard domainMatches, pathMatches(sanitized(c.path), path) else { continue }
            matched.append((i, c))
            if matched.count >= maxCookies { break }
        }
        guard !matched.isEmpty else { return nil }
        matched.sort { a, b in
            let (x, y) = (a.cookie, b.cookie)
            if x.path.utf8.count != y.path.utf8.count { return x.path.utf8.count > y.path.utf8.count }
            if x.domain.utf8.count != y.domain.utf8.count { return x.domain.utf8.count > y.domain.utf8.count }
            if x.name.utf8.count != y.name.utf8.count { return x.name.utf8.count > y.name.utf8.count }
            return a.offset < b.offset
        }
        var out = ""
        var length = 0
        for (n, entry) in matched.enumerated() {
            let add = entry.cookie.name.utf8.count + entry.cookie.value.utf8.count + 1
            if length + add >= maxLength { break }
            out += (n == 0 ? "" : "; ") + entry.cookie.name + "=" + entry.cookie.value
            length += add + (n == 0 ? 0 : 2)
        }
        return out.isEmpty ? nil : out
    }

    /// The host the engine matches cookies against: a `Host` header's host part if one is given,
    /// else the URL's host without IPv6 brackets.
    static func cookieHost(urlHost: String, hostHeader: String?) -> String {
        if let header = hostHeader {
            if header.hasPrefix("["), let end = header.firstIndex(of: "]") {
                return String(header[header.index(after: header.startIndex)..<end])
            }
            return String(header.prefix { $0 != ":" })
        }
        return HostName.bare(urlHost)
    }

    /// A cookie's path as the engine compares it: `/` unless it starts with `/`, no trailing `/`.
    static func sanitized(_ path: String) -> String {
        var p = Substring(path)
        if p.hasPrefix("\"") { p = p.dropFirst() }
        if p.hasSuffix("\"") { p = p.dropLast() }
        guard p.hasPrefix("/") else { return "/" }
        if p.count > 1 && p.hasSuffix("/") { p = p.dropLast() }
        return String(p)
    }

    /// RFC 6265 path-match, case-sensitive, as libcurl's `pathmatch`.
    static func pathMatches(_ cookiePath: String, _ requestPath: String) -> Bool {
        let c = Array(cookiePath.utf8)
        if c.count == 1 { return true }
        var r = Array(requestPath.utf8.prefix { $0 != UInt8(ascii: "?") })
        if r.first != UInt8(ascii: "/") { r = [UInt8(ascii: "/")] }
        guard r.count >= c.count, Array(r[0..<c.count]) == c else { return false }
        return r.count == c.count || r[c.count] == UInt8(ascii: "/")
    }

    static func isIPAddress(_ host: String) -> Bool {
        if host.contains(":") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { p in !p.isEmpty && p.count <= 3 && p.allSatisfy { $0.isASCII && $0.isNumber } }
    }
}

extension HTTPRequest {
    /// The URL as it goes out, parsed: with `--path-as-is` its dot segments stay, which the
    /// path cookies match against, the cache key and `--offline` take (libcurl sends it so).
    package func sentURL() throws(SwurlError) -> CurlURL { try CurlURL(parsing: url, pathAsIs: pathAsIs) }
}
