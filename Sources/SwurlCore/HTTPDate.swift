#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// HTTP dates (RFC 9110 §5.6.7): `Sun, 06 Nov 1994 08:49:37 GMT`. Used by `Retry-After` and by
/// the cache's `Date`, `Expires`, `Last-Modified` and `If-Modified-Since`.
package enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]

    /// Seconds since the epoch of an IMF-fixdate; nil for anything else (the obsolete RFC 850
    /// and asctime forms are not accepted: a recipient may treat them as invalid).
    package static func parse(_ value: String) -> Double? {
        // By bytes and by arithmetic (no String splitting, no timegm): `swurl cache list`
        // parses a Date per entry.
        var text = value
        return text.withUTF8 { parse(bytes: $0) }
    }

    /// `parse` of a value in bytes (`swurl cache list` reads them from an entry's head).
    package static func parse(bytes b: UnsafeBufferPointer<UInt8>) -> Double? {
        // Trimmed as trimmingSpaces trims, then words between spaces: WKDAY, DD MON YYYY HH:MM:SS GMT
        var lo = 0, hi = b.count
        while lo < hi && (b[lo] == 0x20 || b[lo] == 0x09) { lo += 1 }
        while hi > lo && (b[hi - 1] == 0x20 || b[hi - 1] == 0x09 || b[hi - 1] == 0x0D || b[hi - 1] == 0x0A) { hi -= 1 }
        // Runs of bytes between separators (runs of them count as one, as split(separator:)
        // counts them), into fixed slots: nothing allocated (a listing parses two per entry).
        func pieces(_ r: Range<Int>, _ separator: UInt8, _ slots: UnsafeMutableBufferPointer<Range<Int>>) -> Int {
            var n = 0, i = r.lowerBound
            while i < r.upperBound {
                while i < r.upperBound && b[i] == separator { i += 1 }
                guard i < r.upperBound else { break }
                let start = i
                while i < r.upperBound && b[i] != separator { i += 1 }
                guard n < slots.count else { return n + 1 }
                slots[n] = start..<i
                n += 1
            }
            return n
        }
        func digits(_ r: Range<Int>) -> Int? {
            guard !r.isEmpty, r.count <= 4 else { return nil }
            var n = 0
            for k in r {
                guard b[k] >= 0x30 && b[k] <= 0x39 else { return nil }
                n = n * 10 + Int(b[k] - 0x30)
            }
            return n
        }
        func equal(_ r: Range<Int>, _ text: StaticString) -> Bool {
            guard r.count == text.utf8CodeUnitCount else { return false }
            let t = text.utf8Start
            for (j, k) in r.enumerated() where b[k] != t[j] { return false }
            return true
        }
        return withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: 9) { slots -> Double? in
            let words = UnsafeMutableBufferPointer(rebasing: slots[0..<6]), clock = UnsafeMutableBufferPointer(rebasing: slots[6...])
            // IMF-fixdate has a four-digit year; anything else (a server's 99999999999) is unusable.
            guard pieces(lo..<hi, 0x20, words) == 6, equal(words[5], "GMT"), let day = digits(words[1]), words[3].count == 4,
                  let year = digits(words[3]), (1000...9999).contains(year) else { return nil }
            guard let month = monthWords.firstIndex(where: { equal(words[2], $0) }) else { return nil }
            guard pieces(words[4], 0x3A, clock) == 3, let hour = digits(clock[0]), let minute = digits(clock[1]),
                  let second = digits(clock[2]), (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute),
                  (0...60).contains(second) else {
                return nil
            }
            return Double(daysFromCivil(year: year, month: month + 1, day: day) * 86_400 + hour * 3600 + minute * 60 + second)
        }
    }

    private static let monthWords: [StaticString] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Days since 1970-01-01 of a proleptic Gregorian date, as timegm(3) counts them (a day
    /// past the month's end runs into the next month, as timegm normalises it).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The IMF-fixdate of `seconds` since the epoch.
    package static func format(_ seconds: Double) -> String {
        var t = tm()
        var s = time_t(seconds.isFinite ? max(0, min(seconds, 253_402_300_799)) : 0)
        gmtime_r(&s, &t)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let wd = days[Int(max(0, min(6, t.tm_wday)))], mon = months[Int(max(0, min(11, t.tm_mon)))]
        return "\(wd), \(two(t.tm_mday)) \(mon) \(t.tm_year + 1900) \(two(t.tm_hour)):\(two(t.tm_min)):\(two(t.tm_sec)) GMT"
    }
}
