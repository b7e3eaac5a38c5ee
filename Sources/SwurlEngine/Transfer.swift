import SwurlCurl
#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlSecurity
import SwurlCache
import SwurlCore

/// Sends one request with libcurl's easy interface, streaming the request body through a read
/// callback and the response through header and write callbacks.
///
/// A transfer is one hop: it never follows redirects itself. `Exchange` follows them hop
/// by hop, so it decides methods, bodies and credentials per origin; every hop runs through
/// `configure()` and so gets the same connection and security settings.
package final class Transfer: EasyTransferHandler {
    let request: HTTPRequest
    let options: TransferOptions
    private let delegate: TransferDelegate
    private let handle: EasyHandle?
    /// The libcurl handle of a hop that goes to the network. A hop the cache serves has none,
    /// so a cache hit initialises neither libcurl nor OpenSSL (curl_global_init reads
    /// openssl.cnf and sets up its providers: about 15% of a hit's instructions).
    var easy: EasyHandle {
        guard let handle else { preconditionFailure("internal: a hop the cache serves has no libcurl handle") }
        return handle
    }
    private var bodyReader: RequestBodyReader?
    /// Bytes `bodyReader` gave libcurl (since the last rewind).
    private var bodyBytesRead: Int64 = 0
    /// Runs the security policy inside every TLS handshake of this transfer's handle.
    private var verifier: HandshakeVerifier?
    /// Credentials libcurl answers a Digest challenge with; only for the origin they belong to.
    let digestCredentials: Credentials?
    /// Called from the progress callback with bytes moved so far (at most as often as libcurl
    /// calls it, about once a second when idle and on every chunk otherwise).
    var progressHandler: ((TransferProgress) -> Void)?
    /// Whether a recorder sees the request as sent (the debug callback runs even when nothing
    /// prints the request; the printer still gets it only with `options.captureRequest`).
    var recordsRequest = false
    /// Where the rebuilt head's header lines are remembered (`SentRequestHead`).
    var sentHeadMemo: SentHeadMemo?
    /// The request head as libcurl sends it, rebuilt (`SentRequestHead`) instead of the debug
    /// callback for a recorder alone; nil once the hop ended unless it went out as rebuilt
    /// (the exchange hands it to the recorder with the hop's end: `HopEnd.rebuiltHead`).
    private(set) var rebuiltHead: RebuiltRequestHead?
    /// The rebuilt head as configured, before the hop ended.
    private var plannedHead: RebuiltRequestHead?
    /// The request URL's scheme, lower-cased, when the session has parsed the URL already.
    var routeScheme: String?
    /// Whether the last failure is one a retry may cure (connection refused or reset, timeout).
    package private(set) var failureIsTransient = false
    private var headerCount = 0
    private var headerBytes = 0
    /// The bytes of the head being read, every line with its line end, and of the response's
    /// own head (the last final one, or a 1xx that came alone): HAR's `headersSize`. libcurl's
    /// CURLINFO_HEADER_SIZE also counts a proxy's answer to CONNECT and the heads before.
    private var headWireBytes = 0
    private var answerHeadBytes = 0
    /// The header lines without an empty Cookie item's, while the engine has no cookie for the
    /// hop: sent instead once it has one when the request goes out (`easyWillSendRequest`).
    private var linesWithoutEmptyCookie: [String]?
    /// Whether the last status line was an interim one (1xx but 101): the final head's size
    /// counts the interim heads before it, so a flood of them meets the same limit.
    private var afterInterim = false
    /// Whether an interim head came before the one being read (for the limit's message).
    private var sawInterim = false
    /// Body bytes delivered to the delegate (libcurl may call the write callback many times
    /// between two progress callbacks, so progress is also reported from here).
    private var receivedBytes: Int64 = 0
    /// Where this response's body starts in the file (a resumed download's 206: its
    /// Content-Range start), for --max-filesize.
    private var receivedBase: Int64 = 0
    /// Whether a 416 said the resumed file is already whole on disk (`announcedTooLarge`).
    private var wholeOnDisk = false
    /// Where this hop's download resumes, when it is one (the exchange has a `ResumeAdapter`;
    /// 0: nothing on disk): a 206 is then the rest of a file on disk, not a range the user asked
    /// for, and a 416 naming that size says the file is whole.
    package var resumedFrom: Int64?
    private lazy var receiveLimiter = options.rateLimitedByLibcurl ? nil : options.maxReceiveRate.map { RateLimiter(bytesPerSecond: $0) }
    private lazy var sendLimiter = options.rateLimitedByLibcurl ? nil : options.maxSendRate.map { RateLimiter(bytesPerSecond: $0) }

    // Callback state.
    private var failure: SwurlError?
    /// The current response head as received: the status line and header lines without their
    /// line endings (folded lines joined to the line before), one after the other.
    private var headBytes: [UInt8] = []
    /// A status line arrived and the blank line ending its head has not (trailer fields after a
    /// chunked body come through the same callback, with no status line and no blank line).
    private var headOpen = false
    /// Where each line of `headBytes` ends.
    private var headLineEnds: [Int] = []
    private var lastHead: HTTPResponseHead?
    private var timedOut = false
    private var lastActivity: Double = 0
    /// Whether a header line arrived since the progress callback last looked.
    private var headerArrived = false
    /// Whether a callback stamped `lastActivity` as it happened since the progress callback last
    /// looked (a body chunk, a body read, a head's end): then that stamp is the latest activity,
    /// and the progress callback, which runs up to a second later outside a batch, leaves it.
    private var stamped = false
    private var lastCounts: (Int64, Int64) = (0, 0)
    /// With a body: when libcurl first asked for its bytes, and when the first response line
    /// came after that (`measuredTiming` takes the first byte's time from them).
    private var bodyAskedAt: Double?
    private var answeredAt: Double?
    /// When the hop was handed to the multi handle, and when its first status line came (a
    /// 1xx's too): `measuredTiming` finds a wait for another transfer's connection from them.
    private var startedAt: Double?
    private var firstLineAt: Double?
    /// When the first body byte came (`pacedAhead`).
    private var firstBodyAt: Double?
    /// A response the cache serves instead of the network.
    let replay: Replay?
    /// The final response's Content-Encoding when it named a coding libcurl cannot decode, so
    /// the body was passed through as received (as curl without --compressed does).
    package private(set) var undecodedEncoding: String?
    /// The response's gzip or deflate coding, undone here instead of by libcurl (`BodyDecoder`:
    /// it tells a compressed body cut short from a whole one), and whether it was given bytes.
    private var bodyDecoder: BodyDecoder?
    private var decoderFed = false
    /// Whether libcurl's decoding is off (for `bodyDecoder`, or a coding passed through as
    /// received), so that a later head of the same transfer switches it on again if it needs it.
    private var libcurlDecodingOff = false

    /// What the cache answers with, without a transfer.
    enum Replay {
        /// A stored response, with the Age to send.
        case entry(CacheStore.Opened, age: Double)
        /// 504 for `--cache-only` / only-if-cached without a usable stored response.
        case gatewayTimeout
    }

    /// - Parameters:
    ///   - share: cookies, DNS and connections shared with the other hops of an exchange.
    ///   - digestCredentials: user and password for a Digest challenge (nil: none).
    package convenience init(request: HTTPRequest, options: TransferOptions, delegate: TransferDelegate,
                            digestCredentials: Credentials? = nil) throws(SwurlError) {
        try self.init(request: request, options: options, delegate: delegate, digestCredentials: digestCredentials, share: nil)
    }

    /// As the public initialiser; `share` is the share the transfer will join (`use(share:)`),
    /// whose spare easy handle it may take (nil: a new one).
    /// `replay`: the cache's answer, served without a libcurl handle (nil: the network).
    init(request: HTTPRequest, options: TransferOptions, delegate: TransferDelegate,
         digestCredentials: Credentials?, share: ShareHandle?, replay: Replay? = nil) throws(SwurlError) {
        self.request = request
        self.options = options
        self.delegate = delegate
        self.digestCredentials = digestCredentials
        self.replay = replay
        // A receive buffer size of its own needs a handle that has never run a transfer: libcurl
        // 7.88 refuses CURLOPT_BUFFERSIZE on one whose buffer an HTTP/2 transfer left (error 43).
        handle = replay == nil ? try EasyHandle(reusingFrom: options.requestedReceiveBufferSize == nil ? share : nil) : nil
    }

    /// Joins the hops of one exchange (cookies, DNS cache, connections).
    func use(share: ShareHandle) throws(SwurlError) {
        try easy.use(share: share)
    }

    /// Runs the transfer to its end.
    /// - Throws: the delegate's own error, or a `SwurlError` for transport, timeout, redirect
    ///   and interruption failures.
    package func perform() throws(SwurlError) -> TransferResult {
        if let replay { starts(); return try run(replay, to: delegate) }
        try begin()
        let rc = withExtendedLifetime(self) { easy.perform(handler: self) }
        return try end(rc)
    }

    /// Configures the handle for this hop; then either `perform()` runs it on this thread or a
    /// `MultiDriver` adds it to its multi handle, and `end(_:)` judges how it ended. The two
    /// ways share every rule.
    func begin() throws(SwurlError) {
        if replay != nil { starts(); return }
        try configure()
        starts()
    }

    /// The proxy a refused connection went to, named with where it came from: libcurl's message
    /// gives only an address and a port, which reads as the server's.
    static func proxyDown(_ settings: ProxySettings, url: String, message: String) -> String? {
        guard let proxy = settings.proxy(forURL: url) else { return nil }
        // The message names the address it tried: the proxy's host and port, not the server's.
        // (An IPv6 address without its brackets, as libcurl names it.)
        guard let endpoint = try? ProxySettings.endpoint(proxy),
              message.lowercased().containsText("to \(HostName.bare(endpoint.host).lowercased()) port \(endpoint.effectivePort) ") else { return nil }
        return "that is \(settings.named(proxy, forURL: url)); is it running? --proxy '' connects directly"
    }

    /// The error for a transfer that failed at its proxy (down, refusing the tunnel, a name that
    /// does not resolve), naming the proxy and the setting it came from; nil when the failure
    /// is not the proxy's. A request's and `swurl certs`'s.
    /// - Parameters:
    ///   - connectCode: the proxy's answer to CONNECT (CURLINFO_HTTP_CONNECTCODE), 0 for none.
    ///   - credentialsItem: whether a Proxy-Authorization item went with the request; nil where
    ///     no item can be given (`swurl certs`): the hint offers only the proxy's URL.
    static func proxyFailure(_ rc: CurlResult, proxy settings: ProxySettings, url: String, connectCode: Int,
                             credentialsItem: Bool?) -> SwurlError? {
        if rc.couldNotConnect, let hint = Transfer.proxyDown(settings, url: url, message: rc.message) {
            return .transport(rc.message, hint: hint)
        }
        // A proxy that answered CONNECT with an error: libcurl names neither the proxy nor where
        // it came from, and the hint asked whether the server was running.
        if connectCode >= 300, let proxy = settings.proxy(forURL: url) {
            // Credentials given (in the proxy's URL, or an item) and refused are no credentials to give.
            let given = credentialsItem == true || Redactor.userinfoRange(proxy) != nil
            let credentials = connectCode != 407 ? ""
                : given ? (credentialsItem == true ? "it refused the credentials given (in its URL, or the Proxy-Authorization item): check them; "
                                                   : "it refused the credentials given in its URL: check them; ")
                : "it asks for credentials: give them in the proxy's URL, before its host"
                    + (credentialsItem == nil ? "; " : ", or as a Proxy-Authorization item; ")
            return .transport(rc.message, hint: "\(settings.named(proxy, forURL: url)) refused to open the tunnel to the server; \(credentials)--proxy '' connects directly")
        }
        // A proxy that answered CONNECT with no HTTP response, or closed (libcurl: "CONNECT
        // tunnel failed, response 0", "Proxy CONNECT aborted"): the message said nothing of it.
        if connectCode == 0, rc.message.containsText("CONNECT"), let proxy = settings.proxy(forURL: url) {
            return .transport(rc.message, hint: "that is \(settings.named(proxy, forURL: url)), which did not open the tunnel (no HTTP answer to CONNECT); is it an HTTP proxy? --proxy '' connects directly")
        }
        // Which setting named the proxy (a stale http_proxy in the environment, often). libcurl
        // reports a SOCKS proxy's name that did not resolve as the host's.
        if rc.couldNotResolveProxy || rc.couldNotResolve, let proxy = settings.proxy(forURL: url),
           rc.couldNotResolveProxy || (try? ProxySettings.endpoint(proxy)).map({ rc.message.lowercased().hasSuffix("resolve host: " + HostName.bare($0.host).lowercased()) }) == true {
            return .transport(rc.message, hint: "that is \(settings.named(proxy, forURL: url)); check its host name, or --proxy '' connects directly")
        }
        return nil
    }

    /// A `--resolve` entry for the URL's host whose port is another: libcurl uses an entry only
    /// for its own port, and says only that the name did not resolve.
    static func resolveMismatch(_ entries: [String], url: String) -> String? {
        guard !entries.isEmpty, let origin = try? Origin(url: url) else { return nil }
        let ports = entries.compactMap { entry -> String? in
            let parts = entry.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            // libcurl's `+host` (a timeout form) names the host too, and `*` every host.
            let host = parts.first.map { $0.hasPrefix("+") ? $0.dropFirst() : $0 }?.lowercased()
            guard parts.count == 3, host == "*" || host == origin.host, String(parts[1]) != String(origin.port) else { return nil }
            return String(parts[1])
        }
        guard let port = ports.first else { return nil }
        return "--resolve names \(origin.host) for port \(port), and the URL's port is \(origin.port): an entry holds for its own port only"
    }

    /// The hop starts now: the stall timeout counts from here (called again for a hop that was
    /// configured ahead of time, when it really starts).
    func starts() {
        lastActivity = Transfer.now()
        startedAt = lastActivity
    }

    /// The hop's result from how libcurl ended it.
    /// - Throws: as `perform()`.
    func end(_ rc: CurlResult) throws(SwurlError) -> TransferResult {
        passGathered()
        checkRebuiltHead()
        if var trust = verifier?.failure {
            // `swurl certs` reaches the server this request reached only with the same routing,
            // and judges its chain as the request did only with the same trust (without them
            // it offers `-k` and a leaf pin, weaker than the CA and pin the request had).
            let security = options.security
            trust.routing = [options.resolve.isEmpty ? nil : "--resolve", options.proxy.explicit == nil ? nil : "--proxy",
                             options.unixSocket == nil ? nil : "--unix-socket", security.caFile == nil ? nil : "--cacert",
                             security.caPath == nil ? nil : "--capath", security.addedCertificates.isEmpty ? nil : "--cacert-add",
                             security.pinnedCertificates.isEmpty ? nil : "--pin-cert"].compactMap { $0 }
            throw trust.error
        }
        if let failure { throw failure }
        if Interrupt.requested { throw .interrupted }
        failureIsTransient = rc.isTransient || timedOut
        if timedOut || rc.timedOut {
            if !timedOut, let c = options.connectTimeout, options.timeout == nil || easy.responseCode == 0 {
                throw .timedOut("timed out after \(Transfer.seconds(c)) connecting (\(rc.message))")
            }
            // Our own stall check aborts from the progress callback: libcurl's "Callback aborted"
            // says nothing to the user.
            let why = timedOut ? "" : " (\(rc.message))"
            // Neither option given: libcurl's own connect timeout (300 s) ended it.
            guard let limit = options.timeout else {
                throw .timedOut("timed out connecting, after libcurl's default of 300 seconds; --connect-timeout SECONDS sets it (\(rc.message))")
            }
            // Stalled before the connection was made (no connect time): say so, as
            // --connect-timeout's message does, whichever fired first, swurl's stall check or
            // libcurl's connect timeout (--timeout sets both; under load either may win).
            // (A reused connection has no connect time either, but its request went out.)
            if easy.seconds(.connect) == 0 && easy.requestHeadBytes == 0 && options.unixSocket == nil {
                // libcurl 7.88 counts no connect time while a TLS handshake is still going.
                let tls = request.url.utf8.prefix(6).map { $0 | 0x20 }.elementsEqual("https:".utf8)
                throw .timedOut("timed out after \(Transfer.seconds(limit)) connecting: the connection\(tls ? " or its TLS handshake" : "") was not made")
            }
            throw .timedOut("timed out after \(Transfer.seconds(limit)) without data" + why)
        }
        if rc.tooManyRedirects {
            throw .tooManyRedirects("too many redirects (more than \(options.maxRedirects))")
        }
        if !rc.succeeded, rc.couldNotConnect, let path = options.unixSocket { throw Transfer.unixSocketFailure(path) }
        if !rc.succeeded, let failure = Transfer.proxyFailure(rc, proxy: options.proxy, url: request.url, connectCode: easy.connectCode,
                                                              credentialsItem: request.headers.contains("Proxy-Authorization")) {
            throw failure
        }
        // HTTP/2 without negotiation to a server that speaks HTTP/1 alone gets nothing back;
        // HTTP/1 (or an upgrade) to a port that speaks HTTP/2 alone gets frames, no status line.
        if !rc.succeeded, rc.gotNothing, options.httpVersion == .http2PriorKnowledge {
            throw .transport(rc.message, hint: "the server may not speak HTTP/2 without negotiation: drop --http2-prior-knowledge (--http2 asks for it)")
        }
        // Through an HTTP proxy, a plain-http request's answer is the proxy's: its own, or the
        // server's it passed on. (An https request's is the server's, through the tunnel; a
        // SOCKS proxy's too.)
        // (Looked up for a failed hop alone: every batch line ends here.)
        let viaProxy = !rc.succeeded && options.unixSocket == nil && !request.url.lowercased().hasPrefix("https:")
            ? options.proxy.httpProxy(forURL: request.url).map { options.proxy.named($0, forURL: request.url) } : nil
        if !rc.succeeded, rc.noStatusLine, options.httpVersion != .http2PriorKnowledge, !request.url.lowercased().hasPrefix("https:") {
            throw .transport("the server answered without an HTTP status line (HTTP/0.9), which swurl does not accept",
                             hint: viaProxy.map { "the answer came through \($0): the proxy's, or the server's behind it; --proxy '' connects directly" }
                                 ?? "the server did not answer in HTTP/1; if the port speaks HTTP/2 alone (h2c), use --http2-prior-knowledge")
        }
        if !rc.succeeded, rc.gotNothing, let viaProxy {
            throw .transport(rc.message, hint: "the request went through \(viaProxy): the proxy, or the server behind it, closed without an answer; --proxy '' connects directly")
        }
        if !rc.succeeded, rc.couldNotResolve, let hint = Transfer.resolveMismatch(options.resolve, url: request.url) {
            throw .transport(rc.message, hint: hint)
        }
        // swurl's own writes report their failure (`failure`, above): a write error left is
        // libcurl's decoder refusing bytes after the end of the compressed data (gzip members
        // one after another, which libcurl 7.88 does not decode, or trailing bytes). Its words
        // ("Failed writing received data to disk") would send the user to check the disk.
        if !rc.succeeded, rc.writeFailed, decodedABody, let coding = lastHead?.headers.combined("Content-Encoding") {
            let why = coding.lowercased().containsText("gzip") ? "several gzip members one after another, or stray bytes" : "stray bytes"
            throw .transport("the response body (Content-Encoding: \(TerminalSanitizer.excerpt(coding.trimmingSpaces()))) could not be decoded: bytes follow the end of its compressed data (\(why)), and libcurl decodes only the first",
                             hint: "save the bytes as sent with -d -o FILE")
        }
        if !rc.succeeded {
            let error = rc.error
            throw verifier?.explain(rc, error, answered: firstLineAt != nil) ?? error
        }
        // A status line and maybe some fields, then the end of the connection: libcurl calls that
        // a success, with no head and no body (a 500 would pass --check-status as nothing).
        if headOpen {
            failureIsTransient = true
            throw .transport("the server closed the connection before the end of the response head")
        }
        // A compressed body whose data stopped before its end: the connection closed mid-body
        // (the end of a body without Content-Length), or the server sent it short. libcurl sees
        // a whole body; what came is a piece of the document.
        if let decoder = bodyDecoder, decoderFed, !decoder.ended {
            failureIsTransient = true
            throw .transport("the response body (Content-Encoding: \(TerminalSanitizer.excerpt(decoder.codings))) ended before the end of its compressed data: it was cut short",
                             hint: "the connection closed early, or the server sent the body short; try again")
        }
        return TransferResult(head: lastHead, effectiveURL: easy.effectiveURL,
                              redirectCount: easy.redirectCount,
                              // libcurl 7.88 squashes the target's dot segments under
                              // CURLOPT_PATH_AS_IS too; curl -L --path-as-is keeps them.
                              redirectURL: request.pathAsIs
                                  ? lastHead.flatMap { $0.status / 100 == 3 ? $0.headers["Location"] : nil }
                                      .flatMap { CurlURL.resolveRedirect($0, against: request.url, pathAsIs: true) }
                                  : easy.redirectURL,
                              timing: measuredTiming)
    }

    /// libcurl's counters for the hop that ran, and the body bytes read for it.
    var measuredTiming: TransferTiming {
        var timing = TransferTiming(easy)
        timing.bodyBytesRead = bodyBytesRead
        timing.responseHeadBytes = Int64(answerHeadBytes)
        // With a body, libcurl 7.88 sets CURLINFO_STARTTRANSFER when the upload starts, so the
        // server's think time counted as transfer (--timing, a batch's time_first_byte, the
        // report's and HAR's wait): the first byte is then when the ready connection started
        // sending plus the time from the body's first read to the response's first line. (A
        // libcurl that counts it right already gives at least that.)
        if let asked = bodyAskedAt, let answered = answeredAt {
            timing.startTransfer = min(timing.total, max(timing.startTransfer, timing.preTransfer + max(0, answered - asked)))
        }
        // A hop that waited for a connection another transfer was still making (HTTP/2, one
        // connection for a batch's lines) leaves libcurl's pending state with its phase counters
        // started over, while CURLINFO_TOTAL counts from the real start: the wait came out as
        // receiving, and the first byte too early. On a connection it did not make, the first
        // line's time from when the hop was handed over puts that wait before sending, where
        // HAR's `blocked` has it (libcurl starts its own clock a moment after: that moment
        // queued too, and no line's first byte comes before the connection it waited for).
        if timing.newConnections == 0, timing.startTransfer > 0, let first = firstLineAt, let started = startedAt {
            let wait = (first - started) - timing.startTransfer
            if wait > 0 {
                timing.preTransfer = min(timing.total, timing.preTransfer + wait)
                timing.startTransfer = min(timing.total, timing.startTransfer + wait)
            }
        }
        return timing
    }

    /// Feeds a cached response to `delegate` as the network would: the head, then the body in
    /// chunks; no request goes out.
    func run(_ replay: Replay, to delegate: TransferDelegate) throws(SwurlError) -> TransferResult {
        let started = Transfer.now()
        let head: HTTPResponseHead
        var bytes: Int64 = 0
        do {
            switch replay {
            case .entry(let opened, let age):
                head = HopCache.servedHead(opened.entry, age: age)
                // The stored fields, as the network sent them (the Age is swurl's own).
                try Transfer.checkHeaderCount(opened.entry.head, max: options.maxHeaders)
                try delegate.transferDidReceiveHead(head)
                // --max-filesize judges a stored body as the network's (a download served whole
                // from the cache starts its file over, so the stored length is the file's).
                if let max = options.maxFileSize, head.status >= 200, !head.isRedirect, opened.bodyLength > max {
                    throw Transfer.bodyTooLarge(max)
                }
                if let receiver = delegate as? FileBodyReceiving, try opened.offerBody(to: receiver) {
                    bytes = opened.bodyLength
                } else {
                    try opened.streamBody { chunk in
                        try delegate.transferDidReceiveBody(chunk)
                        bytes += Int64(chunk.count)
                    }
                }
            case .gatewayTimeout:
                head = HopCache.gatewayTimeoutHead
                try delegate.transferDidReceiveHead(head)
            }
        } catch let e as SwurlError { throw e } catch { throw .output("\(error)") }
        var timing = TransferTiming()
        timing.total = Transfer.now() - started
        timing.startTransfer = 0
        timing.downloadedBytes = bytes
        let redirect = head.headers["Location"].flatMap { CurlURL.resolveRedirect($0, against: request.url, pathAsIs: request.pathAsIs) }
        return TransferResult(head: head, effectiveURL: request.url, redirectCount: 0, redirectURL: redirect, timing: timing)
    }

    /// Whether the hop is served by the cache (no handle runs).
    var isReplay: Bool { replay != nil }
    /// Whether the response is a stored one the cache serves (not a 504 made for `--cache-only`).
    var servesStoredResponse: Bool {
        if case .entry = replay { return true }
        return false
    }

    /// `1 second`, `2 seconds`, `0.5 seconds`: a timeout as the user gave it, for messages.
    static func seconds(_ s: Double) -> String {
        let number = s == s.rounded() && abs(s) < 1e15 ? String(Int(s)) : String(s)
        return number + (number == "1" ? " second" : " seconds")
    }

    static func now() -> Double { MonotonicClock.now() }

    // MARK: - Configuration

    private func configure() throws(SwurlError) {
        try easy.set(.url(request.url), "the URL")
        if request.pathAsIs { try easy.set(.pathAsIs(true)) }
        // libcurl sends a URL's user:password@ (Basic, or Digest with -A digest) decoded.
        if request.url.containsByte(UInt8(ascii: "@")), let parsed = try? CurlURL(parsing: request.url) {
            if let u = parsed.user { try HeaderValue.check(u, "the user name in the URL") }
            if let p = parsed.password { try HeaderValue.check(p, "the password in the URL") }
        }
        try easy.set(.noSignal(true))
        if options.contentCoding.libcurlDecodes { try easy.set(.acceptEncoding(""), "Accept-Encoding") }
        try easy.set(.protocols("http,https"), "the protocol list")
        try easy.set(.redirectProtocols("http,https"), "the redirect protocol list")
        // Redirects are followed hop by hop by Exchange, never by libcurl.
        try easy.set(.followLocation(false))
        try configureConnection()
        var lines = try headerLines()
        // A Proxy-Authorization item is for the proxy when there is one: on its CONNECT for an
        // https URL (as a header for the server it went inside the tunnel, to the origin).
        // Not when the request goes direct (NO_PROXY, `--proxy ''`) or through SOCKS: then it is
        // the server's, as without any proxy (and as --offline shows it).
        if !options.proxy.isEmpty, request.headers.contains("Proxy-Authorization"),
           options.unixSocket == nil, options.proxy.httpProxy(forURL: request.url) != nil {
            let forProxy = lines.filter { Transfer.isProxyAuthorization($0) }
            lines.removeAll { Transfer.isProxyAuthorization($0) }
            try easy.set(.proxyHeaders(forProxy), "the proxy's headers")
        }
        // A Cookie item and the cookie engine's cookies go in one Cookie line (RFC 6265 §5.4):
        // libcurl joins CURLOPT_COOKIE to its engine's line; as a header of its own the item was
        // a second line.
        let cookieItems = Transfer.cookieItemValues(request.headers)
        if !cookieItems.isEmpty {
            // Every Cookie line goes (`Cookie;` and `Cookie:` too: the items win): libcurl leaves
            // CURLOPT_COOKIE out while a Cookie header of the user's is there.
            lines.removeAll { Transfer.isHeader($0, named: "cookie") }
            try easy.set(.cookies(cookieItems.joined(separator: "; ")), "the Cookie item")
        } else if request.headers.contains("Cookie") {
            // An empty `Cookie;` beside cookies of the engine's for this hop: the engine's line
            // is the one Cookie line (it was a second, empty one). Decided again as the request
            // goes out (`easyWillSendRequest`): a batch line is set up ahead, and a cookie
            // another line receives meanwhile is in the engine's line.
            let without = lines.filter { !Transfer.isHeader($0, named: "cookie") }
            if !easy.holdsNoCookies, engineCookieValue() != nil {
                lines = without
            } else {
                linesWithoutEmptyCookie = without
                try easy.registerPrerequestCallback()
            }
        }
        try easy.set(.headers(lines))
        verifier = try easy.applySecurity(options.security)
        verifier?.clientCertificateWithheld = options.clientCertificateWithheld
        verifier?.onVerified = { [weak self] summary in self?.delegate.transferDidVerifyTLS(summary) }

        let method = request.method
        if let body = request.body {
            bodyReader = body.makeReader()
            try easy.set(.post(true))
            let chunked = request.isChunked
            try easy.set(.postFieldSize(chunked ? -1 : (body.length ?? -1)))
            try easy.registerUploadCallbacks()
            if method != .post { try easy.set(.customRequest(method.rawValue), "the method") }
        } else if method == .head {
            try easy.set(.noBody(true))
        } else if method.sendsEmptyLength {
            try easy.set(.post(true))
            try easy.set(.postFieldSize(0))
            if method != .post { try easy.set(.customRequest(method.rawValue), "the method") }
        } else if method != .get {
            try easy.set(.customRequest(method.rawValue), "the method")
        }

        try easy.registerReceiveCallbacks()
        if options.captureRequest {
            try easy.registerDebugCallback()
        } else if recordsRequest {
            planHead(lines)
            if plannedHead == nil { try easy.registerDebugCallback() }
        }
    }

    /// Keeps the rebuilt head when libcurl sent exactly that many head bytes
    /// (CURLINFO_REQUEST_SIZE), or a multiple of them (the same head again on a fresh
    /// connection) while the cookie jar is still empty. A batch's jar is shared, and a line is
    /// set up ahead of time: a cookie another line received meanwhile makes libcurl's engine add
    /// a `Cookie:` line; the head is kept with the line those cookies make
    /// (`EngineCookieHeader`) when that accounts for the bytes sent. Else, or when nothing went
    /// out, the head is not known and none is kept. On a reused connection whose last answer
    /// was HTTP/1.0 the request line said HTTP/1.0 (libcurl's `Curl_use_http_1_1plus`): the memo
    /// keeps which connections those are, for every hop recorded.
    private func checkRebuiltHead() {
        rebuiltHead = nil
        let sent = easy.requestHeadBytes
        var askedIn10 = false
        if let memo = sentHeadMemo, sent > 0 {
            let port = easy.localPort
            askedIn10 = easy.newConnections == 0 && memo.http10Connections.contains(port)
            if easy.httpVersion == "1.0" {
                memo.http10Connections.insert(port)
            } else if !memo.http10Connections.isEmpty {
                memo.http10Connections.remove(port)
            }
        }
        guard var head = plannedHead else { return }
        plannedHead = nil
        guard sent > 0, head.count > 0 else { return }
        if sent != head.count && !(sent % head.count == 0 && easy.holdsNoCookies) {
            guard sent > head.count, let value = engineCookieValue() else { return }
            let withCookie = head.adding(cookie: value)
            guard withCookie.count == sent else { return }
            head = withCookie
        }
        head.http10 = askedIn10
        rebuiltHead = head
    }

    /// The value of the `Cookie` line libcurl's engine puts on this hop for the cookies it holds
    /// now (`EngineCookieHeader`), nil when none applies.
    private func engineCookieValue() -> String? {
        (try? EngineCookieHeader.value(for: request, cookies: easy.cookieList.compactMap(SessionCookie.init(netscapeLine:)))) ?? nil
    }

    /// Whether `head` announces a body over --max-filesize (a download's 206 counting from its
    /// start); sets where this response's body starts in the file.
    private func announcedTooLarge(_ head: HTTPResponseHead) -> Bool {
        guard let max = options.maxFileSize, head.status >= 200, !head.isRedirect else { return false }
        // No body follows a HEAD's answer, a 204 or a 304, whatever length they name (RFC 9110 §8.6).
        if request.method == .head || head.status == 204 || head.status == 304 { return false }
        // A 416 to a resumed download that names the size on disk says the file is complete
        // (`DownloadFile`): it is judged as the whole file it is.
        if let offset = resumedFrom, head.status == 416,
           let total = ContentRange.completedTotal(head.headers["Content-Range"], offset: offset), total > max {
            receivedBase = total
            wholeOnDisk = true
            return true
        }
        // The bytes on disk, not the server's start: a 206 starting elsewhere is the wrong range,
        // which the download refuses (`DownloadFile`) in its own words; no size is judged then.
        receivedBase = head.status == 206 ? resumedFrom ?? 0 : 0
        if head.status == 206, let offset = resumedFrom, ContentRange.parse(head.headers["Content-Range"])?.start != offset { return false }
        // A decoded body's length is not the one announced; a body kept as sent (a download) or
        // named `identity` is.
        if options.contentCoding.libcurlDecodes, let coding = head.headers.combined("Content-Encoding"),
           !HTTPHeaders.codings(coding).isEmpty { return false }
        guard let length = head.contentLength else { return false }
        return Transfer.passes(max, receivedBase, length)
    }

    /// Whether `a + b + c` is more than `max`; a sum past Int64 is (the range's start and the
    /// length are the server's numbers).
    static func passes(_ max: Int64, _ a: Int64, _ b: Int64, _ c: Int64 = 0) -> Bool {
        let (ab, first) = a.addingReportingOverflow(b)
        let (sum, second) = ab.addingReportingOverflow(c)
        return first || second || sum > max
    }

    /// A connection to `--unix-socket PATH` that failed: libcurl's message names the URL's host
    /// and port, which the socket replaced.
    static func unixSocketFailure(_ path: String) -> SwurlError {
        var st = stat()
        let found = stat(ArgumentBytes.path(path), &st) == 0
        if found && st.st_mode & S_IFMT != S_IFSOCK {
            let kind = st.st_mode & S_IFMT
            let what = kind == S_IFDIR ? "a directory" : kind == S_IFIFO ? "a FIFO" : kind == S_IFCHR || kind == S_IFBLK ? "a device" : "a file"
            return .transport("cannot connect to the Unix socket '\(TerminalSanitizer.clean(path))': it is \(what), not a socket",
                              hint: "--unix-socket names the socket the server listens on")
        }
        let reason = found ? "nothing is listening there" : systemErrorMessage(errno)
        return .transport("cannot connect to the Unix socket '\(TerminalSanitizer.clean(path))': \(reason)", hint: "is the server running on that socket?")
    }

    /// Whether libcurl decoded the response's Content-Encoding (one it knows, not `identity`,
    /// not passed through as received).
    private var decodedABody: Bool {
        guard options.contentCoding.libcurlDecodes, undecodedEncoding == nil,
              let coding = lastHead?.headers.combined("Content-Encoding") else { return false }
        return !HTTPHeaders.codings(coding).isEmpty
    }

    /// The --max-filesize failure, saying so when the bytes already on disk count.
    func tooLarge(_ max: Int64) -> SwurlError {
        if wholeOnDisk || receivedBase > 0 {
            let what = wholeOnDisk ? "the file, already whole on disk (\(receivedBase) bytes), is larger than --max-filesize \(max) bytes"
                : "the file (\(receivedBase) bytes of it already on disk) would be larger than --max-filesize \(max) bytes"
            return .responseRejected(what, hint: "raise --max-filesize if the size is expected")
        }
        return Transfer.bodyTooLarge(max, decoded: decodedABody)
    }

    /// `--max-headers`: the network's head is counted line by line; a stored head the cache
    /// serves (a hit, or merged with a 304) is held to the same limit.
    static func tooManyHeaders(_ max: Int) -> SwurlError {
        .transport("the response has more than \(max) header fields", hint: "raise the limit with --max-headers N (0 means no limit)")
    }

    static func checkHeaderCount(_ head: HTTPResponseHead, max: Int) throws(SwurlError) {
        if max > 0 && head.headers.fields.count > max { throw tooManyHeaders(max) }
    }

    /// The --max-filesize failure of a response body (also one the cache serves).
    static func bodyTooLarge(_ max: Int64, decoded: Bool = false) -> SwurlError {
        .responseRejected("the response body is larger than --max-filesize \(max) bytes" + (decoded ? " (after decoding)" : ""),
                          hint: "raise --max-filesize if the size is expected")
    }

    /// Whether a header line is `Proxy-Authorization` (any case).
    static func isProxyAuthorization(_ line: String) -> Bool { isHeader(line, named: "proxy-authorization") }

    /// Whether a header line (`Name: value`, `Name;`, `Name:`) names `name` (lower case), its
    /// name compared as `SentRequestHead` compares them (`Redactor.isASCII`).
    static func isHeader(_ line: String, named name: StaticString) -> Bool {
        var line = line
        return line.withUTF8 { b in
            let n = name.utf8CodeUnitCount
            guard b.count > n, b[n] == UInt8(ascii: ":") || b[n] == UInt8(ascii: ";") else { return false }
            return Redactor.isASCII(UnsafeBufferPointer(rebasing: b[..<n]), named: name)
        }
    }

    /// The values of the request's non-empty `Cookie` fields (items), in order.
    package static func cookieItemValues(_ headers: HTTPHeaders) -> [String] {
        guard headers.contains("Cookie") else { return [] }
        return headers.values("Cookie").filter { !$0.isEmpty }
    }

    /// The CURLOPT_HTTPHEADER lines: our headers in order, `Name;` for empty values, `Name:`
    /// for removed ones (which also suppresses libcurl's defaults such as Accept and Expect).
    /// - Throws: `SwurlError.usage` for a field that would break its line (the last guard: every
    ///   source of headers checks its own values with `HeaderValue` and a better label first).
    private func headerLines() throws(SwurlError) -> [String] {
        var lines: [String] = []
        lines.reserveCapacity(request.headers.fields.count + request.removedHeaders.count + 2)
        for field in request.headers {
            try HeaderValue.check(field.name, "the header name '\(field.name)'")
            try HeaderValue.check(field.value, "the \(field.name) header")
            // One string of the right size, not one per `+`.
            var line = ""
            line.reserveCapacity(field.name.utf8.count + field.value.utf8.count + 2)
            line += field.name
            line += field.value.isEmpty ? ";" : ": "
            line += field.value
            lines.append(line)
        }
        for name in request.removedHeaders { lines.append("\(name):") }
        // libcurl adds `Expect: 100-continue` to large uploads and then waits for an answer
        // some servers never send; HTTPie never sends it. An explicit Expect item wins.
        if !request.headers.contains("Expect") && !request.isRemoved("Expect") { lines.append("Expect:") }
        // libcurl gives a body without a Content-Type, and a POST, PUT or PATCH without a body
        // (sent with CURLOPT_POST), `application/x-www-form-urlencoded`: the request swurl shows
        // (`--offline`, `--curl`) has none, so neither does the one it sends.
        if (request.body != nil || request.method.sendsEmptyLength) && !request.headers.contains("Content-Type") && !request.isRemoved("Content-Type") {
            lines.append("Content-Type:")
        }
        return lines
    }

    // MARK: - Callbacks (EasyTransferHandler)

    private func fail(_ error: SwurlError) {
        if failure == nil { failure = error }
    }

    package func easyReadBody(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        guard let reader = bodyReader else { return 0 }
        if bodyAskedAt == nil { bodyAskedAt = Transfer.now() }
        do {
            // Under --limit-rate a tenth of a second's bytes at a time: a whole 64 KiB buffer
            // held back until the rate allowed it went out in one burst after a silence the
            // server's body timeout could end (64 s at 1K), where curl sends a steady stream.
            let n = try reader.read(into: sendLimiter.map { UnsafeMutableRawBufferPointer(rebasing: buffer.prefix($0.slice)) } ?? buffer)
            if n > 0 {
                bodyBytesRead += Int64(n)
                sendLimiter?.account(n)
                lastActivity = Transfer.now()
                stamped = true
            }
            return n
        } catch {
            fail(error as? SwurlError ?? .transport("reading the request body failed"))
            return nil
        }
    }

    package func easyRewindBody() -> Bool {
        guard let body = request.body, body.isRewindable else { return false }
        // libcurl sends it again within the transfer (a Digest round, a closed connection): a
        // body file rewritten meanwhile is refused, as for a retry. (Not before the first read:
        // a growing file goes as its measured start the first time.)
        if bodyAskedAt != nil {
            do { try body.checkFileSizes() } catch {
                fail(error)
                return false
            }
        }
        bodyReader = body.makeReader()
        bodyBytesRead = 0
        return true
    }

    /// The head the hop's record shows, rebuilt from its parts (`SentRequestHead.rebuild`).
    private func planHead(_ lines: [String]) {
        plannedHead = SentRequestHead.rebuild(request, lines: lines, options: options, digest: digestCredentials != nil,
                                              acceptEncoding: options.contentCoding.libcurlDecodes ? ContentCoding.decodable : nil,
                                              cookiesPossible: !Transfer.cookieItemValues(request.headers).isEmpty || !easy.holdsNoCookies,
                                              memo: sentHeadMemo)
    }

    package func easyWillSendRequest() -> Bool {
        // An empty Cookie item, and the engine holds cookies for the hop now (`configure`).
        if let without = linesWithoutEmptyCookie, !easy.holdsNoCookies, engineCookieValue() != nil {
            linesWithoutEmptyCookie = nil
            do { try easy.set(.headers(without)) } catch {
                fail(error)
                return false
            }
            if plannedHead != nil { planHead(without) }
        }
        // libcurl 7.88 sends a request again on a fresh connection (an HTTP/2 stream the server
        // refused, a reused connection found dead) without a seek when none of the body had left
        // yet: what it had read went with the old attempt, and the body went out short by up to
        // 64 KiB under its full Content-Length. Every request starts at the body's start.
        guard bodyBytesRead > 0 else { return true }
        if easyRewindBody() { return true }
        fail(.transport("libcurl sent the request again (the server refused it or closed the connection) and the body, read once from stdin or a pipe, cannot be sent again",
                        hint: "save the body to a file and send that (@FILE)"))
        return false
    }

    /// Small pieces of the body held to go on together (`gathered`).
    private var gatheredBytes: [UInt8] = []
    /// A piece up to this size waits for the next ones: libcurl hands a chunked body over chunk
    /// by chunk, and a server's 1-byte chunks made a write(2) (and a pass through every
    /// consumer) each: 20 MB took 19 s where curl takes 1.
    static let gatherBelow = 4096
    static let gatheredMost = 64 * 1024

    package func easyDidReceiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        if bytes.count < Transfer.gatherBelow {
            if gatheredBytes.count + bytes.count > Transfer.gatheredMost, !passGathered() { return 0 }
            gatheredBytes.append(contentsOf: bytes)
            return bytes.count
        }
        guard passGathered() else { return 0 }
        return receive(bytes) ? bytes.count : 0
    }

    /// Hands the gathered pieces on, as one: when a larger piece comes, when they fill the
    /// block, and when libcurl has read what the socket had (its progress call after each
    /// read, so a stream's events are not held), a head or trailer comes, or the hop ends.
    /// - Returns: false when that failed (the failure is kept).
    @discardableResult
    private func passGathered() -> Bool {
        guard !gatheredBytes.isEmpty else { return true }
        defer { gatheredBytes.removeAll(keepingCapacity: true) }
        return gatheredBytes.withUnsafeBytes { receive($0) }
    }

    /// The body's bytes, decoded, to the delegate; false when that failed (the failure is kept).
    private func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        do {
            if let bodyDecoder {
                decoderFed = decoderFed || !bytes.isEmpty
                try bodyDecoder.decode(bytes) { try deliver($0) }
            } else {
                try deliver(bytes)
            }
            return true
        } catch let e as SwurlError {
            fail(e)
        } catch {
            fail(.output("\(error)"))
        }
        return false
    }

    /// Body bytes (decoded) to the delegate, under --max-filesize.
    private func deliver(_ bytes: UnsafeRawBufferPointer) throws {
        // One piece of libcurl's may decode to gigabytes: Ctrl-C is heard between the pieces
        // of 64 KiB it decodes to, not only at libcurl's progress calls.
        if Interrupt.requested { throw SwurlError.interrupted }
        if let max = options.maxFileSize, Transfer.passes(max, receivedBase, receivedBytes, Int64(bytes.count)) {
            throw tooLarge(max)
        }
        try delegate.transferDidReceiveBody(bytes)
        receivedBytes += Int64(bytes.count)
        if let progressHandler {
            progressHandler(TransferProgress(downloaded: receivedBytes, downloadTotal: nil, uploaded: lastCounts.1, uploadTotal: nil))
        }
        receiveLimiter?.account(bytes.count)
        lastActivity = Transfer.now()
        if firstBodyAt == nil { firstBodyAt = lastActivity }
        stamped = true
    }

    package func easyDidReceiveHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Int {
        // The body before it (a trailer's, an earlier response's in the same transfer) goes first.
        guard passGathered() else { return 0 }
        // A head that trickles in is data moving: the stall check (--timeout) sees it.
        headerArrived = true
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D { end -= 1 }
        // The line stays bytes: the fields are made from them once, when the head is complete.
        let line = UnsafeRawBufferPointer(rebasing: bytes[0..<end])
        let isStatusLine = Transfer.isStatusLine(line)
        if isStatusLine, bodyAskedAt != nil, answeredAt == nil, !Transfer.isInterim(line) { answeredAt = Transfer.now() }
        if isStatusLine, firstLineAt == nil { firstLineAt = Transfer.now() }
        if isStatusLine {
            headerCount = 0
            if !afterInterim { headerBytes = 0 }
            sawInterim = afterInterim
            afterInterim = Transfer.isInterim(line)
            headerBytes += bytes.count
            headWireBytes = bytes.count
        } else {
            // (A trailer's lines come after the head closed: no part of it.)
            if headOpen { headWireBytes += bytes.count }
            if end > 0 {
                // A cap on header count and size (a header flood must not exhaust memory, CVE-2023-38039).
                headerCount += 1
                headerBytes += bytes.count
                if options.maxHeaders > 0 && headerCount > options.maxHeaders {
                    fail(Transfer.tooManyHeaders(options.maxHeaders))
                    return 0
                }
            }
        }
        if headerBytes > options.maxHeaderBytes {
            fail(.transport("the response head is larger than \(options.maxHeaderBytes / 1024) KiB"
                            + (afterInterim || sawInterim ? " (with the interim 1xx heads before it)" : "")))
            return 0
        }
        if end == 0 {
            headOpen = false
            // The stall check counts from the head's end, now, not from when the progress
            // callback next runs (up to a second later outside a batch): `stamped`.
            lastActivity = Transfer.now()
            stamped = true
            if let head = HTTPResponseHead(bytes: headBytes, lineEnds: headLineEnds) {
                lastHead = head
                if head.status >= 200 || head.status == 101 || answerHeadBytes == 0 { answerHeadBytes = headWireBytes }
                // A body framed by no one length is refused in every door before a byte of it
                // (libcurl would read one of the lengths; the cache could store the cut).
                if head.status >= 200, head.status != 204, head.status != 304, request.method != .head,
                   let framing = head.contentLengthError {
                    delegate.transferDidRefuseHead(head)
                    fail(.transport(framing, hint: "RFC 9112 §6.3 makes such a response an error; the server's framing needs fixing"))
                    return 0
                }
                passThroughUnknownEncoding(head)
                decodeOwnCoding(head)
                // --max-filesize judges the whole file: a resumed download's body (206) counts from
                // its start; an announced size over the limit is refused before any body byte, and
                // for a download before its file is touched (a 200 would empty a resumed .part).
                let overLimit = announcedTooLarge(head)
                // (A 416 saying the file is whole goes to the delegate first: it touches nothing,
                // and the download then knows the file is no partial one to resume.)
                if overLimit && resumedFrom != nil && !wholeOnDisk {
                    // Recorded (--har) as every door records it, the file untouched.
                    delegate.transferDidRefuseHead(head)
                    fail(tooLarge(options.maxFileSize ?? 0))
                    return 0
                }
                do { try delegate.transferDidReceiveHead(head) } catch {
                    fail(error as? SwurlError ?? .output("\(error)"))
                    return 0
                }
                if overLimit {
                    fail(tooLarge(options.maxFileSize ?? 0))
                    return 0
                }
            } else {
                // A head whose status line libcurl took and swurl cannot read: never a body
                // without its head (it went nowhere, and the run ended 0).
                let first = headLineEnds.first.map { Array(headBytes.prefix($0)) } ?? []
                fail(.transport("the server's status line could not be read: '\(TerminalSanitizer.excerpt(String(decoding: first, as: UTF8.self).trimmingTrailingNewlines()))'",
                                hint: "a status line is HTTP/1.1 CODE REASON, with a three-digit code"))
                return 0
            }
            headBytes.removeAll(keepingCapacity: true)
            headLineEnds.removeAll(keepingCapacity: true)
        } else if isStatusLine {
            headOpen = true
            headBytes.removeAll(keepingCapacity: true)
            headLineEnds.removeAll(keepingCapacity: true)
            headBytes.reserveCapacity(512)
            headLineEnds.reserveCapacity(16)
            headBytes.append(contentsOf: line)
            headLineEnds.append(headBytes.count)
        } else if line[0] == 0x20 || line[0] == 0x09, !headLineEnds.isEmpty {
            // Obsolete line folding: joined to the line before with one space, without the
            // blanks around it (`trimmingSpaces`).
            var start = 0, stop = end
            while start < stop, line[start] == 0x20 || line[start] == 0x09 { start += 1 }
            while stop > start, line[stop - 1] == 0x20 || line[stop - 1] == 0x09 || line[stop - 1] == 0x0D || line[stop - 1] == 0x0A { stop -= 1 }
            headBytes.append(0x20)
            headBytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: line[start..<stop]))
            headLineEnds[headLineEnds.count - 1] = headBytes.count
        } else {
            headBytes.append(contentsOf: line)
            headLineEnds.append(headBytes.count)
        }
        return bytes.count
    }

    /// A final response whose Content-Encoding names a coding libcurl cannot decode: libcurl
    /// would fail on the first body byte ("Unrecognized content encoding"); instead the body is
    /// passed through as received (CURLOPT_HTTP_CONTENT_DECODING off from here, before any body
    /// byte), as curl without --compressed and HTTPie do. The same for a Transfer-Encoding
    /// naming a coding other than chunked that libcurl cannot decode: libcurl runs those through
    /// the same decoders, which the one option turns off; the body is then what the server sent
    /// up to the close (RFC 9112 §6.3), as `curl --raw` shows it.
    /// A download (which keeps the body as stored, decoding no Content-Encoding) gets the same
    /// for a Transfer-Encoding: libcurl undoes that coding for every door.
    private func passThroughUnknownEncoding(_ head: HTTPResponseHead) {
        guard head.status >= 200 else { return }
        // Each final head decides for its own body (a Digest round's 401 may name a coding its
        // answer does not): `decodeOwnCoding` switches libcurl's decoding on again if needed.
        undecodedEncoding = nil
        // Most responses name neither: nothing to work out then.
        let contentEncoding = head.headers.combined("Content-Encoding"), transferEncoding = head.headers.combined("Transfer-Encoding")
        guard contentEncoding != nil || transferEncoding != nil else { return }
        let known = Transfer.decodableCodings
        func unknown(_ value: String, besides: Set<String>) -> Bool {
            HTTPHeaders.codings(value).contains { !known.contains($0) && !besides.contains($0) }
        }
        if options.contentCoding.libcurlDecodes, let coding = contentEncoding, unknown(coding, besides: []) {
            if (try? easy.set(.contentDecoding(false), "Content-Encoding")) != nil { undecodedEncoding = coding }
        } else if let coding = transferEncoding, unknown(coding, besides: ["chunked"]) {
            // The one option turns off the content decoders too: a gzip body stays gzip.
            if (try? easy.set(.contentDecoding(false), "Transfer-Encoding")) != nil {
                undecodedEncoding = [coding, contentEncoding].compactMap { $0 }.joined(separator: ", ")
            }
        }
    }

    /// A response coded with gzip, deflate or zstd is decoded here (`BodyDecoder`), libcurl's
    /// decoding switched off before any body byte as for an unknown coding: libcurl 7.88 cannot
    /// tell such a body cut short from a whole one (and takes any zstd window). br stays
    /// libcurl's; without zlib or libzstd, so do their codings. Set for each final head (a
    /// Digest round's 401 and its answer each have theirs).
    private func decodeOwnCoding(_ head: HTTPResponseHead) {
        guard head.status >= 200, options.contentCoding.libcurlDecodes else { return }
        bodyDecoder = nil
        decoderFed = false
        // A 206 is a range of the coded bytes, which ends no stream (libcurl's as before). A
        // Transfer-Encoding coding besides chunked (`gzip, chunked`) is libcurl's to undo, and
        // switching its decoding off would leave it undone: such a body stays libcurl's.
        if undecodedEncoding == nil, head.status != 206, let coding = head.headers.combined("Content-Encoding"),
           head.headers.combined("Transfer-Encoding").map({ HTTPHeaders.codings($0).allSatisfy { $0 == "chunked" } }) ?? true {
            let list = HTTPHeaders.codings(coding)
            if BodyDecoder.decodes(list), let decoder = BodyDecoder(list, named: coding.trimmingSpaces()),
               (try? easy.set(.contentDecoding(false), "Content-Encoding")) != nil {
                bodyDecoder = decoder
                libcurlDecodingOff = true
                return
            }
        }
        if undecodedEncoding != nil {
            libcurlDecodingOff = true
        } else if libcurlDecodingOff, (try? easy.set(.contentDecoding(true), "Content-Encoding")) != nil {
            // An earlier head of the same transfer (a Digest round's 401) switched it off.
            libcurlDecodingOff = false
        }
    }

    /// The codings a response may name and still be decoded: what the loaded libcurl decodes,
    /// asked of it (the Accept-Encoding may come from the cache's memo, which describes the
    /// libcurl file of an earlier run), `identity`, and `x-gzip` beside `gzip`. Worked out once:
    /// for every response it cost some 20,000 instructions.
    private static let decodableCodings: Set<String> = {
        let decodable = ContentCoding.decodedByLoadedLibcurl
        return Set(decodable.split(separator: ",").map { String($0).trimmingSpaces() } + ["identity"]
                   + (decodable.containsText("gzip") ? ["x-gzip"] : []))
    }()

    /// Whether a status line is a 1xx other than 101 (`100 Continue`, `103 Early Hints`), which
    /// comes before the answer (a server may send a 100 before it reads the body).
    static func isInterim(_ line: UnsafeRawBufferPointer) -> Bool {
        guard let code = HTTPResponseHead.statusCode(line)?.code else { return false }
        return (100...199).contains(code) && code != 101
    }

    /// Whether a head line starts with `HTTP/` as `String.hasPrefix` decides it: by Character,
    /// so a combining mark after the slash makes it no status line.
    static func isStatusLine(_ line: UnsafeRawBufferPointer) -> Bool {
        guard line.count >= 5, line[0] == 0x48, line[1] == 0x54, line[2] == 0x54, line[3] == 0x50, line[4] == 0x2F
        else { return false }
        if line.count == 5 || line[5] < 0x80 { return true }
        return String(decoding: line, as: UTF8.self).hasPrefix("HTTP/")
    }

    package func easyProgress(down: Int64, downTotal: Int64, up: Int64, upTotal: Int64) -> Bool {
        if Interrupt.requested { return false }
        guard passGathered() else { return false }
        progressHandler?(TransferProgress(downloaded: down, downloadTotal: downTotal > 0 ? downTotal : nil,
                                          uploaded: up, uploadTotal: upTotal > 0 ? upTotal : nil))
        let now = Transfer.now()
        if (down, up) != lastCounts || headerArrived {
            lastCounts = (down, up)
            headerArrived = false
            if !stamped { lastActivity = now }
            stamped = false
        } else if let t = options.timeout, now - lastActivity > t, !connectingUnderItsOwnLimit, !pacedAhead(now) {
            timedOut = true
            return false
        }
        return true
    }

    /// Whether libcurl holds the body back for --limit-rate (a batch line: it reads 100 buffers
    /// at once, then waits until the average is back under the rate, seconds at a low rate):
    /// the bytes so far are ahead of the rate's schedule, so the pause is libcurl's, no stall.
    private func pacedAhead(_ now: Double) -> Bool {
        guard options.rateLimitedByLibcurl, let rate = options.maxReceiveRate, let first = firstBodyAt else { return false }
        // The bytes libcurl paces are those on the wire, not the decoded ones (a gzip body's).
        return Double(easy.downloadedBytes) >= (now - first) * Double(rate)
    }

    /// Whether the connection is still being made (TCP, a proxy's tunnel, TLS: nothing ready to
    /// send yet) under a --connect-timeout of its own, which libcurl enforces: --timeout's stall
    /// check waits for the connection (a longer --connect-timeout was cut to --timeout).
    private var connectingUnderItsOwnLimit: Bool {
        options.connectTimeout != nil && firstLineAt == nil && easy.seconds(.preTransfer) == 0
    }

    package func easyDebug(_ kind: EasyDebugKind, _ bytes: UnsafeRawBufferPointer) {
        do {
            switch kind {
            case .headerOut:
                // A tunnel's CONNECT (https through a proxy) is libcurl's, not the request: -v
                // and the HAR show the request that went inside, as HTTPie does.
                if Transfer.isTunnelConnect(bytes) { return }
                try delegate.transferDidSendRequestHead(Array(bytes))
            case .dataOut: try delegate.transferDidSendRequestBody(bytes)
            case .other: break
            }
        } catch {
            fail(error as? SwurlError ?? .output("\(error)"))
        }
    }
}

