#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlCore

/// A block of records (`Record.swift`) on its way to their writer: a class, so that the
/// block's memory changes hands, not a copy of it.
package final class RecordBlock: @unchecked Sendable {
    /// About the size at which a block is handed over (`isFull`).
    package static let size = 64 * 1024
    package var bytes = ByteBuffer(capacity: RecordBlock.size + 8 * 1024)

    package init() {}

    package var isFull: Bool { bytes.count >= RecordBlock.size }
}

/// Writes the text of every record in a block (the HAR log's entries): on the formatter thread
/// once it started, before that on the owner's.
package protocol RecordBlockWriter: AnyObject, Sendable {
    func writeRecords(of block: RecordBlock)
}

/// A second thread for one output (the HAR log): the thread that drives a batch's transfers
/// hands it full blocks of records and goes on; this one writes their text. Only the blocks'
/// bytes cross (and the blocks themselves come back to be filled again), never a hop's objects. At most `maxQueued` blocks wait; the driving
/// thread waits beyond that, so memory stays flat.
package final class RecordFormatterThread: @unchecked Sendable {
    package static let maxQueued = 4
    private let writer: RecordBlockWriter
    private var thread = pthread_t()
    private var running = false
    // Shared, guarded by `mutex`.
    private var queued: [RecordBlock] = []
    private var spare: [RecordBlock] = []
    private var closed = false
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let cond: UnsafeMutablePointer<pthread_cond_t>

    /// Starts the thread; without one (pthread_create failed), `handOver` writes the records itself.
    package init(writer: RecordBlockWriter) {
        self.writer = writer
        mutex = .allocate(capacity: 1)
        cond = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(cond, nil)
        let context = Unmanaged.passRetained(self).toOpaque()
        let started = pthread_create(&thread, nil, { arg in
            guard let arg else { return nil }
            Unmanaged<RecordFormatterThread>.fromOpaque(arg).takeRetainedValue().run()
            return nil
        }, context)
        if started == 0 {
            running = true
        } else {
            Unmanaged<RecordFormatterThread>.fromOpaque(context).release()
        }
    }

    deinit {
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        cond.deallocate()
        mutex.deallocate()
    }

    /// Queues `block` (waiting while `maxQueued` are queued); returns an empty block to fill next.
    package func handOver(_ block: RecordBlock) -> RecordBlock {
        guard running else {
            writer.writeRecords(of: block)
            block.bytes.removeAll()
            return block
        }
        pthread_mutex_lock(mutex)
        while queued.count >= RecordFormatterThread.maxQueued { pthread_cond_wait(cond, mutex) }
        queued.append(block)
        let next = spare.popLast()
        pthread_cond_broadcast(cond)
        pthread_mutex_unlock(mutex)
        return next ?? RecordBlock()
    }

    /// Queues the last block, waits until every record is written and ends the thread.
    package func finish(last block: RecordBlock) {
        guard running else {
            writer.writeRecords(of: block)
            return
        }
        pthread_mutex_lock(mutex)
        queued.append(block)
        closed = true
        pthread_cond_broadcast(cond)
        pthread_mutex_unlock(mutex)
        pthread_join(thread, nil)
        running = false
    }

    private func run() {
        pthread_mutex_lock(mutex)
        while true {
            while queued.isEmpty && !closed { pthread_cond_wait(cond, mutex) }
            guard !queued.isEmpty else { break }
            let block = queued.removeFirst()
            pthread_mutex_unlock(mutex)
            writer.writeRecords(of: block)
            block.bytes.removeAll()
            pthread_mutex_lock(mutex)
            if spare.count < 2 { spare.append(block) }
            pthread_cond_broadcast(cond)
        }
        pthread_mutex_unlock(mutex)
    }
}
