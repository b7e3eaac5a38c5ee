import XCTest
@testable import SwurlEngine

final class RetryPolicyTests: XCTestCase {
    func testBackoffDoublesWithJitterInTheUpperHalf() {
        var p = RetryPolicy()
        p.baseDelay = 1
        XCTAssertEqual(p.delay(retry: 0, retryAfter: nil, random: 0), 0.5)
        XCTAssertEqual(p.delay(retry: 0, retryAfter: nil, random: 1), 1)
        XCTAssertEqual(p.delay(retry: 3, retryAfter: nil, random: 1), 8)
        XCTAssertEqual(p.delay(retry: 30, retryAfter: nil, random: 1), p.maxDelay)
        XCTAssertEqual(p.delay(retry: 3, retryAfter: 7, random: 0.3), 7, "Retry-After wins")
    }

    func testOnlyIdempotentMethodsUnlessAllMethods() {
        var p = RetryPolicy()
        XCTAssertFalse(p.allows(method: "GET"), "no retries by default")
        p.maxRetries = 2
        XCTAssertTrue(p.allows(method: "GET"))
        XCTAssertTrue(p.allows(method: "PUT"))
        XCTAssertFalse(p.allows(method: "POST"))
        XCTAssertFalse(p.allows(method: "PATCH"))
        p.allMethods = true
        XCTAssertTrue(p.allows(method: "POST"))
    }

    func testRetryAfterSecondsAndDates() {
        XCTAssertEqual(RetryPolicy.parseRetryAfter("120", now: 0), 120)
        // Sun, 06 Nov 1994 08:49:37 GMT is 784111777.
        XCTAssertEqual(RetryPolicy.parseRetryAfter("Sun, 06 Nov 1994 08:49:37 GMT", now: 784_111_767), 10)
        XCTAssertEqual(RetryPolicy.parseRetryAfter("Sun, 06 Nov 1994 08:49:37 GMT", now: 784_111_800), 0)
        XCTAssertNil(RetryPolicy.parseRetryAfter("soon", now: 0))
        XCTAssertNil(RetryPolicy.parseRetryAfter("-5", now: 0))
        // delay-seconds is digits only: a sign is no delay (it was read as 5).
        XCTAssertNil(RetryPolicy.parseRetryAfter("+5", now: 0))
        XCTAssertEqual(RetryPolicy.parseRetryAfter(" 7 ", now: 0), 7)
        // Past Int's range: as long as any wait, so the cap (it fell back to a second's backoff).
        XCTAssertEqual(RetryPolicy.parseRetryAfter("99999999999999999999", now: 0), .greatestFiniteMagnitude)
        XCTAssertEqual(RetryPolicy().delay(retry: 0, retryAfter: .greatestFiniteMagnitude, random: 0), RetryPolicy.retryAfterLimit)
    }
}
