import SwurlCore
import SwurlOutput

/// Where one batch line sat on the batch's clock (seconds since the batch started) and how its
/// time split into phases, from libcurl's timers (curl_easy_getinfo(3) `*_TIME_T`) of its final
/// hop. The HTML report draws it; the JUnit writer takes its duration.
struct BatchTimeline {
    /// When the line was taken from the input and prepared.
    var start: Double
    /// When its result was known.
    var end: Double
    /// The phases, in order; nil when the line has no transfer timing (it failed before or
    /// during the transfer, so libcurl's counters were not read).
    var phases: Phases?

    /// `r`'s timeline, or for a line without one a bar of no length at `lastEnd` (the latest end
    /// of the lines before it), where the reports draw it.
    static func of(_ r: BatchResult, after lastEnd: Double) -> BatchTimeline {
        r.timeline ?? BatchTimeline(start: lastEnd, end: lastEnd)
    }

    /// Seconds spent in each phase; they add up to `end - start`, up to the clock's rounding.
    struct Phases {
        /// Read and prepared, waiting for a free slot.
        var queued: Double
        /// Attempts before the final one that were retried, and the pauses between them.
        var retries: Double
        /// Hops before the final one (redirects).
        var redirects: Double
        var dns: Double
        var connect: Double
        var tls: Double
        /// From the connection being ready to the first response byte (request sent, server thinking).
        var waiting: Double
        var receiving: Double

        static let names = ["queued", "retries", "redirects", "dns", "connect", "tls", "waiting", "receiving"]

        /// The values in the order of `names`.
        var values: [Double] { [queued, retries, redirects, dns, connect, tls, waiting, receiving] }

        /// Each phase's name (as in `names`) and value, in order, without building arrays (a
        /// report row does this per line).
        func forEach(_ body: (StaticString, Double) -> Void) {
            body("queued", queued); body("retries", retries); body("redirects", redirects); body("dns", dns); body("connect", connect)
            body("tls", tls); body("waiting", waiting); body("receiving", receiving)
        }
    }

    /// How long the line took from being taken up to its result.
    var duration: Double { max(0, end - start) }

    /// The timeline of a line whose exchange finished: the final hop's counters are laid back
    /// from `end`, and whatever lies between `start` and the first hop is queueing.
    init(start: Double, end: Double, timing: ExchangeTiming) {
        self.start = start
        self.end = max(start, end)
        let p = TimingPhases(timing)
        let tls = p.tls ?? 0
        let busy = p.dns + p.connect + tls + p.wait + p.transfer + timing.redirectTime + timing.retryTime
        phases = Phases(queued: max(0, self.end - start - busy), retries: max(0, timing.retryTime), redirects: max(0, timing.redirectTime),
                        dns: p.dns, connect: p.connect, tls: tls, waiting: p.wait, receiving: p.transfer)
    }

    /// A timeline as it was (a record's, `BatchResultRecord.swift`).
    init(start: Double, end: Double, phases: Phases?) {
        self.start = start
        self.end = end
        self.phases = phases
    }

    /// The timeline of a line without transfer timing.
    init(start: Double, end: Double) {
        self.start = start
        self.end = max(start, end)
        phases = nil
    }
}
