import XCTest
@testable import SwurlOutput
@testable import SwurlResponseSerialization
@testable import SwurlCore

/// The streaming XML formatter: the same layout as the whole-document printer it replaced, for
/// any chunking, in memory bounded by its limits rather than by the body.
final class XMLStreamFormatterTests: XCTestCase {
    /// A random well-formed document: nested elements, attributes, text (blank, with entities,
    /// controls and non-ASCII), mixed content, comments, CDATA, processing instructions.
    private static func document(_ rng: inout SeededGenerator) -> String {
        let texts = ["x", "  ", "\n  ", "a &amp; b", "t &lt; &e;", "é😀", "del\u{7F}[2J", " lead", "trail ", "\u{85}c1", "1 2\n3"]
        func pick<T>(_ a: [T]) -> T { a[Int.random(in: 0..<a.count, using: &rng)] }
        func element(_ depth: Int) -> String {
            let name = pick(["a", "b", "n:c", "d-e", "f.g"])
            var tag = "<" + name
            for k in 0..<Int.random(in: 0...2, using: &rng) {
                tag += pick([" ", "\n", "  "]) + "k\(k)" + pick(["=", " = "]) + pick(["\"v\(k)\"", "'1 &amp; 2'", "\"\""])
            }
            if depth > 5 || Int.random(in: 0..<5, using: &rng) == 0 { return tag + pick(["/>", " />"]) }
            var s = tag + ">"
            for _ in 0..<Int.random(in: 0...4, using: &rng) {
                switch Int.random(in: 0..<9, using: &rng) {
                case 0, 1, 2: s += pick(texts)
                case 3, 4, 5: s += element(depth + 1)
                case 6: s += "<!-- c\(depth) -->"
                case 7: s += "<![CDATA[<raw> & ]]>"
                default: s += "<?pi data?>"
                }
            }
            return s + "</" + name + ">"
        }
        var doc = pick(["", "<?xml version=\"1.0\"?>", "<?xml version=\"1.0\"?>\n<!-- top -->\n", "<!DOCTYPE r [<!ENTITY e \"x\">]>"])
        doc += element(0)
        doc += pick(["", "\n", "<!-- after -->", " \n<?pi end?>"])
        return doc
    }

    private func reference(_ bytes: [UInt8], theme: Theme?, terminal: Bool) throws -> [UInt8] {
        var out: [UInt8] = []
        ReferenceXMLPrettyPrinter(theme: theme, sanitize: terminal).write(try XMLTokenizer.tokenize(bytes), into: &out)
        return out
    }

    func testValidDocumentsLookAsTheWholeDocumentPrinterShowedThemForAnyChunking() throws {
        var rng = SeededGenerator(state: 17)
        for n in 0..<400 {
            let doc = Array(XMLStreamFormatterTests.document(&rng).utf8)
            let terminal = n % 2 == 0
            let theme: Theme? = n % 3 == 0 ? Theme() : nil
            let expected = try reference(doc, theme: theme, terminal: terminal)
            for chunk in [doc.count, 1, 3, Int.random(in: 2...40, using: &rng)] {
                let r = runDecoder(doc, choice: .xml, terminal: terminal, theme: theme, chunk: chunk)
                XCTAssertEqual(r.outcome, .decoded, String(decoding: doc, as: UTF8.self))
                guard r.bytes == expected else {
                    XCTFail("""
                    chunk \(chunk), document \(String(decoding: doc, as: UTF8.self).debugDescription)
                    expected \(String(decoding: expected, as: UTF8.self).debugDescription)
                    got      \(r.text.debugDescription)
                    """)
                    return
                }
            }
        }
    }

    /// A flat document far larger than every limit: `<list>` holding items.
    private static func flat(bytes: Int) -> [UInt8] {
        var doc = Array("<?xml version=\"1.0\"?>\n<list>\n".utf8)
        var i = 0
        while doc.count < bytes {
            doc += Array("  <item id=\"\(i)\"><name>n\(i)</name><!-- \(i) --></item>\n".utf8)
            i += 1
        }
        return doc + Array("</list>\n".utf8)
    }

