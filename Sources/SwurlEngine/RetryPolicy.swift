import SwurlCurl
import SwurlSecurity
#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlCore

/// When and how long to wait before trying a request again (`--retry`, `--retry-delay`,
/// `--retry-max-time`, `--retry-all-methods`).
package struct RetryPolicy: Sendable, Equatable {
    /// How many times to try again after the first attempt (0: never).
    package var maxRetries = 0
    /// The first wait in seconds; each further wait doubles it (exponential backoff).
    package var baseDelay = 1.0
    /// No single computed wait is longer than this (a server's Retry-After is honoured up to
    /// `max(maxDelay, retryAfterLimit)`).
    package var maxDelay = 120.0
    /// Give up retrying once this many seconds have passed since the first attempt.
    package var maxTime: Double?
    /// Retry POST, PATCH and other methods that are not idempotent too.
    package var allMethods = false

    /// Statuses that mean "try again later".
    package static let retryableStatuses = HTTPResponseHead.tryAgainStatuses
    /// The longest wait a server's Retry-After can impose (five minutes, or `maxDelay` when
    /// that is longer): a server cannot make swurl sleep for days.
    package static let retryAfterLimit = 300.0

    package init() {}

    /// Whether a request with `method` may be sent again at all.
    package func allows(method: HTTPMethod) -> Bool {
        maxRetries > 0 && (allMethods || method.isIdempotent)
    }

    /// The wait before retry number `retry` (0 for the first): the server's Retry-After when
    /// given, else `baseDelay * 2^retry` capped at `maxDelay`, of which a random half is
    /// jitter (`random` in 0..<1), so many clients do not come back in lockstep. A Retry-After
    /// longer than `max(maxDelay, retryAfterLimit)` is cut to that.
    package func delay(retry: Int, retryAfter: Double?, random: Double) -> Double {
        if let retryAfter {
            let limit = maxDelay.isFinite ? max(maxDelay, RetryPolicy.retryAfterLimit) : RetryPolicy.retryAfterLimit
            return retryAfter.isNaN ? 0 : min(max(0, retryAfter), limit)
        }
        let exponential = min(maxDelay, baseDelay * Double(1 << min(retry, 20)))
        return exponential / 2 + exponential / 2 * min(max(random, 0), 1)
    }

    /// Parses a Retry-After value: delay seconds, or an HTTP date (RFC 9110 §5.6.7) relative to `now` (seconds since the epoch). Nil when unparsable.
    package static func parseRetryAfter(_ value: String, now: Double) -> Double? {
        let v = value.trimmingSpaces()
        // delay-seconds is digits only (RFC 9110 §10.2.3): `+5` is no delay (Int took the sign).
        if v.utf8.first.map({ $0 >= 0x30 && $0 <= 0x39 }) == true, let seconds = Int(v), seconds >= 0 { return Double(seconds) }
        // Digits past Int's range (`99999999999999999999`) are a wait as long as any: the cap.
        if !v.isEmpty, v.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { return .greatestFiniteMagnitude }
        guard let when = HTTPDate.parse(v, now: now) else { return nil }
        return max(0, when - now)
    }

    /// A wait for the retry message: hundredths, rounded up, below a second (`0.1`, `0.05`:
    /// a short wait never reads as `0.0`), tenths below ten seconds (`2.5`), whole seconds above
    /// (`120`); never traps, whatever the value.
    package static func describe(seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "0" }
        if seconds < 1 {
            // Less a hair, so 0.07 (7.000000000000001 hundredths in binary) stays 0.07; a wait
            // shorter than the hair (1e-320) is still a hundredth, not `0.0`.
            let hundredths = seconds == 0 ? 0 : max(1, Int(max(0, seconds * 100 - 1e-9).rounded(.up)))
            if hundredths % 10 == 0 { return String(Double(hundredths / 10) / 10) }
            return (hundredths < 10 ? "0.0" : "0.") + String(hundredths)
        }
        if seconds < 10 { return String(Double(Int(seconds * 10)) / 10) }
        guard seconds < 1e15 else { return String(seconds) }
        return String(Int(seconds))
    }
}

/// A retry `Exchange` is about to make, for whoever shows it (the engine prints nothing).
package struct RetryNotice: Sendable, Equatable {
    /// What made the attempt fail.
    package enum Cause: Sendable, Equatable {
        /// A response with a retryable status (429, 5xx) and its reason phrase as received.
        case status(Int, reason: String)
        /// A transient transport failure (connection refused or reset, timeout).
        case failure(SwurlError)
    }

    package var cause: Cause
    /// Seconds the session waits before the retry.
    package var delay: Double
    /// Which retry this is, from 1.
    package var retry: Int
    /// `--retry N`.
    package var maxRetries: Int
}
