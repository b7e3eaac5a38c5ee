import SwurlResponseSerialization
import SwurlCore
/// Shows XML and binary property lists as an indented, coloured XML plist — or as JSON with
/// `--plist-as json`. Dates become ISO 8601 UTC, data base64 with its size (and its bytes in hex
/// when short), keyed-archiver UIDs `CF$UID` dictionaries.
///
/// Unlike the XML and JSON decoders this one needs the whole body (up to 16 MiB, past which it
/// is shown as text): a binary plist is read through an offset table at its end, and both kinds
/// are decoded into a value tree before anything is shown (dates, data and UIDs are rewritten,
/// and `--plist-as json` changes the syntax), so there is nothing to show before the end.
final class PropertyListResponseDecoder: ResponseDecoding {
    private let context: DecodingContext
    private var body: WholeBody

    init(context: DecodingContext) {
        self.context = context
        // 16 MiB: a plist of `<true/>` elements takes some 20 times its bytes as values.
        body = WholeBody(limit: MemoryLimit.bound(16 << 20, perUnit: 40), context: context)
    }

    /// The charset an XML property list is in when not UTF-8: the label's (`charset=`), else the
    /// declaration's `encoding` (not after a UTF-8 byte order mark, which makes it UTF-8); nil
    /// for a binary plist, UTF-8 and what reads `<?xml` otherwise than as ASCII.
    static func charset(ofXML bytes: [UInt8], label: String?) -> String? {
        guard !bytes.starts(with: Array("bplist".utf8)) else { return nil }
        if let label { return TextResponseDecoder.isUTF8Compatible(label) ? nil : label }
        return XMLResponseDecoder.declaredCharset(bytes)
    }

    package func decode(_ chunk: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        body.add(chunk, into: &out)
    }

    func finish(into out: inout [UInt8]) -> DecodingOutcome {
        guard var bytes = body.finish(into: &out) else {
            return .failed("the body is too large for a property list; not decoded")
        }
        if isBlank(bytes) { return .decoded }
        // An XML property list in UTF-16 (by its byte order mark, as the XML decoder reads one):
        // read as its UTF-8.
        if XMLResponseDecoder.isUTF16(bytes), let converter = CharsetConverter(from: "UTF-16") {
            bytes = bytes.withUnsafeBytes { converter.convert($0, final: true) }
        } else if let name = PropertyListResponseDecoder.charset(ofXML: bytes, label: context.charset), let converter = CharsetConverter(from: name) {
            // Another charset (the Content-Type's, else the declaration's: ISO-8859-1's `é`
            // was read as UTF-8 and shown as U+FFFD), as the XML decoder converts it.
            bytes = bytes.withUnsafeBytes { converter.convert($0, final: true) }
        }
        let value: PropertyListValue
        do {
            value = try PropertyListReader.read(bytes)
        } catch {
            // Binary that is not a plist is never dumped on a terminal.
            if context.terminal && BinarySniffer.hasNUL(bytes) {
                return .failed("the body is not a property list (\(error.reason)); \(bytes.count) bytes not shown")
            }
            TextResponseDecoder.show(bytes, context: context, into: &out)
            return .failed("the body is not a property list (\(error.reason)); shown as sent")
        }
        if context.options.plistAsJSON {
            let f = JSONStreamFormatter(theme: context.theme, sanitize: context.terminal)
            var compact: [UInt8] = []
            // As JSON it takes JSON's options (--sort-keys was ignored without a word).
            var json = PropertyListResponseDecoder.json(value)
            if context.options.dropNulls { json = JSONTransform.droppingNulls(json) }
            if context.options.sortKeys { json = JSONTransform.sortingKeys(json) }
            json.write(to: &compact)
            compact.withUnsafeBytes { f.feed($0, into: &out) }
            f.finish(into: &out)
        } else {
            // Our own well-formed XML, so the formatter never falls back here.
            let formatter = XMLStreamFormatter(theme: context.theme, sanitize: context.terminal)
            PropertyListResponseDecoder.xml(value).withUnsafeBytes { formatter.feed($0, into: &out) }
            formatter.finish(into: &out)
        }
        return .decoded
    }

    // MARK: Rendering

    /// The value as an XML property list document.
    static func xml(_ value: PropertyListValue) -> [UInt8] {
        var s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        s += "<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n"
        s += "<plist version=\"1.0\">"
        writeXML(value, into: &s)
        s += "</plist>\n"
        return Array(s.utf8)
    }

    private static func writeXML(_ value: PropertyListValue, into s: inout String) {
        switch value {
        case .string(let v): s += "<string>\(v.xmlEscaped)</string>"
        case .integer(let v): s += "<integer>\(v)</integer>"
        case .real(let v): s += "<real>\(realText(v))</real>"
        case .bool(let v): s += v ? "<true/>" : "<false/>"
        case .date(let v):
            s += "<date>\(PropertyListDate.format(v))</date>"
            if !PropertyListDate.isWritable(v) { s += "<!-- not a date ISO 8601 can write: seconds since 2001-01-01 -->" }
        case .data(let d):
            s += "<data>\(Base64.encode(d))</data><!-- \(dataSummary(d)) -->"
        case .uid(let v): s += "<dict><key>CF$UID</key><integer>\(v)</integer></dict>"
        case .array(let items):
            s += "<array>"
            for i in items { writeXML(i, into: &s) }
            s += "</array>"
        case .dictionary(let members):
            s += "<dict>"
            for (k, v) in members {
                s += "<key>\(k.xmlEscaped)</key>"
                writeXML(v, into: &s)
            }
            s += "</dict>"
        }
    }

    /// `3 bytes: 00 01 02` for short data, `1024 bytes` otherwise.
    static func dataSummary(_ d: [UInt8]) -> String {
        guard !d.isEmpty, d.count <= 32 else { return counted(d.count, "byte") }
        let hex = Array("0123456789abcdef".utf8)
        let text = d.map { String(decoding: [hex[Int($0 >> 4)], hex[Int($0 & 0xF)]], as: UTF8.self) }.joined(separator: " ")
        return "\(counted(d.count, "byte")): \(text)"
    }

    private static func realText(_ v: Double) -> String {
        if v.isNaN { return "nan" }
        if v.isInfinite { return v < 0 ? "-inf" : "+inf" }
        // Int64 has no negative zero: -0.0 keeps its sign.
        if v == 0 && v.sign == .minus { return "-0" }
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return String(v)
    }

    /// The value as JSON: dates as ISO 8601 strings, data as base64 strings, UIDs as `{"CF$UID": n}`.
    static func json(_ value: PropertyListValue) -> JSONValue {
        switch value {
        case .string(let v): return .string(v)
        case .integer(let v): return .number(v.hasPrefix("0x") ? String(UInt64(v.dropFirst(2), radix: 16) ?? 0) : v)
        case .real(let v): return v.isFinite ? .number(realText(v)) : .string(realText(v))
        case .bool(let v): return .bool(v)
        case .date(let v): return .string(PropertyListDate.format(v))
        case .data(let d): return .string(Base64.encode(d))
        case .uid(let v): return .object([JSONValue.Member("CF$UID", .number(String(v)))])
        case .array(let items): return .array(items.map(json))
        case .dictionary(let members): return .object(members.map { JSONValue.Member($0.0, json($0.1)) })
        }
    }
}