    /// Feeds `body` to a fresh formatter in `chunk`-sized pieces; returns the output, the most
    /// body bytes it held at once, and whether output came before the end.
    private func stream(_ body: [UInt8], chunk: Int) -> (out: [UInt8], maxHeld: Int, early: Bool, failure: XMLTokenizer.SyntaxError?) {
        let f = XMLStreamFormatter(theme: nil, sanitize: false)
        var out: [UInt8] = []
        var maxHeld = 0
        var i = 0
        while i < body.count {
            let end = min(body.count, i + chunk)
            body[i..<end].withUnsafeBytes { f.feed($0, into: &out) }
            maxHeld = max(maxHeld, f.heldBytes)
            i = end
        }
        let early = !out.isEmpty
        f.finish(into: &out)
        return (out, maxHeld, early, f.failure)
    }

    func testAFlatDocumentStreamsInBoundedMemory() throws {
        // Before: the whole body, every token and the whole output were held (728 MB for 7 MB).
        let doc = XMLStreamFormatterTests.flat(bytes: 3 << 20)
        let expected = try reference(doc, theme: nil, terminal: false)
        for chunk in [1 << 16, 4099] {
            let r = stream(doc, chunk: chunk)
            XCTAssertNil(r.failure)
            XCTAssertTrue(r.early, "nothing was written before the body ended")
            XCTAssertTrue(r.out == expected, "chunk \(chunk): the layout differs from the whole-document printer's")
            // The look-ahead (the root's layout is undecided until </list>), one chunk, one compaction margin.
            XCTAssertLessThan(r.maxHeld, XMLStreamFormatter.lookaheadLimit + 2 * chunk + (1 << 17) + 200, "chunk \(chunk)")
        }
    }

    func testDeepNestingWithinTheLimitStreamsAndKeepsOnlyTheNames() {
        let n = XMLStreamTokenizer.maxDepth
        let doc = Array((String(repeating: "<a>", count: n) + "x" + String(repeating: "</a>", count: n)).utf8)
        let r = stream(doc, chunk: 1000)
        XCTAssertNil(r.failure)
        XCTAssertTrue(String(decoding: r.out, as: UTF8.self).hasPrefix("<a>\n  <a>\n    <a>"))
        XCTAssertLessThan(r.maxHeld, 1 << 17)
    }

    func testNestingPastTheLimitIsShownAsSentAndSaysWhichLimit() {
        let n = XMLStreamTokenizer.maxDepth + 1
        let doc = String(repeating: "<a>", count: n) + String(repeating: "</a>", count: n)
        let r = runDecoder(doc, choice: .auto, mediaType: "application/xml", terminal: false, chunk: 4096)
        XCTAssertEqual(r.text, doc)
        guard case .failed(let note) = r.outcome else { return XCTFail("\(r.outcome)") }
        XCTAssertTrue(note.contains("nested deeper than 10000 levels, the limit for formatting"), note)
        XCTAssertTrue(note.contains("at byte 30000"), note)
        XCTAssertTrue(note.hasSuffix("; shown as sent"), note)
    }

    func testInvalidPastTheWindowKeepsWhatWasFormattedAndShowsTheRestAsSent() throws {
        // What the JSON decoder does: the formatted part stays, the rest follows as sent.
        let valid = XMLStreamFormatterTests.flat(bytes: HoldBackWindow.size + 50_000)
        let cut = Array(valid.dropLast(8)) // drop "</list>\n"
        let bad = cut + Array("<x></y>\u{1B}[2J tail".utf8)
        let whole = runDecoder(bad, choice: .xml, terminal: true, chunk: bad.count)
        guard case .failed(let note) = whole.outcome else { return XCTFail("\(whole.outcome)") }
        XCTAssertEqual(note, "the body is not well-formed XML (end tag </y> does not match at byte \(cut.count + 3)); formatted up to there, the rest is shown as sent")
        let formatted = try reference(valid, theme: nil, terminal: true)
        // Everything up to the last complete item is formatted; the rest is raw but made safe.
        let prefix = String(decoding: formatted, as: UTF8.self).components(separatedBy: "\n").dropLast(2).joined(separator: "\n")
        XCTAssertTrue(whole.text.hasPrefix(prefix))
        XCTAssertTrue(whole.text.hasSuffix("\n<x></y>\\x1b[2J tail"), String(whole.text.suffix(40)))
        XCTAssertFalse(whole.text.contains("\u{1B}"))
        for chunk in [1, 4096, 65_537] {
            let r = runDecoder(bad, choice: .xml, terminal: true, chunk: chunk)
            XCTAssertEqual(r.outcome, whole.outcome, "chunk \(chunk)")
            XCTAssertTrue(r.bytes == whole.bytes, "chunk \(chunk)")
        }
    }

