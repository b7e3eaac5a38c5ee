import SwurlCurl
import SwurlSecurity
import SwurlCache
#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlCore

/// Runs one exchange: the request, the redirects it leads to (followed hop by hop, each hop a
/// fresh `Transfer` through the same `configure()` path) and the retries its failures allow.
///
/// Credentials are bound to the first URL's origin (scheme, host and port): `Authorization`,
/// `Proxy-Authorization`, `Cookie` and `Host` header items and `--auth` go only to that
/// origin; `.netrc` is looked up again for every hop's host. Cookies set by the servers live
/// in libcurl's cookie engine, shared by the hops, which scopes them to their domain; a
/// session's stored cookies join the engine hop by hop, those of each hop's host (so a redirect
/// to another host of the session gets that host's cookies, as with curl `-b jar -L`).
package final class Exchange {
    package let request: HTTPRequest
    package let options: TransferOptions
    /// Told about retries, progress and finished hops (the engine prints nothing).
    package var observer: TransferObserving?
    /// Sees every hop and attempt as it really went (`--har`), unfiltered; nil: none.
    package var recorder: HopRecording?
    /// Adjusts every attempt's request just before it is sent (a download's `ResumeAdapter`).
    package var adapter: RequestAdapting?
    /// Whether the final delegate can take a response again after a cut (a download resumes);
    /// otherwise a failure after body bytes were delivered is not retried.
    package var delegateCanRestart = false
    /// A new delegate for every hop and attempt (`--all`), instead of one for the exchange.
    package var delegatePerHop = false
    /// With `options.sessionCookies`: every cookie the engine held when the exchange ended
    /// (what was loaded, as the servers changed it), read back with CURLINFO_COOKIELIST; a path
    /// RFC 6265 would not keep (empty, relative, quoted) is replaced by the default path of the
    /// hop whose response set it.
    package private(set) var cookiesAfterExchange: [SessionCookie] = []
    /// Whether a hop's response arrived whole (a redirect's too): its server may have set
    /// cookies, which a session keeps even when a later hop fails.
    package private(set) var answered = false
    /// The exchange failed after a server set a cookie (in a head cut short, say): a session
    /// is saved then too.
    package private(set) var cookiesSetBeforeFailure = false
    /// The names of the cookies the hops' responses set (`Set-Cookie`), also again with the
    /// same value: a session's limits drop them last.
    package private(set) var cookieNamesSet: Set<String> = []
    /// The hosts the hops' URLs named (lower case, without brackets), whose cookies a session keeps.
    private var reachedHosts: Set<String> = []
    /// The keys (`SessionCookie.key`) of the stored cookies handed to the engine: those of the
    /// hosts the exchange reached. `cookiesAfterExchange` replaces these, and only these.
    package private(set) var cookiesHanded: Set<String> = []
    /// The easy handle that holds the session's cookies in the shared jar.
    private var jar: EasyHandle?
    /// Default paths for the cookies with an invalid path, by key, from the hop that set them.
    private var defaultPaths: [String: String] = [:]

    private let makeDelegate: () -> TransferDelegate
    private let initialOrigin: Origin
    /// The first URL, when it carries user info (`http://u:p@host/`): its credentials belong to
    /// its origin, and go with every hop there, also one an absolute Location names without them.
    private let initialURLWithUserInfo: String?
    /// Whether the first request carries an `Authorization` of its own (an item): like `--auth`,
    /// it keeps the netrc passwords of the hosts a redirect reaches from being sent.
    private let initialCarriesAuthorization: Bool
    /// Random numbers for jitter; replaceable in tests.
    var random: () -> Double = { Double.random(in: 0..<1) }

    /// - Parameter makeDelegate: makes the delegate that sees what is sent and received
    ///   (called once, or once per hop with `delegatePerHop`).
    /// - Throws: `SwurlError.usage` when the request's URL is invalid.
    package init(request: HTTPRequest, options: TransferOptions, makeDelegate: @escaping () -> TransferDelegate) throws(SwurlError) {
        self.request = request
        self.options = options
        self.makeDelegate = makeDelegate
        self.initialOrigin = try Origin(url: request.url)
        initialURLWithUserInfo = Exchange.hasUserInfo(request.url) ? request.url : nil
        initialCarriesAuthorization = request.headers.contains("Authorization")
        try Exchange.refusePinOverPlainHTTP(request.url, options.security)
        try Exchange.refuseUnreachableFamily(request.url, options)
    }

    /// `-4`/`-6` that no connection of `options` to `url` can honour (`refuseOtherAddressFamily`,
    /// or with `--unix-socket`), refused before any attempt: for a request and for `swurl certs`
    /// and `swurl reach`, which connect by the same options.
    package static func refuseUnreachableFamily(_ url: String, _ options: TransferOptions) throws(SwurlError) {
        // Through a proxy the proxy reaches the address: -4/-6 then choose how swurl reaches the
        // proxy. (Asked only with -4/-6: a batch line pays for no proxy look-up.)
        if options.ipVersion != .any, options.proxy.proxy(forURL: url) == nil {
            try Exchange.refuseOtherAddressFamily(url, options.ipVersion, resolve: options.resolve)
        }
        if options.unixSocket != nil && options.ipVersion != .any {
            // libcurl then finds no address for the socket, and the message blamed the server.
            throw .usage("-4 and -6 choose an IP version, and --unix-socket connects to no IP address", hint: "drop -4/-6")
        }
    }

    /// `-4` with an IPv6 literal (`http://[::1]/`), or `-6` with an IPv4 one, can reach nothing:
    /// refused before any attempt, which libcurl reports only as "Couldn't connect to server"
    /// (and swurl's hint then asked whether the server was running).
    /// So is a `--resolve` entry for the URL's host and port that holds only addresses of the
    /// other family (libcurl said "Could not resolve host").
    package static func refuseOtherAddressFamily(_ url: String, _ version: IPVersion, resolve: [String] = []) throws(SwurlError) {
        guard version != .any, let origin = try? Origin(url: url) else { return }
        let host = origin.host
        if version == .v4 && HostName.isIPv6Literal(origin.bareHost) {
            throw .usage("-4 (--ipv4) cannot reach the IPv6 address \(host)", hint: "drop -4, or use the host's IPv4 address")
        }
        if version == .v6 && HostName.isIPv4Literal(origin.bareHost) {
            throw .usage("-6 (--ipv6) cannot reach the IPv4 address \(host)", hint: "drop -6, or use the host's IPv6 address")
        }
        guard let addresses = ResolveEntries.addresses(forHost: origin.bareHost, port: origin.port, in: resolve) else { return }
        if !addresses.contains(where: { version == .v4 ? HostName.isIPv4Literal($0) : HostName.isIPv6Literal($0) }) {
            let (flag, family) = version == .v4 ? ("-4", "IPv4") : ("-6", "IPv6")
            throw .usage("\(flag) (--ipv\(version == .v4 ? 4 : 6)) finds no \(family) address in --resolve for \(host):\(origin.port) (\(addresses.joined(separator: ",")))",
                         hint: "drop \(flag), or give the entry an address of that family")
        }
    }

    /// The user name and password a URL's user info gives (percent-decoded), checked as `-a`'s
    /// are: text a header line can carry, in UTF-8 (a Latin-1 `%E9` went out as U+FFFD, a raw
    /// byte as swurl's escape for it). Nil without user info or for a URL that does not parse
    /// (its own error comes elsewhere). `--curl` asks it too, so its command never carries what
    /// swurl would refuse.
    /// - Throws: `SwurlError.usage` naming the part.
    package static func userInfo(of urlText: String) throws(SwurlError) -> (user: String, password: String?)? {
        guard let url = try? CurlURL(parsing: urlText), let user = url.user else { return nil }
        for (part, what) in [(user, "the user name in the URL"), (url.password ?? "", "the password in the URL")] {
            try HeaderValue.check(part, what)
            if ArgumentBytes.hasEscapes(part) {
                throw .usage("\(what) is not valid UTF-8 text", hint: "swurl sends credentials as UTF-8 text")
            }
        }
        return (user, url.password)
    }

    /// A pin is checked in the TLS handshake; plain http has none, so the pin would pass
    /// unchecked and credentials go out in clear (a URL typed without https://). Refused, as a
    /// redirect to http under a pin is, before anything is sent (or exported with `--curl`).
    package static func refusePinOverPlainHTTP(_ url: String, _ security: SecurityPolicy) throws(SwurlError) {
        guard security.hasPins, let origin = try? Origin(url: url), origin.scheme != "https" else { return }
        throw .trust("\(origin) is plain http: the pin (--pin-pubkey, --pin-cert) is checked in a TLS handshake, and there is none",
                     hint: "use the https:// URL (swurl takes a URL without a scheme as http://)")
    }

    /// What an exchange ended with.
    package struct Result {
        /// The final response's head (nil when none arrived).
        package var head: HTTPResponseHead?
        /// The URL of the final hop.
        package var url: String
        /// The method of the final hop (a 303 turns a POST into a GET).
        package var method: String
        package var timing: ExchangeTiming
        /// The delegate of the final hop.
        package var delegate: TransferDelegate
        /// What the cache did for the final hop (nil without `--cache`), as in `timing.cache`.
        package var cache: String? { timing.cache }
        /// The final response's Content-Encoding when libcurl could not decode it and the body
        /// was passed through as received.
        package var undecodedEncoding: String?
    }

    /// Runs the exchange to its end on this thread (curl_easy_perform per hop).
    /// - Throws: the delegates' errors and `SwurlError` for transport, timeout, too many
    ///   redirects (`tooManyRedirects`), a body that cannot be sent again, and interruption.
    package func perform() throws(SwurlError) -> Result {
        do {
            while true {
                let transfer = try beginHop()
                let outcome: Swift.Result<TransferResult, SwurlError>
                do { outcome = .success(try transfer.perform()) } catch { outcome = .failure(error) }
                switch try endHop(transfer, outcome) {
                case .finished(let result): return result
                case .next: continue
                case .retry(let wait): try pause(wait)
                }
            }
        } catch {
            // A failure after a response began (a cut body, a timeout, Ctrl-C) still saves the
            // session: its cookies are what the engine holds now (those handed to it, and any the
            // response set), not none, which would delete the host's stored cookies.
            keepEngineCookies()
            // libcurl's engine takes each Set-Cookie as it arrives: a head cut short after one
            // (a NUL in a later field) still set it, and the session keeps it, as curl's jar does.
            let stored = Dictionary((options.sessionCookies ?? []).map { ($0.key, $0) }, uniquingKeysWith: { _, last in last })
            if cookiesAfterExchange.contains(where: { c in
                guard cookiesHanded.contains(c.key), let before = stored[c.key] else { return true }
                return before.value != c.value || before.expires != c.expires
            }) { cookiesSetBeforeFailure = true }
            throw error
        }
    }

    /// `cookiesAfterExchange` from the engine's list as it is now: the stored cookies handed to
    /// it, and of those the servers set, the ones for a host a hop's URL named. The engine files
    /// a response's cookies under a hand-set `Host` header's name, and a server must not plant
    /// cookies for the host that header names (session fixation; a batch line or REPL request
    /// with its own `Host` gets a jar of its own for the same reason).
    private func keepEngineCookies() {
        guard jar != nil else { return }
        // What the session keeps is the named host's own view: cookies the first origin's
        // server filed under a hand-set `Host` header's name are not (`switchCookieView`).
        do { try switchCookieView(carriesHost: false) } catch {
            // The engine could not be rewritten: the session keeps what it had.
            cookiesAfterExchange = options.sessionCookies ?? []
            return
        }
        let reached = reachedHosts
        cookiesAfterExchange = engineCookiesInCreationOrder().compactMap(\.cookie).filter { c in
            cookiesHanded.contains(c.key) || reached.contains { c.applies(toHost: $0) }
        }.map { c in
            var c = c
            if !c.hasValidPath { c.path = defaultPaths[c.key] ?? "/" }
            return c
        }
    }

    /// What comes after a hop.
    package enum Step {
        /// The exchange ended with this result.
        case finished(Result)
        /// Another hop (a redirect) starts now.
        case next
        /// Another attempt starts after this many seconds (already reported to the observer).
        case retry(Double)
    }

    // The state of the exchange between hops (`beginHop` / `endHop`).
    private var share: ShareHandle?
    /// Whether `share` is this exchange's own (not a batch's): only then is the jar rewritten
    /// between hops (`reorderJar`).
    private var ownsShare = false
    /// Keys (`SessionCookie.key`) of the cookies this exchange's servers set, in the order the
    /// engine first listed them: their creation order.
    private var createdOrder: [String] = []
    /// When the exchange started (monotonic seconds), for `--retry-max-time`; a box, so that the
    /// hop filters made before a prepared first hop starts see `firstHopStarts()` move it.
    private let startTime = StartTime()
    private var start: Double {
        get { startTime.value }
        set { startTime.value = newValue }
    }
    private var current: HTTPRequest?
    private var redirects = 0
    private var retries = 0
    private var redirectTime = 0.0
    /// A retry happened, and the attempt after it has not begun yet (`beginHop` notes its start).
    private var retryPending = false
    /// `ExchangeTiming.retryTime` as of the last attempt's start.
    private var retryTime = 0.0
    /// New connections the hops before the current one opened (`ExchangeTiming.earlierConnections`).
    private var earlierConnections = 0
    private var delegate: TransferDelegate?
    private var pendingHopFinish: TransferDelegate?
    /// The next hop is the request sent again after a 304 that selected no stored response: the
    /// cache adds no validators to it.
    private var unconditionalNext = false
    private var hop: (request: HTTPRequest, filter: HopFilter, canRetry: Bool, cache: HopCache?, tap: HopTap?)?

    /// Shares cookies, DNS and connections with other exchanges (a batch); by default each
    /// exchange has its own share for its hops.
    package func share(with other: SharedState) { share = other.share }

    /// A first hop prepared ahead of time (`MultiDriver`'s prefetch) starts now: the retry
    /// budget (`--retry-max-time`) counts from here, not from its preparation.
    func firstHopStarts() { start = Transfer.now() }

    /// Prepares the next hop (the first one on the first call): credentials bound to origins,
    /// the retry and redirect rules, and a configured `Transfer`, not yet running.
    func beginHop() throws(SwurlError) -> Transfer {
        if current == nil {
            // A session's cookies go into the engine's jar before the hop; without a session the
            // share waits until a hop goes to the network (a cache hit needs no libcurl at all).
            if options.sessionCookies != nil { _ = try joinedShare() }
            start = Transfer.now()
            current = request
            delegate = makeDelegate()
        } else if delegatePerHop {
            if let pending = pendingHopFinish {
                pendingHopFinish = nil
                try finishHop(pending)
            }
            delegate = makeDelegate()
        }
        guard let current, let delegate else { throw .transport("internal: the exchange has no request") }
        if retryPending {
            // The attempts before this one, less their redirects (counted as redirects).
            retryPending = false
            retryTime = max(0, Transfer.now() - start - redirectTime)
        }
        var (hop, digest) = try prepared(current)
        options.contentCoding.adapt(&hop)
        adapter?.adapt(&hop)
        try Exchange.refuseOversizedHead(hop)
        try switchCookieView(carriesHost: hop.headers["Host"] != nil)
        if redirects + retries > 0 {
            try reorderJar()
            // A body file read again (a retry, a 307) must be the one the first attempt sent: a
            // file rewritten meanwhile would go as a piece of its new content under the old
            // length. (The first attempt sends what the length was measured for, as before: a
            // log that grows meanwhile goes as its measured start.)
            try hop.body?.checkFileSizes()
        }
        let hopHost = try origin(of: hop.url).host
        // Only a session keeps cookies by host (`keepEngineCookies`): no work for a batch line.
        if options.sessionCookies != nil {
            reachedHosts.insert(EngineCookieHeader.cookieHost(urlHost: hopHost, hostHeader: nil).lowercased())
        }
        try handCookies(forHost: hopHost)
        // The cache looks the hop up with its credentials in place (they are part of the key).
        // In a batch the engine is shared: its cookies are asked again before a response is stored.
        let cache = try HopCache(request: hop, options: options, digest: digest, engineCookie: engineCookieHeaderForCache(hop),
                                 engineCookieNow: options.cache == nil ? nil : { [weak self] in (try? self?.engineCookieHeaderForCache(hop)) ?? nil })
        var replay: Transfer.Replay?
        if let cache {
            switch cache.plan(now: Exchange.wallClockPrecise(), validators: !unconditionalNext) {
            case .serve(let opened, let age):
                replay = .entry(opened, age: age)
                cache.touch(opened)
            case .gatewayTimeout: replay = .gatewayTimeout
            case .send(let conditional): for f in conditional { hop.headers.add(f.name, f.value) }
            }
        }
        // What the cache answers (a stored response, --cache-only's 504) would answer a retry too.
        let canRetry = options.retry.allows(method: hop.method) && retries < options.retry.maxRetries
            && (hop.body?.isRewindable ?? true) && replay == nil
        // Values (and the start-time box), not `self`: the session keeps the filter until the hop
        // ends (no cycle). The observer holds nothing of the exchange's; a weak reference to it
        // would give every exchange's observer a side table (a batch line's too).
        let retries = self.retries, startTime = self.startTime, random = self.random
        let tap = recorder?.hopWillBegin(hop)
        let filter = HopFilter(target: delegate, showIntermediate: delegatePerHop, tap: tap,
                               forwardRequest: options.captureRequest) { [options, weak cache, observer = self.observer] head in
            if cache?.needsUnconditionalRequest == true { return .again }
            if canRetry, RetryPolicy.retryableStatuses.contains(head.status) {
                let after = head.headers["Retry-After"].flatMap { RetryPolicy.parseRetryAfter($0, now: Exchange.wallClock()) }
                let wait = options.retry.delay(retry: retries, retryAfter: after, random: random())
                guard let maxTime = options.retry.maxTime, Transfer.now() - startTime.value + wait > maxTime else {
                    return .retry(wait, .status(head.status, reason: head.reason))
                }
                observer?.transferWillNotRetry(RetryNotice(cause: .status(head.status, reason: head.reason), delay: wait,
                                                           retry: retries + 1, maxRetries: options.retry.maxRetries), maxTime: maxTime)
            }
            if options.followRedirects && RedirectPolicy.isRedirect(head) { return .redirect }
            return .final
        }
        let hopDelegate: TransferDelegate = replay == nil ? (cache?.attach(to: filter) ?? filter) : filter
        let share = replay == nil ? try joinedShare() : nil
        let transfer: Transfer
        if options.security.clientCertificate == nil {
            transfer = try Transfer(request: hop, options: options, delegate: hopDelegate, digestCredentials: digest,
                                    share: share, replay: replay)
        } else {
            transfer = try Transfer(request: hop, options: try hopOptions(for: hop), delegate: hopDelegate, digestCredentials: digest,
                                    share: share, replay: replay)
        }
        transfer.routeScheme = (try? origin(of: hop.url))?.scheme
        transfer.resumedFrom = adapter?.resumedFrom
        transfer.recordsRequest = tap != nil
        transfer.sentHeadMemo = tap != nil ? recorder?.sentHeadMemo : nil
        if let share { try transfer.use(share: share) }
        transfer.progressHandler = observer.map { o in { o.transferDidProgress($0) } }
        self.hop = (hop, filter, canRetry, cache, tap)
        try transfer.begin()
        return transfer
    }

    /// Judges how a hop ended: the final response, a redirect to follow, or a retry.
    /// - Throws: as `perform()`.
    func endHop(_ transfer: Transfer, _ outcome: Swift.Result<TransferResult, SwurlError>) throws(SwurlError) -> Step {
        guard let (hop, filter, canRetry, cache, tap) = self.hop, let delegate, let current else {
            throw .transport("internal: no hop is running")
        }
        self.hop = nil
        // A 304 the cache turned into the stored response: the hop answered that response (its
        // status, its Location), not the 304 libcurl saw.
        let served = transfer.isReplay ? nil : cache?.revalidatedHead
        let servedRedirect = served.map { $0.headers["Location"].flatMap { CurlURL.resolveRedirect($0, against: hop.url, pathAsIs: hop.pathAsIs) } }
        // A redirect whose body failed still says where it led (it is followed, below).
        let cutRedirectURL = filter.redirectHead?.headers["Location"].flatMap { CurlURL.resolveRedirect($0, against: hop.url, pathAsIs: hop.pathAsIs) }
        if let tap {
            switch outcome {
            case .success(let r):
                tap.hopDidEnd(HopEnd(timing: r.timing, redirectURL: servedRedirect ?? r.redirectURL, error: nil, endedAt: Timestamp.now(),
                                     fromCache: transfer.servesStoredResponse, revalidated: served != nil, rebuiltHead: transfer.rebuiltHead))
            case .failure(let error):
                tap.hopDidEnd(HopEnd(timing: transfer.isReplay ? TransferTiming() : transfer.measuredTiming, redirectURL: cutRedirectURL,
                                     error: error, endedAt: Timestamp.now(), rebuiltHead: transfer.rebuiltHead))
            }
        }
        // Of this hop only: an earlier hop's failure (retried) says nothing of a later one's.
        failedHopTiming = nil
        failedHopHead = nil
        failedHopRequest = nil
        if case .failure = outcome, !transfer.isReplay {
            // Under Digest a 401 before a failure was the challenge libcurl answered in the same
            // transfer (a final 401 ends it well): no answer to show.
            failedHopHead = options.authType == .digest && filter.answerHead?.status == 401 ? nil : filter.answerHead
            failedHopTiming = ExchangeTiming(final: transfer.measuredTiming, redirectTime: redirectTime, redirects: redirects, retries: retries)
            failedHopTiming?.earlierConnections = earlierConnections
            failedHopTiming?.retryTime = retryTime
            failedHopTiming?.failed = true
            failedHopTiming?.status = failedHopHead?.status
            if failedHopHead != nil { failedHopRequest = (hop.method.rawValue, hop.url) }
        }
        var result: TransferResult
        switch outcome {
        case .failure(let error):
            // Cookies the failed response set keep the default path of its URL, as a whole one's
            // do (the session is saved after a failure too).
            noteCookiePaths(setBy: hop)
            noteCookieNames(filter.answerHead)
            cache?.finish(succeeded: false)
            cacheStatus = cache?.status
            // An unsafe method's 2xx or 3xx head came, then its body failed (cut, too large,
            // Ctrl-C): the server acted on the request all the same, so what the cache holds of
            // the URL is out of date (RFC 9111 §4.4 asks for the status alone).
            if let head = filter.answerHead, !hop.method.isSafe, !transfer.isReplay {
                HopCache.invalidate(request: hop, head: head, options: options)
            }
            // A redirect to follow whose body was cut short: the body is no answer, and curl -L
            // and HTTPie --follow go on without it (a timeout or Ctrl-C still ends the exchange).
            // Never a proxy's answer to CONNECT (libcurl hands its head over as any other): a 3xx
            // there is no redirect of the server's, and followed it steered the request (its
            // method, body and credentials) where the proxy chose, over the tunnel's TLS.
            if case .transport = error, case .redirect = filter.verdict, let head = filter.redirectHead, let target = cutRedirectURL,
               transfer.isReplay || transfer.easy.connectCode < 300 {
                result = TransferResult(head: head, effectiveURL: hop.url, redirectCount: 0, redirectURL: target, timing: transfer.measuredTiming)
                answered = true
                failedHopTiming = nil
                break
            }
            let transient = error != .interrupted && canRetry && transfer.failureIsTransient
            let retryable = transient && (!filter.deliveredBody || delegateCanRestart)
            if transient && !retryable {
                // Said, as the other reasons not to retry are (it ended in the error alone).
                observer?.transferWillNotRetryAfterBody(RetryNotice(cause: .failure(error), delay: 0, retry: retries + 1,
                                                                    maxRetries: options.retry.maxRetries))
            }
            let wait = retryable ? options.retry.delay(retry: retries, retryAfter: nil, random: random()) : 0
            let pastMaxTime = options.retry.maxTime.flatMap { Transfer.now() - start + wait > $0 ? $0 : nil }
            if retryable, let maxTime = pastMaxTime {
                observer?.transferWillNotRetry(RetryNotice(cause: .failure(error), delay: wait, retry: retries + 1,
                                                           maxRetries: options.retry.maxRetries), maxTime: maxTime)
            }
            guard retryable, pastMaxTime == nil else {
                // --stale-ok: the network failed, a stored response stands in (RFC 9111 §4.2.4).
                guard let stale = try staleFallback(error, cache: cache, filter: filter, transfer: transfer) else {
                    // After a redirect the server that failed is not the URL that was typed:
                    // a trust failure names the server whose check failed, others name the hop.
                    if redirects > 0 {
                        let after = "after \(redirects) redirect\(redirects == 1 ? "" : "s") from \(initialOrigin)"
                        switch error {
                        case .trust(let message, let hint): throw .trust("\(message) (\(after))", hint: hint.map(TrustFailure.hintAfterRedirect))
                        case .transport(let message, let hint):
                            throw .transport("\(message) (at \((try? origin(of: hop.url))?.description ?? "the redirect's server"), \(after))", hint: hint)
                        case .timedOut(let message):
                            throw .timedOut("\(message) (at \((try? origin(of: hop.url))?.description ?? "the redirect's server"), \(after))")
                        default: break
                        }
                    }
                    throw error
                }
                result = stale
                break
            }
            retries += 1
            retryPending = true
            earlierConnections += transfer.measuredTiming.newConnections
            notifyRetry(wait, cause: .failure(error))
            if delegatePerHop { pendingHopFinish = delegate }
            return .retry(wait)
        case .success(let r):
            result = r
            if r.head != nil { answered = true }
            if let served {
                result.head = served
                result.redirectURL = servedRedirect ?? nil
            }
            if !transfer.isReplay {
                // (A status retried is never stored: `CacheRules.notStorableReason`.)
                cache?.finish(succeeded: true)
                if let head = r.head, !hop.method.isSafe { HopCache.invalidate(request: hop, head: head, options: options) }
            }
            cacheStatus = cache?.status
        }
        noteCookiePaths(setBy: hop)
        noteCookieNames(result.head)
        unconditionalNext = false
        switch filter.verdict {
        case .again:
            // Not a retry (no --retry budget, no wait): the same request once more, unconditional.
            // Nothing of the hidden 304 was shown, so no hop is finished (no separator with --all).
            unconditionalNext = true
            earlierConnections += result.timing.newConnections
            return .next
        case .retry(let wait, let cause):
            retries += 1
            retryPending = true
            earlierConnections += result.timing.newConnections
            notifyRetry(wait, cause: cause)
            return .retry(wait)
        case .redirect:
            if delegatePerHop { try finishHop(delegate) }
            redirects += 1
            do throws(SwurlError) {
                if redirects > options.maxRedirects { throw .tooManyRedirects("too many redirects (more than \(options.maxRedirects))") }
                let status = result.head?.status ?? 0
                guard let target = result.redirectURL, !target.isEmpty else {
                    let location = result.head?.headers["Location"] ?? ""
                    throw .transport("the redirect target '\(TerminalSanitizer.excerpt(Redactor.url(location, userAlone: true)))' is not a valid URL")
                }
                let next = try RedirectPolicy.follow(current, status: status, to: target)
                try refuseDowngrade(to: next.url)
                self.current = next
            } catch {
                // A redirect not followed (too many, a target that is no http(s) URL, a
                // downgrade): --timing and a batch's results still say what the exchange took,
                // as for a failed transfer: the last hop's counters, the redirects before it, its status.
                failedHopTiming = ExchangeTiming(final: result.timing, redirectTime: redirectTime, redirects: redirects - 1, retries: retries)
                failedHopTiming?.earlierConnections = earlierConnections
                failedHopTiming?.retryTime = retryTime
                failedHopTiming?.status = result.head?.status
                failedHopRequest = (hop.method.rawValue, hop.url)
                throw error
            }
            redirectTime += result.timing.total
            earlierConnections += result.timing.newConnections
            return .next
        case .final:
            keepEngineCookies()
            var timing = ExchangeTiming(final: result.timing, redirectTime: redirectTime, redirects: redirects, retries: retries)
            timing.earlierConnections = earlierConnections
            timing.retryTime = retryTime
            timing.cache = cacheStatus
            timing.status = result.head?.status
            return .finished(Result(head: result.head, url: hop.url, method: hop.method.rawValue, timing: timing, delegate: delegate,
                                    undecodedEncoding: transfer.undecodedEncoding))
        }
    }

    /// What the cache did for the last hop (nil without `--cache` or for a method it skips).
    package private(set) var cacheStatus: String?

    /// libcurl's counters for the last hop that failed after it ran (a body cut short,
    /// `--max-filesize`): what a batch's outputs show of a line that got a response and failed.
    package private(set) var failedHopTiming: ExchangeTiming?
    /// The method and URL of that hop when it got a response (the hop a status belongs to: a
    /// redirect not followed is the last hop, not the first).
    package private(set) var failedHopRequest: (method: String, url: String)?
    /// The head that answered the failed hop's last request, when one did (its body then
    /// failed): what `-h` may still show. Nil for an earlier attempt's or a Digest challenge's.
    package private(set) var failedHopHead: HTTPResponseHead?

    /// With `--stale-ok`, after a hop failed before any of its response reached the delegate:
    /// the stored response (however stale, unless it says must-revalidate or no-cache) served
    /// instead. Nil when there is none to serve; TLS trust failures and Ctrl-C are never covered.
    private func staleFallback(_ error: SwurlError, cache: HopCache?, filter: HopFilter,
                               transfer: Transfer) throws(SwurlError) -> TransferResult? {
        guard let cache, cache.settings.staleOK, let stored = cache.stored, !filter.deliveredBody, !filter.deliveredHead,
              CacheRules.mayServeStaleOnError(stored.entry.head, request: cache.request.headers) else { return nil }
        switch error {
        case .transport, .timedOut: break
        default: return nil
        }
        let age = CacheRules.currentAge(stored.entry.head, requestTime: stored.entry.requestTime,
                                        responseTime: stored.entry.responseTime, now: Exchange.wallClockPrecise())
        let served = try transfer.run(.entry(stored, age: age), to: filter)
        cacheStatus = "stale, served because the network failed (\(error.message)), age \(CacheRules.shownSeconds(age)) s"
        return served
    }

    /// The share the exchange's hops join: a batch's (`share(with:)`), else its own, made on
    /// first use; the session's cookie jar joins it then.
    private func joinedShare() throws(SwurlError) -> ShareHandle {
        if let share, jarJoined { return share }
        let joined: ShareHandle
        if let share {
            joined = share
        } else {
            joined = try ShareHandle()
            share = joined
            ownsShare = true
        }
        jar = try cookieJar(joined)
        jarJoined = true
        return joined
    }
    private var jarJoined = false

    /// The `Cookie` header libcurl's engine will add to the hop (`EngineCookieHeader`: only the
    /// cookies that match its host, path and scheme, without their expiry), for its cache key;
    /// nil when the cache does not look the hop up or no cookie applies. Before a hop joined
    /// the engine (`--offline`'s first hop), what `handCookies` will give it: the session's
    /// cookies for the host.
    private func engineCookieHeaderForCache(_ hop: HTTPRequest) throws(SwurlError) -> String? {
        guard options.cache != nil, hop.method == .get else { return nil }
        let url = try hop.sentURL()
        let cookies: [SessionCookie]
        if let jar {
            cookies = jar.cookieList.compactMap(SessionCookie.init(netscapeLine:))
        } else if let share {
            let reader: EasyHandle
            if let cookieReader {
                reader = cookieReader
            } else {
                reader = try EasyHandle()
                try reader.use(share: share)
                cookieReader = reader
            }
            cookies = reader.cookieList.compactMap(SessionCookie.init(netscapeLine:))
        } else if let stored = options.sessionCookies {
            let host = EngineCookieHeader.cookieHost(urlHost: try origin(of: hop.url).host, hostHeader: nil)
            cookies = stored.filter { $0.applies(toHost: host) }
        } else {
            return nil
        }
        return EngineCookieHeader.value(cookies, host: EngineCookieHeader.cookieHost(urlHost: url.host, hostHeader: hop.headers["Host"]),
                                        path: url.path, https: url.scheme.lowercased() == "https", now: Int64(Exchange.wallClock()))
    }
    /// An easy handle on the shared engine for `engineCookieHeaderForCache` when there is no `jar`.
    private var cookieReader: EasyHandle?

    /// An easy handle on the exchange's shared cookie jar, for the session's cookies
    /// (`handCookies`) and, in the exchange's own share, for the cookies its hops set
    /// (`reorderJar` gives one with an invalid path its default path before the next hop, with a
    /// session or without); nil in a batch's share without a session.
    private func cookieJar(_ share: ShareHandle) throws(SwurlError) -> EasyHandle? {
        guard options.sessionCookies != nil || ownsShare else { return nil }
        let jar = try EasyHandle()
        try jar.use(share: share)
        return jar
    }

    /// Hands the engine the stored cookies for `host` (URL host, brackets and all) that it does
    /// not hold yet (CURLOPT_COOKIELIST), never another host's: the engine matches a `Host`
    /// header's host, and a hand-set `Host` must not draw out another host's cookies. A cookie
    /// a server of this exchange already set or changed is not overwritten by the stored one.
    ///
    /// They go in newest first: among cookies of equal path, domain and name length, libcurl
    /// (7.88) sends the one it was given last first, so the oldest (first in the file) is sent
    /// first, as RFC 6265 §5.4 orders them.
    private func handCookies(forHost urlHost: String) throws(SwurlError) {
        guard let jar, let stored = options.sessionCookies else { return }
        let host = EngineCookieHeader.cookieHost(urlHost: urlHost, hostHeader: nil)
        let pending = stored.filter { !cookiesHanded.contains($0.key) && $0.applies(toHost: host) }
        guard !pending.isEmpty else { return }
        // Before the first hop the engine holds nothing of this exchange's.
        let held = redirects + retries == 0 ? []
            : Set(jar.cookieList.compactMap(SessionCookie.init(netscapeLine:)).map(\.key))
        for cookie in pending.reversed() {
            cookiesHanded.insert(cookie.key)
            if held.contains(cookie.key) { continue }
            try jar.set(.cookieList(cookie.netscapeLine), "a session cookie")
        }
    }

    /// The engine's cookies (its lines, and each read as a cookie, nil for a line that does not
    /// read as one) in the order they were created: the stored ones in the session file's order,
    /// then those this exchange's servers set, in the order they first appeared (a replaced
    /// cookie keeps its place, as RFC 6265 §5.3 keeps its creation time). The engine's own list
    /// cannot say: a cookie re-handed by `reorderJar` is listed where it was added.
    private func engineCookiesInCreationOrder() -> [(line: String, cookie: SessionCookie?)] {
        guard let jar else { return [] }
        let listed = jar.cookieList.map { (line: $0, cookie: SessionCookie(netscapeLine: $0)) }
        let stored = options.sessionCookies ?? []
        var rank: [String: Int] = [:]
        for (i, c) in stored.enumerated() where rank[c.key] == nil { rank[c.key] = i }
        for entry in listed {
            guard let key = entry.cookie?.key, rank[key] == nil, !createdOrder.contains(key) else { continue }
            createdOrder.append(key)
        }
        for (i, key) in createdOrder.enumerated() where rank[key] == nil { rank[key] = stored.count + i }
        return listed.enumerated().sorted { a, b in
            let ra = a.element.cookie.flatMap { rank[$0.key] } ?? Int.max
            let rb = b.element.cookie.flatMap { rank[$0.key] } ?? Int.max
            return ra != rb ? ra < rb : a.offset < b.offset
        }.map(\.element)
    }

    /// Before a later hop: hands the engine its cookies again, newest first, so that of cookies
    /// libcurl ranks equal (path, domain and name length) the older is sent first, as RFC 6265
    /// §5.4 orders them and as the stored cookies are handed (libcurl 7.88 sends the one it was
    /// given last first, so without this a redirect gets a response's cookies newest first, as
    /// curl `-L` sends them); two with one name, domain and path become one. A cookie whose
    /// `Path` was empty, relative or quoted goes back with the default path of the hop that set
    /// it (RFC 6265 §5.2.4), as it is saved, so the next hop matches it as a later run will.
    /// Only in an exchange's own share (a batch's is shared by lines running at once), and only
    /// when every line reads as a cookie (the lines keep their bytes: `EasyInfo.cookieList`).
    private func reorderJar() throws(SwurlError) {
        guard ownsShare, let jar else { return }
        let ordered = engineCookiesInCreationOrder()
        guard ordered.allSatisfy({ $0.cookie != nil }) else { return }
        let badPath = ordered.contains { !($0.cookie?.hasValidPath ?? true) }
        guard ordered.count > 1 || badPath else { return }
        try jar.set(.cookieList("ALL"), "the cookie jar")
        // One cookie per name, domain and path (RFC 6265 §5.3 step 11): libcurl keeps a
        // `Domain=h` cookie beside the host-only one of the same name that host set. The later
        // one listed is the newer, and it takes the older one's place.
        var seen: Set<String> = []
        for entry in ordered.reversed() {
            if let key = entry.cookie?.key, !seen.insert(key).inserted { continue }
            var line = entry.line
            if var c = entry.cookie, !c.hasValidPath {
                c.path = defaultPaths[c.key] ?? "/"
                line = c.netscapeLine
            }
            try jar.set(.cookieList(line), "a cookie")
        }
    }

    /// The cookie host a hand-set `Host` header names, when it is not the first URL's own
    /// (nil otherwise): libcurl's engine matches and files cookies under it on the hops that
    /// carry the header (those to the first origin: `prepared` drops it elsewhere). Those hops
    /// see the first origin's server's cookies for that name, every other hop the named host's
    /// own: two views of one name, never mixed (`switchCookieView`).
    private lazy var hostHeaderCookieHost: String? = {
        guard let header = request.headers["Host"] else { return nil }
        let named = EngineCookieHeader.cookieHost(urlHost: initialOrigin.host, hostHeader: header).lowercased()
        return named != ownCookieHost ? named : nil
    }()
    private lazy var ownCookieHost = EngineCookieHeader.cookieHost(urlHost: initialOrigin.host, hostHeader: nil).lowercased()
    /// Whether the engine holds the view of the hops that carry the `Host` header (nil before
    /// the first hop), and the other view's cookies (engine lines), set aside meanwhile.
    private var engineHoldsHostHeaderView: Bool?
    private var otherViewCookies: [String] = []

    /// Before a hop (and at the end, `carriesHost` false): puts the engine in the view the hop
    /// needs. The cookies for the named host (and not for the first origin's own) of the view
    /// being left are set aside, the other view's put back: the first origin's server set
    /// cookies under that name, which a redirect to the named host got and a session kept (a
    /// server's way to plant cookies for another host: session fixation), and the named host's
    /// own cookies went to the first origin's server on a hop back to it.
    private func switchCookieView(carriesHost: Bool) throws(SwurlError) {
        guard let named = hostHeaderCookieHost else { return }
        guard let holding = engineHoldsHostHeaderView else {
            engineHoldsHostHeaderView = carriesHost
            return
        }
        guard holding != carriesHost else { return }
        engineHoldsHostHeaderView = carriesHost
        guard let jar else { return }
        let own = ownCookieHost
        var kept: [String] = [], leaving: [String] = []
        // In creation order, which notes the cookies' keys before any is set aside
        // (`reorderJar` ranks a cookie put back by when it was first listed).
        for (line, cookie) in engineCookiesInCreationOrder() {
            if let c = cookie, c.applies(toHost: named), !c.applies(toHost: own) {
                leaving.append(line)
            } else {
                kept.append(line)
            }
        }
        guard !leaving.isEmpty || !otherViewCookies.isEmpty else { return }
        try jar.set(.cookieList("ALL"), "the cookie jar")
        for line in kept + otherViewCookies { try jar.set(.cookieList(line), "a cookie") }
        otherViewCookies = leaving
    }

    /// Remembers the default path (RFC 6265 §5.1.4) of the hop at `url` for each cookie with
    /// an invalid path the engine holds and that no earlier hop set.
    private func noteCookiePaths(setBy hop: HTTPRequest) {
        guard let jar else { return }
        let invalid = jar.cookieList.compactMap(SessionCookie.init(netscapeLine:)).filter { !$0.hasValidPath }
        guard !invalid.isEmpty else { return }
        let path = (try? hop.sentURL()).map { SessionCookie.defaultPath($0.path) } ?? "/"
        for cookie in invalid where defaultPaths[cookie.key] == nil { defaultPaths[cookie.key] = path }
    }

    /// Records the names of the cookies a hop's response set (`cookieNamesSet`), for a
    /// session's limits.
    private func noteCookieNames(_ head: HTTPResponseHead?) {
        guard options.sessionCookies != nil, let head else { return }
        cookieNamesSet.formUnion(SessionCookie.names(setBy: head.headers))
    }

    /// The first hop's request as it will be sent (for `--offline`): with `--auth` and netrc
    /// credentials applied.
    /// - Returns: the request, and what the cache would do instead of sending it (a fresh hit,
    ///   or `--cache-only`'s 504), nil when it would be sent.
    package func firstHop() throws(SwurlError) -> (request: HTTPRequest, answeredByCache: String?) {
        var (hop, digest) = try prepared(request)
        options.contentCoding.adapt(&hop)
        adapter?.adapt(&hop)
        try Exchange.refuseOversizedHead(hop)
        // A stale stored response adds its validators, as the real request would. Only looked
        // at: a missing cache directory is not made.
        guard let cache = try HopCache(request: hop, options: options, digest: digest, engineCookie: engineCookieHeaderForCache(hop),
                                       create: false) else {
            return (hop, nil)
        }
        switch cache.plan(now: Exchange.wallClockPrecise()) {
        case .send(let conditional):
            for f in conditional { hop.headers.add(f.name, f.value) }
            return (hop, nil)
        case .serve, .gatewayTimeout:
            return (hop, cache.status)
        }
    }

    /// libcurl 7.88 builds a request's head in a buffer of at most 1 MiB (its DYN_HTTP_REQUEST)
    /// and fails a larger one as "out of memory", after connecting, which read as the response's
    /// fault ("a header line is larger than libcurl accepts"). Refused before connecting, with
    /// 4 KiB left for what libcurl adds (Host, User-Agent, Accept, the engine's cookies).
    package static func refuseOversizedHead(_ hop: HTTPRequest) throws(SwurlError) {
        var size = hop.method.rawValue.utf8.count + hop.url.utf8.count + 12
        for f in hop.headers.fields { size += f.name.utf8.count + f.value.utf8.count + 4 }
        guard size > (1 << 20) - 4096 else { return }
        throw .usage("the request's head (its URL and header fields) comes to \(size) bytes; libcurl sends at most 1 MiB",
                     hint: "send a large value in the body, not in a header field or the URL")
    }

    /// The exchange's options for a hop: a client certificate (`--cert`) is an identity bound to
    /// the first URL's origin, as credentials are: a redirect to another origin goes without it.
    func hopOptions(for hop: HTTPRequest) throws(SwurlError) -> TransferOptions {
        guard options.security.clientCertificate != nil, try origin(of: hop.url) != initialOrigin else { return options }
        var o = options
        o.security.clientCertificate = nil
        o.security.clientKey = nil
        o.security.keyPassword = nil
        o.clientCertificateWithheld = true
        return o
    }

    /// The hop's request with credentials bound to origins, and Digest credentials for libcurl.
    func prepared(_ current: HTTPRequest) throws(SwurlError) -> (HTTPRequest, Credentials?) {
        // The first hop (every hop of most exchanges) is the request's URL, parsed once at init.
        let origin = try self.origin(of: current.url)
        let sameOrigin = origin == initialOrigin
        var hop = current
        if !sameOrigin {
            // A Proxy-Authorization item goes to the proxy alone whenever one applies (`Transfer`):
            // through the same proxy it is still the proxy's, at any origin.
            // The proxy each URL goes through (NO_PROXY counted): to a host that goes direct it
            // would be sent to the server.
            let proxy = options.unixSocket == nil ? options.proxy.httpProxy(forURL: current.url) : nil
            let sameProxy = proxy != nil && proxy == options.proxy.httpProxy(forURL: request.url)
            for name in RedirectPolicy.credentialHeaders + ["Host"] where !(sameProxy && name == "Proxy-Authorization") {
                hop.headers.remove(name)
            }
        }
        guard !hop.headers.contains("Authorization"), !hop.isRemoved("Authorization") else { return (hop, nil) }
        if sameOrigin, let token = options.bearerToken {
            try HeaderValue.check(token, "--auth (the bearer token)")
            hop.headers.add("Authorization", "Bearer \(token)")
            return (hop, nil)
        }
        var credentials = sameOrigin ? options.credentials : nil
        var source = "--auth"
        let userInfoURL = Exchange.hasUserInfo(current.url) ? current.url : sameOrigin ? initialURLWithUserInfo : nil
        // After an https → http downgrade no netrc password goes out in the clear.
        let downgraded = initialOrigin.scheme == "https" && origin.scheme != "https"
        if credentials == nil, let userInfoURL, let (user, password) = try Exchange.userInfo(of: userInfoURL) {
            // `http://user:pass@host/`: the header is made here, as for --auth, so --offline
            // shows the Authorization that is sent (libcurl adds none when one is given).
            credentials = Credentials(user: user, password: password ?? "")
            source = "the URL's user info"
            // `http://user@host/` without a password: the netrc entry for that host and login
            // gives it, as curl's does.
            if password == nil, !downgraded, let netrc = options.netrc,
               let entry = netrc.credentials(forHost: origin.host, allowDefault: sameOrigin, user: user) {
                credentials = entry
                source = "the netrc entry for \(origin.host)"
            }
        }
        // Only without --auth (or a session's), without credentials in the first URL and
        // without an Authorization item: a server the request was authenticated to could
        // otherwise send it on to another host of the netrc file and have its password (curl
        // sends none there either).
        if credentials == nil, options.credentials == nil, options.bearerToken == nil, initialURLWithUserInfo == nil,
           !initialCarriesAuthorization, !downgraded,
           let netrc = options.netrc, !Exchange.hasUserInfo(current.url) {
            credentials = netrc.credentials(forHost: origin.host, allowDefault: sameOrigin)
            source = "the netrc entry for \(origin.host)"
        }
        guard let credentials else { return (hop, nil) }
        // Digest hands the user name to libcurl as is; Basic would encode it, but one rule for
        // every credential is easier to trust (and a stray CR from a CRLF file is a mistake).
        try HeaderValue.check(credentials.user, "\(source) (the user name)")
        try HeaderValue.check(credentials.password, "\(source) (the password)")
        // As --auth and the URL's are: bytes that are not UTF-8 (a Latin-1 netrc) are refused.
        for (part, what) in [(credentials.user, "the user name"), (credentials.password, "the password")] where ArgumentBytes.hasEscapes(part) {
            throw .usage("\(source) (\(what)) is not valid UTF-8 text", hint: "swurl sends credentials as UTF-8 text")
        }
        if options.authType == .digest { return (hop, credentials) }
        hop.headers.add("Authorization", "Basic " + Base64.encode(Array("\(credentials.user):\(credentials.password)".utf8)))
        return (hop, nil)
    }

    /// The last URL whose origin was found, and that origin (the first hop's is found at init).
    private var lastOrigin: (url: String, origin: Origin)?

    /// `Origin(url:)`, parsed once for the hop's URL (by bytes: the same text).
    private func origin(of url: String) throws(SwurlError) -> Origin {
        if Exchange.sameBytes(url, request.url) { return initialOrigin }
        if let last = lastOrigin, Exchange.sameBytes(last.url, url) { return last.origin }
        let origin = try Origin(url: url)
        lastOrigin = (url, origin)
        return origin
    }

    private static func sameBytes(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                guard x.count == y.count, let p = x.baseAddress, let q = y.baseAddress else { return x.count == y.count }
                return memcmp(p, q, x.count) == 0
            }
        }
    }

    /// An exchange that started on https under a policy that checks something (the chain or
    /// pins) never continues over plain http: that hop could not be checked, so the policy fails
    /// closed instead of showing a body nobody authenticated.
    private func refuseDowngrade(to url: String) throws(SwurlError) {
        guard initialOrigin.scheme == "https", options.security.checksChain || options.security.hasPins,
              let next = try? Origin(url: url), next.scheme != "https" else { return }
        throw .trust("refused the redirect from \(initialOrigin) to \(next): plain http cannot be checked by the TLS policy",
                     hint: options.security.hasPins ? "request the http URL directly, without the pin, if you mean it"
                         : "request the http URL directly if you mean it")
    }

    /// Whether a URL carries its own `user:password@` (which then wins over netrc).
    package static func hasUserInfo(_ url: String) -> Bool {
        // No '@' anywhere, no user info (the common case, without a search by Character).
        guard url.containsByte(UInt8(ascii: "@")) else { return false }
        guard let r = url.rangeOfText("://") else { return false }
        let authority = url[r.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        return authority.contains("@")
    }

    private func finishHop(_ delegate: TransferDelegate) throws(SwurlError) {
        do { try observer?.transferHopDidFinish(delegate) } catch {
            throw (error as? SwurlError) ?? .output("\(error)")
        }
    }

    private func notifyRetry(_ seconds: Double, cause: RetryNotice.Cause) {
        observer?.transferWillRetry(RetryNotice(cause: cause, delay: seconds, retry: retries, maxRetries: options.retry.maxRetries))
    }

    /// Waits before a retry, waking up for Ctrl-C.
    private func pause(_ seconds: Double) throws(SwurlError) {
        let end = Transfer.now() + seconds
        while Transfer.now() < end {
            if Interrupt.requested { throw .interrupted }
            usleep(UInt32(min(50_000, max(1_000, (end - Transfer.now()) * 1_000_000))))
        }
        if Interrupt.requested { throw .interrupted }
    }

    /// Seconds since the epoch with their fraction (CLOCK_REALTIME).
    static func wallClockPrecise() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Seconds since the epoch (CLOCK_REALTIME).
    package static func wallClock() -> Double { Timestamp.now().rounded(.down) }
}

/// When an exchange started; shared by reference with its hop filters.
final class StartTime {
    var value = 0.0
}

/// Cookies, DNS cache and connections that several exchanges share (the lines of a batch).
package final class SharedState {
    let share: ShareHandle
    /// - Parameter spareHandles: finished easy handles kept for the next exchanges (a batch
    ///   keeps as many as run at once).
    /// - Parameter cookiesOnly: cookies alone, no DNS cache or connections (`ShareHandle`).
    package init(spareHandles: Int = 0, cookiesOnly: Bool = false) throws(SwurlError) {
        share = try ShareHandle(keepingSpareHandles: spareHandles, cookiesOnly: cookiesOnly)
    }

    /// Every cookie the shared engine holds, as a session keeps them: what a REPL line that
    /// sends nothing (`--offline`, `--curl`) shows it would send.
    package func cookies() throws(SwurlError) -> [SessionCookie] {
        let reader = try EasyHandle()
        try reader.use(share: share)
        return reader.cookieList.compactMap(SessionCookie.init(netscapeLine:))
    }
}

/// Sits between a hop's transfer and the delegate: decides from each response head whether it
/// is the final response, a redirect to follow or a failure to retry, and passes on only what
/// the delegate should see.
private final class HopFilter: FileBodyReceiving {
    enum Verdict {
        case final, redirect
        case retry(Double, RetryNotice.Cause)
        /// A 304 to the cache's validators that selected no stored response: not shown; the
        /// request goes again without validators.
        case again
    }

    private let target: TransferDelegate
    private let showIntermediate: Bool
    /// A recorder's tap: sees everything, before the filter decides (its errors are ignored).
    private let tap: HopTap?
    /// Whether the request as sent goes to the target (it asked for it: `captureRequest`).
    private let forwardRequest: Bool
    private let classify: (HTTPResponseHead) -> Verdict
    private(set) var verdict: Verdict = .final
    private(set) var deliveredBody = false
    /// Whether a final (non-1xx) head went to the delegate.
    private(set) var deliveredHead = false
    /// The head of a redirect to follow (its body may then fail: it is no answer).
    private(set) var redirectHead: HTTPResponseHead?
    /// The final head that answered the latest request of the hop (nil once another request of
    /// it, a Digest round's, went out without an answer yet).
    private(set) var answerHead: HTTPResponseHead?

    init(target: TransferDelegate, showIntermediate: Bool, tap: HopTap? = nil, forwardRequest: Bool = true,
         classify: @escaping (HTTPResponseHead) -> Verdict) {
        self.target = target
        self.showIntermediate = showIntermediate
        self.tap = tap
        self.forwardRequest = forwardRequest
        self.classify = classify
    }

    private var forwarding: Bool {
        switch verdict {
        case .final: return true
        case .redirect: return showIntermediate
        case .retry, .again: return false
        }
    }

    func transferDidSendRequestHead(_ bytes: [UInt8]) throws {
        answerHead = nil
        try? tap?.transferDidSendRequestHead(bytes)
        if forwardRequest { try target.transferDidSendRequestHead(bytes) }
    }
    func transferDidSendRequestBody(_ bytes: UnsafeRawBufferPointer) throws {
        try? tap?.transferDidSendRequestBody(bytes)
        if forwardRequest { try target.transferDidSendRequestBody(bytes) }
    }
    func transferDidVerifyTLS(_ summary: TLSSummary) {
        tap?.transferDidVerifyTLS(summary)
        target.transferDidVerifyTLS(summary)
    }

    func transferDidReceiveHead(_ head: HTTPResponseHead) throws {
        try? tap?.transferDidReceiveHead(head)
        if head.status >= 100 && head.status < 200 && head.status != 101 {
            try target.transferDidReceiveHead(head)
            return
        }
        verdict = classify(head)
        answerHead = head
        if case .redirect = verdict { redirectHead = head }
        if forwarding {
            deliveredHead = true
            try target.transferDidReceiveHead(head)
        }
    }

    func transferDidRefuseHead(_ head: HTTPResponseHead) {
        try? tap?.transferDidReceiveHead(head)
        answerHead = head
    }

    func transferDidReceiveBody(_ bytes: UnsafeRawBufferPointer) throws {
        try? tap?.transferDidReceiveBody(bytes)
        guard forwarding else { return }
        deliveredBody = true
        try target.transferDidReceiveBody(bytes)
    }

    func transferDidReceiveBody(fromFile fd: Int32, offset: Int64, count: Int64, source: String) throws -> Bool {
        // A recorder (--har) sees the bytes; a body that is not forwarded is dropped either way.
        guard tap == nil, forwarding, let receiver = target as? FileBodyReceiving else { return tap == nil && !forwarding }
        guard try receiver.transferDidReceiveBody(fromFile: fd, offset: offset, count: count, source: source) else { return false }
        deliveredBody = true
        return true
    }
}
