#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlCurl
import SwurlSecurity
import SwurlCore
extension Transfer {
    /// CURLOPT_BUFFERSIZE(3) for every transfer without `--limit-rate` (libcurl allows up to 512 KiB).
    static let receiveBufferSize = 512 * 1024

    /// Whether this hop may run on an HTTP/2 connection shared with other transfers: TLS where
    /// ALPN offers h2 (not `--http1.1`, and libcurl has nghttp2). `http://` with `--http2`
    /// upgrades one connection per request first, `http://` through a proxy speaks HTTP/1.1 to
    /// the proxy, and `http://` with prior knowledge gets a connection of its own
    /// (`priorKnowledgeCleartext`): not shared.
    var mayMultiplex: Bool {
        guard CurlVersion.hasHTTP2 else { return false }
        let https = (routeScheme ?? "").lowercased() == "https"
        switch options.httpVersion {
        case .http1_1: return false
        case .automatic, .http2, .http2PriorKnowledge: return https
        }
    }

    /// `--http2-prior-knowledge` to an `http://` URL: libcurl 7.88 sends a second request on
    /// such a connection as a framing error ("Error in the HTTP2 framing layer"; curl fails the
    /// same way), so a batch's later lines, a redirect and a retry all failed. Each hop opens
    /// its own connection instead.
    var priorKnowledgeCleartext: Bool {
        options.httpVersion == .http2PriorKnowledge && (routeScheme ?? "").lowercased() != "https"
    }

    /// The connection settings of every hop: timeouts, HTTP version, proxy, Unix socket,
    /// `--resolve`, IP version, rate limits, buffer size and Digest credentials.
    func configureConnection() throws(SwurlError) {
        switch options.httpVersion {
        case .automatic:
            // ALPN offers h2 on TLS where libcurl has nghttp2; plain http stays HTTP/1.1.
            if CurlVersion.hasHTTP2 { try easy.set(.httpVersion(.http2OverTLS)) }
        case .http1_1:
            try easy.set(.httpVersion(.http1_1), "--http1.1")
        case .http2:
            try easy.set(.httpVersion(.http2), "--http2")
        case .http2PriorKnowledge:
            try easy.set(.httpVersion(.http2PriorKnowledge), "--http2-prior-knowledge")
        }
        try easy.applyRoute(options, url: request.url, scheme: routeScheme)
        if options.ownConnection || priorKnowledgeCleartext { try easy.set(.ownConnection, "a connection of its own") }
        // --limit-rate is paced by RateLimiter in the read and write callbacks, or by libcurl on a multi handle.
        if options.rateLimitedByLibcurl {
            if let r = options.maxReceiveRate { try easy.set(.maxReceiveSpeed(r), "--limit-rate") }
            if let r = options.maxSendRate {
                try easy.set(.maxSendSpeed(r), "--limit-rate")
                // libcurl sends a whole buffer, then waits: its smallest (16 KiB) makes the
                // silences between bursts a quarter of the default's.
                if request.body != nil { try easy.set(.uploadBufferSize(16 * 1024), "--limit-rate's send buffer") }
            }
        }
        if let size = options.requestedReceiveBufferSize {
            try easy.set(.bufferSize(size), options.rateLimitedByLibcurl ? "--limit-rate's receive buffer" : "the receive buffer")
        }
        // The same for a request body larger than libcurl's 64 KiB send buffer (a file, a multipart
        // upload): fewer read callbacks and send(2)s. Unknown lengths (stdin) too; --limit-rate keeps
        // the default for the same reason as above, and so does a batch line (receiveBufferSize 0:
        // libcurl's buffers, so 16 lines at once hold no 8 MB of send buffers).
        if options.maxSendRate == nil, options.receiveBufferSize == nil,
           let body = request.body, (body.length ?? Int64.max) > 64 * 1024 {
            try easy.set(.uploadBufferSize(Transfer.receiveBufferSize))
        }
        if let c = digestCredentials {
            try HeaderValue.check(c.user, "the Digest user name")
            try HeaderValue.check(c.password, "the Digest password")
            try easy.set(.digestAuthentication, "Digest authentication")
            try easy.set(.userName(c.user), "the user name")
            try easy.set(.password(c.password), "the password")
            // libcurl 7.88 keeps "the next request is Digest's bodyless probe" on the connection
            // (`conn->bits.authneg`), and a request without credentials leaves it as it was: after
            // a Digest request answered neither 401 nor 2xx, the next request on the connection
            // (a batch's or a REPL's next line) went with `Content-Length: 0` and no body, its
            // success reported. The connection is closed after a Digest transfer.
            try easy.set(.forbidReuse, "Digest authentication's connection")
        }
        // The in-memory cookie engine; with the share handle, cookies follow the redirect chain.
        try easy.set(.cookieFile(""), "the cookie engine")
        // No credentials from ~/.netrc behind swurl's back: Exchange looks them up per hop.
        try easy.set(.netrcIgnored)
    }
}

