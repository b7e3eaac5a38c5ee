// A model of curl 7.88's `-F`/`--form-string` argument parser (the curl tool's formparse), written
// from curl's documentation of `-F` and checked against /usr/bin/curl by CurlFormModelTests. The
// `curl-export` fuzz target (FuzzHarnesses.swift; a symlink in Fuzz/Harnesses points here) reads
// what `--curl` prints back with it. Bytes throughout: curl parses the argument's bytes.
//
// The grammar, as documented and measured:
// - `name=content`: the name is everything before the first `=`, taken as is (empty: no name);
//   no `=` at all is an error.
// - `--form-string`: the content is taken literally.
// - `-F name=@file;type=…;filename=…;headers=@FILE;headers=TEXT;encoder=…,file2;…`: files, `,`
//   between them (several make one multipart/mixed part); `name=<file` reads a file as text;
//   `name=(` opens a subpart list and `=)` closes it; anything else is text with parameters.
// - A word (file, filename, headers, encoder) skips leading blanks; `"…"` quotes it, with `\"`
//   and `\\` unescaped inside and anything after the closing quote up to `;`/`,` ignored; an
//   unquoted word runs to `;` (or `,` in a file list) and loses trailing blanks; an unclosed
//   quote reads as unquoted.
// - `type=` (not quotable): blanks skipped, then `%127[^/ ]/%127[^;, \n]` must match; the type
//   then runs on over `;` segments that do not start (blanks skipped, any case) with
//   `filename=`, `headers=` or `encoder=`, up to its last non-blank byte.
// - Names and filenames on the wire: `"` as `%22`, CR as `%0D`, LF as `%0A`; with
//   `--form-escape`, `\` and `"` get a backslash instead (CR and LF then go out raw).

/// One `-F` argument as curl reads it.
struct CurlFormModel: Equatable {
    /// One file of a `@` list.
    struct File: Equatable {
        var path: [UInt8]
        var type: [UInt8]?
        var filename: [UInt8]?
        /// `headers=@FILE` (true) or `headers=TEXT` (false), in order.
        var headers: [(file: Bool, text: [UInt8])] = []
        var encoder: [UInt8]?

        static func == (a: File, b: File) -> Bool {
            a.path == b.path && a.type == b.type && a.filename == b.filename && a.encoder == b.encoder
                && a.headers.map(\.file) == b.headers.map(\.file) && a.headers.map(\.text) == b.headers.map(\.text)
        }
    }

    enum Content: Equatable {
        /// Text given in the argument (a `--form-string` value, or `-F name=text`).
        case text([UInt8])
        /// `@file[,file…]`: uploaded files.
        case files([File])
        /// `<file`: a file's content sent as the value.
        case fileText(File)
        /// `(` or `)`: a subpart list opens or closes.
        case subparts
    }

    /// nil when the name is empty (curl sends the part with no name).
    var name: [UInt8]?
    var content: Content
    /// For `.text`: the type, filename, headers and encoder given after `;` (the file parameters
    /// of `.files` are in each `File`).
    var parameters = File(path: [])

    struct Refused: Error, Equatable { var reason: String }

    // MARK: Parsing

    /// Reads one argument of `-F` (literal false) or `--form-string` (literal true).
    static func parse(_ argument: [UInt8], literal: Bool) throws(Refused) -> CurlFormModel {
        guard let eq = argument.firstIndex(of: UInt8(ascii: "=")) else { throw Refused(reason: "Illegally formatted input field") }
        let name = eq == 0 ? nil : Array(argument[..<eq])
        let rest = Array(argument[(eq + 1)...])
        if literal { return CurlFormModel(name: name, content: .text(rest)) }
        if rest.first == UInt8(ascii: "(") || name == nil && rest == Array(")".utf8) {
            return CurlFormModel(name: name, content: .subparts)
        }
        var p = 0
        if rest.first == UInt8(ascii: "@") {
            var files: [File] = []
            var sep: UInt8 = 0
            repeat {
                p += 1
                let part = try paramPart(rest, &p, endchar: UInt8(ascii: ","))
                files.append(part.file)
                sep = part.sep
            } while sep != 0
            return CurlFormModel(name: name, content: .files(files))
        }
        if rest.first == UInt8(ascii: "<") {
            p = 1
            return CurlFormModel(name: name, content: .fileText(try paramPart(rest, &p, endchar: 0).file))
        }
        let part = try paramPart(rest, &p, endchar: 0)
        var parameters = part.file
        let text = parameters.path
        parameters.path = []
        return CurlFormModel(name: name, content: .text(text), parameters: parameters)
    }

