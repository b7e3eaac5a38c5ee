#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlCache
import SwurlCore
import SwurlCurl
import SwurlSecurity

/// The cache's part in one hop: looks the request up before it is sent (a fresh hit is
/// served without a transfer; a stale entry adds its validators), sits between the transfer
/// and the hop's delegate while the response streams (a 304 becomes the stored response with
/// merged headers; a storable response is teed into a new entry), and commits or discards the
/// entry when the hop ends. Every door (one-shot, download, batch, REPL) runs its hops through
/// `Exchange`, so every door gets the same cache.
final class HopCache: TransferDelegate {
    let store: CacheStore
    let key: CacheKey
    let settings: CacheSettings
    let request: HTTPRequest
    /// The stored response for the key (Vary matched), if any.
    let stored: CacheStore.Opened?
    /// What the cache did, for `-v` and `--timing` (`hit, age 12 s`, `miss, stored`, ...).
    private(set) var status: String
    private let insecure: Bool
    /// Whether the request is one the cache looks up and stores (a GET without a body); any
    /// other gets a cache only with `--cache-only` or only-if-cached, to answer it 504.
    private let answerable: Bool
    /// `--max-filesize`: a stored body a 304 selects is judged as the network's would be.
    private let maxFileSize: Int64?
    private let maxHeaders: Int
    private var target: TransferDelegate?
    private var writer: CacheStore.Writer?
    private var pending: CacheEntry?
    /// The engine's `Cookie` header the key was made with, and how to make it again.
    private let engineCookie: String?
    private let engineCookieNow: (() -> String?)?
    /// The names of the cookies the response sets (`Set-Cookie`): the engine holds their new
    /// values once it arrived, which says nothing of what was sent.
    private var cookiesSet: Set<String> = []
    private var revalidated: CacheEntry?
    private let requestTime: Double
    /// Whether the cache added the validators (so a 304 answers the cache, not the user).
    private var validating = false
    /// A 304 answered the cache's validators but selects no stored response (another `ETag`,
    /// RFC 9111 §4.3.4): nothing is updated, and the 304, no answer to the user's request, is not
    /// shown; `Exchange` sends that request again, without validators.
    private(set) var needsUnconditionalRequest = false

    /// Whether the request says `Cache-Control: no-store`:
    /// nothing of its exchange is stored, and what is stored is left as it is.
    private var requestSaysNoStore: Bool { CacheControl(request.headers).has("no-store") }

    /// Whether the user's request is conditional itself (its answer is not the cache's to take).
    static func isConditional(_ headers: HTTPHeaders) -> Bool {
        ["If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range"].contains { headers.contains($0) }
    }

    /// What to do before the hop.
    enum Plan {
        /// Serve this stored response with this age; no transfer.
        case serve(CacheStore.Opened, age: Double)
        /// Answer 504 (only-if-cached, `--cache-only`) without a transfer.
        case gatewayTimeout
        /// Send the request (with these conditional headers added) through the cache.
        case send([HTTPHeaders.Field])
    }

