#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Wall-clock times as swurl writes them: ISO 8601 in UTC with milliseconds
/// (`2026-11-30T22:10:01.123Z`), as `reach --json` and HAR files carry them.
public enum Timestamp {
    /// Seconds since the epoch now (CLOCK_REALTIME), with the fraction.
    public static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1_000_000_000
    }

    /// `seconds` since the epoch as `YYYY-MM-DDTHH:MM:SS.mmmZ` (milliseconds truncated).
    public static func iso8601(_ seconds: Double) -> String {
        let millisTotal = Int64((seconds * 1000).rounded(.down))
        var whole = time_t(millisTotal >= 0 ? millisTotal / 1000 : (millisTotal - 999) / 1000)
        let millis = Int(millisTotal - Int64(whole) * 1000)
        var parts = tm()
        gmtime_r(&whole, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let m = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(m)Z"
    }
}
