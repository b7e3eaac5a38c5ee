import XCTest
import Foundation
import SwurlTestSupport
@testable import SwurlCLI
@testable import SwurlOutput
import SwurlCore

/// A report's body behind a head with a gap: streamed into the report's own file where that file
/// can be written over, through a spool where it cannot; either way the same bytes.
final class ReportBodyTests: XCTestCase {
    /// `<a`, room for 12 bytes, `>` and a newline.
    private func makeBody(_ file: OutputFile, option: String = "--junit", tmp: String) throws -> ReportBody {
        try ReportBody(file: file, before: Array("<a".utf8), room: 12, after: Array(">\n".utf8), option: option,
                       environment: environment(tmp: tmp))
    }

    /// The environment with TMPDIR at `tmp`.
    private func environment(tmp: String) -> Environment {
        TestEnvironment(variables: ["TMPDIR": tmp]).environment
    }

    func testARegularFileGetsTheBodyAsItComesAndTheGapFilledAtTheEnd() throws {
        let dir = TestPaths.temporaryDirectory()
        let path = dir + "/r.xml"
        let file = try OutputFile(path: path, option: "--junit")
        let body = try makeBody(file, tmp: dir + "/no-such-dir")
        XCTAssertFalse(body.spooled, "a file that can be rewritten takes the body as it comes")
        // The head is in the temporary file at once, the gap as spaces; blocks follow as they fill.
        let temporary = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: dir).first { $0.hasPrefix(".r.xml.") })
        XCTAssertEqual(try String(contentsOfFile: dir + "/" + temporary, encoding: .utf8), "<a            >\n")
        let row = Array(repeating: UInt8(ascii: "r"), count: 1000) + [10]
        for _ in 0..<100 {
            body.pending.append(contentsOf: row)
            body.flushIfFull()
        }
        let written = try FileManager.default.attributesOfItem(atPath: dir + "/" + temporary)[.size] as? Int ?? 0
        XCTAssertGreaterThanOrEqual(written, 16 + 65536, "a full block is written before the end")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))

        try body.finish(fill: Array(" b=\"1\"".utf8), tail: Array("</a>\n".utf8))
        try file.commit()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertEqual(text, "<a b=\"1\"      >\n" + String(repeating: String(repeating: "r", count: 1000) + "\n", count: 100) + "</a>\n")
    }

    /// A target written in place (here a regular file reached through /dev/fd, which is appended
    /// to) cannot have its head written over: the body goes through a spool and the head is
    /// written whole at the end.
    func testATargetWrittenInPlaceGetsTheSameBytesThroughASpool() throws {
        let dir = TestPaths.temporaryDirectory()
        let path = dir + "/out.xml"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data("before\n".utf8)))
        let fd = open(path, O_WRONLY | O_APPEND)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        let file = try OutputFile(path: "/dev/fd/\(fd)", option: "--junit")
        XCTAssertFalse(file.canRewrite)
        let body = try makeBody(file, tmp: dir)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "before\n", "nothing written before the end")
        body.pending.append(contentsOf: Array("row\n".utf8))
        try body.finish(fill: Array(" b=\"22\"".utf8), tail: Array("</a>\n".utf8))
        try file.commit()
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "before\n<a b=\"22\"     >\nrow\n</a>\n")
    }

    /// A TMPDIR that is not there falls back to /tmp for the spool (as mktemp(1) does; it
    /// failed the report). Where no spool can be made at all, the failure names the option and
    /// TMPDIR's directory: `BatchReportTests.testReportsNeedASpoolOnlyWhenWrittenInPlace`.
    func testASpoolFallsBackToTmpWhenTMPDIRIsNotThere() throws {
        let dir = TestPaths.temporaryDirectory()
        let path = dir + "/out.xml"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: nil))
        let fd = open(path, O_WRONLY | O_APPEND)
        defer { close(fd) }
        let file = try OutputFile(path: "/dev/fd/\(fd)", option: "--report")
        XCTAssertTrue(try makeBody(file, option: "--report", tmp: dir + "/missing").spooled)
    }

    /// An end longer than the gap is an error, not a crash or a head that runs into the body.
    func testAnEndLongerThanTheGapIsAnError() throws {
        let dir = TestPaths.temporaryDirectory()
        let file = try OutputFile(path: dir + "/r.html", option: "--report")
        let body = try makeBody(file, option: "--report", tmp: dir)
        XCTAssertThrowsError(try body.finish(fill: Array(repeating: UInt8(ascii: "y"), count: 13), tail: [])) { error in
            XCTAssertTrue("\(error)".contains("--report"), "\(error)")
        }
        file.discard()
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), [])
    }
}
