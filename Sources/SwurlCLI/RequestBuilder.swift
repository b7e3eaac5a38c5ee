#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlEngine
import SwurlRequestSerialization
import SwurlCore

/// Turns the command line into an `HTTPRequest`: URL and query items, default and user
/// headers, and the body from data items, `--raw`, `@file` or stdin.
package struct RequestBuilder {
    /// swurl's version (the VERSION file, see `BuildInfo`), sent in `User-Agent`.
    package static var version: String { BuildInfo.version }

    let options: CommandOptions
    let environment: Environment

    package init(options: CommandOptions, environment: Environment) {
        self.options = options
        self.environment = environment
    }

    /// The request, and for a multipart body its parts in order (what `--curl` prints as `-F`),
    /// from one pass over the items.
    package struct Built {
        package var request: HTTPRequest
        package var parts: [MultipartRequestSerializer.Part]
        /// The pipe or device an `@FILE` body streams from (resolved), nil for any other body.
        package var streamedFile: String? = nil
    }

    /// - Throws: the serializers' errors, `.usage` for a bad URL, `.inputFile` for stdin/file errors.
    package func build() throws(SwurlError) -> HTTPRequest {
        try buildWithParts().request
    }

    /// `build()`, with the multipart parts the body was made of.
    package func buildWithParts() throws(SwurlError) -> Built {
        var url = try URLBuilder.resolvedURL(options.url, defaultScheme: options.defaultScheme, pathAsIs: options.pathAsIs)
        let items = options.items
        // The body came from stdin or a pipe (read ahead, perhaps whole).
        var streamedBody = false
        var streamedFile: String?

        let queryPairs = items.compactMap { item -> String? in
            guard case .query(let name, let value) = item.kind else { return nil }
            return FormRequestSerializer.percentEscape(name) + "=" + FormRequestSerializer.percentEscape(value)
        }
        // Only when there are some: a request without query items skips `joined` at start-up.
        if !queryPairs.isEmpty { url = URLText.appendingQuery(queryPairs.joined(separator: "&"), to: url) }

        let dataItems = items.filter(\.isData)
        let bodyFiles = dataItems.filter { if case .file(let k, _, _, _) = $0.kind { return k.isEmpty } else { return false } }
        let rawFile = bodyFiles.first
        if bodyFiles.count > 1 {
            throw .usage("'\(bodyFiles[0].raw)' and '\(bodyFiles[1].raw)' each send a file as the whole body; a request has one body",
                         hint: "give one @FILE, or send files as fields with --multipart name@FILE")
        }
        let fields = dataItems.filter { $0 != rawFile }
        if let rawFile, let field = fields.first {
            throw .usage("'\(rawFile.raw)' sends a file as the whole body and cannot be combined with data items (got '\(field.raw)')")
        }
        let parameters = try self.parameters(fields, resolvingFiles: options.bodyFormat == .multipart)
        // A name given twice: sent twice in a form (`a=1&a=2`, as curl and HTTPie), an array in JSON.
        let formLike = options.bodyFormat == .form || options.bodyFormat == .multipart
        let tree = try ParameterTree.build(parameters.fields, repeatsCollect: !formLike, jsonRules: !formLike)
        let hasData = !fields.isEmpty

        var request = HTTPRequest(method: options.method.map { HTTPMethod($0) } ?? (hasData ? .post : .get), url: url)
        request.pathAsIs = options.pathAsIs
        request.headers.add("User-Agent", "swurl/\(RequestBuilder.version)")
        let jsonMode = options.bodyFormat == .json
        request.headers.add("Accept", jsonMode && (hasData || options.explicitJSON)
                            ? "application/json, */*;q=0.5" : "*/*")
        if let cache = options.transfer.cache { ContentCoding.remember(in: cache.directory) }
        ContentCoding.decoded.addHeader(to: &request)

        // The body.
        var contentType: String?
        if hasData {
            let serializer: RequestSerializing
            switch options.bodyFormat {
            case .json: serializer = JSONRequestSerializer()
            case .form: serializer = FormRequestSerializer()
            case .multipart: serializer = MultipartRequestSerializer(boundary: options.boundary)
            case .plist(let binary): serializer = PropertyListRequestSerializer(binary: binary)
            }
            contentType = serializer.contentType
            try serializer.serialize(tree: tree, parameters: parameters, into: &request)
            if request.body == nil { contentType = nil }
        } else if let raw = options.rawBody {
            request.body = RequestBody(bytes: Array(raw.utf8))
            contentType = defaultRawContentType
        } else if let rawFile, case .file(_, "-", let mime, _) = rawFile.kind {
            // `@-` asks for stdin as the body, whatever the method: an empty stdin is an empty
            // body (a POST with `Content-Length: 0`, as `curl -d @-` and `@EMPTY_FILE` send).
            if let body = try stdinBody() {
                request.body = body
                streamedBody = true
            } else {
                request.body = RequestBody(bytes: [])
            }
            contentType = mime ?? defaultRawContentType
        } else if let rawFile, case .file(_, let path, let mime, _) = rawFile.kind {
            let size = try RequestItemParser(environment: environment).fileSize(path, rawFile.raw)
            if size >= 0 {
                request.body = RequestBody([.file(path: environment.resolvePath(path), size: size)])
            } else {
                // A pipe, a device (`@<(cmd)`, `@/dev/stdin`) or a file of /proc: no size to
                // announce, so it is read ahead as stdin is.
                streamedFile = environment.resolvePath(path)
                let fd = open(ArgumentBytes.path(environment.resolvePath(path)), O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else {
                    throw .inputFile("cannot read '\(path)' (from '\(rawFile.raw)'): \(systemErrorMessage(errno))")
                }
                request.body = try heldBody(FileDescriptorSource(fd: fd, owning: true), label: "'\(path)'", size: nil)
                streamedBody = true
            }
            contentType = mime ?? MIMETypes.type(forPath: path)
        } else if !options.ignoreStdin && !environment.stdinIsTerminal && RequestBuilder.stdinMayBeBody(options.method) {
            request.body = try stdinBody()
            streamedBody = request.body != nil
            if request.body != nil { contentType = defaultRawContentType }
        }
        // A `name@-` field sends stdin in the body: nothing to warn about.
        if (hasData || options.rawBody != nil) && !items.contains(where: \.readsStdin) && !options.ignoreStdin && !environment.stdinIsTerminal
            && RequestBuilder.stdinMayBeBody(options.method ?? "POST") && environment.stdinHasData() {
            try? environment.stderr.write("swurl: warning: stdin is not sent: the body comes from "
                                          + (hasData ? "the data items" : "--raw") + " (use @- to send stdin, --ignore-stdin to silence this)\n")
        }
        if options.method == nil && request.body != nil { request.method = "POST" }
        // libcurl reads a HEAD response as having no body only when it sends no body: with one,
        // it waits for a body that never comes (as curl, which refuses `-I -d`). A TRACE must
        // not carry one either (RFC 9110 §9.3.8).
        if request.method == .head || request.method == .trace, request.body != nil {
            let given = fields.first?.raw ?? rawFile?.raw ?? (options.rawBody != nil ? "--raw" : "stdin")
            throw .usage("a \(request.method) request sends no body, and '\(TerminalSanitizer.clean(given))' would be one",
                         hint: "send the fields as a query with name==value items, or use another method")
        }
        if let ct = contentType { request.headers.add("Content-Type", ct) }
        if request.body != nil && (options.chunked || request.body?.length == nil) {
            request.headers.add("Transfer-Encoding", "chunked")
        }

        try applyHeaderItems(items, to: &request)
        if options.bodyFormat == .multipart, let contentType, let boundary = HeaderParameters.value("boundary", in: contentType) {
            try RequestBuilder.keepBoundary(boundary, in: &request)
        }
        // A body read from a stream went chunked before it was read ahead: `Content-Length:`
        // on it still asks for that, as it did (a body of known length is refused below).
        if streamedBody && request.isRemoved("Content-Length") && !request.isChunked {
            request.headers.add("Transfer-Encoding", "chunked")
        }
        try checkFraming(request, chunkedByUser: options.chunked || items.contains { item in
            switch item.kind {
            case .header(let name, _), .emptyHeader(let name), .removeHeader(let name): return HTTPHeaders.sameName(name, "Transfer-Encoding")
            default: return false
            }
        })
        let parts = options.bodyFormat == .multipart && hasData ? MultipartRequestSerializer.parts(tree: tree, parameters: parameters) : []
        return Built(request: request, parts: parts, streamedFile: streamedFile)
    }

    /// The data items as the serializers take them. File fields are measured (and stdin taken)
    /// only for a multipart body that can be sent; other serializers refuse them by their label.
    private func parameters(_ items: [RequestItem], resolvingFiles: Bool) throws(SwurlError) -> RequestParameters {
        let resolve = resolvingFiles && !HTTPMethod(options.method ?? "POST").uppercased.sendsNoBody
        var entries: [RequestParameters.Entry] = []
        var stdinUsed = false
        for item in items {
            switch item.kind {
            case .field:
                if let field = item.parameterField { entries.append(.field(field)) }
            case .file(let key, let path, let mime, let filename):
                let isStdin = path == "-"
                let shownName = filename ?? (isStdin ? "stdin" : (path.split(separator: "/").last.map(String.init) ?? path))
                // `;filename=` names the type for stdin too (`f@-;filename=x.csv` is text/csv).
                let type = mime ?? filename.map { MIMETypes.type(forPath: $0) } ?? (isStdin ? MIMETypes.fallback : MIMETypes.type(forPath: path))
                var source = RequestParameters.FilePart.Source.file(path: path, size: 0)
                if resolve {
                    if isStdin {
                        if stdinUsed { throw .usage("'\(item.raw)': stdin can feed only one file field") }
                        stdinUsed = true
                        // Read ahead as a stdin body is (a 307 or --retry sends it again when it
                        // ended within the read-ahead or is a regular file); --curl prints a
                        // command that reads stdin itself.
                        source = options.curl ? .stream(environment.stdin, label: "stdin")
                            : .readAhead(try heldBody(environment.stdin, label: "stdin", size: environment.stdinFileSize))
                    } else {
                        let size = try RequestItemParser(environment: environment).fileSize(path, item.raw)
                        let full = environment.resolvePath(path)
                        if size >= 0 {
                            source = .file(path: full, size: size)
                        } else if let bytes = try RequestBuilder.heldFile(full, path: path, raw: item.raw) {
                            source = .held(path: full, bytes: bytes)
                        } else {
                            throw .inputFile("'\(path)' (from '\(item.raw)') is not a regular file",
                                             hint: "to stream a pipe or device, use name@- and feed it on stdin")
                        }
                    }
                }
                entries.append(.file(.init(name: key, filename: shownName, contentType: type, source: source, label: item.raw)))
            default:
                continue
            }
        }
        return RequestParameters(entries)
    }

    /// The Content-Type of a raw body (stdin, --raw) in the chosen mode, as HTTPie sends it.
    private var defaultRawContentType: String? {
        switch options.bodyFormat {
        case .json: return JSONRequestSerializer.mediaType
        case .form: return FormRequestSerializer.mediaType
        case .plist: return PropertyListRequestSerializer.mediaType
        case .multipart: return nil
        }
    }

    /// User header items replace the defaults of the same name, in place; later items with the
    /// same name add more fields; `Name:` removes, `Name;` sends an empty value.
    private func applyHeaderItems(_ items: [RequestItem], to request: inout HTTPRequest) throws(SwurlError) {
        var seen: Set<String> = []
        // The names the request holds (its defaults, then the items'): an item naming none of
        // them is appended, not looked for (a line of 20,000 header items took seconds).
        var present = Set(request.headers.fields.map { $0.name.lowercased() })
        for item in items {
            let name: String
            let value: String
            switch item.kind {
            case .header(let n, let v):
                name = n
                value = v
            case .emptyHeader(let n):
                name = n
                value = ""
            case .removeHeader(let n):
                request.headers.remove(n)
                seen.remove(n.lowercased())
                present.remove(n.lowercased())
                if !request.isRemoved(n) { request.removedHeaders.append(n) }
                continue
            default:
                continue
            }
            let key = name.lowercased()
            if seen.contains(key) || !present.contains(key) {
                request.headers.add(name, value)
            } else {
                request.headers.set(name, value)
            }
            if seen.insert(key).inserted, !request.removedHeaders.isEmpty {
                request.removedHeaders.removeAll { $0.lowercased() == key }
            }
            present.insert(key)
        }
    }

    /// A `Content-Type:multipart/…` item names the type a multipart body goes as; its parts are
    /// still separated by `boundary`, so the header gets it (as HTTPie and curl add theirs).
    /// Before, the item replaced the serializer's type with its boundary, and no server could
    /// find the parts. One naming another boundary is refused; any other type is the user's.
    static func keepBoundary(_ boundary: String, in request: inout HTTPRequest) throws(SwurlError) {
        guard let given = request.headers["Content-Type"],
              given.trimmingSpaces().lowercased().hasPrefix("multipart/") else { return }
        if let named = HeaderParameters.value("boundary", in: given) {
            guard named == boundary else {
                throw .usage("the item 'Content-Type:\(TerminalSanitizer.clean(given))' names the boundary '\(TerminalSanitizer.clean(named))', but the parts are separated by '\(boundary)'",
                             hint: "leave boundary= out of the item (swurl adds the body's), or give it with --boundary")
            }
            return
        }
        request.headers.set("Content-Type", given.trimmingSpaces() + "; boundary=" + MultipartRequestSerializer.parameter(boundary))
    }

    /// A user's Content-Length or Transfer-Encoding item must agree with the body swurl sends:
    /// a wrong length would desynchronise the connection (the rest of the body read as another
    /// request).
    /// - Parameter chunkedByUser: `--chunked` or a `Transfer-Encoding` item asked for chunks
    ///   (else a body read from a pipe past 1 MiB, which goes chunked as it has no length yet).
    private func checkFraming(_ request: HTTPRequest, chunkedByUser: Bool) throws(SwurlError) {
        if let given = request.headers["Content-Length"] {
            let actual = request.body?.length ?? 0
            if request.headers["Transfer-Encoding"] != nil, chunkedByUser {
                throw .usage("Content-Length:\(given) cannot go with chunked transfer encoding (--chunked or a Transfer-Encoding item): a chunked body has no length",
                             hint: "leave Content-Length out, or drop --chunked to send the body with its length")
            }
            if request.headers["Transfer-Encoding"] != nil {
                throw .usage("Content-Length:\(given) cannot go with this body: read from a pipe as it is sent, past the first 1 MiB, it goes chunked, with no length",
                             hint: "save the body to a file and send it with @FILE (its length is then known), or leave Content-Length out")
            }
            guard given.trimmingSpaces() == String(actual) else {
                let sent = request.body == nil ? "no body" : request.body?.length.map { "\($0) bytes" } ?? "chunked"
                throw .usage("Content-Length:\(given) does not match the body swurl sends (\(sent))",
                             hint: "leave Content-Length out; swurl computes it")
            }
        }
        if let te = request.headers["Transfer-Encoding"], te.lowercased().trimmingSpaces() != "chunked" {
            throw .usage("Transfer-Encoding:\(te) is not supported", hint: "use --chunked for chunked transfer encoding")
        }
        if request.headers["Transfer-Encoding"] != nil && request.body == nil {
            throw .usage("Transfer-Encoding:chunked needs a body")
        }
        // A body without its framing header has no end a server can find (RFC 9112 §6.3: a
        // request with neither has no body), and the rest would be read as the next request.
        if let body = request.body, body.length != 0 {
            // A body of unknown length (stdin, a pipe) goes in chunks, as one sent with --chunked
            // (whose `Transfer-Encoding:` removal only sends it with a length instead).
            if request.isRemoved("Content-Length") && !request.isChunked && body.length != nil {
                throw .usage("'Content-Length:' removes the length of the body, and the server could not tell where it ends",
                             hint: "leave Content-Length to swurl, or send the body in chunks with --chunked")
            }
            if request.isRemoved("Transfer-Encoding") && body.length == nil {
                throw .usage("'Transfer-Encoding:' removes the chunked framing of a body of unknown length (stdin or a pipe), and the server could not tell where it ends",
                             hint: "send a regular file as the body (@FILE), whose length is known")
            }
        }
    }

    /// Whether piped stdin becomes the body: only when a method that carries a body is given
    /// (`POST`, `PUT`, `PATCH`, `DELETE`, any other word but `GET`, `HEAD`, `OPTIONS`, `TRACE`:
    /// `HTTPMethod.mayTakeStdinBody`); `@-` asks for it explicitly. So a bare `swurl URL` inside
    /// a `while read` loop never eats the loop's input and never turns into a POST (HTTPie reads
    /// stdin for any method; curl only with `-d @-`).
    static func stdinMayBeBody(_ method: String?) -> Bool {
        method.map { HTTPMethod($0).mayTakeStdinBody } ?? false
    }

    /// The bytes of a regular file whose size says nothing of them (a file of /proc or /sys, or
    /// one that says 0), read whole for a multipart part; nil for anything but a regular file.
    static func heldFile(_ full: String, path: String, raw: String) throws(SwurlError) -> [UInt8]? {
        var st = stat()
        guard stat(ArgumentBytes.path(full), &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        do {
            return try SmallFile.read(full, maxSize: 16 << 20)
        } catch {
            throw .inputFile("cannot read '\(path)' (from '\(raw)'): \(error.message)")
        }
    }

    /// Most bytes of piped stdin read before sending: a body that ends within them goes with a
    /// Content-Length (as HTTPie's and curl's `--data-binary @-` do; servers without chunked
    /// request bodies answer 411 or read none), and can be sent again (a 307, `--retry`).
    static let stdinReadAhead = 1 << 20

    /// Stdin as the body when it holds anything (an empty stdin, `</dev/null`, is no body at all).
    private func stdinBody() throws(SwurlError) -> RequestBody? {
        if !options.quiet { RequestBuilder.noteWhileStdinIsSilent(environment, seconds: RequestBuilder.stdinPatience) }
        // --curl prints a command that reads stdin itself (`--data-binary @-`), as before.
        let body = try heldBody(environment.stdin, label: "stdin", size: environment.stdinFileSize, readAhead: !options.curl)
        return body.length == 0 ? nil : body
    }

    /// How long stdin may stay silent before a note says that swurl is reading it (HTTPie
    /// waits 10 s too).
    static let stdinPatience = 10

    /// A pipe left open with nothing written (ssh without -n, `docker run -i`, a CI agent's
    /// inherited stdin) held a POST or DELETE forever without a word: after `seconds` with no
    /// byte and no end, a note names what swurl waits for and how not to.
    static func noteWhileStdinIsSilent(_ environment: Environment, seconds: Int) {
        guard let source = environment.stdin as? FileDescriptorSource, environment.stdinFileSize == nil else { return }
        var pending = pollfd(fd: source.fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pending, 1, Int32(seconds * 1000)) == 0 else { return }
        let end = environment.stdinIsTerminal ? "end it with Ctrl-D, or " : ""
        try? environment.stderr.write("swurl: note: waiting for the request body on stdin (nothing came in \(seconds) s); \(end)give --ignore-stdin (or </dev/null) to send none\n")
    }

    /// A body read from a stream (stdin, a pipe, a file of /proc) of `size` bytes, nil when
    /// unknown: read ahead up to `stdinReadAhead` bytes (not with --chunked, which streams as the
    /// bytes come), so that one that ends within them goes with its length and can be sent
    /// again; what is longer streams, in chunks unless its size is known.
    private func heldBody(_ source: ByteSource, label: String, size: Int64?, readAhead: Bool = true) throws(SwurlError) -> RequestBody {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var held: [UInt8] = []
        repeat {
            let n: Int
            do {
                n = try chunk.withUnsafeMutableBytes { try source.read(into: $0) }
            } catch {
                throw .inputFile("cannot read \(label): \((error as? SwurlError)?.message ?? "\(error)")")
            }
            if n == 0 { return RequestBody(bytes: held) }
            held.append(contentsOf: chunk[0..<n])
        } while readAhead && !options.chunked && held.count < RequestBuilder.stdinReadAhead
        // A regular file's size is known: the rest streams with a Content-Length, read from
        // where it starts each time the body is sent (a 307, --retry), as curl and HTTPie,
        // which hold the whole file, send it again.
        let rest = size.map { max(0, $0 - Int64(held.count)) }
        if let rest, let fd = (source as? FileDescriptorSource)?.fd {
            let start = lseek(fd, 0, SEEK_CUR)
            if start >= 0 {
                return RequestBody([.bytes(held), .stream(FileRegionSource(fd: fd, start: Int64(start), length: rest), label: label, length: rest)])
            }
        }
        return RequestBody([.bytes(held), .stream(source, label: label, length: rest)])
    }
}
