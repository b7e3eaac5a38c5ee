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

    func testRangeOfTextFindsTheFirstByteMatch() {
        func found(_ hay: String, _ needle: String) -> String? {
            hay.rangeOfText(needle).map { String(hay[$0]) + "@" + String(hay.utf8.distance(from: hay.startIndex, to: $0.lowerBound)) }
        }
        XCTAssertEqual(found("http://host/x://y", "://"), "://@4")   // the first of two
        XCTAssertEqual(found("abc", "abc"), "abc@0")
        XCTAssertEqual(found("abc", "c"), "c@2")
        XCTAssertEqual(found("abc", ""), "@0")
        XCTAssertEqual(found("aab", "ab"), "ab@1")                   // a restart inside a partial match
        XCTAssertEqual(found("δέλτα", "λτ"), "λτ@4")                 // byte offset of a scalar boundary
        XCTAssertEqual(found("One. Two. ", ". "), ". @3")
        XCTAssertNil(found("ab", "abc"))                             // the needle runs past the end
        XCTAssertNil(found("", "a"))
        XCTAssertNil(found("a:/b", "://"))
        // On a substring the range is in the base string's indices, and the search stays inside it.
        let text = "x://y://z"
        let tail = text[text.index(text.startIndex, offsetBy: 2)...]
        let r = tail.rangeOfText("://")
        XCTAssertEqual(r.map { String(text[$0]) }, "://")
        XCTAssertEqual(r.map { text.distance(from: text.startIndex, to: $0.lowerBound) }, 5)   // not the one cut at 1
        XCTAssertNil(text[..<text.index(text.startIndex, offsetBy: 3)].rangeOfText("://"))
        XCTAssertTrue(tail.containsText("y:"))
        XCTAssertFalse(tail.containsText("x"))
    }

    func testReplacingAllMatchesBytesSoAQuoteBeforeACombiningMarkIsReplaced() {
        // By Character, "'" + U+0301 is one Character unequal to "'", and a shell quote built
        // with replacingAll would end early; by bytes every quote is escaped.
        XCTAssertEqual("a'\u{301}b".replacingAll("'", with: "'\\''"), "a'\\''\u{301}b")
        XCTAssertEqual("x\"\u{301}".replacingAll("\"", with: "\\\""), "x\\\"\u{301}")
        XCTAssertEqual("aaa".replacingAll("aa", with: "b"), "ba")
        XCTAssertEqual("abc".replacingAll("", with: "x"), "abc")
        XCTAssertEqual("abc".replacingAll("z", with: "x"), "abc")
    }

    func testMarkupEscapedQuotesMarkupAndReplacesWhatXMLCannotHold() {
        XCTAssertEqual("<a href=\"x\">&'</a>".markupEscaped, "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;")
        XCTAssertEqual("a\tb\nc\rd".markupEscaped, "a&#9;b&#10;c&#13;d")
        XCTAssertEqual("x\u{01}\u{1B}\u{7F}\u{FFFE}\u{FFFF}y".markupEscaped, "x\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}y")
        XCTAssertEqual("é ✓ 𝄞".markupEscaped, "é ✓ 𝄞")
    }

    /// A CR as `&#13;` (a parser reads a raw one as LF), other controls as `&#xN;` (a binary
    /// plist's string, shown), tab and LF as they are.
    func testXMLEscapedKeepsCarriageReturnsAndShowsControls() {
        XCTAssertEqual("a<b>&c".xmlEscaped, "a&lt;b&gt;&amp;c")
        XCTAssertEqual("a\rb\r\nc\td\ne".xmlEscaped, "a&#13;b&#13;\nc\td\ne")
        XCTAssertEqual("x\u{01}\u{1F}y".xmlEscaped, "x&#x1;&#x1F;y")
        // C1 controls and bidirectional controls stay references (a server's `&#x202E;`).
        XCTAssertEqual("a\u{9B}b\u{7F}\u{202E}c\u{061C}d\u{A0}é".xmlEscaped, "a&#x9B;b&#x7F;&#x202E;c&#x61C;d\u{A0}é")
    }
}
