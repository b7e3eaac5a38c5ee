#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlCurl
import SwurlSecurity
import SwurlCore

/// An IPv4 or IPv6 address as the kernel sees it.
package struct NetworkAddress: Equatable, Sendable {
    /// AF_INET or AF_INET6.
    package var family: Int32
    /// 4 or 16 bytes, network order.
    package var bytes: [UInt8]
    /// An IPv6 link-local address's zone (`fe80::1%eth0`): the interface's index; 0 for none.
    package var scope: UInt32 = 0

    package init(family: Int32, bytes: [UInt8], scope: UInt32 = 0) {
        self.family = family
        self.bytes = bytes
        self.scope = scope
    }

    /// `10.0.0.1` or `fe80::1` (inet_ntop).
    package var text: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let ok = bytes.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)) != nil
        }
        return ok ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
    }

    /// The address of a `sockaddr_in`/`sockaddr_in6` from getaddrinfo.
    init?(_ sa: UnsafePointer<sockaddr>) {
        switch Int32(sa.pointee.sa_family) {
        case AF_INET:
            let a = UnsafeRawPointer(sa).assumingMemoryBound(to: sockaddr_in.self).pointee.sin_addr
            self.init(family: AF_INET, bytes: withUnsafeBytes(of: a) { Array($0) })
        case AF_INET6:
            let sa6 = UnsafeRawPointer(sa).assumingMemoryBound(to: sockaddr_in6.self).pointee
            self.init(family: AF_INET6, bytes: withUnsafeBytes(of: sa6.sin6_addr) { Array($0) }, scope: sa6.sin6_scope_id)
        default:
            return nil
        }
    }
}

/// What `swurl reach` checks and `--wait-for-network` waits for: name, route, interface kind,
/// TCP connect and, for https, the TLS handshake under the security policy.
package struct ReachabilityTarget: Sendable {
    package var url: CurlURL
    /// The host without IPv6 brackets.
    package var host: String
    /// An IPv6 address's zone (`http://[fe80::1%25eth0]/` gives `eth0`), nil without one: the
    /// resolver makes it the address's scope, for the route and the connect.
    package var zone: String?
    package var port: Int
    /// Whether the TLS handshake is part of the check (https).
    package var tls: Bool
    /// AF_INET or AF_INET6 for -4/-6, nil for both.
    package var family: Int32?
    package var policy: SecurityPolicy
    /// Seconds for each connect (and the TLS handshake).
    package var connectTimeout: Double
    /// Where interface kinds are read (`/sys/class/net`).
    package var sysfsRoot: String
    /// `--resolve HOST:PORT:ADDR[,ADDR…]` entries: an entry for the host and port gives its
    /// addresses instead of the resolver, as it does for the request.
    package var resolve: [String] = []

    package init(url: CurlURL, family: Int32? = nil, policy: SecurityPolicy = SecurityPolicy(),
                connectTimeout: Double = 10, sysfsRoot: String = "/sys/class/net") {
        self.url = url
        var h = url.host
        if h.hasPrefix("["), h.hasSuffix("]") { h = String(h.dropFirst().dropLast()) }
        self.host = h
        self.zone = url.zone
        self.port = url.effectivePort
        self.tls = url.scheme == "https"
        self.family = family
        self.policy = policy
        self.connectTimeout = connectTimeout
        self.sysfsRoot = sysfsRoot
    }

    /// `host:port`, with brackets for IPv6 (and its zone, `[fe80::1%eth0]:80`).
    package var endpoint: String { host.contains(":") ? "[\(host)\(zone.map { "%" + $0 } ?? "")]:\(port)" : "\(host):\(port)" }
}