extension Transfer {
    /// Whether a sent head is a proxy tunnel's CONNECT: its target is an authority
    /// (`CONNECT host:port HTTP/1.1`), where a request with CONNECT as its method names a path
    /// or a URL.
    static func isTunnelConnect(_ head: UnsafeRawBufferPointer) -> Bool {
        let method = "CONNECT ".utf8
        guard head.count > method.count, head.starts(with: method) else { return false }
        for b in head.dropFirst(method.count) {
            if b == UInt8(ascii: " ") || b == UInt8(ascii: "\r") { return true }
            if b == UInt8(ascii: "/") { return false }
        }
        return false
    }
}

extension HTTPResponseHead {
    /// Parses a status line and header lines; nil when the status line is malformed.
    init?(lines: [String]) {
        guard let statusLine = lines.first else { return nil }
        var fields: [HTTPHeaders.Field] = []
        fields.reserveCapacity(lines.count - 1)
        for line in lines.dropFirst() {
            var text = line
            if let field = text.withUTF8({ HTTPResponseHead.field(UnsafeRawBufferPointer($0)) }) { fields.append(field) }
        }
        self.init(statusLine: statusLine, fields: fields)
    }

    /// Parses a head kept as bytes: the status line and header lines one after the other,
    /// `lineEnds` where each ends. The same result as `init(lines:)` with each line decoded as
    /// UTF-8 (invalid bytes repaired; but a field value that is not UTF-8 is read as ISO-8859-1
    /// here): every cut is at an ASCII byte, which repairing never joins.
    init?(bytes: [UInt8], lineEnds: [Int]) {
        guard let first = lineEnds.first, first <= bytes.count else { return nil }
        let parsed: (status: StatusLine, fields: [HTTPHeaders.Field])? = bytes.withUnsafeBytes { b in
            guard let status = StatusLine(UnsafeRawBufferPointer(rebasing: b[..<first])) else { return nil }
            var fields: [HTTPHeaders.Field] = []
            fields.reserveCapacity(lineEnds.count - 1)
            var start = first
            for end in lineEnds.dropFirst() where start <= end && end <= b.count {
                if let field = HTTPResponseHead.field(UnsafeRawBufferPointer(rebasing: b[start..<end])) { fields.append(field) }
                start = end
            }
            return (status, fields)
        }
        guard let parsed else { return nil }
        self.init(version: parsed.status.version, status: parsed.status.code, reason: parsed.status.reason,
                  headers: HTTPHeaders(parsed.fields))
    }

