#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlCore

/// Turns `Header:value`, `name==value`, `key=value`, `key:=json`, `name@file` and their
/// `@file` forms into `RequestItem`s. Escapes are handled here, in one place: a backslash before
/// a separator character makes it literal; `\[` and `\]` stay escaped in data keys for the
/// nested-key parser.
package struct RequestItemParser {
    let environment: Environment

    package init(environment: Environment) { self.environment = environment }

    /// Parses one item.
    /// - Throws: `SwurlError.usage` for a malformed item, `.badData` for invalid JSON,
    ///   `.inputFile` for a file that cannot be read.
    package func parse(_ given: String) throws(SwurlError) -> RequestItem {
        // What messages show of the item: a credential header's value never (a token read from
        // a file with a CR, a ';' typed for ':'), a line break as `\n` (a message's lines are
        // its own).
        let raw = TerminalSanitizer.clean(Redactor.item(given))
        // Scalars, not Characters: `name=\u{301}x` must still split at '=' (the '=' and the
        // combining mark make one Character).
        let chars = Array(given.unicodeScalars)
        let (key, found, i) = RequestItemParser.split(chars)
        guard let separator = found else {
            throw .usage("'\(raw)' is not a request item",
                         hint: "use Header:value, name==query, field=value, field:=json or field@file")
        }
        let value = unescape(chars[i...])
        try checkText(key: key, value: value, separator: separator, raw: raw)

        switch separator {
        case .header, .headerFile, .emptyHeader:
            try checkHeaderName(key, raw)
            if separator == .emptyHeader {
                guard value.isEmpty else {
                    throw .usage("'\(raw)': an empty-header item ends with ';' (got text after it)",
                                 hint: "write '\(key);' to send an empty \(key) header")
                }
                return RequestItem(raw: given, kind: .emptyHeader(name: key))
            }
            if separator == .header && value.isEmpty {
                return RequestItem(raw: given, kind: .removeHeader(name: key))
            }
            var text = separator == .headerFile ? try readText(value, raw) : value
            if separator == .headerFile { text = text.trimmingTrailingNewlines() }
            try HeaderValue.check(text, "'\(raw)'")
            // `Host:[v6` without its `]`: libcurl reads another name out of it for its cookies
            // than swurl does (a doubled last letter), so the cookies each server sees for the
            // name could not be told apart.
            let trimmed = text.trimmingSpaces()
            if key.lowercased() == "host", trimmed.utf8.first == UInt8(ascii: "["), !trimmed.utf8.contains(UInt8(ascii: "]")) {
                throw .usage("'\(raw)': an IPv6 address in a Host header needs its closing ']'", hint: "write it as Host:[::1]:8080")
            }
            return RequestItem(raw: given, kind: .header(name: key, value: trimmed))
        case .query, .queryFile:
            // A file's bytes that are not UTF-8 go percent-encoded as they are, as such bytes
            // typed in the value do (`ArgumentBytes`).
            let text = separator == .queryFile
                ? ArgumentBytes.decode(try readBytes(value, raw).withoutUTF8ByteOrderMark).trimmingTrailingNewlines() : value
            return RequestItem(raw: given, kind: .query(name: unescapeBrackets(key), value: text))
        case .field:
            return RequestItem(raw: given, kind: .field(key: key, value: .string(value)))
        case .fieldFile:
            return RequestItem(raw: given, kind: .field(key: key, value: .string(try readText(value, raw))))
        case .json, .jsonFile:
            // (RFC 8259 lets a parser skip a file's byte order mark, and Python's json does not.)
            let bytes = separator == .jsonFile ? try readBytes(value, raw).withoutUTF8ByteOrderMark : Array(value.utf8)
            do {
                return RequestItem(raw: given, kind: .field(key: key, value: try JSONParser.parse(bytes)))
            } catch {
                let source = separator == .jsonFile ? "file '\(value)' (from '\(raw)')" : "'\(raw)'"
                // A word that starts no JSON value (`email:=ann@example.org`, `a:=foo`) was meant
                // as text; a cut literal (`tru`) or a cut array was meant as JSON.
                // (JSON's own blanks before a value are skipped: pasted JSON often starts with a newline.)
                let start = value.drop { " \t\r\n".contains($0) }
                let literal = ["true", "false", "null"].contains { $0.hasPrefix(start) }
                let text = !literal && (start.utf8.first.map { !"{[\"-0123456789".utf8.contains($0) } ?? false)
                // What the shell does to JSON left unquoted: it eats the quotes (`{a:1}`) or
                // splits the value at a blank (`[1,` and `2]`: brackets left open). Other faults
                // are the JSON's own (`[1,]`, `01`), which quoting would not mend.
                let bytes = Array(value.utf8)
                func count(_ c: String) -> Int { bytes.lazy.filter { $0 == c.utf8.first }.count }
                let shellMangled = literal || (start.hasPrefix("{") && !bytes.contains(UInt8(ascii: "\"")))
                    || count("[") != count("]") || count("{") != count("}")
                throw .badData("invalid JSON in \(source): \(error.description)",
                               hint: separator != .json ? nil
                                   : text ? "a text value is the item \(key)=VALUE (':=' takes JSON: numbers, true, null, [1, 2], {\"a\": 1})"
                                   : shellMangled ? "quote the value for the shell, e.g. \(key):='[1, 2]'" : nil)
            }
        case .file:
            // An empty name (`@path`) sends the file as the whole body.
            let (path, mime, filename) = RequestItemParser.splitFileParameters(value)
            if path.isEmpty {
                throw .usage(key.isEmpty ? "'\(raw)': the body item needs a path after '@' (@FILE sends the file as the whole body)"
                             : "'\(raw)': a file field needs a path after '@'")
            }
            if let mime { try HeaderValue.check(mime, "'\(raw)' (;type=)") }
            if let filename { try HeaderValue.check(filename, "'\(raw)' (;filename=)") }
            if let mime, !RequestItemParser.isMediaType(mime) {
                throw .usage("'\(raw)': the ;type= is empty", hint: "write ;type=text/plain")
            }
            // `filename=""` is how a browser says no file was chosen (PHP and Rails read it so).
            if let filename, filename.trimmingSpaces().isEmpty {
                throw .usage("'\(raw)': the ;filename= is empty", hint: "leave ;filename= out to send the file's own name")
            }
            // A whole body has no part to name: the name went nowhere, unsaid.
            if key.isEmpty, filename != nil {
                throw .usage("'\(raw)': ;filename= names a multipart part's file, and '@\(path)' is the whole body",
                             hint: "send it as a part, NAME@\(path);filename=…, with --multipart; or leave ;filename= out")
            }
            if path != "-" { _ = try fileSize(path, raw) }
            return RequestItem(raw: given, kind: .file(key: key, path: path, mimeType: mime, filename: filename))
        }
    }

    /// Bytes that are not UTF-8 (`ArgumentBytes`) may stand only in file paths and query values
    /// (percent-encoded); names, headers and field values are text, refused rather than rewritten.
    private func checkText(key: String, value: String, separator: ItemSeparator, raw: String) throws(SwurlError) {
        let shown = ArgumentBytes.shown(raw)
        // A query's name, as its value, may hold bytes that are not UTF-8: they are
        // percent-encoded as they are.
        if ArgumentBytes.hasEscapes(key) && separator != .query && separator != .queryFile {
            throw .usage("'\(shown)': the name is not valid UTF-8 text", hint: "names must be UTF-8 text")
        }
        guard ArgumentBytes.hasEscapes(value) else { return }
        switch separator {
        case .headerFile, .queryFile, .fieldFile, .jsonFile, .query:
            return
        case .file:
            let (_, mime, _) = RequestItemParser.splitFileParameters(value)
            if let mime, ArgumentBytes.hasEscapes(mime) {
                throw .usage("'\(shown)': the ;type= is not valid UTF-8 text")
            }
        case .header, .emptyHeader:
            throw .usage("'\(shown)': the header value is not valid UTF-8 text",
                         hint: "swurl does not rewrite bytes; send binary data as a body (@file)")
        case .field, .json:
            throw .badData("'\(shown)': the value is not valid UTF-8 text, which a field must be",
                           hint: "send binary data as a file field (name@file) or as the whole body (@file)")
        }
    }

    /// An item's key (unescaped), its first unescaped separator (nil when it has none) and where
    /// its value starts.
    static func split(_ chars: [Unicode.Scalar]) -> (key: String, separator: ItemSeparator?, valueStart: Int) {
        var keyScalars = String.UnicodeScalarView()
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if c == "\\", i + 1 < chars.count {
                let next = chars[i + 1]
                if ItemSeparator.leadCharacters.contains(next) || next == "\\" {
                    keyScalars.append(next)
                } else {
                    keyScalars.append(c)
                    keyScalars.append(next)
                }
                i += 2
                continue
            }
            if ItemSeparator.leadCharacters.contains(c) {
                let separator = ItemSeparator.allCases.first { chars[i...].starts(with: $0.rawValue.unicodeScalars) }
                return (String(keyScalars), separator, i + (separator?.rawValue.unicodeScalars.count ?? 0))
            }
            keyScalars.append(c)
            i += 1
        }
        return (String(keyScalars), nil, i)
    }

    /// The file an item reads as it is parsed (`name=@FILE`, `name:=@FILE`, `Header:@FILE`,
    /// `name==@FILE`; `-` is a file named so there), as given; nil for any other item.
    static func readsAtParse(_ given: String) -> String? {
        let chars = Array(given.unicodeScalars)
        let (_, separator, start) = split(chars)
        switch separator {
        case .jsonFile?, .headerFile?, .queryFile?, .fieldFile?: return RequestItemParser.unescaped(chars[start...])
        default: return nil
        }
    }

    /// `readsAtParse`, or the file of a whole body read ahead as the request is built (`@FILE`,
    /// without its `;type=`; `-` is stdin there); nil for any other item, or a word that is none.
    static func readsAhead(_ given: String) -> String? {
        if let path = readsAtParse(given) { return path }
        let chars = Array(given.unicodeScalars)
        let (key, separator, start) = split(chars)
        guard separator == .file, key.isEmpty else { return nil }
        return splitFileParameters(RequestItemParser.unescaped(chars[start...])).0
    }

    private func unescape(_ chars: ArraySlice<Unicode.Scalar>) -> String { RequestItemParser.unescaped(chars) }

    /// A value's escapes: `\` before a separator's first character stands for that character;
    /// any other backslash, `\\` included, is kept as typed, as HTTPie keeps it (a regular
    /// expression's `\\d`, a Windows path), unlike a name's, where `\\` is one backslash.
    private static func unescaped(_ chars: ArraySlice<Unicode.Scalar>) -> String {
        var out = String.UnicodeScalarView()
        var i = chars.startIndex
        while i < chars.endIndex {
            let c = chars[i]
            if c == "\\", i + 1 < chars.endIndex {
                // A pair at a time: `\\=` is a kept `\\` and then `=`.
                if !ItemSeparator.leadCharacters.contains(chars[i + 1]) { out.append(c) }
                out.append(chars[i + 1])
                i += 2
                continue
            }
            out.append(c)
            i += 1
        }
        return String(out)
    }

    private func unescapeBrackets(_ s: String) -> String {
        s.replacingAll("\\[", with: "[").replacingAll("\\]", with: "]")
    }

    private func checkHeaderName(_ name: String, _ raw: String) throws(SwurlError) {
        if name.isEmpty {
            throw .usage("'\(raw)': the header name is empty", hint: "write Name:value")
        }
        // By scalar: a Set of Characters matches by canonical equivalence, and took U+212A
        // (KELVIN SIGN) for `K`, U+1FEF for '`' (libcurl sends their bytes, a non-token name).
        let allowed = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".unicodeScalars)
        if let bad = name.unicodeScalars.first(where: { !allowed.contains($0) }) {
            let code = bad.isASCII ? "" : " (\(bad.codePoint))"
            // A credential's name mistyped (`Proxy\-Authorization:…`, a blank before it or in it)
            // still holds the credential, in the item and maybe in what reads as its name
            // (`Authorization Bearer TOKEN:…`): the message, which batch reports and --jsonl
            // repeat, cuts both after the credential's name.
            throw .usage("'\(Redactor.mistypedCredential(raw) ?? raw)': the header name '\(Redactor.mistypedCredential(name) ?? name)' contains '\(bad)'\(code), which a header name cannot hold")
        }
    }

    /// Whether `s` can stand as a part's media type: anything a header line can hold, with its
    /// parameters (`type=data`, `text/plain; charset=utf-8`), as curl and HTTPie send it; only
    /// bytes that would break the header (CR, LF, NUL, controls) are refused.
    static func isMediaType(_ s: String) -> Bool {
        !s.trimmingSpaces().isEmpty && HeaderValue.forbiddenScalar(in: s) == nil
    }

    /// `path;type=MIME;filename=NAME` split into its parts: the path ends at the first `;type=`
    /// or `;filename=`, and each parameter runs to the next one, so a media type keeps its own
    /// parameters (`;type=text/plain;charset=utf-8`).
    private static func splitFileParameters(_ value: String) -> (String, String?, String?) {
        let scalars = Array(value.unicodeScalars)
        let markers: [(String, Array<Unicode.Scalar>)] = [("type", Array(";type=".unicodeScalars)),
                                                          ("filename", Array(";filename=".unicodeScalars))]
        var starts: [(index: Int, name: String, length: Int)] = []
        var i = 0
        while i < scalars.count {
            if scalars[i] == ";", let m = markers.first(where: { scalars[i...].starts(with: $0.1) }),
               !starts.contains(where: { $0.name == m.0 }) {
                starts.append((i, m.0, m.1.count))
                i += m.1.count
                continue
            }
            i += 1
        }
        guard let first = starts.first else { return (value, nil, nil) }
        func text(_ a: Int, _ b: Int) -> String {
            var v = String.UnicodeScalarView()
            v.append(contentsOf: scalars[a..<b])
            return String(v)
        }
        var mime: String?
        var filename: String?
        for (n, start) in starts.enumerated() {
            let end = n + 1 < starts.count ? starts[n + 1].index : scalars.count
            let v = text(start.index + start.length, end)
            if start.name == "type" { mime = v } else { filename = v }
        }
        return (text(0, first.index), mime, filename)
    }

    /// The size of a regular file the user named, or a clear error.
    func fileSize(_ path: String, _ raw: String) throws(SwurlError) -> Int64 {
        let full = environment.resolvePath(path)
        var st = stat()
        guard stat(ArgumentBytes.path(full), &st) == 0 else {
            throw .inputFile("cannot read '\(path)' (from '\(raw)'): \(systemErrorMessage(errno))")
        }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            throw .inputFile("'\(path)' (from '\(raw)') is a directory, not a file")
        }
        guard access(ArgumentBytes.path(full), R_OK) == 0 else {
            throw .inputFile("cannot read '\(path)' (from '\(raw)'): \(systemErrorMessage(errno))")
        }
        // A file of /proc or /sys says 0 or 4096 whatever it holds: read to its end, as a pipe is.
        return (st.st_mode & S_IFMT) == S_IFREG && RegularFile.sizeIsTrue(path: ArgumentBytes.path(full), st) ? Int64(st.st_size) : -1
    }

    /// How much an `=@`, `:=@` or `:@` item may read: its value is held, and copied by the
    /// serializer (1 GiB, or a sixteenth of a memory limit), so an endless source (`=@/dev/zero`)
    /// is an error, not a crash when memory runs out.
    static let itemFileLimit = MemoryLimit.bound(1 << 30, perUnit: 4)

    private func readBytes(_ path: String, _ raw: String) throws(SwurlError) -> [UInt8] {
        if path.isEmpty { throw .usage("'\(raw)': a file name is needed after '@'") }
        _ = try fileSize(path, raw)
        do {
            return try SmallFile.read(environment.resolvePath(path), maxSize: Self.itemFileLimit)
        } catch {
            throw .inputFile("cannot read '\(path)' (from '\(raw)'): \(error.message)",
                             hint: error.message.hasPrefix("larger than") ? "an item's value is held in memory; send a large file as the body (@\(path)) or as a file field (name@\(path)), which stream" : nil)
        }
    }

    private func readText(_ path: String, _ raw: String) throws(SwurlError) -> String {
        // A Windows editor's byte order mark is no part of the value (it went into headers and
        // queries as three invisible bytes).
        let bytes = try readBytes(path, raw).withoutUTF8ByteOrderMark
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw .badData("'\(path)' (from '\(raw)') is not UTF-8 text",
                           hint: "send binary files as file fields (name@\(path)) or as the whole body (@\(path))")
        }
        return text
    }
}