    /// The cache for a hop, or nil when the cache is off or the request is not one it handles
    /// (only a GET without a body is looked up and stored: the key does not cover a body, and a
    /// GET's body has no meaning the cache could know; other methods only invalidate, in
    /// `invalidate`).
    /// - Throws: `SwurlError` when the cache directory cannot be used.
    /// - Parameter engineCookie: the `Cookie` header libcurl's cookie engine will add to the
    ///   request (nil: none), which the key must cover.
    /// - Parameter engineCookieNow: the same header as the engine would make it now, asked again
    ///   before a response is stored (nil: not asked).
    /// - Parameter create: whether a missing cache directory is made (not for `--offline`, which
    ///   only looks).
    init?(request: HTTPRequest, options: TransferOptions, digest: Credentials?, engineCookie: String? = nil,
          engineCookieNow: (() -> String?)? = nil, create: Bool = true) throws(SwurlError) {
        guard let settings = options.cache else { return nil }
        let answerable = request.method == .get && request.body == nil
        // `--cache-only` and only-if-cached never reach the network: a request the cache never
        // answers (another method, a GET with a body) gets the 504 a miss gets, not a transfer.
        guard answerable || settings.only || CacheControl(request.headers).has("only-if-cached") else { return nil }
        self.answerable = answerable
        maxFileSize = options.maxFileSize
        maxHeaders = options.maxHeaders
        self.settings = settings
        self.request = request
        self.engineCookie = engineCookie
        self.engineCookieNow = engineCookieNow
        store = try CacheStore(directory: settings.directory, maxSize: settings.maxSize, create: create)
        key = HopCache.key(request, options, digest, engineCookie: engineCookie)
        insecure = options.security.allowsInvalidCertificates
        requestTime = Exchange.wallClockPrecise()
        var opened = answerable ? store.open(key) : nil
        // An entry for another URL or method under this name is no entry (a key collision, or a
        // file put there by hand).
        if let o = opened, o.entry.url != HopCache.storedURL(request.url, pathAsIs: request.pathAsIs) || o.entry.method != request.method.rawValue { opened = nil }
        if let o = opened, !CacheRules.varyMatches(storedVary: CacheRules.varyNames(of: o.entry.head.headers),
                                                   storedRequest: o.entry.varyRequest, request: request.headers) {
            opened = nil
        }
        stored = opened
        status = "miss"
    }

    /// The URL as an entry keeps it: `cacheURL`, its password masked (the key's digests tell
    /// passwords apart; the file holds no secret in clear).
    static func storedURL(_ url: String, pathAsIs: Bool) -> String { Redactor.url(cacheURL(url, pathAsIs: pathAsIs)) }

    /// The URL entries are keyed, stored and invalidated under: as libcurl spells it (dot
    /// segments gone), with the scheme and host in lower case and without the fragment, which is
    /// never sent (`CacheKey.spelling`: `doc#intro` and `doc` are one resource, and a PUT to
    /// `doc` invalidates both).
    static func cacheURL(_ url: String, pathAsIs: Bool) -> String { CacheURL.of(url, pathAsIs: pathAsIs) }

    /// The key: method, URL and digests of what makes identities and trust differ: the
    /// credential headers, a `Host` field (another virtual host's response), the request's other
    /// fields but those `CacheKey.unkeyedHeaders` names (a custom API key), the cookies the
    /// engine will add by name and value (set by an earlier hop or line, or a session's: not the
    /// session's whole list, whose expiry dates and other hosts' cookies change from run to run),
    /// Digest, proxy, TLS and route settings. A `Host` field and the engine's cookies are left out
    /// (and the other fields) are left out when there are none, so that the keys of requests
    /// without them stay as they were.
    static func key(_ request: HTTPRequest, _ options: TransferOptions, _ digest: Credentials?, engineCookie: String? = nil) -> CacheKey {
        var identity: [(label: String, value: String)] = []
        for name in CacheKey.credentialHeaders {
            identity.append((name, request.headers.values(name).joined(separator: "\n")))
        }
        let host = request.headers.values("Host")
        if !host.isEmpty { identity.append(("host", host.joined(separator: "\n").lowercased())) }
        if let others = CacheKey.otherFields(request.headers.fields) { identity.append(("fields", others)) }
        // The cookies by name and value, in any order (the engine's order is its own).
        if let engineCookie { identity.append(("engine cookie", cookiePairs(engineCookie).joined(separator: "\n"))) }
        if let digest { identity.append(("digest", digest.user + ":" + digest.password)) }
        identity.append(("proxy", keyText(options.proxy)))
        identity.append(("tls", keyText(options.security)))
        // -4 and -6 choose where a name goes as --resolve does (added only when given, so that
        // other keys stay as they were).
        let family = options.ipVersion == .v4 ? "|4" : options.ipVersion == .v6 ? "|6" : ""
        identity.append(("route", (options.unixSocket ?? "") + "|" + options.resolve.joined(separator: ",") + family))
        identity.append(("decoded", options.contentCoding.libcurlDecodes ? "1" : "0"))
        return CacheKey(method: request.method.rawValue, url: cacheURL(request.url, pathAsIs: request.pathAsIs), identity: identity)
    }