    /// A status line's code found as libcurl finds it (`HTTP/%d.%d%c%3d`), since libcurl goes on
    /// to read the body of what it took: the version up to a blank, blanks, the code's three
    /// digits (a fourth is refused). `HTTP/1.1  500  Error`, `HTTP/1.1 200OK` and
    /// `HTTP/1.1 500<TAB>Error` are 500, 200 and 500 (their heads were dropped as malformed while
    /// libcurl passed their bodies on: nothing shown, exit 0). Stricter than libcurl on the
    /// version: a line libcurl reads leniently (`HTTP/foo`) fails the transfer rather than
    /// passing as a 200.
    /// - Returns: the code, where the version ends and where the code ends; nil for no code.
    static func statusCode(_ b: UnsafeRawBufferPointer) -> (code: Int, versionEnd: Int, codeEnd: Int)? {
        guard let space1 = b.firstIndex(where: { $0 == 0x20 || $0 == 0x09 }) else { return nil }
        var i = space1 + 1
        while i < b.count, b[i] == 0x20 || b[i] == 0x09 { i += 1 }
        var code = 0, digits = 0
        while i < b.count, digits < 3, (0x30...0x39).contains(b[i]) {
            code = code * 10 + Int(b[i] - 0x30)
            digits += 1
            i += 1
        }
        guard digits == 3, i == b.count || !(0x30...0x39).contains(b[i]) else { return nil }
        return (code, space1, i)
    }

