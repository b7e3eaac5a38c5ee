#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Seconds on the monotonic clock (CLOCK_MONOTONIC): for durations, never for dates.
package enum MonotonicClock {
    package static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
