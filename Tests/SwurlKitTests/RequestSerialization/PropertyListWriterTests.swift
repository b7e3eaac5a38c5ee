import XCTest
@testable import SwurlOutput
@testable import SwurlResponseSerialization
@testable import SwurlRequestSerialization
@testable import SwurlCore

final class PropertyListWriterTests: XCTestCase {
    let tree = JSONValue.object([
        .init("s", .string("a<b&c")), .init("i", .number("-3")), .init("r", .number("1.5")),
        .init("t", .bool(true)), .init("a", .array([.number("1"), .string("é")])), .init("e", .object([])),
    ])

    func testXMLHasApplesDoctypeAndTabs() throws {
        let xml = String(decoding: try PropertyListWriter.xml(tree), as: UTF8.self)
        XCTAssertTrue(xml.contains("<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">"))
        XCTAssertTrue(xml.contains("\t<key>s</key>\n\t<string>a&lt;b&amp;c</string>\n"))
        XCTAssertTrue(xml.contains("\t<integer>-3</integer>\n\t<key>r</key>\n\t<real>1.5</real>"))
        XCTAssertTrue(xml.contains("\t<dict/>\n"))
    }

    func testBinaryStartsWithMagicAndEndsWithTrailer() throws {
        let b = try PropertyListWriter.binary(tree)
        XCTAssertEqual(Array(b.prefix(8)), Array("bplist00".utf8))
        XCTAssertGreaterThan(b.count, 40)
    }

    func testNullIsBadDataNamingWhereItIs() {
        let t = JSONValue.object([.init("a", .object([.init("b", .null)]))])
        for binary in [false, true] {
            XCTAssertThrowsError(try binary ? PropertyListWriter.binary(t) : PropertyListWriter.xml(t)) { error in
                XCTAssertEqual(ExitStatus(for: error as! SwurlError), .badData)
                XCTAssertTrue((error as? SwurlError)?.message.contains("a[b]") ?? false)
            }
        }
    }

    /// Regression: 1e400 became +inf in binary plists, and XML took integers beyond 64 bits that
    /// binary refused. Both formats now refuse both, naming the item.
    func testUnencodableNumbersAreBadDataInBothFormats() {
        for (literal, kind) in [("1e400", "real"), ("-1e400", "real"), ("18446744073709551616", "integer"),
                                ("-9223372036854775809", "integer")] {
            let t = JSONValue.object([.init("a", .object([.init("f", .number(literal))]))])
            for binary in [false, true] {
                XCTAssertThrowsError(try binary ? PropertyListWriter.binary(t) : PropertyListWriter.xml(t), "\(literal) binary=\(binary)") { error in
                    guard let e = error as? SwurlError else { return XCTFail("\(error)") }
                    XCTAssertEqual(ExitStatus(for: e), .badData)
                    XCTAssertTrue(e.message.contains("a[f]"), e.message)
                    XCTAssertTrue(e.message.contains(kind), e.message)
                }
            }
        }
    }

    func testSixtyFourBitExtremesRoundTripInBothFormats() throws {
        let t = JSONValue.array([.number("18446744073709551615"), .number("-9223372036854775808"),
                                 .number("9223372036854775807"), .number("1.7976931348623157e308")])
        let xml = String(decoding: try PropertyListWriter.xml(t), as: UTF8.self)
        XCTAssertTrue(xml.contains("<integer>18446744073709551615</integer>"))
        let value = try PropertyListReader.read(try PropertyListWriter.binary(t))
        XCTAssertEqual(value, .array([.integer("18446744073709551615"), .integer("-9223372036854775808"),
                                      .integer("9223372036854775807"), .real(1.7976931348623157e308)]))
    }

    /// XML 1.0 cannot carry control characters: refused with 65 naming the value, never ill-formed XML.
    func testControlCharactersInXMLStringsAreRefusedByName() throws {
        let tree = JSONValue.object([.init("a", .object([.init("b", .string("x\u{01}y"))]))])
        XCTAssertThrowsError(try PropertyListWriter.xml(tree)) { error in
            guard case .badData(let message, _) = error as? SwurlError else { return XCTFail("\(error)") }
            XCTAssertTrue(message.contains("'a[b]'") && message.contains("U+0001"), message)
        }
        XCTAssertNoThrow(try PropertyListWriter.binary(tree))
        XCTAssertNoThrow(try PropertyListWriter.xml(.string("tab\tand\nnewline")))
    }
}
