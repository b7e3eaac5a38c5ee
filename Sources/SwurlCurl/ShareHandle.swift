@preconcurrency import CCurl
@preconcurrency import CShims
import SwurlCore

/// Owns one libcurl share handle (curl_share_init(3)) that the hops of one exchange use
/// together: the cookie engine (cookies follow the redirect chain, scoped by libcurl to their
/// domain, path and secure flag), the DNS cache and the connection cache. TLS sessions are not
/// shared, so every new connection runs the full certificate check of the security policy.
package final class ShareHandle {
    let raw: UnsafeMutableRawPointer

    package init() throws(SwurlError) {
        guard let h = curl_share_init() else { throw .transport("libcurl could not create a share handle") }
        raw = h
        // Failures only cost sharing, never correctness, so they are not errors.
        _ = sw_share_lock_data(raw, CURL_LOCK_DATA_COOKIE)
        _ = sw_share_lock_data(raw, CURL_LOCK_DATA_DNS)
        _ = sw_share_lock_data(raw, CURL_LOCK_DATA_CONNECT)
    }

    deinit { curl_share_cleanup(raw) }
}
