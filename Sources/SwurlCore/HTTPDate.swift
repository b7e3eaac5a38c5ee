#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// HTTP dates (RFC 9110 §5.6.7): `Sun, 06 Nov 1994 08:49:37 GMT`, and the obsolete forms a
/// recipient must read. Used by `Retry-After` and by
/// the cache's `Date`, `Expires`, `Last-Modified` and `If-Modified-Since`.
package enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]

    /// Seconds since the epoch of an HTTP date: an IMF-fixdate, or the obsolete RFC 850 and
    /// asctime forms, which RFC 9110 §5.6.7 says a recipient MUST accept; nil for anything else
    /// (extra or missing spaces, a one-digit hour, another time zone than GMT), which the
    /// cache then takes as a date in the past. Day and month names and `GMT` are matched
    /// without regard to case, as most clients do.
    /// - Parameter now: the clock (seconds since the epoch) against which an RFC 850 two-digit
    ///   year is resolved: more than 50 years ahead means the century before (§5.6.7).
    package static func parse(_ value: String, now: Double) -> Double? {
        // By bytes and by arithmetic (no String splitting, no timegm): `swurl cache list`
        // parses a Date per entry.
        var text = value
        return text.withUTF8 { parse(bytes: $0, now: now) }
    }

    /// `parse` of a value in bytes (`swurl cache list` reads them from an entry's head).
    package static func parse(bytes b: UnsafeBufferPointer<UInt8>, now: Double) -> Double? {
        // Trimmed as trimmingSpaces trims; inside, the grammar's single spaces exactly.
        var lo = 0, hi = b.count
        while lo < hi && (b[lo] == 0x20 || b[lo] == 0x09) { lo += 1 }
        while hi > lo && (b[hi - 1] == 0x20 || b[hi - 1] == 0x09 || b[hi - 1] == 0x0D || b[hi - 1] == 0x0A) { hi -= 1 }
        func byte(_ i: Int) -> UInt8 { i < hi ? b[i] : 0 }
        func digits(_ at: Int, _ count: Int) -> Int? {
            guard at + count <= hi else { return nil }
            var n = 0
            for k in at..<(at + count) {
                guard b[k] >= 0x30 && b[k] <= 0x39 else { return nil }
                n = n * 10 + Int(b[k] - 0x30)
            }
            return n
        }
        /// The index in `words` of the word at `at` (ASCII letters, any case), when one matches.
        func word(_ at: Int, _ words: [StaticString]) -> (index: Int, end: Int)? {
            var end = at
            while end < hi && ((b[end] | 0x20) >= 0x61 && (b[end] | 0x20) <= 0x7A) { end += 1 }
            for (index, w) in words.enumerated() where w.utf8CodeUnitCount == end - at {
                let t = w.utf8Start
                if (0..<(end - at)).allSatisfy({ b[at + $0] | 0x20 == t[$0] }) { return (index, end) }
            }
            return nil
        }
        /// `HH:MM:SS` at `at`.
        func clock(_ at: Int) -> Int? {
            guard let h = digits(at, 2), byte(at + 2) == 0x3A, let m = digits(at + 3, 2), byte(at + 5) == 0x3A,
                  let s = digits(at + 6, 2), h <= 23, m <= 59, s <= 60 else { return nil }
            return h * 3600 + m * 60 + s
        }
        func gmt(_ at: Int) -> Bool { at + 3 == hi && word(at, ["gmt"]) != nil }
        func seconds(_ year: Int, _ month: Int, _ day: Int, _ time: Int) -> Double? {
            // A day the month does not have (31 Feb) is no date, not one rolled into the next month.
            guard (1...daysIn(month: month + 1, year: year)).contains(day) else { return nil }
            return Double(daysFromCivil(year: year, month: month + 1, day: day) * 86_400 + time)
        }
        if let day = word(lo, shortDays), byte(day.end) == 0x2C {
            // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
            let p = day.end + 1
            guard byte(p) == 0x20, let dd = digits(p + 1, 2), byte(p + 3) == 0x20, let month = word(p + 4, monthWords),
                  month.end == p + 7, byte(p + 7) == 0x20, let year = digits(p + 8, 4), year >= 1000,
                  byte(p + 12) == 0x20, let time = clock(p + 13), byte(p + 21) == 0x20, gmt(p + 22) else { return nil }
            return seconds(year, month.index, dd, time)
        }
        if let day = word(lo, longDays), byte(day.end) == 0x2C {
            // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT
            let p = day.end + 1
            guard byte(p) == 0x20, let dd = digits(p + 1, 2), byte(p + 3) == 0x2D, let month = word(p + 4, monthWords),
                  month.end == p + 7, byte(p + 7) == 0x2D, let yy = digits(p + 8, 2), byte(p + 10) == 0x20,
                  let time = clock(p + 11), byte(p + 19) == 0x20, gmt(p + 20) else { return nil }
            let thisYear = year(of: now)
            var year = thisYear - thisYear % 100 + yy
            if year > thisYear + 50 { year -= 100 }
            return seconds(year, month.index, dd, time)
        }
        if let day = word(lo, shortDays), byte(day.end) == 0x20 {
            // asctime: Sun Nov  6 08:49:37 1994
            let p = day.end + 1
            guard let month = word(p, monthWords), month.end == p + 3, byte(p + 3) == 0x20 else { return nil }
            let dd = byte(p + 4) == 0x20 ? digits(p + 5, 1) : digits(p + 4, 2)
            guard let dd, byte(p + 6) == 0x20, let time = clock(p + 7), byte(p + 15) == 0x20,
                  let year = digits(p + 16, 4), p + 20 == hi, year >= 1000 else { return nil }
            return seconds(year, month.index, dd, time)
        }
        return nil
    }

    private static let shortDays: [StaticString] = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]
    private static let longDays: [StaticString] = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]

    /// The Gregorian year of `seconds` since the epoch.
    private static func year(of seconds: Double) -> Int {
        utc(Int(seconds.isFinite ? max(0, min(seconds, 253_402_300_799)) : 0)).year
    }

    private static let monthWords: [StaticString] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// The days of `month` (1–12) in the proleptic Gregorian `year`.
    package static func daysIn(month: Int, year: Int) -> Int {
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        return month == 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].contains(month) ? 30 : 31
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date, as timegm(3) counts them (a day
    /// past the month's end runs into the next month, as timegm normalises it).
    package static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The UTC calendar of the second `seconds` since the epoch (weekday 0 is Sunday): what
    /// gmtime(3) gives, without the time zone file glibc reads on its first call. Every date
    /// swurl writes (HTTP dates, HAR, JUnit, property lists) comes from here.
    package static func utc(_ seconds: Int) -> (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, weekday: Int) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let inDay = seconds - days * 86_400
        let date = civilFromDays(days)
        return (date.year, date.month, date.day, inDay / 3600, inDay / 60 % 60, inDay % 60, ((days % 7) + 11) % 7)
    }

    /// The proleptic Gregorian date of a day counted from 1970-01-01 (`daysFromCivil` backwards;
    /// H. Hinnant's civil_from_days).
    static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// The last second `format` and the HAR's dates write: 9999-12-31T23:59:59Z.
    package static let latest: Double = 253_402_300_799

    /// Seconds since the epoch of a cookie's `Expires` (RFC 6265 §5.1.1), which servers write in
    /// more forms than an HTTP date (`Wed, 01-Jan-2031 00:00:00 GMT`, `UTC`, a two-digit year):
    /// the first time, day, month and year tokens between delimiters, whatever their order and
    /// whatever else is there; nil when one is missing or the date does not exist (31 Feb, a
    /// year before 1601, 24:00:00), as the RFC (and browsers) read it. libcurl's own parser
    /// differs at the edges (a leap second, `0070`, a zone after GMT).
    package static func cookieDate(_ value: String) -> Double? {
        var time: Int?, day: Int?, month: Int?, year: Int?
        // Delimiters: %x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E.
        func isDelimiter(_ c: UInt8) -> Bool {
            c == 0x09 || (0x20...0x2F).contains(c) || (0x3B...0x40).contains(c) || (0x5B...0x60).contains(c) || (0x7B...0x7E).contains(c)
        }
        func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
        /// 1 to `most` digits at the token's start, then a non-digit or its end (§5.1.1's
        /// `1*2DIGIT ( non-digit *OCTET )`); the value and where the digits end.
        func leadingDigits(_ t: ArraySlice<UInt8>, from: Int, most: Int) -> (value: Int, end: Int)? {
            var i = from, v = 0
            while i < t.endIndex, isDigit(t[i]), i - from < most { v = v * 10 + Int(t[i] - 0x30); i += 1 }
            guard i > from, i == t.endIndex || !isDigit(t[i]) else { return nil }
            return (v, i)
        }
        let bytes = Array(value.utf8)
        var i = 0
        while i < bytes.count {
            while i < bytes.count, isDelimiter(bytes[i]) { i += 1 }
            let start = i
            while i < bytes.count, !isDelimiter(bytes[i]) { i += 1 }
            guard i > start else { continue }
            let token = bytes[start..<i]
            if time == nil, let h = leadingDigits(token, from: start, most: 2), h.end < i, token[h.end] == 0x3A,
               let m = leadingDigits(token, from: h.end + 1, most: 2), m.end < i, token[m.end] == 0x3A,
               let sec = leadingDigits(token, from: m.end + 1, most: 2) {
                guard h.value <= 23, m.value <= 59, sec.value <= 59 else { return nil }
                time = h.value * 3600 + m.value * 60 + sec.value
            } else if day == nil, let d = leadingDigits(token, from: start, most: 2) {
                day = d.value
            } else if month == nil, token.count >= 3,
                      let m = monthWords.firstIndex(where: { w in (0..<3).allSatisfy { token[start + $0] | 0x20 == w.utf8Start[$0] } }) {
                month = m
            } else if year == nil, let y = leadingDigits(token, from: start, most: 4), y.end - start >= 2 {
                // §5.1.1 by the value, whatever its digits: 70–99 the 1900s, 0–69 the 2000s.
                year = y.value + (y.value >= 70 && y.value <= 99 ? 1900 : y.value <= 69 ? 2000 : 0)
            }
        }
        guard let time, let day, let month, let year, year >= 1601, (1...daysIn(month: month + 1, year: year)).contains(day) else { return nil }
        return Double(daysFromCivil(year: year, month: month + 1, day: day) * 86_400 + time)
    }

    /// The IMF-fixdate of `seconds` since the epoch.
    package static func format(_ seconds: Double) -> String {
        let t = utc(Int(seconds.isFinite ? max(0, min(seconds, 253_402_300_799)) : 0))
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let wd = days[max(0, min(6, t.weekday))], mon = months[max(0, min(11, t.month - 1))]
        return "\(wd), \(two(t.day)) \(mon) \(t.year) \(two(t.hour)):\(two(t.minute)):\(two(t.second)) GMT"
    }
}
