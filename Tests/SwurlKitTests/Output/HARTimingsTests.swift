import XCTest
@testable import SwurlOutput
@testable import SwurlCore

/// `HARTimings` (libcurl's counters → HAR `timings`) and the pure parsers of `HAREntryRecorder`.
final class HARTimingsTests: XCTestCase {
    private func timing(lookup: Double, connect: Double, tls: Double = 0, pre: Double, first: Double, total: Double,
                        newConnections: Int = 1) -> TransferTiming {
        var t = TransferTiming()
        t.nameLookup = lookup
        t.connect = connect
        t.appConnect = tls
        t.preTransfer = pre
        t.startTransfer = first
        t.total = total
        t.newConnections = newConnections
        return t
    }

    func testANewTLSConnectionSplitsIntoPhasesThatAddUpToTheTotal() {
        let h = HARTimings(timing(lookup: 0.001, connect: 0.003, tls: 0.010, pre: 0.0105, first: 0.050, total: 0.0625),
                           failed: false, sendSeconds: 0)
        XCTAssertEqual(h.dns, 1000)
        XCTAssertEqual(h.connect, 9000, "TLS counts in connect")
        XCTAssertEqual(h.ssl, 7000)
        XCTAssertEqual(h.blocked, 500)
        XCTAssertEqual(h.send, 0)
        XCTAssertEqual(h.wait, 39_500)
        XCTAssertEqual(h.receive, 12_500)
        XCTAssertEqual(h.total, 62_500)
        XCTAssertEqual(HARTimings.ms(h.total), "62.500")
    }

    func testAReusedConnectionHasNoDNSConnectOrSSL() {
        let h = HARTimings(timing(lookup: 0, connect: 0, pre: 0.0002, first: 0.004, total: 0.005, newConnections: 0),
                           failed: false, sendSeconds: 0)
        XCTAssertEqual([h.dns, h.connect, h.ssl], [-1, -1, -1])
        XCTAssertEqual(h.blocked, 200)
        XCTAssertEqual(h.total, 5000)
        XCTAssertEqual(HARTimings.ms(h.dns), "-1")
    }

    func testAnUploadSendsThenWaits() {
        // The first byte as Transfer.measuredTiming gives it for a body (libcurl 7.88's own is
        // the upload's start): sending the body is `send`, the rest up to it `wait`.
        let h = HARTimings(timing(lookup: 0.001, connect: 0.002, pre: 0.003, first: 0.093, total: 0.100),
                           failed: false, sendSeconds: 0.020)
        XCTAssertEqual(h.send, 20_000)
        XCTAssertEqual(h.wait, 70_000)
        XCTAssertEqual(h.receive, 7000)
        XCTAssertEqual(h.total, 100_000)
    }

    func testAFailureBeforeAnyResponseWaitsUntilTheEndAndStillAddsUp() {
        // Connected and sent, then no response until the timeout.
        let h = HARTimings(timing(lookup: 0.0004, connect: 0.0006, pre: 0.0007, first: 0, total: 0.5),
                           failed: true, sendSeconds: 0)
        XCTAssertEqual([h.dns, h.connect, h.blocked], [400, 200, 100])
        XCTAssertEqual(h.wait, 499_300)
        XCTAssertEqual(h.receive, 0)
        XCTAssertEqual(h.total, 500_000)
    }

    func testAConnectionThatNeverCameUpSpendsItsTimeConnecting() {
        // Refused (or a connect timeout): looked up, never connected, never ready to send.
        let refused = HARTimings(timing(lookup: 0.0004, connect: 0, pre: 0, first: 0, total: 0.0009, newConnections: 0),
                                 failed: true, sendSeconds: 0)
        XCTAssertEqual([refused.dns, refused.connect, refused.ssl], [400, 500, -1])
        XCTAssertEqual([refused.blocked, refused.send, refused.wait, refused.receive], [0, 0, 0, 0])
        XCTAssertEqual(refused.total, 900)
        // A TLS handshake that failed: connected, the rest of the time in `connect`.
        let handshake = HARTimings(timing(lookup: 0.001, connect: 0.002, pre: 0, first: 0, total: 0.010, newConnections: 1),
                                   failed: true, sendSeconds: 0)
        XCTAssertEqual([handshake.dns, handshake.connect, handshake.wait], [1000, 9000, 0])
        XCTAssertEqual(handshake.total, 10_000)
        // A name that does not resolve: no look-up time counted, the whole time in `dns`.
        let unresolved = HARTimings(timing(lookup: 0, connect: 0, pre: 0, first: 0, total: 0.0012, newConnections: 0),
                                    failed: true, sendSeconds: 0)
        XCTAssertEqual([unresolved.dns, unresolved.connect, unresolved.ssl, unresolved.wait], [1200, -1, -1, 0])
        XCTAssertEqual(unresolved.total, 1200)
    }

