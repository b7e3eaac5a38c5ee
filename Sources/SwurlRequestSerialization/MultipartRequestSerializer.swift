import SwurlCore
/// `--multipart` (or `--form` with a file field): RFC 7578 multipart/form-data whose file parts
/// are read from disk while sending, so the body's size never matters for memory. The exact
/// Content-Length is known before sending; only a stdin part (`name@-`) makes it chunked.
package struct MultipartRequestSerializer: RequestSerializing {
    package var contentType: String { "multipart/form-data; boundary=" + MultipartRequestSerializer.parameter(boundary) }

    /// A boundary as a Content-Type parameter: quoted when it holds a character RFC 2045 ends a
    /// token with (`:`, `=`, `/`, `(`, `,`, `?`, a space), which a boundary may hold (RFC 2046):
    /// unquoted, a server reads `boundary=a:b` as `a`, and finds no parts.
    package static func parameter(_ boundary: String) -> String {
        boundary.contains(where: { "()<>@,;:\\\"/[]?= ".contains($0) }) ? "\"\(boundary)\"" : boundary
    }
    /// The boundary, fixed by `--boundary` or random.
    package let boundary: String

    package init(boundary: String?) {
        self.boundary = boundary ?? MultipartRequestSerializer.randomBoundary()
    }

    static func randomBoundary() -> String {
        var rng = SystemRandomNumberGenerator()
        let hex = Array("0123456789abcdef")
        return "swurl-" + String((0..<24).map { _ in hex[Int(rng.next() % 16)] })
    }

    package func serialize(tree: JSONValue?, parameters: RequestParameters, into request: inout HTTPRequest) throws(SwurlError) {
        let method = request.method.uppercased
        if method.sendsNoBody {
            throw .usage("a multipart body cannot be sent with \(method)",
                         hint: "use POST or PUT (e.g. swurl POST URL …); --form \(method) sends text fields in the query string (a file field, name@path, or --multipart makes a body; name=@path sends a file's text as a field)")
        }
        var segments: [RequestBody.Segment] = []
        var pending: [UInt8] = []
        var partCount = 0
        func openPart(_ headers: String) {
            // File names may carry bytes from argv that are not UTF-8: sent as they are.
            pending += ArgumentBytes.bytes((partCount == 0 ? "" : "\r\n") + "--\(boundary)\r\n" + headers + "\r\n")
            partCount += 1
        }
        // A part's content that holds a line break and "--" boundary (the blank line before it
        // counts) ends the part there: the server reads other fields than were sent (Werkzeug
        // splits at a bare LF too). Checked for what is in memory (fields, held bytes); a file is
        // read as it is sent.
        let delimiter = Array("\n--\(boundary)".utf8)
        func refuseDelimiter(in content: [UInt8], of name: String) throws(SwurlError) {
            guard content.starts(with: delimiter.dropFirst()) || content.containsBytes(delimiter) else { return }
            throw .usage("the value of '\(TerminalSanitizer.clean(name))' holds the multipart boundary ('--\(TerminalSanitizer.clean(boundary))' after a line break): the body would split there",
                         hint: "choose another --boundary (or leave it out: a random one is used)")
        }
        func field(_ name: String, _ value: String?) throws(SwurlError) {
            let content = Array((value ?? "").utf8)
            try refuseDelimiter(in: content, of: name)
            openPart("Content-Disposition: form-data; name=\"\(MultipartRequestSerializer.quote(name))\"\r\n")
            pending += content
        }
        for part in MultipartRequestSerializer.parts(tree: tree, parameters: parameters) {
            switch part {
            case .field(let n, let v):
                try field(n, v)
            case .file(let part):
                openPart("Content-Disposition: form-data; name=\"\(MultipartRequestSerializer.quote(part.name))\"; filename=\"\(MultipartRequestSerializer.quote(part.filename))\"\r\n"
                         + "Content-Type: \(part.contentType)\r\n")
                segments.append(.bytes(pending))
                pending = []
                switch part.source {
                case .file(let path, let size): segments.append(.file(path: path, size: size))
                case .stream(let source, let label): segments.append(.stream(source, label: label, length: nil))
                // (Not searched for the boundary, as a file's bytes are not: streamed content.)
                case .readAhead(let body): segments.append(contentsOf: body.segments)
                case .held(_, let bytes):
                    try refuseDelimiter(in: bytes, of: part.name)
                    segments.append(.bytes(bytes))
                }
            }
        }
        if partCount == 0 { return }
        pending += Array("\r\n--\(boundary)--\r\n".utf8)
        segments.append(.bytes(pending))
        request.body = RequestBody(segments)
    }

    /// One part of the body, in the order it is sent.
    package enum Part {
        /// A field: its flattened name (`user[name]`, `tags[]`) and value.
        case field(name: String, value: String?)
        case file(RequestParameters.FilePart)
    }

    /// The parts `serialize` writes, in order: fields grouped under their top-level key at its
    /// first appearance (nested values flattened as a form flattens them; a plain name given
    /// again at its own place), files at their own place. `--curl` turns them into curl's `-F`
    /// arguments.
    package static func parts(tree: JSONValue?, parameters: RequestParameters) -> [Part] {
        // Fields are grouped under their top-level key at its first appearance; files stand at
        // their own place.
        // Keyed by the name's bytes: String equality is canonical, and `é` and `e` + U+0301, two
        // fields (JSON and form keep both), would be one group, the other field lost.
        // A name given twice is two members (`ParameterTree`, `repeatsCollect` false): each goes
        // at its own field's place, in the order typed, as curl's and HTTPie's -F do.
        var groups: [[UInt8]: [[(String, String?)]]] = [:]
        var arrayRoot: [(String, String?)]?
        switch tree {
        case .object(let members)?:
            for m in members { groups[Array(m.key.utf8), default: []].append(FormRequestSerializer.pairs(.object([m]))) }
        case .some(let other):
            arrayRoot = FormRequestSerializer.pairs(other)
        case nil:
            break
        }

        var parts: [Part] = []
        for entry in parameters.entries {
            switch entry {
            case .field(let f):
                if let root = arrayRoot {
                    for (n, v) in root { parts.append(.field(name: n, value: v)) }
                    arrayRoot = nil
                    continue
                }
                let top = (try? NestedKeyParser.parse(f.key, item: f.label, jsonRules: false))?.components.first
                guard case .key(let name)? = top, var members = groups[Array(name.utf8)], !members.isEmpty else { continue }
                for (n, v) in members.removeFirst() { parts.append(.field(name: n, value: v)) }
                groups[Array(name.utf8)] = members
            case .file(let part):
                parts.append(.file(part))
            }
        }
        return parts
    }

    /// Escapes a name or filename for a quoted Content-Disposition parameter as the HTML
    /// standard has browsers do (and curl and HTTPie): `"` as `%22`, CR and LF as `%0D` and
    /// `%0A`, and likewise every other character a header line cannot hold (`HeaderValue`: C0
    /// controls but tab, DEL) as `%XX`; `\` and other characters, non-ASCII included, as they
    /// are (UTF-8), but for a last `\`, as `%5C`: before the closing quote, parsers that read
    /// RFC quoting (Werkzeug, python-multipart) took it for an escaped quote and read the rest of
    /// the line (`; name=admin`) as the value's. A backslash before `"` and `\` was RFC 7578's
    /// quoting, which parsers that follow browsers (Node's undici) refused, failing the body.
    /// - Parameter quoteMark: false to leave `"` as it is (for curl's `-F`, which escapes it so).
    package static func quote(_ s: String, quoteMark: Bool = true) -> String {
        var out = ""
        let scalars = s.unicodeScalars
        for (i, scalar) in zip(scalars.indices, scalars) {
            switch scalar {
            case "\"" where quoteMark: out += "%22"
            case "\\" where scalars.index(after: i) == scalars.endIndex: out += "%5C"
            case _ where HeaderValue.isForbidden(scalar):
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += "%" + (hex.count < 2 ? "0" + hex : hex)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
