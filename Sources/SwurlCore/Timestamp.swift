#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Wall-clock times as swurl writes them: ISO 8601 in UTC with milliseconds
/// (`2026-11-30T22:10:01.123Z`), as `reach --json` and HAR files carry them.
package enum Timestamp {
    /// Seconds since the epoch now (CLOCK_REALTIME), with the fraction.
    package static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1_000_000_000
    }

    /// `seconds` since the epoch as `YYYY-MM-DDTHH:MM:SS.mmmZ` (milliseconds truncated).
    package static func iso8601(_ seconds: Double) -> String {
        var out = ByteBuffer(capacity: 32)
        appendISO8601(seconds, to: &out)
        return out.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// `iso8601(seconds)`'s bytes appended to `out` (a HAR entry each: no String made).
    package static func appendISO8601(_ seconds: Double, to out: inout ByteBuffer) {
        let millisTotal = Int64((seconds * 1000).rounded(.down))
        var whole = time_t(millisTotal >= 0 ? millisTotal / 1000 : (millisTotal - 999) / 1000)
        let millis = Int(millisTotal - Int64(whole) * 1000)
        var parts = tm()
        gmtime_r(&whole, &parts)
        func digits(_ n: Int, _ count: Int) {
            var divisor = 1
            for _ in 1..<count { divisor *= 10 }
            var v = n
            // A year past 9999 keeps all its digits.
            while v / divisor >= 10 { divisor *= 10 }
            while divisor > 0 {
                out.append(UInt8(truncatingIfNeeded: v / divisor) &+ 0x30)
                v %= divisor
                divisor /= 10
            }
        }
        out.reserve(24)
        digits(Int(parts.tm_year) + 1900, 4); out.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mon) + 1, 2); out.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mday), 2); out.append(UInt8(ascii: "T"))
        digits(Int(parts.tm_hour), 2); out.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_min), 2); out.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_sec), 2); out.append(UInt8(ascii: "."))
        digits(millis, 3); out.append(UInt8(ascii: "Z"))
    }
}