/// Bytes moved so far in one hop.
package struct TransferProgress: Sendable {
    /// Body bytes received in this hop.
    package var downloaded: Int64
    /// The expected body size (Content-Length), nil when unknown.
    package var downloadTotal: Int64?
    /// Request body bytes sent in this hop.
    package var uploaded: Int64
    /// The request body's size, nil when unknown (chunked).
    package var uploadTotal: Int64?
}

/// Which HTTP version to speak (`--http1.1`, `--http2`, `--http2-prior-knowledge`).
package enum HTTPVersionPreference: Sendable, Equatable {
    /// HTTP/2 through ALPN on TLS where libcurl has nghttp2, HTTP/1.1 otherwise.
    case automatic
    case http1_1
    /// HTTP/2 on TLS, an upgrade attempt on plain http.
    case http2
    /// HTTP/2 straight away, without ALPN or upgrade.
    case http2PriorKnowledge
}

/// Which address family to connect over (`-4`, `-6`).
package enum IPVersion: Sendable, Equatable {
    /// Whatever the resolver returns.
    case any
    /// `-4`.
    case v4
    /// `-6`.
    case v6
}

/// Proxies from `--proxy` and the environment (`http_proxy`, `HTTPS_PROXY`, `ALL_PROXY`,
/// `NO_PROXY`), chosen per hop by the hop's scheme.
package struct ProxySettings: Sendable, Equatable {
    /// `--proxy URL`: every hop goes through it.
    package var explicit: String?
    /// `http_proxy`: for http URLs.
    package var http: String?
    /// `https_proxy` / `HTTPS_PROXY`: for https URLs.
    package var https: String?
    /// `all_proxy` / `ALL_PROXY`: for either, when the scheme's own is unset.
    package var all: String?
    /// Hosts that bypass the proxy (comma-separated, `*` for all).
    package var noProxy: String?

    /// No proxy.
    package init() {}

    /// Reads the conventional variables. Only the lower-case `http_proxy` is honoured, as curl
    /// does: a CGI program gets `HTTP_PROXY` from a request's `Proxy:` header (httpoxy).
    package init(variables: [String: String]) {
        func value(_ names: String...) -> String? {
            for n in names { if let v = variables[n], !v.isEmpty { return v } }
            return nil
        }
        http = value("http_proxy")
        https = value("https_proxy", "HTTPS_PROXY")
        all = value("all_proxy", "ALL_PROXY")
        noProxy = value("no_proxy", "NO_PROXY")
    }

    /// No proxy of any kind.
    package var isEmpty: Bool { explicit == nil && http == nil && https == nil && all == nil }

    /// The proxy for a URL scheme, nil for a direct connection.
    package func proxy(forScheme scheme: String) -> String? {
        if let explicit { return explicit }
        return (scheme == "https" ? https : http) ?? all
    }

    /// The HTTP proxy a request to `url` goes through (`proxy(forURL:)`), the one a
    /// Proxy-Authorization item is for; nil when it goes direct or through a SOCKS proxy, which
    /// reads no HTTP headers: the item is then the server's, as curl sends it.
    package func httpProxy(forURL url: String) -> String? {
        guard let proxy = proxy(forURL: url) else { return nil }
        let scheme = URLText.schemeOf(ProxySettings.absolute(proxy))?.lowercased()
        return scheme == "http" || scheme == "https" ? proxy : nil
    }

    /// The proxy a request to `url` goes through, as libcurl picks it: the scheme's (none for
    /// `--proxy ''`), unless the URL's host is in `NO_PROXY` (which holds for `--proxy` too, as
    /// CURLOPT_NOPROXY does).
    package func proxy(forURL url: String) -> String? {
        guard let proxy = proxy(forScheme: URLText.schemeOf(url)?.lowercased() ?? "http"), !proxy.isEmpty else { return nil }
        if let noProxy, let host = try? Origin(url: url).host, ProxySettings.bypasses(host, noProxy: noProxy) { return nil }
        return proxy
    }

    /// Whether `host` is in a `NO_PROXY` list as libcurl 7.88 reads it (lib/noproxy.c): `*` as
    /// the whole value bypasses every host; else entries split at commas and blanks. A name
    /// matches an entry equal to it or to a domain above it, without case, one leading and one
    /// trailing dot ignored on either side; an IPv4 address matches an entry that is the same
    /// address or a network holding it (`127.0.0.0/8`); an IPv6 one only the same text (`::1`).
    static func bypasses(_ host: String, noProxy: String) -> Bool {
        if noProxy == "*" { return true }
        var name = host.lowercased()
        var family: Int32?
        if name.hasPrefix("["), name.hasSuffix("]") {
            name = String(name.dropFirst().dropLast())
            family = AF_INET6
        } else if ProxySettings.address(name, AF_INET) != nil {
            family = AF_INET
        } else if ProxySettings.address(name, AF_INET6) != nil {
            family = AF_INET6
        } else if name.hasSuffix(".") {
            name.removeLast()
        }
        let entries = noProxy.split { $0 == "," || $0 == " " || $0 == "\t" }.map { String($0).lowercased() }
        for var entry in entries {
            if family == AF_INET6 {
                // libcurl 7.88 compares an IPv6 host with the entry as text: no networks.
                if name == entry { return true }
            } else if let family {
                let parts = entry.split(separator: "/", maxSplits: 1).map(String.init)
                guard let net = parts.first.flatMap({ ProxySettings.address($0, family) }),
                      let own = ProxySettings.address(name, family) else { continue }
                // libcurl's reading (noproxy.c): the length as atoi(3) reads it, where 0 (`/0`,
                // `/x`) means the whole address, not every one; past the address's bits, nothing.
                var bits = parts.count == 2 ? ProxySettings.leadingInteger(parts[1]) : 0
                if bits == 0 { bits = net.count * 8 }
                guard bits > 0, bits <= net.count * 8 else { continue }
                if ProxySettings.samePrefix(own, net, bits: bits) { return true }
            } else {
                if entry.hasPrefix(".") { entry.removeFirst() }
                if entry.hasSuffix(".") { entry.removeLast() }
                if !entry.isEmpty && (name == entry || name.hasSuffix("." + entry)) { return true }
            }
        }
        return false
    }

    /// The number `text` starts with, as atoi(3) reads it (0 when it starts with none).
    static func leadingInteger(_ text: String) -> Int {
        var bytes = Substring(text).utf8.drop { $0 == 0x20 || (0x09...0x0D).contains($0) }
        var sign = 1
        if let first = bytes.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
            if first == UInt8(ascii: "-") { sign = -1 }
            bytes = bytes.dropFirst()
        }
        var value = 0
        for b in bytes {
            guard (0x30...0x39).contains(b), value < 1_000_000 else { break }
            value = value * 10 + Int(b - 0x30)
        }
        return sign * value
    }

    /// The bytes of an IPv4 or IPv6 address (inet_pton), nil when `text` is none.
    static func address(_ text: String, _ family: Int32) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: family == AF_INET6 ? 16 : 4)
        let ok = bytes.withUnsafeMutableBytes { inet_pton(family, text, $0.baseAddress) } == 1
        return ok ? bytes : nil
    }

    /// Whether `a` and `b` agree in their first `bits` bits.
    static func samePrefix(_ a: [UInt8], _ b: [UInt8], bits: Int) -> Bool {
        guard a.count == b.count else { return false }
        for k in 0..<a.count {
            let left = bits - k * 8
            if left <= 0 { return true }
            let mask: UInt8 = left >= 8 ? 0xFF : UInt8(truncatingIfNeeded: 0xFF << (8 - left))
            if a[k] & mask != b[k] & mask { return false }
        }
        return true
    }

    /// Whether a proxy URL names a scheme libcurl takes for a proxy (or none: http).
    package static func hasKnownScheme(_ proxy: String) -> Bool {
        guard let scheme = URLText.schemeOf(proxy)?.lowercased() else { return true }
        return ["http", "https", "socks4", "socks4a", "socks5", "socks5h"].contains(scheme)
    }

    package static let schemesHint = "use http://, socks4://, socks4a://, socks5:// or socks5h://"

    /// What is wrong with a proxy URL libcurl would refuse only when sending ("Unsupported proxy
    /// syntax", exit 1): libcurl's own URL parser's reason (no host, a port past 65535, an
    /// unclosed `[`), nil when it takes it. A proxy without a scheme is read as http, as curl does.
    package static func fault(_ proxy: String) -> String? {
        do {
            _ = try CurlURL.origin(parsing: absolute(proxy))
            return nil
        } catch {
            // "invalid URL '…': REASON": the reason alone, the message names the proxy.
            let message = error.message
            guard let colon = message.rangeOfText("': ") else { return message }
            return String(message[colon.upperBound...])
        }
    }

    /// `proxy` as a URL: a proxy given without a scheme is an http one, as libcurl reads it.
    package static func absolute(_ proxy: String) -> String {
        proxy.containsText("://") ? proxy : "http://" + proxy
    }

    /// `proxy` as the URL libcurl connects to: its port 1080 when it names none (443 for an
    /// https proxy), libcurl's default for proxies of every other kind.
    package static func endpoint(_ proxy: String) throws(SwurlError) -> CurlURL {
        var url = try CurlURL(parsing: absolute(proxy))
        if url.port == nil { url.port = url.scheme.lowercased() == "https" ? 443 : 1080 }
        return url
    }

    /// `proxy` (the one `proxy(forURL:)` picked for `url`) as messages name it: its URL, a
    /// password masked, and where it came from (`the proxy http://p:3128 (from http_proxy)`).
    package func named(_ proxy: String, forURL url: String) -> String {
        "the proxy \(Redactor.givenURL(proxy)) (from \(source(forScheme: URLText.schemeOf(url)?.lowercased() ?? "http")))"
    }

    /// Where `proxy(forScheme:)`'s answer comes from, as a user would name it.
    package func source(forScheme scheme: String) -> String {
        if explicit != nil { return "--proxy" }
        // Either spelling of a variable may have set it (the lower-case one wins when both are).
        if scheme == "https" { return https != nil ? "https_proxy or HTTPS_PROXY" : "all_proxy or ALL_PROXY" }
        return http != nil ? "http_proxy" : "all_proxy or ALL_PROXY"
    }
}