    /// A status line split by `statusCode`, the reason without the blanks around it (any bytes,
    /// as UTF-8).
    private struct StatusLine {
        let version: String, code: Int, reason: String

        init?(_ b: UnsafeRawBufferPointer) {
            guard let found = HTTPResponseHead.statusCode(b) else { return nil }
            // `trimmingSpaces`: blanks before, blanks and line ends after.
            var start = found.codeEnd, end = b.count
            while start < end, b[start] == 0x20 || b[start] == 0x09 { start += 1 }
            while end > start, b[end - 1] == 0x20 || b[end - 1] == 0x09 || b[end - 1] == 0x0D || b[end - 1] == 0x0A { end -= 1 }
            version = String(decoding: UnsafeRawBufferPointer(rebasing: b[..<found.versionEnd]), as: UTF8.self)
            code = found.code
            reason = String(decoding: UnsafeRawBufferPointer(rebasing: b[start..<end]), as: UTF8.self)
        }
    }

    private init?(statusLine: String, fields: [HTTPHeaders.Field]) {
        var line = statusLine
        guard let status = line.withUTF8({ StatusLine(UnsafeRawBufferPointer($0)) }) else { return nil }
        self.init(version: status.version, status: status.code, reason: status.reason, headers: HTTPHeaders(fields))
    }

