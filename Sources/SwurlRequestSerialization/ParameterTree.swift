import SwurlCore
/// Builds the one ordered tree of values that every serializer writes, from the data items.
///
/// HTTPie 3's nesting: `a[b]=x` nests, `a[]=x` appends, `a[3]=x` sets an index (gaps become
/// null), `[]=x` or `[0]=x` make the top level an array. A plain key given twice collects its
/// values into an array (swurl's rule: HTTPie 3.2 keeps the last value) in a JSON or
/// property-list body; a form or multipart body sends the key twice, `a=1&a=2`, as curl and
/// HTTPie do (`repeatsCollect` false). Using one key as two kinds of container is a usage error
/// that points at the offending part of the item.
///
/// Index gaps cost memory the command line does not pay for (`a[100000]=x` is 100,000 nulls),
/// so all the nulls that fill gaps share one budget: the largest index allowed plus 1,000 per
/// item, and never more than 1,000,000 in all (20,000 items with gaps of 1,000 took 1.4 GB as a
/// form). Past it the item is refused as a usage error.
package enum ParameterTree {
    /// Most null slots that index gaps may add in one tree for `itemCount` items.
    static func gapBudget(itemCount: Int, maxIndex: Int = NestedKeyParser.maxIndex) -> Int {
        min(maxIndex + 1_000 * itemCount, max(maxIndex, maxGapNulls))
    }

    /// The most nulls gaps may add whatever the number of items.
    static let maxGapNulls = 1_000_000

    /// The null slots index gaps may still add, and how many there were for the error message.
    private struct GapBudget {
        let total: Int
        let itemCount: Int
        var left: Int
        init(itemCount: Int, maxIndex: Int) {
            total = ParameterTree.gapBudget(itemCount: itemCount, maxIndex: maxIndex)
            self.itemCount = itemCount
            left = total
        }
    }

    /// The tree under construction. Containers are classes, changed in place, and objects keep
    /// an index from key to position, so each item costs the depth of its key, not the size of
    /// the tree (100,000 items take well under a second; a value-typed tree copied every level
    /// and searched every key, which was quadratic).
    private final class ObjectNode {
        var members: [(String, Node)] = []
        /// By the key's bytes: String equality is Unicode canonical equivalence, which would
        /// merge `é` and `e` + U+0301, two keys in JSON (and in HTTPie).
        var index: [[UInt8]: Int] = [:]
        /// In a form, the member holding a key's nested items when a plain value of that key
        /// came first (`a=1 a[1]=x a[0]=y`): the later nested items join it, as they do when
        /// the plain value comes after them.
        var nestedAfterPlain: [[UInt8]: Int] = [:]
    }

    private final class ArrayNode {
        var items: [Node]
        init(_ items: [Node] = []) { self.items = items }
    }

    private enum Node {
        case object(ObjectNode)
        case array(ArrayNode)
        case leaf(JSONValue)

        var json: JSONValue {
            switch self {
            case .leaf(let v): return v
            case .array(let a): return .array(a.items.map(\.json))
            case .object(let o): return .object(o.members.map { .init($0.0, $0.1.json) })
            }
        }

        var kindName: String {
            switch self {
            case .object: return "an object"
            case .array: return "an array"
            // A container given whole as JSON (`o:=[1]`) is one value: nested keys cannot add to it.
            case .leaf(.array), .leaf(.object): return "JSON given whole with := (nested keys cannot add to it)"
            case .leaf: return "a value"
            }
        }
    }

    /// The tree for `fields`, or nil when there are none.
    /// - Parameter maxIndex: the largest array index (default `NestedKeyParser.maxIndex`; the
    ///   gap budget grows with it).
    /// - Parameter repeatsCollect: whether a key given twice gathers its values into an array
    ///   (true), or stays a second member of its object under the same key (false: for forms,
    ///   whose pairs may repeat a name).
    package static func build(_ fields: [RequestParameters.Field], repeatsCollect: Bool = true,
                             maxIndex: Int = NestedKeyParser.maxIndex, jsonRules: Bool = true) throws(SwurlError) -> JSONValue? {
        var root: Node?
        var gapBudget = GapBudget(itemCount: fields.count, maxIndex: maxIndex)
        for field in fields {
            let (keyText, value, label) = (field.key, field.value, field.label)
            let key = try NestedKeyParser.parse(keyText, item: label, maxIndex: maxIndex, jsonRules: jsonRules)
            let topIsArray = key.components.first.map { if case .key = $0 { return false } else { return true } } ?? false
            let node = root ?? (topIsArray ? .array(ArrayNode()) : .object(ObjectNode()))
            try insert(value, into: node, path: key, depth: 0, item: label, keyText: keyText, repeatsCollect: repeatsCollect,
                       gapBudget: &gapBudget)
            root = node
        }
        return root?.json
    }

    private static func insert(_ value: JSONValue, into node: Node, path: NestedKey, depth: Int,
                               item: String, keyText: String, repeatsCollect: Bool = true,
                               gapBudget: inout GapBudget) throws(SwurlError) {
        let component = path.components[depth]
        let isLast = depth == path.components.count - 1
        func conflict(_ reason: String) -> SwurlError {
            NestedKeyParser.error(item, key: keyText, at: path.offsets[depth], reason)
        }
        switch (component, node) {
        case (.key(let k), .object(let object)):
            if let i = object.index[Array(k.utf8)] {
                let child = object.members[i].1
                if isLast {
                    switch child {
                    // A form's repeated name: a second member (the index keeps the first).
                    case .leaf where !repeatsCollect: object.members.append((k, .leaf(value)))
                    case .leaf(let old): object.members[i].1 = .array(ArrayNode([.leaf(old), .leaf(value)]))
                    // A form's plain name after `o[]=1` or `o[k]=1` is a member of its own (`o[]=1&o=2`, as
                    // HTTPie sends it), not one more element sent as `o[]`.
                    case .array where !repeatsCollect: object.members.append((k, .leaf(value)))
                    case .object where !repeatsCollect: object.members.append((k, .leaf(value)))
                    case .array(let array): array.items.append(.leaf(value))
                    case .object: throw conflict("'\(k)' is already an object and cannot also take a value")
                    }
                } else if case .leaf(let old) = child {
                    // A plain name given before a nested one: in a form a member of its own, as
                    // after it (`a=1&a[b]=2`, `a=1&a[]=2`: the order typed decided whether it was
                    // refused); in JSON `a=1 a[]=2` collects as `a=1 a=2 a[]=3` and `a[]=1 a=2` do
                    // (a `:=` value is JSON given whole: refused below, as before).
                    if !repeatsCollect {
                        if let j = object.nestedAfterPlain[Array(k.utf8)] {
                            try insert(value, into: object.members[j].1, path: path, depth: depth + 1, item: item, keyText: keyText,
                                       repeatsCollect: repeatsCollect, gapBudget: &gapBudget)
                        } else {
                            object.nestedAfterPlain[Array(k.utf8)] = object.members.count
                            object.members.append((k, try fresh(value, path: path, depth: depth + 1, item: item, keyText: keyText, gapBudget: &gapBudget)))
                        }
                    } else if depth + 2 == path.components.count, case .append = path.components[depth + 1], case .string = old {
                        object.members[i].1 = .array(ArrayNode([.leaf(old), .leaf(value)]))
                    } else {
                        try insert(value, into: child, path: path, depth: depth + 1, item: item, keyText: keyText,
                                   repeatsCollect: repeatsCollect, gapBudget: &gapBudget)
                    }
                } else {
                    try insert(value, into: child, path: path, depth: depth + 1, item: item, keyText: keyText,
                               repeatsCollect: repeatsCollect, gapBudget: &gapBudget)
                }
            } else {
                let child = try fresh(value, path: path, depth: depth + 1, item: item, keyText: keyText, gapBudget: &gapBudget)
                object.index[Array(k.utf8)] = object.members.count
                object.members.append((k, child))
            }
        case (.append, .array(let array)):
            array.items.append(try fresh(value, path: path, depth: depth + 1, item: item, keyText: keyText, gapBudget: &gapBudget))
        case (.index(let n), .array(let array)):
            if array.items.count <= n {
                let added = n + 1 - array.items.count
                guard added <= gapBudget.left else {
                    throw conflict("array index gaps expand to more than \(gapBudget.total) null values in all "
                                   + "(the budget for \(gapBudget.itemCount) items); refusing")
                }
                gapBudget.left -= added
                array.items.append(contentsOf: repeatElement(.leaf(.null), count: added))
            }
            if isLast {
                if case .leaf(.null) = array.items[n] {
                    array.items[n] = .leaf(value)
                } else {
                    throw conflict("index \(n) is already set")
                }
            } else if case .leaf(.null) = array.items[n] {
                array.items[n] = try fresh(value, path: path, depth: depth + 1, item: item, keyText: keyText, gapBudget: &gapBudget)
            } else {
                try insert(value, into: array.items[n], path: path, depth: depth + 1, item: item, keyText: keyText,
                           repeatsCollect: repeatsCollect, gapBudget: &gapBudget)
            }
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
        let node: Node
        if case .key = path.components[depth] { node = .object(ObjectNode()) } else { node = .array(ArrayNode()) }
        try insert(value, into: node, path: path, depth: depth, item: item, keyText: keyText, gapBudget: &gapBudget)
        return node
    }
}
