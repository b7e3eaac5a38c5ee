import SwurlCore
/// One token found by `XMLStreamTokenizer`, as offsets into the whole body (so it stays valid
/// while the caller's buffer slides along the body).
package struct XMLStreamToken {
    package enum Kind: UInt8 {
        case processingInstruction, comment, cdata, doctype, startTag, endTag, text
    }

    package var kind: Kind
    /// The whole markup, or the text, as offsets into the body.
    package var start: Int
    package var end: Int
    /// A tag's element name (empty for other kinds).
    package var nameStart = 0
    package var nameEnd = 0
    /// A start tag's attributes, four offsets each: name start, name end, quoted value start,
    /// quoted value end (the quotes included).
    package var attributes: [Int] = []
    package var selfClosing = false
}

/// The one XML tokenizer, incremental: it is handed the bytes seen so far and returns complete
/// tokens one at a time, or nil when the next token is not complete yet (more bytes must come),
/// so a body can be checked and formatted as it streams in. Between tokens it keeps only what
/// well-formedness needs: the stack of open element names (bounded, see `maxDepth` and
/// `maxNameBytes`) and whether the root element was seen.
///
/// Whatever the chunking, the tokens and the first error are the same as for the whole body at
/// once: a token is returned only when it is complete, and an error is thrown only when no
/// further byte could undo it, because every check reads the bytes left to right and waits,
/// rather than fails, where the end of the bytes so far is reached (unless `final`).
package struct XMLStreamTokenizer {
    /// Open elements deeper than this end tokenizing with a limit error: the name stack is the
    /// only state that grows with the document, and real documents nest a few dozen levels.
    package static let maxDepth = 10_000
    /// The open elements' names, together, past this end tokenizing with a limit error.
    package static let maxNameBytes = 1 << 20
    /// Markup shorter than this (from its `<`) is not judged before more bytes come: it could
    /// still become `<!--`, `<![CDATA[` or `<!DOCTYPE`.
    static let longestMarker = 9

    /// The open elements' names, end to end, and where each ends.
    private var names: [UInt8] = []
    private var nameEnds: [Int] = []
    private var roots = 0

    package init() {}

    /// How many elements are open.
    package var depth: Int { nameEnds.count }

    /// The next token starting at `i` of `b`, whose first byte is at offset `base` of the body.
    /// - Parameters:
    ///   - final: whether `b` holds the rest of the body; if not, nil means "wait for more".
    /// - Returns: the token (with body offsets), or nil at the end of `b` or when the token
    ///   there is not complete yet.
    /// - Throws: `XMLTokenizer.SyntaxError` (with body offsets) when the body is not well-formed,
    ///   or `isLimit` when it nests past `maxDepth` or `maxNameBytes`.
    package mutating func next(in b: UnsafeBufferPointer<UInt8>, at start: Int, base: Int,
                              final: Bool) throws(XMLTokenizer.SyntaxError) -> XMLStreamToken? {
        let n = b.count
        var i = start
        if base + i == 0 {
            // A byte-order mark is skipped (never shown); wait until it can be recognised.
            let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
            if !final && n < 3 && bom.starts(with: b) { return nil }
            if n >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF { i = 3 }
        }
        guard i < n else { return nil }
        func fail(_ reason: String, _ at: Int) -> XMLTokenizer.SyntaxError {
            XMLTokenizer.SyntaxError(reason: reason, offset: base + at)
        }
        if b[i] != UInt8(ascii: "<") {
            // Text runs on until a `<`; the end of the bytes so far is not its end. A byte no
            // further byte can make right fails at once (entities before it are judged first, as
            // they would be in the whole run): a control character XML 1.0 does not allow
            // (§2.2), anything but blanks outside the root element. So a binary body fails at
            // its first bytes, not after a megabyte of text that is shown as it comes.
            var j = i
            if nameEnds.isEmpty {
                while j < n && b[j] != UInt8(ascii: "<") {
                    guard XMLTokenizer.isSpace(b[j]) else {
                        try checkEntities(b, i, j, base: base)
                        throw fail(b[j] < 0x20 ? XMLStreamTokenizer.controlCharacter(b[j]) : "text outside the root element", j)
                    }
                    j += 1
                }
            } else {
                // One comparison for most bytes: `<` and the controls all lie below 0x3D.
                while j < n {
                    let c = b[j]
                    if c > 0x3C { j += 1; continue }
                    if c == UInt8(ascii: "<") { break }
                    if c < 0x20 && c != 0x09 && c != 0x0A && c != 0x0D {
                        try checkEntities(b, i, j, base: base)
                        throw fail(XMLStreamTokenizer.controlCharacter(c), j)
                    }
                    j += 1
                }
            }
            if j == n && !final { return nil }
            try checkEntities(b, i, j, base: base)
            return XMLStreamToken(kind: .text, start: base + i, end: base + j)
        }
        if !final && n - i < XMLStreamTokenizer.longestMarker { return nil }
        if starts(b, i, "<!--") {
            guard let end = find(b, "-->", from: i + 4) else {
                if final { throw fail("unterminated comment", i) }
                return nil
            }
            // XML 1.0 §2.5: no `--` inside a comment, and §2.2's characters only, as in text.
            var d = i + 4
            while d + 1 < end {
                if b[d] == 0x2D && b[d + 1] == 0x2D { throw fail("'--' inside a comment", d) }
                d += 1
            }
            if let c = XMLStreamTokenizer.forbiddenControl(b, i + 4, end) { throw fail(XMLStreamTokenizer.controlCharacter(b[c]), c) }
            return XMLStreamToken(kind: .comment, start: base + i, end: base + end + 3)
        }
        if starts(b, i, "<![CDATA[") {
            guard !nameEnds.isEmpty else { throw fail("CDATA outside the root element", i) }
            guard let end = find(b, "]]>", from: i + 9) else {
                if final { throw fail("unterminated CDATA section", i) }
                return nil
            }
            if let c = XMLStreamTokenizer.forbiddenControl(b, i + 9, end) { throw fail(XMLStreamTokenizer.controlCharacter(b[c]), c) }
            return XMLStreamToken(kind: .cdata, start: base + i, end: base + end + 3)
        }
        if starts(b, i, "<?") {
            guard let end = find(b, "?>", from: i + 2) else {
                if final { throw fail("unterminated processing instruction", i) }
                return nil
            }
            guard end > i + 2, XMLTokenizer.isNameStart(b[i + 2]) else { throw fail("processing instruction without a target", i) }
            return XMLStreamToken(kind: .processingInstruction, start: base + i, end: base + end + 2)
        }
        if starts(b, i, "<!DOCTYPE") {
            guard nameEnds.isEmpty, roots == 0 else { throw fail("DOCTYPE after the root element", i) }
            var j = i + 9
            var bracket = 0
            var quote: UInt8 = 0
            while j < n {
                let c = b[j]
                if quote != 0 { if c == quote { quote = 0 } }
                else if bracket > 0 && c == UInt8(ascii: "<") {
                    // A comment or processing instruction in the internal subset is skipped
                    // whole (XML 1.0 §2.8), so a quote, bracket or `>` inside it counts for
                    // nothing: `<!-- don't -->`, `<?pi ]> ?>`. Nothing in it is kept.
                    if n - j < 4 && !final { return nil }
                    let close: StaticString
                    if starts(b, j, "<!--") { close = "-->" }
                    else if starts(b, j, "<?") { close = "?>" }
                    else { j += 1; continue }
                    guard let end = find(b, close, from: j + (close.utf8CodeUnitCount == 3 ? 4 : 2)) else {
                        if final { throw fail(close.utf8CodeUnitCount == 3 ? "unterminated comment in the DOCTYPE"
                                                                          : "unterminated processing instruction in the DOCTYPE", j) }
                        return nil
                    }
                    j = end + close.utf8CodeUnitCount
                    continue
                }
                else if c == 0x22 || c == 0x27 { quote = c }
                else if c == UInt8(ascii: "[") { bracket += 1 }
                else if c == UInt8(ascii: "]") { bracket -= 1 }
                else if c == UInt8(ascii: ">") && bracket <= 0 { break }
                j += 1
            }
            guard j < n else {
                if final { throw fail("unterminated DOCTYPE", i) }
                return nil
            }
            return XMLStreamToken(kind: .doctype, start: base + i, end: base + j + 1)
        }
        if starts(b, i, "</") {
            var j = i + 2
            let nameStart = j
            while j < n && XMLTokenizer.isNameByte(b[j]) { j += 1 }
            let nameEnd = j
            while j < n && XMLTokenizer.isSpace(b[j]) { j += 1 }
            if j == n && !final { return nil }
            guard j < n, b[j] == UInt8(ascii: ">"), nameEnd > nameStart else {
                throw fail("malformed end tag", i)
            }
            guard let openStart = nameEnds.count > 1 ? nameEnds[nameEnds.count - 2] : (nameEnds.isEmpty ? nil : 0),
                  let openEnd = nameEnds.last,
                  openEnd - openStart == nameEnd - nameStart,
                  (0..<(nameEnd - nameStart)).allSatisfy({ names[openStart + $0] == b[nameStart + $0] }) else {
                throw fail("end tag </\(String(decoding: UnsafeBufferPointer(rebasing: b[nameStart..<nameEnd]), as: UTF8.self))> does not match", i)
            }
            nameEnds.removeLast()
            names.removeLast(nameEnd - nameStart)
            return XMLStreamToken(kind: .endTag, start: base + i, end: base + j + 1,
                                  nameStart: base + nameStart, nameEnd: base + nameEnd)
        }
        var j = i + 1
        guard j < n, XMLTokenizer.isNameStart(b[j]) else { throw fail("'<' that starts no tag", i) }
        let nameStart = j
        while j < n && XMLTokenizer.isNameByte(b[j]) { j += 1 }
        let nameEnd = j
        var attributes: [Int] = []
        // Past a few attributes, duplicates are found with a set rather than by comparing each
        // with every earlier one: a tag with many attributes must stay linear.
        var attributeNames: Set<[UInt8]> = []
        var selfClosing = false
        while true {
            let before = j
            while j < n && XMLTokenizer.isSpace(b[j]) { j += 1 }
            guard j < n else {
                if final { throw fail("unterminated tag", i) }
                return nil
            }
            if b[j] == UInt8(ascii: ">") { j += 1; break }
            if b[j] == UInt8(ascii: "/") {
                if j + 1 == n && !final { return nil }
                guard j + 1 < n, b[j + 1] == UInt8(ascii: ">") else { throw fail("malformed tag", j) }
                selfClosing = true
                j += 2
                break
            }
            guard j > before, XMLTokenizer.isNameStart(b[j]) else { throw fail("malformed attribute", j) }
            let an = j
            while j < n && XMLTokenizer.isNameByte(b[j]) { j += 1 }
            let anEnd = j
            while j < n && XMLTokenizer.isSpace(b[j]) { j += 1 }
            if j == n && !final { return nil }
            guard j < n, b[j] == UInt8(ascii: "=") else { throw fail("attribute without a value", j) }
            j += 1
            while j < n && XMLTokenizer.isSpace(b[j]) { j += 1 }
            if j == n && !final { return nil }
            guard j < n, b[j] == 0x22 || b[j] == 0x27 else { throw fail("unquoted attribute value", j) }
            let q = b[j]
            var k = j + 1
            while k < n && b[k] != q {
                if b[k] == UInt8(ascii: "<") { throw fail("'<' in an attribute value", k) }
                if b[k] < 0x20 && b[k] != 0x09 && b[k] != 0x0A && b[k] != 0x0D { throw fail(XMLStreamTokenizer.controlCharacter(b[k]), k) }
                k += 1
            }
            guard k < n else {
                if final { throw fail("unterminated attribute value", j) }
                return nil
            }
            try checkEntities(b, j + 1, k, base: base)
            if isDuplicate(b, an, anEnd, attributes, base: base, &attributeNames) {
                throw fail("duplicate attribute", an)
            }
            attributes += [base + an, base + anEnd, base + j, base + k + 1]
            j = k + 1
        }
        if nameEnds.isEmpty {
            roots += 1
            guard roots == 1 else { throw fail("more than one root element", i) }
        }
        if !selfClosing {
            guard nameEnds.count < XMLStreamTokenizer.maxDepth else {
                throw XMLTokenizer.SyntaxError(reason: "elements nested deeper than \(XMLStreamTokenizer.maxDepth) levels, the limit",
                                               offset: base + i, isLimit: true)
            }
            guard names.count + nameEnd - nameStart <= XMLStreamTokenizer.maxNameBytes else {
                throw XMLTokenizer.SyntaxError(reason: "the open elements' names exceed \(XMLStreamTokenizer.maxNameBytes >> 20) MiB together, the limit",
                                               offset: base + i, isLimit: true)
            }
            names.append(contentsOf: UnsafeBufferPointer(rebasing: b[nameStart..<nameEnd]))
            nameEnds.append(names.count)
        }
        return XMLStreamToken(kind: .startTag, start: base + i, end: base + j, nameStart: base + nameStart,
                              nameEnd: base + nameEnd, attributes: attributes, selfClosing: selfClosing)
    }

    /// Checks, once the body has ended, that every element was closed and there was a root.
    /// - Parameter length: the body's length (the offset reported).
    package func finish(length: Int) throws(XMLTokenizer.SyntaxError) {
        if let last = nameEnds.last {
            let first = nameEnds.count > 1 ? nameEnds[nameEnds.count - 2] : 0
            throw XMLTokenizer.SyntaxError(reason: "unclosed element <\(String(decoding: names[first..<last], as: UTF8.self))>",
                                           offset: length)
        }
        guard roots == 1 else { throw XMLTokenizer.SyntaxError(reason: "no root element", offset: length) }
    }

    /// Whether the attribute name `b[s..<e]` is already among `attributes` (body offsets, the
    /// names at `base`); compared directly for the first eight, through `seen` after that.
    private func isDuplicate(_ b: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int, _ attributes: [Int], base: Int,
                             _ seen: inout Set<[UInt8]>) -> Bool {
        let count = attributes.count / 4
        if count < 8 {
            for a in 0..<count {
                let os = attributes[a * 4] - base, oe = attributes[a * 4 + 1] - base
                if oe - os == e - s && (0..<(e - s)).allSatisfy({ b[os + $0] == b[s + $0] }) { return true }
            }
            return false
        }
        if seen.isEmpty {
            for a in 0..<count {
                seen.insert(Array(b[(attributes[a * 4] - base)..<(attributes[a * 4 + 1] - base)]))
            }
        }
        return !seen.insert(Array(b[s..<e])).inserted
    }

    private func starts(_ b: UnsafeBufferPointer<UInt8>, _ i: Int, _ s: StaticString) -> Bool {
        let c = s.utf8CodeUnitCount
        guard i + c <= b.count else { return false }
        return s.withUTF8Buffer { p in
            for k in 0..<c where b[i + k] != p[k] { return false }
            return true
        }
    }

    private func find(_ b: UnsafeBufferPointer<UInt8>, _ s: StaticString, from: Int) -> Int? {
        var i = from
        let first = s.utf8Start.pointee
        while i < b.count {
            if b[i] == first && starts(b, i, s) { return i }
            i += 1
        }
        return nil
    }

    /// Where `b[s..<e]` holds a control character XML 1.0 does not allow (all below 0x20 but
    /// tab, line feed and carriage return), if anywhere.
    static func forbiddenControl(_ b: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int) -> Int? {
        var k = s
        while k < e {
            if b[k] < 0x20 && b[k] != 0x09 && b[k] != 0x0A && b[k] != 0x0D { return k }
            k += 1
        }
        return nil
    }

    /// Whether the digits of `&#…;` (`b[s..<e]`: decimal, or `x` and hex) name a character XML
    /// allows.
    static func isAllowedReference(_ b: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int) -> Bool {
        guard s < e else { return false }
        let hex = b[s] == UInt8(ascii: "x")
        var v: UInt32 = 0
        var k = hex ? s + 1 : s
        guard k < e else { return false }
        while k < e {
            let c = b[k]
            let d: UInt32
            switch c {
            case 0x30...0x39: d = UInt32(c - 0x30)
            case 0x61...0x66 where hex: d = UInt32(c - 0x61 + 10)
            case 0x41...0x46 where hex: d = UInt32(c - 0x41 + 10)
            default: return false
            }
            v = v * (hex ? 16 : 10) + d
            if v > 0x10FFFF { return false }
            k += 1
        }
        switch v {
        case 0x09, 0x0A, 0x0D, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: return true
        default: return false
        }
    }

    static func controlCharacter(_ c: UInt8) -> String {
        "a control character XML does not allow (0x\(String(c, radix: 16, uppercase: true)))"
    }

    /// Every `&` starts a complete reference: `&name;`, `&#123;` or `&#x7B;`.
    private func checkEntities(_ b: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int,
                               base: Int) throws(XMLTokenizer.SyntaxError) {
        var i = s
        while i < e {
            if b[i] == UInt8(ascii: "&") {
                var j = i + 1
                while j < e && j - i < 40 && b[j] != UInt8(ascii: ";") {
                    guard XMLTokenizer.isNameByte(b[j]) || b[j] == UInt8(ascii: "#") else { break }
                    j += 1
                }
                guard j < e, b[j] == UInt8(ascii: ";"), j > i + 1 else {
                    throw XMLTokenizer.SyntaxError(reason: "incomplete entity reference", offset: base + i)
                }
                // A character reference names a character XML allows (§4.1, §2.2): not NUL, a
                // control other than tab and line ends, a surrogate, U+FFFE/U+FFFF.
                if b[i + 1] == UInt8(ascii: "#"), !XMLStreamTokenizer.isAllowedReference(b, i + 2, j) {
                    throw XMLTokenizer.SyntaxError(reason: "a character reference to a character XML does not allow", offset: base + i)
                }
                i = j
            }
            i += 1
        }
    }
}
