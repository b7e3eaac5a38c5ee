import XCTest
@testable import SwurlCache
import SwurlCore

/// RFC 9111's rules as pure functions (`CacheRules`): each test names the section it checks.
final class CacheRulesTests: XCTestCase {
    private let t0 = 1_800_000_000.0

    private func head(_ status: Int = 200, _ fields: [(String, String)]) -> HTTPResponseHead {
        HTTPResponseHead(version: "HTTP/1.1", status: status, reason: "",
                         headers: HTTPHeaders(fields.map { HTTPHeaders.Field(name: $0.0, value: $0.1) }))
    }

    private func date(_ offset: Double) -> String { HTTPDate.format(t0 + offset) }

    func testFreshnessLifetimeFromMaxAgeExpiresAndTheHeuristic() {
        // §4.2.1: max-age wins over Expires.
        XCTAssertEqual(CacheRules.freshnessLifetime(head(200, [("Cache-Control", "max-age=30"), ("Expires", date(600)),
                                                                ("Date", date(0))]), responseTime: t0), 30)
        XCTAssertEqual(CacheRules.freshnessLifetime(head(200, [("Expires", date(600)), ("Date", date(0))]), responseTime: t0), 600)
        XCTAssertEqual(CacheRules.freshnessLifetime(head(200, [("Expires", "0"), ("Date", date(0))]), responseTime: t0), 0,
                       "an invalid Expires is in the past")
        // §4.2.2: 10% of the time since Last-Modified, for a status cacheable by default.
        XCTAssertEqual(CacheRules.freshnessLifetime(head(200, [("Last-Modified", date(-1000)), ("Date", date(0))]), responseTime: t0), 100)
        XCTAssertEqual(CacheRules.freshnessLifetime(head(201, [("Last-Modified", date(-1000)), ("Date", date(0))]), responseTime: t0), 0)
        XCTAssertEqual(CacheRules.freshnessLifetime(head(200, [("Cache-Control", "max-age=abc")]), responseTime: t0), 0,
                       "a bad max-age is no freshness")
    }

    /// RFC 9110 §4.2.3: a scheme's default port given or left out names one resource, for the
    /// key and for invalidation's same-origin check; another port, or one in an IPv6 literal,
    /// is kept.
    func testTheDefaultPortIsNoPartOfTheKeyOrTheOrigin() {
        XCTAssertEqual(CacheKey.spelling("http://H:80/x?a#f"), "http://h/x?a")
        XCTAssertEqual(CacheKey.spelling("https://h:443/x"), "https://h/x")
        XCTAssertEqual(CacheKey.spelling("https://h:80/x"), "https://h:80/x")
        XCTAssertEqual(CacheKey.spelling("http://ann@[::80]/x"), "http://ann@[::80]/x")
        XCTAssertEqual(CacheKey.spelling("http://[::1]:80/x"), "http://[::1]/x")
        XCTAssertEqual(CacheKey.spelling("http://h:8080/x"), "http://h:8080/x")
        XCTAssertEqual(CacheRules.origin("http://u:p@h:80/x"), CacheRules.origin("http://h/y"))
        XCTAssertNotEqual(CacheRules.origin("http://h:8080/x"), CacheRules.origin("http://h/y"))
    }

    func testCurrentAgeFollowsSection4_2_3() {
        let h = head(200, [("Date", date(-10)), ("Age", "5")])
        // apparent 10, corrected age value 5 + 1 (delay): initial 10; resident 20.
        XCTAssertEqual(CacheRules.currentAge(h, requestTime: t0 - 1, responseTime: t0, now: t0 + 20), 30)
        let noDate = head(200, [("Age", "50")])
        XCTAssertEqual(CacheRules.currentAge(noDate, requestTime: t0, responseTime: t0, now: t0), 50)
        XCTAssertEqual(CacheRules.currentAge(head(200, [("Age", "99999999999999")]), requestTime: t0, responseTime: t0, now: t0),
                       2_147_483_648, "an Age too large is 2^31")
    }

