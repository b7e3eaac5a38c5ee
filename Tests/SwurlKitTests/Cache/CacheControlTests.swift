import XCTest
@testable import SwurlCache
import SwurlCore

final class CacheControlTests: XCTestCase {
    func testDirectivesListsQuotesAndCase() {
        let cc = CacheControl(HTTPHeaders([.init(name: "Cache-Control", value: "Max-Age=60, no-cache=\"Set-Cookie, X\""),
                                           .init(name: "cache-control", value: "private,max-age=5")]))
        XCTAssertEqual(cc.seconds("max-age"), 60, "the first value wins")
        XCTAssertTrue(cc.has("no-cache"))
        XCTAssertTrue(cc.has("private"))
        XCTAssertEqual(cc.directives["no-cache"], .some("Set-Cookie, X"))
    }

    func testDeltaSecondsAndMaxStale() {
        XCTAssertNil(CacheControl("max-age=-1").seconds("max-age"))
        XCTAssertNil(CacheControl("max-age=1.5").seconds("max-age"))
        XCTAssertNil(CacheControl("max-age").seconds("max-age"))
        XCTAssertEqual(CacheControl("max-age=\"30\"").seconds("max-age"), 30)
        XCTAssertEqual(CacheControl("max-age=99999999999999999999").seconds("max-age"), 2_147_483_648)
        XCTAssertEqual(CacheControl("max-stale").maxStale, .infinity)
        XCTAssertEqual(CacheControl("max-stale=7").maxStale, 7)
        XCTAssertNil(CacheControl("").maxStale)
    }
}
