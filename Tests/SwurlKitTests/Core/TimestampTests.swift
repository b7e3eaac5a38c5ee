import XCTest
#if canImport(Glibc)
import Glibc
#endif
@testable import SwurlCore

final class TimestampTests: XCTestCase {
    private func byGmtime(_ seconds: Int) -> String {
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        func pad(_ v: Int32, _ n: Int) -> String { String(repeating: "0", count: max(0, n - String(v).count)) + String(v) }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2))"
    }

    /// The calendar by arithmetic (`HTTPDate.utc`) is gmtime(3)'s, weekday included: day and year
    /// ends, leap days (2000 is one, 2100 is not), the last second of 9999, and 20,000 seconds
    /// spread over the years between.
    func testSecondTextIsWhatGmtimeGives() {
        var seconds = [0, 59, 3599, 86_399, 86_400, 951_782_399, 951_782_400, 951_868_800, 4_107_542_399,
                       4_107_542_400, 1_798_761_599, 253_402_300_799]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 { seconds.append(Int.random(in: 0...253_402_300_799, using: &generator)) }
        for s in seconds {
            XCTAssertEqual(String(decoding: Timestamp.secondText(time_t(s)), as: UTF8.self), byGmtime(s), "second \(s)")
            var t = time_t(s)
            var parts = tm()
            gmtime_r(&t, &parts)
            XCTAssertEqual(HTTPDate.utc(s).weekday, Int(parts.tm_wday), "weekday of second \(s)")
        }
    }
}