    func testStorability() {
        let get = HTTPMethod.get, none = HTTPHeaders()
        XCTAssertNil(CacheRules.notStorableReason(method: get, requestHeaders: none, response: head(200, []), insecure: false))
        XCTAssertEqual(CacheRules.notStorableReason(method: get, requestHeaders: none,
                                                    response: head(200, [("Cache-Control", "no-store")]), insecure: false), "no-store")
        XCTAssertEqual(CacheRules.notStorableReason(method: get, requestHeaders: HTTPHeaders([.init(name: "Cache-Control", value: "no-store")]),
                                                    response: head(200, []), insecure: false), "no-store in the request")
        XCTAssertEqual(CacheRules.notStorableReason(method: .post, requestHeaders: none, response: head(200, []), insecure: false),
                       "method POST")
        XCTAssertEqual(CacheRules.notStorableReason(method: get, requestHeaders: none, response: head(206, []), insecure: false),
                       "partial content (206)")
        XCTAssertEqual(CacheRules.notStorableReason(method: get, requestHeaders: none, response: head(200, []), insecure: true),
                       "--insecure")
        XCTAssertNotNil(CacheRules.notStorableReason(method: get, requestHeaders: none, response: head(302, []), insecure: false))
        XCTAssertNil(CacheRules.notStorableReason(method: get, requestHeaders: none,
                                                  response: head(302, [("Cache-Control", "max-age=5")]), insecure: false))
        XCTAssertEqual(CacheRules.notStorableReason(method: get, requestHeaders: none, response: head(200, [("Vary", "Accept, *")]),
                                                    insecure: false), "Vary: *")
        // no-cache alone permits no storing (§3): a 302 or 500 with it and no freshness is not kept.
        XCTAssertEqual(CacheRules.notStorableReason(method: get, requestHeaders: none, response: head(302, [("Cache-Control", "no-cache")]),
                                                    insecure: false), "status 302 without explicit freshness")
        XCTAssertNil(CacheRules.notStorableReason(method: get, requestHeaders: none, response: head(200, [("Cache-Control", "no-cache")]),
                                                  insecure: false))
        // A status --retry retries is never stored, whatever freshness it has.
        for status in [408, 429, 500, 502, 503, 504] {
            XCTAssertEqual(CacheRules.notStorableReason(method: get, requestHeaders: none, response: head(status, [("Cache-Control", "max-age=600")]),
                                                        insecure: false), "status \(status), which --retry retries")
        }
    }

    func testDecideHonoursRequestAndResponseDirectives() {
        let fresh = head(200, [("Date", date(0)), ("Cache-Control", "max-age=60")])
        func decide(_ stored: HTTPResponseHead, _ request: [(String, String)] = [], at now: Double) -> CacheRules.Decision {
            CacheRules.decide(request: HTTPHeaders(request.map { .init(name: $0.0, value: $0.1) }), stored: stored,
                              requestTime: t0, responseTime: t0, now: t0 + now)
        }
        XCTAssertEqual(decide(fresh, at: 10), .fresh(age: 10))
        XCTAssertEqual(decide(fresh, at: 61), .validate)
        XCTAssertEqual(decide(fresh, [("Cache-Control", "max-age=5")], at: 10), .validate)
        XCTAssertEqual(decide(fresh, [("Cache-Control", "min-fresh=55")], at: 10), .validate)
        XCTAssertEqual(decide(fresh, [("Cache-Control", "min-fresh=50")], at: 10), .fresh(age: 10))
        XCTAssertEqual(decide(fresh, [("Cache-Control", "max-stale=10")], at: 65), .fresh(age: 65))
        XCTAssertEqual(decide(fresh, [("Cache-Control", "max-stale=1")], at: 65), .validate)
        XCTAssertEqual(decide(fresh, [("Cache-Control", "max-stale")], at: 6500), .fresh(age: 6500))
        XCTAssertEqual(decide(fresh, [("Cache-Control", "no-cache")], at: 1), .validate)
        XCTAssertEqual(decide(fresh, [("Pragma", "no-cache")], at: 1), .validate)
        XCTAssertEqual(decide(fresh, [("Pragma", "no-cache"), ("Cache-Control", "max-age=100")], at: 1), .fresh(age: 1),
                       "Pragma counts only without Cache-Control")
        let strict = head(200, [("Date", date(0)), ("Cache-Control", "max-age=60, must-revalidate")])
        XCTAssertEqual(decide(strict, [("Cache-Control", "max-stale")], at: 65), .validate)
        let noCache = head(200, [("Date", date(0)), ("Cache-Control", "no-cache, max-age=60")])
        XCTAssertEqual(decide(noCache, at: 1), .validate)
        XCTAssertEqual(CacheRules.decide(request: HTTPHeaders(), stored: fresh, requestTime: t0, responseTime: t0, now: t0 + 1,
                                         refresh: true), .validate)
    }

