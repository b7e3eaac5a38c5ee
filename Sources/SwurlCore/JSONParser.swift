/// A strict RFC 8259 parser that keeps key order and number literals, and reports line and column.
package struct JSONParser {
    /// Why and where the text is not JSON.
    package struct SyntaxError: Error, Equatable, Sendable {
        package var reason: String
        package var line: Int
        package var column: Int
        package var description: String { "\(reason) at line \(line), column \(column)" }
    }

    private let bytes: [UInt8]
    private var pos = 0
    private var depth = 0
    private static let maxDepth = 512

    private init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Parses one JSON document; surrounding whitespace is allowed, anything else is an error.
    package static func parse(_ bytes: [UInt8]) throws(SyntaxError) -> JSONValue {
        var p = JSONParser(bytes)
        p.skipWhitespace()
        let value = try p.parseValue()
        p.skipWhitespace()
        if p.pos < bytes.count { throw p.error("unexpected text after the JSON value") }
        return value
    }

    /// Parses a run of JSON documents, each after the other with or without whitespace between
    /// (JSON Lines, concatenated JSON), as the streaming formatter takes a body; at least one.
    package static func parseSequence(_ bytes: [UInt8]) throws(SyntaxError) -> [JSONValue] {
        var p = JSONParser(bytes)
        var values: [JSONValue] = []
        p.skipWhitespace()
        repeat {
            values.append(try p.parseValue())
            // A number or literal runs into a letter, digit, sign or point right after it:
            // `1-2`, `00` and `truefalse` are no run of documents, as the streaming formatter
            // finds too (`1"a"` and `1[2]` are two, for both).
            let end = p.pos
            p.skipWhitespace()
            if p.pos == end, let next = p.current, next.isASCIIWordByte || next == UInt8(ascii: "-") || next == UInt8(ascii: "+") || next == UInt8(ascii: ".") {
                throw p.error("unexpected text after the JSON value")
            }
        } while p.pos < bytes.count
        return values
    }

    /// Parses a string's UTF-8.
    package static func parse(_ text: String) throws(SyntaxError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    private func error(_ reason: String, at offset: Int? = nil) -> SyntaxError {
        let end = min(offset ?? pos, bytes.count)
        var line = 1, column = 1
        var i = 0
        while i < end {
            if bytes[i] == 0x0A { line += 1; column = 1 } else if bytes[i] & 0xC0 != 0x80 { column += 1 }
            i += 1
        }
        return SyntaxError(reason: reason, line: line, column: column)
    }

    private mutating func skipWhitespace() {
        while pos < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[pos]) { pos += 1 }
    }

    private var current: UInt8? { pos < bytes.count ? bytes[pos] : nil }

    private mutating func parseValue() throws(SyntaxError) -> JSONValue {
        guard let c = current else { throw error("unexpected end of input, expected a value") }
        switch c {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default:
            throw error("unexpected character '\(printable(c))', expected a value")
        }
    }

    private func printable(_ c: UInt8) -> String {
        c >= 0x20 && c < 0x7F ? String(UnicodeScalar(c)) : "\\x" + String(c, radix: 16)
    }

    private mutating func literal(_ word: String) throws(SyntaxError) {
        let start = pos
        for b in word.utf8 {
            guard current == b else { throw error("invalid literal, expected '\(word)'", at: start) }
            pos += 1
        }
    }

    private mutating func enter() throws(SyntaxError) {
        depth += 1
        if depth > JSONParser.maxDepth { throw error("nesting deeper than \(JSONParser.maxDepth) levels") }
    }

    private mutating func parseObject() throws(SyntaxError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        pos += 1
        var members: [JSONValue.Member] = []
        skipWhitespace()
        if current == UInt8(ascii: "}") { pos += 1; return .object(members) }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a string key") }
            let key = try parseString()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("expected ':' after the key") }
            pos += 1
            skipWhitespace()
            members.append(.init(key, try parseValue()))
            skipWhitespace()
            if current == UInt8(ascii: ",") { pos += 1; continue }
            if current == UInt8(ascii: "}") { pos += 1; return .object(members) }
            throw error(current == nil ? "unexpected end of input, expected ',' or '}'" : "expected ',' or '}'")
        }
    }

    private mutating func parseArray() throws(SyntaxError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        pos += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") { pos += 1; return .array(items) }
        while true {
            skipWhitespace()
            items.append(try parseValue())
            skipWhitespace()
            if current == UInt8(ascii: ",") { pos += 1; continue }
            if current == UInt8(ascii: "]") { pos += 1; return .array(items) }
            throw error(current == nil ? "unexpected end of input, expected ',' or ']'" : "expected ',' or ']'")
        }
    }

    private mutating func parseNumber() throws(SyntaxError) -> String {
        let start = pos
        if current == UInt8(ascii: "-") { pos += 1 }
        func digits(_ p: inout JSONParser) -> Int {
            let s = p.pos
            while let c = p.current, c >= 0x30, c <= 0x39 { p.pos += 1 }
            return p.pos - s
        }
        if current == UInt8(ascii: "0") {
            pos += 1
        } else if digits(&self) == 0 {
            throw error("invalid number")
        }
        if current == UInt8(ascii: ".") {
            pos += 1
            if digits(&self) == 0 { throw error("invalid number: digits expected after '.'") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            pos += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { pos += 1 }
            if digits(&self) == 0 { throw error("invalid number: digits expected in the exponent") }
        }
        return String(decoding: bytes[start..<pos], as: UTF8.self)
    }

    private mutating func parseString() throws(SyntaxError) -> String {
        let start = pos
        pos += 1
        var out: [UInt8] = []
        while true {
            guard let c = current else { throw error("unterminated string", at: start) }
            pos += 1
            switch c {
            case UInt8(ascii: "\""):
                guard let s = String(validating: out, as: UTF8.self) else {
                    throw error("string is not valid UTF-8", at: start)
                }
                return s
            case UInt8(ascii: "\\"):
                guard let e = current else { throw error("unterminated string", at: start) }
                pos += 1
                switch e {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard current == UInt8(ascii: "\\"), pos + 1 < bytes.count, bytes[pos + 1] == UInt8(ascii: "u") else {
                            throw error("unpaired UTF-16 surrogate in \\u escape")
                        }
                        pos += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw error("invalid UTF-16 surrogate pair") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00..<0xE000).contains(scalar) {
                        throw error("unpaired UTF-16 surrogate in \\u escape")
                    }
                    guard let u = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
                    out += Array(String(Character(u)).utf8)
                default:
                    throw error("invalid escape '\\\(printable(e))'")
                }
            case 0..<0x20:
                throw error("control character in string (escape it as \\u00\(c < 0x10 ? "0" : "")\(String(c, radix: 16)))")
            default:
                out.append(c)
            }
        }
    }

    private mutating func hex4() throws(SyntaxError) -> UInt32 {
        var v: UInt32 = 0
        for _ in 0..<4 {
            guard let c = current else { throw error("unterminated \\u escape") }
            let d: UInt32
            switch c {
            case 0x30...0x39: d = UInt32(c - 0x30)
            case 0x41...0x46: d = UInt32(c - 0x41 + 10)
            case 0x61...0x66: d = UInt32(c - 0x61 + 10)
            default: throw error("invalid hex digit in \\u escape")
            }
            v = v * 16 + d
            pos += 1
        }
        return v
    }
}

private extension UInt8 {
    /// A letter, digit or underscore.
    var isASCIIWordByte: Bool {
        (0x30...0x39).contains(self) || (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self) || self == 0x5F
    }
}
