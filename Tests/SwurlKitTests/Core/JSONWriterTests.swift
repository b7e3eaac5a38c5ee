import XCTest
@testable import SwurlCore

final class JSONWriterTests: XCTestCase {
    private func quoted(_ bytes: [UInt8]) -> [UInt8] {
        var w = JSONWriter()
        bytes.withUnsafeBufferPointer { w.quoted(bytes: $0) }
        return w.bytes.array
    }

    private func escaped(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        JSONValue.writeString(String(decoding: bytes, as: UTF8.self), to: &out)
        return out
    }

    /// The fast path (copied at once) and the escaping rule agree for every byte value at every
    /// place of strings from 0 to 20 bytes, so the eight-bytes-at-a-time check misses nothing.
    func testQuotedBytesAgreeWithTheEscapingRuleForEveryByteAtEveryPlace() {
        for length in 0...20 {
            let base = Array(repeating: UInt8(ascii: "a"), count: length)
            XCTAssertEqual(quoted(base), escaped(base))
            for place in 0..<length {
                for value in 0...255 {
                    var bytes = base
                    bytes[place] = UInt8(value)
                    XCTAssertEqual(quoted(bytes), escaped(bytes), "byte \(value) at \(place) of \(length)")
                }
            }
        }
    }

    func testPairWritesNameAndValueAsQuotedDoes() {
        func pair(_ name: String, _ value: String, first: Bool) -> String {
            var w = JSONWriter()
            w.pair(name: name, value: value, first: first)
            return String(decoding: w.bytes.array, as: UTF8.self)
        }
        XCTAssertEqual(pair("Host", "x:1", first: true), #"{"name":"Host","value":"x:1"}"#)
        XCTAssertEqual(pair("ETag", "\"6b-11\"", first: false), #",{"name":"ETag","value":"\"6b-11\""}"#)
        XCTAssertEqual(pair("", "", first: true), #"{"name":"","value":""}"#)
        XCTAssertEqual(pair("X-Ü", "tab\there", first: true), "{\"name\":\"X-Ü\",\"value\":\"tab\\there\"}")
    }

    /// A pair copies name and value while it checks them: any byte at any place of either
    /// gives what `quoted` gives for each.
    func testPairAgreesWithQuotedForEveryByteAtEveryPlace() {
        func pair(_ name: [UInt8], _ value: [UInt8]) -> [UInt8] {
            var w = JSONWriter()
            name.withUnsafeBufferPointer { n in value.withUnsafeBufferPointer { v in w.pair(name: n, value: v, first: false) } }
            return w.bytes.array
        }
        for length in [0, 1, 7, 8, 9, 16, 17] {
            let base = Array(repeating: UInt8(ascii: "b"), count: length)
            for place in 0..<length {
                for value in 0...255 {
                    var bytes = base
                    bytes[place] = UInt8(value)
                    let asName = Array(#",{"name":"#.utf8) + quoted(bytes) + Array(#","value":"#.utf8) + quoted(base) + [UInt8(ascii: "}")]
                    XCTAssertEqual(pair(bytes, base), asName, "name: byte \(value) at \(place) of \(length)")
                    let asValue = Array(#",{"name":"#.utf8) + quoted(base) + Array(#","value":"#.utf8) + quoted(bytes) + [UInt8(ascii: "}")]
                    XCTAssertEqual(pair(base, bytes), asValue, "value: byte \(value) at \(place) of \(length)")
                }
            }
        }
    }

    /// The bidirectional controls that would reorder a terminal's line are escaped, the rest
    /// of their block and other scalars starting with 0xE2 or 0xC2 are not; the same through
    /// `JSONWriter` (a HAR) and `JSONValue` (`certs --json`, `reach --json`).
    func testBidirectionalControlsAreEscapedAndTheirNeighboursAreNot() {
        func json(_ s: String) -> String {
            var out: [UInt8] = []
            JSONValue.writeString(s, to: &out)
            XCTAssertEqual(quoted(Array(s.utf8)), out, s)
            return String(decoding: out, as: UTF8.self)
        }
        for scalar in [0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069, 0x061C] {
            let c = String(UnicodeScalar(UInt32(scalar)).map(Character.init) ?? " ")
            XCTAssertEqual(json("a" + c + "b"), "\"a\\u" + (scalar < 0x1000 ? "0" : "") + String(scalar, radix: 16) + "b\"")
        }
        XCTAssertEqual(json("\u{2029}\u{202F}\u{2065}\u{206A}—…€é\u{85}"), "\"\u{2029}\u{202F}\u{2065}\u{206A}—…€é\\u0085\"")
        XCTAssertEqual(json("\u{202E}\u{202E}\u{2066}"), "\"\\u202e\\u202e\\u2066\"")
        XCTAssertEqual(json("\u{061B}\u{0639}\u{061C}\u{061C}"), "\"\u{061B}\u{0639}\\u061c\\u061c\"")
    }

    func testMillisWritesThreeDecimals() {
        for (us, text) in [(Int64(0), "0.000"), (1234, "1.234"), (5, "0.005"), (1_000_000, "1000.000"), (-3, "-1")] {
            var w = JSONWriter()
            w.millis(us)
            XCTAssertEqual(String(decoding: w.bytes.array, as: UTF8.self), text)
        }
    }
}
