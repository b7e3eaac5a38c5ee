import XCTest
@testable import SwurlKit

final class TerminalSanitizerTests: XCTestCase {
    func testControlsAndC1AreMadeVisible() {
        var out: [UInt8] = []
        var pending = false
        let input: [UInt8] = Array("a\u{1B}]52;c;x\u{07}b\tc\n".utf8) + [0xC2, 0x9B, 0x7F] + Array("é".utf8)
        input.withUnsafeBytes { TerminalSanitizer.append($0, to: &out, pendingC2: &pending) }
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "a\\x1b]52;c;x\\x07b\tc\n\\u{9b}\\x7fé")
    }

    func testC1SplitAcrossChunks() {
        var out: [UInt8] = []
        var pending = false
        [UInt8(0xC2)].withUnsafeBytes { TerminalSanitizer.append($0, to: &out, pendingC2: &pending) }
        [UInt8(0x85)].withUnsafeBytes { TerminalSanitizer.append($0, to: &out, pendingC2: &pending) }
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "\\u{85}")
    }
}
