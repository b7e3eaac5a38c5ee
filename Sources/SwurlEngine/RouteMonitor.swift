#if canImport(Glibc)
@preconcurrency import Glibc
#endif
@preconcurrency import CNetlink
import SwurlCore

/// The kernel's routing table through rtnetlink (NETLINK_ROUTE): the route to one address
/// (RTM_GETROUTE) and, for watchers, a socket subscribed to link, address and route changes that
/// wakes a `poll` only when something changes.
package final class RouteMonitor {
    /// The route the kernel would use for one destination.
    package struct Route: Equatable, Sendable {
        /// The output interface's index and name (`if_indextoname`).
        package var interfaceIndex: Int
        package var interface: String
        /// The next hop, nil for a directly connected destination.
        package var gateway: String?
        /// The source address the kernel would pick.
        package var source: String?
        /// A local address of this host (the kernel routes it over loopback).
        package var local: Bool
        /// Whether the kernel marks the route `linkdown`: its device has no carrier.
        package var linkDown = false
    }

    /// What a wait for events ended with.
    package enum Wake: Equatable {
        /// Links, addresses or routes changed.
        case changed
        /// The wait's time ran out.
        case timedOut
        /// Ctrl-C.
        case interrupted
    }

    private let routeSocket: Int32
    private let eventSocket: Int32?

    /// - Parameter events: also subscribe to link, address and route changes (`waitForChange`).
    /// - Throws: `.transport` when no netlink socket can be opened.
    package init(events: Bool) throws(SwurlError) {
        let fd = cnl_open(0)
        guard fd >= 0 else { throw .transport("cannot open a netlink socket (\(RouteMonitor.describe(-fd)))") }
        routeSocket = fd
        if events {
            let e = cnl_open(cnl_event_groups())
            guard e >= 0 else {
                close(fd)
                throw .transport("cannot subscribe to network changes (\(RouteMonitor.describe(-e)))")
            }
            eventSocket = e
        } else {
            eventSocket = nil
        }
    }

    deinit {
        close(routeSocket)
        if let eventSocket { close(eventSocket) }
    }

    /// The route to `address`.
    /// - Returns: the route, or the kernel's reason there is none (`network is unreachable`).
    package func route(to address: NetworkAddress) -> Result<Route, RouteError> {
        var out = cnl_route()
        let rc = address.bytes.withUnsafeBufferPointer { bytes -> Int32 in
            guard let base = bytes.baseAddress else { return -EINVAL }
            return cnl_route_get(routeSocket, address.family, base, Int32(bytes.count), Int32(bitPattern: address.scope), &out)
        }
        guard rc == 0 else { return .failure(RouteError(code: -rc, message: RouteMonitor.describe(-rc))) }
        var name = [CChar](repeating: 0, count: Int(IF_NAMESIZE) + 1)
        let interface: String
        if out.oif > 0, if_indextoname(UInt32(out.oif), &name) != nil {
            interface = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        } else {
            interface = out.oif > 0 ? "#\(out.oif)" : "?"
        }
        let length = address.bytes.count
        func text(_ tuple: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                            UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)) -> String {
            let all = withUnsafeBytes(of: tuple) { Array($0) }
            return NetworkAddress(family: address.family, bytes: Array(all.prefix(length))).text
        }
        var route = Route(interfaceIndex: Int(out.oif), interface: interface,
                          gateway: out.has_gateway != 0 ? text(out.gateway) : nil,
                          source: out.has_prefsrc != 0 ? text(out.prefsrc) : nil,
                          local: out.type == Int32(RTN_LOCAL))
        route.linkDown = out.linkdown != 0
        return .success(route)
    }

    /// A link's state as rtnetlink reports it (RTM_GETLINK), which holds in any network
    /// namespace; `/sys/class/net` describes the namespace sysfs was mounted in.
    package struct Link: Equatable, Sendable {
        /// IFF_UP: the interface was set up.
        package var up: Bool
        /// IFF_LOWER_UP: it has a carrier (a cable, a veth peer that is up).
        package var lowerUp: Bool
        /// IFLA_INFO_KIND (`veth`, `wireguard`, `bridge`), nil for a device without one.
        package var kind: String?
    }

    /// The link with index `index`; nil when the kernel does not answer.
    package func link(index: Int) -> Link? {
        guard index > 0, index <= Int(Int32.max) else { return nil }
        var out = cnl_link()
        guard cnl_link_get(routeSocket, Int32(index), &out) == 0 else { return nil }
        let kind = withUnsafeBytes(of: out.kind) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        return Link(up: out.flags & 0x1 != 0, lowerUp: out.flags & 0x10000 != 0, kind: kind.isEmpty ? nil : kind)
    }

    /// Sleeps until links, addresses or routes change, `timeout` seconds pass (nil: no limit) or
    /// Ctrl-C. Uses no CPU meanwhile: one `poll` on the subscribed socket.
    package func waitForChange(timeout: Double?) -> Wake {
        guard let eventSocket else { return .timedOut }
        let deadline = timeout.map { MonotonicClock.now() + max(0, $0) }
        while true {
            if Interrupt.requested { return .interrupted }
            var ms: Int32 = -1
            if let deadline {
                let left = deadline - MonotonicClock.now()
                if left <= 0 { return .timedOut }
                ms = Int32(min(left * 1000, Double(Int32.max - 1)).rounded(.up))
            }
            var p = pollfd(fd: eventSocket, events: Int16(POLLIN), revents: 0)
            let n = poll(&p, 1, ms)
            if n < 0 {
                if errno == EINTR { continue }
                return .timedOut
            }
            if n == 0 { continue }
            // Several messages come with one change (link, address, routes): read them all.
            let drained = cnl_drain_events(eventSocket)
            // ENOBUFS: the kernel dropped messages, so something changed; any other error would
            // make poll return at once forever, so it ends the wait instead of spinning.
            if drained > 0 || drained == -ENOBUFS { return .changed }
            if drained < 0 { return .timedOut }
        }
    }

    static func describe(_ code: Int32) -> String {
        guard let s = strerror(code) else { return "error \(code)" }
        return String(cString: s).lowercased()
    }
}

/// Why the kernel has no route (an errno and its text).
package struct RouteError: Error, Equatable, Sendable {
    package var code: Int32
    package var message: String
}
