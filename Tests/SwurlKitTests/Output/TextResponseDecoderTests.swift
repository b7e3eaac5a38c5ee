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

    /// A code unit that is not text (a lone surrogate) becomes one U+FFFD and is skipped whole:
    /// the text after it stays aligned (before, one byte was skipped and the rest read as CJK).
    func testALoneSurrogateSkipsAWholeCodeUnit() {
        let hello = Array("hello world".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        for chunk in [1, 2, 3, 64] {
            let le = runDecoder([0x41, 0x00, 0x00, 0xDC] + hello, mediaType: "text/plain", charset: "utf-16le", chunk: chunk)
            XCTAssertEqual(le.text, "A\u{FFFD}hello world", "chunk \(chunk)")
            // A high surrogate followed by no low one.
            let high = runDecoder([0x41, 0x00, 0x3D, 0xD8] + hello, mediaType: "text/plain", charset: "utf-16le", chunk: chunk)
            XCTAssertEqual(high.text, "A\u{FFFD}hello world", "chunk \(chunk)")
            let be = runDecoder([0xFE, 0xFF, 0x00, 0x41, 0xDC, 0x00] + hello.map { $0 }.chunkSwapped(), mediaType: "text/plain",
                                charset: "utf-16", chunk: chunk)
            XCTAssertEqual(be.text, "A\u{FFFD}hello world", "chunk \(chunk)")
            let utf32 = runDecoder([0x41, 0, 0, 0, 0x00, 0xDC, 0, 0] + Array("hi".utf8).flatMap { [$0, 0, 0, 0] },
                                   mediaType: "text/plain", charset: "utf-32le", chunk: chunk)
            XCTAssertEqual(utf32.text, "A\u{FFFD}hi", "chunk \(chunk)")
        }
        // Cut short at the end: one U+FFFD for what is left.
        XCTAssertEqual(runDecoder([0x41, 0x00, 0x42], mediaType: "text/plain", charset: "utf-16le").text, "A\u{FFFD}")
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

private extension Array where Element == UInt8 {
    /// Each pair of bytes swapped: little-endian UTF-16 to big-endian.
    func chunkSwapped() -> [UInt8] {
        stride(from: 0, to: count - 1, by: 2).flatMap { [self[$0 + 1], self[$0]] }
    }
}
