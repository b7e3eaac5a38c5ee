import SwurlCore
import SwurlSecurity

/// What a cache entry holds besides the body: the URL and method it answers, when it was
/// fetched, the request header values its `Vary` names, and the response head as received.
///
/// On disk an entry is one file: the body, then this head as text lines, then a fixed-size
/// footer (`CacheEntry.footerSize` bytes) with the format version, both lengths and the
/// SHA-256 of the head text. The body comes first so that it streams to the file as it
/// arrives; the head and footer are appended when the response is complete and the file is
/// renamed into place. A file whose size is not body + head + footer, whose head does not
/// match its digest, or whose version is another is no entry (`decode` returns nil).
public struct CacheEntry: Sendable, Equatable {
    public var url: String
    public var method: String
    /// When the request was sent and when the response head arrived (seconds since the epoch).
    public var requestTime: Double
    public var responseTime: Double
    /// The request's values of the header fields the response's `Vary` lists.
    public var varyRequest: HTTPHeaders
    public var head: HTTPResponseHead

    public init(url: String, method: String, requestTime: Double, responseTime: Double, varyRequest: HTTPHeaders,
                head: HTTPResponseHead) {
        self.url = url
        self.method = method
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.varyRequest = varyRequest
        self.head = head
    }

    /// The format version in every footer; entries of another are ignored and replaced.
    public static let version = 1
    /// The footer's size: `SWURLCACHE V BODYLEN HEADLEN SHA256HEX`, padded, ending in LF.
    public static let footerSize = 128
    private static let magic = "SWURLCACHE"

    /// The head as text lines.
    public func encodedHead() -> [UInt8] {
        var s = "url \(url)\nmethod \(method)\nrequest-time \(requestTime)\nresponse-time \(responseTime)\n"
        for f in varyRequest { s += "vary \(f.name): \(f.value)\n" }
        s += "status \(head.version) \(head.status) \(head.reason)\n"
        for f in head.headers { s += "h \(f.name): \(f.value)\n" }
        return Array(s.utf8)
    }

    /// The footer for a body of `bodyLength` bytes and this head text.
    public static func footer(bodyLength: Int64, head: [UInt8]) -> [UInt8] {
        let digest = hex(Digest.sha256(head))
        var s = "\(magic) \(version) \(bodyLength) \(head.count) \(digest)"
        while s.utf8.count < footerSize - 1 { s += " " }
        return Array(s.utf8) + [0x0A]
    }

    /// The lengths a footer states, if it is one of this version: (body, head).
    public static func parseFooter(_ bytes: [UInt8], headDigest: (([UInt8]) -> Bool)? = nil) -> (body: Int64, head: Int, digest: String)? {
        guard bytes.count == footerSize, bytes.last == 0x0A else { return nil }
        let words = String(decoding: bytes.dropLast(), as: UTF8.self).split(separator: " ")
        guard words.count == 5, words[0] == magic, Int(words[1]) == version,
              let body = Int64(words[2]), body >= 0, let head = Int(words[3]), head > 0, head < 16 << 20,
              words[4].utf8.count == 64 else { return nil }
        return (body, head, String(words[4]))
    }

    /// Parses head text (checked against its digest by the caller); nil when malformed.
    public static func decode(head bytes: [UInt8]) -> CacheEntry? {
        guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
        var url: String?, method: String?, requestTime: Double?, responseTime: Double?
        var vary = HTTPHeaders(), fields: [HTTPHeaders.Field] = []
        var status: (String, Int, String)?
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            guard let space = line.firstIndex(of: " ") else { return nil }
            let tag = line[..<space], value = String(line[line.index(after: space)...])
            switch tag {
            case "url": url = value
            case "method": method = value
            case "request-time": requestTime = Double(value)
            case "response-time": responseTime = Double(value)
            case "vary", "h":
                guard let colon = value.rangeOfText(": ") else { return nil }
                let field = HTTPHeaders.Field(name: String(value[..<colon.lowerBound]), value: String(value[colon.upperBound...]))
                if tag == "vary" { vary.add(field.name, field.value) } else { fields.append(field) }
            case "status":
                let parts = value.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
                guard parts.count >= 2, let code = Int(parts[1]), (100...999).contains(code) else { return nil }
                status = (String(parts[0]), code, parts.count > 2 ? String(parts[2]) : "")
            default: return nil
            }
        }
        guard let url, let method, let requestTime, let responseTime, let status,
              requestTime.isFinite, responseTime.isFinite else { return nil }
        return CacheEntry(url: url, method: method, requestTime: requestTime, responseTime: responseTime, varyRequest: vary,
                          head: HTTPResponseHead(version: status.0, status: status.1, reason: status.2, headers: HTTPHeaders(fields)))
    }

    /// Lower-case hexadecimal.
    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
