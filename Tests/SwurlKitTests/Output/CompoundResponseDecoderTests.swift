import XCTest
@testable import SwurlCLI
@testable import SwurlOutput
@testable import SwurlResponseSerialization
@testable import SwurlCore

final class CompoundResponseDecoderTests: XCTestCase {
    private func kind(_ type: String?, _ head: String, terminal: Bool = true) -> CompoundResponseDecoder.Kind {
        CompoundResponseDecoder.kind(choice: .auto, mediaType: type, head: Array(head.utf8), terminal: terminal)
    }

    func testContentTypeComesFirst() {
        // AFJSONResponseSerializer's types, plus any +json.
        for t in ["application/json", "text/json", "text/javascript", "application/problem+json", "application/x-ndjson"] {
            XCTAssertEqual(kind(t, "not json"), .json, t)
        }
        // AFXMLParserResponseSerializer's types, plus any +xml.
        for t in ["application/xml", "text/xml", "application/atom+xml"] { XCTAssertEqual(kind(t, "x"), .xml, t) }
        XCTAssertEqual(kind("application/x-plist", "x"), .plist)
        XCTAssertEqual(kind("application/xml", "<?xml version=\"1.0\"?><!DOCTYPE plist"), .plist)
        XCTAssertEqual(kind("text/html", "{\"a\":1}"), .text)
        // An error page served with an image's type is text; bytes that are neither stay binary.
        XCTAssertEqual(kind("image/png", "<Error><Code>AccessDenied</Code></Error>"), .text)
        XCTAssertEqual(CompoundResponseDecoder.kind(choice: .auto, mediaType: "image/png", head: [0x89, 0x50, 0x4E, 0x47, 0, 0, 0xFF], terminal: true), .binary)
        XCTAssertEqual(kind("application/pdf", "%PDF"), .binary)
    }

    func testSniffingWhenTheTypeSaysNothing() {
        XCTAssertEqual(kind(nil, "  {\"a\":1}"), .json)
        XCTAssertEqual(kind("text/plain", "[1]"), .json)
        XCTAssertEqual(kind(nil, ")]}',\n[1]"), .json)
        XCTAssertEqual(kind(nil, "<?xml version=\"1.0\"?><a/>"), .xml)
        XCTAssertEqual(kind(nil, "<feed/>"), .xml)
        XCTAssertEqual(kind(nil, "<html><body>"), .text)
        XCTAssertEqual(kind(nil, "bplist00"), .plist)
        XCTAssertEqual(kind("application/octet-stream", "GIF89a\u{2}\0\u{2}\0"), .image)
        XCTAssertEqual(kind("application/octet-stream", "GIF89a\u{2}\0\u{2}\0", terminal: false), .raw)
        XCTAssertEqual(kind(nil, "a\0b"), .binary)
        XCTAssertEqual(kind(nil, "hello"), .text)
    }

    /// Regression: a text/plain stream (`-S`) whose first line started with `[` (a log's
    /// `[12:00:01] INFO`) went to the JSON formatter, which rewrote it; and a text/plain body that
    /// only looked like JSON got a note that it was not JSON, which it never claimed to be.
    func testTextPlainThatOnlyLooksLikeJSON() {
        let log = "[12:00:01] INFO start\n[12:00:02] WARN disk 91%\n{worker-3} done\n"
        XCTAssertEqual(CompoundResponseDecoder.kind(choice: .auto, mediaType: "text/plain", head: Array(log.utf8), terminal: true, stream: true), .text)
        XCTAssertEqual(CompoundResponseDecoder.kind(choice: .auto, mediaType: nil, head: Array("[1]".utf8), terminal: true, stream: true), .json)
        let streamed = runDecoder(log, mediaType: "text/plain", terminal: false) { $0.stream = true }
        XCTAssertEqual(streamed.text, log)
        XCTAssertEqual(streamed.outcome, .decoded)
        let whole = runDecoder("[x] todo\n", mediaType: "text/plain", terminal: false)
        XCTAssertEqual(whole.text, "[x] todo\n")
        XCTAssertEqual(whole.outcome, .decoded, "no note for text that said it was text")
        // Valid JSON labelled text/plain is still formatted (as HTTPie does); without a label, a
        // body that is not JSON still says so.
        XCTAssertEqual(runDecoder("[1,2]", mediaType: "text/plain").outcome, .decoded)
        XCTAssertTrue(runDecoder("[x] todo\n", terminal: false).outcome.isFailure)
    }

    func testExplicitChoiceSkipsGuessing() {
        XCTAssertEqual(CompoundResponseDecoder.kind(choice: .xml, mediaType: "application/json", head: [], terminal: true), .xml)
        XCTAssertEqual(CompoundResponseDecoder.kind(choice: .raw, mediaType: "image/png", head: [], terminal: true), .binary)
        XCTAssertEqual(CompoundResponseDecoder.kind(choice: .raw, mediaType: "application/json", head: [], terminal: true), .raw)
    }

    func testEmptyBodiesAreFineForEveryDecoder() {
        for choice in DecoderChoice.allCases {
            for body in ["", " "] {
                let r = runDecoder(body, choice: choice, mediaType: "application/json")
                XCTAssertEqual(r.outcome, .decoded, "\(choice) \(body.debugDescription)")
            }
        }
    }
}
