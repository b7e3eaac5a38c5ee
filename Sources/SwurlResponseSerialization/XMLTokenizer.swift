import SwurlCore
/// A small, strict XML tokenizer over bytes: enough to check well-formedness, pretty-print a
/// document and read property lists, without FoundationXML (which drags libxml2 and ICU into
/// the binary and costs start-up time).
package struct XMLTokenizer {
    /// One attribute as written: its name and its value with the quotes.
    package struct Attribute: Equatable {
        package var name: ArraySlice<UInt8>
        package var quotedValue: ArraySlice<UInt8>
        /// The value without quotes, entities still encoded.
        package var rawValue: ArraySlice<UInt8> { quotedValue.dropFirst().dropLast() }
    }

    /// One piece of a document; byte slices point into the input.
    package enum Token: Equatable {
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

    /// Why the input is not well-formed XML, or which limit it passed.
    package struct SyntaxError: Error, Equatable {
        package var reason: String
        package var offset: Int
        /// Whether a limit was hit (nesting depth, names' size) rather than a syntax error.
        package var isLimit = false

        package init(reason: String, offset: Int, isLimit: Bool = false) {
            self.reason = reason
            self.offset = offset
            self.isLimit = isLimit
        }
    }

    /// Tokenizes a whole document and checks that it is well-formed: tags nest and match,
    /// there is exactly one root element, attributes are quoted, entity references are complete.
    /// The checks are `XMLStreamTokenizer`'s (this is that tokenizer given the whole body), so
    /// its nesting limits apply too.
    package static func tokenize(_ bytes: [UInt8]) throws(SyntaxError) -> [Token] {
        var tokenizer = XMLStreamTokenizer()
        var tokens: [Token] = []
        let failure = bytes.withUnsafeBufferPointer { b -> SyntaxError? in
            var at = 0
            do throws(SyntaxError) {
                while let t = try tokenizer.next(in: b, at: at, base: 0, final: true) {
                    tokens.append(token(t, in: bytes))
                    at = t.end
                }
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
        try tokenizer.finish(length: bytes.count)
        return tokens
    }

    /// A stream token as slices of `bytes`.
    private static func token(_ t: XMLStreamToken, in bytes: [UInt8]) -> Token {
        switch t.kind {
        case .processingInstruction: return .processingInstruction(bytes[t.start..<t.end])
        case .comment: return .comment(bytes[t.start..<t.end])
        case .cdata: return .cdata(bytes[t.start..<t.end])
        case .doctype: return .doctype(bytes[t.start..<t.end])
        case .text: return .text(bytes[t.start..<t.end])
        case .endTag: return .endTag(name: bytes[t.nameStart..<t.nameEnd])
        case .startTag:
            var attributes: [Attribute] = []
            var k = 0
            while k + 3 < t.attributes.count {
                let a = t.attributes
                attributes.append(Attribute(name: bytes[a[k]..<a[k + 1]], quotedValue: bytes[a[k + 2]..<a[k + 3]]))
                k += 4
            }
            return .startTag(name: bytes[t.nameStart..<t.nameEnd], attributes: attributes, selfClosing: t.selfClosing)
        }
    }

    package static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }

    package static func isNameStart(_ c: UInt8) -> Bool {
        (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F || c == 0x3A || c >= 0x80
    }

    static func isNameByte(_ c: UInt8) -> Bool {
        isNameStart(c) || (c >= 0x30 && c <= 0x39) || c == 0x2D || c == 0x2E
    }

    /// Character data with the predefined and numeric entity references resolved (other
    /// references are kept as written); nil when the text holds a control character, or a
    /// numeric reference names a character XML 1.0 does not allow (`&#0;`, a control, a
    /// surrogate, U+FFFE): the text is not well-formed.
    /// XML 1.0 §2.11: every CR LF, and every CR alone, read as one LF (a `&#13;` is no line end).
    static func normalizingLineEnds(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let c = bytes[i]
            i += 1
            guard c == 0x0D else { out.append(c); continue }
            out.append(0x0A)
            if i < bytes.endIndex && bytes[i] == 0x0A { i += 1 }
        }
        return out
    }

    /// Text with XML's five entities and character references replaced; nil for a character
    /// XML does not allow (written, or referred to) and for any other entity (`&lol;`, declared
    /// in a DOCTYPE or not): a property list has none (plistlib refuses them; kept as written,
    /// the value became another, valid plist).
    static func decodeEntities(_ written: ArraySlice<UInt8>) -> String? {
        // A control character other than tab and line ends is no XML character written as is either.
        guard !written.contains(where: { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }) else { return nil }
        let text = written.contains(0x0D) ? normalizingLineEnds(written)[...] : written
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
                let hex = name.hasPrefix("#x")   // XML's CharRef: a lower-case x only
                if hex || name.hasPrefix("#") {
                    let digits = name.dropFirst(hex ? 2 : 1)
                    guard !digits.isEmpty, digits.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || (hex && ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x66) }),
                          let value = UInt32(digits, radix: hex ? 16 : 10), XMLTokenizer.isXMLChar(value) else { return nil }
                    scalar = Unicode.Scalar(value)
                }
            }
            guard let scalar else { return nil }
            out += Array(String(Character(scalar)).utf8)
            i = semi + 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// XML 1.0's Char: tab, line feed, carriage return, U+0020…U+D7FF, U+E000…U+FFFD, U+10000…U+10FFFF.
    static func isXMLChar(_ v: UInt32) -> Bool {
        v == 0x9 || v == 0xA || v == 0xD || (0x20...0xD7FF).contains(v) || (0xE000...0xFFFD).contains(v) || (0x10000...0x10FFFF).contains(v)
    }
}
