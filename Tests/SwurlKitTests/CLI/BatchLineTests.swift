import XCTest
import Foundation
import SwurlTestSupport
@testable import SwurlCLI
@testable import SwurlEngine
import SwurlCore

/// How a batch line is split into words, read from a stream, and how results are written.
final class BatchLineTests: XCTestCase {
    func testWordsFollowSimpleShellQuoting() throws {
        XCTAssertEqual(try ShellWords.words("GET  http://x/a\tname=Ann"), ["GET", "http://x/a", "name=Ann"])
        XCTAssertEqual(try ShellWords.words(#"POST http://x 'msg=two words' "q=say \"hi\"" a\ b ''"#),
                       ["POST", "http://x", "msg=two words", #"q=say "hi""#, "a b", ""])
        XCTAssertThrowsError(try ShellWords.words("POST 'open")) { error in
            XCTAssertEqual(ExitStatus(for: error as? SwurlError ?? .output("")), .usage)
        }
    }

    /// A reader of `text` from a file (removed at once: the reader holds it open).
    private func reader(of text: String) throws -> LineReader {
        let path = NSTemporaryDirectory() + "/swurl-batch-lines-\(getpid()).txt"
        defer { unlink(path) }
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let fd = open(path, O_RDONLY)
        XCTAssertGreaterThanOrEqual(fd, 0)
        return LineReader(owning: fd, name: path)
    }

    func testLineReaderStreamsLinesAcrossReadsAndCapsLongLines() throws {
        let long = String(repeating: "x", count: LineReader.maxLine + 10)
        let reader = try reader(of: "a\r\nb\n\(long)\nlast")
        XCTAssertEqual(reader.next()?.text, "a")
        XCTAssertEqual(reader.next()?.text, "b")
        let cut = reader.next()
        XCTAssertEqual(cut?.tooLong, true)
        XCTAssertEqual(reader.lineNumber, 3)
        XCTAssertEqual(reader.next()?.text, "last")
        XCTAssertNil(reader.next())
        XCTAssertNil(reader.error)
    }

    /// A line of exactly the longest length passes with either ending (its CR was counted).
    func testTheLongestLineEndsInCRLFOrLF() throws {
        let longest = String(repeating: "x", count: LineReader.maxLine)
        let reader = try reader(of: "\(longest)\r\n\(longest)\n\(longest)x\r\n")
        for _ in 0..<2 {
            let line = reader.next()
            XCTAssertEqual(line?.tooLong, false)
            XCTAssertEqual(line?.text.utf8.count, LineReader.maxLine)
        }
        XCTAssertEqual(reader.next()?.tooLong, true)
    }

    func testLineReaderWithoutWaitingReturnsWholeLinesOnlyAndKeepsPartialOnes() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[1]) }
        let reader = LineReader(owning: fds[0], name: "pipe")
        reader.waits = false
        XCTAssertNil(reader.next(), "nothing written yet")
        XCTAssertFalse(reader.ended)
        XCTAssertEqual(write(fds[1], "one\ntw", 6), 6)
        XCTAssertEqual(reader.next()?.text, "one")
        XCTAssertNil(reader.next(), "half a line is held back")
        XCTAssertFalse(reader.ended)
        XCTAssertEqual(write(fds[1], "o\r\nthree", 8), 8)
        XCTAssertEqual(reader.next()?.text, "two")
        XCTAssertEqual(reader.lineNumber, 2)
        XCTAssertNil(reader.next())
        close(fds[1]); fds[1] = -1
        XCTAssertEqual(reader.next()?.text, "three", "the last line needs no newline")
        XCTAssertNil(reader.next())
        XCTAssertTrue(reader.ended)
    }

