import SwurlCore

/// The directives of `Cache-Control` fields (RFC 9111 §5.2), names lower-cased, values
/// unquoted; several fields and lists combine. A directive given twice keeps its first value.
package struct CacheControl: Sendable, Equatable {
    package private(set) var directives: [String: String?] = [:]

    /// Parses every `Cache-Control` field of `headers`.
    package init(_ headers: HTTPHeaders) {
        for value in headers.values("Cache-Control") { add(value) }
    }

    /// Parses one field value (`max-age=60, no-cache="Set-Cookie"`).
    package init(_ value: String) { add(value) }

    /// No directives; `add(bytes:)` adds a field's.
    package init() {}

    private mutating func add(_ value: String) {
        var value = value
        value.withUTF8 { add(bytes: $0) }
    }

    /// Adds the directives of one field value given in bytes (`swurl cache list` takes them
    /// from an entry's head without making the field a string). Names are ASCII-lower-cased,
    /// which is all a token can need.
    package mutating func add(bytes b: UnsafeBufferPointer<UInt8>) {
        func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 }
        func trimmed(_ lo: Int, _ hi: Int) -> Range<Int> {
            var lo = lo, hi = hi
            while lo < hi && isSpace(b[lo]) { lo += 1 }
            while hi > lo && (isSpace(b[hi - 1]) || b[hi - 1] == 0x0D || b[hi - 1] == 0x0A) { hi -= 1 }
            return lo..<hi
        }
        var i = 0
        while i < b.count {
            // A name up to '=' or ','.
            var nameEnd = i
            while nameEnd < b.count && b[nameEnd] != 0x3D && b[nameEnd] != 0x2C { nameEnd += 1 }
            let nameRange = trimmed(i, nameEnd)
            let name = String(decoding: b[nameRange].map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
            i = nameEnd
            var argument: String?
            if i < b.count && b[i] == 0x3D {
                i += 1
                while i < b.count && isSpace(b[i]) { i += 1 }
                if i < b.count && b[i] == 0x22 {
                    // A quoted string, backslash escapes kept simple.
                    i += 1
                    var text: [UInt8] = []
                    var escaped = false
                    while i < b.count {
                        let c = b[i]
                        i += 1
                        if escaped { text.append(c); escaped = false } else if c == 0x5C { escaped = true } else if c == 0x22 { break } else { text.append(c) }
                    }
                    argument = String(decoding: text, as: UTF8.self)
                    while i < b.count && b[i] != 0x2C { i += 1 }
                } else {
                    var end = i
                    while end < b.count && b[end] != 0x2C { end += 1 }
                    argument = String(decoding: UnsafeBufferPointer(rebasing: b[trimmed(i, end)]), as: UTF8.self)
                    i = end
                }
            }
            if i < b.count && b[i] == 0x2C { i += 1 }
            if !name.isEmpty && directives[name] == nil { directives[name] = .some(argument) }
        }
    }

    /// Whether the directive is present (with or without an argument).
    package func has(_ name: String) -> Bool { directives[name] != nil }

    /// A delta-seconds argument (RFC 9111 §1.2.2): digits only; a value too large for the
    /// arithmetic is taken as 2^31 (the RFC's "infinity"). Nil when absent or not digits.
    package func seconds(_ name: String) -> Double? {
        guard let entry = directives[name], let text = entry, !text.isEmpty,
              text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        if text.utf8.count > 10 { return 2_147_483_648 }
        return Double(Int(text) ?? 2_147_483_648)
    }

    /// `max-stale` with no argument: any staleness. Nil when absent; a bad argument is as absent.
    package var maxStale: Double? {
        guard let entry = directives["max-stale"] else { return nil }
        if entry == nil { return .infinity }
        return seconds("max-stale")
    }
}
