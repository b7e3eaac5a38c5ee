import XCTest
@testable import SwurlCLI

final class LatencySketchTests: XCTestCase {
    func testPercentilesAreWithinOnePercentOfTheExactOnes() throws {
        var sketch = LatencySketch()
        // 1 ms … 10 s, not in order.
        let samples = (1...10_000).map { Double(($0 * 7919) % 10_000 + 1) / 1000 }
        for s in samples { sketch.add(s) }
        let sorted = samples.sorted()
        XCTAssertEqual(sketch.count, 10_000)
        XCTAssertEqual(sketch.max, 10)
        for f in [0.5, 0.9, 0.99] {
            let exact = sorted[Int((f * Double(sorted.count)).rounded(.up)) - 1]
            let p = try XCTUnwrap(sketch.percentile(f))
            XCTAssertLessThanOrEqual(abs(p - exact) / exact, 0.01, "p\(Int(f * 100)): \(p) vs \(exact)")
        }
        XCTAssertEqual(sketch.percentile(1), 10)
    }

    func testEmptyOddAndTinySamples() {
        var sketch = LatencySketch()
        XCTAssertNil(sketch.percentile(0.5))
        sketch.add(.nan)
        sketch.add(.infinity)
        XCTAssertEqual(sketch.count, 0)
        sketch.add(0)
        sketch.add(-1)
        XCTAssertEqual(sketch.count, 2)
        XCTAssertEqual(sketch.percentile(0.5), 0)
        sketch.add(1e9)
        XCTAssertEqual(sketch.max, 1e9)
        XCTAssertEqual(sketch.percentile(1), 1e9, "beyond the last bucket the maximum is exact")
    }
}
