import SwurlCurl
import SwurlSecurity
import SwurlCore
/// What shapes a transfer besides the request itself.
package struct TransferOptions: Sendable {
    package var followRedirects = false
    package var maxRedirects = 30
    /// Connect timeout and idle timeout (no bytes moved) in seconds; nil means none.
    package var timeout: Double?
    /// Whether the delegate wants the request head and body as sent (costs a debug callback).
    package var captureRequest = false
    /// The TLS security policy (chain, host, pins, client certificate); enforced in the handshake.
    package var security = SecurityPolicy()
    /// A redirect's hop to another origin, which `--cert` does not go to (`Exchange.hopOptions`;
    /// for the message of a server that asks for one).
    package var clientCertificateWithheld = false
    /// `--connect-timeout`: the limit for connecting only (default: `timeout`).
    package var connectTimeout: Double?
    package var httpVersion: HTTPVersionPreference = .automatic
    package var proxy = ProxySettings()
    /// `--unix-socket PATH`: connect to this socket instead of the URL's host.
    package var unixSocket: String?
    /// `--resolve HOST:PORT:ADDR` entries.
    package var resolve: [String] = []
    package var ipVersion: IPVersion = .any
    /// `--limit-rate` in bytes per second, for each direction.
    package var maxReceiveRate: Int64?
    package var maxSendRate: Int64?
    /// Whether libcurl paces `--limit-rate` (CURLOPT_MAX_*_SPEED_LARGE) instead of `RateLimiter`
    /// sleeping in the callbacks: on a multi handle a sleep would stall every transfer.
    package var rateLimitedByLibcurl = false
    /// `--max-headers`: the most header fields one response may have (0: no limit, the default,
    /// as curl and HTTPie; the head's size is still capped by `maxHeaderBytes`).
    package var maxHeaders = 0
    /// `--max-filesize`: the most body bytes (after Content-Encoding decoding) one response may
    /// deliver; past it the transfer stops with `responseRejected`.
    package var maxFileSize: Int64?
    /// The most bytes one response head may take (default 256 KiB).
    package var maxHeaderBytes = 256 * 1024
    /// Which codings to ask for and whether libcurl decodes the body (downloads keep the bytes
    /// as stored).
    package var contentCoding = ContentCoding.decoded
    /// A connection of its own, never reused by or for another transfer. A batch line whose TLS
    /// policy is not the batch's gets one: libcurl matches connections on its own TLS options,
    /// but pins, the pin scope and added trust anchors live in the handshake verifier, which a
    /// reused connection never runs again.
    package var ownConnection = false
    /// Cookies, DNS cache and connections of its own: the exchange never joins the state other
    /// exchanges share (`MultiDriver`). A batch line gets this when it changes where it connects
    /// (`--resolve`, `--proxy`, `--unix-socket`), so its addresses never reach another line and
    /// no other line's connection serves it; and when it sets its own `Host` header, since
    /// libcurl's cookie engine matches cookies on that header instead of the URL's host.
    package var ownSharedState = false
    /// libcurl's receive buffer (CURLOPT_BUFFERSIZE); nil for swurl's default (512 KiB, or
    /// libcurl's 16 KiB under `--limit-rate`), 0 for libcurl's 16 KiB.
    package var receiveBufferSize: Int?

    /// The receive buffer size asked of libcurl (CURLOPT_BUFFERSIZE), nil for libcurl's own
    /// 16 KiB. A 512 KiB buffer instead: a 1 GiB body to stdout then takes as few as 2,048
    /// callbacks and write(2)s instead of 65,536 or more (CPU time about halved; against 256 KiB
    /// the same wall time, 2-8% less CPU in paired runs). Under --limit-rate a hundredth of the
    /// rate (1–16 KiB): libcurl 7.88 reads up to 100 buffers in one pass before it looks at the
    /// rate, and with 16 KiB ones a fast server's first 1.6 MB went unpaced (a 500 KB body at
    /// 100K in 0.01 s). A handle given a size takes no spare and is kept as none (`EasyHandle`).
    package var requestedReceiveBufferSize: Int? {
        if rateLimitedByLibcurl, let rate = maxReceiveRate { return Int(max(1024, min(16 * 1024, rate / 100))) }
        if let size = receiveBufferSize ?? (maxReceiveRate == nil ? Transfer.receiveBufferSize : nil), size > 0 { return size }
        return nil
    }
    /// `--retry` and friends.
    package var retry = RetryPolicy()
    /// `--auth` credentials (bound to the first URL's origin) and how they are sent.
    package var credentials: Credentials?
    package var authType: AuthType = .basic
    /// The bearer token of `--auth-type bearer`.
    package var bearerToken: String?
    /// Parsed `.netrc`, consulted per hop; nil with `--ignore-netrc` or when there is none.
    package var netrc: Netrc?
    /// `--session`: the cookies to hand to the cookie engine before the first hop (only those
    /// for the request's host); nil without a session, and then the jar is not read back.
    package var sessionCookies: [SessionCookie]?
    /// `--cache`: the private HTTP cache and its policy; nil when off.
    package var cache: CacheSettings?

    package init() {}
}

/// What the engine knows after the transfer.
package struct TransferResult: Sendable {
    /// The final response's head, nil when no response arrived.
    package var head: HTTPResponseHead?
    package var effectiveURL: String?
    package var redirectCount: Int
    /// Where the response's Location points, made absolute by libcurl (CURLINFO_REDIRECT_URL).
    package var redirectURL: String?
    /// libcurl's counters for this hop.
    package var timing: TransferTiming
}
