@preconcurrency import CCurl
@preconcurrency import CShims
import SwurlCore

/// One libcurl easy option with its value (curl_easy_setopt(3)), in Swift terms: the engine
/// names what it wants and `EasyHandle.set(_:_:)` turns it into the CURLOPT_* call.
package enum EasyOption {
    /// CURLOPT_URL(3).
    case url(String)
    /// CURLOPT_NOSIGNAL(3): no signals (timeouts and DNS use none anyway in threaded resolvers).
    case noSignal(Bool)
    /// CURLOPT_SSL_ENABLE_ALPN(3): whether the TLS handshake offers application protocols.
    case alpn(Bool)
    /// CURLOPT_ACCEPT_ENCODING(3): "" asks for every encoding libcurl can decode.
    case acceptEncoding(String)
    /// CURLOPT_HTTP_CONTENT_DECODING: whether libcurl decodes the body's Content-Encoding (may
    /// be switched off from the header callback, before the first body byte).
    case contentDecoding(Bool)
    /// CURLOPT_PROTOCOLS_STR(3), e.g. `http,https`.
    case protocols(String)
    /// CURLOPT_REDIR_PROTOCOLS_STR(3).
    case redirectProtocols(String)
    /// CURLOPT_FOLLOWLOCATION(3).
    case followLocation(Bool)
    /// CURLOPT_PATH_AS_IS(3): dot segments in the URL's path are sent as they are.
    case pathAsIs(Bool)
    /// CURLOPT_HTTPHEADER(3): header lines as libcurl takes them (`Name: value`, `Name;`, `Name:`).
    case headers([String])
    /// CURLOPT_PROXYHEADER(3): header lines for the proxy alone (its CONNECT, or its share of a
    /// plain-http request); the server never sees them (CURLHEADER_SEPARATE, libcurl's default).
    case proxyHeaders([String])
    /// CURLOPT_POST(3).
    case post(Bool)
    /// CURLOPT_POSTFIELDSIZE_LARGE(3): -1 for unknown (chunked).
    case postFieldSize(Int64)
    /// CURLOPT_CUSTOMREQUEST(3): the method on the request line.
    case customRequest(String)
    /// CURLOPT_NOBODY(3): HEAD.
    case noBody(Bool)
    /// CURLOPT_CONNECTTIMEOUT_MS(3).
    case connectTimeoutMilliseconds(Int)
    /// CURLOPT_HTTP_VERSION(3).
    case httpVersion(HTTPVersion)
    /// CURLOPT_PROXY(3): "" switches libcurl's own environment lookup off.
    case proxy(String)
    /// CURLOPT_NOPROXY(3).
    case noProxy(String)
    /// CURLOPT_SUPPRESS_CONNECT_HEADERS(3): a proxy's answer to a tunnel's CONNECT reaches no
    /// header or write callback.
    case suppressConnectHeaders(Bool)
    /// CURLOPT_UNIX_SOCKET_PATH(3).
    case unixSocketPath(String)
    /// CURLOPT_RESOLVE(3): `HOST:PORT:ADDR` entries.
    case resolve([String])
    /// CURLOPT_IPRESOLVE(3).
    case ipResolve(IPResolve)
    /// CURLOPT_BUFFERSIZE(3): the receive buffer in bytes.
    case bufferSize(Int)
    /// CURLOPT_UPLOAD_BUFFERSIZE(3): the send buffer in bytes (16 KiB to 2 MiB).
    case uploadBufferSize(Int)
    /// CURLOPT_HTTPAUTH(3) with CURLAUTH_DIGEST: libcurl answers a Digest challenge.
    case digestAuthentication
    /// CURLOPT_USERNAME(3).
    case userName(String)
    /// CURLOPT_PASSWORD(3).
    case password(String)
    /// CURLOPT_COOKIEFILE(3): "" starts the in-memory cookie engine.
    case cookieFile(String)
    /// CURLOPT_COOKIE(3): `name=value; …` joined to the cookie engine's `Cookie` line (one line).
    case cookies(String)
    /// CURLOPT_COOKIELIST(3): one cookie in Netscape format (or "ALL", "SESS", "FLUSH",
    /// "RELOAD") handed to the cookie engine; with a share handle, to the shared jar. The line's
    /// `ArgumentBytes` escapes go as the bytes they stand for (`EasyInfo.cookieList`).
    case cookieList(String)
    /// CURLOPT_NETRC(3) with CURL_NETRC_IGNORED: no credentials from ~/.netrc.
    case netrcIgnored
    /// CURLOPT_CONNECT_ONLY(3): connect (and handshake), then stop.
    case connectOnly(Bool)
    /// CURLOPT_FRESH_CONNECT(3) and CURLOPT_FORBID_REUSE(3): a new connection, closed after the
    /// transfer, so it neither takes nor leaves one for others.
    case ownConnection
    /// CURLOPT_FORBID_REUSE(3) alone: the connection is closed after the transfer.
    case forbidReuse
    /// CURLOPT_SSL_VERIFYPEER(3).
    case verifyPeer(Bool)
    /// CURLOPT_SSL_VERIFYHOST(3): true is 2 (the name must match), false is 0.
    case verifyHost(Bool)
    /// CURLOPT_SSL_SESSIONID_CACHE(3).
    case sessionIDCache(Bool)
    /// CURLOPT_CA_CACHE_TIMEOUT(3) 0: every connection's certificate store is its own, never the
    /// one libcurl otherwise keeps for all connections of a multi handle.
    case noCAStoreCache
    /// CURLOPT_CAINFO(3).
    case caFile(String)
    /// CURLOPT_CAPATH(3).
    case caPath(String)
    /// CURLOPT_CAINFO(3) set to NULL: no bundle file (libcurl's compiled-in default is dropped).
    case noCAFile
    /// CURLOPT_CAPATH(3) set to NULL: no hashed directory (libcurl's compiled-in default is dropped).
    case noCAPath
    /// CURLOPT_SSLCERT(3).
    case clientCertificate(String)
    /// CURLOPT_SSLKEY(3).
    case clientKey(String)
    /// CURLOPT_KEYPASSWD(3).
    case keyPassword(String)
    /// CURLOPT_SSLVERSION(3): the lowest version and, when set, the highest.
    case tlsVersions(minimum: TLSVersion, maximum: TLSVersion?)
    /// CURLOPT_SSL_CIPHER_LIST(3): TLS 1.2 cipher names.
    case cipherList(String)
    /// CURLOPT_TLS13_CIPHERS(3): TLS 1.3 suite names.
    case tls13Ciphers(String)
    /// CURLOPT_MAX_RECV_SPEED_LARGE: bytes per second, paced by libcurl (no blocking callback).
    case maxReceiveSpeed(Int64)
    /// CURLOPT_MAX_SEND_SPEED_LARGE.
    case maxSendSpeed(Int64)

    /// Values of CURLOPT_HTTP_VERSION.
    package enum HTTPVersion {
        case http1_1
        case http2
        /// HTTP/2 over TLS (ALPN), HTTP/1.1 on plain http.
        case http2OverTLS
        case http2PriorKnowledge
    }

    /// Values of CURLOPT_IPRESOLVE.
    package enum IPResolve {
        case v4, v6
    }

    /// TLS protocol versions for CURLOPT_SSLVERSION.
    package enum TLSVersion {
        case v1_2, v1_3
    }
}

