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

    /// The file-name prefix every entry of `url` has.
    package static func prefix(forURL url: String) -> String { digest(url) + "." }

    static func digest(_ text: String) -> String {
        String(CacheEntry.hex(Digest.sha256(Array(text.utf8))).prefix(32))
    }

    /// The request header fields that carry credentials and so are part of the key.
    package static let credentialHeaders = ["Authorization", "Proxy-Authorization", "Cookie"]
}
