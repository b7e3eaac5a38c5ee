import SwurlCore
import SwurlSecurity

/// Which stored response may answer a request: the method and URL, plus a digest of everything
/// that makes two requests to that URL different identities or different trust — credentials
/// (`Authorization`, `Proxy-Authorization`, `Cookie`, a session's cookies, `--auth`, proxy
/// credentials), the TLS policy (pins, `--cacert`, client certificate) and whether libcurl
/// decodes the body's Content-Encoding. Only digests reach the disk, never the values.
package struct CacheKey: Sendable, Equatable, Hashable {
    /// 32 hex digits of SHA-256 of the URL: every entry for the URL starts with it (invalidation).
    package let urlDigest: String
    /// 32 hex digits of SHA-256 of the method, URL and the identity material.
    package let variantDigest: String

    /// - Parameters:
    ///   - identity: credential and policy texts (each kept apart by its label); hashed.
    package init(method: String, url: String, identity: [(label: String, value: String)]) {
        // The URL's user name and password are identity, not the resource: `http://ann@h/x` and
        // `http://h/x` with `-a ann` are one URL to invalidate (the variant digest tells them apart).
        urlDigest = CacheKey.digest(CacheStore.withoutUserinfo(url))
        var material = method + "\u{0}" + url
        for (label, value) in identity { material += "\u{0}" + label + "\u{1}" + value }
        variantDigest = CacheKey.digest(material)
    }

    /// The entry's file name in the cache directory.
    package var fileName: String { urlDigest + "." + variantDigest }

    /// `url` as entries spell it, as far as text can tell: the scheme and host in lower case (RFC
    /// 3986 §6.2.2.1: neither is case-sensitive; libcurl keeps a host's case), no default port
    /// (`http://h:80/` is `http://h/`) and no fragment (never sent). `HopCache.cacheURL` applies
    /// it after libcurl's normalization; `swurl cache clear` to its prefix.
    package static func spelling(_ url: String) -> String {
        let text = url.firstIndex(of: "#").map { String(url[..<$0]) } ?? url
        guard let separator = text.rangeOfText("://") else { return text }
        let rest = text[separator.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let hostStart = authority.lastIndex(of: "@").map { authority.index(after: $0) } ?? authority.startIndex
        let scheme = text[..<separator.lowerBound].lowercased()
        return scheme + "://" + authority[..<hostStart] + withoutDefaultPort(authority[hostStart...].lowercased(), scheme: scheme)
            + rest[authorityEnd...]
    }

    /// `host:80` of http and `host:443` of https as `host` (RFC 9110 §4.2.3: the same resource).
    static func withoutDefaultPort(_ hostPort: String, scheme: String) -> String {
        guard let colon = hostPort.lastIndex(of: ":"), !hostPort[colon...].contains("]") else { return hostPort }
        let digits = hostPort[hostPort.index(after: colon)...]
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let port = Int(digits.prefix(6)) else { return hostPort }
        return (scheme == "http" && port == 80) || (scheme == "https" && port == 443) ? String(hostPort[..<colon]) : hostPort
    }

    /// The file-name prefix every entry of `url` has.
    package static func prefix(forURL url: String) -> String { digest(CacheStore.withoutUserinfo(url)) + "." }

    static func digest(_ text: String) -> String {
        String(CacheEntry.hex(Digest.sha256(Array(text.utf8))).prefix(32))
    }

    /// The request header fields that carry credentials and so are part of the key.
    package static let credentialHeaders = ["Authorization", "Proxy-Authorization", "Cookie"]

    /// Request header fields (lower case) that are no part of the key's other fields: the
    /// credentials and `Host` (keyed by name above), what `Vary` speaks for (the `Accept` family,
    /// `User-Agent`), the request's own cache directives, its conditionals and range (the cache
    /// decides on those itself), and the connection's own fields. Every other field a request
    /// carries — a header item, a session's or the defaults' — is in the key: an API key in
    /// `X-Api-Key` or `Private-Token` keeps one caller's responses from another's, as
    /// `Authorization` does.
    package static let unkeyedHeaders: Set<String> = Set(credentialHeaders.map { $0.lowercased() }).union([
        "host", "accept", "accept-encoding", "accept-language", "accept-charset", "user-agent",
        "cache-control", "pragma", "if-none-match", "if-modified-since", "if-match", "if-unmodified-since", "if-range", "range",
        "connection", "keep-alive", "te", "expect", "content-length",
    ])

    /// The key material of `fields` past the unkeyed ones: `name:value` lines, names in lower
    /// case, sorted (the order fields were given in makes no other identity); nil when none.
    package static func otherFields(_ fields: [HTTPHeaders.Field]) -> String? {
        var lines: [String] = []
        for f in fields {
            let name = f.name.lowercased()
            if !unkeyedHeaders.contains(name) { lines.append(name + ":" + f.value) }
        }
        return lines.isEmpty ? nil : lines.sorted().joined(separator: "\n")
    }
}
