import SwurlCurl
import SwurlSecurity
#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlCore

/// `--limit-rate`: keeps the average speed of one direction at or below a rate by pausing the
/// callback that moves the bytes. libcurl's own CURLOPT_MAX_RECV_SPEED_LARGE does not throttle
/// fast local transfers in 7.88, so swurl paces them itself.
final class RateLimiter {
    private let bytesPerSecond: Double
    private var start: Double?
    private var total: Double = 0

    init(bytesPerSecond: Int64) {
        self.bytesPerSecond = Double(max(1, bytesPerSecond))
    }

    /// The most bytes to move at once: a tenth of a second's worth (at least 1 byte).
    var slice: Int { Int(max(1, min(Double(1 << 20), bytesPerSecond / 10))) }

    /// Counts `count` bytes and waits until the average is back under the rate (in slices, so
    /// Ctrl-C still ends the transfer promptly).
    func account(_ count: Int) {
        let now = Transfer.now()
        if start == nil { start = now }
        total += Double(count)
        guard let start else { return }
        let due = start + total / bytesPerSecond
        var left = due - now
        while left > 0.001 && !Interrupt.requested {
            usleep(UInt32(min(left, 0.1) * 1_000_000))
            left = due - Transfer.now()
        }
    }
}
