import XCTest
@testable import SwurlResponseSerialization

final class PropertyListDateTests: XCTestCase {
    func testYearsBefore1000AreZeroPaddedAndRoundTrip() throws {
        for text in ["0276-01-02T03:04:05Z", "0001-01-01T00:00:00Z", "0099-12-31T23:59:59Z", "0000-02-29T00:00:00Z",
                     "0999-06-15T12:00:00Z", "9999-12-31T23:59:59Z"] {
            let seconds = try XCTUnwrap(PropertyListDate.parse(text), text)
            XCTAssertEqual(PropertyListDate.format(seconds), text)
        }
    }

    func testYearsOutsideFourDigitsAreSigned() throws {
        let yearOne = try XCTUnwrap(PropertyListDate.parse("0001-01-01T00:00:00Z"))
        XCTAssertEqual(PropertyListDate.format(yearOne - 366 * 86400), "0000-01-01T00:00:00Z")   // year 0 is a leap year
        XCTAssertEqual(PropertyListDate.format(yearOne - (366 + 365) * 86400), "-0001-01-01T00:00:00Z")
        XCTAssertEqual(PropertyListDate.format(yearOne - (366 + 365) * 86400 - 1), "-0002-12-31T23:59:59Z")
        let lastSecond = try XCTUnwrap(PropertyListDate.parse("9999-12-31T23:59:59Z"))
        XCTAssertEqual(PropertyListDate.format(lastSecond + 1), "+10000-01-01T00:00:00Z")
        // About 158,000 years before 2001 (the days are checked by the round trips above).
        let ancient = PropertyListDate.format(-5e12)
        XCTAssertTrue(ancient.hasPrefix("-1564") && ancient.hasSuffix("Z") && ancient.count == 23, ancient)
    }

    /// A fraction that rounds to 1,000 ms is the next second (it was dropped: a second early).
    func testAFractionRoundingToAWholeSecondCarries() {
        XCTAssertEqual(PropertyListDate.format(0.9996), "2001-01-01T00:00:01Z")
        XCTAssertEqual(PropertyListDate.format(-0.0004), "2001-01-01T00:00:00Z")
        XCTAssertEqual(PropertyListDate.format(59.9999), "2001-01-01T00:01:00Z")
        XCTAssertEqual(PropertyListDate.format(0.25), "2001-01-01T00:00:00.250Z")
        XCTAssertEqual(PropertyListDate.format(-0.25), "2000-12-31T23:59:59.750Z")
    }

    /// A real of -0.0 keeps its sign (it was shown as 0).
    func testNegativeZeroKeepsItsSign() {
        let r = runDecoder("<plist><array><real>-0.0</real><real>0</real><real>-2</real></array></plist>", choice: .plist, terminal: false) { $0.plistAsJSON = true }
        XCTAssertEqual(r.text.filter { !$0.isWhitespace }, "[-0,0,-2]")
    }

    func testAnOldDateInABodyIsShownPadded() {
        let r = runDecoder("<plist><date>0276-01-02T03:04:05Z</date></plist>", choice: .plist, terminal: false) { $0.plistAsJSON = true }
        XCTAssertEqual(r.text, "\"0276-01-02T03:04:05Z\"")
    }
}
