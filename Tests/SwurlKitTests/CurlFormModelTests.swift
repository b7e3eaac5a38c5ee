import Foundation
import XCTest
import SwurlTestSupport

/// The `-F` model (CurlFormModel) against the real curl: each argument of a table is sent by
/// /usr/bin/curl to a capture server, and the part that arrives must be the one the model reads
/// (name, filename, type, headers, content), or curl must refuse what the model refuses.
final class CurlFormModelTests: XCTestCase {
    /// One multipart part as received: its header lines, in order, and its content.
    struct ReceivedPart: Equatable {
        var headers: [[UInt8]]
        var body: [UInt8]
    }

    static func split(_ bytes: [UInt8], by separator: [UInt8]) -> [[UInt8]] {
        var pieces: [[UInt8]] = []
        var start = 0, i = 0
        while i + separator.count <= bytes.count {
            if Array(bytes[i..<(i + separator.count)]) == separator {
                pieces.append(Array(bytes[start..<i])); i += separator.count; start = i
            } else { i += 1 }
        }
        pieces.append(Array(bytes[start...]))
        return pieces
    }

    /// The parts of a multipart body whose boundary is `boundary`.
    static func parts(_ body: [UInt8], boundary: [UInt8]) -> [ReceivedPart] {
        split(body, by: Array("--".utf8) + boundary).dropFirst().compactMap { chunk in
            guard !chunk.starts(with: Array("--".utf8)) else { return nil }
            // Each chunk: CRLF, headers, CRLF CRLF, content, CRLF.
            let inner = Array(chunk.dropFirst(2).dropLast(2))
            let halves = split(inner, by: [13, 10, 13, 10])
            let head = halves.first ?? []
            return ReceivedPart(headers: head.isEmpty ? [] : split(head, by: [13, 10]),
                                body: Array(halves.dropFirst().joined(separator: [13, 10, 13, 10])))
        }
    }

    /// The parts of the request `curl ARGS` sent.
    /// One capture server per test, for all its requests (it records the last one, and curl
    /// ends only after the answer, which comes after the recording).
    private var captureServer: CaptureServer?

    private func sendWithCurl(_ args: [String], in dir: String) throws -> (status: Int32, parts: [ReceivedPart], stderr: String) {
        let capture = try captureServer ?? CaptureServer()
        captureServer = capture
        let ran = try runProcess("/usr/bin/curl", ["-sS", "-H", "Expect:"] + args + [capture.base + "/m"], directory: dir, check: false)
        guard ran.status == 0 else { return (ran.status, [], ran.stderr) }
        let bytes = [UInt8](capture.captured)
        let halves = Self.split(bytes, by: [13, 10, 13, 10])
        let head = String(decoding: halves.first ?? [], as: UTF8.self)
        guard let range = head.range(of: "boundary=") else { throw TestServerError("not multipart: \(head)") }
        let boundary = Array(head[range.upperBound...].prefix { $0 != "\r" }.utf8)
        return (0, Self.parts(Array(halves.dropFirst().joined(separator: [13, 10, 13, 10])), boundary: boundary), ran.stderr)
    }

    /// The part curl sends for what the model read; a header curl chooses itself (the type it
    /// guesses when none is given, a multipart/mixed boundary) is left out of both sides.
    private func expected(_ m: CurlFormModel, formEscape: Bool, dir: String) throws -> ReceivedPart {
        func wire(_ b: [UInt8]) -> [UInt8] { CurlFormModel.wire(b, formEscape: formEscape) }
        func disposition(_ kind: String, name: [UInt8]?, filename: [UInt8]?) -> [UInt8] {
            Array("Content-Disposition: \(kind)".utf8) + (name.map { Array("; name=\"".utf8) + wire($0) + [0x22] } ?? [])
                + (filename.map { Array("; filename=\"".utf8) + wire($0) + [0x22] } ?? [])
        }
        func read(_ path: [UInt8]) throws -> [UInt8] {
            [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/" + String(decoding: path, as: UTF8.self))))
        }
        func extra(_ f: CurlFormModel.File) throws -> [[UInt8]] {
            var lines: [[UInt8]] = f.type.map { [Array("Content-Type: ".utf8) + $0] } ?? []
            for h in f.headers {
                lines += h.file ? Self.split(try read(h.text), by: [10]).filter { !$0.isEmpty } : [h.text]
            }
            if let e = f.encoder { lines.append(Array("Content-Transfer-Encoding: ".utf8) + e) }
            return lines
        }
        switch m.content {
        case .text(let text):
            return ReceivedPart(headers: [disposition("form-data", name: m.name, filename: m.parameters.filename)] + (try extra(m.parameters)),
                                body: text)
        case .fileText(let f):
            return ReceivedPart(headers: [disposition("form-data", name: m.name, filename: nil)] + (try extra(f)), body: try read(f.path))
        case .files(let files) where files.count == 1:
            let f = files[0]
            let base = Array(f.path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).last ?? [])
            return ReceivedPart(headers: [disposition("form-data", name: m.name, filename: f.filename ?? base)] + (try extra(f)),
                                body: try read(f.path))
        case .files(let files):
            // Several files: one multipart/mixed part holding them, each with its content.
            var body: [UInt8] = []
            for f in files { body += try read(f.path) }
            return ReceivedPart(headers: [disposition("form-data", name: m.name, filename: nil)], body: body)
        case .subparts:
            throw TestServerError("no subparts in this table")
        }
    }

