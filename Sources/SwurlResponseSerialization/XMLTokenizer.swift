import SwurlCore
/// A small, strict XML tokenizer over bytes: enough to check well-formedness, pretty-print a
/// document and read property lists, without FoundationXML (which drags libxml2 and ICU into
/// the binary and costs start-up time).
public struct XMLTokenizer {
    /// One attribute as written: its name and its value with the quotes.
    public struct Attribute: Equatable {
        public var name: ArraySlice<UInt8>
        public var quotedValue: ArraySlice<UInt8>
        /// The value without quotes, entities still encoded.
        public var rawValue: ArraySlice<UInt8> { quotedValue.dropFirst().dropLast() }
    }

    /// One piece of a document; byte slices point into the input.
    public enum Token: Equatable {
        /// `<?target …?>`, the XML declaration included; the whole markup.
        case processingInstruction(ArraySlice<UInt8>)
        /// `<!-- … -->`, the whole markup.
        case comment(ArraySlice<UInt8>)
        /// `<![CDATA[ … ]]>`, the whole markup.
        case cdata(ArraySlice<UInt8>)
        /// `<!DOCTYPE …>` with any internal subset, the whole markup.
        case doctype(ArraySlice<UInt8>)
        case startTag(name: ArraySlice<UInt8>, attributes: [Attribute], selfClosing: Bool)
        case endTag(name: ArraySlice<UInt8>)
        /// Character data as written (entities still encoded).
        case text(ArraySlice<UInt8>)
    }

    /// Why the input is not well-formed XML.
    public struct SyntaxError: Error, Equatable {
        public var reason: String
        public var offset: Int
    }

    /// Tokenizes a whole document and checks that it is well-formed: tags nest and match,
    /// there is exactly one root element, attributes are quoted, entity references are complete.
    public static func tokenize(_ bytes: [UInt8]) throws(SyntaxError) -> [Token] {
        var tokens: [Token] = []
        var stack: [ArraySlice<UInt8>] = []
        var roots = 0
        var i = 0
        let n = bytes.count
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
        while i < n {
            if bytes[i] != UInt8(ascii: "<") {
                var j = i
                while j < n && bytes[j] != UInt8(ascii: "<") { j += 1 }
                let text = bytes[i..<j]
                try checkEntities(text, at: i)
                if stack.isEmpty && !isBlank(Array(text)) {
                    throw SyntaxError(reason: "text outside the root element", offset: i)
                }
                tokens.append(.text(text))
                i = j
                continue
            }
            if starts(bytes, i, "<!--") {
                guard let end = find(bytes, "-->", from: i + 4) else { throw SyntaxError(reason: "unterminated comment", offset: i) }
                tokens.append(.comment(bytes[i..<end + 3]))
                i = end + 3
            } else if starts(bytes, i, "<![CDATA[") {
                guard !stack.isEmpty else { throw SyntaxError(reason: "CDATA outside the root element", offset: i) }
                guard let end = find(bytes, "]]>", from: i + 9) else { throw SyntaxError(reason: "unterminated CDATA section", offset: i) }
                tokens.append(.cdata(bytes[i..<end + 3]))
                i = end + 3
            } else if starts(bytes, i, "<?") {
                guard let end = find(bytes, "?>", from: i + 2) else { throw SyntaxError(reason: "unterminated processing instruction", offset: i) }
                guard end > i + 2, isNameStart(bytes[i + 2]) else { throw SyntaxError(reason: "processing instruction without a target", offset: i) }
                tokens.append(.processingInstruction(bytes[i..<end + 2]))
                i = end + 2
            } else if starts(bytes, i, "<!DOCTYPE") {
                guard stack.isEmpty, roots == 0 else { throw SyntaxError(reason: "DOCTYPE after the root element", offset: i) }
                var j = i + 9
                var bracket = 0
                var quote: UInt8 = 0
                while j < n {
                    let c = bytes[j]
                    if quote != 0 { if c == quote { quote = 0 } }
                    else if c == 0x22 || c == 0x27 { quote = c }
                    else if c == UInt8(ascii: "[") { bracket += 1 }
                    else if c == UInt8(ascii: "]") { bracket -= 1 }
                    else if c == UInt8(ascii: ">") && bracket <= 0 { break }
                    j += 1
                }
                guard j < n else { throw SyntaxError(reason: "unterminated DOCTYPE", offset: i) }
                tokens.append(.doctype(bytes[i...j]))
                i = j + 1
            } else if starts(bytes, i, "</") {
                var j = i + 2
                let nameStart = j
                while j < n && isNameByte(bytes[j]) { j += 1 }
                let name = bytes[nameStart..<j]
                while j < n && isSpace(bytes[j]) { j += 1 }
                guard j < n, bytes[j] == UInt8(ascii: ">"), !name.isEmpty else {
                    throw SyntaxError(reason: "malformed end tag", offset: i)
                }
                guard let open = stack.popLast(), open.elementsEqual(name) else {
                    throw SyntaxError(reason: "end tag </\(String(decoding: name, as: UTF8.self))> does not match", offset: i)
                }
                tokens.append(.endTag(name: name))
                i = j + 1
            } else {
                var j = i + 1
                guard j < n, isNameStart(bytes[j]) else { throw SyntaxError(reason: "'<' that starts no tag", offset: i) }
                let nameStart = j
                while j < n && isNameByte(bytes[j]) { j += 1 }
                let name = bytes[nameStart..<j]
                var attributes: [Attribute] = []
                // A set, not a scan of `attributes`: a tag with many attributes must stay linear.
                var attributeNames: Set<ArraySlice<UInt8>> = []
                var selfClosing = false
                while true {
                    let before = j
                    while j < n && isSpace(bytes[j]) { j += 1 }
                    guard j < n else { throw SyntaxError(reason: "unterminated tag", offset: i) }
                    if bytes[j] == UInt8(ascii: ">") { j += 1; break }
                    if bytes[j] == UInt8(ascii: "/") {
                        guard j + 1 < n, bytes[j + 1] == UInt8(ascii: ">") else { throw SyntaxError(reason: "malformed tag", offset: j) }
                        selfClosing = true
                        j += 2
                        break
                    }
                    guard j > before, isNameStart(bytes[j]) else { throw SyntaxError(reason: "malformed attribute", offset: j) }
                    let an = j
                    while j < n && isNameByte(bytes[j]) { j += 1 }
                    let attrName = bytes[an..<j]
                    while j < n && isSpace(bytes[j]) { j += 1 }
                    guard j < n, bytes[j] == UInt8(ascii: "=") else { throw SyntaxError(reason: "attribute without a value", offset: j) }
                    j += 1
                    while j < n && isSpace(bytes[j]) { j += 1 }
                    guard j < n, bytes[j] == 0x22 || bytes[j] == 0x27 else { throw SyntaxError(reason: "unquoted attribute value", offset: j) }
                    let q = bytes[j]
                    var k = j + 1
                    while k < n && bytes[k] != q {
                        if bytes[k] == UInt8(ascii: "<") { throw SyntaxError(reason: "'<' in an attribute value", offset: k) }
                        k += 1
                    }
                    guard k < n else { throw SyntaxError(reason: "unterminated attribute value", offset: j) }
                    try checkEntities(bytes[(j + 1)..<k], at: j + 1)
                    guard attributeNames.insert(attrName).inserted else {
                        throw SyntaxError(reason: "duplicate attribute", offset: an)
                    }
                    attributes.append(Attribute(name: attrName, quotedValue: bytes[j...k]))
                    j = k + 1
                }
                if stack.isEmpty {
                    roots += 1
                    guard roots == 1 else { throw SyntaxError(reason: "more than one root element", offset: i) }
                }
                if !selfClosing { stack.append(name) }
                tokens.append(.startTag(name: name, attributes: attributes, selfClosing: selfClosing))
                i = j
            }
        }
        guard stack.isEmpty else { throw SyntaxError(reason: "unclosed element <\(String(decoding: stack.last ?? [], as: UTF8.self))>", offset: n) }
        guard roots == 1 else { throw SyntaxError(reason: "no root element", offset: n) }
        return tokens
    }