/// One evaluation of a target.
package struct ReachabilityReport: Sendable {
    package enum Verdict: Equatable, Sendable {
        case reachable(InterfaceDescription.Kind, interface: String)
        /// No address, no route, refused, timed out, TLS failed: `reason` says which.
        case notReachable(reason: String)
    }

    package struct RouteStep: Sendable {
        package var address: NetworkAddress
        package var route: RouteMonitor.Route?
        package var error: String?
        package var interface: InterfaceDescription?
    }

    package struct ConnectStep: Sendable {
        package var address: NetworkAddress
        package var seconds: Double
        /// nil when the connect succeeded; `connection refused`, `timed out after 2 s`…
        package var error: String?
    }

    package struct TLSStep: Sendable {
        package var seconds: Double?
        package var summary: TLSSummary?
        package var error: String?
    }

    package var target: ReachabilityTarget
    package var addresses: [NetworkAddress] = []
    package var resolveSeconds: Double = 0
    package var resolveError: String?
    package var routes: [RouteStep] = []
    package var connects: [ConnectStep] = []
    package var tls: TLSStep?
    package var verdict: Verdict = .notReachable(reason: "not checked")
    /// 0 reachable, 1 not reachable, 2 connect timed out, 7 TLS trust or pin failure (a TLS protocol failure is 1, as for a request).
    package var status: ExitStatus = .transportError
    /// Whether the caller's deadline (`evaluate`'s), not the target's timeout, ended the connect
    /// or TLS step it failed at.
    package var cutByDeadline = false

    /// The route and interface of the address that answered.
    package var path: RouteStep? {
        guard let ok = connects.first(where: { $0.error == nil }) else { return nil }
        return routes.first { $0.address == ok.address }
    }

    /// `reachable via ethernet (veth0)` / `not reachable (no route to 10.0.0.2: network is unreachable)`.
    package var verdictText: String {
        switch verdict {
        case .reachable(let kind, let interface): return "reachable via \(kind.rawValue) (\(interface))"
        case .notReachable(let reason): return "not reachable (\(reason))"
        }
    }
}

