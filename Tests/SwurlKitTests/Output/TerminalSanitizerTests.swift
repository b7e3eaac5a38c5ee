import XCTest
@testable import SwurlCLI
@testable import SwurlOutput
@testable import SwurlSession
@testable import SwurlResponseSerialization
@testable import SwurlRequestSerialization
@testable import SwurlSecurity
@testable import SwurlCurl
@testable import SwurlCore

final class TerminalSanitizerTests: XCTestCase {
    private func clean(_ chunks: [[UInt8]]) -> String {
        var s = TerminalSanitizer()
        var out: [UInt8] = []
        for c in chunks { c.withUnsafeBytes { s.append($0, to: &out) } }
        s.finish(into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    func testControlsAndC1AreMadeVisible() {
        let input: [UInt8] = Array("a\u{1B}]52;c;x\u{07}b\tc\n".utf8) + [0xC2, 0x9B, 0x7F] + Array("é".utf8)
        XCTAssertEqual(clean([input]), "a\\x1b]52;c;x\\x07b\tc\n\\u{9b}\\x7fé")
    }

    func testCRIsKeptOnlyBeforeLF() {
        XCTAssertEqual(clean([Array("a\r\nb\rc\r".utf8)]), "a\r\nb\\x0dc\\x0d")
        XCTAssertEqual(clean([[0x61, 0x0D], [0x0A]]), "a\r\n")
    }

    func testC1SplitAcrossChunks() {
        XCTAssertEqual(clean([[0xC2], [0x85]]), "\\u{85}")
        XCTAssertEqual(clean([[0xC2], [0xA9]]), "©")
    }

    func testHeaderValuesShowNewlinesAndTabs() {
        XCTAssertEqual(TerminalSanitizer.clean("a\tb\u{1B}[2J"), "a\\tb\\x1b[2J")
    }
}
