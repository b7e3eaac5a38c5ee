import SwurlOutput
import SwurlCurl
import SwurlCore
/// `swurl batch --output-dir DIR --name-template TEMPLATE`: the file name of each line's body.
/// Placeholders: `{line}` (the input line number), `{host}` (lower-cased), `{port}` (explicit or the scheme's
/// default), `{path}` (percent-decoded, without the query), `{method}` and `{status}` (the final
/// response's). Host, port and path are the URL of the line as typed, never a redirect target's
/// (as for download names, CVE-2019-10751). Every `/` and `\` a value brings becomes `_`, and the
/// result gets the download-name rules (`DownloadName.sanitize`): no control or bidirectional
/// characters, no leading dots or white space (no hidden file, never `.` or `..`), at most 200
/// bytes. So every name is one plain file directly in DIR.
struct BatchNameTemplate {
    enum Piece: Equatable { case text(String), line, host, port, path, method, status }

    let pieces: [Piece]
    /// Whether a name waits for the response (`{status}`).
    var usesStatus: Bool { pieces.contains(.status) }
    static let placeholders: [String: Piece] = [
        "line": .line, "host": .host, "port": .port, "path": .path, "method": .method, "status": .status,
    ]

    /// - Throws: `SwurlError.usage` for an unknown placeholder, a `{` without its `}`, or a `/`
    ///   in the template's own text (names never reach outside DIR).
    init(_ template: String) throws(SwurlError) {
        let shown = TerminalSanitizer.clean(template)
        let names = BatchNameTemplate.placeholders.keys.sorted().map { "{\($0)}" }.joined(separator: " ")
        var pieces: [Piece] = []
        var text = ""
        var rest = Substring(template)
        while let c = rest.first {
            rest = rest.dropFirst()
            if c == "/" || c == "\\" {
                throw .usage("--name-template '\(shown)': a name cannot contain '\(c)'; every body is a file directly in --output-dir",
                             hint: "placeholders: \(names)")
            }
            guard c == "{" else { text.append(c); continue }
            guard let close = rest.firstIndex(of: "}") else {
                throw .usage("--name-template '\(shown)': '{' without a closing '}'", hint: "placeholders: \(names)")
            }
            let name = String(rest[..<close])
            guard let piece = BatchNameTemplate.placeholders[name] else {
                throw .usage("--name-template '\(shown)': unknown placeholder '{\(TerminalSanitizer.clean(name))}'",
                             hint: "placeholders: \(names)")
            }
            if !text.isEmpty { pieces.append(.text(text)); text = "" }
            pieces.append(piece)
            rest = rest[rest.index(after: close)...]
        }
        if !text.isEmpty { pieces.append(.text(text)) }
        guard pieces.contains(where: { if case .text = $0 { return false } else { return true } }) else {
            throw .usage("--name-template '\(shown)' has no placeholder, so every line would get the same name",
                         hint: "placeholders: \(names)")
        }
        self.pieces = pieces
    }

    /// The sanitized name for one line; nil when nothing usable is left (only dots, spaces or
    /// control characters).
    func name(line: Int, method: String, url: String, status: Int?) -> String? {
        let parsed = try? CurlURL(parsing: url)
        var out = ""
        for piece in pieces {
            switch piece {
            case .text(let t): out += t
            case .line: out += String(line)
            case .method: out += BatchNameTemplate.flat(method)
            case .status: out += status.map(String.init) ?? "none"
            case .host: out += BatchNameTemplate.flat(parsed?.host.lowercased() ?? "unknown")
            case .port:
                let scheme = parsed?.scheme.lowercased()
                out += String(parsed?.port ?? (scheme == "https" ? 443 : 80))
            case .path:
                let path = String(decoding: URLText.percentDecodedBytes(parsed?.path ?? "/"), as: UTF8.self)
                out += BatchNameTemplate.flat(path)
            }
        }
        return DownloadName.sanitize(out)
    }

    /// A value with its path separators made harmless.
    private static func flat(_ s: String) -> String {
        // By scalars: a `/` followed by a combining mark is one Character unequal to "/".
        String(String.UnicodeScalarView(s.unicodeScalars.map { $0 == "/" || $0 == "\\" ? "_" : $0 }))
    }

    /// `name` unless this batch already wrote a body under it; otherwise the line number goes
    /// in before the extension (`a.json` → `a-7.json`), then `-2`, `-3`… if that is taken too.
    static func unclaimed(_ name: String, line: Int, taken: (String) -> Bool) -> String {
        guard taken(name) else { return name }
        var stem = Substring(name), ext = Substring("")
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            stem = name[..<dot]
            ext = name[dot...]
        }
        var candidate = "\(stem)-\(line)\(ext)"
        var n = 2
        while taken(candidate) {
            candidate = "\(stem)-\(line)-\(n)\(ext)"
            n += 1
        }
        return candidate
    }
}
