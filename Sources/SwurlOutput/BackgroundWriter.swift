#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlCore

/// A sink that hands large outputs to a second thread, so formatting the next chunk overlaps
/// with the `write(2)` of the last one (formatting a big body into a file otherwise pays for
/// both in turn). Small outputs are written directly and never start the thread; at most
/// `maxPending` bytes wait in memory, so memory stays constant.
package final class BackgroundWriter: ByteSink, @unchecked Sendable {
    private let target: ByteSink
    private let threshold: Int
    private let maxPending: Int
    private var direct = 0
    private var started = false
    private var finished = false
    private var current: [UInt8] = []
    /// Buffers taken over whole since the last wake-up, in order, and their size: the thread is
    /// woken once they make a block, not for each (the printer hands one over per network
    /// chunk, often only 16–50 KB of output).
    private var gathered: [[UInt8]] = []
    private var gatheredBytes = 0
    private var thread = pthread_t()
    // Shared with the writer thread, guarded by `mutex`.
    private var pending: [[UInt8]] = []
    private var spare: [[UInt8]] = []
    private var pendingBytes = 0
    private var closed = false
    private var failure: Error?
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let cond: UnsafeMutablePointer<pthread_cond_t>

    /// - Parameters:
    ///   - target: where the bytes go.
    ///   - threshold: bytes written directly before the thread starts (default 1 MB).
    ///   - maxPending: bytes that may wait for the thread (default 1 MB: four blocks).
    package init(target: ByteSink, threshold: Int = 1 << 20, maxPending: Int = 1 << 20) {
        self.target = target
        self.threshold = threshold
        self.maxPending = maxPending
        mutex = .allocate(capacity: 1)
        cond = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(cond, nil)
    }

    deinit {
        try? finish()
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        cond.deallocate()
        mutex.deallocate()
    }

    package func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count > 0 else { return }
        if !started {
            if direct < threshold || finished {
                direct += bytes.count
                try target.write(bytes)
                return
            }
            start()
        }
        // Collect into blocks so the thread wakes (and write(2) runs) once per block.
        current.append(contentsOf: bytes)
        if current.count >= BackgroundWriter.blockSize { try enqueue() }
    }

    /// Takes a buffer of at least `handOverSize` whole instead of copying it: what the printer
    /// hands over at the end of each network chunk then costs the formatting thread no copy.
    /// Buffers gather until they make a block; the thread writes them with one writev(2).
    package func write(handingOver bytes: inout [UInt8]) throws {
        guard started, bytes.count >= BackgroundWriter.handOverSize else {
            try bytes.withUnsafeBytes { try write($0) }
            bytes.removeAll(keepingCapacity: true)
            return
        }
        if !current.isEmpty {
            // Copied bytes written before this buffer go before it.
            gatheredBytes += current.count
            gathered.append(current)
            current = []
        }
        gatheredBytes += bytes.count
        gathered.append(bytes)
        bytes = []
        pthread_mutex_lock(mutex)
        if let block = spare.popLast() { bytes = block }
        pthread_mutex_unlock(mutex)
        if gatheredBytes >= BackgroundWriter.blockSize { try enqueue() }
    }

    private static let blockSize = 256 << 10
    /// The smallest buffer taken over whole (smaller ones are copied into the current block).
    static let handOverSize = 32 << 10

    /// Hands what gathered and the current block to the thread, in that order.
    private func enqueue() throws {
        guard !current.isEmpty || !gathered.isEmpty else { return }
        pthread_mutex_lock(mutex)
        while pendingBytes > maxPending && failure == nil { pthread_cond_wait(cond, mutex) }
        if let failure {
            pthread_mutex_unlock(mutex)
            throw failure
        }
        pendingBytes += gatheredBytes + current.count
        pending.append(contentsOf: gathered)
        gathered.removeAll(keepingCapacity: true)
        gatheredBytes = 0
        if !current.isEmpty {
            pending.append(current)
            // Reuse a block the thread has written (fresh memory costs page faults).
            current = spare.popLast() ?? []
        }
        pthread_cond_broadcast(cond)
        pthread_mutex_unlock(mutex)
    }

    private func start() {
        started = true
        if let thread = startThread({ self.drain() }) {
            self.thread = thread
        } else {
            // No thread: write synchronously from now on.
            started = false
            finished = true
        }
    }

    private func drain() {
        pthread_mutex_lock(mutex)
        while true {
            while pending.isEmpty && !closed { pthread_cond_wait(cond, mutex) }
            if pending.isEmpty && closed { break }
            // The batch counts as pending until it is written, so `maxPending` bounds all the
            // output in memory, not only what waits behind the write in progress.
            var batch = pending
            pending = []
            pthread_mutex_unlock(mutex)
            var error: Error?
            do { try target.write(gathering: batch) } catch let e { error = e }
            pthread_mutex_lock(mutex)
            pendingBytes -= batch.reduce(0) { $0 + $1.count }
            pthread_cond_broadcast(cond)
            while var block = batch.popLast() {
                block.removeAll(keepingCapacity: true)
                if spare.count < 2 { spare.append(block) }
            }
            if let error {
                failure = error
                pending = []
                pendingBytes = 0
                pthread_cond_broadcast(cond)
                break
            }
        }
        pthread_mutex_unlock(mutex)
    }

    /// Waits until everything was written and stops the thread.
    /// - Throws: the first write error of the thread.
    package func finish() throws {
        guard started, !finished else { return }
        let flushed = Result { try enqueue() }
        finished = true
        pthread_mutex_lock(mutex)
        closed = true
        pthread_cond_broadcast(cond)
        pthread_mutex_unlock(mutex)
        pthread_join(thread, nil)
        started = false
        if let failure { throw failure }
        try flushed.get()
    }
}
