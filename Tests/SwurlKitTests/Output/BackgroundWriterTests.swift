import XCTest
@testable import SwurlOutput
@testable import SwurlCore

final class BackgroundWriterTests: XCTestCase {
    private final class FailingSink: ByteSink {
        var written = 0
        func write(_ bytes: UnsafeRawBufferPointer) throws {
            written += bytes.count
            if written > 3 << 20 { throw SwurlError.output("disk full") }
        }
    }

    func testEverythingArrivesInOrder() throws {
        let target = MemorySink()
        let writer = BackgroundWriter(target: target, threshold: 1000, maxPending: 64 << 10)
        var expected: [UInt8] = []
        for i in 0..<2000 {
            let chunk = [UInt8](repeating: UInt8(truncatingIfNeeded: i), count: 1 + i % 3000)
            expected += chunk
            try writer.write(chunk)
        }
        try writer.finish()
        XCTAssertEqual(target.bytes, expected)
        try writer.finish()   // twice is fine
    }

    /// Hand-overs (taken whole from `handOverSize` up) and copied writes keep their order.
    func testHandOversAndCopiesArriveInOrder() throws {
        let target = MemorySink()
        let writer = BackgroundWriter(target: target, threshold: 1000, maxPending: 256 << 10)
        var expected: [UInt8] = []
        for i in 0..<600 {
            let size = [5, 1000, BackgroundWriter.handOverSize - 1, BackgroundWriter.handOverSize, 70_000, 300_000][i % 6]
            var chunk = [UInt8](repeating: UInt8(truncatingIfNeeded: i), count: size)
            expected += chunk
            if i % 2 == 0 { try writer.write(handingOver: &chunk) } else { try writer.write(chunk) }
        }
        try writer.finish()
        XCTAssertEqual(target.bytes.count, expected.count)
        XCTAssertTrue(target.bytes == expected)
    }

    func testSmallOutputNeverStartsTheThreadAndIsWrittenAtOnce() throws {
        let target = MemorySink()
        let writer = BackgroundWriter(target: target)
        try writer.write(Array("hello".utf8))
        XCTAssertEqual(target.text, "hello")
        try writer.finish()
    }

    func testAWriteErrorIsReported() {
        let writer = BackgroundWriter(target: FailingSink(), threshold: 0, maxPending: 1 << 20)
        let chunk = [UInt8](repeating: 1, count: 100_000)
        XCTAssertThrowsError(try {
            for _ in 0..<200 { try writer.write(chunk) }
            try writer.finish()
        }())
    }
}
