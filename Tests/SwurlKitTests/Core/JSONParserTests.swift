import XCTest
@testable import SwurlOutput
@testable import SwurlResponseSerialization
@testable import SwurlCore

final class JSONParserTests: XCTestCase {
    func testKeepsOrderAndNumberLiterals() throws {
        let v = try JSONParser.parse(#"{"b": 1.50, "a": [12345678901234567890, -0, 1e3], "c": null}"#)
        XCTAssertEqual(v.serialized, #"{"b":1.50,"a":[12345678901234567890,-0,1e3],"c":null}"#)
    }

    func testEscapesRoundTrip() throws {
        let v = try JSONParser.parse(#""a\"b\\c\n\u00e9\ud83d\ude00\u0001""#)
        XCTAssertEqual(v, .string("a\"b\\c\né😀\u{1}"))
        XCTAssertEqual(v.serialized, #""a\"b\\c\né😀\u0001""#)
    }

    func testRejectsInvalidDocumentsWithPositions() {
        let cases: [(String, Int, Int)] = [("[1,", 1, 4), ("{\"a\" 1}", 1, 6), ("01", 1, 2), ("[1]\n x", 2, 2),
                                            ("\"abc", 1, 1), ("tru", 1, 1), ("\"\\ud800\"", 1, 8)]
        for (text, line, column) in cases {
            XCTAssertThrowsError(try JSONParser.parse(text), text) { error in
                guard let e = error as? JSONParser.SyntaxError else { return XCTFail() }
                XCTAssertEqual([e.line, e.column], [line, column], "\(text): \(e.description)")
            }
        }
    }

    /// The note on a raw control character spells the escape with four hex digits (`\u0007`,
    /// not `\u007`, which is itself an invalid escape).
    func testAControlCharacterNoteSuggestsAFourDigitEscape() {
        for (byte, escape) in [(0x07, "\\u0007"), (0x0A, "\\u000a"), (0x00, "\\u0000"), (0x1B, "\\u001b"), (0x10, "\\u0010")] {
            XCTAssertThrowsError(try JSONParser.parse([0x22, UInt8(byte), 0x22])) { error in
                guard let e = error as? JSONParser.SyntaxError else { return XCTFail() }
                XCTAssertEqual(e.reason, "control character in string (escape it as \(escape))")
            }
        }
    }

    func testDeepNestingIsAnErrorNotACrash() {
        let deep = String(repeating: "[", count: 100_000)
        XCTAssertThrowsError(try JSONParser.parse(deep))
    }
}
