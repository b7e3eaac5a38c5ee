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

    func testStatusLinesOutsideASCIISplitByCharacter() {
        // A space before a combining mark is one Character: no separator there.
        let head = HTTPResponseHead(lines: ["HTTP/1.1 404 Not \u{301}Found", "X: y"])
        XCTAssertEqual(head?.status, 404)
        XCTAssertEqual(head?.reason, "Not \u{301}Found")
        XCTAssertNil(HTTPResponseHead(lines: ["HTTP/1.1 \u{301}200 OK"]))
        XCTAssertEqual(HTTPResponseHead(lines: ["HTTP/2 204"])?.reason, "")
        XCTAssertNil(HTTPResponseHead(lines: ["HTTP/1.1"]))
    }

    func testHeaderNamesCompareAsLowerCasedStrings() {
        let headers = HTTPHeaders([.init(name: "content-TYPE", value: "a"), .init(name: "\u{212A}ey", value: "kelvin"),
                                   .init(name: "X-\u{C9}", value: "e")])
        XCTAssertEqual(headers["Content-Type"], "a")
        XCTAssertNil(headers["Content-Typ"])
        XCTAssertNil(headers["Content-Types"])
        // U+212A KELVIN SIGN lower-cases to "k", as String.lowercased() has it.
        XCTAssertEqual(headers["KEY"], "kelvin")
        XCTAssertEqual(headers["x-\u{E9}"], "e")
        XCTAssertEqual(headers["x-e\u{301}"], "e")
        XCTAssertNil(headers["x-\u{E9}\u{E9}"])
    }
}
