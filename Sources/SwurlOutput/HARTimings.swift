#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlCore

/// A hop's `timings` in a HAR entry, from libcurl's counters (curl_easy_getinfo(3): each a time
/// from the hop's start to the end of a phase), in whole microseconds so that the phases add up
/// to the entry's `time` exactly:
///
/// - `dns`: to CURLINFO_NAMELOOKUP; `connect`: from there to CURLINFO_CONNECT, or to
///   CURLINFO_APPCONNECT with TLS (HAR counts `ssl` inside `connect`); `ssl`: APPCONNECT minus
///   CONNECT. All three are -1 on a reused connection (none was made).
/// - `blocked`: from the connection being ready to CURLINFO_PRETRANSFER (on a reused
///   connection: the whole wait for it).
/// - `send`: the time from the request head leaving to the last body bytes leaving, as the
///   debug callback saw them (0 without a body); `wait`: the rest up to CURLINFO_STARTTRANSFER
///   (the first response byte; with a body, as `Transfer.measuredTiming` corrects it for
///   libcurl 7.88); `receive`: from there to CURLINFO_TOTAL.
///   A hop that failed before any response byte waits until it ended; one that failed before it
///   was ready to send (CURLINFO_PRETRANSFER 0: refused, a connect timeout, a failed TLS
///   handshake) spent the time after its look-up in `connect`, and one that failed before its
///   look-up ended spent it all in `dns`.
struct HARTimings {
    var blocked: Int64 = 0
    var dns: Int64 = -1
    var connect: Int64 = -1
    var ssl: Int64 = -1
    var send: Int64 = 0
    var wait: Int64 = 0
    var receive: Int64 = 0

    init(_ t: TransferTiming, failed: Bool, sendSeconds: Double) {
        // Over a Unix socket (`--unix-socket`: libcurl names its path as the address) no name
        // is looked up: `dns` is -1, the little libcurl counts is the connect's.
        self.init(t, socketPath: t.remoteAddress.map { !HARTimings.isIPAddress($0) } ?? false, failed: failed,
                  sendSeconds: sendSeconds)
    }

    /// The phases from libcurl's counters (a HAR record's, read back on the formatter thread:
    /// `HAREntryWriter`).
    /// - Parameter socketPath: whether libcurl's address was a Unix socket's path.
    init(_ t: TransferTiming, socketPath: Bool, failed: Bool, sendSeconds: Double) {
        func us(_ s: Double) -> Int64 { s.isFinite && s > 0 ? Int64((s * 1_000_000).rounded()) : 0 }
        let total = us(t.total)
        let lookup = min(us(t.nameLookup), total), tcp = min(us(t.connect), total), tls = min(us(t.appConnect), total)
        // A failed hop may have looked up and connected without the count saying so, but only
        // one that never got ready to send: one that did, with no new connection, reused one
        // (libcurl counts a look-up time on a reused connection too).
        let connected = t.newConnections > 0 || (failed && t.preTransfer <= 0 && (lookup > 0 || tcp > 0))
        var ready: Int64 = 0
        if connected {
            dns = socketPath ? -1 : lookup
            // A failed hop that never got ready to send (refused, a connect timeout, a failed
            // handshake) spent the time after its look-up connecting.
            ready = failed && t.preTransfer <= 0 ? total : max(lookup, tls > 0 ? tls : tcp)
            connect = ready - (socketPath ? 0 : lookup)
            ssl = tls > 0 ? max(0, tls - tcp) : -1
        } else if failed && t.preTransfer <= 0 && total > 0 {
            // Failed before the look-up ended (a name that does not resolve): its time is `dns`.
            dns = total
            ready = total
        }
        let pre = min(max(us(t.preTransfer), ready), total)
        let start = t.startTransfer > 0 ? us(t.startTransfer) : total
        let firstByte = min(max(start, pre), total)
        blocked = pre - ready
        send = min(us(sendSeconds), firstByte - pre)
        wait = firstByte - pre - send
        receive = total - firstByte
    }

    /// Whether libcurl's address for a hop is an IP address (`serverIPAddress`), not a Unix
    /// socket's path (`--unix-socket`, relative or not), which is no address and looked up none.
    static func isIPAddress(_ address: String) -> Bool {
        // (One inet_pton for the common IPv4 address: asked for every hop of a batch's HAR.)
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, address, &v4) == 1 || inet_pton(AF_INET6, address, &v6) == 1 { return true }
        // A link-local IPv6 address may carry its zone (`fe80::1%eth0`).
        guard let percent = address.firstIndex(of: "%") else { return false }
        return inet_pton(AF_INET6, String(address[..<percent]), &v6) == 1
    }

    /// The entry's `time`: every phase but `ssl` (counted in `connect`), -1 ones left out.
    var total: Int64 { blocked + max(0, dns) + max(0, connect) + send + wait + receive }

    /// `{"blocked":…,"receive":…}`, straight into the entry's bytes.
    func write(_ w: inout JSONWriter) {
        w.raw("{\"blocked\":"); w.millis(blocked)
        w.raw(",\"dns\":"); w.millis(dns)
        w.raw(",\"connect\":"); w.millis(connect)
        w.raw(",\"ssl\":"); w.millis(ssl)
        w.raw(",\"send\":"); w.millis(send)
        w.raw(",\"wait\":"); w.millis(wait)
        w.raw(",\"receive\":"); w.millis(receive)
        w.raw("}")
    }

    /// Microseconds as milliseconds with three decimals (`1234` → `1.234`); negative is `-1`.
    static func ms(_ us: Int64) -> String {
        var w = JSONWriter()
        w.millis(us)
        return w.bytes.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }
}

/// An exchange's final hop in the phases `--timing` and a batch's report show, in seconds: one
/// reading of libcurl's counters with its HAR entry's (`HARTimings`, a failed hop's too).
/// `connect` is without TLS, `tls` nil without a handshake, `wait` runs from the connection
/// being ready to the first response byte (sending included), `transfer` from there to the end.
package struct TimingPhases {
    package var dns, connect, wait, transfer: Double
    package var tls: Double?

    package init(_ t: ExchangeTiming) {
        let h = HARTimings(t.final, failed: t.failed, sendSeconds: 0)
        func s(_ us: Int64) -> Double { Double(max(0, us)) / 1_000_000 }
        dns = s(h.dns)
        tls = h.ssl >= 0 ? s(h.ssl) : nil
        connect = s(max(0, h.connect) - max(0, h.ssl))
        wait = s(h.blocked + h.send + h.wait)
        transfer = s(h.receive)
    }
}
