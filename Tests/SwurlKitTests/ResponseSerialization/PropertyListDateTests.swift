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

    func testAnOldDateInABodyIsShownPadded() {
        let r = runDecoder("<plist><date>0276-01-02T03:04:05Z</date></plist>", choice: .plist, terminal: false) { $0.plistAsJSON = true }
        XCTAssertEqual(r.text, "\"0276-01-02T03:04:05Z\"")
    }
}
