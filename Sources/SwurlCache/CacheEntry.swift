#if canImport(Glibc)
@preconcurrency import Glibc
#endif
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
    package static func parseFooter(_ bytes: [UInt8]) -> (body: Int64, head: Int, digest: String)? {
        bytes.withUnsafeBufferPointer { b in
            parseFooter(bytes: b).map { ($0.body, $0.head, String(decoding: UnsafeBufferPointer(rebasing: b[$0.digest]), as: UTF8.self)) }
        }
    }

    /// `parseFooter` of bytes, with where the hex digest is in them. `swurl cache list` reads
    /// one footer per entry: words by index, nothing allocated.
    package static func parseFooter(bytes b: UnsafeBufferPointer<UInt8>) -> (body: Int64, head: Int, digest: Range<Int>)? {
        guard b.count == footerSize, b[b.count - 1] == 0x0A else { return nil }
        // Five words between runs of spaces.
        let end = b.count - 1
        var i = 0
        func word() -> Range<Int>? {
            while i < end && b[i] == 0x20 { i += 1 }
            guard i < end else { return nil }
            let start = i
            while i < end && b[i] != 0x20 { i += 1 }
            return start..<i
        }
        guard let m = word(), let v = word(), let bodyWord = word(), let headWord = word(), let digest = word(), word() == nil,
              UnsafeBufferPointer(rebasing: b[m]).elementsEqual(magic.utf8), number(b, v) == Int64(version),
              let body = number(b, bodyWord), let head = number(b, headWord), head > 0, head < 16 << 20,
              digest.count == 64 else { return nil }
        return (body, Int(head), digest)
    }

    /// Whether `digest` in `footer` (as `parseFooter` found it) is the SHA-256 of `head`, in hex.
    package static func digestMatches(_ head: UnsafeBufferPointer<UInt8>, footer: UnsafeBufferPointer<UInt8>, at digest: Range<Int>) -> Bool {
        guard digest.count == 64 else { return false }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { sum in
            Digest.sha256(UnsafeRawBufferPointer(head), into: sum.baseAddress!)
            let digits: StaticString = "0123456789abcdef"
            for k in 0..<32 {
                guard footer[digest.lowerBound + 2 * k] == digits.utf8Start[Int(sum[k] >> 4)],
                      footer[digest.lowerBound + 2 * k + 1] == digits.utf8Start[Int(sum[k] & 15)] else { return false }
            }
            return true
        }
    }

    /// A decimal number of at most 18 digits (no sign), from bytes.
    static func number(_ b: UnsafeBufferPointer<UInt8>, _ r: Range<Int>) -> Int64? {
        guard !r.isEmpty, r.count <= 18 else { return nil }
        var n: Int64 = 0
        for k in r {
            let d = b[k]
            guard d >= 0x30 && d <= 0x39 else { return nil }
            n = n * 10 + Int64(d - 0x30)
        }
        return n
    }

    /// Whether `b` is UTF-8; ASCII (every head swurl writes for an ASCII URL) is checked eight
    /// bytes at a time without making a string.
    static func isUTF8(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        if let base = b.baseAddress {
            while i + 8 <= b.count {
                if UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { break }
                i += 8
            }
        }
        while i < b.count && b[i] < 0x80 { i += 1 }
        return i == b.count || String(validating: UnsafeBufferPointer(rebasing: b[i...]), as: UTF8.self) != nil
    }

    /// One line of head text as `scan` hands it on: its kind and byte ranges.
    struct HeadLine {
        enum Kind { case url, method, requestTime, responseTime, vary, status, header }
        var kind: Kind
        /// The value; for `vary` and `header` the field name, for `status` the version.
        var first: Range<Int>
        /// For `vary` and `header` the field value, for `status` the reason (maybe empty).
        var second: Range<Int> = 0..<0
        /// For `status`, the code (100...999).
        var code = 0
    }

    /// Walks head text line by line, checking the grammar `decode` and `CacheEntry.Summary`
    /// share: `TAG VALUE` lines of the known tags; `vary` and `h` values are `NAME: VALUE`,
    /// the status `VERSION CODE[ REASON]`. Empty lines are skipped. False at the first
    /// malformed line.
    static func scan(_ b: UnsafeBufferPointer<UInt8>, _ visit: (HeadLine) -> Void) -> Bool {
        func field(_ kind: HeadLine.Kind, _ v: Range<Int>) -> HeadLine? {
            var i = v.lowerBound
            while i < v.upperBound - 1, !(b[i] == 0x3A && b[i + 1] == 0x20) { i += 1 }
            guard i < v.upperBound - 1 else { return nil }
            return HeadLine(kind: kind, first: v.lowerBound..<i, second: (i + 2)..<v.upperBound)
        }
        func tag(_ r: Range<Int>, _ text: StaticString) -> Bool {
            UnsafeBufferPointer(rebasing: b[r]).elementsEqual(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }
        guard let base = b.baseAddress else { return true }
        var lineStart = 0
        while lineStart < b.count {
            let lineEnd = memchr(base + lineStart, 0x0A, b.count - lineStart).map { UnsafeRawPointer($0) - UnsafeRawPointer(base) } ?? b.count
            defer { lineStart = lineEnd + 1 }
            if lineEnd == lineStart { continue }
            var space = lineStart
            while space < lineEnd && b[space] != 0x20 { space += 1 }
            guard space < lineEnd else { return false }
            let t = lineStart..<space, value = (space + 1)..<lineEnd
            let line: HeadLine?
            switch t.count {
            case 1 where b[lineStart] == UInt8(ascii: "h"): line = field(.header, value)
            case 3 where tag(t, "url"): line = HeadLine(kind: .url, first: value)
            case 4 where tag(t, "vary"): line = field(.vary, value)
            case 6 where tag(t, "method"): line = HeadLine(kind: .method, first: value)
            case 6 where tag(t, "status"):
                // VERSION CODE[ REASON], split at the first two spaces.
                var s1 = value.lowerBound
                while s1 < value.upperBound && b[s1] != 0x20 { s1 += 1 }
                guard s1 < value.upperBound else { return false }
                var s2 = s1 + 1
                while s2 < value.upperBound && b[s2] != 0x20 { s2 += 1 }
                guard let code = number(b, (s1 + 1)..<s2), (100...999).contains(code) else { return false }
                line = HeadLine(kind: .status, first: value.lowerBound..<s1,
                                second: s2 < value.upperBound ? (s2 + 1)..<value.upperBound : value.upperBound..<value.upperBound,
                                code: Int(code))
            case 12 where tag(t, "request-time"): line = HeadLine(kind: .requestTime, first: value)
            case 13 where tag(t, "response-time"): line = HeadLine(kind: .responseTime, first: value)
            default: line = nil
            }
            guard let line else { return false }
            visit(line)
        }
        return true
    }

    /// Parses head text (checked against its digest by the caller); nil when malformed. By
    /// bytes, line by line; only values become strings.
    package static func decode(head bytes: [UInt8]) -> CacheEntry? {
        bytes.withUnsafeBufferPointer { decode(head: $0) }
    }

    /// The request and response times an entry may hold: seconds since 1970 up to about the
    /// year 5000, its own clock's readings. Others (an entry edited by hand) made ages no Int
    /// holds, and swurl trapped converting one for a message.
    package static let validTimes: ClosedRange<Double> = 0...1e11

    /// `decode` of bytes.
    package static func decode(head b: UnsafeBufferPointer<UInt8>) -> CacheEntry? {
        guard isUTF8(b) else { return nil }
        var url: String?, method: String?, requestTime: Double?, responseTime: Double?
        var vary = HTTPHeaders(), fields: [HTTPHeaders.Field] = []
        var status: (String, Int, String)?
        func text(_ r: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: b[r]), as: UTF8.self) }
        let wellFormed = scan(b) { line in
            switch line.kind {
            case .header: fields.append(HTTPHeaders.Field(name: text(line.first), value: text(line.second)))
            case .url: url = text(line.first)
            case .vary: vary.add(text(line.first), text(line.second))
            case .method: method = text(line.first)
            case .status: status = (text(line.first), line.code, text(line.second))
            case .requestTime: requestTime = Double(text(line.first))
            case .responseTime: responseTime = Double(text(line.first))
            }
        }
        guard wellFormed, let url, let method, let requestTime, let responseTime, let status,
              validTimes.contains(requestTime), validTimes.contains(responseTime) else { return nil }
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
