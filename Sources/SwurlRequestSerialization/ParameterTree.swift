import SwurlCore
/// Builds the one ordered tree of values that every serializer writes, from the data items.
///
/// HTTPie 3's rules: `a[b]=x` nests, `a[]=x` appends, `a[3]=x` sets an index (gaps become
/// null), `[]=x` or `[0]=x` make the top level an array, and a plain key given twice collects
/// its values into an array. Using one key as two kinds of container is a usage error that
/// points at the offending part of the item.
///
/// Index gaps cost memory the command line does not pay for (`a[100000]=x` is 100,000 nulls),
/// so all the nulls that fill gaps share one budget: the largest index allowed plus 1,000 per
/// item. Past it the item is refused as a usage error.
public enum ParameterTree {
    /// Most null slots that index gaps may add in one tree for `itemCount` items.
    static func gapBudget(itemCount: Int) -> Int { NestedKeyParser.maxIndex + 1_000 * itemCount }

    /// The null slots index gaps may still add, and how many there were for the error message.
    private struct GapBudget {
        let total: Int
        let itemCount: Int
        var left: Int
        init(itemCount: Int) {
            total = ParameterTree.gapBudget(itemCount: itemCount)
            self.itemCount = itemCount
            left = total
        }
    }

    private indirect enum Node {
        case object([(String, Node)])
        case array([Node])
        case leaf(JSONValue)

        var json: JSONValue {
            switch self {
            case .leaf(let v): return v
            case .array(let items): return .array(items.map(\.json))
            case .object(let members): return .object(members.map { .init($0.0, $0.1.json) })
            }
        }

        var kindName: String {
            switch self {
            case .object: return "an object"
            case .array: return "an array"
            case .leaf: return "a value"
            }
        }
    }

    /// The tree for `fields`, or nil when there are none.
    public static func build(_ fields: [RequestParameters.Field]) throws(SwurlError) -> JSONValue? {
        var root: Node?
        var gapBudget = GapBudget(itemCount: fields.count)
        for field in fields {
            let (keyText, value, label) = (field.key, field.value, field.label)
            let key = try NestedKeyParser.parse(keyText, item: label)
            let topIsArray = key.components.first.map { if case .key = $0 { return false } else { return true } } ?? false
            var node = root ?? (topIsArray ? .array([]) : .object([]))
            try insert(value, into: &node, path: key, depth: 0, item: label, keyText: keyText, gapBudget: &gapBudget)
            root = node
        }
        return root?.json
    }

    private static func insert(_ value: JSONValue, into node: inout Node, path: NestedKey, depth: Int,
                               item: String, keyText: String, gapBudget: inout GapBudget) throws(SwurlError) {
        let component = path.components[depth]
        let isLast = depth == path.components.count - 1
        func conflict(_ reason: String) -> SwurlError {
            NestedKeyParser.error(item, key: keyText, at: path.offsets[depth], reason)
        }
        switch (component, node) {
        case (.key(let k), .object(var members)):
            if let i = members.firstIndex(where: { $0.0 == k }) {
                var child = members[i].1
                if isLast {
                    switch child {
                    case .leaf(let old): child = .array([.leaf(old), .leaf(value)])
                    case .array(var items): items.append(.leaf(value)); child = .array(items)
                    case .object: throw conflict("'\(k)' is already an object and cannot also take a value")
                    }
                } else {
                    try insert(value, into: &child, path: path, depth: depth + 1, item: item, keyText: keyText, gapBudget: &gapBudget)
                }
                members[i].1 = child
            } else {
                members.append((k, try fresh(value, path: path, depth: depth + 1, item: item, keyText: keyText, gapBudget: &gapBudget)))
            }
            node = .object(members)
        case (.append, .array(var items)):
            items.append(try fresh(value, path: path, depth: depth + 1, item: item, keyText: keyText, gapBudget: &gapBudget))
            node = .array(items)
        case (.index(let n), .array(var items)):
            if items.count <= n {
                let added = n + 1 - items.count
                guard added <= gapBudget.left else {
                    throw conflict("array index gaps expand to more than \(gapBudget.total) null values in all "
                                   + "(the budget for \(gapBudget.itemCount) items); refusing")
                }
                gapBudget.left -= added
                items.append(contentsOf: repeatElement(.leaf(.null), count: added))
            }
            if isLast {
                if case .leaf(.null) = items[n] {
                    items[n] = .leaf(value)
                } else {
                    throw conflict("index \(n) is already set")
                }
            } else if case .leaf(.null) = items[n] {
                items[n] = try fresh(value, path: path, depth: depth + 1, item: item, keyText: keyText, gapBudget: &gapBudget)
            } else {
                var child = items[n]
                try insert(value, into: &child, path: path, depth: depth + 1, item: item, keyText: keyText, gapBudget: &gapBudget)
                items[n] = child
            }
            node = .array(items)
        case (.key(let k), _):
            throw conflict("cannot use key '\(k)' here: this level is \(node.kindName), not an object")
        case (.append, _), (.index, _):
            throw conflict("cannot use an array index here: this level is \(node.kindName), not an array")
        }
    }

    /// A new node for the rest of the path below `depth`.
    private static func fresh(_ value: JSONValue, path: NestedKey, depth: Int,
                              item: String, keyText: String, gapBudget: inout GapBudget) throws(SwurlError) -> Node {
        guard depth < path.components.count else { return .leaf(value) }
        var node: Node
        if case .key = path.components[depth] { node = .object([]) } else { node = .array([]) }
        try insert(value, into: &node, path: path, depth: depth, item: item, keyText: keyText, gapBudget: &gapBudget)
        return node
    }
}
