import XCTest
@testable import SwurlOutput

/// `HARConnections`: HAR's `connection` numbers, from libcurl's local port, the server's address
/// and port, and whether the hop opened its connection.
final class HARConnectionsTests: XCTestCase {
    private func number(_ c: inout HARConnections, _ local: Int64, _ address: String, _ remote: Int64, opened: Bool) -> Int {
        let bytes = Array(address.utf8)
        return bytes.withUnsafeBufferPointer { c.number(localPort: local, remotePort: remote, address: $0, opened: opened) }
    }

    /// One local port to two servers at once, and to one server again once the old connection
    /// closed, is three connections; a hop that reused one gets its number.
    func testAPortThatComesRoundIsAnotherConnection() {
        var c = HARConnections()
        XCTAssertEqual(number(&c, 52288, "127.0.0.1", 8001, opened: true), 1)
        XCTAssertEqual(number(&c, 52288, "127.0.0.1", 8002, opened: true), 2)
        XCTAssertEqual(number(&c, 52288, "127.0.0.1", 8001, opened: false), 1)
        XCTAssertEqual(number(&c, 52288, "::1", 8001, opened: true), 3)
        XCTAssertEqual(number(&c, 52288, "127.0.0.1", 8001, opened: true), 4)
        XCTAssertEqual(number(&c, 52288, "127.0.0.1", 8001, opened: false), 4)
        XCTAssertEqual(number(&c, 52288, "127.0.0.1", 8002, opened: false), 2)
    }

    /// Over HTTP/2 a hop that shared the connection can end first: the hop that opened it then
    /// takes its number, and the next opener of that port gets a new one.
    func testTheOpenerTakesTheNumberOfASharerThatEndedFirst() {
        var c = HARConnections()
        XCTAssertEqual(number(&c, 40000, "127.0.0.1", 443, opened: false), 1)
        XCTAssertEqual(number(&c, 40000, "127.0.0.1", 443, opened: true), 1)
        XCTAssertEqual(number(&c, 40000, "127.0.0.1", 443, opened: false), 1)
        XCTAssertEqual(number(&c, 40000, "127.0.0.1", 443, opened: true), 2)
    }

    /// Only the most recent connections are remembered (libcurl keeps a few open for reuse): the
    /// memory stays bounded over a long batch, and recent ones keep their numbers.
    func testOnlyRecentConnectionsAreRemembered() {
        var c = HARConnections()
        let count = HARConnections.remembered * 3
        for i in 0..<count { XCTAssertEqual(number(&c, Int64(i), "127.0.0.1", 80, opened: true), i + 1) }
        XCTAssertEqual(number(&c, Int64(count - 1), "127.0.0.1", 80, opened: false), count)
        XCTAssertEqual(number(&c, 0, "127.0.0.1", 80, opened: false), count + 1, "forgotten: a new number")
    }
}
