#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Percentiles of many durations in fixed memory: a log-scale histogram whose buckets are 1%
/// wide (from 1 µs to about an hour, 2,200 counters), so a percentile is within 1% of the true
/// value whatever the number of samples. The maximum is kept exactly.
struct LatencySketch {
    private static let base = 1e-6
    private static let growth = 1.01
    private static let bucketCount = 2200
    private static let logGrowth = log(growth)

    private var counts = [Int](repeating: 0, count: LatencySketch.bucketCount)
    private(set) var count = 0
    private(set) var max: Double = 0

    mutating func add(_ seconds: Double) {
        guard seconds.isFinite else { return }
        let s = Swift.max(0, seconds)
        counts[LatencySketch.bucket(s)] += 1
        count += 1
        if s > max { max = s }
    }

    private static func bucket(_ s: Double) -> Int {
        guard s > base else { return 0 }
        let i = Int(log(s / base) / logGrowth) + 1
        return Swift.min(bucketCount - 1, Swift.max(0, i))
    }

    /// The duration below which `fraction` (0…1) of the samples lie: the middle of its bucket,
    /// never above the maximum (the maximum itself for the last sample); nil without samples.
    func percentile(_ fraction: Double) -> Double? {
        guard count > 0 else { return nil }
        let rank = Swift.max(1, Int((fraction * Double(count)).rounded(.up)))
        // The last rank is the maximum, known exactly.
        guard rank < count else { return max }
        var seen = 0
        for (i, c) in counts.enumerated() where c > 0 {
            seen += c
            if seen >= rank {
                guard i > 0 else { return Swift.min(max, LatencySketch.base) }
                // The last bucket is open-ended: only the maximum bounds it.
                guard i < LatencySketch.bucketCount - 1 else { return max }
                let low = LatencySketch.base * pow(LatencySketch.growth, Double(i - 1))
                return Swift.min(max, low * (1 + LatencySketch.growth) / 2)
            }
        }
        return max
    }
}
