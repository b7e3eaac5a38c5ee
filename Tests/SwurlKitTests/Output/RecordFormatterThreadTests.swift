import XCTest
import Glibc
@testable import SwurlOutput
@testable import SwurlCore

/// The batch's formatter thread: blocks written in the order handed over, and the outputs' ends
/// (`runEnds`) after them, side by side.
final class RecordFormatterThreadTests: XCTestCase {
    /// What ran, in order, and on which thread.
    private final class Log: RecordBlockWriter, @unchecked Sendable {
        // Allocated: a mutex must not move, and a stored property's address is not stable.
        private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        private var events: [(what: String, thread: pthread_t)] = []

        init() { pthread_mutex_init(mutex, nil) }
        var hasFailed: Bool { false }
        deinit {
            pthread_mutex_destroy(mutex)
            mutex.deallocate()
        }

        func add(_ what: String) {
            pthread_mutex_lock(mutex)
            events.append((what, pthread_self()))
            pthread_mutex_unlock(mutex)
        }

        var all: [(what: String, thread: pthread_t)] {
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return events
        }

        func writeRecords(of block: RecordBlock) {
            block.forEachRecord { r in add("block \(r.int())") }
        }
    }

    private func block(_ n: Int64) -> RecordBlock {
        let b = RecordBlock()
        let start = b.bytes.beginRecord()
        b.bytes.recordInt(n)
        b.bytes.endRecord(start)
        return b
    }

    func testEndsRunAfterTheBlocksHandedOverAndAllButTheLastOnTheThread() {
        let thread = RecordFormatterThread()
        defer { thread.end() }
        let log = Log()
        for n in 1...3 { _ = thread.handOver(block(Int64(n)), to: log) }
        // "end a" waits for "end c" (up to 10 s): only ends that run side by side let it go on.
        let waitForC = {
            for _ in 0..<10_000 where !log.all.contains(where: { $0.what == "end c" }) { usleep(1000) }
            log.add("end a")
        }
        thread.runEnds([waitForC, { log.add("end b") }, { log.add("end c") }])
        let events = log.all
        XCTAssertEqual(Set(events.map(\.what)), ["block 1", "block 2", "block 3", "end a", "end b", "end c"])
        let order = events.map(\.what)
        // The thread keeps its order: the blocks, then its ends.
        XCTAssertEqual(order.filter { $0 != "end c" }, ["block 1", "block 2", "block 3", "end a", "end b"])
        // The last end waits for the blocks only, not for the ends queued before it: it runs
        // while "end a" waits.
        let c = order.firstIndex(of: "end c") ?? -1
        XCTAssertGreaterThan(c, order.firstIndex(of: "block 3") ?? Int.max)
        XCTAssertLessThan(c, order.firstIndex(of: "end a") ?? -1)
        let here = pthread_self()
        for event in events {
            XCTAssertEqual(pthread_equal(event.thread, here) != 0, event.what == "end c", event.what)
        }
    }

    /// `closing`: the ends are the thread's last work (a block handed over later is written
    /// here), and `meanwhile` runs here, before the last end.
    func testClosingEndsTheThreadWithItsEndsAndMeanwhileRunsHere() {
        let thread = RecordFormatterThread()
        defer { thread.end() }
        let log = Log()
        _ = thread.handOver(block(1), to: log)
        thread.runEnds([{ log.add("end a") }, { log.add("end b") }], closing: true, meanwhile: { log.add("meanwhile") })
        _ = thread.handOver(block(2), to: log)
        let events = log.all
        let order = events.map(\.what)
        XCTAssertEqual(Set(order), ["block 1", "end a", "meanwhile", "end b", "block 2"])
        XCTAssertLessThan(order.firstIndex(of: "meanwhile") ?? Int.max, order.firstIndex(of: "end b") ?? -1)
        XCTAssertEqual(order.last, "block 2")
        let here = pthread_self()
        for event in events {
            XCTAssertEqual(pthread_equal(event.thread, here) != 0, ["meanwhile", "end b", "block 2"].contains(event.what), event.what)
        }
    }

    func testWithoutAThreadTheEndsRunHereInOrder() {
        let thread = RecordFormatterThread()
        defer { thread.end() }
        let log = Log()
        // No block was handed over, so no thread runs, and the ends start none.
        thread.runEnds([{ log.add("a") }, { log.add("b") }, { log.add("c") }], closing: true, meanwhile: { log.add("meanwhile") })
        XCTAssertEqual(log.all.map(\.what), ["meanwhile", "a", "b", "c"])
        XCTAssertEqual(log.all.map { pthread_equal($0.thread, pthread_self()) != 0 }, [true, true, true, true])
    }
}
