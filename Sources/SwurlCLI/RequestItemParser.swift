#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlCore

/// Turns `Header:value`, `name==value`, `key=value`, `key:=json`, `name@file` and their
/// `@file` forms into `RequestItem`s. Escapes are handled here, in one place: a backslash before
/// a separator character makes it literal; `\[` and `\]` stay escaped in data keys for the
/// nested-key parser.
public struct RequestItemParser {
    let environment: Environment

    public init(environment: Environment) { self.environment = environment }

    /// Parses one item.
    /// - Throws: `SwurlError.usage` for a malformed item, `.badData` for invalid JSON,
    ///   `.inputFile` for a file that cannot be read.
    public func parse(_ raw: String) throws(SwurlError) -> RequestItem {
        // Scalars, not Characters: `name=\u{301}x` must still split at '=' (the '=' and the
        // combining mark make one Character).
        let chars = Array(raw.unicodeScalars)
        var keyScalars = String.UnicodeScalarView()
        var i = 0
        var separator: ItemSeparator?
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
                separator = ItemSeparator.allCases.first { chars[i...].starts(with: $0.rawValue.unicodeScalars) }
                if let s = separator { i += s.rawValue.unicodeScalars.count }
                break
            }
            keyScalars.append(c)
            i += 1
        }
        let key = String(keyScalars)
        guard let separator else {
            throw .usage("'\(raw)' is not a request item",
                         hint: "use Header:value, name==query, field=value, field:=json or field@file")
        }
        let value = unescape(chars[i...])

        switch separator {
        case .header, .headerFile, .emptyHeader:
            try checkHeaderName(key, raw)
            if separator == .emptyHeader {
                guard value.isEmpty else {
                    throw .usage("'\(raw)': an empty-header item ends with ';' (got text after it)",
                                 hint: "write '\(key);' to send an empty \(key) header")
                }
                return RequestItem(raw: raw, kind: .emptyHeader(name: key))
            }
            if separator == .header && value.isEmpty {
                return RequestItem(raw: raw, kind: .removeHeader(name: key))
            }
            var text = separator == .headerFile ? try readText(value, raw) : value
            if separator == .headerFile { text = text.trimmingTrailingNewlines() }
            try HeaderValue.check(text, "'\(raw)'")
            return RequestItem(raw: raw, kind: .header(name: key, value: text.trimmingSpaces()))
        case .query, .queryFile:
            let text = separator == .queryFile ? try readText(value, raw).trimmingTrailingNewlines() : value
            return RequestItem(raw: raw, kind: .query(name: unescapeBrackets(key), value: text))
        case .field:
            return RequestItem(raw: raw, kind: .field(key: key, value: .string(value)))
        case .fieldFile:
            return RequestItem(raw: raw, kind: .field(key: key, value: .string(try readText(value, raw))))
        case .json, .jsonFile:
            let bytes = separator == .jsonFile ? try readBytes(value, raw) : Array(value.utf8)
            do {
                return RequestItem(raw: raw, kind: .field(key: key, value: try JSONParser.parse(bytes)))
            } catch {
                let source = separator == .jsonFile ? "file '\(value)'" : "'\(raw)'"
                throw .badData("invalid JSON in \(source): \(error.description)",
                               hint: separator == .json ? "quote the value for the shell, e.g. \(key):='[1, 2]'" : nil)
            }
        case .file:
            // An empty name (`@path`) sends the file as the whole body.
            let (path, mime, filename) = splitFileParameters(value)
            if path.isEmpty { throw .usage("'\(raw)': a file field needs a path after '@'") }
            if let mime { try HeaderValue.check(mime, "'\(raw)' (;type=)") }
            if let filename { try HeaderValue.check(filename, "'\(raw)' (;filename=)") }
            if let mime, !RequestItemParser.isMediaType(mime) {
                throw .usage("'\(raw)': '\(mime)' is not a media type", hint: "write ;type=text/plain (type/subtype)")
            }
            if path != "-" { _ = try fileSize(path, raw) }
            return RequestItem(raw: raw, kind: .file(key: key, path: path, mimeType: mime, filename: filename))
        }
    }

    private func unescape(_ chars: ArraySlice<Unicode.Scalar>) -> String {
        var out = String.UnicodeScalarView()
        var i = chars.startIndex
        while i < chars.endIndex {
            let c = chars[i]
            if c == "\\", i + 1 < chars.endIndex, ItemSeparator.leadCharacters.contains(chars[i + 1]) || chars[i + 1] == "\\" {
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
        let allowed = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        if let bad = name.first(where: { !allowed.contains($0) }) {
            throw .usage("'\(raw)': the header name '\(name)' contains '\(bad)', which a header name cannot hold")
        }
    }

    /// Whether `s` is `type/subtype` of token characters, optionally with `; name=value` parameters
    /// (no control characters, so it cannot inject a part header).
    static func isMediaType(_ s: String) -> Bool {
        let token = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        guard HeaderValue.forbiddenScalar(in: s) == nil else { return false }
        let base = s.split(separator: ";", maxSplits: 1).first.map(String.init) ?? s
        let parts = base.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count == 2 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { token.contains($0) } }
    }

    /// `path;type=MIME;filename=NAME` split into its parts.
    private func splitFileParameters(_ value: String) -> (String, String?, String?) {
        var path = value
        var mime: String?
        var filename: String?
        while let semi = path.lastIndex(of: ";") {
            let param = path[path.index(after: semi)...]
            if param.hasPrefix("type=") {
                mime = String(param.dropFirst(5))
            } else if param.hasPrefix("filename=") {
                filename = String(param.dropFirst(9))
            } else {
                break
            }
            path = String(path[..<semi])
        }
        return (path, mime, filename)
    }

    /// The size of a regular file the user named, or a clear error.
    func fileSize(_ path: String, _ raw: String) throws(SwurlError) -> Int64 {
        let full = environment.resolvePath(path)
        var st = stat()
        guard stat(full, &st) == 0 else {
            throw .inputFile("cannot read '\(path)' (from '\(raw)'): \(systemErrorMessage(errno))")
        }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            throw .inputFile("'\(path)' (from '\(raw)') is a directory, not a file")
        }
        guard access(full, R_OK) == 0 else {
            throw .inputFile("cannot read '\(path)' (from '\(raw)'): \(systemErrorMessage(errno))")
        }
        return (st.st_mode & S_IFMT) == S_IFREG ? Int64(st.st_size) : -1
    }

    private func readBytes(_ path: String, _ raw: String) throws(SwurlError) -> [UInt8] {
        if path.isEmpty { throw .usage("'\(raw)': a file name is needed after '@'") }
        _ = try fileSize(path, raw)
        do {
            return try readWholeFile(environment.resolvePath(path))
        } catch {
            throw .inputFile("cannot read '\(path)' (from '\(raw)'): \(error.message)")
        }
    }

    private func readText(_ path: String, _ raw: String) throws(SwurlError) -> String {
        let bytes = try readBytes(path, raw)
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw .badData("'\(path)' (from '\(raw)') is not UTF-8 text",
                           hint: "send binary files as file fields (name@\(path)) or as the whole body (@\(path))")
        }
        return text
    }
}