    private static func starts(_ b: [UInt8], _ i: Int, _ s: StaticString) -> Bool {
        let c = s.utf8CodeUnitCount
        guard i + c <= b.count else { return false }
        return s.withUTF8Buffer { p in
            for k in 0..<c where b[i + k] != p[k] { return false }
            return true
        }
    }

    private static func find(_ b: [UInt8], _ s: StaticString, from: Int) -> Int? {
        var i = from
        while i < b.count {
            if starts(b, i, s) { return i }
            i += 1
        }
        return nil
    }

    public static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }

    public static func isNameStart(_ c: UInt8) -> Bool {
        (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F || c == 0x3A || c >= 0x80
    }

    static func isNameByte(_ c: UInt8) -> Bool {
        isNameStart(c) || (c >= 0x30 && c <= 0x39) || c == 0x2D || c == 0x2E
    }

    /// Every `&` starts a complete reference: `&name;`, `&#123;` or `&#x7B;`.
    private static func checkEntities(_ text: ArraySlice<UInt8>, at offset: Int) throws(SyntaxError) {
        var i = text.startIndex
        while i < text.endIndex {
            if text[i] == UInt8(ascii: "&") {
                var j = i + 1
                while j < text.endIndex && j - i < 40 && text[j] != UInt8(ascii: ";") {
                    guard isNameByte(text[j]) || text[j] == UInt8(ascii: "#") else { break }
                    j += 1
                }
                guard j < text.endIndex, text[j] == UInt8(ascii: ";"), j > i + 1 else {
                    throw SyntaxError(reason: "incomplete entity reference", offset: i)
                }
                i = j
            }
            i += 1
        }
    }

    /// Character data with the predefined and numeric entity references resolved (other
    /// references are kept as written).
    static func decodeEntities(_ text: ArraySlice<UInt8>) -> String {
        guard text.contains(UInt8(ascii: "&")) else { return String(decoding: text, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var i = text.startIndex
        while i < text.endIndex {
            let c = text[i]
            guard c == UInt8(ascii: "&"), let semi = text[i...].prefix(40).firstIndex(of: UInt8(ascii: ";")) else {
                out.append(c)
                i += 1
                continue
            }
            let name = String(decoding: text[(i + 1)..<semi], as: UTF8.self)
            var scalar: Unicode.Scalar?
            switch name {
            case "lt": scalar = "<"
            case "gt": scalar = ">"
            case "amp": scalar = "&"
            case "quot": scalar = "\""
            case "apos": scalar = "'"
            default:
                if name.hasPrefix("#x") || name.hasPrefix("#X") {
                    scalar = UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
                } else if name.hasPrefix("#") {
                    scalar = UInt32(name.dropFirst(1)).flatMap(Unicode.Scalar.init)
                }
            }
            if let scalar {
                out += Array(String(Character(scalar)).utf8)
            } else {
                out += text[i...semi]
            }
            i = semi + 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}
