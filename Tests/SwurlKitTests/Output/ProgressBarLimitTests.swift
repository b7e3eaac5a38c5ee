import XCTest
@testable import SwurlOutput
@testable import SwurlCore

/// A server's Content-Length reaches the progress bar unchecked: no value may trap there.
final class ProgressBarLimitTests: XCTestCase {
    func testAbsurdDurationsShowDashes() {
        XCTAssertEqual(ProgressBar.duration(9.2e18 * 2), "--:--")
        XCTAssertEqual(ProgressBar.duration(1e300), "--:--")
        XCTAssertEqual(ProgressBar.duration(-1), "--:--")
        XCTAssertEqual(ProgressBar.duration(.nan), "--:--")
        XCTAssertEqual(ProgressBar.duration(3725), "1:02:05")
    }

    func testAHugeTotalAtATinyRateDoesNotTrap() {
        var now = 0.0
        let bar = ProgressBar(sink: MemorySink(), label: "huge.bin", columns: 80, clock: { now })
        now = 5
        let line = bar.line(done: 1, total: Int64.max, now: now, final: false)
        XCTAssertTrue(line.contains("ETA --:--"), line)
        let fast = bar.line(done: Int64.max, total: Int64.max, now: 0, final: true)
        XCTAssertTrue(fast.contains("100%"), fast)
    }
}
