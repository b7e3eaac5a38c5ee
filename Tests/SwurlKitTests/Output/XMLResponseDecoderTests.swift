import XCTest
@testable import SwurlOutput
@testable import SwurlResponseSerialization
@testable import SwurlCore

final class XMLResponseDecoderTests: XCTestCase {
    func testIndentsAndPreservesCommentsCDATAPIsNamespacesAndEntities() {
        let input = #"<?xml version="1.0"?><!-- c --><!DOCTYPE r [<!ENTITY e "x">]><n:r xmlns:n="urn:x" a='1 &amp; 2'><b>t &lt; &e;</b><c/><x><![CDATA[<raw>]]></x><?pi data?><d><e>1</e></d></n:r>"#
        let r = runDecoder(input, mediaType: "application/xml")
        XCTAssertEqual(r.outcome, .decoded)
        XCTAssertEqual(r.text, """
        <?xml version="1.0"?>
        <!-- c -->
        <!DOCTYPE r [<!ENTITY e "x">]>
        <n:r xmlns:n="urn:x" a='1 &amp; 2'>
          <b>t &lt; &e;</b>
          <c/>
          <x><![CDATA[<raw>]]></x>
          <?pi data?>
          <d>
            <e>1</e>
          </d>
        </n:r>
        """)
    }

    func testMixedContentStaysOnOneLineAsSent() {
        let r = runDecoder("<doc><p>Why <em>this</em>  works</p><q><r/></q></doc>", mediaType: "application/xml")
        XCTAssertEqual(r.text, "<doc>\n  <p>Why <em>this</em>  works</p>\n  <q>\n    <r/>\n  </q>\n</doc>")
    }

    func testInvalidXMLIsShownAsText() {
        for input in ["<a><b></a>", "<a>", "<a x=1/>", "<a>&amp</a>", "<a/><b/>", "<a>\u{1B}[2J"] {
            let r = runDecoder(input, mediaType: "text/xml", terminal: false)
            XCTAssertEqual(r.text, input)
            XCTAssertTrue(r.outcome.isFailure, input)
        }
        XCTAssertTrue(runDecoder("<a>", choice: .xml).outcome.isFailure)
    }

    func testEmptyAndTruncatedBodies() {
        XCTAssertEqual(runDecoder(" ", choice: .xml).outcome, .decoded)
        XCTAssertTrue(runDecoder("<root><child attr=\"", choice: .xml).outcome.isFailure)
    }

    func testControlCharactersInTextAreVisibleOnATerminal() {
        let r = runDecoder("<a>x\u{1B}]0;t\u{07}</a>", mediaType: "application/xml")
        XCTAssertEqual(r.text, "<a>x\\x1b]0;t\\x07</a>")
    }

    func testLargeDocument() {
        var doc = "<list>"
        for i in 0..<20_000 { doc += "<item id=\"\(i)\"><name>n\(i)</name></item>" }
        doc += "</list>"
        let r = runDecoder(doc, mediaType: "application/xml", terminal: false, chunk: 8192)
        XCTAssertEqual(r.outcome, .decoded)
        XCTAssertTrue(r.text.hasPrefix("<list>\n  <item id=\"0\">\n    <name>n0</name>\n  </item>"))
    }

    func testManyAttributesDecodeAndDuplicatesAreStillCaught() {
        // 50,000 attributes took longer than 25 s when each was compared with every earlier one.
        var tag = "<a"
        for i in 0..<50_000 { tag += " a\(i)=\"\(i)\"" }
        let r = runDecoder(tag + "/>", choice: .xml, terminal: false, chunk: 1 << 16)
        XCTAssertEqual(r.outcome, .decoded)
        XCTAssertTrue(r.text.hasSuffix(#" a49999="49999"/>"#), String(r.text.suffix(40)))

        XCTAssertThrowsError(try XMLTokenizer.tokenize(Array((tag + " a7='x'/>").utf8))) { error in
            XCTAssertEqual((error as? XMLTokenizer.SyntaxError)?.reason, "duplicate attribute")
        }
        XCTAssertTrue(runDecoder("<a x='1' y='2' x='3'/>", choice: .xml).outcome.isFailure)
    }

    /// Converted XML's declaration is made to name UTF-8: whatever white space it holds, after a
    /// byte order mark, with either quote; never another instruction; held until it is whole.
    func testTheDeclarationOfConvertedXMLNamesUTF8() {
        func patched(_ text: String) -> String {
            var bytes = Array(text.utf8)
            XMLResponseDecoder.declareUTF8(&bytes)
            return String(decoding: bytes, as: UTF8.self)
        }
        XCTAssertEqual(patched(#"<?xml version="1.0" encoding="UTF-16"?><a/>"#), #"<?xml version="1.0" encoding="UTF-8"?><a/>"#)
        XCTAssertEqual(patched("\u{FEFF}<?xml version='1.0'" + String(repeating: " ", count: 700) + "encoding = 'latin1' ?><a/>"),
                       "\u{FEFF}<?xml version='1.0'" + String(repeating: " ", count: 700) + "encoding = 'UTF-8' ?><a/>")
        XCTAssertEqual(patched(#"<?xml-stylesheet href="s.xsl" encoding="x"?><a/>"#), #"<?xml-stylesheet href="s.xsl" encoding="x"?><a/>"#)
        XCTAssertEqual(patched(#"<?xml version="1.0"?><a encoding="x"/>"#), #"<?xml version="1.0"?><a encoding="x"/>"#)
        for (text, decided) in [("", false), ("<?x", false), ("<?xml vers", false), ("<?xml version='1'?", true), ("<a/>", true),
                                ("<?xml-s", true), ("\u{FEFF}", false)] {
            XCTAssertEqual(XMLResponseDecoder.declarationDecided(Array(text.utf8)), decided, text)
        }
    }
}
