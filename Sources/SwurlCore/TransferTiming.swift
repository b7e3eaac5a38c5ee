/// libcurl's own counters for one hop (curl_easy_getinfo(3) `*_TIME_T`, sizes, speeds and the
/// address it connected to). Times are seconds from the start of the hop.
public struct TransferTiming: Sendable, Equatable {
    public var nameLookup: Double = 0
    public var connect: Double = 0
    /// 0 when there was no TLS handshake (plain http, or a reused connection).
    public var appConnect: Double = 0
    public var preTransfer: Double = 0
    public var startTransfer: Double = 0
    public var total: Double = 0
    public var downloadedBytes: Int64 = 0
    public var uploadedBytes: Int64 = 0
    public var headerBytes: Int64 = 0
    /// Bytes per second, averaged by libcurl over the whole hop.
    public var downloadSpeed: Int64 = 0
    public var uploadSpeed: Int64 = 0
    public var remoteAddress: String?
    public var remotePort: Int = 0
    /// The local port of the connection the hop used (0 when none): tells connections apart.
    public var localPort: Int = 0
    /// `1.1`, `2`, or nil when unknown.
    public var httpVersion: String?
    /// New connections this hop opened (0 when it reused one).
    public var newConnections: Int = 0

    public init() {}
}

/// The timing of a whole exchange: the final hop's phases plus the time spent in redirect hops
/// and retries before it.
public struct ExchangeTiming: Sendable, Equatable {
    /// The final hop's counters.
    public var final: TransferTiming
    /// Seconds spent in the hops before the final one (redirects).
    public var redirectTime: Double = 0
    public var redirects: Int = 0
    /// Attempts that were retried.
    public var retries: Int = 0
    /// What the HTTP cache did (`hit, age 12 s`, `revalidated (304)`, `miss, stored`,
    /// `not stored: no-store`); nil without `--cache`.
    public var cache: String?

    public init(final: TransferTiming, redirectTime: Double = 0, redirects: Int = 0, retries: Int = 0) {
        self.final = final
        self.redirectTime = redirectTime
        self.redirects = redirects
        self.retries = retries
    }

    /// DNS lookup of the final hop.
    public var dns: Double { max(0, final.nameLookup) }
    /// TCP connect (after DNS).
    public var connect: Double { max(0, final.connect - final.nameLookup) }
    /// TLS handshake (after TCP connect); 0 without one.
    public var tls: Double { final.appConnect > 0 ? max(0, final.appConnect - final.connect) : 0 }
    /// From the connection being ready (after TCP and TLS) to the first response byte: sending
    /// the request and the server's think time (time to first byte).
    public var wait: Double { max(0, final.startTransfer - max(final.connect, final.appConnect)) }
    /// From the first response byte to the end.
    public var transfer: Double { max(0, final.total - final.startTransfer) }
    /// Everything: redirect hops plus the final hop.
    public var total: Double { redirectTime + final.total }
}
