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

    func testValidUTF8IsUntouched() {
        let text = "pé/ü?q=✓"
        XCTAssertEqual(ArgumentBytes.decode(Array(text.utf8)), text)
        XCTAssertFalse(ArgumentBytes.hasEscapes(text))
        XCTAssertEqual(ArgumentBytes.bytes(text), Array(text.utf8))
    }
}
