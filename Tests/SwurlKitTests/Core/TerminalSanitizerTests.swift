import XCTest
@testable import SwurlOutput
@testable import SwurlResponseSerialization
@testable import SwurlCore

final class TerminalSanitizerTests: XCTestCase {
    private func clean(_ chunks: [[UInt8]]) -> String {
        var s = TerminalSanitizer()
        var out: [UInt8] = []
        for c in chunks { c.withUnsafeBytes { s.append($0, to: &out) } }
        s.finish(into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    func testControlsAndC1AreMadeVisible() {
        let input: [UInt8] = Array("a\u{1B}]52;c;x\u{07}b\tc\n".utf8) + [0xC2, 0x9B, 0x7F] + Array("é".utf8)
        XCTAssertEqual(clean([input]), "a\\x1b]52;c;x\\x07b\tc\n\\u{9b}\\x7fé")
    }

    func testCRIsKeptOnlyBeforeLF() {
        XCTAssertEqual(clean([Array("a\r\nb\rc\r".utf8)]), "a\r\nb\\x0dc\\x0d")
        XCTAssertEqual(clean([[0x61, 0x0D], [0x0A]]), "a\r\n")
    }

    func testC1SplitAcrossChunks() {
        XCTAssertEqual(clean([[0xC2], [0x85]]), "\\u{85}")
        XCTAssertEqual(clean([[0xC2], [0xA9]]), "©")
    }

    func testHeaderValuesShowNewlinesAndTabs() {
        XCTAssertEqual(TerminalSanitizer.clean("a\tb\u{1B}[2J"), "a\\tb\\x1b[2J")
    }

    /// Regression (issue 14): a lone 0x9B, the 8-bit CSI, is not UTF-8 and was passed raw.
    /// In a short text (a URL, a header, a message) a bidirectional override or isolate is shown:
    /// it would make what follows it on the line read as something else. Other text is untouched.
    /// Characters of no width are shown (a config line's `U+FEFF--proxy` read as `--proxy`);
    /// the joiners that shape scripts and emoji are not.
    func testZeroWidthCharactersInShortTextsAreShown() {
        XCTAssertEqual(TerminalSanitizer.clean("\u{FEFF}--proxy"), "\\u{feff}--proxy")
        XCTAssertEqual(TerminalSanitizer.clean("a\u{200B}b\u{2060}c"), "a\\u{200b}b\\u{2060}c")
        // The interlinear annotation marks show as nothing too (they passed raw).
        XCTAssertEqual(TerminalSanitizer.clean("a\u{FFF9}b\u{FFFB}c"), "a\\u{fff9}b\\u{fffb}c")
        XCTAssertEqual(TerminalSanitizer.clean("\u{2063}--proxy soft\u{AD}hy\u{34F}x\u{3164}"),
                       "\\u{2063}--proxy soft\\u{ad}hy\\u{34f}x\\u{3164}")
        // Tag characters spell text no terminal shows ("ASCII smuggling").
        XCTAssertEqual(TerminalSanitizer.clean("ok\u{E0069}\u{E007F}!"), "ok\\u{e0069}\\u{e007f}!")
        // Selectors shape what comes before them: shown as they are.
        XCTAssertEqual(TerminalSanitizer.clean("❤\u{FE0F} 葛\u{E0100} ᠠ\u{180B} ᠠ\u{180E}"), "❤\u{FE0F} 葛\u{E0100} ᠠ\u{180B} ᠠ\u{180E}")
        XCTAssertEqual(TerminalSanitizer.clean("👩\u{200D}💻 क\u{200C}ष"), "👩\u{200D}💻 क\u{200C}ष")
        // First or after ASCII they shape nothing, and hid in a word (`--pro‍xy` read as a refusal
        // of `--proxy`), as download names drop them there.
        XCTAssertEqual(TerminalSanitizer.clean("--pro\u{200D}xy \u{200C}a .\u{FE0F} x\u{E0100}"),
                       "--pro\\u{200d}xy \\u{200c}a .\\u{fe0f} x\\u{e0100}")
    }

    func testBidiControlsInShortTextsAreShown() {
        XCTAssertEqual(TerminalSanitizer.clean("http://a/\u{202E}gpj.exe"), "http://a/\\u{202e}gpj.exe")
        XCTAssertEqual(TerminalSanitizer.clean("\u{202A}\u{202B}\u{202C}\u{202D}x\u{2066}\u{2067}\u{2068}\u{2069}"),
                       "\\u{202a}\\u{202b}\\u{202c}\\u{202d}x\\u{2066}\\u{2067}\\u{2068}\\u{2069}")
        XCTAssertEqual(TerminalSanitizer.clean("€ \u{2070} עברית"), "€ \u{2070} עברית")
        // The line and paragraph separators break a line for readers that split on them
        // (`str.splitlines`: a `--jsonl` line read as two).
        XCTAssertEqual(TerminalSanitizer.clean("a\u{2028}b\u{2029}c"), "a\\u{2028}b\\u{2029}c")
        // The marks too (a server's header passed them to the terminal).
        XCTAssertEqual(TerminalSanitizer.clean("a\u{200E}b\u{200F}c\u{200D}"), "a\\u{200e}b\\u{200f}c\\u{200d}")
        // And the Arabic letter mark, the third (two bytes: D8 9C), beside Arabic text it leaves.
        XCTAssertEqual(TerminalSanitizer.clean("a\u{061C}b \u{061B}\u{0639}"), "a\\u{61c}b \u{061B}\u{0639}")
    }

    func testBytesThatAreNotUTF8AreShownAsHex() {
        XCTAssertEqual(clean([[0x61, 0x9B] + Array("[2Jb".utf8)]), "a\\x9b[2Jb")
        // Cut sequences, overlong forms, surrogates, bytes that never start a sequence.
        XCTAssertEqual(clean([[0xE2, 0x9B, 0x41]]), "\\xe2\\x9bA")
        XCTAssertEqual(clean([[0xE0, 0x9B, 0xBB]]), "\\xe0\\x9b\\xbb")
        XCTAssertEqual(clean([[0xED, 0xA0, 0x80]]), "\\xed\\xa0\\x80")
        XCTAssertEqual(clean([[0xC0, 0x80, 0xF5, 0xFF, 0xF4, 0x90, 0x80, 0x80]]), "\\xc0\\x80\\xf5\\xff\\xf4\\x90\\x80\\x80")
        XCTAssertEqual(clean([[0xC2]]), "\\xc2")
        XCTAssertEqual(clean([[0xF0, 0x9F, 0x98]]), "\\xf0\\x9f\\x98")
        // A sequence cut by a control or CR: both shown.
        XCTAssertEqual(clean([[0xC3, 0x1B, 0xC3, 0x0D, 0x0A]]), "\\xc3\\x1b\\xc3\r\n")
    }

    /// The same bytes give the same output however they are split into chunks, and valid UTF-8
    /// (two, three and four bytes) passes untouched.
    func testOutputDoesNotDependOnChunking() {
        let input: [UInt8] = Array("é€😀 a\r\n".utf8) + [0x9B, 0xC2, 0x85, 0xE2, 0x82] + Array("x\r".utf8) + [0xF0, 0x9F, 0x98, 0x80, 0x9F]
        let whole = clean([input])
        XCTAssertEqual(whole, "é€😀 a\r\n\\x9b\\u{85}\\xe2\\x82x\\x0d😀\\x9f")
        for size in 1...input.count {
            let chunks = stride(from: 0, to: input.count, by: size).map { Array(input[$0..<min($0 + size, input.count)]) }
            XCTAssertEqual(clean(chunks), whole, "chunk \(size)")
        }
    }

    func testAnExcerptIsCleanedAndCutWithItsLength() {
        XCTAssertEqual(TerminalSanitizer.excerpt("Not Found"), "Not Found")
        XCTAssertEqual(TerminalSanitizer.excerpt(String(repeating: "a", count: 200)), String(repeating: "a", count: 200))
        XCTAssertEqual(TerminalSanitizer.excerpt(String(repeating: "a", count: 201)), String(repeating: "a", count: 200) + "…(201 bytes)")
        XCTAssertEqual(TerminalSanitizer.excerpt("\u{1B}x", limit: 1), TerminalSanitizer.clean("\u{1B}") + "…(2 bytes)")
        XCTAssertFalse(TerminalSanitizer.excerpt("\u{1B}x", limit: 1).contains("\u{1B}"))
        // One Character of a letter and 20,000 combining marks is cut too.
        let marks = "a" + String(repeating: "\u{301}", count: 20_000)
        XCTAssertLessThan(TerminalSanitizer.excerpt(marks).utf8.count, 1_000)
        XCTAssertTrue(TerminalSanitizer.excerpt(marks).hasSuffix("…(40001 bytes)"))
    }
}
