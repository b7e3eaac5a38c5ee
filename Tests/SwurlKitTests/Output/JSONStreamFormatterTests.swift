import XCTest
@testable import SwurlKit

final class JSONStreamFormatterTests: XCTestCase {
    private func format(_ text: String, chunk: Int = 3, theme: Theme? = nil) -> (String, Bool) {
        let f = JSONStreamFormatter(theme: theme, sanitize: true)
        var out: [UInt8] = []
        let bytes = Array(text.utf8)
        var i = 0
        while i < bytes.count {
            let end = min(bytes.count, i + chunk)
            bytes[i..<end].withUnsafeBytes { f.feed($0, into: &out) }
            i = end
        }
        f.finish(into: &out)
        return (String(decoding: out, as: UTF8.self), f.isValid)
    }

    func testIndentsAndKeepsLiteralsAtAnyChunkSize() {
        let input = #"{"b":[1.50,true,null,{}],"a":"x\"y","e":[]}"#
        let expected = """
        {
            "b": [
                1.50,
                true,
                null,
                {}
            ],
            "a": "x\\"y",
            "e": []
        }
        """
        for chunk in [1, 2, 5, 1000] {
            let (out, valid) = format(input, chunk: chunk)
            XCTAssertEqual(out, expected, "chunk \(chunk)")
            XCTAssertTrue(valid)
        }
    }

    func testReformattingIsStableAndReparsesToTheSameDocument() throws {
        let input = #"  {"k": {"n": [1, 2, {"z": "\u00e9"}]}, "s": "a\tb"}  "#
        let (once, _) = format(input)
        let (twice, _) = format(once)
        XCTAssertEqual(once, twice)
        XCTAssertEqual(try JSONParser.parse(once), try JSONParser.parse(input))
    }

    func testJSONLinesAreFormattedOneByOne() {
        let (out, valid) = format("{\"a\":1}\n{\"a\":2}\n")
        XCTAssertEqual(out, "{\n    \"a\": 1\n}\n{\n    \"a\": 2\n}")
        XCTAssertTrue(valid)
    }

    func testInvalidJSONIsPassedThroughAndFlagged() {
        let (out, valid) = format("{\"a\": nope \u{1B}[31m}")
        XCTAssertFalse(valid)
        XCTAssertTrue(out.contains("\\x1b[31m}"), out)
        XCTAssertFalse(out.contains("\u{1B}[31m"), out)
        XCTAssertFalse(format("{\"a\": [1, 2").1)
    }

    func testColoursKeysAndValues() {
        let theme = Theme()
        let (out, _) = format(#"{"k":"v","n":1}"#, theme: theme)
        XCTAssertTrue(out.contains(theme.jsonKey + "\"k\"" + theme.reset))
        XCTAssertTrue(out.contains(theme.jsonString + "\"v\"" + theme.reset))
        XCTAssertTrue(out.contains(theme.jsonNumber + "1" + theme.reset))
    }
}
