import XCTest
@testable import SwurlCore

final class StringHelpersTests: XCTestCase {
    func testContainsTextSearchesBytes() {
        XCTAssertTrue("xterm-256color".containsText("256"))
        XCTAssertTrue("xterm-direct".containsText("direct"))
        XCTAssertTrue("abc".containsText("abc"))
        XCTAssertTrue("abc".containsText("c"))
        XCTAssertTrue("abc".containsText(""))
        XCTAssertFalse("".containsText("a"))
        XCTAssertFalse("ab".containsText("abc"))
        XCTAssertFalse("xterm-25".containsText("256"))
        XCTAssertTrue("aab".containsText("ab"))   // a restart inside a partial match
        XCTAssertTrue("δέλτα".containsText("λτ"))
        // Bytes, not Characters: an e followed by a combining accent still holds "e".
        XCTAssertTrue("cafe\u{301}".containsText("e"))
        XCTAssertFalse("cafe\u{301}".contains("e"))
    }
}
