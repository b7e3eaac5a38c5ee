import XCTest
import Foundation
import SwurlTestSupport
@testable import SwurlOutput
@testable import SwurlResponseSerialization
@testable import SwurlRequestSerialization
@testable import SwurlCore

final class PropertyListResponseDecoderTests: XCTestCase {
    /// A plist written by Python's plistlib, in `format` (BINARY or XML).
    private func plist(_ format: String) throws -> [UInt8] {
        let out = try runPython("""
        import plistlib, datetime, sys, base64
        d = {"name": "Ann", "n": -3, "big": 2**63 - 1, "pi": 3.5, "ok": True, "when": datetime.datetime(2024, 5, 6, 7, 8, 9),
             "blob": b"\\x00\\x01\\x02", "list": [1, "two", {"x": False}], "uni": "δ😀"}
        sys.stdout.write(base64.b64encode(plistlib.dumps(d, fmt=plistlib.FMT_\(format))).decode())
        """)
        return [UInt8](Data(base64Encoded: out) ?? Data())
    }

    private let expectedJSON = #"{"big":9223372036854775807,"blob":"AAEC","list":[1,"two",{"x":false}],"n":-3,"name":"Ann","ok":true,"pi":3.5,"uni":"δ😀","when":"2024-05-06T07:08:09Z"}"#

    func testBinaryAndXMLPlistsDecodeToTheSameJSON() throws {
        for format in ["BINARY", "XML"] {
            let bytes = try plist(format)
            let r = runDecoder(bytes, mediaType: format == "XML" ? "application/x-plist" : nil, terminal: false) { $0.plistAsJSON = true }
            XCTAssertEqual(r.outcome, .decoded, format)
            XCTAssertEqual(try JSONParser.parse(r.text), try JSONParser.parse(expectedJSON), format)
        }
    }

    func testBinaryPlistIsShownAsIndentedXMLWithReadableDataAndDates() throws {
        let r = runDecoder(try plist("BINARY"), terminal: true)
        XCTAssertEqual(r.outcome, .decoded)
        XCTAssertTrue(r.text.contains("<plist version=\"1.0\">\n  <dict>\n"), r.text)
        XCTAssertTrue(r.text.contains("    <date>2024-05-06T07:08:09Z</date>"), r.text)
        XCTAssertTrue(r.text.contains("    <data>AAEC</data>\n    <!-- 3 bytes: 00 01 02 -->"), r.text)
        XCTAssertTrue(r.text.contains("<integer>9223372036854775807</integer>"), r.text)
    }

    /// A 16-byte integer is signed, as plistlib and CoreFoundation read it (-1 was shown as
    /// 2^128 - 1); one CF writes for a UInt64 past Int64.max (high half zero) stays positive.
    func testSixteenByteIntegersAreSigned() throws {
        // -1 in 16 bytes (plistlib writes only what 8 cannot hold; it reads this one as -1).
        let minusOne: [UInt8] = Array("bplist00".utf8) + [0x14] + [UInt8](repeating: 0xFF, count: 16) + [0x08]
            + [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 1] + [0, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0, 25]
        let r = runDecoder(minusOne, choice: .plist, terminal: false) { $0.plistAsJSON = true }
        XCTAssertEqual(r.text.filter { !$0.isWhitespace }, "-1", r.text)
        let out = try runPython("""
        import plistlib, base64, sys
        sys.stdout.write(base64.b64encode(plistlib.dumps([2**64 - 1], fmt=plistlib.FMT_BINARY)).decode())
        """)
        let big = runDecoder([UInt8](Data(base64Encoded: out) ?? Data()), choice: .plist, terminal: false) { $0.plistAsJSON = true }
        XCTAssertEqual(big.text.filter { !$0.isWhitespace }, "[18446744073709551615]", big.text)
    }