    /// One header line's field; nil without a colon. By bytes, not Characters: ':' followed by
    /// a combining mark is one Character and would hide the header. ':' and the blanks are
    /// ASCII, so every cut is between scalars. A value that is not UTF-8 is read as ISO-8859-1,
    /// HTTP's old charset for field values (a Latin-1 `filename="caf\xE9.txt"` is `café.txt`,
    /// not `caf\u{FFFD}.txt`), as browsers and HTTPie read it.
    private static func field(_ b: UnsafeRawBufferPointer) -> HTTPHeaders.Field? {
        guard let colon = b.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        // The value without leading blanks and trailing blanks and line ends (`trimmingSpaces`).
        var start = colon + 1, end = b.count
        while start < end, b[start] == 0x20 || b[start] == 0x09 { start += 1 }
        while end > start, b[end - 1] == 0x20 || b[end - 1] == 0x09 || b[end - 1] == 0x0D || b[end - 1] == 0x0A { end -= 1 }
        return .init(name: String(decoding: UnsafeRawBufferPointer(rebasing: b[..<colon]), as: UTF8.self),
                     value: fieldValue(UnsafeRawBufferPointer(rebasing: b[start..<end])))
    }

    /// `b` as UTF-8 when it is (ASCII at once), else each byte as the ISO-8859-1 character.
    static func fieldValue(_ b: UnsafeRawBufferPointer) -> String {
        if !b.contains(where: { $0 >= 0x80 }) { return String(decoding: b, as: UTF8.self) }
        if let text = String(validating: b, as: UTF8.self) { return text }
        return String(String.UnicodeScalarView(b.map { Unicode.Scalar($0) }))
    }
}