    /// A `Cookie` header's `name=value` pairs, sorted, without those named in `leaving`.
    static func cookiePairs(_ header: String?, leaving: Set<String> = []) -> [String] {
        guard let header else { return [] }
        return header.split(separator: ";").map { String($0).trimmingSpaces() }
            .filter { pair in !leaving.contains(String(pair.prefix { $0 != "=" })) }.sorted()
    }

    /// The proxy settings as key material, field by field. Not `String(describing:)`: that
    /// reflects over the value at run time, which cost a cache hit more than the rest of its key
    /// (docs/cache.md, Measurements). HopCacheKeyTests fails when a field is added and not written here.
    static func keyText(_ p: ProxySettings) -> String {
        var t = KeyText()
        t.add("explicit", p.explicit)
        t.add("http", p.http)
        t.add("https", p.https)
        t.add("all", p.all)
        t.add("noProxy", p.noProxy)
        return t.text
    }

    /// The TLS policy as key material, field by field (see the proxy's).
    static func keyText(_ s: SecurityPolicy) -> String {
        var t = KeyText()
        t.add("pinnedCertificates", s.pinnedCertificates.map(CacheEntry.hex).joined(separator: ","))
        t.add("pinnedKeyDigests", s.pinnedKeyDigests.map(CacheEntry.hex).joined(separator: ","))
        t.add("scope", s.scope.rawValue)
        t.add("allowsInvalidCertificates", s.allowsInvalidCertificates ? "1" : "0")
        t.add("hostVerification", s.hostVerification.map { $0 ? "1" : "0" })
        // Files by what they hold as well as by name: a certificate and key replaced at the same
        // path (a rotated identity, a switched link) are another identity, whose responses the
        // first one's must not answer.
        t.add("caFile", s.caFile.map(withContent))
        t.add("caPath", s.caPath)
        t.add("addedCertificates", s.addedCertificates.map(CacheEntry.hex).joined(separator: ","))
        t.add("defaultStore.directoryOverride", s.defaultStore.directoryOverride)
        t.add("defaultStore.fileOverride", s.defaultStore.namedFiles.isEmpty ? nil : s.defaultStore.namedFiles.map(\.path).joined(separator: "\n"))
        t.add("clientCertificate", s.clientCertificate.map(withContent))
        t.add("clientKey", s.clientKey.map(withContent))
        t.add("keyPassword", s.keyPassword)
        t.add("minimumVersion", s.minimumVersion?.rawValue)
        t.add("maximumVersion", s.maximumVersion?.rawValue)
        t.add("ciphers", s.ciphers)
        return t.text
    }

    /// `path` and the SHA-256 of the file's bytes (up to 64 MiB, far past any CA bundle; a file
    /// that cannot be read is keyed by its name: the handshake will fail on it).
    private static func withContent(_ path: String) -> String {
        guard let bytes = try? SmallFile.read(path, maxSize: 64 << 20) else { return path }
        return path + "\n" + CacheEntry.hex(Digest.sha256(bytes))
    }

    /// Named, length-prefixed values (nil apart from empty), so no two settings write the same text.
    struct KeyText {
        private(set) var text = ""
        mutating func add(_ name: String, _ value: String?) {
            text += name
            if let value { text += "=\(value.utf8.count):" + value }
            text += "\n"
        }
    }

