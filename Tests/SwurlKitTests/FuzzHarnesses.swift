// The fuzz harnesses: one function per parser, shared by the libFuzzer targets under Fuzz/
// (a symlink there points at this file) and by FuzzCorpusTests, which feeds every committed
// corpus input through the same functions in `make test` — without the fuzzer sanitizer.
// A crash is a finding; so is a broken property, reported as a `FuzzPropertyFailure`.
@testable import SwurlCLI
@testable import SwurlOutput
@testable import SwurlResponseSerialization
@testable import SwurlRequestSerialization
@testable import SwurlEngine
@testable import SwurlCurl
@testable import SwurlCore

package struct FuzzPropertyFailure: Error, CustomStringConvertible {
    package var description: String
    init(_ d: String) { description = d }
}

/// One fuzz target per case; the raw value is the target's folder name under Fuzz/corpus/.
package enum FuzzHarness: String, CaseIterable, Sendable {
    case requestItems = "request-items"
    case formRoundTrip = "form-roundtrip"
    case jsonFormatter = "json-formatter"
    case jsonParser = "json-parser"
    case xmlTokenizer = "xml-tokenizer"
    case plistReader = "plist-reader"
    case plistRoundTrip = "plist-roundtrip"
    case imageHeaders = "image-headers"
    case downloadName = "download-name"
    case netrc = "netrc"
    case contentRange = "content-range"
    case retryAfter = "retry-after"
    case terminalSanitizer = "terminal-sanitizer"
    case decoderJSON = "decoder-json"
    case decoderXML = "decoder-xml"
    case decoderPlist = "decoder-plist"
    case decoderImage = "decoder-image"
    case decoderText = "decoder-text"
    case decoderAuto = "decoder-auto"
    case sessionFile = "session-file"
    case configFile = "config-file"
    case urlPlain = "url-plain"
    case curlExport = "curl-export"
    case bodyDecoding = "body-decoding"

    /// Runs one input; throws when a property does not hold.
    package func run(_ data: [UInt8]) throws(FuzzPropertyFailure) {
        switch self {
        case .requestItems: try FuzzHarness.requestItems(data)
        case .formRoundTrip: try FuzzHarness.formRoundTrip(data)
        case .jsonFormatter: try FuzzHarness.jsonFormatter(data)
        case .jsonParser: try FuzzHarness.jsonParser(data)
        case .xmlTokenizer: _ = try? XMLTokenizer.tokenize(data)
        case .plistReader: _ = try? PropertyListReader.read(data)
        case .plistRoundTrip: try FuzzHarness.plistRoundTrip(data)
        case .imageHeaders:
            _ = ImageInfo.sniff(data)
            if let info = ImageInfo.read(data), info.width < 0 || info.height < 0 {
                throw FuzzPropertyFailure("negative image dimensions")
            }
        case .downloadName: try FuzzHarness.downloadName(data)
        case .netrc:
            let n = Netrc(parsing: String(decoding: data, as: UTF8.self))
            _ = n.credentials(forHost: "example.com", allowDefault: true)
        case .contentRange:
            let s = String(decoding: data, as: UTF8.self)
            if let r = ContentRange.parse(s), r.start < 0 || (r.total.map { $0 <= r.start } ?? false) {
                throw FuzzPropertyFailure("impossible Content-Range \(r)")
            }
            if let t = ContentRange.unsatisfiedTotal(s), t < 0 { throw FuzzPropertyFailure("negative total \(t)") }
        case .retryAfter:
            if let d = RetryPolicy.parseRetryAfter(String(decoding: data, as: UTF8.self), now: 1_700_000_000),
               !d.isFinite {
                throw FuzzPropertyFailure("Retry-After gave \(d)")
            }
        case .terminalSanitizer: try FuzzHarness.sanitizer(data)
        case .decoderJSON: try FuzzHarness.decoder(.json, data)
        case .decoderXML: try FuzzHarness.decoder(.xml, data)
        case .decoderPlist: try FuzzHarness.decoder(.plist, data)
        case .decoderImage: try FuzzHarness.decoder(.image, data)
        case .decoderText: try FuzzHarness.decoder(.text, data)
        case .decoderAuto: try FuzzHarness.decoder(.auto, data)
        case .sessionFile: try FuzzHarness.sessionFile(data)
        case .configFile: try FuzzHarness.configFile(data)
        case .urlPlain: try FuzzHarness.urlPlain(data)
        case .curlExport: _ = try FuzzHarness.curlExport(data)
        case .bodyDecoding: try FuzzHarness.bodyDecoding(data)
        }
    }

    /// For libFuzzer: runs the input and aborts on a broken property.
    package func fuzz(_ p: UnsafePointer<UInt8>, _ n: Int) {
        let data = Array(UnsafeBufferPointer(start: p, count: n))
        do { try run(data) } catch { fatalError("\(rawValue): \(error)") }
    }

    /// For libFuzzer: the empty input.
    package func fuzzEmpty() {
        do { try run([]) } catch { fatalError("\(rawValue): \(error)") }
    }

    // MARK: - Helpers

    /// Splits `data` into chunk sizes chosen by its first byte(s): byte 0 is a seed, the rest is
    /// the body. Returns (body, chunk lengths) so every decoder sees fuzzer-chosen boundaries.
    static func chunked(_ data: [UInt8]) -> (body: [UInt8], cuts: [Int]) {
        guard let seed = data.first else { return ([], []) }
        let body = Array(data.dropFirst())
        var cuts: [Int] = []
        var x = UInt32(seed) &* 2654435761 &+ 1
        var left = body.count
        while left > 0 {
            x = x &* 1103515245 &+ 12345
            let n = min(left, seed == 0 ? 1 : Int((x >> 16) % UInt32(seed)) + 1)
            cuts.append(n)
            left -= n
        }
        return (body, cuts)
    }

    static func lines(_ data: [UInt8]) -> [String] {
        String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    // MARK: - Session and config files

    /// A session file that reads is written back to a file that reads as the same session.
    static func sessionFile(_ data: [UInt8]) throws(FuzzPropertyFailure) {
        guard let session = try? SessionFormat.decode(data, file: "fuzz") else { return }
        let text = SessionFormat.encode(session)
        let again: SessionData
        do { again = try SessionFormat.decode(text, file: "fuzz") } catch {
            throw FuzzPropertyFailure("a written session does not read back: \(error.message)")
        }
        if again != session { throw FuzzPropertyFailure("a session changed on a write and read") }
    }

    /// A config file's words, written back single-quoted one line each, split into the same
    /// words; the option parser never crashes on them.
    static func configFile(_ data: [UInt8]) throws(FuzzPropertyFailure) {
        guard let lines = try? ConfigFile.lines(data, file: "fuzz") else { return }
        var text: [UInt8] = []
        for (_, words) in lines {
            for word in words {
                text += Array("'".utf8) + Array(ArgumentBytes.bytes(word).split(separator: UInt8(ascii: "'"), omittingEmptySubsequences: false)
                    .map { Array($0) }.joined(separator: Array("'\\''".utf8))) + Array("' ".utf8)
            }
            text.append(UInt8(ascii: "\n"))
        }
        let again: [[String]]
        do { again = try ConfigFile.lines(text, file: "fuzz").map(\.1) } catch {
            throw FuzzPropertyFailure("re-quoted config words do not split: \(error.message)")
        }
        if again != lines.map(\.1) { throw FuzzPropertyFailure("re-quoted config words split differently") }
        _ = try? ConfigFile.parse(data, file: "fuzz")
    }

    // MARK: - URLs

    /// Every URL the plain-URL fast path takes gets exactly libcurl's parts (CurlURL).
    static func urlPlain(_ data: [UInt8]) throws(FuzzPropertyFailure) {
        let text = String(decoding: data, as: UTF8.self)
        guard let fast = try? CurlURL.allParts(text, libcurl: false) else { return }
        let slow: [String?]?
        do { slow = try CurlURL.allParts(text, libcurl: true) } catch {
            throw FuzzPropertyFailure("the fast path took \(text.debugDescription), which libcurl refuses: \(error.message)")
        }
        guard slow == fast else {
            throw FuzzPropertyFailure("parts of \(text.debugDescription): fast path \(fast), libcurl \(String(describing: slow))")
        }
    }

    // MARK: - gzip and deflate bodies

    /// A gzip or deflate body (byte 0: bits 0–1 the codings, the rest the chunking seed) decodes
    /// to the same bytes, with the same verdict (refused, ended or cut short), in one piece and
    /// in fuzzer-chosen pieces.
    static func bodyDecoding(_ data: [UInt8]) throws(FuzzPropertyFailure) {
        guard let first = data.first else { return }
        let list = [["gzip"], ["deflate"], ["gzip", "gzip"], ["deflate", "x-gzip"]][Int(first & 3)]
        let (body, cuts) = chunked([first >> 2] + data.dropFirst())
        struct TooLarge: Error {}
        func decode(_ pieces: [Int]) -> (bytes: [UInt8], refused: Bool, ended: Bool)? {
            guard let decoder = BodyDecoder(list, named: list.joined(separator: ", ")) else { return nil }
            var bytes: [UInt8] = [], at = 0, refused = false
            do {
                for n in pieces {
                    try body.withUnsafeBytes { b in
                        try decoder.decode(UnsafeRawBufferPointer(rebasing: b[at..<(at + n)])) {
                            bytes.append(contentsOf: $0)
                            if bytes.count > 1 << 22 { throw TooLarge() }
                        }
                    }
                    at += n
                }
            } catch is TooLarge {
                return nil
            } catch {
                refused = true
            }
            return (bytes, refused, decoder.ended)
        }
        guard let whole = decode(body.isEmpty ? [] : [body.count]), let split = decode(cuts) else { return }
        if whole.refused != split.refused || (!whole.refused && (whole.ended != split.ended || whole.bytes != split.bytes)) {
            throw FuzzPropertyFailure("\(list) decoded in pieces \(cuts.prefix(8)): refused \(split.refused), ended \(split.ended), \(split.bytes.count) bytes; in one piece: refused \(whole.refused), ended \(whole.ended), \(whole.bytes.count) bytes")
        }
    }

    // MARK: - --curl export

    /// The pieces the export harness builds names, types, filenames and paths from: curl's `-F`
    /// syntax, blanks, controls, quotes, and bytes that are not UTF-8 (paths and filenames only).
    static let exportTokens: [[UInt8]] = [
        "a", "b", "=", ";", ",", "\"", "\\", "@", "<", "(", ")", " ", "\t", "\n", "\r", "\u{1}", "\u{7F}", "\u{0}",
        "é", "/", "type=", "filename=", "headers=@", "encoder=", "FileName=", "%0A", "-", "text/plain", "x/y", "'", "\u{301}",
    ].map { Array($0.utf8) } + [[0xE9], [0xFF, 0x27]]

    /// Parts built from the input are exported as `-F`/`--form-string` arguments; each
    /// argument, through the shell quoting, must be read by the model of curl's parser
    /// (CurlFormModel) as exactly the part swurl sends (its wire name and filename, type, path),
    /// or the export must be refused, and only for a part curl cannot be given. Returns whether
    /// the parts were exported.
    @discardableResult
    static func curlExport(_ data: [UInt8]) throws(FuzzPropertyFailure) -> Bool {
        var at = 0
        func next() -> UInt8? {
            guard at < data.count else { return nil }
            defer { at += 1 }
            return data[at]
        }
        /// A length byte, then that many token bytes (fewer than `most`).
        func piece(utf8: Bool, most: UInt8 = 13) -> String {
            var bytes: [UInt8] = []
            for _ in 0..<Int((next() ?? 0) % most) {
                guard let b = next() else { break }
                let token = exportTokens[Int(b) % exportTokens.count]
                // The last tokens are not UTF-8: names, types and values are text.
                if utf8 && (token.first ?? 0) >= 0xE9 { continue }
                bytes += token
            }
            return utf8 ? String(decoding: bytes, as: UTF8.self) : ArgumentBytes.decode(bytes)
        }
        // Byte 0: 1-3 parts (one refusal refuses them all).
        let count = 1 + Int((next() ?? 0) % 3)
        var parts: [MultipartRequestSerializer.Part] = []
        while at < data.count && parts.count < count {
            let kind = next() ?? 0
            // Short names (most names of 12 tokens would hold a `=`), empty only with bit 3.
            let short = piece(utf8: true, most: 5)
            let name = short.isEmpty && kind & 8 == 0 ? "n" : short
            if kind & 1 == 0 {
                parts.append(.field(name: name, value: kind & 2 == 0 ? piece(utf8: true) : nil))
            } else {
                // Bit 2: a type made of tokens alone; else `x/y` and then tokens.
                let filename = piece(utf8: false), path = piece(utf8: false)
                let type = kind & 4 == 0 ? "x/y" + piece(utf8: true, most: 4) : piece(utf8: true)
                let source: RequestParameters.FilePart.Source = kind & 2 == 0
                    ? .file(path: path, size: 0) : .stream(FuzzNullSource(), label: "stdin")
                parts.append(.file(.init(name: name, filename: filename, contentType: type,
                                         source: source, label: "fuzz")))
            }
        }
        let form: (arguments: [CurlCommandExport.FormArgument], warnings: [String])
        do { form = try CurlCommandExport.formArguments(parts) } catch {
            try checkRefusal(parts, error)
            return false
        }
        guard form.arguments.count == parts.count else { throw FuzzPropertyFailure("\(parts.count) parts, \(form.arguments.count) arguments") }
        for (part, argument) in zip(parts, form.arguments) {
            let bytes = ArgumentBytes.bytes(argument.value)
            if bytes.contains(0) { throw FuzzPropertyFailure("an argument holds NUL: \(argument)") }
            let word = shellWord(CurlCommandExport.quote(bytes))
            guard word == bytes else { throw FuzzPropertyFailure("the shell reads \(word) for \(bytes)") }
            try checkFormArgument(part, argument, bytes)
        }
        return true
    }

    /// A refusal is for a part curl cannot be given: an empty name or one with `=`, a NUL, a
    /// type that is not a plain `token/token`.
    static func checkRefusal(_ parts: [MultipartRequestSerializer.Part], _ error: SwurlError) throws(FuzzPropertyFailure) {
        guard case .usage(let message, _) = error, message.hasPrefix("--curl cannot write the multipart part ") else {
            throw FuzzPropertyFailure("the export failed with \(error)")
        }
        let plainType: (String) -> Bool = { t in
            let halves = t.split(separator: "/", omittingEmptySubsequences: false)
            return halves.count == 2 && halves.allSatisfy { !$0.isEmpty && $0.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) } }
        }
        let excused = parts.contains { part in
            switch part {
            case .field(let name, let value):
                return name.isEmpty || name.unicodeScalars.contains("=") || (value ?? "").unicodeScalars.contains("\u{0}")
            case .file(let f):
                let nulPath: Bool
                if case .file(let path, _) = f.source { nulPath = path.unicodeScalars.contains("\u{0}") } else { nulPath = false }
                return f.name.isEmpty || f.name.unicodeScalars.contains("=") || nulPath || !plainType(f.contentType)
            }
        }
        if !excused { throw FuzzPropertyFailure("refused parts curl can be given: \(message)") }
    }

    /// One argument as the model of curl's `-F` reads it: the part swurl sends.
    static func checkFormArgument(_ part: MultipartRequestSerializer.Part, _ argument: CurlCommandExport.FormArgument,
                                  _ bytes: [UInt8]) throws(FuzzPropertyFailure) {
        let read: CurlFormModel
        do { read = try CurlFormModel.parse(bytes, literal: argument.option == "--form-string") } catch {
            throw FuzzPropertyFailure("curl refuses \(argument): \(error.reason)")
        }
        func wire(_ b: [UInt8]?) -> [UInt8]? { b.map { CurlFormModel.wire($0, formEscape: false) } }
        func swurl(_ s: String) -> [UInt8] { ArgumentBytes.bytes(MultipartRequestSerializer.quote(s)) }
        switch part {
        case .field(let name, let value):
            guard argument.option == "--form-string", wire(read.name) == swurl(name), read.content == .text(Array((value ?? "").utf8)) else {
                throw FuzzPropertyFailure("field \(name.debugDescription)=\(String(describing: value)) exported as \(argument), read as \(read)")
            }
        case .file(let f):
            let path: [UInt8]
            switch f.source {
            case .file(let p, _), .held(let p, _): path = p == "-" ? Array("./-".utf8) : ArgumentBytes.bytes(p)
            case .stream, .readAhead: path = Array("-".utf8)
            }
            guard argument.option == "--form", wire(read.name) == swurl(f.name), case .files(let files) = read.content, files.count == 1,
                  let file = files.first, file.path == path, file.type == Array(f.contentType.utf8),
                  wire(file.filename) == swurl(f.filename), file.headers.isEmpty, file.encoder == nil else {
                throw FuzzPropertyFailure("file part \(f.name.debugDescription) (\(f.filename.debugDescription), \(f.contentType.debugDescription)) exported as \(argument), read as \(read)")
            }
        }
    }

    /// A word `CurlCommandExport.quote` wrote, as a POSIX shell reads it (bare, '…', \c, and
    /// `"$(printf '…')"` of printable ASCII and `\ooo`).
    static func shellWord(_ text: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var quoted = false, escaped = false
        let open = Array("\"$(printf '".utf8), close = Array("')\"".utf8)
        var i = 0
        while i < text.count {
            let b = text[i]
            if !quoted, !escaped, text[i...].starts(with: open) {
                i += open.count
                while i < text.count, !text[i...].starts(with: close) {
                    if text[i] == UInt8(ascii: "\\"), i + 3 < text.count,
                       let value = UInt8(String(decoding: text[(i + 1)...(i + 3)], as: UTF8.self), radix: 8) {
                        out.append(value)
                        i += 4
                    } else {
                        out.append(text[i])
                        i += 1
                    }
                }
                i += close.count
                continue
            }
            if escaped { out.append(b); escaped = false }
            else if b == UInt8(ascii: "'") { quoted.toggle() }
            else if b == UInt8(ascii: "\\") && !quoted { escaped = true }
            else { out.append(b) }
            i += 1
        }
        return out
    }

    // MARK: - Request items and nested keys

    /// The largest array index the request-item harnesses allow: they explore shapes, not sizes.
    /// With the CLI's 100,000, `a[100000]=x` (100,000 nulls, 800 KB of form text; 0.06 s in a
    /// release build) takes over 5 s under ASan and the fuzzer's comparison tracing, a "timeout"
    /// on every run; the size limits themselves are unit tests (NestedKeyParserTests,
    /// ParameterTreeTests) and the two long-run inputs stay in the corpus.
    static let fuzzMaxIndex = 1_000

    static func requestItems(_ data: [UInt8]) throws(FuzzPropertyFailure) {
        // No `@`: a file item would read a file named by the fuzzer.
        let items = lines(data).filter { !$0.contains("@") }.prefix(64)
        let environment = Environment(stdin: FuzzNullSource(), stdout: FuzzNullSink(), stderr: FuzzNullSink())
        let parser = RequestItemParser(environment: environment)
        for item in items { _ = try? parser.parse(item) }
        var fields: [RequestParameters.Field] = []
        for line in items {
            let parts = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = String(parts[0])
            _ = try? NestedKeyParser.parse(key, item: line, maxIndex: fuzzMaxIndex)
            fields.append(.init(key: key, value: .string(parts.count > 1 ? String(parts[1]) : ""), label: line))
        }
        if let tree = try? ParameterTree.build(fields, maxIndex: fuzzMaxIndex) {
            _ = FormRequestSerializer.encode(tree)
            _ = tree.serialized
        }
    }

    /// The form serializer's output parses back to the same (name, value) pairs.
    static func formRoundTrip(_ data: [UInt8]) throws(FuzzPropertyFailure) {
        var fields: [RequestParameters.Field] = []
        for line in lines(data).prefix(64) {
            let parts = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            fields.append(.init(key: String(parts[0]), value: .string(parts.count > 1 ? String(parts[1]) : ""), label: line))
        }
        guard let tree = try? ParameterTree.build(fields, maxIndex: fuzzMaxIndex) else { return }
        let expected = FormRequestSerializer.pairs(tree)
        let text = FormRequestSerializer.encode(tree)
        // Split by bytes: the text is ASCII, and a split by Character costs seconds on the 800 KB
        // that `a[100000]=x` (the largest index gap allowed) encodes to.
        let bytes = Array(text.utf8)
        let parsed: [(String, String?)] = text.isEmpty && expected.isEmpty ? [] : bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false).map { pair in
            let kv = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            return (percentDecode(kv[0]), kv.count > 1 ? percentDecode(kv[1]) : nil)
        }
        guard parsed.count == expected.count,
              zip(parsed, expected).allSatisfy({ $0.0 == $1.0 && $0.1 == $1.1 }) else {
            throw FuzzPropertyFailure("form text \(text) does not parse back to \(expected)")
        }
    }

    static func percentDecode(_ s: ArraySlice<UInt8>) -> String {
        var out: [UInt8] = []
        let b = Array(s)
        var i = 0
        func hex(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x41...0x46: return c - 0x41 + 10
            case 0x61...0x66: return c - 0x61 + 10
            default: return nil
            }
        }
        while i < b.count {
            if b[i] == UInt8(ascii: "%"), i + 2 < b.count, let h = hex(b[i + 1]), let l = hex(b[i + 2]) {
                out.append(h << 4 | l); i += 3
            } else { out.append(b[i]); i += 1 }
        }
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: - JSON

    static func jsonParser(_ data: [UInt8]) throws(FuzzPropertyFailure) {
        guard let value = try? JSONParser.parse(data) else { return }
        let text = Array(value.serialized.utf8)
        guard let again = try? JSONParser.parse(text), again == value else {
            throw FuzzPropertyFailure("serialized JSON does not re-parse to the same value")
        }
    }

    /// Formatting valid JSON keeps every value, and the output does not depend on the chunking.
    static func jsonFormatter(_ data: [UInt8]) throws(FuzzPropertyFailure) {
        let (body, cuts) = chunked(data)
        func format(_ cuts: [Int]) -> [UInt8] {
            let f = JSONStreamFormatter(theme: nil, indent: 2, sanitize: false)
            var out: [UInt8] = []
            var at = 0
            body.withUnsafeBytes { raw in
                for n in cuts {
                    f.feed(UnsafeRawBufferPointer(rebasing: raw[at..<at + n]), into: &out)
                    at += n
                }
            }
            f.finish(into: &out)
            return out
        }
        let chunked = format(cuts)
        let whole = format(body.isEmpty ? [] : [body.count])
        guard chunked == whole else { throw FuzzPropertyFailure("formatter output depends on the chunking") }
        guard let value = try? JSONParser.parse(body) else { return }
        guard let again = try? JSONParser.parse(whole) else {
            throw FuzzPropertyFailure("formatted valid JSON is not valid JSON")
        }
        guard again == value else { throw FuzzPropertyFailure("formatted JSON has different values") }
    }

    // MARK: - Property lists

    /// JSON → XML and binary plist → reader gives the same tree.
    static func plistRoundTrip(_ data: [UInt8]) throws(FuzzPropertyFailure) {
        guard let value = try? JSONParser.parse(data), let expected = try? plistValue(value) else { return }
        for (form, bytes) in [("xml", try? PropertyListWriter.xml(value)), ("binary", try? PropertyListWriter.binary(value))] {
            guard let bytes else { continue }
            let read: PropertyListValue
            do { read = try PropertyListReader.read(bytes) } catch {
                throw FuzzPropertyFailure("\(form) plist written from \(value.serialized) does not read back: \(error.reason)")
            }
            guard same(read, expected) else {
                throw FuzzPropertyFailure("\(form) plist written from \(value.serialized) reads back as \(read)")
            }
        }
    }

    struct Unrepresentable: Error {}

    /// Tree equality with integers compared by value (`-0` and `0` are the same integer).
    static func same(_ a: PropertyListValue, _ b: PropertyListValue) -> Bool {
        switch (a, b) {
        case (.integer(let x), .integer(let y)):
            if x == y { return true }
            if let i = Int64(x), let j = Int64(y) { return i == j }
            return false
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case (.dictionary(let x), .dictionary(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && same($0.1, $1.1) }
        default:
            return a == b
        }
    }

    static func plistValue(_ v: JSONValue) throws(Unrepresentable) -> PropertyListValue {
        switch v {
        case .null: throw Unrepresentable()
        case .bool(let b): return .bool(b)
        case .string(let s): return .string(s)
        case .number(let n):
            guard let checked = try? PropertyListWriter.checkedNumber(n, path: "") else { throw Unrepresentable() }
            switch checked {
            case .int(let i): return .integer(String(i))
            case .uint(let u): return .integer(String(u))
            case .real(let d): return .real(d)
            }
        case .array(let items):
            var out: [PropertyListValue] = []
            for item in items { out.append(try plistValue(item)) }
            return .array(out)
        case .object(let members):
            var out: [(String, PropertyListValue)] = []
            for m in members { out.append((m.key, try plistValue(m.value))) }
            return .dictionary(out)
        }
    }

    // MARK: - Download names

    static func downloadName(_ data: [UInt8]) throws(FuzzPropertyFailure) {
        let text = String(decoding: data, as: UTF8.self)
        var names: [String] = []
        // The raw filename parameter is checked only after sanitizing (choose does that).
        if let raw = DownloadName.filename(fromContentDisposition: text), let n = DownloadName.sanitize(raw) { names.append(n) }
        if let n = DownloadName.sanitize(text) { names.append(n) }
        names.append(DownloadName.choose(contentDisposition: text, initialURL: "http://h/x", mediaType: nil))
        names.append(DownloadName.choose(contentDisposition: nil, initialURL: "http://h/" + text, mediaType: "text/html"))
        for name in names {
            if name.hasPrefix(".") || name == "" || name.contains("/") || name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || $0 == "\u{202E}" }) {
                throw FuzzPropertyFailure("unsafe download name \(name.debugDescription) from \(text.debugDescription)")
            }
        }
    }

    // MARK: - Terminal

    static func isControl(_ b: UInt8) -> Bool { b < 0x20 || b == 0x7F }

    /// Throws when `out` holds a control byte other than tab, newline and a CR before a newline.
    static func checkNoControl(_ out: [UInt8], what: String) throws(FuzzPropertyFailure) {
        for (i, b) in out.enumerated() where isControl(b) && b != 0x09 && b != 0x0A {
            if b == 0x0D, i + 1 < out.count, out[i + 1] == 0x0A { continue }
            throw FuzzPropertyFailure("\(what) wrote control byte \(b) to a terminal")
        }
    }

    static func sanitizer(_ data: [UInt8]) throws(FuzzPropertyFailure) {
        let cleaned = TerminalSanitizer.clean(String(decoding: data, as: UTF8.self))
        if cleaned.utf8.contains(where: isControl) || cleaned.unicodeScalars.contains(where: { (0x80...0x9F).contains($0.value) }) {
            throw FuzzPropertyFailure("clean() left a control character")
        }
        // The streaming form, with fuzzer-chosen chunks: only tab, newline and CRLF survive.
        let (body, cuts) = chunked(data)
        var s = TerminalSanitizer()
        var out: [UInt8] = []
        var at = 0
        body.withUnsafeBytes { raw in
            for n in cuts {
                s.append(UnsafeRawBufferPointer(rebasing: raw[at..<at + n]), to: &out)
                at += n
            }
        }
        s.finish(into: &out)
        try checkNoControl(out, what: "the sanitizer")
        if String(decoding: out, as: UTF8.self).unicodeScalars.contains(where: { (0x80...0x9F).contains($0.value) }) {
            throw FuzzPropertyFailure("sanitizer output holds a C1 control")
        }
    }

    // MARK: - Response decoders (renderers) in streaming mode

    /// Feeds a decoder the body in fuzzer-chosen chunks and whole: on a terminal without colours
    /// the output never holds an escape or other control byte, and outside `--stream` it does not
    /// depend on the chunking.
    static func decoder(_ choice: DecoderChoice, _ data: [UInt8]) throws(FuzzPropertyFailure) {
        // The first byte picks the media type, --stream, --sort-keys and --plist-as json; the
        // second the chunking.
        let flags = data.first ?? 0
        let (body, cuts) = chunked(Array(data.dropFirst()))
        let types: [String?] = [nil, "application/json", "text/xml", "application/x-plist", "image/png", "text/plain", "application/octet-stream", "text/html"]
        var options = DecodingOptions()
        options.choice = choice
        options.stream = flags & 0x80 != 0
        options.sortKeys = flags & 0x40 != 0
        options.plistAsJSON = flags & 0x20 != 0
        let context = DecodingContext(options: options, theme: nil, terminal: true,
                                      mediaType: types[Int(flags & 7)], charset: nil)
        func run(_ cuts: [Int]) -> ([UInt8], DecodingOutcome) {
            let d = CompoundResponseDecoder(context: context)
            var out: [UInt8] = []
            var at = 0
            body.withUnsafeBytes { raw in
                for n in cuts {
                    d.decode(UnsafeRawBufferPointer(rebasing: raw[at..<at + n]), into: &out)
                    at += n
                }
            }
            let outcome = d.finish(into: &out)
            return (out, outcome)
        }
        let (chunkedOut, chunkedOutcome) = run(cuts)
        try checkNoControl(chunkedOut, what: "the \(choice) decoder")
        if !options.stream {
            let (wholeOut, wholeOutcome) = run(body.isEmpty ? [] : [body.count])
            guard wholeOut == chunkedOut, wholeOutcome == chunkedOutcome else {
                throw FuzzPropertyFailure("\(choice) decoder output depends on the chunking")
            }
        }
    }
}

final class FuzzNullSource: ByteSource {
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int { 0 }
}

final class FuzzNullSink: ByteSink {
    func write(_ bytes: UnsafeRawBufferPointer) throws {}
}
