import XCTest
@testable import SwurlCore

final class ByteBufferTests: XCTestCase {
    func testAppendsGrowPastTheFirstCapacityAndKeepTheBytes() {
        var b = ByteBuffer(capacity: 16)
        var expected: [UInt8] = []
        for i in 0..<1000 {
            switch i % 4 {
            case 0: b.append(UInt8(truncatingIfNeeded: i)); expected.append(UInt8(truncatingIfNeeded: i))
            case 1: b.append("literal, "); expected += Array("literal, ".utf8)
            case 2: b.append(contentsOf: "ünïcode \(i) "); expected += Array("ünïcode \(i) ".utf8)
            default: b.append(contentsOf: [1, 2, 3]); expected += [1, 2, 3]
            }
        }
        XCTAssertEqual(b.count, expected.count)
        XCTAssertEqual(b.array, expected)
        b.removeAll()
        XCTAssertTrue(b.isEmpty)
        b.append("x")
        XCTAssertEqual(b.array, [UInt8(ascii: "x")])
    }

    func testDecimalsAsStringWritesThem() {
        for n: Int64 in [0, 7, -7, 10, 99, 100, 1042, -1042, 1_000_000, .max, .min] {
            var b = ByteBuffer()
            b.appendDecimal(n)
            XCTAssertEqual(String(decoding: b.array, as: UTF8.self), String(n))
        }
    }

    func testWriteKeepsOnlyWhatTheBodyWrote() {
        var b = ByteBuffer(capacity: 16)
        b.append("ab")
        b.write(upTo: 100) { p in
            p[0] = UInt8(ascii: "c")
            return 1
        }
        b.append("d")
        XCTAssertEqual(String(decoding: b.array, as: UTF8.self), "abcd")
    }
}
