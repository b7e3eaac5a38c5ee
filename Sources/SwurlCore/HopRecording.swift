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

/// How a hop ended, for a recorder. A class: it is handed through a protocol and a closure to
/// the record's writer, and a struct this size was copied field by field on the way (a batch
/// line's `--har` spent about a fifth of its recording on those copies).
package final class HopEnd: Sendable {
    /// libcurl's counters for the hop (also after a failure: what it got to).
    package let timing: TransferTiming
    /// Where the response's Location points, made absolute (nil: no redirect).
    package let redirectURL: String?
    /// Why the hop failed (nil: a response arrived and was read to its end).
    package let error: SwurlError?
    /// When the hop ended (seconds since the epoch, CLOCK_REALTIME).
    package let endedAt: Double
    /// Whether the response came from swurl's cache (`--cache`), not the network.
    package let fromCache: Bool
    /// Whether the network answered 304 and the cache's stored response is the one shown.
    package let revalidated: Bool
    /// The request head libcurl sent, when it was derived wholly from swurl's and went out as
    /// rebuilt (`SentRequestHead` in SwurlEngine): a recorder writes it from this, on its own
    /// time, instead of being handed the bytes. Nil when the head came through the debug
    /// callback (`transferDidSendRequestHead`) or is not known.
    package let rebuiltHead: RebuiltRequestHead?

    package init(timing: TransferTiming, redirectURL: String?, error: SwurlError?, endedAt: Double, fromCache: Bool = false,
                 revalidated: Bool = false, rebuiltHead: RebuiltRequestHead? = nil) {
        self.timing = timing
        self.redirectURL = redirectURL
        self.error = error
        self.endedAt = endedAt
        self.fromCache = fromCache
        self.revalidated = revalidated
        self.rebuiltHead = rebuiltHead
    }
}

/// A request head libcurl 7.88 derives wholly from swurl's for a plain `http://` URL, as what
/// it is made of: where the request line's target and the Host line's name and port lie in the
/// URL's bytes, and the rest of the head (`tail`, shared by a batch's lines with the same header
/// lines). Turned into bytes only where they are written (a `--har` entry, on the formatter
/// thread), so the thread that drives the transfers builds nothing.
package struct RebuiltRequestHead: Sendable {
    /// The path in the URL (nil: `/`), the query without its `?`, the host, the port's digits.
    package var path: Range<Int>?
    package var query: Range<Int>?
    package var host: Range<Int>
    package var port: Range<Int>?
    /// The head after its Host line, with the blank line that ends it.
    package var tail: [UInt8]
    /// Where in `tail` libcurl's cookie engine puts a `Cookie` line: after the lines libcurl
    /// writes itself (`Accept`, `Accept-Encoding`), before the header lines given to it.
    package var cookieAt: Int
    /// Whether the request line says `HTTP/1.0`: libcurl sends that on a connection whose last
    /// answer was HTTP/1.0 (`Curl_use_http_1_1plus`); the same length as `HTTP/1.1`.
    package var http10 = false
    /// The head's length in bytes (checked against what libcurl says it sent, without the bytes).
    package var count: Int

    /// - Parameters:
    ///   - method: the request's method.
    ///   - url: the bytes of the URL the ranges lie in.
    package init(method: String, url: UnsafeBufferPointer<UInt8>, path: Range<Int>?, query: Range<Int>?, host: Range<Int>,
                 port: Range<Int>?, tail: [UInt8], cookieAt: Int) {
        self.path = path
        self.query = query
        self.host = host
        self.port = port
        self.tail = tail
        self.cookieAt = min(max(cookieAt, 0), tail.count)
        var n = method.utf8.count + 1 + (path?.count ?? 1) + (query.map { 1 + $0.count } ?? 0) + " HTTP/1.1\r\nHost: ".utf8.count
            + host.count + 2 + tail.count
        if let port, !RebuiltRequestHead.isDefault(UnsafeBufferPointer(rebasing: url[port])) { n += 1 + port.count }
        count = n
    }

    /// Port 80, which libcurl leaves out of the Host line (as Curl_http_host does).
    private static func isDefault(_ port: UnsafeBufferPointer<UInt8>) -> Bool {
        port.count == 2 && port[0] == UInt8(ascii: "8") && port[1] == UInt8(ascii: "0")
    }

    /// The head with the `Cookie` line libcurl's engine added (`value` its value), where the
    /// engine puts it.
    package func adding(cookie value: String) -> RebuiltRequestHead {
        var made = self
        let line = Array("Cookie: \(value)\r\n".utf8)
        made.tail = Array(tail[..<cookieAt]) + line + Array(tail[cookieAt...])
        made.count = count + line.count
        return made
    }

    /// `METHOD TARGET HTTP/1.1` (`HTTP/1.0` with `http10`), the Host line, then the tail,
    /// appended to `out`, from the parts as a record carries them (`fits` checked by the caller).
    /// - Parameter url: the bytes of the URL the ranges were found in.
    package static func append(method: UnsafeBufferPointer<UInt8>, url: UnsafeBufferPointer<UInt8>, path: Range<Int>?,
                               query: Range<Int>?, host: Range<Int>, port: Range<Int>?, tail: UnsafeBufferPointer<UInt8>,
                               http10: Bool = false, to out: inout ByteBuffer) {
        out.append(method)
        out.append(UInt8(ascii: " "))
        if let path { out.append(UnsafeBufferPointer(rebasing: url[path])) } else { out.append(UInt8(ascii: "/")) }
        if let query {
            out.append(UInt8(ascii: "?"))
            out.append(UnsafeBufferPointer(rebasing: url[query]))
        }
        out.append(http10 ? " HTTP/1.0\r\nHost: " : " HTTP/1.1\r\nHost: ")
        out.append(UnsafeBufferPointer(rebasing: url[host]))
        if let port, !isDefault(UnsafeBufferPointer(rebasing: url[port])) {
            out.append(UInt8(ascii: ":"))
            out.append(UnsafeBufferPointer(rebasing: url[port]))
        }
        out.append("\r\n")
        out.append(tail)
    }

    /// Whether the parts lie inside a URL of `count` bytes (a record read back is checked).
    package static func fits(path: Range<Int>?, query: Range<Int>?, host: Range<Int>, port: Range<Int>?, count: Int) -> Bool {
        (path?.upperBound ?? 0) <= count && (query?.upperBound ?? 0) <= count && host.upperBound <= count
            && (port?.upperBound ?? 0) <= count
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
    /// Where a `Cookie` line goes in `tail` (`RebuiltRequestHead.cookieAt`).
    package var cookieAt = 0
    /// The connections (by local port) whose last answer was HTTP/1.0: libcurl asks in HTTP/1.0
    /// on them (`RebuiltRequestHead.http10`).
    package var http10Connections: Set<Int> = []
    package var filled = false

    package init() {}
}

extension HopRecording {
    /// Where a recorder keeps what its hops' header lines came to (nil: worked out every time).
    package var sentHeadMemo: SentHeadMemo? { nil }
}
