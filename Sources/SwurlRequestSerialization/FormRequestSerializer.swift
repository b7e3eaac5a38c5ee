import SwurlCore
/// `--form`: AFNetworking's urlencoded form. Nested objects become `parent[child]`, arrays
/// `parent[]` repeated in order; brackets are added before escaping so they travel as
/// `%5B`/`%5D`. With GET, HEAD and DELETE the pairs go into the query string instead
/// (AFNetworking's HTTPMethodsEncodingParametersInURI).
package struct FormRequestSerializer: RequestSerializing {
    /// The media type of what it writes, also for a raw body in this mode (`--raw`, stdin).
    package static let mediaType = "application/x-www-form-urlencoded; charset=utf-8"
    package var contentType: String { Self.mediaType }

    package init() {}

    package func serialize(tree: JSONValue?, parameters: RequestParameters, into request: inout HTTPRequest) throws(SwurlError) {
        guard let tree else { return }
        let query = FormRequestSerializer.encode(tree)
        if request.method.encodesParametersInURI {
            if !query.isEmpty { request.url = URLText.appendingQuery(query, to: request.url) }
        } else {
            request.body = RequestBody(bytes: Array(query.utf8))
        }
    }

    /// The `key=value&…` text for a tree (AFQueryStringFromParameters, in item order), written
    /// into one buffer; an array's items share one name, escaped once.
    package static func encode(_ tree: JSONValue) -> String {
        var out: [UInt8] = []
        var last: (name: String, escaped: [UInt8])?
        for (name, value) in pairs(tree) {
            if last != nil { out.append(UInt8(ascii: "&")) }
            // Bytes, not String ==: two names equal only up to Unicode equivalence escape differently.
            if let l = last, l.name.utf8.elementsEqual(name.utf8) {
                out.append(contentsOf: l.escaped)
            } else {
                var escaped: [UInt8] = []
                appendEscaped(name, to: &escaped)
                out.append(contentsOf: escaped)
                last = (name, escaped)
            }
            if let value {
                out.append(UInt8(ascii: "="))
                appendEscaped(value, to: &out)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The flattened (name, value) pairs, brackets already in the names; a nil value is a null.
    package static func pairs(_ tree: JSONValue) -> [(String, String?)] {
        var out: [(String, String?)] = []
        flatten(tree, name: nil, into: &out)
        return out
    }

    private static func flatten(_ value: JSONValue, name: String?, into out: inout [(String, String?)]) {
        switch value {
        case .object(let members):
            for m in members { flatten(m.value, name: name.map { "\($0)[\(m.key)]" } ?? m.key, into: &out) }
        case .array(let items):
            for item in items { flatten(item, name: (name ?? "") + "[]", into: &out) }
        case .null:
            out.append((name ?? "", nil))
        default:
            out.append((name ?? "", value.formText))
        }
    }

    /// Percent-encodes every byte outside `A-Z a-z 0-9 - . _ ~ / ?` as uppercase `%XX`
    /// (AFPercentEscapedStringFromString); space is `%20`, `%` itself is encoded.
    package static func percentEscape(_ s: String) -> String {
        var out: [UInt8] = []
        appendEscaped(s, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `percentEscape(s)`'s bytes appended to `out`.
    static func appendEscaped(_ s: String, to out: inout [UInt8]) {
        // ArgumentBytes: a query value from argv may hold bytes that are not UTF-8; they are
        // percent-encoded as they are.
        // No reserveCapacity here: called once per name and value, an exact reservation would
        // reallocate the whole buffer every time (quadratic), where append grows it geometrically.
        for b in ArgumentBytes.bytes(s) {
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
                 UInt8(ascii: "/"), UInt8(ascii: "?"):
                out.append(b)
            default:
                out.append(UInt8(ascii: "%"))
                out.append(hexDigit(b >> 4))
                out.append(hexDigit(b & 0xF))
            }
        }
    }

    private static func hexDigit(_ d: UInt8) -> UInt8 { d < 10 ? 0x30 + d : 0x37 + d }
}