package enum Reachability {
    /// Resolves, routes, connects and (for https) shakes hands once.
    /// - Parameters:
    ///   - monitor: the netlink socket for route lookups.
    ///   - handshake: whether to include the TLS step for https targets.
    ///   - deadline: when the caller's own time is up (`--watch --timeout`, `--wait-for-network`'s
    ///     limit), on `MonotonicClock`, and that limit in seconds: the connect and TLS steps end
    ///     by it, and a step it cut short names the limit (`cutByDeadline`).
    /// - Throws: `.interrupted` on Ctrl-C only; every failure is part of the report.
    package static func evaluate(_ target: ReachabilityTarget, monitor: RouteMonitor, handshake: Bool = true,
                                deadline: (at: Double, limit: Double)? = nil) throws(SwurlError) -> ReachabilityReport {
        /// A step's time: the target's timeout, or the caller's time left when that is shorter
        /// (at least `floor`).
        func stepTime(floor: Double) -> (seconds: Double, cut: Bool) {
            guard let deadline else { return (target.connectTimeout, false) }
            let left = max(floor, deadline.at - MonotonicClock.now())
            return left < target.connectTimeout ? (left, true) : (target.connectTimeout, false)
        }
        var report = ReachabilityReport(target: target)
        // 1. The name.
        let start = MonotonicClock.now()
        if let given = resolved(target.host, port: target.port, entries: target.resolve, family: target.family) {
            report.addresses = given
        } else {
            switch resolve(target.zone.map { target.host + "%" + $0 } ?? target.host, family: target.family) {
            case .success(let list): report.addresses = list
            case .failure(let e): report.resolveError = e.message
            }
        }
        report.resolveSeconds = MonotonicClock.now() - start
        if Interrupt.requested { throw .interrupted }
        if let error = report.resolveError {
            report.verdict = .notReachable(reason: "cannot resolve \(target.host): \(error)")
            return report
        }
        if report.addresses.isEmpty {
            report.verdict = .notReachable(reason: "no address for \(target.host)")
            return report
        }
        // 2. The kernel's route to each address, and the interface it leaves by.
        for address in report.addresses {
            switch monitor.route(to: address) {
            case .success(let route):
                let interface = describe(route, monitor: monitor, sysfsRoot: target.sysfsRoot)
                report.routes.append(.init(address: address, route: route,
                                           error: linkProblem(route, monitor: monitor, sysfsRoot: target.sysfsRoot),
                                           interface: interface))
            case .failure(let e):
                report.routes.append(.init(address: address, route: nil, error: e.message, interface: nil))
            }
        }
        let routed = report.routes.filter { $0.route != nil && $0.error == nil }
        guard !routed.isEmpty else {
            let first = report.routes.first { $0.route != nil } ?? report.routes.first
            report.verdict = .notReachable(reason: "no route to \(first?.address.text ?? target.host): \(first?.error ?? "unknown")")
            return report
        }
        // 3. TCP: each routed address in turn until one accepts, all within the connect timeout
        // (as curl's --connect-timeout bounds its connect phase, not each address): an address
        // that is not the last gets half the time left, as curl gives it, so that one silently
        // dropping address leaves time for the next.
        let (budget, cut) = stepTime(floor: 0)
        let connectDeadline = MonotonicClock.now() + budget
        // A timeout names the connect timeout, or the caller's limit that cut it short (not the
        // 0.998 s it had left).
        let namedTimeout = cut ? deadline?.limit ?? budget : budget
        var connected: ReachabilityReport.RouteStep?
        for (i, step) in routed.enumerated() {
            let left = connectDeadline - MonotonicClock.now()
            guard left > 0 else { break }
            let attempt = try connect(step.address, port: target.port, timeout: i == routed.count - 1 ? left : left / 2,
                                      budget: namedTimeout)
            report.connects.append(attempt)
            if attempt.error == nil { connected = step; break }
        }
        if report.connects.isEmpty {
            report.connects.append(.init(address: routed[0].address, seconds: 0,
                                         error: "connect timed out after \(seconds(namedTimeout)) s"))
        }
        guard let path = connected, let route = path.route else {
            let failures = report.connects.compactMap(\.error)
            let timedOut = !failures.isEmpty && failures.allSatisfy { $0.hasPrefix("connect timed out") }
            report.cutByDeadline = cut && timedOut
            report.status = timedOut ? .timedOut : .transportError
            let last = report.connects.last
            report.verdict = .notReachable(reason: last?.error ?? "no connection")
            return report
        }
        // 4. TLS under the policy, on the address that answered.
        if target.tls && handshake {
            let (time, cutTLS) = stepTime(floor: 0.05)
            do {
                let (seconds, summary) = try CertificateProbe.handshake(url: target.url, address: path.address.text,
                                                                         port: target.port, policy: target.policy,
                                                                         timeout: time)
                report.tls = .init(seconds: seconds, summary: summary, error: nil)
            } catch {
                if case .interrupted = error { throw error }
                report.tls = .init(seconds: nil, summary: nil, error: error.message)
                report.status = ExitStatus(for: error) == .trustFailure ? .trustFailure
                    : ExitStatus(for: error) == .timedOut ? .timedOut : .transportError
                // Only a handshake the caller's deadline ended (one that failed or passed is news).
                report.cutByDeadline = cutTLS && report.status == .timedOut
                // A connection the server ended says what to do (a client certificate it wants);
                // a trust failure's hints are lines of pins, for a request's stderr.
                var hint = ""
                if case .transport(_, let h?) = error { hint = "; " + h }
                // The step is named once: "TLS: chain check failed…", not "TLS: TLS chain…".
                let message = error.message
                let said = message.hasPrefix("TLS ") ? String(message.dropFirst(4)) : message
                report.verdict = .notReachable(reason: "TLS: \(said)" + hint)
                return report
            }
        }
        let kind = path.interface?.kind ?? .other
        report.verdict = .reachable(kind, interface: route.interface)
        report.status = .success
        return report
    }

    /// The route's interface from sysfs, unless sysfs describes another namespace's interface of
    /// that name (its index differs): then from the kind rtnetlink gives.
    static func describe(_ route: RouteMonitor.Route, monitor: RouteMonitor, sysfsRoot: String) -> InterfaceDescription {
        let index = InterfaceDescription.index(interface: route.interface, root: sysfsRoot)
        if index != route.interfaceIndex {
            if let kind = monitor.link(index: route.interfaceIndex)?.kind, let description = InterfaceDescription.of(linkKind: kind) {
                return description
            }
            if index != nil { return .init(kind: .other, virtual: false, evidence: "sysfs shows another namespace") }
        }
        return InterfaceDescription.of(interface: route.interface, root: sysfsRoot)
    }

    /// Why packets on the route's interface go nowhere, nil when they may: it is down (the
    /// kernel keeps local routes of a downed loopback), or has no carrier (a route marked
    /// `linkdown`). Read from rtnetlink, which answers in any network namespace; sysfs only
    /// when rtnetlink does not.
    static func linkProblem(_ route: RouteMonitor.Route, monitor: RouteMonitor, sysfsRoot: String) -> String? {
        let down: Bool
        if let link = monitor.link(index: route.interfaceIndex) {
            down = !link.up || (!link.lowerUp && !route.local) || route.linkDown
        } else {
            down = route.linkDown || InterfaceDescription.isUp(interface: route.interface, root: sysfsRoot) == false
        }
        return down ? "interface \(route.interface) is down" : nil
    }

    /// `10.0.0.1:80`, `[::1]:443`.
    package static func endpoint(_ address: NetworkAddress, _ port: Int) -> String {
        address.family == AF_INET6 ? "[\(address.text)]:\(port)" : "\(address.text):\(port)"
    }

    /// The addresses of the `--resolve` entry libcurl uses for `host` and `port`
    /// (`ResolveEntries`), in its order and of `family` when one is asked for; nil when no entry
    /// is for them.
    static func resolved(_ host: String, port: Int, entries: [String], family: Int32?) -> [NetworkAddress]? {
        guard let given = ResolveEntries.addresses(forHost: host, port: port, in: entries) else { return nil }
        var out: [NetworkAddress] = []
        for text in given {
            for f in [AF_INET, AF_INET6] where family == nil || family == f {
                var bytes = [UInt8](repeating: 0, count: f == AF_INET ? 4 : 16)
                if inet_pton(f, text, &bytes) == 1 {
                    let a = NetworkAddress(family: f, bytes: bytes)
                    if !out.contains(a) { out.append(a) }
                }
            }
        }
        return out
    }

    /// getaddrinfo: the host's addresses in the resolver's order, without duplicates.
    static func resolve(_ host: String, family: Int32?) -> Result<[NetworkAddress], RouteError> {
        var hints = addrinfo()
        hints.ai_family = family ?? AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, nil, &hints, &list)
        guard rc == 0 else {
            let message = rc == EAI_SYSTEM ? RouteMonitor.describe(errno) : String(cString: gai_strerror(rc)).lowercased()
            return .failure(RouteError(code: rc, message: message))
        }
        defer { freeaddrinfo(list) }
        var out: [NetworkAddress] = []
        var node = list
        while let n = node {
            if let sa = n.pointee.ai_addr, let a = NetworkAddress(sa), !out.contains(a) { out.append(a) }
            node = n.pointee.ai_next
        }
        return .success(out)
    }

    /// A non-blocking TCP connect bounded by `timeout`; the socket is closed right away.
    /// - Parameter budget: the connect step's whole time, which a timeout names (`timeout` may be
    ///   this address's share of it).
    /// - Throws: `.interrupted` on Ctrl-C.
    static func connect(_ address: NetworkAddress, port: Int, timeout: Double, budget: Double) throws(SwurlError) -> ReachabilityReport.ConnectStep {
        let start = MonotonicClock.now()
        func step(_ error: String?) -> ReachabilityReport.ConnectStep {
            .init(address: address, seconds: MonotonicClock.now() - start, error: error)
        }
        let fd = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return step(RouteMonitor.describe(errno)) }
        defer { close(fd) }
        var storage = sockaddr_storage()
        let length: socklen_t
        if address.family == AF_INET6 {
            var sa = sockaddr_in6()
            sa.sin6_family = sa_family_t(AF_INET6)
            sa.sin6_port = in_port_t(UInt16(truncatingIfNeeded: port)).bigEndian
            sa.sin6_scope_id = address.scope
            withUnsafeMutableBytes(of: &sa.sin6_addr) { dst in
                for (i, b) in address.bytes.prefix(dst.count).enumerated() { dst[i] = b }
            }
            withUnsafeMutableBytes(of: &storage) { dst in withUnsafeBytes(of: sa) { dst.copyMemory(from: $0) } }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        } else {
            var sa = sockaddr_in()
            sa.sin_family = sa_family_t(AF_INET)
            sa.sin_port = in_port_t(UInt16(truncatingIfNeeded: port)).bigEndian
            withUnsafeMutableBytes(of: &sa.sin_addr) { dst in
                for (i, b) in address.bytes.prefix(dst.count).enumerated() { dst[i] = b }
            }
            withUnsafeMutableBytes(of: &storage) { dst in withUnsafeBytes(of: sa) { dst.copyMemory(from: $0) } }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
        }
        let rc = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, length) }
        }
        if rc == 0 { return step(nil) }
        guard errno == EINPROGRESS else { return step(RouteMonitor.describe(errno)) }
        let deadline = start + timeout
        while true {
            if Interrupt.requested { throw .interrupted }
            let left = deadline - MonotonicClock.now()
            if left <= 0 { return step("connect timed out after \(seconds(budget)) s") }
            var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let n = poll(&p, 1, Int32(min(left * 1000, 1e9).rounded(.up)))
            if n < 0 {
                if errno == EINTR { continue }
                return step(RouteMonitor.describe(errno))
            }
            if n == 0 { continue }
            var error: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) == 0 else { return step(RouteMonitor.describe(errno)) }
            return step(error == 0 ? nil : RouteMonitor.describe(error))
        }
    }

    /// `2`, `0.5`: seconds as people write them.
    package static func seconds(_ s: Double) -> String {
        // To the millisecond: a time left over (1.4999994889985828) reads as 1.5.
        let ms = abs(s) < 1e9 ? (s * 1000).rounded() / 1000 : s
        return ms == ms.rounded() && abs(ms) < 1e9 ? String(Int(ms)) : String(ms)
    }

    /// Re-evaluates on every link, address or route change and calls `onChange` with each new
    /// verdict (the first one included). Idle between changes: one `poll` on the netlink socket.
    /// - Parameter timeout: how long to watch; nil for ever.
    /// - Returns: when the time is up (`.timedOut`).
    /// - Throws: `.interrupted` on Ctrl-C, `onChange`'s errors.
    package static func watch(_ target: ReachabilityTarget, timeout: Double?,
                             onChange: (ReachabilityReport) throws(SwurlError) -> Void) throws(SwurlError) {
        let monitor = try RouteMonitor(events: true)
        let deadline = timeout.map { MonotonicClock.now() + $0 }
        var last: ReachabilityReport.Verdict?
        while true {
            let report = try evaluate(target, monitor: monitor, deadline: deadline.map { ($0, timeout ?? 0) })
            // A re-check the watch's end cut short says nothing of the network: not a change.
            if last != nil, report.cutByDeadline { return }
            if report.verdict != last {
                last = report.verdict
                try onChange(report)
            }
            let left = deadline.map { $0 - MonotonicClock.now() }
            if let left, left <= 0 { return }
            switch monitor.waitForChange(timeout: left) {
            case .changed: continue
            case .timedOut: return
            case .interrupted: throw .interrupted
            }
        }
    }

    /// `--wait-for-network`: waits until what the request connects to first — the URL's host, or
    /// its proxy (`--proxy` or the variables, default port 1080 unless https) — accepts a TCP connection, under the
    /// request's connection options (`-4`/`-6`, `--resolve`, the connect timeout, default 5 s per
    /// attempt).
    /// - Throws: `.usage` with `--unix-socket` (nothing to wait for over TCP), else as
    ///   `waitUntilReachable`.
    package static func waitForNetwork(_ urlText: String, options: TransferOptions, limit: Double) throws(SwurlError) {
        if options.unixSocket != nil {
            throw .usage("--wait-for-network cannot be combined with --unix-socket", hint: "it waits for a TCP port")
        }
        // The proxy libcurl will connect to (--proxy, or the variables unless NO_PROXY names the host).
        let proxy = options.proxy.proxy(forURL: urlText)
        let url = if let proxy { try ProxySettings.endpoint(proxy) } else { try CurlURL(parsing: urlText) }
        let family: Int32? = switch options.ipVersion {
        case .v4: AF_INET
        case .v6: AF_INET6
        default: nil
        }
        var target = ReachabilityTarget(url: url, family: family, connectTimeout: options.connectTimeout ?? 5)
        target.resolve = options.resolve
        do { try waitUntilReachable(target, limit: limit) } catch {
            // Waiting for a proxy: the message says so, and where it came from.
            guard let proxy, case .timedOut(let message) = error else { throw error }
            throw .timedOut(message + "; that is " + options.proxy.named(proxy, forURL: urlText))
        }
    }

    /// Waits until the target accepts a TCP connection (route, name, listener), woken by network
    /// changes and by a backing-off retry (0.1 s doubling to 2 s) for a server not yet listening.
    /// - Throws: `.timedOut("HOST:PORT not reachable after N s (last: …)")`, `.interrupted`.
    package static func waitUntilReachable(_ target: ReachabilityTarget, limit: Double) throws(SwurlError) {
        let monitor = try RouteMonitor(events: true)
        let deadline = MonotonicClock.now() + limit
        var delay = 0.1
        while true {
            let report = try evaluate(target, monitor: monitor, handshake: false,
                                      deadline: (max(deadline, MonotonicClock.now() + 0.05), limit))
            if case .notReachable(let reason) = report.verdict {
                let left = deadline - MonotonicClock.now()
                if left <= 0 {
                    throw .timedOut("\(target.endpoint) not reachable after \(seconds(limit)) s (last: \(reason))")
                }
                switch monitor.waitForChange(timeout: min(delay, left)) {
                case .interrupted: throw .interrupted
                case .changed, .timedOut: break
                }
                delay = min(delay * 2, 2)
            } else {
                return
            }
        }
    }
}
