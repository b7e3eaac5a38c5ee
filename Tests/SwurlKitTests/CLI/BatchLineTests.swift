import XCTest
import Foundation
@testable import SwurlCLI
import SwurlCore

/// How a batch line is split into words, read from a stream, and how results are written.
final class BatchLineTests: XCTestCase {
    func testWordsFollowSimpleShellQuoting() throws {
        XCTAssertEqual(try BatchCommand.words("GET  http://x/a\tname=Ann"), ["GET", "http://x/a", "name=Ann"])
        XCTAssertEqual(try BatchCommand.words(#"POST http://x 'msg=two words' "q=say \"hi\"" a\ b ''"#),
                       ["POST", "http://x", "msg=two words", #"q=say "hi""#, "a b", ""])
        XCTAssertThrowsError(try BatchCommand.words("POST 'open")) { error in
            XCTAssertEqual(ExitStatus(for: error as? SwurlError ?? .output("")), .usage)
        }
    }

    func testLineReaderStreamsLinesAcrossReadsAndCapsLongLines() throws {
        let long = String(repeating: "x", count: LineReader.maxLine + 10)
        let path = NSTemporaryDirectory() + "/swurl-batch-lines-\(getpid()).txt"
        defer { unlink(path) }
        try Data("a\r\nb\n\(long)\nlast".utf8).write(to: URL(fileURLWithPath: path))
        let fd = open(path, O_RDONLY)
        XCTAssertGreaterThanOrEqual(fd, 0)
        let reader = LineReader(owning: fd, name: path)
        XCTAssertEqual(reader.next()?.text, "a")
        XCTAssertEqual(reader.next()?.text, "b")
        let cut = reader.next()
        XCTAssertEqual(cut?.tooLong, true)
        XCTAssertEqual(reader.lineNumber, 3)
        XCTAssertEqual(reader.next()?.text, "last")
        XCTAssertNil(reader.next())
        XCTAssertNil(reader.error)
    }

    func testResultLinesAndJSON() throws {
        var r = BatchResult(line: 7, method: "GET", url: "http://x/\u{1B}[31m", status: 404, httpVersion: "1.1",
                            timeTotal: 0.0125, timeFirstByte: 0.01, size: 12, error: "HTTP 404 Not Found", exit: .clientError)
        XCTAssertEqual(r.text, "7 404 0.012500 12 GET http://x/\\x1b[31m (exit 4: HTTP 404 Not Found)")
        let json = try JSONSerialization.jsonObject(with: Data(r.json.utf8)) as? [String: Any]
        XCTAssertEqual(json?["exit"] as? Int, 4)
        XCTAssertEqual(json?["url"] as? String, "http://x/\u{1B}[31m")
        r = BatchResult(line: 3, error: "unknown option '--x'", exit: .usage)
        XCTAssertEqual(r.text, "3 error 64 - -: unknown option '--x'")
    }
}