    func testCountersOutOfOrderNeverGiveANegativePhase() {
        let h = HARTimings(timing(lookup: 0.5, connect: 0.2, pre: 0.1, first: 0.05, total: 0.3), failed: false, sendSeconds: 9)
        for phase in [h.blocked, h.send, h.wait, h.receive] { XCTAssertGreaterThanOrEqual(phase, 0) }
        XCTAssertEqual(h.total, 300_000)
    }

    func testRequestHeadsQueriesAndTypes() {
        let head = HAREntryRecorder.parseRequestHead(Array("GET /a?x=1 HTTP/1.1\r\nHost: h:1\r\nX-A:  b \r\n\r\n".utf8))
        XCTAssertEqual(head.version, "HTTP/1.1")
        XCTAssertEqual(head.fields.map { [$0.name, $0.value] }, [["Host", "h:1"], ["X-A", "b"]])
        XCTAssertEqual(HAREntryRecorder.parseRequestHead([0xFF, 0x0A]).version, "")
        XCTAssertEqual(HAREntryRecorder.query(of: "http://h/p?a=%20b&c&d=e+f#x=y").map { [$0.name, $0.value] },
                       [["a", " b"], ["c", ""], ["d", "e+f"]])
        XCTAssertEqual(HAREntryRecorder.formPairs("a+b=c%26d").map { [$0.name, $0.value] }, [["a b", "c&d"]])
        XCTAssertTrue(HAREntryRecorder.isText("application/problem+json; charset=utf-8"))
        XCTAssertTrue(HAREntryRecorder.isText("text/html"))
        XCTAssertFalse(HAREntryRecorder.isText("image/png"))
        XCTAssertFalse(HAREntryRecorder.isText(nil))
    }

    func testTimestampsAreUTCWithMilliseconds() {
        XCTAssertEqual(Timestamp.iso8601(0), "1970-01-01T00:00:00.000Z")
        XCTAssertEqual(Timestamp.iso8601(1_796_000_000.0456), "2026-11-30T00:53:20.045Z")
    }

    func testATimestampFromTheSecondCacheIsTheSameAsAFreshOne() {
        // Same second, the next, one back, a day on, before 1970, and the same second again.
        var cache = Timestamp.SecondCache()
        for seconds in [1_796_000_000.0456, 1_796_000_000.999, 1_796_000_001.0, 1_795_999_999.5, 1_796_086_400.25, -1.5, -1.25, 1_796_000_000.1] {
            var out = ByteBuffer()
            Timestamp.appendISO8601(seconds, to: &out, cache: &cache)
            XCTAssertEqual(out.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }, Timestamp.iso8601(seconds), "\(seconds)")
        }
    }

    /// A cookie's name and value, and an attribute's key and value, without the blanks around
    /// `=` (RFC 6265 §5.2): `Cookie: f = g` was recorded as `"f "` and `" g"`.
    func testCookiePairsAreTrimmedAroundTheirEquals() {
        XCTAssertTrue(HAREntryRecorder.cookiePair("f = g") == ("f", "g"))
        XCTAssertTrue(HAREntryRecorder.cookiePair("TOKEN") == ("", "TOKEN"))
        XCTAssertTrue(HAREntryRecorder.split("Path =/x") == ("Path", "/x"))
        XCTAssertTrue(HAREntryRecorder.split("a=b=c") == ("a", "b=c"))
    }
}
