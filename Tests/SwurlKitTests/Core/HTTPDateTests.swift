import XCTest
import SwurlCore
import Glibc

final class HTTPDateTests: XCTestCase {
    func testParsesAndFormatsIMFFixdate() {
        XCTAssertEqual(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT"), 784_111_777)
        XCTAssertEqual(HTTPDate.format(784_111_777), "Sun, 06 Nov 1994 08:49:37 GMT")
        XCTAssertNil(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT"))
        XCTAssertNil(HTTPDate.parse("0"))
        XCTAssertNil(HTTPDate.parse("Sun, 32 Nov 1994 08:49:37 GMT"))
        XCTAssertEqual(HTTPDate.format(.nan), "Thu, 01 Jan 1970 00:00:00 GMT")
    }

    /// The byte parser's arithmetic agrees with timegm(3), which it replaced, on every day of
    /// leap and common years, past month ends (which timegm runs into the next month) and
    /// a leap second.
    func testAgreesWithTimegmOnEveryDay() {
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        for year in [1000, 1899, 1900, 1970, 1999, 2000, 2024, 2100, 9999] {
            for (m, name) in months.enumerated() {
                for day in 1...31 {
                    var t = tm()
                    t.tm_year = Int32(year - 1900); t.tm_mon = Int32(m); t.tm_mday = Int32(day)
                    t.tm_hour = 23; t.tm_min = 59; t.tm_sec = 60
                    let expected = Double(timegm(&t))
                    let text = "Mon, \(day < 10 ? "0" : "")\(day) \(name) \(year) 23:59:60 GMT"
                    XCTAssertEqual(HTTPDate.parse(text), expected, text)
                }
            }
        }
        XCTAssertEqual(HTTPDate.parse("  Sun,  06 Nov 1994 08:49:37 GMT\r\n"), 784_111_777)
        XCTAssertNil(HTTPDate.parse("Sun, 06 nov 1994 08:49:37 GMT"))
        XCTAssertNil(HTTPDate.parse("Sun, 06 Nov 1994 08:49 GMT"))
        XCTAssertNil(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 UTC"))
        XCTAssertNil(HTTPDate.parse("Sun, 06 Nov 94 08:49:37 GMT"))
        XCTAssertNil(HTTPDate.parse("Sun,\t06 Nov 1994 08:49:37 GMT"))
        XCTAssertNil(HTTPDate.parse("Sun, 06 Nov 1994 24:00:00 GMT"))
    }
}
