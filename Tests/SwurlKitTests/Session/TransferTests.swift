import XCTest
@testable import SwurlSession
@testable import SwurlResponseSerialization
@testable import SwurlCore

final class TransferTests: XCTestCase {
    func testResponseHeadSplitsHeadersAtTheColonEvenBeforeACombiningMark() {
        // ':' followed by U+0301 is one Character; a Character search dropped the whole header.
        let head = HTTPResponseHead(lines: ["HTTP/1.1 200 OK \t", "X-A:\u{301}v", "X-B: two \t", "X-C : \u{301} "])
        XCTAssertEqual(head?.status, 200)
        XCTAssertEqual(head?.reason, "OK")
        XCTAssertEqual(head?.headers["X-A"], "\u{301}v")
        XCTAssertEqual(head?.headers["X-B"], "two")
        XCTAssertEqual(head?.headers["X-C "], "\u{301}")
    }

    func testTrimmingWorksOnScalarsNotCharacters() {
        XCTAssertEqual(" \t a b \r\n".trimmingSpaces(), "a b")
        XCTAssertEqual("a\r\n\r\n".trimmingTrailingNewlines(), "a")
        XCTAssertEqual("\r\n 42 \r\n".trimmingNewlines(), "42")
        // A space then a combining mark: the space is trimmed, the mark (not white space) stays.
        XCTAssertEqual(" \u{301}a".trimmingSpaces(), "\u{301}a")
        XCTAssertEqual("\n\u{301}7".trimmingNewlines(), "\u{301}7")
    }
}