    /// What arrived, shaped as `expected` shapes it: without a guessed type, and a
    /// multipart/mixed part as its files' contents.
    private func shaped(_ part: ReceivedPart, _ m: CurlFormModel) -> ReceivedPart {
        var p = part
        let typeLine = Array("Content-Type: ".utf8)
        if case .files(let files) = m.content, files.count > 1 {
            let head = p.headers.first { $0.starts(with: typeLine) } ?? []
            let text = String(decoding: head, as: UTF8.self)
            let boundary = text.range(of: "boundary=").map { Array(text[$0.upperBound...].utf8) } ?? []
            p.body = Self.parts(p.body, boundary: boundary).flatMap(\.body)
            p.headers = p.headers.filter { !$0.starts(with: typeLine) }
        } else if case .files(let files) = m.content, files.first?.type == nil {
            p.headers = p.headers.filter { !$0.starts(with: typeLine) }
        }
        return p
    }

    /// (-F or --form-string, the argument, whether --form-escape is given).
    static let table: [(option: String, argument: String, formEscape: Bool)] = [
        ("-F", "f=@a.txt;type=text/plain;headers=@hdr.txt", false),
        ("-F", "g=@a.txt;type=text/plain,secret.txt", false),
        ("-F", "g=@a.txt;type=a/b,\"a.txt \";type=c/d", false),
        ("-F", "x\\=\\@secret.txt\\;=v", false),
        ("-F", "f=@\"a.txt \"", false),
        ("-F", "f=@a.txt ", false),
        ("-F", "f=@\" lead.txt\";type=a/b", false),
        ("-F", "f=@ \" lead.txt\";type=a/b", false),
        ("-F", " n =v", false),
        ("-F", "a;b,c\"d\\e=v", false),
        ("-F", "a\"b\\c=v", true),
        ("-F", "f=@a.txt;filename=\"x;y,z\\\"w\\\\v\\q\"", false),
        ("-F", "f=@a.txt;filename=\"x;y,z\\\"w\\\\v\\q\"", true),
        ("-F", "f=@a.txt;type=text/plain; charset=x;filename=n", false),
        ("-F", "f=@a.txt;type=text/plain; Filename=zz", false),
        ("-F", "f=@\"q\\\"x\\\\y;z,w.txt\";filename=k;type=c/d", false),
        ("-F", "f=@\"b\\\\\";type=a/b;filename=\"\\\\\"", false),
        ("-F", "f=@a.txt;type=a/b;filename= sp ", false),
        ("-F", "f=@a.txt;type=a/b;filename=\" sp \"", false),
        ("-F", "f=@\"a.txt\"junk;filename=k;type=a/b", false),
        ("-F", "f=@a.txt;type=a/b;filename=\"unclosed", false),
        ("-F", "=v", false),
        ("-F", "f=@a.txt;type=a/b;filename=k;type=c/d", false),
        ("-F", "f=@a.txt;type=textplain", false),
        ("-F", "f=@a.txt;type=te xt/plain", false),
        ("-F", "f=@a.txt;type=a/", false),
        ("-F", "f=@a.txt;type=/b", false),
        ("-F", "f=@a.txt;type= text/plain", false),
        ("-F", "f=@a.txt;type=text/x;type=a/b", false),
        ("-F", "f=@a.txt;type=text/x;  encoder=binary", false),
        ("-F", "f=@a.txt;type=text/x;;filename=k", false),
        ("-F", "f=@a.txt;type=text/x; ;filename=k", false),
        ("-F", "f=@a.txt;type=text/x ;a;filename=k", false),
        ("-F", "f=@a.txt;type=te;xt/plain;filename=k", false),
        ("-F", "f=@a.txt;type=a;filename=x/b", false),
        ("-F", "f=@a.txt;type=text/pl\"ain\\;filename=k", false),
        ("-F", "f=@a.txt;type=a/b\tc;filename=k", false),
        ("-F", "f=@a.txt;type=" + String(repeating: "m", count: 127) + "/b;filename=k", false),
        ("-F", "f=@a.txt;type=" + String(repeating: "m", count: 128) + "/b;filename=k", false),
        ("-F", "f=@a.txt;type=a/" + String(repeating: "n", count: 130) + ";filename=k", false),
        ("-F", "f=@a.txt;FILENAME=K;TYPE=A/B", false),
        ("-F", "f=@a.txt;type=a/b;x=y;filename=k", false),
        ("-F", "f=@a.txt;type=a/b;headers=\"X-Q: \\\"1\\\"\"", false),
        ("-F", "f=@a.txt;type=a/b;headers=@ hdr.txt ", false),
        ("-F", "f=@a.txt;type=a/b;filename=\"%0A\\\"x\"", false),
        ("-F", "f=@a.txt;type=a/b;filename=\"%0A\\\"x\"", true),
        ("-F", "t=hello;type=text/x;filename=f.txt", false),
        ("-F", "t=\"a;b,c\";type=x/y,z", false),
        ("-F", "t= spaced ;type=x/y", false),
        ("-F", "t=v;headers=X-A: 1", false),
        ("-F", "t=<a.txt;type=a/b", false),
        ("-F", "nothing", false),
        ("--form-string", "s=@a.txt;type=x/y", false),
        ("--form-string", "a=b=c", false),
        ("--form-string", "q\"\\=(x", false),
        ("--form-string", "q\"\\=(x", true),
        ("--form-string", "n\u{1}\tx\ry\nz=v\r\n", false),
        ("--form-string", "n\u{1}\tx\ry\nz=v", true),
    ]