    /// Integer spellings XML plists allow but JSON does not come out as canonical numbers.
    func testIntegerSpellingsBecomeValidJSON() throws {
        let xml = #"<?xml version="1.0"?><plist version="1.0"><array><integer>+5</integer><integer>007</integer><integer>-0</integer><integer>0x1F</integer></array></plist>"#
        let r = runDecoder(Array(xml.utf8), mediaType: "application/x-plist", terminal: false) { $0.plistAsJSON = true }
        let text = r.text.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(text.filter { !$0.isWhitespace }, "[5,7,0,31]", text)
        XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(text.utf8)))
    }

    func testExplicitPlistOnSomethingElseFails() {
        XCTAssertTrue(runDecoder(#"{"a":1}"#, choice: .plist).outcome.isFailure)
        XCTAssertTrue(runDecoder("<html></html>", choice: .plist).outcome.isFailure)
        XCTAssertEqual(runDecoder("", choice: .plist).outcome, .decoded)
    }

    func testTruncatedAndCorruptBinaryPlistsNeverCrash() throws {
        let bytes = try plist("BINARY")
        for cut in stride(from: 0, to: bytes.count, by: 3) {
            _ = runDecoder(Array(bytes.prefix(cut)), choice: .plist, terminal: false)
        }
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            var b = bytes
            for _ in 0..<4 { b[Int.random(in: 8..<b.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng) }
            _ = runDecoder(b, choice: .plist, terminal: false)
        }
        // A self-referencing array.
        var loop: [UInt8] = Array("bplist00".utf8) + [0xA1, 0x00]   // array of one ref: object 0 (itself)
        let offsetTable = loop.count
        loop += [0x08]
        loop += [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 1] + [0, 0, 0, 0, 0, 0, 0, 0]
            + [0, 0, 0, 0, 0, 0, 0, UInt8(offsetTable)]
        XCTAssertTrue(runDecoder(loop, choice: .plist).outcome.isFailure)
    }

    /// A plist nested deeper than the reader's limit is refused naming the limit, in both forms
    /// (the binary one said its references loop).
    func testNestingPastTheLimitIsNamed() {
        let xml = "<?xml version=\"1.0\"?><plist version=\"1.0\">" + String(repeating: "<array>", count: 600)
            + String(repeating: "</array>", count: 600) + "</plist>"
        var binary: [UInt8] = Array("bplist00".utf8)
        var offsets: [Int] = []
        for k in 0..<600 {
            offsets.append(binary.count)
            binary += k < 599 ? [0xA1, UInt8((k + 1) >> 8), UInt8((k + 1) & 0xFF)] : [0xA0]
        }
        let table = binary.count
        for o in offsets { binary += [UInt8(o >> 8), UInt8(o & 0xFF)] }
        binary += [0, 0, 0, 0, 0, 0, 2, 2] + [0, 0, 0, 0, 0, 0, 0x02, 0x58] + [0, 0, 0, 0, 0, 0, 0, 0]
            + [0, 0, 0, 0, 0, 0, UInt8(table >> 8), UInt8(table & 0xFF)]
        for bytes in [Array(xml.utf8), binary] {
            guard case .failed(let reason) = runDecoder(bytes, choice: .plist, terminal: false).outcome else {
                return XCTFail("a plist nested 600 levels deep was decoded")
            }
            XCTAssertTrue(reason.contains("nested more than 512 levels deep"), reason)
        }
    }

    /// A character reference to a character XML does not allow (`&#0;`) makes the XML plist
    /// not well-formed (it put a raw NUL in the output); allowed ones are resolved.
    func testCharacterReferencesMustNameXMLCharacters() {
        func plist(_ text: String) -> String {
            "<?xml version=\"1.0\"?><plist version=\"1.0\"><string>\(text)</string></plist>"
        }
        for bad in ["a&#0;b", "&#x0;", "&#1;", "&#xD800;", "&#xFFFE;", "&#x110000;", "&#+65;", "&#x;", "&#X41;", "a\u{0}b", "a\u{1}b", "\u{1B}[31m"] {
            guard case .failed(let reason) = runDecoder(plist(bad), choice: .plist, terminal: false).outcome else {
                return XCTFail("\(bad) was decoded")
            }
            XCTAssertTrue(reason.contains("character XML does not allow") || reason.contains("not well-formed"), "\(bad): \(reason)")
        }
        let good = runDecoder(plist("&#65;&#x42;&#x1F600;&#9;&lt;"), choice: .plist, terminal: false)
        XCTAssertFalse(good.outcome.isFailure)
        XCTAssertTrue(good.text.contains("<string>AB😀\t&lt;</string>"), good.text)
    }

    /// An entity other than XML's five (declared in a DOCTYPE or not) makes no property list:
    /// kept as written, `&lol;` became the text `&lol;` of another, valid plist.
    func testAnEntityOtherThanXMLsFiveIsNoPropertyList() {
        for doc in ["<!DOCTYPE plist [<!ENTITY lol \"lol\">]><plist version=\"1.0\"><string>&lol;</string></plist>",
                    "<plist version=\"1.0\"><string>&undefined; &amp;</string></plist>"] {
            guard case .failed(let reason) = runDecoder(doc, choice: .plist, terminal: false).outcome else { return XCTFail(doc) }
            XCTAssertTrue(reason.contains("an entity other than XML's five"), reason)
        }
    }

    /// An XML plist in another charset is read in it: the label's, else the declaration's
    /// (`café` in ISO-8859-1 was shown as `caf\u{FFFD}`).
    func testAnXMLPlistInAnotherCharsetIsConverted() {
        let latin1: [UInt8] = Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><plist version=\"1.0\"><string>caf".utf8) + [0xE9]
            + Array("</string></plist>".utf8)
        let declared = runDecoder(latin1, choice: .plist, terminal: false)
        XCTAssertEqual(declared.outcome, .decoded)
        XCTAssertTrue(declared.text.contains("<string>café</string>") && declared.text.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"), declared.text)
        let labelled = Array("<plist version=\"1.0\"><string>caf".utf8) + [0xE9] + Array("</string></plist>".utf8)
        XCTAssertTrue(runDecoder(labelled, choice: .plist, charset: "iso-8859-1", terminal: false).text.contains("<string>café</string>"))
        // After a UTF-8 byte order mark the body is UTF-8, whatever the declaration says.
        let marked = [0xEF, 0xBB, 0xBF] + Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><plist version=\"1.0\"><string>café</string></plist>".utf8)
        XCTAssertTrue(runDecoder(marked, choice: .plist, terminal: false).text.contains("<string>café</string>"))
    }

    /// A binary plist string that is not what its marker says (an ASCII string with a byte past
    /// 0x7F, UTF-16 with a lone surrogate) is no property list: it was shown as U+FFFD.
    func testABinaryStringThatIsNotItsEncodingIsRefused() {
        func bplist(_ object: [UInt8]) -> [UInt8] {
            let header = Array("bplist00".utf8)
            let table = header.count + object.count
            return header + object + [UInt8(header.count)] + [0, 0, 0, 0, 0, 0, 1, 1]
                + [0, 0, 0, 0, 0, 0, 0, 1] + [0, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0, UInt8(table)]
        }
        for (object, reason) in [([0x53, 0xFF, 0xFE, 0x9B] as [UInt8], "an ASCII string holds a byte past 0x7F"),
                                 ([0x62, 0xD8, 0x00, 0x00, 0x41], "a UTF-16 string holds a lone surrogate")] {
            guard case .failed(let why) = runDecoder(bplist(object), choice: .plist, terminal: false).outcome else { return XCTFail(reason) }
            XCTAssertTrue(why.contains(reason), why)
        }
        XCTAssertEqual(runDecoder(bplist([0x52, 0x68, 0x69]), choice: .plist, terminal: false) { $0.plistAsJSON = true }.text, "\"hi\"")
    }

    /// A binary plist date that ISO 8601 cannot write (NaN, infinite) is shown as its number
    /// with a comment saying so.
    func testADateThatIsNotATimeIsSaidToBeOne() {
        var bytes: [UInt8] = Array("bplist00".utf8) + [0x33]
        withUnsafeBytes(of: Double.nan.bitPattern.bigEndian) { bytes += $0 }
        bytes += [0x08] + [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 1] + [0, 0, 0, 0, 0, 0, 0, 0]
            + [0, 0, 0, 0, 0, 0, 0, 17]
        let r = runDecoder(bytes, choice: .plist, terminal: false)
        XCTAssertFalse(r.outcome.isFailure, r.text)
        XCTAssertTrue(r.text.contains("<date>nan</date>") && r.text.contains("not a date ISO 8601 can write"), r.text)
    }

    func testDatesRoundTrip() {
        XCTAssertEqual(PropertyListDate.format(0), "2001-01-01T00:00:00Z")
        XCTAssertEqual(PropertyListDate.format(-978_307_200), "1970-01-01T00:00:00Z")
        XCTAssertEqual(PropertyListDate.parse("2024-02-29T12:00:00Z").map(PropertyListDate.format), "2024-02-29T12:00:00Z")
        // A day its month lacks is no date (2020-02-30 was shown as 2020-03-01), as plistlib refuses it.
        for text in ["2020-02-30T00:00:00Z", "2021-02-29T00:00:00Z", "2024-04-31T00:00:00Z", "1900-02-29T00:00:00Z"] {
            XCTAssertNil(PropertyListDate.parse(text), text)
        }
        XCTAssertNotNil(PropertyListDate.parse("2000-02-29T00:00:00Z"))
        XCTAssertNotNil(PropertyListDate.parse("2024-12-31T00:00:00Z"))
        XCTAssertEqual(Base64.decode(Base64.encode([1, 2, 3, 4])), [1, 2, 3, 4])
    }

    /// A binary plist whose objects 0..<levels are arrays `[k+1, k+1]` and whose last object is
    /// `leaf` (the bytes of one object): 2^levels leaves once shared references are expanded.
    static func doublingPlist(levels: Int, leaf: [UInt8]) -> [UInt8] {
        var b = Array("bplist00".utf8)
        var offsets: [Int] = []
        for k in 0..<levels {
            offsets.append(b.count)
            b += [0xA2, UInt8(k + 1), UInt8(k + 1)]
        }
        offsets.append(b.count)
        b += leaf
        let table = b.count
        for o in offsets { b += [UInt8(o >> 24 & 0xFF), UInt8(o >> 16 & 0xFF), UInt8(o >> 8 & 0xFF), UInt8(o & 0xFF)] }
        func be64(_ v: Int) -> [UInt8] { (0..<8).map { UInt8(v >> (56 - 8 * $0) & 0xFF) } }
        b += [0, 0, 0, 0, 0, 0, 4, 1] + be64(offsets.count) + be64(0) + be64(table)
        return b
    }

    /// Regression: 61 nested `[next, next]` arrays (a few hundred bytes) expanded to 2^61 leaves
    /// and hung swurl. Now the object budget stops it: shown as sent when auto-detected, a
    /// decoding failure with an explicit --decode plist.
    func testSharedReferenceBombIsRefusedQuickly() {
        let bomb = Self.doublingPlist(levels: 61, leaf: [0x08])
        XCTAssertLessThan(bomb.count, 500)
        XCTAssertThrowsError(try PropertyListReader.read(bomb)) { error in
            XCTAssertTrue((error as? PropertyListReader.Failure)?.reason.contains("values") ?? false, "\(error)")
        }
        let auto = runDecoder(bomb, mediaType: "application/x-plist", terminal: false, chunk: 4096)
        XCTAssertTrue(auto.outcome.isFailure)
        XCTAssertEqual(auto.bytes, bomb)   // shown as sent
        XCTAssertTrue(runDecoder(bomb, choice: .plist, terminal: false, chunk: 4096).outcome.isFailure)
        XCTAssertTrue(runDecoder(bomb, choice: .plist, terminal: true, chunk: 4096) { $0.plistAsJSON = true }.outcome.isFailure)
        // Sharing within the budget still decodes, every reference expanded.
        let small = Self.doublingPlist(levels: 3, leaf: [0x09])
        let eight: PropertyListValue = .array(Array(repeating: .array(Array(repeating: .array([.bool(true), .bool(true)]), count: 2)), count: 2))
        XCTAssertEqual(try PropertyListReader.read(small), eight)
    }

    /// Regression: 18 levels of `[next, next]` (under 200 bytes) expanded to 262,144 values and
    /// about 250 MB, inside the old fixed budget of a million. The budget now grows with the input.
    func testTheExpansionBudgetIsProportionalToTheInput() throws {
        let bomb = Self.doublingPlist(levels: 18, leaf: [0x08])
        XCTAssertLessThan(bomb.count, 200)
        XCTAssertThrowsError(try PropertyListReader.read(bomb)) { error in
            let reason = (error as? PropertyListReader.Failure)?.reason ?? "\(error)"
            XCTAssertTrue(reason.contains("expand to more than 10000 values") && reason.contains("refusing"), reason)
        }
        let r = runDecoder(bomb, choice: .plist, terminal: false, chunk: 4096)
        XCTAssertTrue(r.outcome.isFailure)
        // A large plist without sharing is far inside the budget.
        let many = JSONValue.array((0..<30_000).map { .number(String($0)) })
        guard case .array(let items) = try PropertyListReader.read(try PropertyListWriter.binary(many)) else {
            return XCTFail("not an array")
        }
        XCTAssertEqual(items.count, 30_000)
    }

    /// A shared 1 MiB string reached through 10 levels of sharing is only 2047 objects but 1 GiB
    /// of text: the content budget keeps the rendered output from exploding.
    func testSharedLargeStringCannotExplodeTheOutput() {
        let n = 1 << 20
        let leaf: [UInt8] = [0x5F, 0x12, UInt8(n >> 24 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)]
            + Array(repeating: UInt8(ascii: "x"), count: n)
        let bomb = Self.doublingPlist(levels: 10, leaf: leaf)
        XCTAssertThrowsError(try PropertyListReader.read(bomb)) { error in
            XCTAssertTrue((error as? PropertyListReader.Failure)?.reason.contains("bytes of strings and data") ?? false, "\(error)")
        }
        XCTAssertTrue(runDecoder(bomb, choice: .plist, terminal: false, chunk: 1 << 16).outcome.isFailure)
        // Two levels (4 copies) is within the budget.
        guard case .array(let a)? = try? PropertyListReader.read(Self.doublingPlist(levels: 2, leaf: leaf)), a.count == 2 else {
            return XCTFail("four shared copies should decode")
        }
    }

    /// Regression: `--plist-as json` wrote a string's U+009B (CSI) raw.
    func testPlistAsJSONEscapesC1Controls() throws {
        let b64 = try runPython("import plistlib,base64,sys; sys.stdout.write(base64.b64encode(plistlib.dumps({'a': '\\x9b31m\\x7f\\x85'}, fmt=plistlib.FMT_BINARY)).decode())")
        let bytes = [UInt8](Data(base64Encoded: b64) ?? Data())
        XCTAssertFalse(bytes.isEmpty)
        let r = runDecoder(bytes, terminal: true) { $0.plistAsJSON = true }
        XCTAssertEqual(r.outcome, .decoded)
        XCTAssertTrue(r.text.contains(#""a": "\u009b31m\u007f\u0085""#), r.text)
        XCTAssertFalse(zip(r.bytes, r.bytes.dropFirst()).contains { $0 == 0xC2 && (0x80...0x9F).contains($1) }, r.text)
    }

    /// `--plist-as json` takes `--sort-keys` as JSON does (it was ignored without a word).
    func testPlistAsJSONSortsKeys() {
        let plist = "<plist><dict><key>z</key><integer>1</integer><key>a</key><dict><key>y</key><true/><key>b</key><string>s</string></dict></dict></plist>"
        let sorted = runDecoder(plist, choice: .plist, terminal: false) { $0.plistAsJSON = true; $0.sortKeys = true }
        XCTAssertEqual(sorted.text.filter { !$0.isWhitespace }, #"{"a":{"b":"s","y":true},"z":1}"#)
        let asSent = runDecoder(plist, choice: .plist, terminal: false) { $0.plistAsJSON = true }
        XCTAssertEqual(asSent.text.filter { !$0.isWhitespace }, #"{"z":1,"a":{"y":true,"b":"s"}}"#)
    }
}
