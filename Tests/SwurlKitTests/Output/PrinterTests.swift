import XCTest
import SwurlTestSupport
@testable import SwurlOutput
@testable import SwurlEngine
@testable import SwurlResponseSerialization
@testable import SwurlCore

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
        // A binary file as the whole body: the note ends its line (a prompt comes after it).
        let whole = TestEnvironment(stdoutIsTerminal: true, variables: ["NO_COLOR": "1"], directory: dir)
        XCTAssertEqual(whole.run(["--offline", "POST", "example.org", "@r.bin"]), 0)
        XCTAssertTrue(whole.stdout.text.hasSuffix("[swurl: binary data not shown: 505 bytes from 'r.bin']\n"), whole.stdout.text)
    }

    /// Text sent from stdin past what is read ahead is streamed, its bytes not looked at: the
    /// note says so, not "binary" (text was called binary data).
    func testStreamedStdinPastTheReadAheadIsNotCalledBinary() throws {
        let text = String(repeating: "plain text line\n", count: 90_000)
        let t = TestEnvironment(stdin: text, stdoutIsTerminal: true, variables: ["NO_COLOR": "1"], stdinIsFile: true)
        XCTAssertEqual(t.run(["--offline", "PUT", "example.org", "Content-Type:text/plain"]), 0)
        let out = t.stdout.text
        XCTAssertTrue(out.contains("[swurl: streamed data not shown: "), String(out.suffix(300)))
        XCTAssertFalse(out.contains("binary data not shown"), String(out.suffix(300)))
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

    /// Regression: piped `-v` ran the request body into the status line (`{"a":"1"}HTTP/1.1 200 OK`).
    func testPipedRequestBodyIsSetApartFromTheResponse() throws {
        func run(_ letters: String, response: Bool) throws -> [UInt8] {
            let sink = MemorySink()
            let p = Printer(sink: sink, selection: try PrintSelection(letters: letters),
                            style: .init(format: false, colors: false, terminal: false))
            try p.transferDidSendRequestHead(Array("POST / HTTP/1.1\r\nContent-Type: application/json\r\n\r\n".utf8))
            try Array("{\"a\":\"1\"}".utf8).withUnsafeBytes { try p.transferDidSendRequestBody($0) }
            if response {
                try p.transferDidReceiveHead(HTTPResponseHead(version: "HTTP/1.1", status: 200, reason: "OK",
                                                              headers: HTTPHeaders([.init(name: "Content-Type", value: "text/plain")])))
                try Array("ok".utf8).withUnsafeBytes { try p.transferDidReceiveBody($0) }
            }
            try p.finish()
            return sink.bytes
        }
        let head = "POST / HTTP/1.1\r\nContent-Type: application/json\r\n\r\n{\"a\":\"1\"}"
        XCTAssertEqual(String(decoding: try run("HBhb", response: true), as: UTF8.self),
                       head + "\n\nHTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nok")
        XCTAssertEqual(String(decoding: try run("Bb", response: true), as: UTF8.self), "{\"a\":\"1\"}\n\nok")
        // No response part: byte-exact.
        XCTAssertEqual(String(decoding: try run("HBhb", response: false), as: UTF8.self), head)
        XCTAssertEqual(String(decoding: try run("HB", response: true), as: UTF8.self), head)
        XCTAssertEqual(String(decoding: try run("b", response: true), as: UTF8.self), "ok")
    }

    /// The first megabyte of JSON is held back to check it, but its formatted output (two to
    /// three times as large) reaches the sink in blocks, not as one piece when the window closes.
    func testTheJSONWindowIsWrittenInBlocksNotWhole() throws {
        final class LargestWrite: ByteSink {
            var bytes: [UInt8] = []
            var largest = 0
            func write(_ chunk: UnsafeRawBufferPointer) throws {
                bytes.append(contentsOf: chunk)
                largest = max(largest, chunk.count)
            }
        }
        var body = Array("[".utf8)
        var k = 0
        while body.count < 3 << 20 {
            body += Array("{\"id\": \(k), \"name\": \"item \(k)\", \"tags\": [\"a\", \"b\"], \"ok\": true},".utf8)
            k += 1
        }
        body[body.count - 1] = UInt8(ascii: "]")
        let sink = LargestWrite()
        let p = Printer(sink: sink, selection: try PrintSelection(letters: "b"), style: .init(format: true, colors: false, terminal: false))
        try p.transferDidReceiveHead(HTTPResponseHead(version: "HTTP/1.1", status: 200, reason: "OK",
                                                      headers: HTTPHeaders([.init(name: "Content-Type", value: "application/json")])))
        // Network-sized chunks, the window closing inside one.
        var at = 0
        while at < body.count {
            let end = min(body.count, at + 100_000)
            try body[at..<end].withUnsafeBytes { try p.transferDidReceiveBody($0) }
            at = end
        }
        try p.finish()
        let whole = runDecoder(body, choice: .json, mediaType: "application/json", terminal: false, chunk: body.count)
        XCTAssertEqual(whole.outcome, .decoded)
        // The printer ends formatted output with a newline.
        XCTAssertTrue(sink.bytes == whole.bytes + [0x0A], "output differs: \(sink.bytes.count) vs \(whole.bytes.count) + 1")
        XCTAssertGreaterThan(sink.bytes.count, 2 * HoldBackWindow.size)
        XCTAssertLessThan(sink.largest, HoldBackWindow.size / 2, "a block of \(sink.largest) bytes")
    }
}
