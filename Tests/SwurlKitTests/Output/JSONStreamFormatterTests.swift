import XCTest
@testable import SwurlOutput
@testable import SwurlResponseSerialization
@testable import SwurlCore

final class JSONStreamFormatterTests: XCTestCase {
    private func format(_ text: String, chunk: Int = 3, theme: Theme? = nil) -> (String, Bool) {
        let (out, valid) = formatBytes(Array(text.utf8), chunk: chunk, sanitize: true, theme: theme)
        return (String(decoding: out, as: UTF8.self), valid)
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

    private func formatBytes(_ bytes: [UInt8], chunk: Int, sanitize: Bool, theme: Theme? = nil) -> ([UInt8], Bool) {
        let f = JSONStreamFormatter(theme: theme, sanitize: sanitize)
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            let end = min(bytes.count, i + chunk)
            bytes[i..<end].withUnsafeBytes { f.feed($0, into: &out) }
            i = end
        }
        f.finish(into: &out)
        return (out, f.isValid)
    }

    /// Regression: raw C1 controls (U+009B is CSI) and DEL inside valid JSON strings reached the
    /// terminal. Sanitizing writes them as `\u00XX` escapes, however the chunks split them.
    func testSanitizingEscapesC1AndDELInsideStringsAtAnyChunkSize() throws {
        let input: [UInt8] = Array(#"{"k\#u{9B}":"\#u{9B}31m\#u{7F}°\#u{85}é","n":"\#u{80}\#u{9F}\#u{A0}"}"#.utf8)
        XCTAssertTrue(input.contains(0xC2))
        let expected = "{\n    \"k\\u009b\": \"\\u009b31m\\u007f°\\u0085é\",\n    \"n\": \"\\u0080\\u009f\u{A0}\"\n}"
        for chunk in 1...9 {
            let (out, valid) = formatBytes(input, chunk: chunk, sanitize: true)
            XCTAssertEqual(String(decoding: out, as: UTF8.self), expected, "chunk \(chunk)")
            XCTAssertTrue(valid)
            XCTAssertFalse(out.contains(0x7F))
            XCTAssertFalse(zip(out, out.dropFirst()).contains { $0 == 0xC2 && (0x80...0x9F).contains($1) }, "chunk \(chunk)")
            // Still the same document.
            XCTAssertEqual(try JSONParser.parse(out), try JSONParser.parse(input))
        }
        // Not sanitizing (a pipe): the bytes stay as sent.
        let (raw, _) = formatBytes(input, chunk: 4, sanitize: false)
        XCTAssertEqual(String(decoding: raw, as: UTF8.self),
                       "{\n    \"k\u{9B}\": \"\u{9B}31m\u{7F}°\u{85}é\",\n    \"n\": \"\u{80}\u{9F}\u{A0}\"\n}")
        // A string cut after its 0xC2 byte: the byte is not UTF-8, so it is shown as `\xc2`
        // (and the string is flagged as unterminated).
        let (cut, cutValid) = formatBytes([0x22, 0x61, 0xC2], chunk: 3, sanitize: true)
        XCTAssertEqual(String(decoding: cut, as: UTF8.self), "\"a\\xc2")
        XCTAssertFalse(cutValid)
    }

    /// Regression (issue 14): a lone 0x9B (8-bit CSI) in a string that is not valid UTF-8 reached
    /// the terminal raw. Every byte that is not part of valid UTF-8 becomes `\xNN`, however the
    /// chunks fall; valid multi-byte text is untouched.
    func testSanitizingShowsBytesThatAreNotUTF8AtAnyChunkSize() {
        let input: [UInt8] = Array(#"{"k":"a"#.utf8) + [0x9B] + Array("[31mb".utf8)
            + [0xE2, 0x9B] + Array(#"","e":"€😀\#u{85}","x":""#.utf8) + [0xE0, 0x9B, 0xED, 0xA0, 0x80, 0xFF, 0xC2] + Array(#""}"#.utf8)
        let expected = #"{\#n    "k": "a\x9b[31mb\xe2\x9b",\#n    "e": "€😀\u0085",\#n    "x": "\xe0\x9b\xed\xa0\x80\xff\xc2"\#n}"#
        for chunk in 1...input.count {
            let (out, _) = formatBytes(input, chunk: chunk, sanitize: true)
            XCTAssertEqual(String(decoding: out, as: UTF8.self), expected, "chunk \(chunk)")
            XCTAssertNotNil(String(validating: out, as: UTF8.self), "chunk \(chunk)")
        }
        // A pipe gets the bytes as sent.
        let (raw, _) = formatBytes(input, chunk: 5, sanitize: false)
        XCTAssertTrue(raw.contains(0x9B))
    }

    /// A control character right after a backslash is not an escape: it must not be copied raw.
    func testControlAfterBackslashIsNotCopiedRaw() {
        for chunk in [1, 2, 100] {
            let (out, valid) = format("{\"a\": \"x\\\u{1B}[2J\\u00\u{1B}]0;t\u{07}\"}", chunk: chunk)
            XCTAssertFalse(valid)
            XCTAssertFalse(out.contains("\u{1B}"), out)
            XCTAssertFalse(out.contains("\u{07}"), out)
        }
    }
}