    func testNameTemplateExpandsAndSanitizes() throws {
        let t = try BatchNameTemplate("{line}-{method}-{host}-{port}{path}.{status}")
        XCTAssertEqual(t.name(line: 3, method: "GET", url: "https://Example.org/a/b%2Fc.json?q=1", status: 200),
                       "3-GET-example.org-443_a_b_c.json.200")
        XCTAssertEqual(t.name(line: 1, method: "POST", url: "http://h:8080/", status: 201), "1-POST-h-8080_.201")
        let bidi = try BatchNameTemplate("{path}")
        XCTAssertEqual(bidi.name(line: 1, method: "GET", url: "http://h/%E2%80%AEgpj.exe", status: 200), "_gpj.exe")
        let dots = try BatchNameTemplate("..{path}")
        XCTAssertEqual(dots.name(line: 1, method: "GET", url: "http://h/..%2F..%2Fetc", status: 200), "_.._.._etc")
        XCTAssertEqual(try BatchNameTemplate(" .{status}").name(line: 1, method: "GET", url: "http://h/", status: 204), "204")
        // A `/` followed by a combining mark is one Character but still a separator byte.
        let combining = try BatchNameTemplate("{path}").name(line: 1, method: "GET", url: "http://h/sub%2F%CC%81x", status: 200)
        XCTAssertFalse(combining?.unicodeScalars.contains("/") ?? true, combining ?? "nil")
        // The same for curl's --cert FILE:PASSWORD syntax.
        XCTAssertEqual(CurlCommandExport.certificateName("a:\u{301}b\\c.pem"), "a\\:\u{301}b\\\\c.pem")
        for bad in ["{line", "{Line}", "{}", "a/{line}", "a\\{line}", "plain"] {
            XCTAssertThrowsError(try BatchNameTemplate(bad), bad) { error in
                XCTAssertEqual(ExitStatus(for: error as? SwurlError ?? .output("")), .usage)
            }
        }
        var taken: Set<String> = ["a.json", "a-7.json", "noext"]
        XCTAssertEqual(BatchNameTemplate.unclaimed("b.json", line: 7) { taken.contains($0) }, "b.json")
        XCTAssertEqual(BatchNameTemplate.unclaimed("a.json", line: 7) { taken.contains($0) }, "a-7-2.json")
        XCTAssertEqual(BatchNameTemplate.unclaimed("noext", line: 9) { taken.contains($0) }, "noext-9")
        taken.insert("x")
        XCTAssertEqual(BatchNameTemplate.unclaimed("x", line: 1) { taken.contains($0) }, "x-1")
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

    func testSuccessfulResultLinesWrittenAsBytes() {
        // The byte path (digits, the fraction padded to six places, ASCII copied as it is).
        var r = BatchResult(line: 1042, method: "GET", url: "http://127.0.0.1:8080/a?b=1", status: 200, httpVersion: "1.1",
                            timeTotal: 12.0000004, timeFirstByte: nil, size: 0)
        XCTAssertEqual(r.text, "1042 200 12.000000 0 GET http://127.0.0.1:8080/a?b=1")
        r.timeTotal = 0.1234565
        r.size = 9_223_372_036_854_775_807
        XCTAssertEqual(r.text, "1042 200 0.123457 9223372036854775807 GET http://127.0.0.1:8080/a?b=1")
        r.timeTotal = 0.000001
        r.status = 0
        r.line = 0
        XCTAssertEqual(r.text, "0 0 0.000001 9223372036854775807 GET http://127.0.0.1:8080/a?b=1")
        // Not printable ASCII: sanitized as before.
        r.url = "http://x/caf\u{E9}\n"
        r.timeTotal = -1
        XCTAssertEqual(r.text, "0 0 0.000000 9223372036854775807 GET http://x/caf\u{E9}\\n")
        var bytes = ByteBuffer()
        bytes.append("x")
        r.appendText(to: &bytes)
        XCTAssertEqual(String(decoding: bytes.array, as: UTF8.self), "x" + r.text)
    }

    /// A line without options takes the parsed defaults; every outcome must match the full
    /// path (`CommandOptions` of the line's options over the defaults).
    func testLinesWithoutOptionsGetWhatTheFullPathGives() throws {
        let dir = TestPaths.temporaryDirectory()
        FileManager.default.createFile(atPath: dir + "/f.txt", contents: Data("x".utf8))
        let environment = TestEnvironment(directory: dir).environment
        func full(_ defaults: [String], _ line: String) throws -> CommandOptions {
            var args = try ArgumentParser.parse(try ShellWords.words(line))
            for (option, values) in try ArgumentParser.parse(defaults).options where args.options[option] == nil {
                args.options[option] = values
            }
            return try CommandOptions(args, environment: environment)
        }
        func fast(_ defaults: [String], _ line: String) throws -> CommandOptions {
            try BatchDefaults(try ArgumentParser.parse(defaults), environment: environment)
                .options(for: try ArgumentParser.parse(try ShellWords.words(line)))
        }
        func message(_ body: () throws -> CommandOptions) -> String? {
            do { _ = try body(); return nil } catch { return (error as? SwurlError)?.message ?? "\(error)" }
        }
        let cases: [([String], String)] = [
            ([], "http://x/a"),
            (["--timeout", "5", "-F"], "POST x a=1 X-H:v"),
            (["--form"], "x a=1"),
            (["--form"], "x a=1 f@f.txt"),
            (["--form", "--boundary", "b0"], "x f@f.txt"),
            (["--form", "--boundary", "b0"], "x a=1"),
            (["--multipart", "--boundary", "b0"], "x a=1"),
            (["--raw", "text"], "PUT x"),
            (["--raw", "text"], "x a=1"),
            (["--timeout", "abc"], "x"),
            (["--timeout", "abc"], "x a@/nonexistent/file"),
            (["--timeout", "5"], "x --timeout 2"),
            (["--check-status", "--accept-type", "text/*"], "x --accept-status 2xx,404"),
            ([], "GET"),
            ([], "x http://y"),
        ]
        for (defaults, line) in cases {
            let expected = message { try full(defaults, line) }
            XCTAssertEqual(message { try fast(defaults, line) }, expected, "\(defaults) \(line)")
            guard expected == nil else { continue }
            let a = try full(defaults, line), b = try fast(defaults, line)
            XCTAssertEqual(a.method, b.method, line)
            XCTAssertEqual(a.url, b.url, line)
            XCTAssertEqual(a.items.map(\.raw), b.items.map(\.raw), line)
            XCTAssertEqual(a.bodyFormat, b.bodyFormat, line)
            XCTAssertEqual(a.boundary, b.boundary, line)
            XCTAssertEqual(a.rawBody, b.rawBody, line)
            XCTAssertEqual(a.transfer.timeout, b.transfer.timeout, line)
            XCTAssertEqual(a.transfer.followRedirects, b.transfer.followRedirects, line)
            XCTAssertEqual(a.validator.checkStatus, b.validator.checkStatus, line)
            XCTAssertEqual(a.validator.acceptableTypes, b.validator.acceptableTypes, line)
            XCTAssertEqual(a.validator.acceptableStatus.map { "\($0)" }, b.validator.acceptableStatus.map { "\($0)" }, line)
        }
        // A line may not carry what a batch line refuses, whatever the defaults.
        XCTAssertEqual(message { try fast([], "x --offline") }, "--offline cannot be used on a batch line")
    }

    /// Batch lines keep libcurl's own receive buffer (0), rate-limited or not, so that a finished
    /// line's easy handle can serve the next (libcurl refuses CURLOPT_BUFFERSIZE on a handle that
    /// still holds an HTTP/2 stream's buffer); the one-shot default (nil: 512 KiB) is not used.
    func testBatchLinesKeepLibcurlsReceiveBuffer() {
        var t = TransferOptions()
        BatchDefaults.sizeReceiveBuffer(&t)
        XCTAssertEqual(t.receiveBufferSize, 0)
        var limited = TransferOptions()
        limited.maxReceiveRate = 1000
        BatchDefaults.sizeReceiveBuffer(&limited)
        XCTAssertEqual(limited.receiveBufferSize, 0)
    }
}
