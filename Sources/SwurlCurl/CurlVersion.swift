import SwurlCore
@preconcurrency import CCurl
@preconcurrency import CShims

/// Versions and features of the libraries swurl runs on (curl_version_info(3)).
package enum CurlVersion {
    private static var info: UnsafeMutablePointer<curl_version_info_data>? {
        sw_curl_version_info()
    }

    /// libcurl's version, e.g. `7.88.1`.
    package static var libcurl: String {
        info.flatMap { $0.pointee.version.map { String(cString: $0) } } ?? "unknown"
    }

    /// The TLS library libcurl uses, e.g. `OpenSSL/3.0.19`.
    package static var ssl: String {
        info.flatMap { $0.pointee.ssl_version.map { String(cString: $0) } } ?? "none"
    }

    /// The OpenSSL swurl links, e.g. `OpenSSL 3.0.19 27 Jan 2026`.
    package static var openSSL: String {
        sw_openssl_version().map { String(cString: $0) } ?? "unknown"
    }

    private static func has(_ feature: Int32) -> Bool {
        guard let i = info else { return false }
        return (i.pointee.features & feature) != 0
    }

    /// Whether this libcurl speaks HTTP/2.
    package static let hasHTTP2: Bool = has(CURL_VERSION_HTTP2)

    /// The Accept-Encoding libcurl sends when asked for every encoding it can decode
    /// (CURLOPT_ACCEPT_ENCODING ""), in libcurl's order.
    package static let acceptEncoding: String = {
        var names: [String] = []
        if has(CURL_VERSION_LIBZ) { names += ["deflate", "gzip"] }
        if has(CURL_VERSION_BROTLI) { names.append("br") }
        if has(CURL_VERSION_ZSTD) { names.append("zstd") }
        return names.joined(separator: ", ")
    }()
}
