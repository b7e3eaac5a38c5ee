import SwurlCore

/// The directives of `Cache-Control` fields (RFC 9111 §5.2), names lower-cased, values
/// unquoted; several fields and lists combine. A directive given twice keeps its first value.
public struct CacheControl: Sendable, Equatable {
    public private(set) var directives: [String: String?] = [:]

    /// Parses every `Cache-Control` field of `headers`.
    public init(_ headers: HTTPHeaders) {
        for value in headers.values("Cache-Control") { add(value) }
    }

    /// Parses one field value (`max-age=60, no-cache="Set-Cookie"`).
    public init(_ value: String) { add(value) }

    private mutating func add(_ value: String) {
        var rest = Substring(value)
        while !rest.isEmpty {
            // A name up to '=' or ','.
            let nameEnd = rest.firstIndex { $0 == "=" || $0 == "," } ?? rest.endIndex
            let name = String(rest[..<nameEnd]).trimmingSpaces().lowercased()
            rest = rest[nameEnd...]
            var argument: String?
            if rest.first == "=" {
                rest = rest.dropFirst()
                rest = rest.drop { $0 == " " || $0 == "\t" }
                if rest.first == "\"" {
                    // A quoted string, backslash escapes kept simple.
                    rest = rest.dropFirst()
                    var text = ""
                    var escaped = false
                    while let c = rest.first {
                        rest = rest.dropFirst()
                        if escaped { text.append(c); escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { break } else { text.append(c) }
                    }
                    argument = text
                    rest = rest.drop { $0 != "," }
                } else {
                    let end = rest.firstIndex(of: ",") ?? rest.endIndex
                    argument = String(rest[..<end]).trimmingSpaces()
                    rest = rest[end...]
                }
            }
            if rest.first == "," { rest = rest.dropFirst() }
            if !name.isEmpty && directives[name] == nil { directives[name] = .some(argument) }
        }
    }

    /// Whether the directive is present (with or without an argument).
    public func has(_ name: String) -> Bool { directives[name] != nil }

    /// A delta-seconds argument (RFC 9111 §1.2.2): digits only; a value too large for the
    /// arithmetic is taken as 2^31 (the RFC's "infinity"). Nil when absent or not digits.
    public func seconds(_ name: String) -> Double? {
        guard let entry = directives[name], let text = entry, !text.isEmpty,
              text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        if text.utf8.count > 10 { return 2_147_483_648 }
        return Double(Int(text) ?? 2_147_483_648)
    }

    /// `max-stale` with no argument: any staleness. Nil when absent; a bad argument is as absent.
    public var maxStale: Double? {
        guard let entry = directives["max-stale"] else { return nil }
        if entry == nil { return .infinity }
        return seconds("max-stale")
    }
}
