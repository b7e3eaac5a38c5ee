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

    /// An unclosed, deeply nested document is handled as docs/responses.md says: formatted as it
    /// arrives once its held bytes would format past 4 MB, then the note that the rest is shown
    /// as sent; a shallow one under 1 MB is shown as sent.
    func testUnclosedDeepNestingBehavesAsDocumented() throws {
        let s = try FixtureServer()
        try s.put("deep.json", Data(repeating: UInt8(ascii: "["), count: 100_000))
        let deep = try runSwurl(["--pretty=format", s.url("deep.json", type: "application/json")])
        XCTAssertEqual(deep.status, 0, deep.stderr)
        XCTAssertTrue(deep.stderr.contains("the rest is shown as sent"), deep.stderr)
        try s.put("short.json", Data("{\"a\": [1, 2".utf8))
        let short = try runSwurl(["--pretty=format", s.url("short.json", type: "application/json")])
        XCTAssertTrue(short.text.hasPrefix("{\"a\": [1, 2"), short.text)
        XCTAssertTrue(short.stderr.contains("the body is not valid JSON; shown as sent"), short.stderr)
        let responses = try String(contentsOfFile: TestPaths.packageRoot + "/docs/responses.md", encoding: .utf8)
        XCTAssertTrue(responses.contains("what was formatted stays and a note says the rest is shown as sent"))
    }
}
