/// libcurl's own counters for one hop (curl_easy_getinfo(3) `*_TIME_T`, sizes, speeds and the
/// address it connected to). Times are seconds from the start of the hop.
package struct TransferTiming: Sendable, Equatable {
    package var nameLookup: Double = 0
    package var connect: Double = 0
    /// 0 when there was no TLS handshake (plain http, or a reused connection).
    package var appConnect: Double = 0
    package var preTransfer: Double = 0
    package var startTransfer: Double = 0
    package var total: Double = 0
    package var downloadedBytes: Int64 = 0
    package var uploadedBytes: Int64 = 0
    /// The request body's own bytes read from its source for libcurl (a chunked body's, without
    /// the chunks' framing that `uploadedBytes` counts); 0 when libcurl sent a body it was given whole.
    package var bodyBytesRead: Int64 = 0
    package var headerBytes: Int64 = 0
    /// The response's own head as read (its status line and fields, each line with its line
    /// end, and the blank line): not the 1xx heads before it, an earlier round's (Digest), or
    /// a proxy's answer to CONNECT, which `headerBytes` (libcurl's count) includes. 0 when none came.
    package var responseHeadBytes: Int64 = 0
    /// Bytes per second, averaged by libcurl over the whole hop.
    package var downloadSpeed: Int64 = 0
    package var uploadSpeed: Int64 = 0
    package var remoteAddress: String?
    package var remotePort: Int = 0
    /// The local port of the connection the hop used (0 when none): tells connections apart.
    package var localPort: Int = 0
    /// `1.1`, `2`, or nil when unknown.
    package var httpVersion: String?
    /// New connections this hop opened (0 when it reused one).
    package var newConnections: Int = 0

    package init() {}
}

/// The timing of a whole exchange: the final hop's phases plus the time spent in redirect hops
/// and retries before it.
package struct ExchangeTiming: Sendable, Equatable {
    /// The final hop's counters.
    package var final: TransferTiming
    /// Seconds spent in the hops before the final one (redirects).
    package var redirectTime: Double = 0
    package var redirects: Int = 0
    /// Attempts that were retried.
    package var retries: Int = 0
    /// Seconds from the first attempt's start to the final attempt's: the attempts retried and
    /// the pauses between them (their redirects are in `redirectTime`); 0 without a retry.
    package var retryTime: Double = 0
    /// New connections the hops before the final one opened (redirects, retries).
    package var earlierConnections: Int = 0
    /// New connections of the whole exchange.
    package var newConnections: Int { earlierConnections + final.newConnections }
    /// Whether the final hop went over a connection an earlier one opened (its DNS, connect and
    /// TLS phases did not happen): it opened none, yet one was ready to send on (a refused
    /// connect opens none either, and never gets that far).
    package var finalReusedConnection: Bool { final.newConnections == 0 && final.remoteAddress != nil && final.preTransfer > 0 }
    /// Whether no connection served the final hop at all (a response the cache gave whole).
    package var finalWithoutNetwork: Bool { final.remoteAddress == nil && !failed && cache != nil }
    /// What the HTTP cache did (`hit, age 12 s`, `revalidated (304)`, `miss, stored`,
    /// `not stored: no-store`); nil without `--cache`.
    package var cache: String?
    /// The final response's status code (`--timing=json`'s `status`, curl's `%{http_code}`);
    /// nil when no response came (a refused connection, a timeout before the head).
    package var status: Int?
    /// The final hop failed (a timeout, a refused connection, a body cut short): its phases are
    /// read as HAR's are for a failed hop (`HARTimings`), the time without a response waited.
    package var failed = false

    package init(final: TransferTiming, redirectTime: Double = 0, redirects: Int = 0, retries: Int = 0) {
        self.final = final
        self.redirectTime = redirectTime
        self.redirects = redirects
        self.retries = retries
    }

    /// Everything: redirect hops plus the final hop.
    package var total: Double { redirectTime + final.total }
}
