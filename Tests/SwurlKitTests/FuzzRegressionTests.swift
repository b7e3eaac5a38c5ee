import XCTest
@testable import SwurlOutput
@testable import SwurlCore

/// Defects the fuzz targets found, each with the input that showed it (also kept in
/// Fuzz/corpus/<target>/regression-*).
final class FuzzRegressionTests: XCTestCase {
    /// content-range: `bytes 0-9/-91` was accepted with a total of -91 (Int64 parses signs).
    func testContentRangeRejectsSignsAndImpossibleTotals() {
        XCTAssertNil(ContentRange.parse("bytes 0-9/-91"))
        XCTAssertNil(ContentRange.parse("bytes 0-99/50"))
        XCTAssertNil(ContentRange.parse("bytes +0-+9/+10"))
        XCTAssertNil(ContentRange.parse("bytes 0-9223372036854775807/*"), "END + 1 must be a number")
        XCTAssertNil(ContentRange.unsatisfiedTotal("bytes */-5"))
        XCTAssertEqual(ContentRange.parse("bytes 0-99/100")?.total, 100)
        XCTAssertEqual(ContentRange.parse("bytes 5-9/*")?.start, 5)
        XCTAssertEqual(ContentRange.unsatisfiedTotal("bytes */100"), 100)
    }
}