    /// An error that shows before the token's `>` arrives (an unquoted attribute value) is found
    /// at the window's checkpoints however the body was cut: all chunkings agree.
    func testAnErrorBeforeTheTerminatorIsFoundTheSameWayForAnyChunking() {
        let body = Array("<r><a b=c".utf8) + [UInt8](repeating: 0x20, count: 2 << 20) + Array("></a></r>".utf8)
        let whole = runDecoder(body, choice: .xml, terminal: true, chunk: body.count)
        for chunk in [9, 4096, 65_537] {
            let r = runDecoder(body, choice: .xml, terminal: true, chunk: chunk)
            XCTAssertEqual(r.outcome, whole.outcome, "chunk \(chunk)")
            XCTAssertTrue(r.bytes == whole.bytes, "chunk \(chunk)")
        }
    }

    /// A byte no later byte can make right fails at once, at that byte, whatever the chunks: a
    /// control character XML 1.0 does not allow, text outside the root element (a binary body's
    /// first bytes); a bad entity before it in the same run is still the first error.
    func testAControlCharacterOrTextOutsideTheRootFailsAtItsByte() {
        let cases: [(String, String, Int)] = [
            ("<r>ab\u{1}c</r>", "a control character XML does not allow (0x1)", 5),
            ("  \n\u{0}\u{0}\u{0}", "a control character XML does not allow (0x0)", 3),
            (" \n junk<r/>", "text outside the root element", 3),
            ("<r/>\n tail", "text outside the root element", 6),
            ("<r>&bo\u{1}</r>", "incomplete entity reference", 3),
            ("<r>a\tb\r\nc</r>", "", 0),
            // In an attribute value, a comment or CDATA too (only text was checked), and `--`
            // inside a comment; a character reference to a character XML does not allow.
            ("<r a=\"x\u{1B}y\"/>", "a control character XML does not allow (0x1B)", 7),
            ("<r><!-- \u{1B} --></r>", "a control character XML does not allow (0x1B)", 8),
            ("<r><![CDATA[\u{7}]]></r>", "a control character XML does not allow (0x7)", 12),
            ("<r><!-- a -- b --></r>", "'--' inside a comment", 10),
            ("<r>&#0;</r>", "a character reference to a character XML does not allow", 3),
            ("<r a=\"&#x1b;\"/>", "a character reference to a character XML does not allow", 6),
            ("<r>&#xD800;</r>", "a character reference to a character XML does not allow", 3),
            ("<r>&#65;&#x10FFFF;&#x9;<!-- a - b --></r>", "", 0),
        ]
        for (doc, reason, offset) in cases {
            for chunk in [1, 2, 5, 1 << 16] {
                let failure = stream(Array(doc.utf8), chunk: chunk).failure
                if reason.isEmpty {
                    XCTAssertNil(failure, "\(doc.debugDescription) in chunks of \(chunk)")
                } else {
                    XCTAssertTrue(failure?.reason.contains(reason) == true, "\(doc.debugDescription) in chunks of \(chunk): \(String(describing: failure))")
                    XCTAssertEqual(failure?.offset, offset, "\(doc.debugDescription) in chunks of \(chunk)")
                }
            }
        }
    }

