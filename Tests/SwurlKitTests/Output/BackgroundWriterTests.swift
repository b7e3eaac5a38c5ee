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

    /// Buffers handed over one network chunk at a time (often 16–50 KB) gather into blocks: the
    /// thread is woken, and the target written, once per block of them, not once per buffer.
    func testHandedOverBuffersAreWrittenTogether() throws {
        final class CountingSink: ByteSink {
            var bytes: [UInt8] = []
            var calls = 0
            func write(_ chunk: UnsafeRawBufferPointer) throws {
                calls += 1
                bytes.append(contentsOf: chunk)
            }
            func write(gathering buffers: [[UInt8]]) throws {
                calls += 1
                for b in buffers { bytes += b }
            }
        }
        let target = CountingSink()
        let writer = BackgroundWriter(target: target, threshold: 0, maxPending: 1 << 20)
        var expected: [UInt8] = []
        for i in 0..<300 {
            var chunk = [UInt8](repeating: UInt8(truncatingIfNeeded: i), count: 40_000 + i)
            expected += chunk
            try writer.write(handingOver: &chunk)
            XCTAssertTrue(chunk.isEmpty)
        }
        try writer.finish()
        XCTAssertTrue(target.bytes == expected)
        // 12 MB in 40 KB buffers: about one call per 256 KiB gathered, far fewer than 300.
        XCTAssertLessThan(target.calls, 100, "\(target.calls) writes for 300 buffers")
    }

    /// writeAll over many buffers (more than one writev call's worth, empty ones among them)
    /// writes every byte in order.
    func testGatheredWriteToAFileKeepsEveryByteInOrder() throws {
        let path = NSTemporaryDirectory() + "swurl-writev-\(getpid()).bin"
        defer { unlink(path) }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        XCTAssertGreaterThanOrEqual(fd, 0)
        var buffers: [[UInt8]] = []
        var expected: [UInt8] = []
        for i in 0..<200 {
            let b = [UInt8](repeating: UInt8(truncatingIfNeeded: i), count: i % 7 == 0 ? 0 : 1 + (i * 977) % 9000)
            buffers.append(b)
            expected += b
        }
        try writeAll(fd, buffers, describing: "the test file")
        close(fd)
        XCTAssertEqual(FileManager.default.contents(atPath: path).map { [UInt8]($0) }, expected)
    }
}