    static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || (0x09...0x0D).contains(b) }

    static func byte(_ s: [UInt8], _ i: Int) -> UInt8 { i < s.count ? s[i] : 0 }

    static func hasPrefix(_ s: [UInt8], _ at: Int, _ word: String) -> Bool {
        let w = Array(word.utf8)
        guard at + w.count <= s.count else { return false }
        return zip(s[at..<(at + w.count)], w).allSatisfy { a, b in
            (a >= 0x41 && a <= 0x5A ? a + 0x20 : a) == b
        }
    }

    /// A word at `p`: quoted or not; `p` ends at the `;`, `endchar` or the end after it. Returns
    /// the word and whether it was quoted.
    static func word(_ s: [UInt8], _ p: inout Int, endchar: UInt8) -> (word: [UInt8], quoted: Bool) {
        func isEnd(_ b: UInt8) -> Bool { b == 0 || b == UInt8(ascii: ";") || (endchar != 0 && b == endchar) }
        let begin = p
        if byte(s, p) == UInt8(ascii: "\"") {
            var q = p + 1
            var out: [UInt8] = []
            while q < s.count {
                let c = s[q]
                if c == UInt8(ascii: "\\"), byte(s, q + 1) == UInt8(ascii: "\\") || byte(s, q + 1) == UInt8(ascii: "\"") {
                    out.append(s[q + 1]); q += 2; continue
                }
                if c == UInt8(ascii: "\"") {
                    q += 1
                    while q < s.count && !isEnd(s[q]) { q += 1 }
                    p = q
                    return (out, true)
                }
                out.append(c); q += 1
            }
            // No closing quote: read as unquoted.
        }
        var q = begin
        while q < s.count && !isEnd(s[q]) { q += 1 }
        p = q
        return (Array(s[begin..<q]), false)
    }

    /// A word after its blanks were skipped, trailing blanks dropped when unquoted.
    static func trimmedWord(_ s: [UInt8], _ p: inout Int, endchar: UInt8) -> [UInt8] {
        var (w, quoted) = word(s, &p, endchar: endchar)
        if !quoted { while let last = w.last, isSpace(last) { w.removeLast() } }
        return w
    }

    /// One content word and its `;` parameters, up to `endchar` (`,` in a file list) or the end.
    static func paramPart(_ s: [UInt8], _ p: inout Int, endchar: UInt8) throws(Refused) -> (file: File, sep: UInt8) {
        func isEnd(_ b: UInt8) -> Bool { b == 0 || b == UInt8(ascii: ";") || (endchar != 0 && b == endchar) }
        while p < s.count && isSpace(s[p]) { p += 1 }
        var file = File(path: trimmedWord(s, &p, endchar: endchar))
        var sep = byte(s, p)
        // The type being read: its start and where it ends so far (curl's `endct`).
        var typeStart = 0
        var typeEnd: Int?
        func closeType() {
            if let end = typeEnd { file.type = Array(s[typeStart..<end]); typeEnd = nil }
        }
        /// Runs to the next `;`/endchar from `p`; the type ends after the last non-blank byte.
        func extendType() {
            typeEnd = p
            while p < s.count && !isEnd(s[p]) {
                if !isSpace(s[p]) { typeEnd = p + 1 }
                p += 1
            }
            sep = byte(s, p)
        }
        while sep == UInt8(ascii: ";") {
            p += 1
            while p < s.count && isSpace(s[p]) { p += 1 }
            if typeEnd == nil && hasPrefix(s, p, "type=") {
                p += 5
                while p < s.count && isSpace(s[p]) { p += 1 }
                typeStart = p
                // sscanf("%127[^/ ]/%127[^;, \n]")
                var q = p
                while q < s.count && q - p < 127 && s[q] != UInt8(ascii: "/") && s[q] != UInt8(ascii: " ") { q += 1 }
                let major = q - p
                guard major > 0, byte(s, q) == UInt8(ascii: "/") else { throw Refused(reason: "Illegally formatted content-type field") }
                q += 1
                let minorStart = q
                while q < s.count && q - minorStart < 127 && !Array(";, \n".utf8).contains(s[q]) { q += 1 }
                guard q > minorStart else { throw Refused(reason: "Illegally formatted content-type field") }
                p = q
                extendType()
            } else if hasPrefix(s, p, "filename=") {
                closeType()
                p += 9
                while p < s.count && isSpace(s[p]) { p += 1 }
                file.filename = trimmedWord(s, &p, endchar: endchar)
                sep = byte(s, p)
            } else if hasPrefix(s, p, "headers=") {
                closeType()
                p += 8
                let fromFile = byte(s, p) == UInt8(ascii: "@") || byte(s, p) == UInt8(ascii: "<")
                if fromFile { p += 1 }
                while p < s.count && isSpace(s[p]) { p += 1 }
                file.headers.append((fromFile, trimmedWord(s, &p, endchar: endchar)))
                sep = byte(s, p)
            } else if hasPrefix(s, p, "encoder=") {
                closeType()
                p += 8
                while p < s.count && isSpace(s[p]) { p += 1 }
                file.encoder = trimmedWord(s, &p, endchar: endchar)
                sep = byte(s, p)
            } else if typeEnd != nil {
                extendType()
            } else {
                // An unknown parameter: skipped.
                _ = word(s, &p, endchar: endchar)
                sep = byte(s, p)
            }
        }
        closeType()
        return (file, sep)
    }

    // MARK: The wire

    /// A name or filename as curl writes it inside Content-Disposition's quotes.
    static func wire(_ text: [UInt8], formEscape: Bool) -> [UInt8] {
        var out: [UInt8] = []
        for b in text {
            switch b {
            case UInt8(ascii: "\\") where formEscape: out += Array("\\\\".utf8)
            case UInt8(ascii: "\"") where formEscape: out += Array("\\\"".utf8)
            case UInt8(ascii: "\""): out += Array("%22".utf8)
            case 0x0D where !formEscape: out += Array("%0D".utf8)
            case 0x0A where !formEscape: out += Array("%0A".utf8)
            default: out.append(b)
            }
        }
        return out
    }
}
