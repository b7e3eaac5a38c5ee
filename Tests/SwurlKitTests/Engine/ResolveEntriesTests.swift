import XCTest
@testable import SwurlEngine

final class ResolveEntriesTests: XCTestCase {
    func testTheLastEntryForAHostAndPortWins() {
        let entries = ["a.test:80:127.0.0.1", "A.test:80:[::1],127.0.0.2", "a.test:443:10.0.0.1"]
        XCTAssertEqual(ResolveEntries.addresses(forHost: "a.test", port: 80, in: entries), ["::1", "127.0.0.2"])
        XCTAssertEqual(ResolveEntries.addresses(forHost: "a.test", port: 443, in: entries), ["10.0.0.1"])
        XCTAssertNil(ResolveEntries.addresses(forHost: "a.test", port: 8080, in: entries))
        XCTAssertNil(ResolveEntries.addresses(forHost: "b.test", port: 80, in: entries))
    }

    func testAWildcardAnswersOnlyForHostsNoEntryNames() {
        let entries = ["+a.test:80:127.0.0.1", "*:80:[::1]"]
        XCTAssertEqual(ResolveEntries.addresses(forHost: "a.test", port: 80, in: entries), ["127.0.0.1"])
        XCTAssertEqual(ResolveEntries.addresses(forHost: "b.test", port: 80, in: entries), ["::1"])
    }
}
