/// The one shell-word splitter for every door that reads words from text — the config file,
/// batch lines, REPL lines — so a line means what it would mean typed after `swurl` in a POSIX
/// shell. It works on bytes, and words are decoded as argv is (`ArgumentBytes.decode`): a byte
/// that is not UTF-8 stays that byte, as in a one-shot argument.
///
/// The rules: blanks (space, tab, CR) separate words; a newline ends a line; `#` at the start
/// of a word comments out the rest of the line; `'…'` is literal; inside `"…"` a backslash
/// escapes only `"`, `\`, `$`, `` ` `` and a newline (and is kept before anything else); outside
/// quotes a backslash takes the next byte as it is, and a backslash before a newline joins the
/// lines; a byte order mark before a line's first word is skipped. Nothing is expanded (`$`,
/// `` ` ``, `~`, globs stay as they are). A NUL byte cannot be part of an argument and is refused.
package enum ShellWords {
    /// What is wrong with the text, and on which line (counted from 1).
    package struct SyntaxError: Error, Equatable, Sendable {
        package let line: Int
        package let message: String
        /// Whether the text ended inside a quote (what a next line could close), not a fault.
        package var leftQuoteOpen: Bool { message.hasPrefix("unterminated ") }
    }

    /// One line's words, numbered by the line it starts on.
    package struct Line: Equatable, Sendable {
        package let number: Int
        package let words: [String]
        /// Per word, how many of its leading bytes were written bare: before its first quote or
        /// backslash (a quoted `'<x/>'` has none; `>out` all). What a shell would take for an
        /// operator is only ever bare.
        package let bareLengths: [Int]
    }

    /// The lines of `bytes` that hold words (blank and comment-only lines are left out).
    /// - Throws: `SyntaxError` for an unterminated quote or a NUL byte.
    package static func lines(_ bytes: some Collection<UInt8>) throws(SyntaxError) -> [Line] {
        var splitter = Splitter(bytes: Array(bytes))
        return try splitter.run()
    }

    /// The words of one line of text (a REPL or batch line, a String as read): all its words,
    /// over every line it holds.
    /// - Throws: `SwurlError.usage` naming the problem.
    package static func words(_ text: String) throws(SwurlError) -> [String] {
        if let plain = plainWords(text) { return plain }
        do {
            // Split its bytes (escapes as the bytes they stand for), decoded per word as argv is.
            return try lines(ArgumentBytes.bytes(text)).flatMap(\.words)
        } catch {
            throw .usage(error.message)
        }
    }

    /// `words(text)`, each with its bare leading part (see `Line.bareLengths`), decoded.
    /// - Throws: as `words`.
    package static func wordsWithBarePrefixes(_ text: String) throws(SwurlError) -> [(word: String, bare: String)] {
        if let plain = plainWords(text) { return plain.map { ($0, $0) } }
        let split: [Line]
        do { split = try lines(ArgumentBytes.bytes(text)) } catch { throw .usage(error.message) }
        return split.flatMap { line in
            zip(line.words, line.bareLengths).map { word, n in (word, ArgumentBytes.decode(Array(ArgumentBytes.bytes(word).prefix(n)))) }
        }
    }

    /// The words of text of printable ASCII without quotes, backslashes or `#` (most batch
    /// lines), split at blanks; nil for any other text.
    static func plainWords(_ text: String) -> [String]? {
        var words: [String] = []
        var start: String.UTF8View.Index?
        let u = text.utf8
        var i = u.startIndex
        while i != u.endIndex {
            let b = u[i]
            if b == 0x20 || b == 0x09 {
                if let s = start { words.append(String(text[s..<i])); start = nil }
            } else {
                guard b > 0x20, b < 0x7F, b != UInt8(ascii: "'"), b != UInt8(ascii: "\""), b != UInt8(ascii: "\\"),
                      b != UInt8(ascii: "#") else { return nil }
                if start == nil { start = i }
            }
            i = u.index(after: i)
        }
        if let s = start { words.append(String(text[s..<u.endIndex])) }
        return words
    }

    private struct Splitter {
        let bytes: [UInt8]
        var i = 0
        var line = 1, start = 1
        var out: [Line] = []
        var words: [String] = []
        var bareLengths: [Int] = []
        var word: [UInt8] = []
        /// The word's length when its first quote or backslash came (nil: none yet).
        var bareEnd: Int?
        var inWord = false

        init(bytes: [UInt8]) { self.bytes = bytes }

        func fail(_ what: String) -> SyntaxError { SyntaxError(line: line, message: what) }

        mutating func endWord() {
            guard inWord else { return }
            words.append(ArgumentBytes.decode(word))
            bareLengths.append(bareEnd ?? word.count)
            word = []
            bareEnd = nil
            inWord = false
        }

        /// A quote or backslash: what follows in the word is not bare.
        mutating func quoting() {
            if bareEnd == nil { bareEnd = word.count }
        }

        mutating func endLine() {
            endWord()
            if !words.isEmpty { out.append(Line(number: start, words: words, bareLengths: bareLengths)) }
            words = []
            bareLengths = []
        }

        mutating func run() throws(SyntaxError) -> [Line] {
            while i < bytes.count {
                let b = bytes[i]
                i += 1
                switch b {
                case 0:
                    throw fail("a NUL byte cannot be part of an argument")
                case UInt8(ascii: "\n"):
                    endLine()
                    line += 1
                    start = line
                case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                    endWord()
                case UInt8(ascii: "#") where !inWord:
                    while i < bytes.count && bytes[i] != UInt8(ascii: "\n") { i += 1 }
                case UInt8(ascii: "\\"):
                    // A backslash at the very end stays a backslash (there is nothing to escape).
                    guard i < bytes.count else { inWord = true; word.append(b); break }
                    if bytes[i] == UInt8(ascii: "\n") {
                        line += 1
                    } else if bytes[i] == 0 {
                        throw fail("a NUL byte cannot be part of an argument")
                    } else {
                        inWord = true
                        quoting()
                        word.append(bytes[i])
                    }
                    i += 1
                case UInt8(ascii: "'"):
                    inWord = true
                    quoting()
                    guard let close = bytes[i...].firstIndex(of: UInt8(ascii: "'")) else { throw fail("unterminated ' quote") }
                    for c in bytes[i..<close] {
                        if c == UInt8(ascii: "\n") { line += 1 }
                        if c == 0 { throw fail("a NUL byte cannot be part of an argument") }
                    }
                    word += bytes[i..<close]
                    i = close + 1
                case UInt8(ascii: "\""):
                    inWord = true
                    quoting()
                    try doubleQuoted()
                case 0xEF where !inWord && words.isEmpty && i + 1 < bytes.count && bytes[i] == 0xBB && bytes[i + 1] == 0xBF:
                    // A byte order mark before a line's first word (a file saved by Notepad, a
                    // script piped from one) is no part of it, in every door.
                    i += 2
                default:
                    inWord = true
                    word.append(b)
                }
            }
            endLine()
            return out
        }

        /// After an opening `"`: up to and including the closing one.
        mutating func doubleQuoted() throws(SyntaxError) {
            // An unterminated quote is reported on the line it opened on, as a `'` is.
            let opened = line
            while i < bytes.count {
                let c = bytes[i]
                i += 1
                if c == UInt8(ascii: "\"") { return }
                if c == 0 { throw fail("a NUL byte cannot be part of an argument") }
                if c == UInt8(ascii: "\n") { line += 1 }
                if c == UInt8(ascii: "\\"), i < bytes.count,
                   [UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "$"), UInt8(ascii: "`"), UInt8(ascii: "\n")].contains(bytes[i]) {
                    if bytes[i] == UInt8(ascii: "\n") { line += 1 } else { word.append(bytes[i]) }
                    i += 1
                    continue
                }
                word.append(c)
            }
            line = opened
            throw fail("unterminated \" quote")
        }
    }
}
