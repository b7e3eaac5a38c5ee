import SwurlCore
/// The entries of a `.netrc` file (`machine`, `login`, `password`, `default`; `macdef` bodies
/// are skipped), looked up by host for every redirect hop.
public struct Netrc: Sendable, Equatable {
    /// One `machine` entry.
    public struct Entry: Sendable, Equatable {
        /// The host name, lower-cased; empty for the `default` entry.
        public var machine: String
        public var login: String?
        public var password: String?
    }

    /// The `machine` entries in file order (the first match wins).
    public private(set) var entries: [Entry] = []
    /// The `default` entry.
    public private(set) var fallback: Entry?

    /// Parses netrc text; unknown words are skipped, as curl and Python's netrc do.
    public init(parsing text: String) {
        var tokens = Netrc.tokens(text)[...]
        var current: Entry?
        func close() {
            guard let e = current else { return }
            if e.machine.isEmpty { fallback = e } else { entries.append(e) }
            current = nil
        }
        while let token = tokens.popFirst() {
            switch token {
            case "machine":
                close()
                current = Entry(machine: tokens.popFirst()?.lowercased() ?? "")
                if current?.machine.isEmpty == true { current = nil }
            case "default":
                close()
                current = Entry(machine: "")
            case "login":
                current?.login = tokens.popFirst()
            case "password":
                current?.password = tokens.popFirst()
            case "account":
                _ = tokens.popFirst()
            case "macdef":
                // A macro runs to the next blank line; the tokenizer marks it.
                close()
                while let t = tokens.popFirst(), t != Netrc.macroEnd {}
            default:
                break
            }
        }
        close()
    }

    private static let macroEnd = "\u{0}macdef-end"

    /// Whitespace-separated words; `"…"` quotes with backslash escapes; a blank line after
    /// `macdef` ends the macro (reported as `macroEnd`).
    static func tokens(_ text: String) -> [String] {
        var out: [String] = []
        var chars = Array(text)[...]
        var inMacro = false
        while let c = chars.first {
            if inMacro {
                // Skip to a blank line.
                if c == "\n", chars.dropFirst().first == "\n" || chars.dropFirst().first == nil {
                    out.append(macroEnd)
                    inMacro = false
                }
                chars = chars.dropFirst()
                continue
            }
            if c == " " || c == "\t" || c == "\n" || c == "\r" {
                chars = chars.dropFirst()
                continue
            }
            if c == "#" {
                while let d = chars.first, d != "\n" { chars = chars.dropFirst() }
                continue
            }
            var word = ""
            if c == "\"" {
                chars = chars.dropFirst()
                while let d = chars.popFirst(), d != "\"" {
                    if d == "\\", let e = chars.popFirst() { word.append(e) } else { word.append(d) }
                }
            } else {
                while let d = chars.first, !(d == " " || d == "\t" || d == "\n" || d == "\r") {
                    word.append(d)
                    chars = chars.dropFirst()
                }
            }
            if out.last == "macdef" {
                out.append(word)
                inMacro = true
                // The macro name ends its line; the body starts on the next one.
                while let d = chars.first, d != "\n" { chars = chars.dropFirst() }
                chars = chars.dropFirst()
                if chars.first == "\n" || chars.isEmpty { out.append(macroEnd); inMacro = false }
                continue
            }
            out.append(word)
        }
        return out
    }

    /// The credentials for `host`: its `machine` entry, else the `default` entry when
    /// `allowDefault` (swurl allows it for the first URL's host only, never for a redirect
    /// target, so a catch-all password never reaches a host the user did not name; CVE-2025-0167).
    public func credentials(forHost host: String, allowDefault: Bool) -> Credentials? {
        let key = host.lowercased()
        let entry = entries.first { $0.machine == key } ?? (allowDefault ? fallback : nil)
        guard let entry, let login = entry.login else { return nil }
        return Credentials(user: login, password: entry.password ?? "")
    }
}
