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

    /// The text of the last whole second stamped (`YYYY-MM-DDTHH:MM:SS`), for a writer that
    /// stamps many times a second (a batch's HAR entries): the calendar is worked out once a
    /// second, not once a stamp.
    package struct SecondCache {
        fileprivate var second: time_t?
        fileprivate var text: [UInt8] = []

        package init() {}
    }

    /// `iso8601(seconds)`'s bytes appended to `out` (no String made).
    package static func appendISO8601(_ seconds: Double, to out: inout ByteBuffer) {
        var cache = SecondCache()
        appendISO8601(seconds, to: &out, cache: &cache)
    }

    /// `iso8601(seconds)`'s bytes appended to `out`, the second's text taken from `cache` when
    /// it is the same second (and kept there when not).
    package static func appendISO8601(_ seconds: Double, to out: inout ByteBuffer, cache: inout SecondCache) {
        let millisTotal = Int64((seconds * 1000).rounded(.down))
        let whole = time_t(millisTotal >= 0 ? millisTotal / 1000 : (millisTotal - 999) / 1000)
        let millis = Int(millisTotal - Int64(whole) * 1000)
        if cache.second != whole {
            cache.text = secondText(whole)
            cache.second = whole
        }
        out.reserve(cache.text.count + 5)
        cache.text.withUnsafeBufferPointer { out.append($0) }
        out.append(UInt8(ascii: "."))
        appendDigits(millis, 3, to: &out)
        out.append(UInt8(ascii: "Z"))
    }

    /// `YYYY-MM-DDTHH:MM:SS` of the second `whole` since the epoch, in UTC (JUnit's
    /// `timestamp`; the start of HAR's `startedDateTime`), from `HTTPDate.utc`.
    package static func secondText(_ whole: time_t) -> [UInt8] {
        let t = HTTPDate.utc(Int(whole))
        var out = ByteBuffer(capacity: 32)
        appendDigits(t.year, 4, to: &out); out.append(UInt8(ascii: "-"))
        appendDigits(t.month, 2, to: &out); out.append(UInt8(ascii: "-"))
        appendDigits(t.day, 2, to: &out); out.append(UInt8(ascii: "T"))
        appendDigits(t.hour, 2, to: &out); out.append(UInt8(ascii: ":"))
        appendDigits(t.minute, 2, to: &out); out.append(UInt8(ascii: ":"))
        appendDigits(t.second, 2, to: &out)
        return out.array
    }

    /// `n` with at least `count` digits (zeros before); a year past 9999 keeps all its digits.
    private static func appendDigits(_ n: Int, _ count: Int, to out: inout ByteBuffer) {
        var divisor = 1
        for _ in 1..<count { divisor *= 10 }
        var v = n
        while v / divisor >= 10 { divisor *= 10 }
        while divisor > 0 {
            out.append(UInt8(truncatingIfNeeded: v / divisor) &+ 0x30)
            v %= divisor
            divisor /= 10
        }
    }
}
