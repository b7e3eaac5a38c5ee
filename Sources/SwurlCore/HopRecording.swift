/// Records every hop of an exchange as it really went (an HTTP Archive, `--har`): each hop's
/// request, what was sent and received — also on the hops the printer never sees (redirects,
/// retried attempts) — and how the hop ended. A role beside `TransferDelegate`, given to an
/// exchange; the engine calls it and never knows what it writes.
package protocol HopRecording: AnyObject {
    /// A hop is about to run `request` (credentials already applied).
    /// - Returns: the tap that sees this hop's events, or nil to leave the hop out.
    func hopWillBegin(_ request: HTTPRequest) -> HopTap?
    /// Where the hops' rebuilt request heads keep what their header lines came to.
    var sentHeadMemo: SentHeadMemo? { get }
}

/// Sees one hop's events unfiltered (as a `TransferDelegate`), then how the hop ended. Its
/// errors never stop the transfer: what a recorder fails to record is its own affair.
package protocol HopTap: TransferDelegate {
    /// The hop is over, with or without a response.
    func hopDidEnd(_ end: HopEnd)
}

/// How a hop ended, for a recorder.
package struct HopEnd: Sendable {
    /// libcurl's counters for the hop (also after a failure: what it got to).
    package var timing: TransferTiming
    /// Where the response's Location points, made absolute (nil: no redirect).
    package var redirectURL: String?
    /// Why the hop failed (nil: a response arrived and was read to its end).
    package var error: SwurlError?
    /// When the hop ended (seconds since the epoch, CLOCK_REALTIME).
    package var endedAt: Double
    /// Whether the response came from swurl's cache (`--cache`), not the network.
    package var fromCache: Bool
    /// Whether the network answered 304 and the cache's stored response is the one shown.
    package var revalidated: Bool

    package init(timing: TransferTiming, redirectURL: String?, error: SwurlError?, endedAt: Double, fromCache: Bool = false,
                 revalidated: Bool = false) {
        self.timing = timing
        self.redirectURL = redirectURL
        self.error = error
        self.endedAt = endedAt
        self.fromCache = fromCache
        self.revalidated = revalidated
    }
}

/// What the header lines of a rebuilt request head come to (`SentRequestHead` in SwurlEngine):
/// the head's part after its Host line, or that the lines make the head unknown, for the lines
/// it was last worked out for. A batch's lines mostly share their header lines, so they are
/// scanned once, not once a line. Used by the one thread that drives the transfers.
package final class SentHeadMemo: @unchecked Sendable {
    package var lines: [String] = []
    package var acceptEncoding: String?
    /// The part after the Host line; nil when the lines make the head unknown.
    package var tail: [UInt8]?
    package var filled = false

    package init() {}
}

extension HopRecording {
    /// Where a recorder keeps what its hops' header lines came to (nil: worked out every time).
    package var sentHeadMemo: SentHeadMemo? { nil }
}