    /// Bytes that are not UTF-8 (the formatter sees UTF-8: other charsets were converted before
    /// it) end formatting at the sequence's first byte, whatever the chunks: a Latin-1 `é` in a
    /// document without a charset was formatted and passed `--decode xml`.
    func testBytesThatAreNotUTF8FailAtTheSequencesFirstByte() {
        let cases: [([UInt8], Int?)] = [
            (Array("<r>caf".utf8) + [0xE9] + Array("</r>".utf8), 6),
            (Array("<r a=\"".utf8) + [0xFF] + Array("\"/>".utf8), 6),
            (Array("<r>".utf8) + [0xC3, 0xA9, 0xE2, 0x82] + Array("</r>".utf8), 5),
            (Array("<r>ok".utf8) + [0xC3], 5),
            (Array("<r><!-- ".utf8) + [0x80] + Array(" --></r>".utf8), 8),
            (Array("<r>caf".utf8) + [0xC3, 0xA9, 0xC2, 0x85, 0xF0, 0x9F, 0x98, 0x80] + Array("</r>".utf8), nil),
        ]
        for (doc, offset) in cases {
            for chunk in [1, 2, 5, 1 << 16] {
                let failure = stream(doc, chunk: chunk).failure
                if let offset {
                    XCTAssertTrue(failure?.reason.hasPrefix("a byte that is not UTF-8") == true, "\(doc) in chunks of \(chunk): \(String(describing: failure))")
                    XCTAssertEqual(failure?.offset, offset, "\(doc) in chunks of \(chunk)")
                } else {
                    XCTAssertNil(failure, "\(doc) in chunks of \(chunk)")
                }
            }
        }
    }

    /// A byte that is not UTF-8 in the window, in a token that ends past it, is found in the
    /// window (shown as sent with the note), as a control character there is; it was found only
    /// once the token ended, past the window ("formatted up to there").
    func testABytethatIsNotUTF8InTheWindowIsFoundThere() {
        let body = Array("<r><t>".utf8) + [UInt8](repeating: 0x78, count: 1000) + [0xE9]
            + [UInt8](repeating: 0x79, count: 1_200_000) + Array("</t></r>".utf8)
        for chunk in [body.count, 1 << 16, 4096] {
            let r = runDecoder(body, choice: .xml, terminal: false, chunk: chunk)
            XCTAssertEqual(r.outcome, .failed("the body is not well-formed XML (a byte that is not UTF-8 (0xE9) at byte 1006); shown as sent"), "\(chunk)")
            XCTAssertTrue(r.bytes == body, "the body is shown as sent")
        }
    }

    /// An element saying `xml:space="preserve"` is written as sent, its descendants too (its
    /// white space was re-indented: a parser read other text); its siblings are laid out as usual.
    func testAnElementPreservingSpaceIsWrittenAsSent() {
        let cases: [(String, String)] = [
            ("<r><pre xml:space=\"preserve\"><a>x</a>\n  <b>y</b>\n</pre><c><d>1</d></c></r>",
             "<r>\n  <pre xml:space=\"preserve\"><a>x</a>\n  <b>y</b>\n</pre>\n  <c>\n    <d>1</d>\n  </c>\n</r>"),
            ("<r xml:space='preserve'><a> 1 </a><b><c>2</c></b></r>", "<r xml:space='preserve'><a> 1 </a><b><c>2</c></b></r>"),
            ("<r xml:space=\"default\"><a><b/></a></r>", "<r xml:space=\"default\">\n  <a>\n    <b/>\n  </a>\n</r>"),
        ]
        for (doc, expected) in cases {
            for chunk in [1, 3, 1 << 16] {
                let r = stream(Array(doc.utf8), chunk: chunk)
                XCTAssertNil(r.failure, doc)
                XCTAssertEqual(String(decoding: r.out, as: UTF8.self), expected, "\(doc) in chunks of \(chunk)")
            }
        }
    }

