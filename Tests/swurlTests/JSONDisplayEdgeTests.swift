import XCTest
import Foundation
import SwurlTestSupport

/// Issue 27 §6: JSON display edge cases from a public conformance suite — a BOM alone, a
/// backslash before a byte that is not UTF-8, unclosed deep nesting.
final class JSONDisplayEdgeTests: XCTestCase {
    /// The bytes a terminal (util-linux `script`) received.
    private func onTerminal(_ arguments: [String]) throws -> (text: String, status: Int32) {
        let quoted = ([TestPaths.binary] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let r = try runProcess("/usr/bin/script", ["-qec", quoted.joined(separator: " "), "/dev/null"],
                               environment: ProcessInfo.processInfo.environment.merging(["TERM": "xterm", "NO_COLOR": "1"]) { $1 },
                               check: false)
        return (String(decoding: r.stdout, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n"), r.status)
    }

    /// A body of only a UTF-8 BOM, labelled JSON, is not JSON: --pretty=format notes it on
    /// stderr, a strict --decode json exits 8.
    func testABodyOfOnlyABOMIsNotJSON() throws {
        let s = try FixtureServer()
        try s.put("bom.json", Data([0xEF, 0xBB, 0xBF]))
        let url = s.url("bom.json", type: "application/json")
        let formatted = try runSwurl(["--pretty=format", url])
        XCTAssertEqual(formatted.status, 0, formatted.stderr)
        XCTAssertTrue(formatted.stderr.contains("note: the body is only a byte order mark (U+FEFF), not JSON"), formatted.stderr)
        let strict = try runSwurl(["--decode", "json", url])
        XCTAssertEqual(strict.status, 8, strict.stderr)
        // An empty body is no body: nothing to say.
        try s.put("empty.json", Data())
        let empty = try runSwurl(["--decode", "json", s.url("empty.json", type: "application/json")])
        XCTAssertEqual(empty.status, 0, empty.stderr)
    }

    /// `["\<E5>"]` on a terminal never reads as valid JSON of another value (`["\\xe5"]`).
    func testABackslashBeforeAnInvalidByteCannotReadAsAnEscape() throws {
        let s = try FixtureServer()
        try s.put("bs.json", Data(Array("[\"\\".utf8) + [0xE5] + Array("\"]".utf8)))
        let (shown, status) = try onTerminal(["-b", s.url("bs.json", type: "application/json")])
        XCTAssertEqual(status, 0, shown)
        XCTAssertTrue(shown.hasPrefix("[\"\\x5c\\xe5\"]\n"), shown)
        XCTAssertFalse(shown.contains("\\\\xe5"), shown)
        // An escaped backslash before the byte is valid JSON, formatted: the byte's `\xe5` after it
        // is no JSON escape (`"\\\xe5"`).
        try s.put("bs2.json", Data(Array("[\"\\\\".utf8) + [0xE5] + Array("\"]".utf8)))
        let (two, _) = try onTerminal(["-b", s.url("bs2.json", type: "application/json")])
        XCTAssertTrue(two.contains("\"\\\\\\xe5\""), two)
    }

    /// The same promise when the formatter streams (`-S`, or past the first megabyte held back):
    /// the backslash whose escape turns out invalid is shown as `\x5c` before a byte shown as
    /// `\xe5` or `\u009b`, and formatting goes on, which the note says (not "the rest is shown as
    /// sent").
    func testABackslashBeforeAnInvalidByteCannotReadAsAnEscapeWhenStreamed() throws {
        let s = try FixtureServer()
        try s.put("e5.json", Data(Array("{\"a\":\"\\".utf8) + [0xE5] + Array("\"}".utf8)))
        try s.put("csi.json", Data(Array("{\"a\":\"\\".utf8) + [0xC2, 0x9B] + Array("[31m\"}".utf8)))
        for (name, shownAs, never) in [("e5.json", "\"\\x5c\\xe5\"", "\\\\xe5"), ("csi.json", "\"\\x5c\\u009b[31m\"", "\\\\u009b")] {
            let (shown, status) = try onTerminal(["-S", "-b", s.url(name, type: "application/json")])
            XCTAssertEqual(status, 0, shown)
            XCTAssertTrue(shown.hasPrefix("{\n    \"a\": " + shownAs + "\n}\n"), shown)
            XCTAssertFalse(shown.contains(never), shown)
            XCTAssertTrue(shown.contains("[swurl: the body is not valid JSON; formatted all the same]"), shown)
        }
        // Past the first megabyte held back: formatted, then the same.
        var big = Array("[".utf8)
        while big.count < 1_100_000 { big += Array("\"0123456789abcdef\",".utf8) }
        big += Array("\"\\".utf8) + [0xE5] + Array("\",1]".utf8)
        try s.put("big.json", Data(big))
        let (shown, status) = try onTerminal(["-b", s.url("big.json", type: "application/json")])
        XCTAssertEqual(status, 0, String(shown.suffix(300)))
        XCTAssertTrue(shown.hasSuffix("    \"\\x5c\\xe5\",\n    1\n]\n[swurl: the body is not valid JSON; formatted all the same]\n"),
                      String(shown.suffix(300)))
        // A byte that cannot go on the JSON stops the formatting there: the rest is as sent.
        var cut = Array("[".utf8)
        while cut.count < 1_100_000 { cut += Array("\"0123456789abcdef\",".utf8) }
        cut += Array("x, 2]".utf8)
        try s.put("cut.json", Data(cut))
        let piped = try runSwurl(["--pretty=format", s.url("cut.json", type: "application/json")])
        XCTAssertTrue(piped.text.hasSuffix("\nx, 2]\n"), String(piped.text.suffix(100)))
        XCTAssertTrue(piped.stderr.contains("the body is not valid JSON; formatted up to there, the rest is shown as sent"), piped.stderr)
    }

    /// An unclosed, deeply nested document under 1 MB is invalid JSON like any other: on a
    /// terminal it is shown as sent (its size, not the ~26 MB its formatting would take), with
    /// the note, as README and docs/responses.md say. Closed, the same nesting is formatted.
    func testUnclosedDeepNestingUnderAMegabyteIsShownAsSent() throws {
        let s = try FixtureServer()
        let size = 200_000
        try s.put("deep.json", Data(repeating: UInt8(ascii: "["), count: size))
        let (shown, status) = try onTerminal(["-b", s.url("deep.json", type: "application/json")])
        XCTAssertEqual(status, 0, String(shown.suffix(300)))
        XCTAssertTrue(shown.hasPrefix(String(repeating: "[", count: size)), String(shown.prefix(100)))
        XCTAssertLessThan(shown.utf8.count, size + 200, "output must stay the size of the input")
        XCTAssertTrue(shown.contains("[swurl: the body is not valid JSON; shown as sent]"), String(shown.suffix(300)))
        // To a pipe with --pretty=format: the same bytes and the note on stderr.
        let piped = try runSwurl(["--pretty=format", s.url("deep.json", type: "application/json")])
        XCTAssertEqual(piped.stdout.count, size + 1, piped.stderr)
        XCTAssertTrue(piped.stderr.contains("the body is not valid JSON; shown as sent"), piped.stderr)
        // Closed, it is JSON: formatted (one bracket a line), no note.
        let depth = 20_000
        try s.put("closed.json", Data((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8))
        let closed = try runSwurl(["--pretty=format", "--decode", "json", s.url("closed.json", type: "application/json")])
        XCTAssertEqual(closed.status, 0, closed.stderr)
        XCTAssertTrue(closed.text.hasPrefix("[\n    [\n        [\n"), String(closed.text.prefix(60)))
        XCTAssertEqual(closed.text.split(separator: "\n").count, 2 * depth - 1, "the innermost [] is one line")
        XCTAssertFalse(closed.stderr.contains("not valid JSON"), closed.stderr)
        let docs = try String(contentsOfFile: TestPaths.packageRoot + "/docs/responses.md", encoding: .utf8)
        XCTAssertFalse(docs.contains("what was formatted stays and a note says the rest is shown as sent"))
    }
}
