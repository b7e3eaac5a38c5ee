import SwurlCore

/// The rules of RFC 9111 for a private cache, as pure functions of heads, directives and
/// clocks (seconds since the epoch), so each one is unit-tested without a store or a network.
package enum CacheRules {
    /// §4.2.2: statuses whose responses are heuristically cacheable ("cacheable by default",
    /// RFC 9110 §15.1). 206 is left out: swurl does not combine partial responses.
    package static let heuristicStatuses: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]

    /// The final statuses RFC 9110 defines (§15), whose caching rules this cache knows: what
    /// `must-understand` asks of a status (RFC 9111 §5.2.2.3).
    static let rfc9110Statuses: Set<Int> = Set(200...206).union([300, 301, 302, 303, 305, 307, 308])
        .union(400...417).union([421, 422, 426]).union(500...505).subtracting([206])

    /// Statuses whose response a cache can reuse when explicitly told so (final, not partial,
    /// not 304, which only updates a stored response).
    static func understood(_ status: Int) -> Bool {
        status >= 200 && status != 206 && status != 304 && status < 600
    }

    /// Why a response is not stored, or nil when it may be (§3).
    /// - Parameters:
    ///   - method: the request's method: only GET is stored (HEAD and others are not cached).
    ///   - insecure: the response came over TLS without chain checks (`-k`): never stored.
    package static func notStorableReason(method: HTTPMethod, requestHeaders: HTTPHeaders, response: HTTPResponseHead,
                                         insecure: Bool) -> String? {
        if insecure { return "--insecure" }
        guard method == .get else { return "method \(method.rawValue)" }
        let status = response.status
        if status == 206 { return "partial content (206)" }
        if status == 304 { return "304" }
        guard understood(status) else { return "status \(status)" }
        // Whatever freshness it carries: stored, it would answer a later --retry itself (and a
        // run that gave up retrying would replace a good entry with it).
        if HTTPResponseHead.tryAgainStatuses.contains(status) { return "status \(status), which --retry retries" }
        let request = CacheControl(requestHeaders)
        if request.has("no-store") { return "no-store in the request" }
        let cc = CacheControl(response.headers)
        if cc.has("must-understand") {
            // §5.2.2.3: storable only with a status whose caching rules the cache knows, and
            // then no-store (there for caches that do not know must-understand) is not obeyed.
            guard rfc9110Statuses.contains(status) else { return "must-understand, status \(status)" }
        } else if cc.has("no-store") {
            return "no-store"
        }
        if varyNames(of: response.headers).contains("*") { return "Vary: *" }
        // §3: explicit freshness, a directive that permits storing, or a status cacheable by
        // default (`no-cache` is none of them: it says how a stored response is used).
        if cc.has("public") || cc.has("private") || cc.seconds("max-age") != nil || response.headers["Expires"] != nil
            || heuristicStatuses.contains(status) {
            return nil
        }
        return "status \(status) without explicit freshness"
    }

    /// The fields of a stored response that its freshness and age depend on (§4.2), each parsed
    /// once: `decide` and `swurl cache list` need both and `Cache-Control` for more.
    package struct Freshness: Sendable {
        package var status: Int
        package var cacheControl: CacheControl
        /// The first `Date`; nil when absent or invalid (the response time stands in).
        package var date: Double?
        /// `Expires`; nil when absent, minus infinity when invalid or given more than once (§5.3:
        /// in the past).
        package var expires: Double?
        /// The first `Last-Modified`; nil when absent or invalid.
        package var lastModified: Double?
        /// The first `Age`; nil when absent or invalid.
        package var age: Double?

        package init(status: Int, cacheControl: CacheControl, date: Double?, expires: Double?, lastModified: Double?,
                     age: Double?) {
            self.status = status
            self.cacheControl = cacheControl
            self.date = date
            self.expires = expires
            self.lastModified = lastModified
            self.age = age
        }

        /// `expires` of a head with `count` Expires fields, the first of which reads as `first`:
        /// nil without one; minus infinity when it is invalid or there are several (§5.3: in the past).
        package static func expires(count: Int, first: Double?) -> Double? {
            count == 0 ? nil : (count == 1 ? first ?? -.infinity : -.infinity)
        }

        /// From a response head whose head arrived at `responseTime` (the clock an RFC 850 date's
        /// two-digit year is read against).
        package init(_ response: HTTPResponseHead, responseTime: Double) {
            let h = response.headers
            func date(_ text: String) -> Double? { HTTPDate.parse(text, now: responseTime) }
            let expires = h.values("Expires")
            self.init(status: response.status, cacheControl: CacheControl(h), date: h["Date"].flatMap(date),
                      expires: Freshness.expires(count: expires.count, first: expires.first.flatMap(date)),
                      lastModified: h["Last-Modified"].flatMap(date), age: h["Age"].flatMap { CacheControl.deltaSeconds($0) })
        }
    }

    /// §4.2.1: how long the response is fresh from its generation, in seconds.
    /// `max-age`, else `Expires` minus `Date` (an invalid `Expires`, or more than one, means
    /// already expired), else
    /// the heuristic of §4.2.2 (10% of the time since `Last-Modified`) for a status cacheable
    /// by default or a `public` response; else 0.
    package static func freshnessLifetime(_ response: HTTPResponseHead, responseTime: Double) -> Double {
        freshnessLifetime(Freshness(response, responseTime: responseTime), responseTime: responseTime)
    }

    /// `freshnessLifetime` of fields parsed once.
    package static func freshnessLifetime(_ f: Freshness, responseTime: Double) -> Double {
        let cc = f.cacheControl
        if let maxAge = cc.seconds("max-age") { return maxAge }
        if cc.has("max-age") { return 0 }
        let date = f.date ?? responseTime
        if let expires = f.expires { return max(0, expires - date) }
        if heuristicStatuses.contains(f.status) || cc.has("public"), let modified = f.lastModified, modified < date {
            return (date - modified) / 10
        }
        return 0
    }

    /// §4.2.3: the response's current age at `now`.
    /// - Parameters:
    ///   - requestTime: when the request that fetched it was sent.
    ///   - responseTime: when its head arrived.
    package static func currentAge(_ response: HTTPResponseHead, requestTime: Double, responseTime: Double, now: Double) -> Double {
        currentAge(Freshness(response, responseTime: responseTime), requestTime: requestTime, responseTime: responseTime, now: now)
    }

    /// An age as messages show it, in whole seconds: at most 10^15 (an entry's times edited by
    /// hand made it too large for an Int, and the conversion trapped).
    package static func shownSeconds(_ age: Double) -> Int {
        age.isNaN ? 0 : Int(max(0, min(age, 1e15)))
    }

    /// `currentAge` of fields parsed once.
    package static func currentAge(_ f: Freshness, requestTime: Double, responseTime: Double, now: Double) -> Double {
        let date = f.date ?? responseTime
        let ageValue = f.age ?? 0
        let apparentAge = max(0, responseTime - date)
        let responseDelay = max(0, responseTime - requestTime)
        let correctedAgeValue = ageValue + responseDelay
        let correctedInitialAge = max(apparentAge, correctedAgeValue)
        let residentTime = max(0, now - responseTime)
        return correctedInitialAge + residentTime
    }

    /// What to do with a stored response for a request.
    package enum Decision: Equatable, Sendable {
        /// Serve it; the `Age` to send.
        case fresh(age: Double)
        /// Send a conditional request (validators permitting) and use the answer.
        case validate
        /// The stored response does not match (Vary) or cannot be used: fetch anew.
        case miss
    }

    /// The names a `Vary` value lists, lower-cased (`*` stays `*`).
    package static func varyNames(_ vary: String) -> [String] {
        vary.split(separator: ",").map { String($0).trimmingSpaces().lowercased() }.filter { !$0.isEmpty }
    }

    /// The names every `Vary` field of `headers` lists: several fields are one list (RFC 9110
    /// §5.3; nginx's `gzip_vary` adds its own beside an application's).
    package static func varyNames(of headers: HTTPHeaders) -> [String] {
        headers.values("Vary").flatMap(varyNames)
    }

    /// §4.1: whether the request's values of the headers the stored response's `Vary` lists are
    /// those of the request that fetched it (combined field values, whitespace around commas
    /// normalised). `Vary: *` never matches.
    /// The headers the key holds digests of (the credentials, and every field past
    /// `CacheKey.unkeyedHeaders`, such as an API key in `X-Api-Key`) are matched by the key, and
    /// so are never stored with the entry (`varyStored`).
    package static func varyMatches(storedVary: [String], storedRequest: HTTPHeaders, request: HTTPHeaders) -> Bool {
        for name in storedVary where !keyedByDigest(name) {
            if name == "*" { return false }
            // A field absent from one request matches only its absence (§4.1): an empty
            // `Accept-Encoding` asks for no coding, an absent one takes any.
            let stored = storedRequest.values(name), given = request.values(name)
            if stored.isEmpty != given.isEmpty || normalized(stored) != normalized(given) { return false }
        }
        return true
    }

    /// The request values a stored response keeps for its `Vary` (§4.1): those of the listed
    /// headers the key does not hold a digest of (the `Accept` family, `User-Agent`): a response
    /// that varies on `Authorization`, `Cookie` or `X-Api-Key` wrote the token, session id or
    /// key into its file.
    package static func varyStored(_ vary: [String], request: HTTPHeaders) -> HTTPHeaders {
        var stored = HTTPHeaders()
        for name in vary where !keyedByDigest(name) {
            for v in request.values(name) { stored.add(name, v) }
        }
        return stored
    }

    private static func keyedByDigest(_ name: String) -> Bool {
        // `*` names no field: it never matches (`varyMatches`).
        guard name != "*" else { return false }
        let lower = name.lowercased()
        return !CacheKey.unkeyedHeaders.contains(lower) || CacheKey.credentialHeaders.contains { $0.lowercased() == lower }
    }

    private static func normalized(_ values: [String]) -> String {
        values.flatMap { $0.split(separator: ",").map { String($0).trimmingSpaces() } }.joined(separator: ",")
    }

    /// §4 and §4.2: whether a stored response may be served for a request, must be validated
    /// first, or is of no use.
    /// - Parameters:
    ///   - refresh: `--refresh`: validate even when fresh.
    package static func decide(request: HTTPHeaders, stored: HTTPResponseHead, requestTime: Double, responseTime: Double,
                              now: Double, refresh: Bool = false) -> Decision {
        let fields = Freshness(stored, responseTime: responseTime)
        let age = currentAge(fields, requestTime: requestTime, responseTime: responseTime, now: now)
        let lifetime = freshnessLifetime(fields, responseTime: responseTime)
        let rcc = CacheControl(request)
        let scc = fields.cacheControl
        if refresh || requestSaysNoCache(request) { return .validate }
        // A no-cache response (with or without field names: swurl treats both as unqualified).
        if scc.has("no-cache") { return .validate }
        if let maxAge = rcc.seconds("max-age"), age > maxAge { return .validate }
        let remaining = lifetime - age
        if let minFresh = rcc.seconds("min-fresh") {
            return remaining >= minFresh ? .fresh(age: age) : .validate
        }
        if remaining > 0 { return .fresh(age: age) }
        // Stale: max-stale allows it unless the response forbids serving it stale.
        if let maxStale = rcc.maxStale, !scc.has("must-revalidate"), -remaining <= maxStale {
            return .fresh(age: age)
        }
        return .validate
    }

    /// §4.2.4: whether a stale stored response may be served without the origin (`--stale-ok`
    /// when it cannot be reached, `--cache-only`): not with `must-revalidate` or `no-cache`, nor
    /// for a request that says `no-cache` itself (§5.2.1.4: no stored response without a
    /// validation that succeeded).
    package static func mayServeStaleOnError(_ stored: HTTPResponseHead, request: HTTPHeaders = HTTPHeaders()) -> Bool {
        staleForbiddenBy(stored, request: request) == nil
    }

    /// The directive that forbids serving `stored` unvalidated once it is stale
    /// (`mayServeStaleOnError`), as a reason: `must-revalidate`, `no-cache` (which forbids it
    /// fresh too), or `the request's no-cache`; nil when none does.
    package static func staleForbiddenBy(_ stored: HTTPResponseHead, request: HTTPHeaders) -> String? {
        let cc = CacheControl(stored.headers)
        if cc.has("must-revalidate") { return "must-revalidate" }
        if cc.has("no-cache") { return "no-cache" }
        return requestSaysNoCache(request) ? "the request's no-cache" : nil
    }

    /// §5.2.1.4 and §5.4: whether the request asks for no stored response without validation:
    /// `Cache-Control: no-cache`, or `Pragma: no-cache` when it has no `Cache-Control`.
    package static func requestSaysNoCache(_ request: HTTPHeaders) -> Bool {
        if CacheControl(request).has("no-cache") { return true }
        return !request.contains("Cache-Control") && request.values("Pragma").contains { $0.lowercased().containsText("no-cache") }
    }

    /// §4.3.1: the conditional headers for validating a stored response (`If-None-Match` from
    /// its `ETag`, `If-Modified-Since` from its `Last-Modified`); empty when it has neither.
    package static func conditionalHeaders(_ stored: HTTPResponseHead) -> [HTTPHeaders.Field] {
        var out: [HTTPHeaders.Field] = []
        if let etag = stored.headers["ETag"] { out.append(.init(name: "If-None-Match", value: etag)) }
        if let modified = stored.headers["Last-Modified"] { out.append(.init(name: "If-Modified-Since", value: modified)) }
        return out
    }

    /// §4.3.3/§4.3.4: whether a 304 is about the stored response: its `ETag` compares weakly
    /// equal to the stored one (RFC 9110 §8.8.3.2), or it has none. Weakly, also for a strong
    /// tag: the 304 answers this entry's own `If-None-Match`, which the server compared weakly,
    /// and nginx's gzip makes a 200's tag weak (`W/"v"`) but sends its 304 with the strong `"v"`;
    /// a strong comparison there sent every revalidation twice, the second time unconditional.
    ///
    /// Without a tag, a `Last-Modified` other than the stored one's names another version (a
    /// file put back with an older time, answered by a server comparing `If-Modified-Since`
    /// with `<=`): it does not select the entry either.
    /// - Parameter now: the clock, for a two-digit year (`01-Jan-24` is 2024).
    package static func notModifiedSelects(_ stored: HTTPResponseHead, _ notModified: HTTPHeaders, now: Double) -> Bool {
        guard let tag = notModified["ETag"]?.trimmingSpaces() else {
            guard let modified = notModified["Last-Modified"], let storedModified = stored.headers["Last-Modified"] else { return true }
            return HTTPDate.parse(modified, now: now).map { $0 == HTTPDate.parse(storedModified, now: now) } ?? true
        }
        guard let storedTag = stored.headers["ETag"]?.trimmingSpaces() else { return false }
        func opaque(_ t: String) -> String { t.hasPrefix("W/") ? String(t.dropFirst(2)) : t }
        return opaque(tag) == opaque(storedTag)
    }

    /// Header fields a 304 never replaces in the stored response (§3.2): the body's framing and
    /// encoding, which the stored body depends on (the hop-by-hop fields are never stored at all).
    static let keptOn304: Set<String> = ["content-length", "content-encoding", "content-range"]

    /// §3.1: the fields a cache does not store, lower-cased: `Connection` and the fields it
    /// lists, the other hop-by-hop fields (RFC 9110 §7.6.1) and the proxy's authentication
    /// fields (they are about the connection to a proxy, not the resource). And `Set-Cookie`, as
    /// browsers' caches leave it out: a hit hands the cookie engine nothing, so it must not show
    /// a cookie as set (the network's response set it, once).
    package static func unstoredFields(_ headers: HTTPHeaders) -> Set<String> {
        var names: Set<String> = ["connection", "keep-alive", "proxy-connection", "te", "transfer-encoding", "upgrade",
                                  "trailer", "proxy-authenticate", "proxy-authentication-info", "proxy-authorization",
                                  "set-cookie"]
        for value in headers.values("Connection") {
            for name in value.split(separator: ",") { names.insert(String(name).trimmingSpaces().lowercased()) }
        }
        return names
    }

    /// The head as stored (§3.1): without the fields of `unstoredFields`, and with a `Date` of
    /// the time it came (`receivedAt`) when it had none (RFC 9110 §6.6.1: a cache that stores a
    /// response without one adds it), as a 304's is (`merge`).
    package static func storedHead(_ head: HTTPResponseHead, receivedAt: Double) -> HTTPResponseHead {
        let drop = unstoredFields(head.headers)
        var stored = head
        var fields = head.headers.filter { !drop.contains($0.name.lowercased()) }
        if !head.headers.contains("Date") { fields.append(HTTPHeaders.Field(name: "Date", value: HTTPDate.format(receivedAt))) }
        stored.headers = HTTPHeaders(fields)
        return stored
    }

    /// §4.3.4 with §3.2: the stored head updated with the 304's header fields (each field
    /// present in the 304 replaces the stored ones of that name, in the stored position;
    /// new ones are appended); the status line stays the stored one. A stored `Age` goes when the
    /// 304 has none: the origin has just validated the response, so its age starts again (§4.2.3:
    /// `Age` is what the response spent in caches on its way). A 304 without `Date` gets the time
    /// it came (`receivedAt`, RFC 9110 §6.6.1): the stored `Date` kept the age growing from the
    /// first fetch, and every later request validated again.
    package static func merge(stored: HTTPResponseHead, notModified: HTTPHeaders, receivedAt: Double) -> HTTPResponseHead {
        var updates: [String: [HTTPHeaders.Field]] = [:]
        var order: [String] = []
        let unstored = unstoredFields(notModified)
        if !notModified.contains("Age") { updates["age"] = [] }
        // A strong tag the stored weak one matched (`notModifiedSelects`: nginx's gzip) leaves
        // the stored `W/"v"`: the strong validator was for the body nginx did not compress.
        let keepsWeakTag = stored.headers["ETag"]?.trimmingSpaces().hasPrefix("W/") == true
            && notModified["ETag"]?.trimmingSpaces().hasPrefix("W/") == false
        for field in notModified {
            let key = field.name.lowercased()
            if keptOn304.contains(key) || unstored.contains(key) || (key == "etag" && keepsWeakTag) { continue }
            if updates[key] == nil { order.append(key) }
            updates[key, default: []].append(field)
        }
        if !notModified.contains("Date") {
            updates["date"] = [HTTPHeaders.Field(name: "Date", value: HTTPDate.format(receivedAt))]
            order.append("date")
        }
        var fields: [HTTPHeaders.Field] = []
        var placed: Set<String> = []
        for field in stored.headers {
            let key = field.name.lowercased()
            guard let replacement = updates[key] else { fields.append(field); continue }
            if placed.insert(key).inserted { fields += replacement }
        }
        for key in order where !placed.contains(key) { fields += updates[key] ?? [] }
        var head = stored
        head.headers = HTTPHeaders(fields)
        return head
    }

    /// §4.4: the URLs an unsafe request's response invalidates: the request URL, and the
    /// `Location` and `Content-Location` targets of the same origin; empty unless the method is
    /// unsafe and the status 2xx or 3xx.
    /// - Parameter resolve: makes a field value absolute against the request URL.
    package static func invalidatedURLs(method: HTTPMethod, url: String, response: HTTPResponseHead,
                                       resolve: (String) -> String?) -> [String] {
        guard !method.isSafe, (200..<400).contains(response.status) else { return [] }
        var out = [url]
        let origin = CacheRules.origin(url)
        for name in ["Location", "Content-Location"] {
            if let value = response.headers[name], let target = resolve(value), CacheRules.origin(target) == origin,
               origin != nil {
                out.append(target)
            }
        }
        return out
    }

    /// `scheme://host:port` of an absolute URL, lower-cased (nil when not absolute).
    static func origin(_ url: String) -> String? {
        guard let schemeEnd = url.rangeOfText("://") else { return nil }
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        let rest = url[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let host = authority.split(separator: "@").last.map(String.init)?.lowercased() ?? ""
        return scheme + "://" + CacheKey.withoutDefaultPort(host, scheme: scheme)
    }
}

extension CacheControl {
    /// A bare delta-seconds value (the `Age` field).
    static func deltaSeconds(_ text: String) -> Double? {
        CacheControl("x=" + text.trimmingSpaces()).seconds("x")
    }
}
