import SwurlCore
/// How many colours the terminal shows, from `COLORTERM` and `TERM`.
package enum ColorDepth: Sendable, Equatable {
    case ansi16, ansi256, truecolor

    /// `COLORTERM=truecolor|24bit` → truecolor; a `TERM` naming 256 colours (or `direct`) → 256;
    /// otherwise the 16 ANSI colours.
    package static func detect(_ variables: [String: String]) -> ColorDepth {
        let colorterm = (variables["COLORTERM"] ?? "").lowercased()
        if colorterm == "truecolor" || colorterm == "24bit" { return .truecolor }
        let term = (variables["TERM"] ?? "").lowercased()
        // Byte search: `String.contains(String)` builds a Character table (and looks up a
        // conformance at run time) on every start.
        if term.containsText("256") || term.containsText("direct") { return .ansi256 }
        return .ansi16
    }
}

/// The colour schemes of `--style`.
package enum ThemeStyle: String, CaseIterable, Sendable {
    /// Mid-tone colours readable on dark and light backgrounds, as deep as the terminal allows.
    case auto
    /// The 16 ANSI colours only (the terminal's own palette decides the shades).
    case basic
    /// Brighter colours for dark backgrounds.
    case dark
    /// Deeper colours for light backgrounds.
    case light
    /// No colours: bold, underline and dim only.
    case mono
}

/// The ANSI colours swurl uses; the default is readable on dark and light backgrounds (no black
/// or white, no dim grey for content).
package struct Theme: Sendable {
    package var reset = "\u{1B}[0m"
    package var headerName = "\u{1B}[36m"
    package var version = "\u{1B}[34m"
    package var method = "\u{1B}[32;1m"
    package var target = "\u{1B}[36;4m"
    package var statusOK = "\u{1B}[32;1m"
    package var statusRedirect = "\u{1B}[33;1m"
    package var statusError = "\u{1B}[31;1m"
    package var jsonKey = "\u{1B}[34;1m"
    package var jsonString = "\u{1B}[32m"
    package var jsonNumber = "\u{1B}[36m"
    package var jsonLiteral = "\u{1B}[35m"
    package var note = "\u{1B}[33m"
    package var xmlTag = "\u{1B}[34;1m"
    package var xmlAttribute = "\u{1B}[36m"
    package var xmlComment = "\u{1B}[33m"
    package var xmlProcessing = "\u{1B}[35m"

    /// The basic 16-colour theme.
    package init() {}

    /// A theme for `style` on a terminal with `depth` colours.
    package init(style: ThemeStyle, depth: ColorDepth) {
        switch style {
        case .basic:
            return
        case .mono:
            let bold = "\u{1B}[1m", under = "\u{1B}[4m", plain = "\u{1B}[0m"
            headerName = bold; version = plain; method = bold; target = under
            statusOK = bold; statusRedirect = bold; statusError = bold + under
            jsonKey = bold; jsonString = plain; jsonNumber = plain; jsonLiteral = under
            note = under; xmlTag = bold; xmlAttribute = plain; xmlComment = under; xmlProcessing = under
            return
        case .auto where depth == .ansi16:
            return
        case .auto, .dark, .light:
            break
        }
        // (r, g, b) and the 16-colour fallback code for each role.
        typealias RGB = (UInt8, UInt8, UInt8, String)
        let palette: [RGB]
        switch style {
        case .dark:   // key, string, number, literal, name, note, error, ok, redirect, tag, comment
            palette = [(0x61, 0xAF, 0xEF, "94"), (0x98, 0xC3, 0x79, "92"), (0x56, 0xB6, 0xC2, "96"), (0xC6, 0x78, 0xDD, "95"),
                       (0x56, 0xB6, 0xC2, "96"), (0xE5, 0xC0, 0x7B, "93"), (0xE0, 0x6C, 0x75, "91"), (0x98, 0xC3, 0x79, "92"),
                       (0xE5, 0xC0, 0x7B, "93"), (0x61, 0xAF, 0xEF, "94"), (0xD1, 0x9A, 0x66, "93")]
        case .light:
            palette = [(0x00, 0x3E, 0x9C, "34"), (0x0A, 0x6E, 0x0A, "32"), (0x00, 0x6C, 0x7A, "36"), (0x8A, 0x1C, 0x9E, "35"),
                       (0x00, 0x6C, 0x7A, "36"), (0x8A, 0x5A, 0x00, "33"), (0xB0, 0x1C, 0x1C, "31"), (0x0A, 0x6E, 0x0A, "32"),
                       (0x8A, 0x5A, 0x00, "33"), (0x00, 0x3E, 0x9C, "34"), (0x8A, 0x5A, 0x00, "33")]
        default:      // auto on 256/truecolor: mid-tones that read on both backgrounds
            palette = [(0x26, 0x7F, 0xD9, "34"), (0x3A, 0x9A, 0x3A, "32"), (0x1C, 0x9A, 0xA8, "36"), (0xA8, 0x4C, 0xC8, "35"),
                       (0x1C, 0x9A, 0xA8, "36"), (0xC8, 0x8A, 0x10, "33"), (0xD6, 0x3A, 0x3A, "31"), (0x3A, 0x9A, 0x3A, "32"),
                       (0xC8, 0x8A, 0x10, "33"), (0x26, 0x7F, 0xD9, "34"), (0xA0, 0x80, 0x40, "33")]
        }
        func sgr(_ c: RGB, _ extra: String = "") -> String {
            let code: String
            switch depth {
            case .truecolor: code = "38;2;\(c.0);\(c.1);\(c.2)"
            case .ansi256:
                let q = { (v: UInt8) -> Int in Int(v) < 48 ? 0 : Int(v) < 115 ? 1 : (Int(v) - 35) / 40 }
                code = "38;5;\(16 + 36 * q(c.0) + 6 * q(c.1) + q(c.2))"
            case .ansi16: code = c.3
            }
            return "\u{1B}[" + code + extra + "m"
        }
        jsonKey = sgr(palette[0], ";1"); jsonString = sgr(palette[1]); jsonNumber = sgr(palette[2])
        jsonLiteral = sgr(palette[3]); headerName = sgr(palette[4]); note = sgr(palette[5])
        statusError = sgr(palette[6], ";1"); statusOK = sgr(palette[7], ";1"); statusRedirect = sgr(palette[8], ";1")
        xmlTag = sgr(palette[9], ";1"); xmlComment = sgr(palette[10]); xmlAttribute = sgr(palette[4])
        xmlProcessing = sgr(palette[3]); version = sgr(palette[0]); method = sgr(palette[7], ";1"); target = sgr(palette[4], ";4")
    }

    /// The colour for a status code's class.
    package func status(_ code: Int) -> String {
        switch code {
        case 200..<300: return statusOK
        case 300..<400: return statusRedirect
        default: return statusError
        }
    }
}