    func testTheModelReadsWhatCurlReads() throws {
        let dir = TestPaths.temporaryDirectory()
        for (name, content) in [("a.txt", "hello\n"), ("a.txt ", "trail\n"), (" lead.txt", "lead\n"), ("q\"x\\y;z,w.txt", "odd\n"),
                                ("b\\", "slash\n"), ("secret.txt", "SECRET\n"), ("hdr.txt", "X-Evil: 1\n")] {
            try Data(content.utf8).write(to: URL(fileURLWithPath: dir + "/" + name))
        }
        for row in Self.table {
            let shown = "\(row.option) \(row.argument.debugDescription)\(row.formEscape ? " --form-escape" : "")"
            let args = (row.formEscape ? ["--form-escape"] : []) + [row.option, row.argument]
            let sent = try sendWithCurl(args, in: dir)
            let model: CurlFormModel
            do {
                model = try CurlFormModel.parse(Array(row.argument.utf8), literal: row.option == "--form-string")
            } catch {
                // curl: "option -F: is badly used here" (2).
                XCTAssertEqual(sent.status, 2, "\(shown): the model refuses (\(error.reason)), curl: \(sent.stderr)")
                continue
            }
            XCTAssertEqual(sent.status, 0, "\(shown): the model reads \(model), curl fails: \(sent.stderr)")
            guard sent.status == 0 else { continue }
            XCTAssertEqual(sent.parts.count, 1, shown)
            guard let part = sent.parts.first else { continue }
            let want = try expected(model, formEscape: row.formEscape, dir: dir)
            let got = shaped(part, model)
            XCTAssertEqual(got.headers.map { String(decoding: $0, as: UTF8.self) }, want.headers.map { String(decoding: $0, as: UTF8.self) }, shown)
            XCTAssertEqual(String(decoding: got.body, as: UTF8.self), String(decoding: want.body, as: UTF8.self), shown)
        }
    }

    /// The model reads the table's attacks as curl does: a second file, part headers from a file.
    func testTheModelSeesTheAttacks() throws {
        let headers = try CurlFormModel.parse(Array("f=@a.txt;type=text/plain;headers=@secret.txt".utf8), literal: false)
        guard case .files(let files) = headers.content else { return XCTFail("\(headers)") }
        XCTAssertEqual(files.first?.headers.map(\.file), [true])
        let two = try CurlFormModel.parse(Array("f=@a.txt;type=text/plain,/etc/passwd".utf8), literal: false)
        guard case .files(let both) = two.content else { return XCTFail("\(two)") }
        XCTAssertEqual(both.map { String(decoding: $0.path, as: UTF8.self) }, ["a.txt", "/etc/passwd"])
        XCTAssertEqual(try CurlFormModel.parse(Array("a=b=c".utf8), literal: true).name, Array("a".utf8))
    }

    /// The `curl-export` fuzz harness over inputs from a fixed generator, so `make test` covers
    /// more than its corpus: every exported part reads back through the model, or is refused.
    func testExportedPartsReadBackThroughTheModel() throws {
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        var exported = 0, refused = 0
        for _ in 0..<20_000 {
            var input: [UInt8] = []
            for _ in 0..<Int(x % 64) {
                x = x &* 6364136223846793005 &+ 1442695040888963407
                input.append(UInt8(truncatingIfNeeded: x >> 33))
            }
            x = x &* 6364136223846793005 &+ 1442695040888963407
            do {
                if try FuzzHarness.curlExport(input) { exported += 1 } else { refused += 1 }
            } catch { return XCTFail("\(input): \(error)") }
        }
        // Both ways are taken often: the property is not held by refusing everything.
        XCTAssertGreaterThan(exported, 2_000, "\(refused) refused")
        XCTAssertGreaterThan(refused, 2_000, "\(exported) exported")
    }
}
