#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlCore

/// What kind of link an interface is, in AFNetworkReachabilityManager's terms, read from sysfs
/// (`/sys/class/net/IF`). The root is a parameter so tests can use fixture trees.
package struct InterfaceDescription: Equatable, Sendable {
    package enum Kind: String, Sendable, CaseIterable {
        case loopback, ethernet, wifi, cellular, vpn, other
    }

    package var kind: Kind
    /// A link with no hardware behind it (veth, bridge, vlan; tunnels are `vpn`).
    package var virtual: Bool
    /// What told the kind: `type 772`, `wireless`, `DEVTYPE=wwan`, `tun_flags`, `bridge`, `no device`…
    package var evidence: String

    package init(kind: Kind, virtual: Bool, evidence: String) {
        self.kind = kind
        self.virtual = virtual
        self.evidence = evidence
    }

    /// `ethernet, virtual` or `wifi`.
    package var label: String { virtual ? "\(kind.rawValue), virtual" : kind.rawValue }

    /// The kind rtnetlink names (IFLA_LINKINFO's IFLA_INFO_KIND), for an interface sysfs does not
    /// describe (a network namespace without its own sysfs); nil for a kind it does not tell.
    package static func of(linkKind kind: String) -> InterfaceDescription? {
        let evidence = "IFLA_INFO_KIND \(kind)"
        switch kind {
        case "veth", "bridge", "vlan", "macvlan", "ipvlan", "vxlan", "dummy", "bond", "team", "geneve", "macvtap":
            return .init(kind: .ethernet, virtual: true, evidence: evidence)
        case "tun", "wireguard", "ipip", "gre", "gretap", "ip6gre", "sit", "ip6tnl", "vti", "vti6", "xfrm":
            return .init(kind: .vpn, virtual: true, evidence: evidence)
        default:
            return nil
        }
    }

    /// The interface index sysfs gives for `name` (`root/IF/ifindex`); nil when it has none.
    package static func index(interface name: String, root: String = "/sys/class/net") -> Int? {
        guard !name.isEmpty, !name.contains("/"), name != ".", name != "..",
              let bytes = try? SmallFile.read(root + "/" + name + "/ifindex", maxSize: 64 * 1024) else { return nil }
        return Int(String(decoding: bytes, as: UTF8.self).filter { !$0.isWhitespace })
    }

    /// Whether the interface is administratively up (IFF_UP in `root/IF/flags`); nil when unknown.
    package static func isUp(interface name: String, root: String = "/sys/class/net") -> Bool? {
        guard !name.isEmpty, !name.contains("/"), name != ".", name != "..",
              let bytes = try? SmallFile.read(root + "/" + name + "/flags", maxSize: 64 * 1024) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self).filter { !$0.isWhitespace }
        guard text.hasPrefix("0x"), let flags = Int(text.dropFirst(2), radix: 16) else { return nil }
        return flags & 1 != 0
    }

    /// Reads `root/IF/type`, `wireless`, `phy80211`, `uevent` (DEVTYPE), `tun_flags`, `bridge`
    /// and `device`.
    /// - Parameter root: `/sys/class/net`, or a fixture tree shaped like it.
    package static func of(interface name: String, root: String = "/sys/class/net") -> InterfaceDescription {
        // A name with a slash or dots cannot be an interface; never leave the root.
        guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else {
            return InterfaceDescription(kind: .other, virtual: false, evidence: "no such interface")
        }
        let dir = root + "/" + name
        func read(_ file: String) -> String? {
            (try? SmallFile.read(dir + "/" + file, maxSize: 64 * 1024)).map { String(decoding: $0, as: UTF8.self) }
        }
        func exists(_ entry: String) -> Bool { access(dir + "/" + entry, F_OK) == 0 }
        let type = read("type").flatMap { Int($0.filter { !$0.isWhitespace }) }
        var devtype: String?
        for line in (read("uevent") ?? "").split(separator: "\n") where line.hasPrefix("DEVTYPE=") {
            devtype = String(line.dropFirst("DEVTYPE=".count))
        }
        if type == 772 { return .init(kind: .loopback, virtual: false, evidence: "type 772") }
        if exists("wireless") { return .init(kind: .wifi, virtual: false, evidence: "wireless") }
        if exists("phy80211") { return .init(kind: .wifi, virtual: false, evidence: "phy80211") }
        if devtype == "wlan" { return .init(kind: .wifi, virtual: false, evidence: "DEVTYPE=wlan") }
        if devtype == "wwan" { return .init(kind: .cellular, virtual: false, evidence: "DEVTYPE=wwan") }
        // ARPHRD_RAWIP: the raw-IP links of LTE/5G modems (qmi_wwan, mhi).
        if type == 519 { return .init(kind: .cellular, virtual: false, evidence: "type 519") }
        if exists("tun_flags") { return .init(kind: .vpn, virtual: true, evidence: "tun_flags") }
        if devtype == "wireguard" { return .init(kind: .vpn, virtual: true, evidence: "DEVTYPE=wireguard") }
        // ARPHRD_NONE, TUNNEL, TUNNEL6, SIT, IPGRE, IP6GRE: layer-3 tunnels.
        if let t = type, [65534, 768, 769, 776, 778, 823].contains(t) {
            return .init(kind: .vpn, virtual: true, evidence: "type \(t)")
        }
        if type == 1 {
            if devtype == "bridge" || exists("bridge") { return .init(kind: .ethernet, virtual: true, evidence: "bridge") }
            if devtype == "vlan" { return .init(kind: .ethernet, virtual: true, evidence: "DEVTYPE=vlan") }
            if !exists("device") { return .init(kind: .ethernet, virtual: true, evidence: "no device (veth or similar)") }
            return .init(kind: .ethernet, virtual: false, evidence: "type 1")
        }
        if type == nil { return .init(kind: .other, virtual: false, evidence: "no \(dir)/type") }
        return .init(kind: .other, virtual: !exists("device"), evidence: "type \(type ?? 0)")
    }
}