    /// Comments and processing instructions in a DOCTYPE's internal subset are skipped whole: a
    /// quote, `]` or `>` inside one does not end (or hold open) the DOCTYPE, whatever the chunks.
    /// Python's minidom takes all of these; the DOCTYPE is shown as written.
    func testCommentsAndPIsInTheInternalSubsetAreSkipped() throws {
        let doctypes = [
            "<!DOCTYPE r [<!-- don't panic --><!ELEMENT r EMPTY>]>",
            "<!DOCTYPE r [<!-- ]> -->]>",
            "<!DOCTYPE r [<?pi ]> ?>]>",
            "<!DOCTYPE r [<!ENTITY e \"]>\"><?pi \"?><!-- ' --><!ATTLIST r a CDATA '>'>]>",
        ]
        for doctype in doctypes {
            let doc = Array((doctype + "<r/>").utf8)
            let tokens = try XMLTokenizer.tokenize(doc)
            XCTAssertEqual(tokens.count, 2, doctype)
            XCTAssertEqual(tokens.first, .doctype(ArraySlice(Array(doctype.utf8))), doctype)
            for chunk in [1, 2, 3, 5, doc.count] {
                let r = stream(doc, chunk: chunk)
                XCTAssertNil(r.failure, "\(doctype) in chunks of \(chunk)")
                XCTAssertEqual(String(decoding: r.out, as: UTF8.self), doctype + "\n<r/>", "\(doctype) in chunks of \(chunk)")
            }
        }
        // Unterminated, they are errors at the end of the body, not past it.
        for (doc, reason) in [("<!DOCTYPE r [<!-- ]> <r/>", "unterminated comment in the DOCTYPE"),
                              ("<!DOCTYPE r [<?pi ]> <r/>", "unterminated processing instruction in the DOCTYPE")] {
            for chunk in [1, 4, 1 << 16] {
                let failure = stream(Array(doc.utf8), chunk: chunk).failure
                XCTAssertEqual(failure?.reason, reason, "\(doc) in chunks of \(chunk)")
                XCTAssertEqual(failure?.offset, 13, "\(doc) in chunks of \(chunk)")
            }
        }
    }

    func testATokenPastTheLimitSaysWhichLimit() {
        var doc = Array("<r>".utf8)
        doc += [UInt8](repeating: UInt8(ascii: "x"), count: XMLStreamFormatter.tokenLimit + 10)
        doc += Array("</r>".utf8)
        let r = runDecoder(doc, choice: .xml, terminal: false, chunk: 1 << 16)
        guard case .failed(let note) = r.outcome else { return XCTFail("\(r.outcome)") }
        XCTAssertEqual(note, "the body could not be formatted as XML (a single token (tag, text, comment…) longer than 16 MiB, the limit for formatting, at byte 3); formatted up to there, the rest is shown as sent")
        XCTAssertTrue(r.bytes == doc, "the body is shown as sent")
        // A syntax error past the limit is not looked for, however the token arrives.
        var late = Array("<r><a ".utf8) + [UInt8](repeating: 0x20, count: XMLStreamFormatter.tokenLimit) + Array("x=1/></r>".utf8)
        for chunk in [late.count, 1 << 16] {
            let r = runDecoder(late, choice: .xml, terminal: false, chunk: chunk)
            XCTAssertTrue(r.outcome.isFailure && "\(r.outcome)".contains("longer than 16 MiB, the limit for formatting, at byte 3"), "\(chunk): \(r.outcome)")
        }
        late = []
    }

