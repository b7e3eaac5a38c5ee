import SwurlCurl
import SwurlSecurity
import SwurlCore
/// What shapes a transfer besides the request itself.
public struct TransferOptions: Sendable {
    public var followRedirects = false
    public var maxRedirects = 30
    /// Connect timeout and idle timeout (no bytes moved) in seconds; nil means none.
    public var timeout: Double?
    /// Whether the delegate wants the request head and body as sent (costs a debug callback).
    public var captureRequest = false
    /// The TLS security policy (chain, host, pins, client certificate); enforced in the handshake.
    public var security = SecurityPolicy()
    /// `--connect-timeout`: the limit for connecting only (default: `timeout`).
    public var connectTimeout: Double?
    public var httpVersion: HTTPVersionPreference = .automatic
    public var proxy = ProxySettings()
    /// `--unix-socket PATH`: connect to this socket instead of the URL's host.
    public var unixSocket: String?
    /// `--resolve HOST:PORT:ADDR` entries.
    public var resolve: [String] = []
    public var ipVersion: IPVersion = .any
    /// `--limit-rate` in bytes per second, for each direction.
    public var maxReceiveRate: Int64?
    public var maxSendRate: Int64?
    /// Whether libcurl paces `--limit-rate` (CURLOPT_MAX_*_SPEED_LARGE) instead of `RateLimiter`
    /// sleeping in the callbacks: on a multi handle a sleep would stall every transfer.
    public var rateLimitedByLibcurl = false
    /// `--max-headers`: the most header fields one response may have (0: no limit, the default,
    /// as curl and HTTPie; the head's size is still capped by `maxHeaderBytes`).
    public var maxHeaders = 0
    /// `--max-filesize`: the most body bytes (after Content-Encoding decoding) one response may
    /// deliver; past it the transfer stops with `responseRejected`.
    public var maxFileSize: Int64?
    /// The most bytes one response head may take (default 256 KiB).
    public var maxHeaderBytes = 256 * 1024
    /// Which codings to ask for and whether libcurl decodes the body (downloads keep the bytes
    /// as stored).
    public var contentCoding = ContentCoding.decoded
    /// A connection of its own, never reused by or for another transfer. A batch line whose TLS
    /// policy is not the batch's gets one: libcurl matches connections on its own TLS options,
    /// but pins, the pin scope and added trust anchors live in the handshake verifier, which a
    /// reused connection never runs again.
    public var ownConnection = false
    /// Cookies, DNS cache and connections of its own: the exchange never joins the state other
    /// exchanges share (`MultiDriver`). A batch line gets this when it changes where it connects
    /// (`--resolve`, `--proxy`, `--unix-socket`), so its addresses never reach another line and
    /// no other line's connection serves it; and when it sets its own `Host` header, since
    /// libcurl's cookie engine matches cookies on that header instead of the URL's host.
    public var ownSharedState = false
    /// libcurl's receive buffer (CURLOPT_BUFFERSIZE); nil for swurl's default (512 KiB, or
    /// libcurl's 16 KiB under `--limit-rate`), 0 for libcurl's 16 KiB.
    public var receiveBufferSize: Int?
    /// `--retry` and friends.
    public var retry = RetryPolicy()
    /// `--auth` credentials (bound to the first URL's origin) and how they are sent.
    public var credentials: Credentials?
    public var authType: AuthType = .basic
    /// The bearer token of `--auth-type bearer`.
    public var bearerToken: String?
    /// Parsed `.netrc`, consulted per hop; nil with `--ignore-netrc` or when there is none.
    public var netrc: Netrc?
    /// `--session`: the cookies to hand to the cookie engine before the first hop (only those
    /// for the request's host); nil without a session, and then the jar is not read back.
    public var sessionCookies: [SessionCookie]?
    /// `--cache`: the private HTTP cache and its policy; nil when off.
    public var cache: CacheSettings?

    public init() {}
}

/// What the engine knows after the transfer.
public struct TransferResult: Sendable {
    /// The final response's head, nil when no response arrived.
    public var head: HTTPResponseHead?
    public var effectiveURL: String?
    public var redirectCount: Int
    /// Where the response's Location points, made absolute by libcurl (CURLINFO_REDIRECT_URL).
    public var redirectURL: String?
    /// libcurl's counters for this hop.
    public var timing: TransferTiming
}