/// A user name and password (`--auth`, `.netrc`).
package struct Credentials: Sendable, Equatable {
    package var user: String
    package var password: String
    /// Credentials as given.
    package init(user: String, password: String) {
        self.user = user
        self.password = password
    }
}

/// How `--auth` credentials are sent (`--auth-type`).
package enum AuthType: String, Sendable, CaseIterable {
    /// `Authorization: Basic` built by swurl (visible with `--offline`).
    case basic
    /// libcurl answers the server's Digest challenge.
    case digest
    /// `Authorization: Bearer TOKEN`.
    case bearer
}

extension EasyHandle {
    /// Where and how a handle connects: connect timeout, proxy (the Environment's, never
    /// libcurl's own lookup, and NO_PROXY judged by swurl), Unix socket, `--resolve`, IP version. One place for
    /// every command that connects (requests, downloads, `swurl certs`).
    /// - Parameter scheme: the URL's scheme, lower-cased, when the caller has parsed it already.
    func applyRoute(_ options: TransferOptions, url: String, scheme known: String? = nil) throws(SwurlError) {
        if let t = options.connectTimeout ?? options.timeout {
            try set(.connectTimeoutMilliseconds(max(1, Int(t * 1000))))
        }
        // The proxy comes from swurl's Environment, never from libcurl reading the process
        // environment itself: "" switches libcurl's own lookup off.
        let scheme = known ?? (try? CurlURL(parsing: url))?.scheme.lowercased() ?? "http"
        // A Unix socket goes without a proxy (an explicit --proxy with it is refused earlier):
        // libcurl would drop one anyway, so the proxy variables are not even looked at.
        let configured = options.unixSocket != nil ? "" : options.proxy.proxy(forScheme: scheme) ?? ""
        // Whether this URL goes through it is swurl's decision alone (NO_PROXY read as libcurl
        // reads it, `bypasses`): libcurl gets the proxy or "" and no NO_PROXY list, so the two
        // can never disagree, and a Proxy-Authorization item goes where swurl sent it.
        let proxy = configured.isEmpty ? "" : options.proxy.proxy(forURL: url) ?? ""
        // libcurl runs the TLS hook for a proxy's own handshake too, where swurl's policy (pins,
        // host name) would be applied to the proxy's certificate: not supported, said plainly.
        // Only one the request goes through: a host NO_PROXY bypasses goes direct, as with curl.
        if !proxy.isEmpty {
            let shown = "'\(Redactor.givenURL(proxy))' (from \(options.proxy.source(forScheme: scheme)))"
            if proxy.lowercased().hasPrefix("https://") {
                throw .usage("HTTPS proxies (TLS to the proxy itself) are not supported: \(shown)",
                             hint: "use an http:// or socks5h:// proxy; https:// targets are still tunnelled with TLS end to end")
            }
            // --proxy was checked as it was read; a variable's value is checked here, where it
            // applies (libcurl said "Unsupported proxy syntax" with a hint about the server).
            if options.proxy.explicit == nil {
                guard ProxySettings.hasKnownScheme(proxy) else {
                    throw .usage("unsupported proxy scheme in \(shown)", hint: ProxySettings.schemesHint)
                }
                if proxy == "*" || proxy.contains(where: \.isWhitespace) {
                    throw .usage("\(shown) is not a proxy URL", hint: "e.g. http://127.0.0.1:3128")
                }
                if let why = ProxySettings.fault(proxy) {
                    throw .usage("\(shown) is not a proxy URL: \(TerminalSanitizer.clean(why))", hint: "e.g. http://127.0.0.1:3128")
                }
            }
        }
        if !proxy.isEmpty, let parsed = try? CurlURL(parsing: ProxySettings.absolute(proxy)) {
            if let u = parsed.user { try HeaderValue.check(u, "the user name in the proxy URL") }
            if let p = parsed.password { try HeaderValue.check(p, "the password in the proxy URL") }
        }
        try set(.proxy(proxy), "the proxy")
        // "": libcurl reads no NO_PROXY of its own from the process environment either.
        if !proxy.isEmpty { try set(.noProxy(""), "the no-proxy list") }
        // The proxy's answer to the tunnel's CONNECT is no response of the server's: a refusal's
        // head (a 407, a 307 with its Location, a Set-Cookie) was printed by -h as the pinned
        // origin's, and recorded as its response. The error names the proxy and its status
        // (CURLINFO_HTTP_CONNECTCODE).
        if !proxy.isEmpty { try set(.suppressConnectHeaders(true), "the proxy's tunnel") }
        if let path = options.unixSocket { try set(.unixSocketPath(path), "--unix-socket") }
        if !options.resolve.isEmpty { try set(.resolve(options.resolve)) }
        switch options.ipVersion {
        case .any: break
        case .v4: try set(.ipResolve(.v4))
        case .v6: try set(.ipResolve(.v6))
        }
    }
}
