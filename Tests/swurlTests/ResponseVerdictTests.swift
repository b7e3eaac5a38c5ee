import XCTest
import Foundation
import SwurlTestSupport

/// One verdict for every command: the same response under the same rule gives the same exit
/// status from a one-shot request, `-o`, `--download`, a batch line and a REPL line, and a
/// rejected download leaves no file (not even its `.part`).
final class ResponseVerdictTests: XCTestCase {
    /// (path on httpbin, rule options, expected exit status)
    static let cases: [(String, [String], Int32)] = [
        ("/json", ["--accept-type", "application/xml"], 8),
        ("/json", ["--accept-type", "application/json"], 0),
        ("/json", ["--accept-status", "201"], 8),
        ("/json", ["--accept-status", "200"], 0),
        ("/html", ["--decode", "json"], 8),
        ("/json", ["--decode", "json"], 0),
        ("/xml", ["--decode", "xml"], 0),
        ("/json", ["--decode", "xml"], 8),
        ("/status/404", ["--check-status"], 4),
        ("/status/500", ["--check-status"], 5),
        ("/status/404", ["--accept-status", "404"], 0),
        ("/status/200", ["--check-status"], 0),
    ]

    private func listing(_ dir: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
    }

    func testEveryCommandGivesTheOneShotVerdictForEveryRule() throws {
        for (path, rule, expected) in ResponseVerdictTests.cases {
            let url = try HTTPBin.url(path)
            let what = "\(path) \(rule.joined(separator: " "))"

            let oneShot = try runSwurl([url] + rule)
            XCTAssertEqual(oneShot.status, expected, "one-shot \(what): \(oneShot.stderr)")

            let dir = TestPaths.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let out = try runSwurl([url, "-o", "out"] + rule, directory: dir)
            XCTAssertEqual(out.status, expected, "-o \(what): \(out.stderr)")
            // A rejected type or body is not kept; a rejected status's body is (it explains the error).
            let bodyRejected = expected == 8 && (rule[0] == "--accept-type" || rule[0] == "--decode")
            XCTAssertEqual(listing(dir), bodyRejected ? [] : ["out"], "-o \(what)")

            // A download too: an error status --accept-status lists is saved (it failed with 4).
            let downloadExpected = expected
            let down = try runSwurl(["-d", url, "-o", "down"] + rule, directory: dir)
            XCTAssertEqual(down.status, downloadExpected, "-d \(what): \(down.stderr)")
            if downloadExpected == 0 {
                XCTAssertTrue(listing(dir).contains("down"), "-d \(what): \(listing(dir))")
            } else {
                XCTAssertFalse(listing(dir).contains { $0.hasPrefix("down") }, "-d \(what) left a file: \(listing(dir))")
                XCTAssertTrue(down.stderr.contains("nothing was saved"), "-d \(what): \(down.stderr)")
            }

            let lines = ([url] + rule).map { "'\($0)'" }.joined(separator: " ") + "\n"
            let batch = try runSwurl(["batch", "-", "--jsonl"], stdin: Data(lines.utf8))
            XCTAssertEqual(batch.status, expected, "batch \(what): \(batch.text) \(batch.stderr)")
            XCTAssertTrue(batch.text.contains("\"exit\":\(expected)"), "batch \(what): \(batch.text)")

            let repl = try runSwurl(["repl", "--stop-on-error", try HTTPBin.url("")], stdin: Data((([path] + rule).joined(separator: " ") + "\n").utf8))
            XCTAssertEqual(repl.status, expected, "repl \(what): \(repl.stderr)")
        }
    }
}
