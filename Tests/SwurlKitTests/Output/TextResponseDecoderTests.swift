import XCTest
@testable import SwurlCore

final class TextResponseDecoderTests: XCTestCase {
    func testCharsetIsConvertedOnATerminalOnly() {
        let latin1: [UInt8] = [0x63, 0x61, 0x66, 0xE9]   // "café"
        XCTAssertEqual(runDecoder(latin1, mediaType: "text/plain", charset: "iso-8859-1", chunk: 1).text, "café")
        XCTAssertEqual(runDecoder(latin1, mediaType: "text/plain", charset: "iso-8859-1", terminal: false).bytes, latin1)
        let cp1252: [UInt8] = [0x80, 0x20, 0x93, 0x71, 0x94]
        XCTAssertEqual(runDecoder(cp1252, mediaType: "text/html", charset: "windows-1252").text, "€ “q”")
        let sjis: [UInt8] = [0x93, 0xFA, 0x96, 0x7B]   // 日本
        XCTAssertEqual(runDecoder(sjis, mediaType: "text/plain", charset: "shift_jis", chunk: 1).text, "日本")
        let utf16: [UInt8] = [0xFF, 0xFE, 0x68, 0x00, 0x69, 0x00]
        XCTAssertEqual(runDecoder(utf16, mediaType: "text/plain", charset: "utf-16", chunk: 3).text, "hi")
    }

    func testInvalidBytesBecomeReplacementCharacters() {
        let r = runDecoder([0x41, 0xFF, 0x42], mediaType: "text/plain", charset: "utf-16le")
        XCTAssertFalse(r.text.isEmpty)
        XCTAssertEqual(runDecoder([0x41], mediaType: "text/plain", charset: "no-such-charset").text, "A")
    }

    func testEscapeSequencesAreMadeVisible() {
        let r = runDecoder("a\u{1B}]0;title\u{07}b\u{9B}c", mediaType: "text/plain")
        XCTAssertEqual(r.text, "a\\x1b]0;title\\x07b\\u{9b}c")
    }

    func testBinaryIsNotDumpedOnATerminal() {
        let bytes: [UInt8] = [0x50, 0x4B, 0x03, 0x04, 0x00, 0x00, 0x1B, 0x5B]
        let r = runDecoder(bytes, mediaType: "application/octet-stream")
        XCTAssertEqual(r.text, "")
        XCTAssertEqual(r.outcome.noteText, "binary data not shown: 8 bytes of application/octet-stream; use -o FILE or a pipe to save it")
        XCTAssertEqual(runDecoder(bytes, mediaType: "application/octet-stream", terminal: false).bytes, bytes)
    }
}
