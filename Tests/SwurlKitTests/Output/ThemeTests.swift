import XCTest
@testable import SwurlOutput

final class ThemeTests: XCTestCase {
    func testColorDepthComesFromCOLORTERMAndTERM() {
        XCTAssertEqual(ColorDepth.detect(["COLORTERM": "truecolor", "TERM": "xterm"]), .truecolor)
        XCTAssertEqual(ColorDepth.detect(["COLORTERM": "24bit"]), .truecolor)
        XCTAssertEqual(ColorDepth.detect(["TERM": "xterm-256color"]), .ansi256)
        XCTAssertEqual(ColorDepth.detect(["TERM": "xterm"]), .ansi16)
        XCTAssertEqual(ColorDepth.detect([:]), .ansi16)
    }

    func testStylesUseTheDepthTheTerminalHas() {
        XCTAssertEqual(Theme(style: .auto, depth: .ansi16).jsonKey, Theme().jsonKey)
        XCTAssertTrue(Theme(style: .auto, depth: .truecolor).jsonKey.hasPrefix("\u{1B}[38;2;"))
        XCTAssertTrue(Theme(style: .dark, depth: .ansi256).jsonString.hasPrefix("\u{1B}[38;5;"))
        XCTAssertEqual(Theme(style: .light, depth: .ansi16).jsonString, "\u{1B}[32m")
        let mono = Theme(style: .mono, depth: .truecolor)
        for code in [mono.jsonKey, mono.jsonString, mono.statusError, mono.xmlTag] {
            XCTAssertFalse(code.contains("38;"), code)
        }
    }

    func testNoThemeUsesBlackOrWhite() {
        for style in ThemeStyle.allCases {
            for depth in [ColorDepth.ansi16, .ansi256, .truecolor] {
                let t = Theme(style: style, depth: depth)
                for code in [t.jsonKey, t.jsonString, t.jsonNumber, t.jsonLiteral, t.headerName, t.note, t.xmlTag] {
                    for bad in ["[30m", "[37m", "[97m", "[90m", "38;5;16m", "38;5;231m", "38;2;0;0;0m", "38;2;255;255;255m"] {
                        XCTAssertFalse(code.hasSuffix(bad), "\(style) \(depth) \(code.debugDescription)")
                    }
                }
            }
        }
    }
}