    /// Decides before the hop (RFC 9111 §4).
    /// - Parameter validators: whether a stale stored response adds its validators (default);
    ///   false for the request sent again after a 304 that selected nothing.
    func plan(now: Double, validators: Bool = true) -> Plan {
        let onlyIfCached = CacheControl(request.headers).has("only-if-cached")
        guard answerable else {
            // The method first (a POST has a body too): a GET or HEAD is refused for its body.
            let why = request.method == .get && request.body != nil ? "a request with a body" : "a " + request.method.rawValue
            status = "only from the cache: 504 (the cache never stores \(why))"
            return .gatewayTimeout
        }
        guard let stored else {
            if settings.only || onlyIfCached { status = "miss, only from the cache: 504"; return .gatewayTimeout }
            return .send([])
        }
        // A conditional request of the user's own goes to the server as given (§4.3.2 would let
        // the cache answer it; the server's answer is what the user asked to see).
        if HopCache.isConditional(request.headers) && !settings.only && !onlyIfCached { return .send([]) }
        let e = stored.entry
        let age = CacheRules.currentAge(e.head, requestTime: e.requestTime, responseTime: e.responseTime, now: now)
        let decision = CacheRules.decide(request: request.headers, stored: e.head, requestTime: e.requestTime,
                                         responseTime: e.responseTime, now: now, refresh: settings.refresh)
        if settings.only {
            // However old, as --cache-only promises; said to be stale when it is. Never one the
            // response or request says must be validated first (§5.2.2.2: "in all
            // circumstances"; a disconnected cache answers 504), as --stale-ok.
            if case .fresh = decision {
                status = "hit (cache only), age \(CacheRules.shownSeconds(age)) s"
            } else if let directive = CacheRules.staleForbiddenBy(e.head, request: request.headers) {
                // (A fresh one the request's or the response's no-cache asks to validate is not "stale".)
                let stale = age >= CacheRules.freshnessLifetime(e.head, responseTime: e.responseTime)
                status = (stale ? "stale, " : "") + "must be validated (\(directive)): only from the cache: 504"
                return .gatewayTimeout
            } else {
                status = "stale, served (cache only), age \(CacheRules.shownSeconds(age)) s"
            }
            return .serve(stored, age: age)
        }
        switch decision {
        case .fresh(let age):
            // Past its lifetime, served because the request's max-stale allows it: said so.
            let stale = age >= CacheRules.freshnessLifetime(e.head, responseTime: e.responseTime)
            status = (stale ? "hit, stale (max-stale), age " : "hit, age ") + "\(CacheRules.shownSeconds(age)) s"
            return .serve(stored, age: age)
        case .validate, .miss:
            if onlyIfCached { status = "stale, only-if-cached: 504"; return .gatewayTimeout }
            status = "stale"
            validating = validators
            return .send(validators ? CacheRules.conditionalHeaders(e.head) : [])
        }
    }

    /// Puts the cache between the transfer and `target` for a sent hop.
    func attach(to target: TransferDelegate) -> TransferDelegate {
        self.target = target
        return self
    }

    // MARK: - TransferDelegate (between the transfer and the hop's delegate)

    func transferDidSendRequestHead(_ bytes: [UInt8]) throws { try target?.transferDidSendRequestHead(bytes) }
    func transferDidSendRequestBody(_ bytes: UnsafeRawBufferPointer) throws { try target?.transferDidSendRequestBody(bytes) }
    func transferDidVerifyTLS(_ summary: TLSSummary) { target?.transferDidVerifyTLS(summary) }

