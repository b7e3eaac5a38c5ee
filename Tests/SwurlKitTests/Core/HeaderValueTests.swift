import XCTest
@testable import SwurlOutput
@testable import SwurlResponseSerialization
@testable import SwurlCore

final class HeaderValueTests: XCTestCase {
    private func refusal(_ value: String) -> SwurlError? {
        do { try HeaderValue.check(value, "--label"); return nil } catch { return error }
    }

    func testRefusesCRLFNULAndOtherC0ControlsAndDEL() {
        for bad in ["a\rb", "a\nb", "a\0b", "a\u{1}b", "\u{1B}[31m", "a\u{7F}", "\r\nX-Evil: 1", "x\u{1F}"] {
            let e = refusal(bad)
            XCTAssertNotNil(e, bad.debugDescription)
            XCTAssertEqual(e.map(ExitStatus.init(for:)), .usage, bad.debugDescription)
            XCTAssertTrue(e?.message.hasPrefix("--label: ") ?? false, e?.message ?? "")
        }
    }

    func testAllowsTabSpacesAndNonASCII() {
        for good in ["", "a b", "a\tb", "Bearer tok-é", "\u{85}", "日本", "\u{202E}"] {
            XCTAssertNil(refusal(good), good.debugDescription)
        }
    }

    func testNamesTheCharacterAndHintsAtCRLFFiles() {
        XCTAssertTrue(refusal("tok\r")?.message.contains("a carriage return (\\r)") ?? false)
        XCTAssertEqual(refusal("tok\r")?.hint, "the value ends with a carriage return (a file with CRLF line ends?)")
        XCTAssertTrue(refusal("a\nb")?.message.contains("a line feed (\\n)") ?? false)
        XCTAssertEqual(refusal("a\nb")?.hint, "a header value is one line; remove the line break")
        XCTAssertTrue(refusal("a\0")?.message.contains("a NUL byte (\\x00)") ?? false)
        XCTAssertTrue(refusal("a\u{7}")?.message.contains("\\x07") ?? false)
    }
}
