import SwurlCurl
import SwurlSecurity
import SwurlCore
/// The entries of a `.netrc` file (`machine`, `login`, `password`, `default`; `macdef` bodies
/// are skipped), looked up by host for every redirect hop.
package struct Netrc: Sendable, Equatable {
    /// One `machine` entry.
    package struct Entry: Sendable, Equatable {
        /// The host name, lower-cased; empty for the `default` entry.
        package var machine: String
        package var login: String?
        package var password: String?
    }

    /// The `machine` entries in file order (the first match wins).
    package private(set) var entries: [Entry] = []
    /// The `default` entry.
    package private(set) var fallback: Entry?
    /// The file `$NETRC` named, when it was read instead of `~/.netrc` (`--curl` names it: curl
    /// 7.88 reads no `$NETRC`).
    package var namedFile: String?

    /// Parses netrc text; unknown words are skipped, as curl and Python's netrc do.
    package init(parsing text: String) {
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
                // `machine ::1` and `machine [::1]` both name the URL host `[::1]`.
                current = Entry(machine: HostName.bare(tokens.popFirst() ?? "").lowercased())
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
            case Netrc.macroStart:
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
    private static let macroStart = "\u{0}macdef"

    /// Whitespace-separated words; `"…"` quotes with backslash escapes; a blank line after
    /// `macdef` ends the macro (reported as `macroEnd`).
    ///
    /// Works on UTF-8 bytes, not Characters: "\r\n" is a single Character in Swift, so a
    /// Character-wise scan never sees the line feed of a CRLF file (nor a quote or space that a
    /// combining mark follows).
    static func tokens(_ text: String) -> [String] {
        let space = UInt8(ascii: " "), tab = UInt8(ascii: "\t"), lf = UInt8(ascii: "\n"), cr = UInt8(ascii: "\r")
        let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\"), hash = UInt8(ascii: "#")
        func isSpace(_ b: UInt8) -> Bool { b == space || b == tab || b == lf || b == cr }
        /// Whether a line ending (LF or CRLF) or the end of the text starts at `j`.
        func isLineEnd(_ bytes: ArraySlice<UInt8>, _ j: Int) -> Bool {
            j >= bytes.endIndex || bytes[j] == lf || (bytes[j] == cr && (j + 1 >= bytes.endIndex || bytes[j + 1] == lf))
        }
        /// The index just past the line ending at `j` (LF or CRLF).
        func skipLineEnd(_ bytes: ArraySlice<UInt8>, _ j: Int) -> Int {
            guard j < bytes.endIndex else { return j }
            return bytes[j] == cr && j + 1 < bytes.endIndex && bytes[j + 1] == lf ? j + 2 : j + 1
        }
        let bytes = Array(text.utf8)[...]
        var out: [String] = []
        var i = bytes.startIndex
        var inMacro = false
        // A word after machine, login, password or account is that keyword's value, even when it
        // reads `macdef` (`login macdef`); a quoted word is never a keyword. Only a `macdef` in
        // a keyword's place starts a macro, whose name is the next word.
        var valueNext = false, macroNext = false
        while i < bytes.endIndex {
            let c = bytes[i]
            if inMacro {
                // Skip to a blank line.
                if c == lf || (c == cr && i + 1 < bytes.endIndex && bytes[i + 1] == lf) {
                    let next = skipLineEnd(bytes, i)
                    if isLineEnd(bytes, next) {
                        out.append(macroEnd)
                        inMacro = false
                    }
                    i = next
                } else {
                    i += 1
                }
                continue
            }
            if isSpace(c) { i += 1; continue }
            if c == hash {
                while i < bytes.endIndex, bytes[i] != lf { i += 1 }
                continue
            }
            var word: [UInt8] = []
            let quoted = c == quote
            if quoted {
                i += 1
                while i < bytes.endIndex, bytes[i] != quote {
                    var b = bytes[i]
                    // curl's escapes in a quoted word: \n, \r and \t are the control
                    // characters, any other byte after a backslash stands for itself.
                    if b == backslash, i + 1 < bytes.endIndex {
                        i += 1
                        switch bytes[i] {
                        case UInt8(ascii: "n"): b = 0x0A
                        case UInt8(ascii: "r"): b = 0x0D
                        case UInt8(ascii: "t"): b = 0x09
                        default: b = bytes[i]
                        }
                    }
                    word.append(b)
                    i += 1
                }
                i += 1
            } else {
                while i < bytes.endIndex, !isSpace(bytes[i]) {
                    word.append(bytes[i])
                    i += 1
                }
            }
            // (The file's bytes that are not UTF-8 are `ArgumentBytes` escapes already, valid
            // UTF-8 here: a credential holding them is refused when used, never sent with U+FFFD.)
            let token = String(decoding: word, as: UTF8.self)
            let isValue = valueNext
            valueNext = !isValue && !quoted && ["machine", "login", "password", "account"].contains(token)
            if macroNext {
                macroNext = false
                out.append(token)
                inMacro = true
                // The macro name ends its line; the body starts on the next one.
                while i < bytes.endIndex, !isLineEnd(bytes, i) { i += 1 }
                i = skipLineEnd(bytes, i)
                if isLineEnd(bytes, i) { out.append(macroEnd); inMacro = false }
                continue
            }
            macroNext = !isValue && !quoted && token == "macdef"
            // The keyword is marked apart from a value that reads `macdef` (the parser takes the
            // word after a keyword as its value whatever it reads).
            out.append(macroNext ? macroStart : token)
        }
        return out
    }

    /// The credentials for `host`: its `machine` entry, else the `default` entry when
    /// `allowDefault` (swurl allows it for the first URL's host only, never for a redirect
    /// target, so a catch-all password never reaches a host the user did not name; CVE-2025-0167).
    /// - Parameter user: a user name the URL gave without a password: only an entry with that
    ///   login answers (its password), as in curl; a host may have one entry per login.
    package func credentials(forHost host: String, allowDefault: Bool, user: String? = nil) -> Credentials? {
        let key = HostName.bare(host).lowercased()
        let fits = { (e: Entry) in user == nil || e.login == user }
        // An entry with both first, then one with a login, then a password alone, as curl reads
        // on until it has both.
        let machine = entries.filter { $0.machine == key && fits($0) }
        let entry = machine.first { $0.login != nil && $0.password != nil } ?? machine.first { $0.login != nil } ?? machine.first
            ?? (allowDefault ? fallback.flatMap { fits($0) ? $0 : nil } : nil)
        // An entry with a password and no login sends an empty user name, as curl and HTTPie do.
        guard let entry, entry.login != nil || entry.password != nil else { return nil }
        return Credentials(user: entry.login ?? "", password: entry.password ?? "")
    }
}
