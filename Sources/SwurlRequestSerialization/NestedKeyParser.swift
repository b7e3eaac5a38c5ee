import SwurlCore
/// One step of a nested key: `name`, `[name]`, `[3]` or `[]`.
package enum KeyComponent: Equatable, Sendable {
    case key(String)
    case index(Int)
    case append
}

/// A parsed nested key with the offsets of each component in the original text, so errors
/// can point at the offending part.
package struct NestedKey: Equatable, Sendable {
    package var components: [KeyComponent]
    /// The character offset in the key text where each component starts.
    package var offsets: [Int]
}

/// Parses HTTPie 3's nested-key grammar: `a[b][c]`, `a[]`, `a[3]`, `[]`, `[0]`; `\[` and `\]`
/// are literal brackets, and a bracket (or a whole first part) holding a backslash and digits
/// only is that number as a key (`a[\5]` is the key "5", not index 5: HTTPie's escaped integer).
package enum NestedKeyParser {
    /// The deepest key accepted, as deep as `:=` JSON may nest.
    package static let maxDepth = 512
    /// The largest array index a key may name.
    package static let maxIndex = 100_000

    /// - Parameter item: the whole item text, quoted in errors.
    /// - Throws: `SwurlError.usage` whose hint shows the item with a caret under the bad character.
    /// - Parameter maxIndex: the largest array index allowed (`maxIndex` unless a caller, such
    ///   as a fuzz harness exploring shapes rather than sizes, asks for less).
    /// - Parameter jsonRules: HTTPie's nested-JSON rules on top (a negative index and a key that
    ///   starts with `[` not followed by an index are refused); forms keep such keys as text.
    package static func parse(_ key: String, item: String, maxIndex: Int = NestedKeyParser.maxIndex,
                              jsonRules: Bool = true) throws(SwurlError) -> NestedKey {
        // Unicode scalars, not Characters: a bracket followed by a combining mark is still a bracket.
        let chars = Array(key.unicodeScalars)
        var components: [KeyComponent] = []
        var offsets: [Int] = []
        var i = 0
        var head = String.UnicodeScalarView()
        // The first component: plain text up to the first unescaped '['.
        while i < chars.count, chars[i] != "[" {
            if chars[i] == "\\", i + 1 < chars.count, chars[i + 1] == "[" || chars[i + 1] == "]" {
                head.append(chars[i + 1])
                i += 2
                continue
            }
            if chars[i] == "]" {
                throw error(item, key: key, at: i, "unexpected ']' (write \\] for a literal bracket)")
            }
            head.append(chars[i])
            i += 1
        }
        if i > 0 || chars.isEmpty {
            components.append(.key(escapedInteger(head) ?? String(head)))
            offsets.append(0)
        }
        while i < chars.count {
            guard chars[i] == "[" else {
                throw error(item, key: key, at: i, "expected '[' after ']'")
            }
            let start = i
            i += 1
            var inner = String.UnicodeScalarView()
            var closed = false
            while i < chars.count {
                if chars[i] == "\\", i + 1 < chars.count, chars[i + 1] == "[" || chars[i + 1] == "]" {
                    inner.append(chars[i + 1])
                    i += 2
                    continue
                }
                if chars[i] == "]" { closed = true; i += 1; break }
                if chars[i] == "[" {
                    throw error(item, key: key, at: i, "unexpected '[' inside brackets (write \\[ for a literal bracket)")
                }
                inner.append(chars[i])
                i += 1
            }
            if !closed { throw error(item, key: key, at: start, "unclosed '['") }
            if inner.isEmpty {
                components.append(.append)
            } else if let key = escapedInteger(inner) {
                components.append(.key(key))
            } else if inner.allSatisfy(isDigit) {
                guard let n = Int(String(inner)), n <= maxIndex else {
                    throw error(item, key: key, at: start + 1, "array index \(String(inner)) is too large (at most \(maxIndex))")
                }
                components.append(.index(n))
            } else if jsonRules, inner.first == "-", inner.count > 1, inner.dropFirst().allSatisfy(isDigit) {
                // As HTTPie: `a[-1]` is no key "-1" but an index it does not take.
                throw error(item, key: key, at: start + 1, "negative array indexes are not supported")
            } else if start == 0 {
                // A key that starts with '[' is an array at the top: `[0]`, `[]` (HTTPie's rule).
                guard !jsonRules else {
                    throw error(item, key: key, at: start + 1, "a key that starts with '[' needs an array index or [] there (write \\[ for a literal bracket)")
                }
                // A form's `[x]=1` is the name `[x]`, as written (it was sent as `x`).
                components.append(.key("[" + String(inner) + "]"))
            } else {
                components.append(.key(String(inner)))
            }
            offsets.append(start)
            if components.count > maxDepth {
                throw error(item, key: key, at: start, "more than \(maxDepth) levels of nesting")
            }
        }
        return NestedKey(components: components, offsets: offsets)
    }

    private static func isDigit(_ c: Unicode.Scalar) -> Bool { ("0"..."9").contains(c) }

    /// `\5` → "5": a backslash and digits only, as HTTPie reads an escaped integer; nil otherwise
    /// (`a\5b`, `x\1` keep their backslash, as HTTPie sends them).
    private static func escapedInteger(_ text: String.UnicodeScalarView) -> String? {
        guard text.count > 1, text.first == "\\", text.dropFirst().allSatisfy(isDigit) else { return nil }
        return String(String.UnicodeScalarView(text.dropFirst()))
    }

    /// A usage error that quotes the item and puts a caret under character `at` of the key.
    static func error(_ item: String, key: String, at offset: Int, _ reason: String) -> SwurlError {
        .usage("bad nested key in '\(item)': \(reason)",
               hint: "  \(key)\n  \(String(repeating: " ", count: offset))^")
    }
}

extension Character {
    package var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
