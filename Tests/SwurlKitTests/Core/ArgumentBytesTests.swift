import XCTest
@testable import SwurlCore

final class ArgumentBytesTests: XCTestCase {
    func testInvalidBytesRoundTripExactly() {
        let raw: [UInt8] = Array("caf".utf8) + [0xE9] + Array(".txt ✓".utf8) + [0xFF, 0xC3]
        let decoded = ArgumentBytes.decode(raw)
        XCTAssertTrue(ArgumentBytes.hasEscapes(decoded))
        XCTAssertEqual(ArgumentBytes.bytes(decoded), raw)
        XCTAssertEqual(ArgumentBytes.path(decoded).dropLast().map { UInt8(bitPattern: $0) }, raw)
        XCTAssertEqual(ArgumentBytes.shown(decoded), "caf\\xE9.txt ✓\\xFF\\xC3")
        XCTAssertEqual(ArgumentBytes.percentEncodingEscapes(decoded), "caf%E9.txt ✓%FF%C3")
    }

    /// A real U+10FF80–U+10FFFF reads as an escape: it became one byte (`/%FF` sent for it).
    /// Its own bytes are escaped, so they come back exactly; U+10FF7F and below are untouched.
    func testTheScalarsOfTheEscapesRoundTripAsTheirBytes() {
        for raw: [UInt8] in [[0x2F, 0xF4, 0x8F, 0xBF, 0xBF], [0xF4, 0x8F, 0xBE, 0x80, 0x61], [0xF4, 0x8F, 0xBF, 0xBC, 0xE9]] {
            XCTAssertEqual(ArgumentBytes.bytes(ArgumentBytes.decode(raw)), raw)
        }
        XCTAssertEqual(ArgumentBytes.percentEncodingEscapes(ArgumentBytes.decode([0x2F, 0xF4, 0x8F, 0xBF, 0xBF])), "/%F4%8F%BF%BF")
        let below = "\u{10FF7F}\u{10FFFF}".unicodeScalars.first.map { String($0) } ?? ""
        XCTAssertEqual(ArgumentBytes.decode(Array(below.utf8)), below)
        XCTAssertFalse(ArgumentBytes.hasEscapes(below))
    }

    func testValidUTF8IsUntouched() {
        let text = "pé/ü?q=✓"
        XCTAssertEqual(ArgumentBytes.decode(Array(text.utf8)), text)
        XCTAssertFalse(ArgumentBytes.hasEscapes(text))
        XCTAssertEqual(ArgumentBytes.bytes(text), Array(text.utf8))
    }
}
