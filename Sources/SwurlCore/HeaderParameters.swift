/// A header value's parameters (`type/sub; name=value; name="quoted"`), for every place that
/// reads one: `Content-Type`'s charset and boundary, `Content-Disposition`'s file name.
package enum HeaderParameters {
    /// `value` split at `;` outside double quotes; the first piece is what precedes the
    /// parameters (the media type), the rest are `name=value` pieces as written.
    package static func split(_ value: String) -> [String] {
        var out: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for c in value {
            if escaped { current.append(c); escaped = false; continue }
            if c == "\\" && quoted { current.append(c); escaped = true; continue }
            if c == "\"" { quoted.toggle() }
            if c == ";" && !quoted { out.append(current); current = ""; continue }
            current.append(c)
        }
        out.append(current)
        return out
    }

    /// The value of the parameter `name` (matched in any case), without its quotes and their
    /// backslash escapes; nil when `value` has none.
    package static func value(_ name: String, in value: String) -> String? {
        for piece in split(value).dropFirst() {
            guard let eq = piece.firstIndex(of: "=") else { continue }
            guard String(piece[..<eq]).trimmingSpaces().lowercased() == name.lowercased() else { continue }
            return unquote(String(piece[piece.index(after: eq)...]).trimmingSpaces())
        }
        return nil
    }

    /// A quoted string (`"a \"b\""`) without its quotes and backslash escapes; anything else as it is.
    package static func unquote(_ s: String) -> String {
        guard s.count >= 2, s.hasPrefix("\""), s.hasSuffix("\"") else { return s }
        var out = ""
        var escaped = false
        for c in s.dropFirst().dropLast() {
            if escaped { out.append(c); escaped = false } else if c == "\\" { escaped = true } else { out.append(c) }
        }
        return out
    }

    /// `value` without its parameter `name` (in any case), the others kept as written.
    package static func removing(_ name: String, from value: String) -> String {
        let pieces = split(value)
        guard let first = pieces.first else { return value }
        let kept = pieces.dropFirst().filter { piece in
            guard let eq = piece.firstIndex(of: "=") else { return true }
            return String(piece[..<eq]).trimmingSpaces().lowercased() != name.lowercased()
        }
        return ([first] + kept).joined(separator: ";")
    }
}
