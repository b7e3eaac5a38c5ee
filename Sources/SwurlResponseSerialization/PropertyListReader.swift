import SwurlCore
/// A decoded property list value. Data and dates keep their exact form.
package indirect enum PropertyListValue: Equatable {
    case string(String)
    /// An integer's literal text (binary plists may hold 128-bit values).
    case integer(String)
    case real(Double)
    case bool(Bool)
    /// Seconds since 2001-01-01T00:00:00Z, as Apple stores them.
    case date(Double)
    case data([UInt8])
    case array([PropertyListValue])
    case dictionary([(String, PropertyListValue)])
    /// A keyed-archiver object reference (binary only).
    case uid(UInt64)

    package static func == (a: PropertyListValue, b: PropertyListValue) -> Bool {
        switch (a, b) {
        case (.string(let x), .string(let y)): return x == y
        case (.integer(let x), .integer(let y)): return x == y
        case (.real(let x), .real(let y)): return x == y || (x.isNaN && y.isNaN)
        case (.bool(let x), .bool(let y)): return x == y
        case (.date(let x), .date(let y)): return x == y
        case (.data(let x), .data(let y)): return x == y
        case (.array(let x), .array(let y)): return x == y
        case (.uid(let x), .uid(let y)): return x == y
        case (.dictionary(let x), .dictionary(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }
}

/// Reads XML and binary (`bplist00`) property lists from untrusted bytes: every offset is
/// bounds-checked, object references may not loop, and nesting is limited.
package enum PropertyListReader {
    /// Why the bytes are not a property list.
    package struct Failure: Error, Equatable { package var reason: String }

    static let maxDepth = 512
    /// Most values a binary plist may expand to: four per input byte, at least 10,000. Shared
    /// references are expanded each time they are used, so without a budget 61 nested arrays of
    /// `[next, next]` (344 bytes) expand to 2^62 values, and a fixed budget of a million let 115
    /// bytes take 250 MB. Every reference takes at least one byte, so a plist that shares only
    /// strings and numbers (as writers do) expands to about one value per byte. Never more than
    /// a million in all: each value takes some 200 bytes decoded and shown (a 4 MB file of
    /// references to one shared array took 3.3 GB), and fewer under a memory limit.
    static func maxObjects(inputSize: Int) -> Int { MemoryLimit.bound(min(max(10_000, 4 * inputSize), maxValues), perUnit: 250) }
    static let maxValues = 1_000_000
    /// Most string and data bytes a binary plist may expand to (shared strings count each time),
    /// so the rendered output stays proportionate: 1 MiB plus four times the input.
    static func maxContentBytes(inputSize: Int) -> Int { (1 << 20) + 4 * inputSize }

    /// Whether the bytes start like a property list (binary magic, or XML naming plist early on).
    package static func looksLikePropertyList(_ head: some Collection<UInt8>) -> Bool {
        if head.starts(with: Array("bplist00".utf8)) { return true }
        let text = String(decoding: head.prefix(512), as: UTF8.self)
        return text.containsText("<!DOCTYPE plist") || text.containsText("<plist")
    }

    /// Decodes a binary or XML property list.
    package static func read(_ bytes: [UInt8]) throws(Failure) -> PropertyListValue {
        if bytes.starts(with: Array("bplist".utf8)) {
            var reader = BinaryReader(bytes)
            return try reader.read()
        }
        return try readXML(bytes)
    }

    // MARK: XML

    private struct Element {
        var name: String
        var children: [Element] = []
        var text = ""
    }

    static func readXML(_ bytes: [UInt8]) throws(Failure) -> PropertyListValue {
        let tokens: [XMLTokenizer.Token]
        do { tokens = try XMLTokenizer.tokenize(bytes) } catch {
            throw Failure(reason: "not well-formed XML (\(error.reason))")
        }
        var stack: [Element] = [Element(name: "")]
        // The values' bound holds for XML too (2.3 million `<true/>` in 16 MB took 450 MB).
        var elements = 0
        for token in tokens {
            switch token {
            case .startTag(let name, _, let selfClosing):
                elements += 1
                guard elements <= maxValues else { throw Failure(reason: "more than \(maxValues) values") }
                let e = Element(name: String(decoding: name, as: UTF8.self))
                if selfClosing {
                    stack[stack.count - 1].children.append(e)
                } else {
                    guard stack.count <= maxDepth else { throw Failure(reason: "nested more than \(maxDepth) levels deep") }
                    stack.append(e)
                }
            case .endTag:
                guard stack.count > 1, let e = stack.popLast() else { throw Failure(reason: "unbalanced XML") }
                stack[stack.count - 1].children.append(e)
            case .text(let t):
                guard let text = XMLTokenizer.decodeEntities(t) else {
                    throw Failure(reason: "the text holds a character XML does not allow (a control character, or a reference to one), or an entity other than XML's five")
                }
                stack[stack.count - 1].text += text
            case .cdata(let c):
                stack[stack.count - 1].text += String(decoding: XMLTokenizer.normalizingLineEnds(c.dropFirst(9).dropLast(3)), as: UTF8.self)
            default:
                break
            }
        }
        guard let root = stack.first?.children.first, root.name == "plist" else {
            throw Failure(reason: "the root element is not <plist>")
        }
        guard root.children.count == 1, let top = root.children.first else {
            throw Failure(reason: "<plist> must hold exactly one value")
        }
        return try value(top)
    }

    private static func value(_ e: Element) throws(Failure) -> PropertyListValue {
        switch e.name {
        case "string": return .string(e.text)
        case "integer":
            let t = e.text.trimmingSpaces().trimmingNewlines()
            // Kept as canonical decimal text (`+5` → 5, `007` → 7, `0x1F` → 31), so the value
            // prints as valid JSON and valid XML whatever spelling the server used.
            if let v = Int128(t) { return .integer(String(v)) }
            if t.hasPrefix("0x"), let v = UInt64(t.dropFirst(2), radix: 16) { return .integer(String(v)) }
            if t.hasPrefix("-0x"), let v = UInt64(t.dropFirst(3), radix: 16) { return .integer(v == 0 ? "0" : "-" + String(v)) }
            throw Failure(reason: "<integer> holds '\(t.prefix(40))'")
        case "real":
            let t = e.text.trimmingSpaces().trimmingNewlines()
            guard let d = Double(t) else { throw Failure(reason: "<real> holds '\(t.prefix(40))'") }
            return .real(d)
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "date":
            guard let d = PropertyListDate.parse(e.text.trimmingSpaces().trimmingNewlines()) else {
                throw Failure(reason: "<date> holds '\(e.text.prefix(40))'")
            }
            return .date(d)
        case "data":
            guard let d = Base64.decode(e.text, ignoringWhitespace: true) else { throw Failure(reason: "<data> is not base64") }
            return .data(d)
        case "array":
            var items: [PropertyListValue] = []
            for c in e.children { items.append(try value(c)) }
            return .array(items)
        case "dict":
            var members: [(String, PropertyListValue)] = []
            var i = 0
            while i < e.children.count {
                guard e.children[i].name == "key", i + 1 < e.children.count else {
                    throw Failure(reason: "<dict> needs <key> and value pairs")
                }
                members.append((e.children[i].text, try value(e.children[i + 1])))
                i += 2
            }
            return .dictionary(members)
        default:
            throw Failure(reason: "unknown element <\(e.name.prefix(40))>")
        }
    }

    // MARK: Binary

    private struct BinaryReader {
        let b: [UInt8]
        var offsets: [Int] = []
        var refSize = 0
        var visiting: Set<Int> = []
        /// Objects and string/data bytes decoded so far, each shared reference counted again.
        var objectCount = 0
        var contentBytes = 0
        let contentBudget: Int
        let objectBudget: Int

        init(_ bytes: [UInt8]) {
            b = bytes
            contentBudget = PropertyListReader.maxContentBytes(inputSize: bytes.count)
            objectBudget = PropertyListReader.maxObjects(inputSize: bytes.count)
        }

        mutating func spend(content n: Int) throws(Failure) {
            contentBytes += n
            guard contentBytes <= contentBudget else {
                throw Failure(reason: "shared references expand to more than \(contentBudget) bytes of strings and data "
                              + "(the budget for \(b.count) input bytes); refusing")
            }
        }

        func uint(_ at: Int, _ width: Int) throws(Failure) -> UInt64 {
            guard width >= 1, width <= 8, at >= 0, at + width <= b.count else { throw Failure(reason: "truncated binary plist") }
            var v: UInt64 = 0
            for k in 0..<width { v = v << 8 | UInt64(b[at + k]) }
            return v
        }

        mutating func read() throws(Failure) -> PropertyListValue {
            guard b.count >= 8 + 32, b.starts(with: Array("bplist00".utf8)) else {
                throw Failure(reason: "not a bplist00 file or truncated")
            }
            let t = b.count - 32
            let offsetSize = Int(b[t + 6])
            refSize = Int(b[t + 7])
            let count = try uint(t + 8, 8), top = try uint(t + 16, 8), tableOffset = try uint(t + 24, 8)
            guard (1...8).contains(offsetSize), (1...8).contains(refSize), count > 0, count < UInt64(b.count),
                  top < count, tableOffset < UInt64(t),
                  tableOffset + count * UInt64(offsetSize) <= UInt64(t) else {
                throw Failure(reason: "corrupt binary plist trailer")
            }
            offsets.reserveCapacity(Int(count))
            for k in 0..<Int(count) {
                let o = try uint(Int(tableOffset) + k * offsetSize, offsetSize)
                guard o >= 8, o < UInt64(t) else { throw Failure(reason: "object offset out of range") }
                offsets.append(Int(o))
            }
            return try object(Int(top), depth: 0)
        }

        /// The count in a marker's low nibble, or the integer object that follows when it is 0xF.
        func length(_ marker: UInt8, at: Int) throws(Failure) -> (Int, Int) {
            let low = Int(marker & 0x0F)
            if low != 0x0F { return (low, at + 1) }
            guard at + 1 < b.count, b[at + 1] & 0xF0 == 0x10 else { throw Failure(reason: "bad length marker") }
            let width = 1 << Int(b[at + 1] & 0x0F)
            guard width <= 8 else { throw Failure(reason: "bad length width") }
            let v = try uint(at + 2, width)
            guard v < UInt64(b.count) else { throw Failure(reason: "length out of range") }
            return (Int(v), at + 2 + width)
        }

        mutating func object(_ ref: Int, depth: Int) throws(Failure) -> PropertyListValue {
            guard ref >= 0, ref < offsets.count else { throw Failure(reason: "object reference out of range") }
            guard !visiting.contains(ref) else { throw Failure(reason: "object references loop") }
            guard depth < PropertyListReader.maxDepth else {
                throw Failure(reason: "nested more than \(PropertyListReader.maxDepth) levels deep")
            }
            objectCount += 1
            guard objectCount <= objectBudget else {
                throw Failure(reason: "shared references expand to more than \(objectBudget) values "
                              + "(the budget for \(b.count) input bytes); refusing")
            }
            let at = offsets[ref]
            let marker = b[at]
            switch marker >> 4 {
            case 0x0:
                switch marker {
                case 0x08: return .bool(false)
                case 0x09: return .bool(true)
                default: throw Failure(reason: "unsupported marker 0x\(String(marker, radix: 16))")
                }
            case 0x1:
                let width = 1 << Int(marker & 0x0F)
                if width == 16 {
                    let hi = try uint(at + 1, 8), lo = try uint(at + 9, 8)
                    // Signed, as CoreFoundation and Python's plistlib read it (CF writes a
                    // UInt64 above Int64.max this way, its high half zero).
                    return .integer(String(Int128(bitPattern: UInt128(hi) << 64 | UInt128(lo))))
                }
                guard width <= 8 else { throw Failure(reason: "bad integer width") }
                let v = try uint(at + 1, width)
                return .integer(width == 8 ? String(Int64(bitPattern: v)) : String(v))
            case 0x2:
                let width = 1 << Int(marker & 0x0F)
                if width == 4 { return .real(Double(Float(bitPattern: UInt32(try uint(at + 1, 4))))) }
                guard width == 8 else { throw Failure(reason: "bad real width") }
                return .real(Double(bitPattern: try uint(at + 1, 8)))
            case 0x3:
                guard marker == 0x33 else { throw Failure(reason: "bad date marker") }
                return .date(Double(bitPattern: try uint(at + 1, 8)))
            case 0x4:
                let (n, start) = try length(marker, at: at)
                guard start + n <= b.count else { throw Failure(reason: "truncated data") }
                try spend(content: n)
                return .data(Array(b[start..<start + n]))
            case 0x5:
                let (n, start) = try length(marker, at: at)
                guard start + n <= b.count else { throw Failure(reason: "truncated string") }
                try spend(content: n)
                // ASCII (0x5): a byte past 0x7F is no character of it (plistlib and
                // CoreFoundation refuse it; it was shown as U+FFFD).
                guard !b[start..<start + n].contains(where: { $0 >= 0x80 }) else {
                    throw Failure(reason: "an ASCII string holds a byte past 0x7F")
                }
                return .string(String(decoding: b[start..<start + n], as: UTF8.self))
            case 0x6:
                let (n, start) = try length(marker, at: at)
                guard start + 2 * n <= b.count else { throw Failure(reason: "truncated string") }
                try spend(content: 3 * n)   // UTF-16 units take at most 3 UTF-8 bytes each
                var units: [UInt16] = []
                units.reserveCapacity(n)
                for k in 0..<n { units.append(UInt16(b[start + 2 * k]) << 8 | UInt16(b[start + 2 * k + 1])) }
                guard let string = String(validating: units, as: UTF16.self) else {
                    throw Failure(reason: "a UTF-16 string holds a lone surrogate")
                }
                return .string(string)
            case 0x8:
                let width = Int(marker & 0x0F) + 1
                return .uid(try uint(at + 1, width))
            case 0xA, 0xD:
                let (n, start) = try length(marker, at: at)
                let isDict = marker >> 4 == 0xD
                let refs = isDict ? 2 * n : n
                guard start + refs * refSize <= b.count else { throw Failure(reason: "truncated container") }
                visiting.insert(ref)
                defer { visiting.remove(ref) }
                if !isDict {
                    var items: [PropertyListValue] = []
                    for k in 0..<n { items.append(try object(Int(truncatingIfNeeded: try uint(start + k * refSize, refSize)), depth: depth + 1)) }
                    return .array(items)
                }
                var members: [(String, PropertyListValue)] = []
                for k in 0..<n {
                    let key = try object(Int(truncatingIfNeeded: try uint(start + k * refSize, refSize)), depth: depth + 1)
                    guard case .string(let s) = key else { throw Failure(reason: "dictionary key is not a string") }
                    members.append((s, try object(Int(truncatingIfNeeded: try uint(start + (n + k) * refSize, refSize)), depth: depth + 1)))
                }
                return .dictionary(members)
            default:
                throw Failure(reason: "unsupported marker 0x\(String(marker, radix: 16))")
            }
        }
    }
}

extension String {
    /// The string without leading and trailing XML white space (space, tab, CR, LF), trimmed by
    /// Unicode scalar: "\r\n" or a space before a combining mark is one Character.
    func trimmingNewlines() -> String {
        var s = Substring(self).unicodeScalars
        while let f = s.first, f == "\n" || f == "\r" || f == "\t" || f == " " { s.removeFirst() }
        while let l = s.last, l == "\n" || l == "\r" || l == "\t" || l == " " { s.removeLast() }
        return String(s)
    }
}