    func testVary() {
        let stored = HTTPHeaders([.init(name: "Accept-Language", value: "en, fr")])
        XCTAssertTrue(CacheRules.varyMatches(storedVary: ["accept-language"], storedRequest: stored,
                                             request: HTTPHeaders([.init(name: "accept-language", value: "en,fr")])))
        XCTAssertFalse(CacheRules.varyMatches(storedVary: ["accept-language"], storedRequest: stored,
                                              request: HTTPHeaders([.init(name: "Accept-Language", value: "de")])))
        XCTAssertFalse(CacheRules.varyMatches(storedVary: ["accept-language"], storedRequest: stored, request: HTTPHeaders()))
        XCTAssertFalse(CacheRules.varyMatches(storedVary: ["*"], storedRequest: stored, request: stored))
        // An absent field matches only its absence, not an empty value (§4.1).
        let empty = HTTPHeaders([.init(name: "Accept-Language", value: "")])
        XCTAssertFalse(CacheRules.varyMatches(storedVary: ["accept-language"], storedRequest: HTTPHeaders(), request: empty))
        XCTAssertFalse(CacheRules.varyMatches(storedVary: ["accept-language"], storedRequest: empty, request: HTTPHeaders()))
        XCTAssertTrue(CacheRules.varyMatches(storedVary: ["accept-language"], storedRequest: empty, request: empty))
        XCTAssertTrue(CacheRules.varyMatches(storedVary: ["accept-language"], storedRequest: HTTPHeaders(), request: HTTPHeaders()))
        XCTAssertEqual(CacheRules.varyNames(" Accept ,X-A,,"), ["accept", "x-a"])
    }