    func transferDidReceiveHead(_ head: HTTPResponseHead) throws {
        guard let target else { return }
        if head.status >= 100 && head.status < 200 { try target.transferDidReceiveHead(head); return }
        writer?.discard()
        writer = nil
        pending = nil
        revalidated = nil
        revalidatedHead = nil
        let now = Exchange.wallClockPrecise()
        if head.status == 304, validating, let stored, CacheRules.notModifiedSelects(stored.entry.head, head.headers, now: now) {
            // §4.3.4: the stored response, its headers updated from the 304, with its body.
            var entry = stored.entry
            entry.head = CacheRules.merge(stored: entry.head, notModified: head.headers, receivedAt: now)
            entry.requestTime = requestTime
            entry.responseTime = now
            revalidated = entry
            status = "revalidated (304)"
            // What the 304 set is this response's (-v, --har), though never stored with it.
            var shown = entry.head
            for value in head.headers.values("Set-Cookie") { shown.headers.add("Set-Cookie", value) }
            revalidatedHead = shown
            try Transfer.checkHeaderCount(shown, max: maxHeaders)
            try target.transferDidReceiveHead(shown)
            if let maxFileSize, stored.bodyLength > maxFileSize { throw Transfer.bodyTooLarge(maxFileSize) }
            try stored.streamBody { try target.transferDidReceiveBody($0) }
            return
        }
        if head.status == 304, validating {
            needsUnconditionalRequest = true
            status = "304 for another response, asked again without validators"
            try target.transferDidReceiveHead(head)
            return
        }
        if HopCache.isConditional(request.headers), head.status != 200 {
            // The answer to the user's own If-Match, If-None-Match… (a 412, a 304) says how the
            // resource compares with what they gave, nothing the URL's next GET may be answered
            // with: not stored (a 412 with max-age took the 200's place), and no reason to drop
            // what is stored either.
            status = "not stored: the answer (\(head.status)) to a conditional request of the user's own"
        } else if let reason = CacheRules.notStorableReason(method: request.method, requestHeaders: request.headers,
                                                            response: head, insecure: insecure) {
            status = "not stored: \(reason)"
            // A whole response took the place of the stored one (asked again with validators,
            // --refresh, no-cache): it is not served later (RFC 9111 §4.3.3), as a 304 saying
            // no-store removes it too. A part (206) leaves it, and so do a server error, which the
            // RFC lets a cache take as no answer (--stale-ok may still serve the copy), and a
            // status that asks to try again later (408, 429).
            if let stored, !requestSaysNoStore, head.status != 206, !(500...599).contains(head.status),
               !HTTPResponseHead.tryAgainStatuses.contains(head.status) {
                store.remove(stored)
                status += "; the stored copy removed"
            }
        } else {
            let vary = CacheRules.varyStored(CacheRules.varyNames(of: head.headers), request: request.headers)
            cookiesSet = SessionCookie.names(setBy: head.headers)
            pending = CacheEntry(url: HopCache.storedURL(request.url, pathAsIs: request.pathAsIs), method: request.method.rawValue, requestTime: requestTime,
                                 responseTime: now, varyRequest: vary, head: CacheRules.storedHead(head, receivedAt: now))
            writer = try? store.writer(for: key)
            if writer == nil { status = "not stored: " + (store.unavailable ?? "the cache directory is not writable") }
        }
        try target.transferDidReceiveHead(head)
    }

    func transferDidReceiveBody(_ bytes: UnsafeRawBufferPointer) throws {
        if revalidated != nil || needsUnconditionalRequest { return }   // a 304 has no body of its own
        if let w = writer {
            do { try w.write(bytes) } catch {
                w.discard()
                writer = nil
                status = "not stored: \(error.message)"
            }
        }
        try target?.transferDidReceiveBody(bytes)
    }

    /// The stored response a 304 selected, its headers updated (and the 304's `Set-Cookie`, shown
    /// though never stored): what the hop answered, where the network's head says 304. Nil when
    /// no 304 was turned into a stored response.
    private(set) var revalidatedHead: HTTPResponseHead?

