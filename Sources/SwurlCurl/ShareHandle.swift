@preconcurrency import CCurl
@preconcurrency import CShims
@preconcurrency import Glibc
import SwurlCore

/// Owns one libcurl share handle (curl_share_init(3)) that the hops of one exchange use
/// together: the cookie engine (cookies follow the redirect chain, scoped by libcurl to their
/// domain, path and secure flag), the DNS cache and the connection cache. TLS sessions are not
/// shared, so every new connection runs the full certificate check of the security policy.
package final class ShareHandle {
    let raw: UnsafeMutableRawPointer

    /// How many finished easy handles this share keeps for reuse (0: none, each is cleaned up).
    private let spareLimit: Int
    /// Easy handles of finished transfers on this share, reset by curl_easy_reset(3): the next
    /// transfer that joins the share takes one instead of paying curl_easy_init(3) and
    /// curl_easy_cleanup(3) for every transfer in a batch.
    private var spares: [UnsafeMutableRawPointer] = []
    /// Allocated, not a stored `pthread_mutex_t`: `&property` gives no stable address.
    private let sparesLock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    /// - Parameters:
    ///   - keepingSpareHandles: how many finished easy handles to keep for reuse (a batch keeps as
    ///     many as run at once); 0 cleans each up when its transfer ends.
    ///   - cookiesOnly: share the cookie engine alone, not the DNS cache and connections (the
    ///     REPL's lines: each may run under its own TLS policy, which a reused connection would
    ///     skip, since the policy's checks run in the handshake).
    package init(keepingSpareHandles: Int = 0, cookiesOnly: Bool = false) throws(SwurlError) {
        try CurlLibrary.load()
        guard let h = curl_share_init() else { throw .transport("libcurl could not create a share handle") }
        raw = h
        spareLimit = max(0, keepingSpareHandles)
        pthread_mutex_init(sparesLock, nil)
        // Failures only cost sharing, never correctness, so they are not errors.
        _ = sw_share_lock_data(raw, CURL_LOCK_DATA_COOKIE)
        if cookiesOnly { return }
        _ = sw_share_lock_data(raw, CURL_LOCK_DATA_DNS)
        _ = sw_share_lock_data(raw, CURL_LOCK_DATA_CONNECT)
    }

    deinit {
        // The spares still point at this share: they go first.
        for h in spares { curl_easy_cleanup(h) }
        pthread_mutex_destroy(sparesLock)
        sparesLock.deallocate()
        curl_share_cleanup(raw)
    }

    /// A reset easy handle of an earlier transfer on this share, or nil.
    func takeSpare() -> UnsafeMutableRawPointer? {
        guard spareLimit > 0 else { return nil }
        pthread_mutex_lock(sparesLock)
        defer { pthread_mutex_unlock(sparesLock) }
        return spares.popLast()
    }

    /// Keeps the handle of a finished transfer (not on any multi handle) for the next one:
    /// curl_easy_reset(3) returns every option to its default, so nothing of the last transfer
    /// (callbacks, headers, credentials, TLS settings) carries over; connections, DNS and
    /// cookies live in the share either way. False when full: the caller cleans it up.
    func keepSpare(_ h: UnsafeMutableRawPointer) -> Bool {
        guard spareLimit > 0 else { return false }
        pthread_mutex_lock(sparesLock)
        defer { pthread_mutex_unlock(sparesLock) }
        guard spares.count < spareLimit else { return false }
        // libcurl 7.88's reset keeps the handle's list of cookie files (CURLOPT_COOKIEFILE ""
        // each transfer adds one): a batch grew by one entry a line (curl PR #10709). Setting it
        // to NULL frees the list; the cookies themselves are the share's and stay.
        _ = sw_setopt_str(h, CURLOPT_COOKIEFILE, nil)
        curl_easy_reset(h)
        spares.append(h)
        return true
    }
}
