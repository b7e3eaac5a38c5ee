import XCTest
@testable import SwurlCLI
@testable import SwurlEngine

/// The CLI words the session's retry events as it always did.
final class SwurlTransferSupportTests: XCTestCase {
    func testAStatusRetryNamesTheStatusWithItsReasonMadeSafe() {
        let notice = RetryNotice(cause: .status(503, reason: "Busy\u{1b}]0;x\u{07}"), delay: 2.57, retry: 1, maxRetries: 3)
        XCTAssertEqual(Swurl.retryLine(notice), "swurl: HTTP 503 Busy\\x1b]0;x\\x07; retrying in 2.5 s (retry 1 of 3)")
    }

    func testAFailureRetryQuotesTheErrorMessage() {
        let notice = RetryNotice(cause: .failure(.timedOut("timed out after 1 second without data")),
                                 delay: 120.9, retry: 2, maxRetries: 2)
        XCTAssertEqual(Swurl.retryLine(notice),
                       "swurl: timed out after 1 second without data; retrying in 120 s (retry 2 of 2)")
        let short = RetryNotice(cause: .status(503, reason: "Busy"), delay: 0.1, retry: 1, maxRetries: 1)
        XCTAssertEqual(Swurl.retryLine(short), "swurl: HTTP 503 Busy; retrying in 0.1 s (retry 1 of 1)")
    }
}
