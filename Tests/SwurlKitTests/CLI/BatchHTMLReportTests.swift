import XCTest
@testable import SwurlCLI

/// `BatchHTMLReport`'s pure pieces.
final class BatchHTMLReportTests: XCTestCase {
    func testReasonLeavesOutLibcurlsElapsedTime() {
        XCTAssertEqual(BatchHTMLReport.reason("Failed to connect to 127.0.0.1 port 1 after 5 ms: Couldn't connect to server"),
                       "Failed to connect to 127.0.0.1 port 1: Couldn't connect to server")
        XCTAssertEqual(BatchHTMLReport.reason("Failed to connect to 127.0.0.1 port 1 after 0 ms: Couldn't connect to server"),
                       BatchHTMLReport.reason("Failed to connect to 127.0.0.1 port 1 after 1234 ms: Couldn't connect to server"))
        XCTAssertEqual(BatchHTMLReport.reason("HTTP 404 Not Found"), "HTTP 404 Not Found")
        XCTAssertEqual(BatchHTMLReport.reason("retried after 3 attempts"), "retried after 3 attempts")
        XCTAssertEqual(BatchHTMLReport.reason("after ms"), "after ms")
    }
}
