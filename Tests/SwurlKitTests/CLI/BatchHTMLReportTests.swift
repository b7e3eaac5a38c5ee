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

    func testNumbersAreWrittenWithTheirDecimals() {
        XCTAssertEqual(BatchHTMLReport.fixed(0, 3), "0.000")
        XCTAssertEqual(BatchHTMLReport.fixed(1.2346, 3), "1.235")
        XCTAssertEqual(BatchHTMLReport.fixed(0.0042, 6), "0.004200")
        XCTAssertEqual(BatchHTMLReport.fixed(-2.5, 0), "-3")
        XCTAssertEqual(BatchHTMLReport.fixed(-0.0001, 2), "0.00")
        XCTAssertEqual(BatchHTMLReport.fixed(-12.34, 1), "-12.3")
        XCTAssertEqual(BatchHTMLReport.fixed(123456.5, 0), "123457")
        XCTAssertEqual(BatchHTMLReport.fixed(.nan, 2), "0")
        XCTAssertEqual(BatchHTMLReport.percent(1, of: 3), "33.333")
        XCTAssertEqual(BatchHTMLReport.percent(5, of: 0), "0")
        XCTAssertEqual(BatchHTMLReport.duration(12.34), "12.3 s")
        XCTAssertEqual(BatchHTMLReport.duration(1.234), "1.23 s")
        XCTAssertEqual(BatchHTMLReport.duration(0.1234), "123 ms")
        XCTAssertEqual(BatchHTMLReport.duration(0.01234), "12.3 ms")
        XCTAssertEqual(BatchHTMLReport.duration(0.000123), "123 µs")
    }
}