    func testStreamShowsOutputBeforeTheWindowFills() {
        let context = DecodingContext(options: { var o = DecodingOptions(); o.choice = .xml; o.stream = true; return o }(),
                                      theme: nil, terminal: false, mediaType: nil, charset: nil)
        let d = CompoundResponseDecoder(context: context)
        var out: [UInt8] = []
        Array("<r>\n<a>1</a>\n<b>2</b>\n".utf8).withUnsafeBytes { d.decode($0, into: &out) }
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "", "the root's layout is not known yet")
        Array("text <c/>".utf8).withUnsafeBytes { d.decode($0, into: &out) }
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "<r>\n<a>1</a>\n<b>2</b>\ntext ", "mixed content is written as it comes")
    }

    /// CDATA is text, all of it significant: an element holding it is written as sent, not
    /// re-indented (its text changed: `<d><![CDATA[x]]></d>` became a line break, indentation,
    /// `x`, a line break).
    func testAnElementHoldingCDATAKeepsItsTextAsSent() {
        let doc = "<rss><item><d><![CDATA[<p>Hello</p>]]></d><t> <![CDATA[y]]> </t></item></rss>"
        let r = runDecoder(doc, choice: .xml, terminal: false, chunk: 5)
        XCTAssertEqual(r.text, "<rss>\n  <item>\n    <d><![CDATA[<p>Hello</p>]]></d>\n    <t> <![CDATA[y]]> </t>\n  </item>\n</rss>")
    }

    func testMixedContentPastTheLookAheadIsLaidOutOneChildPerLine() {
        // The only layout that differs from the whole-document printer: mixed content whose
        // first text comes more than `lookaheadLimit` bytes or `lookaheadTokens` tokens into
        // the element.
        let children = String(repeating: "<b/>", count: XMLStreamFormatter.lookaheadTokens + 10)
        let doc = "<p>" + children + "text</p>"
        let r = runDecoder(doc, choice: .xml, terminal: false, chunk: 1 << 16)
        XCTAssertEqual(r.outcome, .decoded)
        XCTAssertTrue(r.text.hasPrefix("<p>\n  <b/>\n  <b/>"))
        XCTAssertTrue(r.text.hasSuffix("  <b/>\n  text\n</p>"))
        // Within the look-ahead it is one line, as sent.
        let small = "<p>" + String(repeating: "<b/>", count: 1000) + "text</p>"
        XCTAssertEqual(runDecoder(small, choice: .xml, terminal: false, chunk: 100).text, small)
    }
}

/// The whole-document printer that XMLStreamFormatter replaced (as of cfbc634), kept as the
/// reference its output must match for valid documents.
struct ReferenceXMLPrettyPrinter {
    let theme: Theme?
    let sanitize: Bool
    var indent = 2

    func write(_ tokens: [XMLTokenizer.Token], into out: inout [UInt8]) {
        var depth = 0
        var i = 0
        var first = true
        func line() {
            if !first { out.append(0x0A) }
            first = false
            // Indentation stops growing past 64 levels (hostile nesting stays linear).
            out += [UInt8](repeating: 0x20, count: max(0, min(depth, 64)) * indent)
        }
        let mixed = ReferenceXMLPrettyPrinter.mixedContent(tokens)
        while i < tokens.count {
            if mixed[i] {
                // Mixed content (<p>Why <em>this</em> works</p>): one line, text exactly as sent,
                // because re-indenting it would change what it says.
                line()
                i = inline(tokens, from: i, &out)
                continue
            }
            switch tokens[i] {
            case .processingInstruction(let b):
                line(); paint(b, theme?.xmlProcessing, &out)
            case .doctype(let b):
                line(); paint(b, theme?.xmlProcessing, &out)
            case .comment(let b):
                line(); paint(b, theme?.xmlComment, &out)
            case .cdata(let b):
                line(); paint(b, theme?.jsonString, &out)
            case .text(let b):
                let trimmed = trim(b)
                if !trimmed.isEmpty { line(); content(trimmed, &out) }
            case .endTag(let name):
                depth -= 1
                line(); endTag(name, &out)
            case .startTag(let name, let attributes, let selfClosing):
                line()
                startTag(name, attributes, selfClosing, &out)
                if selfClosing { break }
                // <a>text</a> and <a></a> stay on one line.
                if i + 1 < tokens.count, case .endTag(let end) = tokens[i + 1] {
                    endTag(end, &out)
                    i += 2
                    continue
                }
                if i + 2 < tokens.count, case .text(let t) = tokens[i + 1], case .endTag(let end) = tokens[i + 2] {
                    content(t, &out)
                    endTag(end, &out)
                    i += 3
                    continue
                }
                depth += 1
            }
            i += 1
        }
    }

