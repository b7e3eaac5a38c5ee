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
        urlDigest = CacheKey.digest(url)
        var material = method + "\u{0}" + url
        for (label, value) in identity { material += "\u{0}" + label + "\u{1}" + value }
        variantDigest = CacheKey.digest(material)
    }

    /// The entry's file name in the cache directory.
    package var fileName: String { urlDigest + "." + variantDigest }

    /// `url` as entries spell it, as far as text can tell: the scheme and host in lower case (RFC
    /// 3986 §6.2.2.1: neither is case-sensitive; libcurl keeps a host's case) and no fragment
    /// (never sent). `HopCache.cacheURL` applies it after libcurl's normalization; `swurl cache
    /// clear` to its prefix.
    package static func spelling(_ url: String) -> String {
        let text = url.firstIndex(of: "#").map { String(url[..<$0]) } ?? url
        guard let separator = text.rangeOfText("://") else { return text }
        let rest = text[separator.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let hostStart = authority.lastIndex(of: "@").map { authority.index(after: $0) } ?? authority.startIndex
        return text[..<separator.lowerBound].lowercased() + "://" + authority[..<hostStart] + authority[hostStart...].lowercased()
            + rest[authorityEnd...]
    }

    /// The file-name prefix every entry of `url` has.
    package static func prefix(forURL url: String) -> String { digest(url) + "." }

    static func digest(_ text: String) -> String {
        String(CacheEntry.hex(Digest.sha256(Array(text.utf8))).prefix(32))
    }

    /// The request header fields that carry credentials and so are part of the key.
    package static let credentialHeaders = ["Authorization", "Proxy-Authorization", "Cookie"]
}