    func testValidatorsAnd304Merging() {
        let stored = head(200, [("Content-Length", "5"), ("ETag", "\"a\""), ("Last-Modified", date(-5)), ("X-Old", "1"),
                                ("Cache-Control", "max-age=0")])
        XCTAssertEqual(CacheRules.conditionalHeaders(stored).map(\.name), ["If-None-Match", "If-Modified-Since"])
        XCTAssertEqual(CacheRules.conditionalHeaders(head(200, [])), [])
        let update = HTTPHeaders([.init(name: "Cache-Control", value: "max-age=60"), .init(name: "Content-Length", value: "0"),
                                  .init(name: "X-New", value: "2")])
        let merged = CacheRules.merge(stored: stored, notModified: update, receivedAt: 1_800_000_000)
        // A 304 without Date gets the time it came (RFC 9110 §6.6.1).
        XCTAssertEqual(merged.headers.fields.map(\.name), ["Content-Length", "ETag", "Last-Modified", "X-Old", "Cache-Control", "X-New", "Date"])
        XCTAssertEqual(merged.headers["Date"], "Fri, 15 Jan 2027 08:00:00 GMT")
        let dated = CacheRules.merge(stored: head(200, [("Date", date(-100)), ("X-A", "1")]),
                                     notModified: HTTPHeaders([.init(name: "Date", value: date(-1))]), receivedAt: 1_800_000_000)
        XCTAssertEqual(dated.headers.fields.map(\.name), ["Date", "X-A"])
        XCTAssertEqual(dated.headers["Date"], date(-1))
        XCTAssertEqual(merged.headers["Content-Length"], "5", "a 304 never changes the stored body's length")
        XCTAssertEqual(merged.headers["Cache-Control"], "max-age=60")
        XCTAssertEqual(merged.status, 200)
        XCTAssertTrue(CacheRules.notModifiedSelects(stored, HTTPHeaders([.init(name: "ETag", value: "W/\"a\"")]), now: t0))
        XCTAssertFalse(CacheRules.notModifiedSelects(stored, HTTPHeaders([.init(name: "ETag", value: "\"b\"")]), now: t0))
        XCTAssertTrue(CacheRules.notModifiedSelects(stored, HTTPHeaders(), now: t0))
        // Without a tag, another Last-Modified is another version; the same one (however
        // written) selects.
        let modifiedOnly = head(200, [("Last-Modified", "Sun, 06 Nov 1994 08:49:37 GMT")])
        XCTAssertFalse(CacheRules.notModifiedSelects(modifiedOnly, HTTPHeaders([.init(name: "Last-Modified", value: "Sun, 06 Nov 1994 08:49:38 GMT")]), now: t0))
        XCTAssertTrue(CacheRules.notModifiedSelects(modifiedOnly, HTTPHeaders([.init(name: "Last-Modified", value: "Sunday, 06-Nov-94 08:49:37 GMT")]), now: t0))
        XCTAssertTrue(CacheRules.notModifiedSelects(modifiedOnly, HTTPHeaders(), now: t0))
        // A two-digit year is read against the clock (it was 1924 for `24`, another version).
        let recent = head(200, [("Last-Modified", "Mon, 01 Jan 2024 00:00:00 GMT")])
        XCTAssertTrue(CacheRules.notModifiedSelects(recent, HTTPHeaders([.init(name: "Last-Modified", value: "Monday, 01-Jan-24 00:00:00 GMT")]), now: t0))
        // Weak comparison, a 304's strong tag too: nginx's gzip stores W/"v", its 304 says "v".
        let weakStored = head(200, [("ETag", "W/\"v\"")])
        XCTAssertTrue(CacheRules.notModifiedSelects(weakStored, HTTPHeaders([.init(name: "ETag", value: "\"v\"")]), now: t0))
        XCTAssertFalse(CacheRules.notModifiedSelects(weakStored, HTTPHeaders([.init(name: "ETag", value: "\"w\"")]), now: t0))
        // ... and the stored weak tag stays weak.
        XCTAssertEqual(CacheRules.merge(stored: weakStored, notModified: HTTPHeaders([.init(name: "ETag", value: "\"v\"")]), receivedAt: 0).headers["ETag"], "W/\"v\"")
        XCTAssertTrue(CacheRules.notModifiedSelects(weakStored, HTTPHeaders([.init(name: "ETag", value: "W/\"v\"")]), now: t0))
        XCTAssertTrue(CacheRules.notModifiedSelects(head(200, [("ETag", "\"v\"")]), HTTPHeaders([.init(name: "ETag", value: " \"v\"")]), now: t0))
    }

    func testInvalidation() {
        let url = "http://a.example:8080/x"
        let h = head(201, [("Location", "/y"), ("Content-Location", "http://other.example/z")])
        let resolve = { (v: String) -> String? in URLReference.resolve(v, against: url) }
        XCTAssertEqual(CacheRules.invalidatedURLs(method: .post, url: url, response: h, resolve: resolve),
                       [url, "http://a.example:8080/y"])
        XCTAssertEqual(CacheRules.invalidatedURLs(method: .get, url: url, response: h, resolve: resolve), [])
        XCTAssertEqual(CacheRules.invalidatedURLs(method: .delete, url: url, response: head(404, []), resolve: resolve), [])
    }
}