    /// For each token, whether it starts an element that directly holds non-blank text and
    /// other markup (computed in one pass).
    static func mixedContent(_ tokens: [XMLTokenizer.Token]) -> [Bool] {
        var mixed = [Bool](repeating: false, count: tokens.count)
        var open: [(index: Int, text: Bool, markup: Bool)] = []
        for (k, token) in tokens.enumerated() {
            switch token {
            case .startTag(_, _, let selfClosing):
                if !open.isEmpty { open[open.count - 1].markup = true }
                if !selfClosing { open.append((k, false, false)) }
            case .endTag:
                if let e = open.popLast(), e.text && e.markup { mixed[e.index] = true }
            case .text(let t):
                if !open.isEmpty, !isBlank(Array(t)) { open[open.count - 1].text = true }
            case .cdata:
                // Since CDATA is kept as sent (the streaming formatter re-indented it once).
                if !open.isEmpty { open[open.count - 1].markup = true; open[open.count - 1].text = true }
            case .comment, .processingInstruction:
                if !open.isEmpty { open[open.count - 1].markup = true }
            case .doctype:
                break
            }
        }
        return mixed
    }

    /// Writes the element starting at `start` and everything in it on the current line;
    /// returns the index after its end tag.
    private func inline(_ tokens: [XMLTokenizer.Token], from start: Int, _ out: inout [UInt8]) -> Int {
        var level = 0
        var k = start
        while k < tokens.count {
            switch tokens[k] {
            case .startTag(let name, let attributes, let selfClosing):
                startTag(name, attributes, selfClosing, &out)
                if !selfClosing { level += 1 }
            case .endTag(let name):
                endTag(name, &out)
                level -= 1
            case .text(let t): content(t, &out)
            case .cdata(let b): paint(b, theme?.jsonString, &out)
            case .comment(let b): paint(b, theme?.xmlComment, &out)
            case .processingInstruction(let b), .doctype(let b): paint(b, theme?.xmlProcessing, &out)
            }
            k += 1
            if level == 0 { break }
        }
        return k
    }

    private func trim(_ b: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var s = b
        while let f = s.first, XMLTokenizer.isSpace(f) { s = s.dropFirst() }
        while let l = s.last, XMLTokenizer.isSpace(l) { s = s.dropLast() }
        return s
    }

    private func content(_ b: ArraySlice<UInt8>, _ out: inout [UInt8]) {
        if sanitize {
            var sanitizer = TerminalSanitizer()
            b.withUnsafeBytes { sanitizer.append($0, to: &out) }
            sanitizer.finish(into: &out)
        } else {
            out += b
        }
    }

    private func paint(_ b: ArraySlice<UInt8>, _ color: String?, _ out: inout [UInt8]) {
        if let color { out += Array(color.utf8) }
        content(b, &out)
        if color != nil, let theme { out += Array(theme.reset.utf8) }
    }

    private func startTag(_ name: ArraySlice<UInt8>, _ attributes: [XMLTokenizer.Attribute], _ selfClosing: Bool,
                          _ out: inout [UInt8]) {
        if let c = theme?.xmlTag { out += Array(c.utf8) }
        out.append(UInt8(ascii: "<"))
        content(name, &out)
        if !attributes.isEmpty {
            if let theme { out += Array(theme.reset.utf8) }
            for a in attributes {
                out.append(0x20)
                paint(a.name, theme?.xmlAttribute, &out)
                out.append(UInt8(ascii: "="))
                paint(a.quotedValue, theme?.jsonString, &out)
            }
            if let c = theme?.xmlTag { out += Array(c.utf8) }
        }
        out += selfClosing ? [UInt8(ascii: "/"), UInt8(ascii: ">")] : [UInt8(ascii: ">")]
        if let theme { out += Array(theme.reset.utf8) }
    }

    private func endTag(_ name: ArraySlice<UInt8>, _ out: inout [UInt8]) {
        if let c = theme?.xmlTag { out += Array(c.utf8) }
        out += [UInt8(ascii: "<"), UInt8(ascii: "/")]
        content(name, &out)
        out.append(UInt8(ascii: ">"))
        if let theme { out += Array(theme.reset.utf8) }
    }
}
