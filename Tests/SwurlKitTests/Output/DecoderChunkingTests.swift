import XCTest
@testable import SwurlOutput
@testable import SwurlResponseSerialization
@testable import SwurlRequestSerialization
@testable import SwurlCore

/// Outside `--stream`, what a decoder shows must not depend on where the body was cut into
/// chunks: every decoder is fed the same bodies whole, byte by byte and in seeded random chunk
/// sizes, and must give identical output and outcome.
final class DecoderChunkingTests: XCTestCase {
    private static func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

    private func bodies() throws -> [(String, [UInt8])] {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let spaces = { (n: Int) in [UInt8](repeating: 0x20, count: n) }
        var rng = SeededGenerator(state: 17)
        let random = (0..<700).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let plistValue = JSONValue.object([.init("name", .string("Ann")), .init("list", .array([.number("1"), .bool(true)]))])
        return [
            ("empty", []),
            ("one space", [0x20]),
            ("json", Self.bytes(#"{"a":[1,2.5,{"b":null}],"s":"x\u00e9 é","t":true}"#)),
            ("json lines", Self.bytes("{\"a\":1}\n{\"b\":2}\n")),
            ("invalid json", Self.bytes(#"{"a":1,}"#)),
            ("truncated json", Self.bytes(#"{"a": [1, tru"#)),
            ("xssi", Self.bytes(")]}',\n{\"a\":1}")),
            ("xssi short", Self.bytes(")]}")),
            ("while guard", Self.bytes("while(1);[1,2]")),
            ("for guard", Self.bytes("for(;;);{\"k\":\"v\"}")),
            ("spaces + xssi", spaces(20) + Self.bytes(")]}'\n[1]")),
            ("newlines + xssi", [UInt8](repeating: 0x0A, count: 40) + Self.bytes("for(;;);{\"a\":1}")),
            ("spaces + json", spaces(100) + Self.bytes(#"{"a":1}"#)),
            ("many spaces + json", spaces(2000) + Self.bytes("[1]")),
            ("bom + json", bom + Self.bytes(#"{"a":"b"}"#)),
            ("bom + spaces + xssi", bom + spaces(18) + Self.bytes(")]}',{\"a\":1}")),
            ("half a bom", [0xEF, 0xBB]),
            ("xml", Self.bytes(#"<?xml version="1.0"?><r a="1"><!-- c --><b>t&amp;</b><![CDATA[x]]><c/></r>"#)),
            ("bom + xml", bom + Self.bytes("<r><b>1</b></r>")),
            ("latin-1 xml by its declaration", Self.bytes("<?xml version=\"1.0\"  encoding='ISO-8859-1' ?><r>caf") + [0xE9] + Self.bytes("</r>")),
            ("utf-16 xml with a declaration", [0xFF, 0xFE] + Array("<?xml version=\"1.0\" encoding=\"UTF-16\"?><r>é</r>".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })),
            ("invalid xml", Self.bytes("<a><b></a>")),
            ("html", Self.bytes("<!doctype html><html><body>hi</body></html>")),
            ("xml plist", try PropertyListWriter.xml(plistValue)),
            ("binary plist", try PropertyListWriter.binary(plistValue)),
            ("old plist date", Self.bytes("<plist><date>0276-01-02T03:04:05Z</date></plist>")),
            ("png header", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [0, 0, 0, 13] + Self.bytes("IHDR") + [0, 0, 2, 128, 0, 0, 1, 224, 8, 6, 0, 0, 0]),
            ("utf-16le with bom", [0xFF, 0xFE] + Array("hi there".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })),
            ("random bytes", random),
            ("text", Self.bytes("plain text\r\nwith \u{1B}[2J escapes and \u{85} C1\n")),
            ("nul in the second half-kilobyte", [UInt8](repeating: 0x61, count: 600) + [0] + Self.bytes("b")),
            ("nul after a kilobyte", [UInt8](repeating: 0x61, count: 1500) + [0]),
            ("split utf-8", Self.bytes("ééé😀😀")),
        ]
    }

    /// The decoder setups: every `--decode` choice, auto under several media types and a charset.
    private struct Setup: CustomStringConvertible {
        var choice: DecoderChoice
        var mediaType: String?
        var charset: String?
        var terminal: Bool
        var themed = false
        var configure: (inout DecodingOptions) -> Void = { _ in }
        var label = ""
        var description: String {
            "\(choice) \(mediaType ?? "-") \(charset ?? "-") terminal=\(terminal) theme=\(themed) \(label)"
        }
    }

    private func setups() -> [Setup] {
        var all: [Setup] = []
        for terminal in [true, false] {
            for choice in DecoderChoice.allCases { all.append(Setup(choice: choice, terminal: terminal)) }
            for type in ["application/json", "text/plain", "application/xml", "application/x-plist", "image/png",
                         "application/octet-stream", "text/html"] {
                all.append(Setup(choice: .auto, mediaType: type, terminal: terminal))
            }
            all.append(Setup(choice: .auto, mediaType: "text/plain", charset: "utf-16", terminal: terminal))
            all.append(Setup(choice: .text, mediaType: "text/plain", charset: "iso-8859-1", terminal: terminal))
            all.append(Setup(choice: .json, terminal: terminal, configure: { $0.sortKeys = true }, label: "sort-keys"))
            all.append(Setup(choice: .plist, terminal: terminal, configure: { $0.plistAsJSON = true }, label: "plist-as-json"))
        }
        all.append(Setup(choice: .auto, terminal: true, themed: true))
        all.append(Setup(choice: .json, terminal: true, themed: true))
        all.append(Setup(choice: .xml, terminal: true, themed: true))
        return all
    }

    private func run(_ body: [UInt8], _ setup: Setup, chunks: [Int]) -> ([UInt8], DecodingOutcome) {
        var options = DecodingOptions()
        options.choice = setup.choice
        setup.configure(&options)
        let context = DecodingContext(options: options, theme: setup.themed ? Theme() : nil, terminal: setup.terminal,
                                      mediaType: setup.mediaType, charset: setup.charset)
        let decoder = CompoundResponseDecoder(context: context)
        var out: [UInt8] = []
        var i = 0, k = 0
        while i < body.count {
            let end = min(body.count, i + max(1, chunks[k % chunks.count]))
            body[i..<end].withUnsafeBytes { decoder.decode($0, into: &out) }
            i = end
            k += 1
        }
        let outcome = decoder.finish(into: &out)
        return (out, outcome)
    }

    func testEveryDecoderGivesTheSameOutputForAnyChunking() throws {
        var rng = SeededGenerator(state: 2024)
        let randomChunkings = (0..<3).map { _ in (0..<16).map { _ in Int.random(in: 1...40, using: &rng) } }
        for (name, body) in try bodies() {
            for setup in setups() {
                let whole = run(body, setup, chunks: [max(1, body.count)])
                for chunks in [[1]] + randomChunkings {
                    let cut = run(body, setup, chunks: chunks)
                    guard cut.0 != whole.0 || cut.1 != whole.1 else { continue }
                    XCTFail("""
                    '\(name)' with \(setup), chunks \(chunks.prefix(4)):
                    whole: \(String(decoding: whole.0, as: UTF8.self).debugDescription) \(whole.1)
                    cut:   \(String(decoding: cut.0, as: UTF8.self).debugDescription) \(cut.1)
                    """)
                    break
                }
            }
        }
    }

    func testAJSONWindowLongerThanOneChunkClosesAtTheSameByte() {
        // Invalid JSON just past the held-back window: shown the same whatever the chunk size.
        var body = Array("[".utf8)
        while body.count < HoldBackWindow.size + 100 { body += Array("1234567,".utf8) }
        body += Array("x]".utf8)
        let setup = Setup(choice: .json, terminal: false)
        let whole = run(body, setup, chunks: [body.count])
        XCTAssertTrue(whole.1 != .decoded)
        for chunks in [[4096], [65_537], [1000, 3, 77_777]] {
            let cut = run(body, setup, chunks: chunks)
            XCTAssertEqual(cut.1, whole.1, "\(chunks)")
            XCTAssertTrue(cut.0 == whole.0, "\(chunks): \(cut.0.count) bytes vs \(whole.0.count)")
        }
    }
}