extension EasyHandle {
    /// curl_easy_setopt(3) for one option.
    /// - Parameter what: names the option in the error, e.g. `--cacert` (default: "an option";
    ///   header and resolve lists always say "the header list").
    /// - Throws: `SwurlError.transport` when libcurl rejects the option.
    package func set(_ option: EasyOption, _ what: String = "an option") throws(SwurlError) {
        func flag(_ b: Bool) -> Int { b ? 1 : 0 }
        switch option {
        case .url(let v): try set(CURLOPT_URL, v, what)
        case .noSignal(let b): try set(CURLOPT_NOSIGNAL, flag(b), what)
        case .alpn(let b): try set(CURLOPT_SSL_ENABLE_ALPN, flag(b), what)
        case .acceptEncoding(let v): try set(CURLOPT_ACCEPT_ENCODING, v, what)
        case .contentDecoding(let b): try set(CURLOPT_HTTP_CONTENT_DECODING, flag(b), what)
        case .protocols(let v): try set(CURLOPT_PROTOCOLS_STR, v, what)
        case .redirectProtocols(let v): try set(CURLOPT_REDIR_PROTOCOLS_STR, v, what)
        case .followLocation(let b): try set(CURLOPT_FOLLOWLOCATION, flag(b), what)
        case .pathAsIs(let b): try set(CURLOPT_PATH_AS_IS, flag(b), what)
        case .headers(let lines): try set(CURLOPT_HTTPHEADER, list: lines)
        case .proxyHeaders(let lines):
            try set(CURLOPT_HEADEROPT, Int(CURLHEADER_SEPARATE), what)
            try set(CURLOPT_PROXYHEADER, list: lines)
        case .post(let b): try set(CURLOPT_POST, flag(b), what)
        case .postFieldSize(let n): try set(CURLOPT_POSTFIELDSIZE_LARGE, offset: n, what)
        case .customRequest(let v): try set(CURLOPT_CUSTOMREQUEST, v, what)
        case .noBody(let b): try set(CURLOPT_NOBODY, flag(b), what)
        case .connectTimeoutMilliseconds(let ms): try set(CURLOPT_CONNECTTIMEOUT_MS, ms, what)
        case .httpVersion(let v):
            let value: Int
            switch v {
            case .http1_1: value = Int(CURL_HTTP_VERSION_1_1)
            case .http2: value = Int(CURL_HTTP_VERSION_2_0)
            case .http2OverTLS: value = Int(CURL_HTTP_VERSION_2TLS)
            case .http2PriorKnowledge: value = Int(CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE)
            }
            try set(CURLOPT_HTTP_VERSION, value, what)
        case .proxy(let v): try set(CURLOPT_PROXY, v, what)
        case .noProxy(let v): try set(CURLOPT_NOPROXY, v, what)
        case .suppressConnectHeaders(let on): try set(CURLOPT_SUPPRESS_CONNECT_HEADERS, on ? 1 : 0, what)
        case .unixSocketPath(let v): try set(CURLOPT_UNIX_SOCKET_PATH, v, what)
        case .resolve(let entries): try set(CURLOPT_RESOLVE, list: entries)
        case .ipResolve(let v):
            try set(CURLOPT_IPRESOLVE, v == .v4 ? Int(CURL_IPRESOLVE_V4) : Int(CURL_IPRESOLVE_V6), what)
        case .bufferSize(let n):
            receiveBufferSized = true
            try set(CURLOPT_BUFFERSIZE, n, what)
        case .uploadBufferSize(let n): try set(CURLOPT_UPLOAD_BUFFERSIZE, n, what)
        case .digestAuthentication: try set(CURLOPT_HTTPAUTH, Int(sw_curlauth_digest()), what)
        case .userName(let v): try set(CURLOPT_USERNAME, v, what)
        case .password(let v): try set(CURLOPT_PASSWORD, v, what)
        case .cookieFile(let v): try set(CURLOPT_COOKIEFILE, v, what)
        case .cookies(let v): try set(CURLOPT_COOKIE, v, what)
        case .cookieList(let v):
            let bytes = ArgumentBytes.path(v)
            try check(bytes.withUnsafeBufferPointer { sw_setopt_str(raw, CURLOPT_COOKIELIST, $0.baseAddress) }, what)
        case .netrcIgnored: try set(CURLOPT_NETRC, Int(CURL_NETRC_IGNORED.rawValue), what)
        case .connectOnly(let b): try set(CURLOPT_CONNECT_ONLY, flag(b), what)
        case .ownConnection:
            try set(CURLOPT_FRESH_CONNECT, 1, what)
            try set(CURLOPT_FORBID_REUSE, 1, what)
        case .forbidReuse: try set(CURLOPT_FORBID_REUSE, 1, what)
        case .verifyPeer(let b): try set(CURLOPT_SSL_VERIFYPEER, flag(b), what)
        case .verifyHost(let b): try set(CURLOPT_SSL_VERIFYHOST, b ? 2 : 0, what)
        case .sessionIDCache(let b): try set(CURLOPT_SSL_SESSIONID_CACHE, flag(b), what)
        case .noCAStoreCache:
            // A libcurl older than 7.87 has no such cache, and no such option.
            let rc = sw_setopt_long(raw, CURLOPT_CA_CACHE_TIMEOUT, 0)
            if rc != CURLE_UNKNOWN_OPTION { try check(rc, what) }
        case .caFile(let v): try set(CURLOPT_CAINFO, v, what)
        case .caPath(let v): try set(CURLOPT_CAPATH, v, what)
        case .noCAFile: try set(CURLOPT_CAINFO, pointer: nil)
        case .noCAPath: try set(CURLOPT_CAPATH, pointer: nil)
        case .clientCertificate(let v): try set(CURLOPT_SSLCERT, v, what)
        case .clientKey(let v): try set(CURLOPT_SSLKEY, v, what)
        case .keyPassword(let v): try set(CURLOPT_KEYPASSWD, v, what)
        case .tlsVersions(let minimum, let maximum):
            var value = minimum == .v1_3 ? Int(CURL_SSLVERSION_TLSv1_3) : Int(CURL_SSLVERSION_TLSv1_2)
            if maximum == .v1_2 { value |= Int(CURL_SSLVERSION_MAX_TLSv1_2) }
            if maximum == .v1_3 { value |= Int(CURL_SSLVERSION_MAX_TLSv1_3) }
            try set(CURLOPT_SSLVERSION, value, what)
        case .cipherList(let v): try set(CURLOPT_SSL_CIPHER_LIST, v, what)
        case .tls13Ciphers(let v): try set(CURLOPT_TLS13_CIPHERS, v, what)
        case .maxReceiveSpeed(let n): try set(CURLOPT_MAX_RECV_SPEED_LARGE, offset: n, what)
        case .maxSendSpeed(let n): try set(CURLOPT_MAX_SEND_SPEED_LARGE, offset: n, what)
        }
    }
}
