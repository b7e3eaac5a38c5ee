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

    /// Formatting that stops inside a string or a number adds no line break there (a raw tab in
    /// a string became a line feed in it).
    func testStoppingInsideAStringOrNumberKeepsItsBytes() {
        XCTAssertEqual(format("{\"a\":\"x\ty\",\"b\":1}").0, "{\n    \"a\": \"x\ty\",\"b\":1}")
        // (A literal is checked when it ends: the break falls after it, between tokens.)
        XCTAssertEqual(format("{\"a\":12x}").0, "{\n    \"a\": 12x\n}")
        XCTAssertEqual(format("{\"a\":1 x}").0, "{\n    \"a\": 1\nx}")
    }

    func testColoursKeysAndValues() {
        let theme = Theme()
        let (out, _) = format(#"{"k":"v","n":1}"#, theme: theme)
        XCTAssertTrue(out.contains(theme.jsonKey + "\"k\"" + theme.reset))
        XCTAssertTrue(out.contains(theme.jsonString + "\"v\"" + theme.reset))
        XCTAssertTrue(out.contains(theme.jsonNumber + "1" + theme.reset))
    }

    private func formatBytes(_ bytes: [UInt8], chunk: Int, sanitize: Bool, theme: Theme? = nil,
                             fastPath: Bool = true) -> ([UInt8], Bool) {
        let f = JSONStreamFormatter(theme: theme, sanitize: sanitize, fastPath: fastPath)
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            let end = min(bytes.count, i + chunk)
            bytes[i..<end].withUnsafeBytes { f.feed($0, into: &out) }
            i = end
        }
        f.finish(into: &out)
        return (out, f.isValid && f.isValidText)
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

    /// JSON text is UTF-8 and a `\u` surrogate must be half of a pair (RFC 8259 §8.1, §8.2): the
    /// streaming formatter's verdict is the tree parser's (`--sort-keys`), at every cut, in both
    /// loops, on a terminal or a pipe. Such a body is still formatted (`isValid`: its syntax is
    /// fine), and a pipe still gets the bytes as sent.
    func testBytesThatAreNotUTF8AndLoneSurrogatesAreNotJSON() {
        let bad: [[UInt8]] = [[0xFF], [0xC3], [0xC3, 0x41], [0x80], [0xC0, 0xAF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80],
                              [0xF4, 0x90, 0x80, 0x80], [0xF0, 0x9F, 0x98], Array(#"\uD800"#.utf8), Array(#"\udbff"#.utf8),
                              Array(#"\uDC00"#.utf8), Array(#"\uD800\u0041"#.utf8), Array(#"\uD800x"#.utf8),
                              Array(#"\uD800\n"#.utf8), Array(#"\uD800\uD800"#.utf8), Array(#"\uDE00\uD83D"#.utf8)]
        let good: [[UInt8]] = [Array("é€😀\u{10FFFF}".utf8), [0xF4, 0x8F, 0xBF, 0xBF], Array(#"\uD83D\uDE00"#.utf8),
                               Array(#"\ud83d\ude00x"#.utf8), Array(#"\uDBFF\uDFFF"#.utf8), Array(#"\uD7FF\uE000"#.utf8)]
        for (content, expected) in bad.map({ ($0, false) }) + good.map({ ($0, true) }) {
            let input = Array(#"{"a":"x"#.utf8) + content + Array(#"y","b":[""#.utf8) + content + Array(#""]}"#.utf8)
            XCTAssertEqual((try? JSONParser.parse(input)) != nil, expected, "the tree parser: \(content)")
            for sanitize in [false, true] {
                for fastPath in [true, false] {
                    for chunk in [input.count, 1, 2, 3, 5, 8] {
                        let (out, valid) = formatBytes(input, chunk: chunk, sanitize: sanitize, fastPath: fastPath)
                        XCTAssertEqual(valid, expected, "\(content) chunk \(chunk) sanitize \(sanitize) fast \(fastPath)")
                        let f = JSONStreamFormatter(theme: nil, sanitize: sanitize, fastPath: fastPath)
                        var scratch: [UInt8] = []
                        input.withUnsafeBytes { f.feed($0, into: &scratch) }
                        f.finish(into: &scratch)
                        XCTAssertTrue(f.isValid && !f.hasFailed, "formatted: \(content)")
                        if !sanitize {
                            XCTAssertEqual(out.filter { $0 != 0x20 && $0 != 0x0A }, input, "a pipe gets the bytes: \(content) chunk \(chunk)")
                        }
                    }
                }
            }
        }
    }

    /// A backslash that starts no escape, before a byte shown as `\xNN` or `\u00XX`, is shown
    /// as `\x5c` (as the text sanitizer shows it), so the pair never reads as an escaped
    /// backslash followed by text: `"\<E5>"` as `"\\xe5"` would be valid JSON of another string.
    /// Valid escapes, and a backslash before plain text, stay as sent; a pipe gets the bytes.
    func testABackslashBeforeAByteShownAsAnEscapeIsShownAsX5C() {
        let cases: [([UInt8], String)] = [
            ([0x5C, 0xE5], #"\x5c\xe5"#),
            ([0x5C, 0xC2, 0x9B] + Array("[31m".utf8), #"\x5c\u009b[31m"#),
            ([0x5C, 0x7F], #"\x5c\u007f"#),
            ([0x5C, 0xFF, 0x41], #"\x5c\xffA"#),
            ([0x5C, 0xE5, 0x9B], #"\x5c\xe5\x9b"#),
            ([0x5C] + Array("é".utf8), #"\é"#),
            (Array(#"\q"#.utf8), #"\q"#),
            (Array(#"\\"#.utf8) + [0xE5], #"\\\xe5"#),
            (Array(#"\n\u0041\""#.utf8) + [0x5C, 0xE5], #"\n\u0041\"\x5c\xe5"#),
        ]
        for (content, shown) in cases {
            let input = Array(#"{"a":"x"#.utf8) + content + Array(#"y"}"#.utf8)
            for fastPath in [true, false] {
                for chunk in [input.count, 1, 2, 3, 7] {
                    let (out, _) = formatBytes(input, chunk: chunk, sanitize: true, fastPath: fastPath)
                    XCTAssertEqual(String(decoding: out, as: UTF8.self), "{\n    \"a\": \"x" + shown + "y\"\n}",
                                   "\(content) chunk \(chunk) fast \(fastPath)")
                }
            }
            let (raw, _) = formatBytes(input, chunk: 2, sanitize: false)
            XCTAssertEqual(raw.filter { $0 != 0x20 && $0 != 0x0A }, input, "a pipe gets the bytes: \(content)")
        }
        // The body ends right after the backslash, or inside the sequence after it.
        let (end, _) = formatBytes(Array(#""a\"#.utf8), chunk: 1, sanitize: true)
        XCTAssertEqual(String(decoding: end, as: UTF8.self), #""a\"#)
        let (cut, _) = formatBytes(Array(#""a\"#.utf8) + [0xE5], chunk: 1, sanitize: true)
        XCTAssertEqual(String(decoding: cut, as: UTF8.self), #""a\x5c\xe5"#)
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

    /// String runs are scanned eight bytes at a time: every kind of byte that ends a run (quote,
    /// escape, multi-byte UTF-8, the closing quote) at every offset within a word, and the body
    /// cut at every offset, must give the bytes as sent.
    func testStringsKeepTheirBytesAtEveryOffsetAndEveryCut() {
        let stops: [[UInt8]] = [Array(#"\""#.utf8), Array(#"\\"#.utf8), Array(#"\n"#.utf8), Array(#"\u00e9"#.utf8),
                                Array("é".utf8), Array("€".utf8), Array("😀".utf8), Array("~".utf8)]
        for sanitize in [false, true] {
            for stop in stops {
                for lead in 0..<17 {
                    var value = [UInt8](repeating: UInt8(ascii: "a"), count: lead) + stop
                    value += Array("0123456789abcdefghijklmnopqrstuvwxyz".utf8.prefix(lead + 3)) + stop + stop
                    let input = Array(#"{"k":""#.utf8) + value + Array(#"","l":["#.utf8) + [0x22] + value + Array(#""]}"#.utf8)
                    let expected = Array("{\n    \"k\": \"".utf8) + value + Array("\",\n    \"l\": [\n        \"".utf8)
                        + value + Array("\"\n    ]\n}".utf8)
                    for chunk in [1, 2, 3, 5, 7, 8, 9, 13, 16, 1000] {
                        let (out, valid) = formatBytes(input, chunk: chunk, sanitize: sanitize)
                        XCTAssertEqual(out, expected, "stop \(stop) lead \(lead) chunk \(chunk) sanitize \(sanitize)")
                        XCTAssertTrue(valid)
                    }
                    // Every single cut point of the whole body.
                    for cut in 1..<input.count {
                        let f = JSONStreamFormatter(theme: nil, sanitize: sanitize)
                        var out: [UInt8] = []
                        input[..<cut].withUnsafeBytes { f.feed($0, into: &out) }
                        input[cut...].withUnsafeBytes { f.feed($0, into: &out) }
                        f.finish(into: &out)
                        if out != expected { XCTFail("stop \(stop) lead \(lead) cut \(cut) sanitize \(sanitize)"); return }
                    }
                }
            }
        }
    }

    /// A control byte, DEL or C1 control anywhere in a long string is still found by the
    /// word-at-a-time scan: controls end the JSON (and are never written raw to a terminal), DEL
    /// and C1 are escaped on a terminal and kept as sent elsewhere.
    func testStopBytesAreFoundAtEveryOffsetOfALongString() {
        for lead in 0..<24 {
            let plain = [UInt8](repeating: UInt8(ascii: "x"), count: lead)
            for chunk in [3, 8, 1000] {
                let control = Array(#"{"k":""#.utf8) + plain + [0x1B] + Array(#"[2J"}"#.utf8)
                let (out, valid) = formatBytes(control, chunk: chunk, sanitize: true)
                XCTAssertFalse(valid, "lead \(lead)")
                XCTAssertFalse(out.contains(0x1B), "lead \(lead) chunk \(chunk)")

                let del = Array(#"{"k":""#.utf8) + plain + [0x7F, 0xC2, 0x9B] + plain + Array(#""}"#.utf8)
                let (shown, shownValid) = formatBytes(del, chunk: chunk, sanitize: true)
                XCTAssertTrue(shownValid)
                XCTAssertEqual(String(decoding: shown, as: UTF8.self),
                               "{\n    \"k\": \"" + String(repeating: "x", count: lead) + "\\u007f\\u009b"
                               + String(repeating: "x", count: lead) + "\"\n}", "lead \(lead) chunk \(chunk)")
                let (raw, _) = formatBytes(del, chunk: chunk, sanitize: false)
                XCTAssertEqual(raw, Array("{\n    \"k\": \"".utf8) + plain + [0x7F, 0xC2, 0x9B] + plain + Array("\"\n}".utf8))
            }
        }
    }

    /// The token-at-a-time fast path and the general loop alone (fed one byte at a time, and in
    /// the same chunks) must agree byte for byte, validity and all, for valid documents and for every kind of damage: numbers and keywords of every
    /// shape, escapes good and bad, controls, empty and deep containers, JSON Lines, plus many
    /// seeded random mutations of a realistic document.
    func testFastPathAgreesWithByteAtATimeFormatting() {
        var cases: [[UInt8]] = []
        let numbers = ["0", "-0", "7", "-12", "1.5", "-0.25", "1e5", "1E+5", "2.5e-3", "-9.75E10", "12345678901234567890.123456789e-12",
                       "01", "1.", ".5", "-", "+1", "1e", "1e+", "1.5.5", "12abc", "0x1F", "--1", "1-2", "-a", "00"]
        let keywords = ["true", "false", "null", "tru", "truex", "nul", "falsey", "True", "nulll", "f", "n"]
        for v in numbers + keywords {
            cases.append(Array("[\(v)]".utf8))
            cases.append(Array("{\"k\": \(v), \"l\":[\(v),\(v)]}".utf8))
            cases.append(Array("[\(v) ,\t\(v)\n]".utf8))
        }
        let strings = [#""plain""#, #""a\"b\\c\/d\be\ff\ng\rh\ti""#, #""\u00e9\u20AC\uD83D\uDE00""#, #""\u12G4""#, #""\u12""#,
                       #""\x41""#, #""\"#, "\"a\u{1B}b\"", "\"tab\there\"", "\"é€😀\"", "\"\u{7F}\u{85}\"", #""0123456789abcdef\"""#, #""""#,
                       #""\uD800""#, #""\uDC00x""#, #""\uD83Dx\uDE00""#, #""\ud83d\ude00\u0041""#]
        for bytes: [UInt8] in [[0xFF], [0xC3, 0x41], [0xED, 0xA0, 0x80], [0xF0, 0x9F, 0x98], [0xC2, 0x9B], [0xE2, 0x82, 0xAC]] {
            cases.append(Array(#"{"k":"ab"#.utf8) + bytes + Array(#"cd","l":[""#.utf8) + bytes + Array(#""]}"#.utf8))
        }
        for v in strings {
            cases.append(Array("[\(v)]".utf8))
            cases.append(Array("{\(v): \(v), \(v):[\(v)]}".utf8))
        }
        for v in ["{}", "[]", "[{}]", "{\"a\":{}}", "[[],[[]]]", "{\"a\":[]}", "[}", "{]", "{\"a\"}", "{\"a\" 1}", "{\"a\"::1}",
                  "[1 2]", "[1,]", "{,}", "{\"a\":1,}", "[1]]", "{\"a\":1}}", "1 2", "{\"a\":1}\n[2]\n\"s\"", "[1]x", " \r\n\t[ 1 , 2 ]\r\n"] {
            cases.append(Array(v.utf8))
        }
        // Digit runs of every length up to three words, ended by bytes just outside 0-9, with
        // bit 7 set, or 0-9 with bit 7 set (the eight-at-a-time digit scan flags each).
        for length in 1...24 {
            let digits = Array(String(repeating: "7", count: length).utf8)
            for end: UInt8 in [0x2C, 0x2F, 0x3A, 0x40, 0x00, 0xB0, 0xB9, 0xFF, 0x65] {
                cases.append(Array("[1".utf8) + digits + [end] + Array(", -0.".utf8) + digits + [end] + Array("5]".utf8))
            }
        }
        cases.append(Array((String(repeating: "[", count: 70) + "1" + String(repeating: "]", count: 70)).utf8))
        cases.append(Array((String(repeating: "{\"k\":", count: 70) + "[]" + String(repeating: "}", count: 70)).utf8))
        // A realistic document and seeded mutations of it.
        var doc = "["
        for i in 0..<40 {
            doc += (i > 0 ? ", " : "") + "{\"id\": \(i), \"name\": \"n\\u00e9 \\\"\(i)\\\" é\", \"score\": -\(i).25e\(i % 3), "
                + "\"ok\": \(i % 2 == 0), \"p\": null, \"tags\": [\"a\", \"bb\", []], \"geo\": {\"lat\": 12.3456789012345678, \"h\": {}}}"
        }
        doc += "]\n"
        let base = Array(doc.utf8)
        cases.append(base)
        var seed: UInt64 = 0x5EED
        func next() -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: seed >> 33)
        }
        let alphabet = Array("{}[]\",:\\ -+.0123456789eEtrufalsn\t\n\u{1B}u".utf8) + [0x7F, 0xC3, 0xA9]
        for _ in 0..<300 {
            var m = base
            for _ in 0..<(1 + next() % 3) {
                let at = next() % m.count
                switch next() % 3 {
                case 0: m[at] = alphabet[next() % alphabet.count]
                case 1: m.remove(at: at)
                default: m.insert(alphabet[next() % alphabet.count], at: at)
                }
            }
            cases.append(m)
        }
        let theme = Theme()
        for input in cases {
            for sanitize in [false, true] {
                for colors in [nil, theme] {
                    let (slow, slowValid) = formatBytes(input, chunk: 1, sanitize: sanitize, theme: colors, fastPath: false)
                    for chunk in [input.count, 1, 7, 64] {
                        let (fast, fastValid) = formatBytes(input, chunk: chunk, sanitize: sanitize, theme: colors)
                        if fast != slow || fastValid != slowValid {
                            XCTFail("chunk \(chunk) sanitize \(sanitize) colors \(colors != nil): \(String(decoding: input, as: UTF8.self))\n"
                                    + String(decoding: fast, as: UTF8.self) + "\n---\n" + String(decoding: slow, as: UTF8.self))
                            return
                        }
                    }
                }
            }
        }
    }
}
