import XCTest
import Foundation
import SwurlTestSupport
@testable import SwurlKit

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

    func testDatesRoundTrip() {
        XCTAssertEqual(PropertyListDate.format(0), "2001-01-01T00:00:00Z")
        XCTAssertEqual(PropertyListDate.format(-978_307_200), "1970-01-01T00:00:00Z")
        XCTAssertEqual(PropertyListDate.parse("2024-02-29T12:00:00Z").map(PropertyListDate.format), "2024-02-29T12:00:00Z")
        XCTAssertEqual(Base64.decode(Base64.encode([1, 2, 3, 4])), [1, 2, 3, 4])
    }
}
