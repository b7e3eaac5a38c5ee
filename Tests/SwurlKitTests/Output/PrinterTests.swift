import XCTest
import SwurlTestSupport
@testable import SwurlKit

final class PrinterTests: XCTestCase {
    func testOfflineMultipartOnATerminalReplacesBinaryFilesWithANote() throws {
        let dir = TestPaths.temporaryDirectory()
        FileManager.default.createFile(atPath: dir + "/r.bin", contents: Data([0, 1, 2, 0x1B, 0xFF] + Array(repeating: 7, count: 500)))
        FileManager.default.createFile(atPath: dir + "/t.txt", contents: Data("plain text\n".utf8))
        let t = TestEnvironment(stdoutIsTerminal: true, variables: ["NO_COLOR": "1"], directory: dir)
        XCTAssertEqual(t.run(["--offline", "--multipart", "--boundary", "B", "POST", "example.org", "a=1", "f@r.bin", "t@t.txt"]), 0)
        let text = t.stdout.text
        XCTAssertTrue(text.contains("[swurl: binary data not shown: 505 bytes from 'r.bin']"), text)
        XCTAssertTrue(text.contains("plain text\n"), text)
        XCTAssertTrue(text.contains("\r\n--B--\r\n"), text)
        XCTAssertFalse(t.stdout.bytes.contains(0x1B))
        XCTAssertFalse(t.stdout.bytes.contains(0))
    }

    func testOfflinePipedMultipartIsRaw() throws {
        let dir = TestPaths.temporaryDirectory()
        let bytes: [UInt8] = [0, 1, 2, 0x1B, 0xFF]
        FileManager.default.createFile(atPath: dir + "/r.bin", contents: Data(bytes))
        let t = TestEnvironment(stdoutIsTerminal: false, directory: dir)
        XCTAssertEqual(t.run(["--offline", "-p", "B", "--multipart", "--boundary", "B", "POST", "example.org", "f@r.bin"]), 0)
        let expected = Array("--B\r\nContent-Disposition: form-data; name=\"f\"; filename=\"r.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n".utf8)
            + bytes + Array("\r\n--B--\r\n".utf8)
        XCTAssertEqual(t.stdout.bytes, expected)
    }

    func testTerminalJSONRequestBodyIsFormatted() {
        let t = TestEnvironment(stdoutIsTerminal: true, variables: ["NO_COLOR": "1"])
        XCTAssertEqual(t.run(["--offline", "POST", "example.org", "a=1"]), 0)
        XCTAssertTrue(t.stdout.text.hasSuffix("\n\n{\n    \"a\": \"1\"\n}\n\n"), t.stdout.text)
    }
}
