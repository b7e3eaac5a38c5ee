import XCTest
@testable import SwurlEngine

/// Server-chosen Retry-After values: never a trap, never a wait of years.
final class RetryAfterLimitTests: XCTestCase {
    func testAnImpossibleYearIsUnusable() {
        XCTAssertNil(RetryPolicy.parseRetryAfter("Sun, 06 Nov 99999999999 08:49:37 GMT", now: 0))
        XCTAssertNil(RetryPolicy.parseRetryAfter("Sun, 06 Nov -9223372036854775808 08:49:37 GMT", now: 0))
        XCTAssertNil(RetryPolicy.parseRetryAfter("Sun, 06 Nov 94 08:49:37 GMT", now: 0))
        XCTAssertNotNil(RetryPolicy.parseRetryAfter("Fri, 31 Dec 9999 23:59:59 GMT", now: 0))
    }

    func testTheHonouredDelayIsCapped() {
        let p = RetryPolicy()
        let huge = RetryPolicy.parseRetryAfter("9223372036854775807", now: 0)
        XCTAssertEqual(p.delay(retry: 0, retryAfter: huge, random: 0), RetryPolicy.retryAfterLimit)
        XCTAssertEqual(p.delay(retry: 0, retryAfter: 31_536_000, random: 0), RetryPolicy.retryAfterLimit)
        XCTAssertEqual(p.delay(retry: 0, retryAfter: .infinity, random: 0), RetryPolicy.retryAfterLimit)
        XCTAssertEqual(p.delay(retry: 0, retryAfter: .nan, random: 0), 0)
        XCTAssertEqual(p.delay(retry: 0, retryAfter: 42, random: 0), 42)
        var long = RetryPolicy()
        long.maxDelay = 600
        XCTAssertEqual(long.delay(retry: 0, retryAfter: 1e12, random: 0), 600)
    }

    func testWaitsAreDescribedWithoutTrapping() {
        XCTAssertEqual(RetryPolicy.describe(seconds: 2.56), "2.5")
        XCTAssertEqual(RetryPolicy.describe(seconds: 120), "120")
        // Below a second, hundredths rounded up: a short wait never reads as 0.0.
        XCTAssertEqual(RetryPolicy.describe(seconds: 0.1), "0.1")
        XCTAssertEqual(RetryPolicy.describe(seconds: 0.07), "0.07")
        XCTAssertEqual(RetryPolicy.describe(seconds: 0.051), "0.06")
        XCTAssertEqual(RetryPolicy.describe(seconds: 0.001), "0.01")
        XCTAssertEqual(RetryPolicy.describe(seconds: 0.999), "1.0")
        XCTAssertEqual(RetryPolicy.describe(seconds: 0), "0.0")
        XCTAssertEqual(RetryPolicy.describe(seconds: 1e-320), "0.01")
        XCTAssertEqual(RetryPolicy.describe(seconds: 1e-12), "0.01")
        XCTAssertEqual(Transfer.seconds(1), "1 second")
        XCTAssertEqual(Transfer.seconds(2), "2 seconds")
        XCTAssertEqual(Transfer.seconds(0.5), "0.5 seconds")
        XCTAssertFalse(RetryPolicy.describe(seconds: Double(Int.max)).isEmpty)
        XCTAssertFalse(RetryPolicy.describe(seconds: 1e300).isEmpty)
        XCTAssertEqual(RetryPolicy.describe(seconds: .nan), "0")
        XCTAssertEqual(RetryPolicy.describe(seconds: -.infinity), "0")
    }
}
