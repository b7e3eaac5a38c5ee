/// An ordered list of header fields that keeps duplicates and the user's spelling.
public struct HTTPHeaders: Sendable, Equatable, Sequence {
    /// One header line.
    public struct Field: Sendable, Equatable {
        public var name: String
        public var value: String
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public private(set) var fields: [Field] = []

    public init(_ fields: [Field] = []) { self.fields = fields }

    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// The first value for `name`, compared case-insensitively.
    public subscript(name: String) -> String? {
        let key = name.lowercased()
        return fields.first { $0.name.lowercased() == key }?.value
    }

    /// Whether a field named `name` exists.
    public func contains(_ name: String) -> Bool { self[name] != nil }

    /// Appends a field, keeping any existing ones with the same name.
    public mutating func add(_ name: String, _ value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field named `name` with one field, at the place of the first one.
    public mutating func set(_ name: String, _ value: String) {
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
    public mutating func remove(_ name: String) {
        let key = name.lowercased()
        fields.removeAll { $0.name.lowercased() == key }
    }
}