    /// The hop ended with a whole response: the new entry goes into place (or the updated one
    /// after a 304). A failed hop discards it (only complete responses are stored).
    func finish(succeeded: Bool) {
        guard succeeded else {
            writer?.discard()
            writer = nil
            if status.hasPrefix("miss") || status == "stale" { status = "not stored: the transfer failed" }
            return
        }
        if let entry = revalidated, let stored {
            // A request saying no-store stores nothing, its 304's update included, and leaves
            // what is stored alone (RFC 9111 §5.2.1.5: it says nothing of stored responses; the
            // entry was removed).
            if requestSaysNoStore {
                status += "; not updated: no-store in the request"
                return
            }
            // The 304's own Cache-Control is the response's now: one that says no-store (RFC
            // 9111 §3) takes the stored copy away rather than keeping it fresh.
            if let reason = CacheRules.notStorableReason(method: request.method, requestHeaders: request.headers, response: entry.head,
                                                         insecure: insecure) {
                store.remove(stored)
                status += "; removed: \(reason)"
                return
            }
            do { try store.rewrite(stored, as: entry, key: key) } catch { status += "; not stored again: \(error.message)" }
            return
        }
        guard let w = writer, let entry = pending else { return }
        writer = nil
        // libcurl ends a transfer well only when the body is complete; a Content-Length that
        // disagrees (possible only for a decoded body) is checked when no decoding took place.
        // (A 204 has no body whatever length it names: RFC 9110 §8.6.)
        if entry.head.status != 204, entry.head.headers["Content-Encoding"] == nil,
           let length = entry.head.contentLength, length != w.bodyLength {
            w.discard()
            status = "not stored: incomplete body"
            return
        }
        // The key holds the cookies the engine had when the hop was set up; libcurl puts them on
        // the request only once the connection is up, and another batch line may have changed
        // them in between. Then what was sent is not what the key says: not stored.
        if let now = engineCookieNow, HopCache.cookiePairs(now(), leaving: cookiesSet) != HopCache.cookiePairs(engineCookie, leaving: cookiesSet) {
            w.discard()
            status = "not stored: the cookies for the request changed while it ran"
            return
        }
        do {
            try w.commit(entry)
            // A stored response was there but could not answer (stale or --refresh without
            // validators, or one the server's 200 replaced): "miss" would say there was none.
            status = stored == nil ? "miss, stored" : "refetched, stored"
        } catch {
            status = "not stored: \(error.message)"
        }
    }

    /// Marks a served entry as used (LRU).
    func touch(_ opened: CacheStore.Opened) { store.touch(opened) }

    /// §4.4: an unsafe method's 2xx/3xx invalidates the URL and its same-origin Location and
    /// Content-Location (every identity's entries).
    static func invalidate(request: HTTPRequest, head: HTTPResponseHead, options: TransferOptions) {
        guard let settings = options.cache else { return }
        let urls = CacheRules.invalidatedURLs(method: request.method, url: request.url, response: head) { value in
            CurlURL.resolveRedirect(value, against: request.url, pathAsIs: request.pathAsIs)
        }
        guard !urls.isEmpty, let store = try? CacheStore(directory: settings.directory, maxSize: settings.maxSize) else { return }
        for url in urls { store.removeAll(forURL: cacheURL(url, pathAsIs: request.pathAsIs)) }
    }

    /// The response for `--cache-only` / only-if-cached without a stored one (RFC 9111 §5.2.1.7).
    static let gatewayTimeoutHead = HTTPResponseHead(version: "HTTP/1.1", status: 504, reason: "Gateway Timeout",
                                                     headers: HTTPHeaders([.init(name: "Content-Length", value: "0")]))

    /// The head served from an entry: as stored, with `Age` (§5.1), without the `Set-Cookie` of an
    /// entry an older swurl stored (see `CacheRules.unstoredFields`).
    static func servedHead(_ entry: CacheEntry, age: Double) -> HTTPResponseHead {
        var head = entry.head
        head.headers.remove("Set-Cookie")
        head.headers.set("Age", String(Int(max(0, min(age, 2_147_483_648)))))
        return head
    }
}

/// `HopCache.cacheURL` for the commands (`swurl cache clear` spells its prefix the same way).
package enum CacheURL {
    /// The URL as entries keep it: libcurl's normalization, then `CacheKey.spelling`. With
    /// `pathAsIs` (`--path-as-is`) its dot segments stay: `/a/../b` went as such, and is not `/b`.
    package static func of(_ url: String, pathAsIs: Bool = false) -> String {
        CacheKey.spelling((try? CurlURL.normalized(parsing: url, pathAsIs: pathAsIs)) ?? url)
    }
}
