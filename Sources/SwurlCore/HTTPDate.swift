#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// HTTP dates (RFC 9110 §5.6.7): `Sun, 06 Nov 1994 08:49:37 GMT`. Used by `Retry-After` and by
/// the cache's `Date`, `Expires`, `Last-Modified` and `If-Modified-Since`.
public enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]

    /// Seconds since the epoch of an IMF-fixdate; nil for anything else (the obsolete RFC 850
    /// and asctime forms are not accepted: a recipient may treat them as invalid).
    public static func parse(_ value: String) -> Double? {
        let parts = value.trimmingSpaces().split(separator: " ")
        // IMF-fixdate has a four-digit year; anything else (a server's 99999999999) is unusable.
        guard parts.count == 6, parts[5] == "GMT", let day = Int(parts[1]), parts[3].count == 4,
              let year = Int(parts[3]), (1000...9999).contains(year) else { return nil }
        guard let month = months.firstIndex(of: String(parts[2])) else { return nil }
        let clock = parts[4].split(separator: ":").compactMap { Int($0) }
        guard clock.count == 3, (1...31).contains(day), (0...23).contains(clock[0]),
              (0...59).contains(clock[1]), (0...60).contains(clock[2]) else { return nil }
        var t = tm()
        t.tm_year = Int32(year - 1900)
        t.tm_mon = Int32(month)
        t.tm_mday = Int32(day)
        t.tm_hour = Int32(clock[0])
        t.tm_min = Int32(clock[1])
        t.tm_sec = Int32(clock[2])
        let when = timegm(&t)
        guard when != -1 else { return nil }
        return Double(when)
    }

    /// The IMF-fixdate of `seconds` since the epoch.
    public static func format(_ seconds: Double) -> String {
        var t = tm()
        var s = time_t(seconds.isFinite ? max(0, min(seconds, 253_402_300_799)) : 0)
        gmtime_r(&s, &t)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let wd = days[Int(max(0, min(6, t.tm_wday)))], mon = months[Int(max(0, min(11, t.tm_mon)))]
        return "\(wd), \(two(t.tm_mday)) \(mon) \(t.tm_year + 1900) \(two(t.tm_hour)):\(two(t.tm_min)):\(two(t.tm_sec)) GMT"
    }
}
