import XCTest
@testable import SwurlCache
import SwurlCore

/// `CacheEntry.Summary`, what `swurl cache list` reads of an entry instead of decoding it: it
/// must say what the decoded entry says, and exist exactly when the entry decodes.
final class CacheEntrySummaryTests: XCTestCase {
    private let t0 = 1_800_000_000.0

    private func makeEntry(url: String = "http://h/x?a=1", status: Int = 200, _ fields: [(String, String)]) -> CacheEntry {
        CacheEntry(url: url, method: "GET", requestTime: t0 - 0.25, responseTime: t0,
                   varyRequest: HTTPHeaders([.init(name: "accept", value: "text/plain")]),
                   head: HTTPResponseHead(version: "HTTP/1.1", status: status, reason: "OK",
                                          headers: HTTPHeaders(fields.map { HTTPHeaders.Field(name: $0.0, value: $0.1) })))
    }

    private func summary(_ head: [UInt8]) -> CacheEntry.Summary? {
        head.withUnsafeBufferPointer { CacheEntry.summary(head: $0) }
    }

    func testSummaryAgreesWithTheDecodedEntry() throws {
        let date = HTTPDate.format(t0 - 100)
        let heads = [
            makeEntry([("Date", date), ("Cache-Control", "max-age=60")]),
            makeEntry([("date", date), ("CACHE-CONTROL", "public"), ("Cache-Control", "max-age=5, no-cache"), ("Age", " 7")]),
            makeEntry([("Date", date), ("Expires", "0"), ("ETag", "\"v\"")]),
            makeEntry(status: 203, [("Date", "not a date"), ("Last-Modified", HTTPDate.format(t0 - 10_000)), ("Date", date)]),
            makeEntry(url: "http://h/é", [("Expires", HTTPDate.format(t0 + 600)), ("X-Empty", "")]),
            // Two Expires are as good as an invalid one (in the past), however valid each is.
            makeEntry([("Date", date), ("Expires", HTTPDate.format(t0 + 600)), ("Expires", HTTPDate.format(t0 + 600))]),
            // The obsolete forms a recipient must read (RFC 850 with a two-digit year, asctime).
            makeEntry([("Date", "Sunday, 06-Nov-94 08:49:37 GMT"), ("Last-Modified", "Sun Nov  6 08:49:37 1994")]),
        ]
        for e in heads {
            let s = try XCTUnwrap(summary(e.encodedHead()), "\(e.head.headers)")
            let f = CacheRules.Freshness(e.head, responseTime: e.responseTime)
            XCTAssertEqual(s.url, e.url)
            XCTAssertEqual(s.urlIsASCII, e.url.utf8.allSatisfy { $0 < 0x80 })
            XCTAssertEqual(s.status, e.head.status)
            XCTAssertEqual(s.requestTime, e.requestTime)
            XCTAssertEqual(s.responseTime, e.responseTime)
            XCTAssertEqual(s.freshness.cacheControl, f.cacheControl)
            XCTAssertEqual(s.freshness.date, f.date)
            XCTAssertEqual(s.freshness.expires, f.expires)
            XCTAssertEqual(s.freshness.lastModified, f.lastModified)
            XCTAssertEqual(s.freshness.age, f.age)
            XCTAssertEqual(s.hasValidator, !CacheRules.conditionalHeaders(e.head).isEmpty)
            XCTAssertEqual(CacheRules.freshnessLifetime(s.freshness, responseTime: s.responseTime),
                           CacheRules.freshnessLifetime(e.head, responseTime: e.responseTime))
            XCTAssertEqual(CacheRules.currentAge(s.freshness, requestTime: s.requestTime, responseTime: s.responseTime, now: t0 + 5),
                           CacheRules.currentAge(e.head, requestTime: e.requestTime, responseTime: e.responseTime, now: t0 + 5))
        }
    }

    func testMalformedHeadsHaveNoSummary() {
        let ok = "url x\nmethod GET\nrequest-time 1\nresponse-time 1\nstatus HTTP/1.1 200\n"
        let heads: [[UInt8]] = [
            Array("url x\n".utf8), [0xFF, 0xFE], Array((ok + "h X: ").utf8) + [0xFF, 0x0A],
            Array(ok.replacingOccurrences(of: "200", with: "abc").utf8),
            Array(ok.replacingOccurrences(of: "200", with: "99").utf8),
            Array(ok.replacingOccurrences(of: "request-time 1", with: "request-time nan").utf8),
            Array(ok.replacingOccurrences(of: "response-time 1", with: "response-time inf").utf8),
            Array(ok.replacingOccurrences(of: "method GET\n", with: "").utf8),
            Array((ok + "bogus line\n").utf8), Array((ok + "h NoColonSpace\n").utf8), Array((ok + "url\n").utf8),
        ]
        for h in heads {
            XCTAssertNil(summary(h), String(decoding: h, as: UTF8.self))
            XCTAssertNil(CacheEntry.decode(head: h))
        }
        XCTAssertNotNil(summary(Array(ok.utf8)))
        XCTAssertNotNil(CacheEntry.decode(head: Array(ok.utf8)))
    }

    func testURLOrderIsStringOrder() throws {
        let urls = ["http://h/b", "http://h/a", "http://h/A\u{30A}", "http://h/\u{C5}", "http://h/ab", "http://h/", "http://h/Z",
                    "http://h/e\u{301}", "http://h/\u{E9}x", "http://h/~"]
        let summaries = try urls.map { try XCTUnwrap(summary(makeEntry(url: $0, [("Date", "x")]).encodedHead())) }
        for a in summaries {
            for b in summaries {
                XCTAssertEqual(CacheEntry.Summary.urlPrecedes(a, b), a.url < b.url, "\(a.url) < \(b.url)")
            }
        }
    }
}
