import XCTest
@testable import SwurlRequestSerialization
@testable import SwurlCore

final class NestedKeyParserTests: XCTestCase {
    func testComponents() throws {
        XCTAssertEqual(try NestedKeyParser.parse("a[b][0][]", item: "i").components,
                       [.key("a"), .key("b"), .index(0), .append])
        XCTAssertEqual(try NestedKeyParser.parse("[]", item: "i").components, [.append])
        XCTAssertEqual(try NestedKeyParser.parse("[2][x]", item: "i").components, [.index(2), .key("x")])
        XCTAssertEqual(try NestedKeyParser.parse("plain", item: "i").components, [.key("plain")])
    }

    func testEscapedBracketsAreLiteral() throws {
        XCTAssertEqual(try NestedKeyParser.parse("a\\[b\\]", item: "i").components, [.key("a[b]")])
        XCTAssertEqual(try NestedKeyParser.parse("a[x\\]y]", item: "i").components, [.key("a"), .key("x]y")])
    }

    /// HTTPie's escaped integer: `a[\5]` is the key "5" (it was the key "\5"), so an object can
    /// have a number as a key; `a[5]` stays an index.
    func testAnEscapedNumberIsAKey() throws {
        XCTAssertEqual(try NestedKeyParser.parse("a[\\5]", item: "i").components, [.key("a"), .key("5")])
        XCTAssertEqual(try NestedKeyParser.parse("a[\\12]", item: "i").components, [.key("a"), .key("12")])
        XCTAssertEqual(try NestedKeyParser.parse("a[5]", item: "i").components, [.key("a"), .index(5)])
        XCTAssertEqual(try NestedKeyParser.parse("\\7", item: "i").components, [.key("7")])
        XCTAssertEqual(try NestedKeyParser.parse("a[x\\y]", item: "i").components, [.key("a"), .key("x\\y")])
        // Only a backslash and digits alone: elsewhere the backslash stays, as HTTPie sends it.
        XCTAssertEqual(try NestedKeyParser.parse("a\\5b", item: "i").components, [.key("a\\5b")])
        XCTAssertEqual(try NestedKeyParser.parse("a[x\\1]", item: "i").components, [.key("a"), .key("x\\1")])
        XCTAssertEqual(try NestedKeyParser.parse("a[1\\2]", item: "i").components, [.key("a"), .key("1\\2")])
    }

    func testErrorsPointAtTheBadCharacter() {
        XCTAssertThrowsError(try NestedKeyParser.parse("a[b]c", item: "a[b]c=1")) { error in
            guard case .usage(let message, let hint)? = error as? SwurlError else { return XCTFail() }
            XCTAssertTrue(message.contains("'a[b]c=1'"))
            XCTAssertEqual(hint, "  a[b]c\n      ^")
        }
        XCTAssertThrowsError(try NestedKeyParser.parse("a[b", item: "a[b=1"))
        XCTAssertThrowsError(try NestedKeyParser.parse("a]", item: "a]=1"))
    }

    /// As HTTPie: a negative index is refused (it was the key "-1"), and a key that starts with
    /// '[' is a top-level array (`[x]=1` was the key "x").
    func testNegativeIndexesAndATopLevelKeyAreRefused() {
        for (key, reason) in [("a[-1]", "negative array indexes"), ("[x]", "needs an array index"), ("[-2]", "negative array indexes")] {
            XCTAssertThrowsError(try NestedKeyParser.parse(key, item: key + "=1"), key) { error in
                XCTAssertTrue(error.localizedDescription.contains(reason) || "\(error)".contains(reason), "\(key): \(error)")
            }
        }
        XCTAssertEqual(try NestedKeyParser.parse("a[-x]", item: "i").components, [.key("a"), .key("-x")])
        // A form's keys are its own (AFNetworking's encoding sends them back as written).
        XCTAssertEqual(try NestedKeyParser.parse("a[-1]", item: "i", jsonRules: false).components, [.key("a"), .key("-1")])
        XCTAssertEqual(try NestedKeyParser.parse("[x][y]", item: "i", jsonRules: false).components, [.key("[x]"), .key("y")])
    }
}
