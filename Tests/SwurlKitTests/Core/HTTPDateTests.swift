import XCTest
import SwurlCore
import Glibc

final class HTTPDateTests: XCTestCase {
    /// 2026-12-03, the clock an RFC 850 two-digit year is read against.
    private let now = 1_796_300_000.0

    func testParsesAndFormatsIMFFixdate() {
        XCTAssertEqual(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT", now: now), 784_111_777)
        XCTAssertEqual(HTTPDate.format(784_111_777), "Sun, 06 Nov 1994 08:49:37 GMT")
        XCTAssertNil(HTTPDate.parse("0", now: now))
        XCTAssertNil(HTTPDate.parse("Sun, 32 Nov 1994 08:49:37 GMT", now: now))
        // A day the month lacks is no date (it was rolled into the next month).
        XCTAssertNil(HTTPDate.parse("Wed, 31 Feb 2027 08:49:37 GMT", now: now))
        XCTAssertNil(HTTPDate.parse("Sat, 31 Apr 2027 08:49:37 GMT", now: now))
        XCTAssertNil(HTTPDate.parse("Sun, 29 Feb 2100 08:49:37 GMT", now: now))
        XCTAssertNotNil(HTTPDate.parse("Tue, 29 Feb 2000 08:49:37 GMT", now: now))
        XCTAssertNotNil(HTTPDate.parse("Sun, 29 Feb 2028 08:49:37 GMT", now: now))
        XCTAssertNotNil(HTTPDate.parse("Tue, 31 Dec 2024 08:49:37 GMT", now: now))
        XCTAssertEqual(HTTPDate.format(.nan), "Thu, 01 Jan 1970 00:00:00 GMT")
    }

    /// The byte parser's arithmetic agrees with timegm(3), which it replaced, on every day of
    /// leap and common years and a leap second; a day past the month's end, which timegm runs
    /// into the next month, is no date.
    func testAgreesWithTimegmOnEveryDay() {
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        for year in [1000, 1899, 1900, 1970, 1999, 2000, 2024, 2100, 9999] {
            for (m, name) in months.enumerated() {
                for day in 1...31 {
                    var t = tm()
                    t.tm_year = Int32(year - 1900); t.tm_mon = Int32(m); t.tm_mday = Int32(day)
                    t.tm_hour = 23; t.tm_min = 59; t.tm_sec = 60
                    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
                    let length = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m]
                    let expected: Double? = day <= length ? Double(timegm(&t)) : nil
                    let text = "Mon, \(day < 10 ? "0" : "")\(day) \(name) \(year) 23:59:60 GMT"
                    XCTAssertEqual(HTTPDate.parse(text, now: now), expected, text)
                }
            }
        }
        XCTAssertEqual(HTTPDate.parse("  Sun, 06 Nov 1994 08:49:37 GMT\r\n", now: now), 784_111_777)
        XCTAssertNil(HTTPDate.parse("Sun, 06 Nov 1994 08:49 GMT", now: now))
        XCTAssertNil(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 UTC", now: now))
        XCTAssertNil(HTTPDate.parse("Sun, 06 Nov 94 08:49:37 GMT", now: now))
        XCTAssertNil(HTTPDate.parse("Sun,\t06 Nov 1994 08:49:37 GMT", now: now))
        XCTAssertNil(HTTPDate.parse("Sun, 06 Nov 1994 24:00:00 GMT", now: now))
    }

    /// RFC 9110 §5.6.7: the obsolete RFC 850 and asctime forms are read; names in any case.
    func testReadsTheObsoleteFormsAndNamesInAnyCase() {
        XCTAssertEqual(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT", now: now), 784_111_777)
        XCTAssertEqual(HTTPDate.parse("Sun Nov  6 08:49:37 1994", now: now), 784_111_777)
        XCTAssertEqual(HTTPDate.parse("Sun Nov 16 08:49:37 1994", now: now), 784_111_777 + 10 * 86_400)
        XCTAssertEqual(HTTPDate.parse("SUN, 06 nov 1994 08:49:37 gmt", now: now), 784_111_777)
        // A two-digit year more than 50 years ahead is of the century before.
        XCTAssertEqual(HTTPDate.parse("Thursday, 18-Aug-50 02:01:18 GMT", now: now),
                       HTTPDate.parse("Thu, 18 Aug 2050 02:01:18 GMT", now: now))
        XCTAssertEqual(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT", now: now), HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT", now: now))
    }

    /// What is none of the three forms is no date (the cache-tests suite's invalid `Expires`).
    func testRejectsNearMisses() {
        for text in ["Thu 18 Aug 2050 02:01:18 GMT", "Thu, 18  Aug  2050 02:01:18 GMT", "Thu, 18-Aug-2050 02:01:18 GMT",
                     "Thu, 18 Aug 2050 02.01.18 GMT", "Thu, 18 Aug 2050 2:01:18 GMT", "Thu, 18 Aug 2050 02:01:18 AEST",
                     "Thu, 18 Aug 2050 02:01:18 GMT x", "Thursday, 18-Aug-2050 02:01:18 GMT", "Thu, 18-Aug-50 02:01:18 GMT",
                     "Thu Aug 8 02:01:18 2050", "Thu Aug  8 02:01:18 50", "Thx, 18 Aug 2050 02:01:18 GMT", ""] {
            XCTAssertNil(HTTPDate.parse(text, now: now), text)
        }
    }

    /// A cookie's Expires is read as RFC 6265 §5.1.1 reads it (libcurl's jar and browsers alike):
    /// the dashed form most servers send lost its HAR `expires` under the HTTP-date parser.
    func testCookieDatesAsRFC6265ReadsThem() {
        let jan2031 = 1_924_992_000.0
        for text in ["Wed, 01 Jan 2031 00:00:00 GMT", "Wed, 01-Jan-2031 00:00:00 GMT", "Wed, 01 Jan 2031 00:00:00 UTC",
                     "01 jan 31 00:00:00", "Wednesday, 01-Jan-31 00:00:00 GMT", "Wed Jan  1 00:00:00 2031", "2031 January 1 0:0:0",
                     "Wed, 1 Jan 2031 00:00:00 +0100"] {
            XCTAssertEqual(HTTPDate.cookieDate(text), jan2031, text)
        }
        XCTAssertEqual(HTTPDate.cookieDate("Fri, 31 Dec 9999 23:59:59 GMT"), HTTPDate.latest)
        XCTAssertEqual(HTTPDate.cookieDate("Thu, 01-Jan-70 00:00:01 GMT"), 1)
        // Two-digit years: 70–99 are the 1900s, 00–69 the 2000s.
        XCTAssertEqual(HTTPDate.cookieDate("01 Jan 69 00:00:00"), HTTPDate.cookieDate("01 Jan 2069 00:00:00"))
        // By the year's value, whatever its digits (§5.1.1).
        XCTAssertEqual(HTTPDate.cookieDate("01 Jan 031 00:00:00"), jan2031)
        XCTAssertEqual(HTTPDate.cookieDate("01 Jan 0070 00:00:00"), 0)
        for text in ["", "0", "Wed, 01 Jan 2031", "01 Jan 2031 24:00:00", "31 Feb 2031 00:00:00", "01 Jan 1600 00:00:00",
                     "01 Foo 2031 00:00:00", "001 Jan 2031 00:00:00", "01 Jan 2031 00:60:00", "Jan 2031 00:00:00"] {
            XCTAssertNil(HTTPDate.cookieDate(text), text)
        }
    }
}
