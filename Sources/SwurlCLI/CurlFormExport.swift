import SwurlCore
import SwurlRequestSerialization

/// The multipart parts of `--curl` as curl's `-F`/`--form-string` arguments, written so that
/// curl 7.88's `-F` parser reads back exactly the name, file, type and filename swurl sends:
///
/// - A name runs to the first `=` and is taken as is (no quoting): a name holding `=`, or an
///   empty one (curl then sends no name at all), is refused.
/// - Paths and filenames are always double-quoted (`\"` and `\\` inside), so `;`, `,`, `"`, `\`
///   and leading or trailing blanks stay theirs (unquoted, curl splits and trims them).
/// - A type cannot be quoted: it is written as is when curl's `type=` reading gives the same
///   text back, else refused (a `,`, a `;headers=`/`;filename=`/`;encoder=` in it, blanks at
///   its ends, no `major/minor` start, controls).
/// - Names and filenames are given to curl with their controls (and a last `\`) already as
///   `%XX`; curl's own escaping of the rest (`"` as `%22`, any other `\` as it is) is swurl's.
/// Field values go through `--form-string`, which takes the value literally.
extension CurlCommandExport {
    /// One printed `--form` or `--form-string` argument.
    struct FormArgument: Equatable {
        var option: String
        var value: String
    }

    /// The arguments for `parts`, and the warnings.
    /// - Throws: `SwurlError.usage` naming the part and why curl's `-F` cannot send it the same.
    static func formArguments(_ parts: [MultipartRequestSerializer.Part]) throws(SwurlError)
        -> (arguments: [FormArgument], warnings: [String]) {
        var arguments: [FormArgument] = []
        var warnings: [String] = []
        for part in parts {
            switch part {
            case .field(let name, let value):
                let shown = "field '\(name)'"
                let n = try formName(name, part: shown)
                let v = value ?? ""
                if v.unicodeScalars.contains("\u{0}") {
                    throw refusal(shown, "its value holds a NUL byte, which no command-line argument can")
                }
                arguments.append(FormArgument(option: "--form-string", value: "\(n)=\(v)"))
            case .file(let file):
                let shown = "'\(ArgumentBytes.shown(file.label))'"
                let n = try formName(file.name, part: shown)
                let type = try formType(file.contentType, part: shown)
                let filename = formQuoted(wireText(file.filename))
                let source: String
                switch file.source {
                case .file(let path, _), .held(let path, _):
                    if path.unicodeScalars.contains("\u{0}") { throw refusal(shown, "its path holds a NUL byte") }
                    // An empty one (an empty file, read to its end) curl sends the same.
                    if case .held(_, let bytes) = file.source, !bytes.isEmpty {
                        warnings.append("send the part '\(file.name)' whole: curl takes the size of '\(path)' from the file system, which says 0 or 4096 for it, and sends that much")
                    }
                    // Only the bare `-` means stdin to curl.
                    source = formQuoted(path == "-" ? "./-" : path)
                case .stream, .readAhead:
                    warnings.append("stream a file part from stdin the same way; it reads stdin for '\(file.name)'")
                    source = "-"
                }
                arguments.append(FormArgument(option: "--form", value: "\(n)=@\(source);type=\(type);filename=\(filename)"))
            }
        }
        return (arguments, warnings)
    }

    /// The usage error for a part curl's `-F` cannot send as swurl does.
    static func refusal(_ part: String, _ why: String) -> SwurlError {
        .usage("--curl cannot write the multipart part \(part) for curl: \(why)",
               hint: "send the request with swurl itself, or change that part")
    }

    /// A part name for the text before `=` of a `-F` argument, which curl takes as is.
    static func formName(_ name: String, part: String) throws(SwurlError) -> String {
        if name.isEmpty {
            throw refusal(part, "its name is empty, and curl's -F then sends the part with no name at all")
        }
        if name.unicodeScalars.contains("=") {
            throw refusal(part, "its name holds '=', and curl's -F ends a name at the first '=' (no quoting)")
        }
        return wireText(name)
    }

    /// A name or filename as swurl writes it inside the quotes of Content-Disposition, but for
    /// `"`, which curl writes as `%22` itself: controls and a last `\` as `%XX`
    /// (`MultipartRequestSerializer.quote`), so curl has no control left to write its own way.
    static func wireText(_ s: String) -> String { MultipartRequestSerializer.quote(s, quoteMark: false) }

    /// A path or filename in `-F`'s double quotes: `\` and `"` escaped with a backslash. By
    /// scalars: a `\` followed by a combining mark is one Character unequal to "\\".
    static func formQuoted(_ s: String) -> String {
        var out = String.UnicodeScalarView()
        out.append("\"")
        for c in s.unicodeScalars {
            if c == "\\" || c == "\"" { out.append("\\") }
            out.append(c)
        }
        out.append("\"")
        return String(out)
    }

    /// The blanks curl's `-F` skips and trims (C `isspace`).
    static func isFormSpace(_ b: UInt8) -> Bool { b == 0x20 || (0x09...0x0D).contains(b) }

    /// `type` as written after `;type=`, when curl reads exactly it back: `major/minor` (each
    /// 1-127 bytes, as curl's `%127[^/ ]/%127[^;, \n]` reads it), then anything up to the end
    /// but a `,` (the next file) or a `;` that starts `filename=`, `headers=` or `encoder=`
    /// (curl's own parameters), with no blank at either end (curl skips and trims them).
    static func formType(_ type: String, part: String) throws(SwurlError) -> String {
        let bytes = Array(type.utf8)
        guard let first = bytes.first, let last = bytes.last else { throw refusal(part, "its type is empty") }
        if isFormSpace(first) || isFormSpace(last) {
            throw refusal(part, "its type '\(type)' starts or ends with a blank, which curl's -F trims")
        }
        if bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            throw refusal(part, "its type holds a control character")
        }
        if bytes.contains(UInt8(ascii: ",")) {
            throw refusal(part, "its type '\(type)' holds ',', after which curl's -F reads another file to upload (a type cannot be quoted)")
        }
        let major = bytes.prefix { $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: " ") }
        let afterMajor = bytes.dropFirst(major.count)
        let minor = afterMajor.dropFirst().prefix { !Array(";, \n".utf8).contains($0) }
        guard (1...127).contains(major.count), afterMajor.first == UInt8(ascii: "/"), (1...127).contains(minor.count) else {
            throw refusal(part, "its type '\(type)' is not read by curl's -F: it must start with major/minor (1-127 characters each, no blank before the '/')")
        }
        let rest = afterMajor.dropFirst(1 + minor.count)
        for segment in rest.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false).dropFirst() {
            // By bytes, as curl compares (ASCII case folded): as Characters, `=` and a combining
            // mark after it would be one Character, and `filename=` no prefix.
            let word = segment.drop(while: isFormSpace).map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }
            if let keyword = ["filename=", "headers=", "encoder="].first(where: { word.starts(with: $0.utf8) }) {
                throw refusal(part, "its type '\(type)' holds ';\(keyword)', which curl's -F reads as its own parameter (a type cannot be quoted)")
            }
        }
        return type
    }

    /// Whether curl would read `url` as a glob (`[1-2]`, `{a,b}`) without `--globoff`.
    static func globs(_ url: String) -> Bool {
        url.utf8.contains { $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "]") || $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "}") }
    }
}
