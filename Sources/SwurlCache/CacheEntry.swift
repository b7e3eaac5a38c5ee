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
package struct CacheEntry: Sendable, Equatable {
    package var url: String
    package var method: String
    /// When the request was sent and when the response head arrived (seconds since the epoch).
    package var requestTime: Double
    package var responseTime: Double
    /// The request's values of the header fields the response's `Vary` lists.
    package var varyRequest: HTTPHeaders
    package var head: HTTPResponseHead

    package init(url: String, method: String, requestTime: Double, responseTime: Double, varyRequest: HTTPHeaders,
                head: HTTPResponseHead) {
        self.url = url
        self.method = method
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.varyRequest = varyRequest
        self.head = head
    }

    /// The format version in every footer; entries of another are ignored and replaced.
    package static let version = 1
    /// The footer's size: `SWURLCACHE V BODYLEN HEADLEN SHA256HEX`, padded, ending in LF.
    package static let footerSize = 128
    private static let magic = "SWURLCACHE"

    /// The head as text lines.
    package func encodedHead() -> [UInt8] {
        var s = "url \(url)\nmethod \(method)\nrequest-time \(requestTime)\nresponse-time \(responseTime)\n"
        for f in varyRequest { s += "vary \(f.name): \(f.value)\n" }
        s += "status \(head.version) \(head.status) \(head.reason)\n"
        for f in head.headers { s += "h \(f.name): \(f.value)\n" }
        return Array(s.utf8)
    }

    /// The footer for a body of `bodyLength` bytes and this head text.
    package static func footer(bodyLength: Int64, head: [UInt8]) -> [UInt8] {
        let digest = hex(Digest.sha256(head))
        var s = "\(magic) \(version) \(bodyLength) \(head.count) \(digest)"
        while s.utf8.count < footerSize - 1 { s += " " }
        return Array(s.utf8) + [0x0A]
    }

    /// The lengths a footer states, if it is one of this version: (body, head, head digest).
    /// Read by bytes: `swurl cache list` reads one footer per entry.
    package static func parseFooter(_ bytes: [UInt8]) -> (body: Int64, head: Int, digest: String)? {
        guard bytes.count == footerSize, bytes.last == 0x0A else { return nil }
        // Five words between runs of spaces, by index (no arrays of slices: one footer per entry).
        var words: [Range<Int>] = []
        words.reserveCapacity(5)
        var i = 0
        let end = bytes.count - 1
        while i < end {
            while i < end && bytes[i] == 0x20 { i += 1 }
            guard i < end else { break }
            let start = i
            while i < end && bytes[i] != 0x20 { i += 1 }
            guard words.count < 5 else { return nil }
            words.append(start..<i)
        }
        guard words.count == 5, bytes[words[0]].elementsEqual(magic.utf8), let v = number(bytes[words[1]]), v == version,
              let body = number(bytes[words[2]]), let head = number(bytes[words[3]]), head > 0, head < 16 << 20,
              words[4].count == 64 else { return nil }
        return (body, Int(head), String(decoding: bytes[words[4]], as: UTF8.self))
    }

    /// A decimal number of at most 18 digits (no sign), from bytes.
    private static func number(_ digits: ArraySlice<UInt8>) -> Int64? {
        guard !digits.isEmpty, digits.count <= 18 else { return nil }
        var n: Int64 = 0
        for d in digits {
            guard d >= 0x30 && d <= 0x39 else { return nil }
            n = n * 10 + Int64(d - 0x30)
        }
        return n
    }

    /// Parses head text (checked against its digest by the caller); nil when malformed. By
    /// bytes, line by line; only values become strings.
    package static func decode(head bytes: [UInt8]) -> CacheEntry? {
        guard String(validating: bytes, as: UTF8.self) != nil else { return nil }
        var url: String?, method: String?, requestTime: Double?, responseTime: Double?
        var vary = HTTPHeaders(), fields: [HTTPHeaders.Field] = []
        var status: (String, Int, String)?
        func text(_ b: ArraySlice<UInt8>) -> String { String(decoding: b, as: UTF8.self) }
        func field(_ b: ArraySlice<UInt8>) -> HTTPHeaders.Field? {
            var i = b.startIndex
            while i < b.endIndex - 1, !(b[i] == 0x3A && b[i + 1] == 0x20) { i += 1 }
            guard i < b.endIndex - 1 else { return nil }
            return HTTPHeaders.Field(name: text(b[b.startIndex..<i]), value: text(b[(i + 2)...]))
        }
        var lineStart = 0
        while lineStart < bytes.count {
            let lineEnd = bytes[lineStart...].firstIndex(of: 0x0A) ?? bytes.count
            defer { lineStart = lineEnd + 1 }
            // Empty lines are skipped, as split(separator:) skipped them.
            if lineEnd == lineStart { continue }
            let line = bytes[lineStart..<lineEnd]
            guard let space = line.firstIndex(of: 0x20) else { return nil }
            let tag = line[line.startIndex..<space], value = line[(space + 1)...]
            switch tag.count {
            case 1 where tag.first == UInt8(ascii: "h"):
                guard let f = field(value) else { return nil }
                fields.append(f)
            case 3 where tag.elementsEqual("url".utf8): url = text(value)
            case 4 where tag.elementsEqual("vary".utf8):
                guard let f = field(value) else { return nil }
                vary.add(f.name, f.value)
            case 6 where tag.elementsEqual("method".utf8): method = text(value)
            case 6 where tag.elementsEqual("status".utf8):
                let parts = value.split(separator: 0x20, maxSplits: 2, omittingEmptySubsequences: false)
                guard parts.count >= 2, let code = number(parts[1]), (100...999).contains(code) else { return nil }
                status = (text(parts[0]), Int(code), parts.count > 2 ? text(parts[2]) : "")
            case 12 where tag.elementsEqual("request-time".utf8): requestTime = Double(text(value))
            case 13 where tag.elementsEqual("response-time".utf8): responseTime = Double(text(value))
            default: return nil
            }
        }
        guard let url, let method, let requestTime, let responseTime, let status,
              requestTime.isFinite, responseTime.isFinite else { return nil }
        return CacheEntry(url: url, method: method, requestTime: requestTime, responseTime: responseTime, varyRequest: vary,
                          head: HTTPResponseHead(version: status.0, status: status.1, reason: status.2, headers: HTTPHeaders(fields)))
    }

    /// Lower-case hexadecimal.
    package static func hex(_ bytes: [UInt8]) -> String {
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
