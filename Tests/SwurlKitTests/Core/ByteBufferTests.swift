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

    /// Every length through each way of copying (bytes, two 4-byte moves, two 8-byte moves,
    /// memmove) after every misalignment of the buffer's end.
    func testAppendCopiesEveryLengthExactly() {
        let source = (0..<40).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) }
        for offset in 0..<8 {
            for length in 0...40 {
                var b = ByteBuffer(capacity: 16)
                let pad = [UInt8](repeating: 0xAA, count: offset)
                b.append(contentsOf: pad)
                source.withUnsafeBufferPointer { b.append(UnsafeBufferPointer(rebasing: $0[0..<length])) }
                b.append(0xBB)
                XCTAssertEqual(b.array, pad + source[0..<length] + [0xBB], "length \(length) after \(offset)")
            }
        }
    }
}
