/// An ordered list of header fields that keeps duplicates and the user's spelling.
package struct HTTPHeaders: Sendable, Equatable, Sequence {
    /// One header line.
    package struct Field: Sendable, Equatable {
        package var name: String
        package var value: String
        package init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    package private(set) var fields: [Field] = []

    package init(_ fields: [Field] = []) { self.fields = fields }

    package func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// The first value for `name`, compared case-insensitively.
    package subscript(name: String) -> String? {
        fields.first { HTTPHeaders.sameName($0.name, name) }?.value
    }

    /// Whether two field names are the same name: their bytes equal but for ASCII case (field
    /// names are tokens, RFC 9110 §5.1). Unicode case was applied to a name with other bytes, so
    /// `Coo\u{212A}ie` (KELVIN SIGN, which lower-cases to `k`) was taken for `Cookie`, while
    /// libcurl sends its bytes.
    package static func sameName(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                guard x.count == y.count else { return false }
                for i in 0..<x.count where x[i] != y[i] && HTTPHeaders.lower(x[i]) != HTTPHeaders.lower(y[i]) { return false }
                return true
            }
        }
    }

    private static func lower(_ b: UInt8) -> UInt8 {
        b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z") ? b + 32 : b
    }

    /// Every value for `name`, in order (compared case-insensitively).
    package func values(_ name: String) -> [String] {
        fields.filter { HTTPHeaders.sameName($0.name, name) }.map(\.value)
    }

    /// Every field named `name` as one list value (RFC 9110 §5.3: `Content-Encoding: gzip` and
    /// `Content-Encoding: x-foo` on two lines are `gzip, x-foo`); nil when there is none.
    package func combined(_ name: String) -> String? {
        // One field (the common case) is its value: no list is made (every response asks).
        guard let first = fields.firstIndex(where: { HTTPHeaders.sameName($0.name, name) }) else { return nil }
        guard fields[(first + 1)...].contains(where: { HTTPHeaders.sameName($0.name, name) }) else { return fields[first].value }
        return values(name).joined(separator: ", ")
    }

    /// The codings a Content-Encoding (or Transfer-Encoding) value names, lower case, without
    /// `identity` and empty members: none for `identity` alone.
    package static func codings(_ value: String) -> [String] {
        value.split(separator: ",").map { String($0).trimmingSpaces().lowercased() }.filter { !$0.isEmpty && $0 != "identity" }
    }

    /// Whether a field named `name` exists.
    package func contains(_ name: String) -> Bool { self[name] != nil }

    /// Appends a field, keeping any existing ones with the same name.
    package mutating func add(_ name: String, _ value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field named `name` with one field, at the place of the first one.
    package mutating func set(_ name: String, _ value: String) {
        let key = name.lowercased()
        var replaced = false
        fields = fields.compactMap { field in
            guard field.name.lowercased() == key else { return field }
            if replaced { return nil }
            replaced = true
            return Field(name: name, value: value)
        }
        if !replaced { add(name, value) }
    }

    /// Removes every field named `name`.
    package mutating func remove(_ name: String) {
        let key = name.lowercased()
        fields.removeAll { $0.name.lowercased() == key }
    }
}
