import Foundation
import XCTest
@testable import SwurlEngine

/// Interface kinds read from fixture `/sys/class/net` trees: the hardware kinds (wifi, wwan) that
/// no test machine has, and the virtual ones, from the same files the kernel exposes.
final class InterfaceDescriptionTests: XCTestCase {
    private var root = ""

    override func setUpWithError() throws {
        root = NSTemporaryDirectory() + "swurl-sysfs-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: root)
    }

    /// Makes `root/name` with the given files (content) and directories (nil content).
    private func interface(_ name: String, type: Int?, _ entries: [String: String?] = [:]) throws {
        let dir = root + "/" + name
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        if let type { try "\(type)\n".write(toFile: dir + "/type", atomically: true, encoding: .utf8) }
        for (entry, content) in entries {
            if let content {
                try content.write(toFile: dir + "/" + entry, atomically: true, encoding: .utf8)
            } else {
                try FileManager.default.createDirectory(atPath: dir + "/" + entry, withIntermediateDirectories: true)
            }
        }
    }

    private func of(_ name: String) -> InterfaceDescription { InterfaceDescription.of(interface: name, root: root) }

    func testWifiFromWirelessOrPhy80211() throws {
        try interface("wlan0", type: 1, ["wireless": nil, "device": nil, "uevent": "DEVTYPE=wlan\nINTERFACE=wlan0\n"])
        try interface("wlp2s0", type: 1, ["phy80211": nil, "device": nil])
        XCTAssertEqual(of("wlan0"), InterfaceDescription(kind: .wifi, virtual: false, evidence: "wireless"))
        XCTAssertEqual(of("wlp2s0"), InterfaceDescription(kind: .wifi, virtual: false, evidence: "phy80211"))
    }

    func testCellularFromWwanDevtypeOrRawIP() throws {
        try interface("wwan0", type: 1, ["uevent": "INTERFACE=wwan0\nIFINDEX=5\nDEVTYPE=wwan\n", "device": nil])
        try interface("rmnet0", type: 519, ["device": nil])
        XCTAssertEqual(of("wwan0").kind, .cellular)
        XCTAssertEqual(of("wwan0").evidence, "DEVTYPE=wwan")
        XCTAssertEqual(of("rmnet0").kind, .cellular)
    }

    func testTunnelsAreVPN() throws {
        try interface("tun0", type: 65534, ["tun_flags": "0x1001\n"])
        try interface("tap0", type: 1, ["tun_flags": "0x1002\n"])
        try interface("wg0", type: 65534, ["uevent": "DEVTYPE=wireguard\nINTERFACE=wg0\n"])
        try interface("gre1", type: 778)
        for name in ["tun0", "tap0", "wg0", "gre1"] {
            XCTAssertEqual(of(name).kind, .vpn, name)
        }
        XCTAssertEqual(of("tap0").evidence, "tun_flags")
        XCTAssertEqual(of("wg0").evidence, "DEVTYPE=wireguard")
    }

    func testLoopbackEthernetAndVirtualLinks() throws {
        try interface("lo", type: 772)
        try interface("eth0", type: 1, ["device": nil])
        try interface("veth0", type: 1, ["uevent": "INTERFACE=veth0\n"])
        try interface("br0", type: 1, ["bridge": nil, "uevent": "DEVTYPE=bridge\n"])
        try interface("eth0.10", type: 1, ["uevent": "DEVTYPE=vlan\n"])
        XCTAssertEqual(of("lo").kind, .loopback)
        XCTAssertEqual(of("eth0"), InterfaceDescription(kind: .ethernet, virtual: false, evidence: "type 1"))
        XCTAssertEqual(of("veth0").kind, .ethernet)
        XCTAssertTrue(of("veth0").virtual)
        XCTAssertEqual(of("veth0").label, "ethernet, virtual")
        XCTAssertEqual(of("br0"), InterfaceDescription(kind: .ethernet, virtual: true, evidence: "bridge"))
        XCTAssertEqual(of("eth0.10").evidence, "DEVTYPE=vlan")
    }

    func testUnknownMissingAndHostileNamesAreOther() throws {
        try interface("ppp0", type: 512, ["device": nil])
        XCTAssertEqual(of("ppp0").kind, .other)
        XCTAssertEqual(of("missing").kind, .other)
        XCTAssertEqual(of("../etc").kind, .other)
        XCTAssertEqual(of("..").kind, .other)
        XCTAssertEqual(of("").kind, .other)
        // A type file with junk is not a number: other, not a crash.
        try interface("junk", type: nil, ["type": "abc"])
        XCTAssertEqual(of("junk").kind, .other)
    }

    func testUpFromFlags() throws {
        try interface("up0", type: 1, ["flags": "0x1003\n"])
        try interface("down0", type: 1, ["flags": "0x1002\n"])
        try interface("odd0", type: 1, ["flags": "up\n"])
        XCTAssertEqual(InterfaceDescription.isUp(interface: "up0", root: root), true)
        XCTAssertEqual(InterfaceDescription.isUp(interface: "down0", root: root), false)
        XCTAssertNil(InterfaceDescription.isUp(interface: "odd0", root: root))
        XCTAssertNil(InterfaceDescription.isUp(interface: "missing", root: root))
        XCTAssertNil(InterfaceDescription.isUp(interface: "../x", root: root))
    }

    func testRealLoopbackOfThisMachine() {
        // /sys/class/net/lo exists on every Linux system.
        XCTAssertEqual(InterfaceDescription.of(interface: "lo").kind, .loopback)
    }
}
