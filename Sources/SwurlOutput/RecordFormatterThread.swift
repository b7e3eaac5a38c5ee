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

    /// Each record of the block, as a reader of its fields.
    package func forEachRecord(_ body: (inout RecordReader) -> Void) {
        bytes.withUnsafeBytes { RecordReader.forEach(in: $0, body) }
    }
}

/// Writes the text of every record in a block (HAR entries, report rows, JUnit cases): on the
/// formatter thread once it started, before that on the owner's.
package protocol RecordBlockWriter: AnyObject, Sendable {
    func writeRecords(of block: RecordBlock)
    /// Whether writing its text failed (its file is full or gone); read on the thread that
    /// writes the records, after `writeRecords`.
    var hasFailed: Bool { get }
}

/// A second thread for a batch's outputs (the HAR log's entries, the report's rows, the JUnit
/// cases): the thread that drives the transfers hands it full blocks of records and goes on; this
/// one writes their text, each block with its writer, in the order they came. Only the blocks'
/// bytes cross (and the blocks come back to be filled again), never a hop's or a line's objects.
/// Started by the first block handed over (a one-shot request never fills one); at most
/// `maxQueued` blocks wait, the driving thread waits beyond that, so memory stays flat. When the
/// batch is over, the outputs' ends (last text, rename) run side by side here and on the driving
/// thread, and the thread ends with them (`runEnds`).
package final class RecordFormatterThread: @unchecked Sendable {
    package static let maxQueued = 4
    private var thread = pthread_t()
    private var started = false
    private var running = false
    /// What the thread does next: a block's text, or an output's end (`runEnds`).
    private enum Work {
        case records(RecordBlock, RecordBlockWriter)
        case end(End)
    }
    /// An output's end, run once.
    private final class End: @unchecked Sendable {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }
    // Shared, guarded by `mutex`.
    private var queued: [Work] = []
    private var spare: [RecordBlock] = []
    private var busy = false
    private var closed = false
    /// Pieces of work queued and done so far: the thread takes them in order, so `done >= n`
    /// means the first n are written.
    private var handed = 0, done = 0
    /// Whether a writer's text could not be written, as the thread found it.
    private var writerFailed = false
    /// The same, for blocks written on the driving thread before the thread started.
    private var failedHere = false

    /// Whether a writer's text could not be written (read on the driving thread, as each line
    /// is taken), so that a batch stops taking lines once an output cannot be written, as it
    /// does when stdout cannot.
    package var anOutputFailed: Bool {
        if failedHere { return true }
        guard running else { return false }
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return writerFailed
    }
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let cond: UnsafeMutablePointer<pthread_cond_t>

    package init() {
        mutex = .allocate(capacity: 1)
        cond = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(cond, nil)
    }

    deinit {
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        cond.deallocate()
        mutex.deallocate()
    }

    /// Starts the thread once; without one (pthread_create failed) the blocks are written where
    /// they are handed over.
    private func start() {
        guard !started else { return }
        started = true
        if let thread = startThread({ self.run() }) {
            self.thread = thread
            running = true
        }
    }

    /// Queues `block` for `writer` (waiting while `maxQueued` are queued); returns an empty
    /// block to fill next.
    package func handOver(_ block: RecordBlock, to writer: RecordBlockWriter) -> RecordBlock {
        start()
        guard running else {
            writer.writeRecords(of: block)
            if writer.hasFailed { failedHere = true }
            block.bytes.removeAll()
            return block
        }
        pthread_mutex_lock(mutex)
        while queued.count >= RecordFormatterThread.maxQueued { pthread_cond_wait(cond, mutex) }
        queued.append(.records(block, writer))
        handed += 1
        let next = spare.popLast()
        pthread_cond_broadcast(cond)
        pthread_mutex_unlock(mutex)
        return next ?? RecordBlock()
    }

    /// Whether the thread runs (a block was handed over and it could start).
    package var isRunning: Bool { running }

    /// `writer`'s last block written, after every block queued before it: here when the thread
    /// never started, else on the thread, waited for.
    package func drain(last block: RecordBlock, to writer: RecordBlockWriter) {
        guard running else {
            writer.writeRecords(of: block)
            return
        }
        pthread_mutex_lock(mutex)
        queued.append(.records(block, writer))
        handed += 1
        pthread_cond_broadcast(cond)
        while !queued.isEmpty || busy { pthread_cond_wait(cond, mutex) }
        pthread_mutex_unlock(mutex)
    }

    /// The outputs' ends (their last text, the rename) side by side, so that the batch waits for
    /// the longest rather than for their sum: each end runs after every block handed over
    /// before this call (the records it writes last are its own, so they follow them); all but
    /// the last on the thread, in order, the last here meanwhile, after `meanwhile` (work of the
    /// caller's that needs no output, such as closing the connections). Returns when all ran.
    /// With `closing`, they are the thread's last work: it ends as soon as they ran (the caller
    /// does not wake it to end it), and what comes later is written here. Without a thread
    /// (none was needed for the blocks: a short batch, or reports without `--har`), one after
    /// another here: a thread started for the ends alone cost more than it saved
    /// (docs/performance.md, "Seventh round").
    package func runEnds(_ ends: [() -> Void], closing: Bool = false, meanwhile: () -> Void = {}) {
        guard running, let last = ends.last else {
            meanwhile()
            ends.forEach { $0() }
            return
        }
        pthread_mutex_lock(mutex)
        let before = handed
        for end in ends.dropLast() {
            queued.append(.end(End(end)))
            handed += 1
        }
        if closing { closed = true }
        pthread_cond_broadcast(cond)
        pthread_mutex_unlock(mutex)
        meanwhile()
        pthread_mutex_lock(mutex)
        while done < before { pthread_cond_wait(cond, mutex) }
        pthread_mutex_unlock(mutex)
        last()
        pthread_mutex_lock(mutex)
        while !queued.isEmpty || busy { pthread_cond_wait(cond, mutex) }
        pthread_mutex_unlock(mutex)
        if closing {
            pthread_join(thread, nil)
            running = false
        }
    }

    /// Ends the thread once what is queued is written (nothing to do when it never started).
    package func end() {
        guard running else { return }
        pthread_mutex_lock(mutex)
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
            let work = queued.removeFirst()
            busy = true
            pthread_mutex_unlock(mutex)
            var written: RecordBlock?
            var failed = false
            switch work {
            case .records(let block, let writer):
                writer.writeRecords(of: block)
                failed = writer.hasFailed
                block.bytes.removeAll()
                written = block
            case .end(let end):
                end.run()
            }
            pthread_mutex_lock(mutex)
            if failed { writerFailed = true }
            busy = false
            done += 1
            if let written, spare.count < 2 { spare.append(written) }
            pthread_cond_broadcast(cond)
        }
        pthread_mutex_unlock(mutex)
    }
}

/// Runs `body` on a new thread (joinable); nil when none could be made. The closure, and what it
/// holds, stays alive until it returns.
func startThread(_ body: @escaping @Sendable () -> Void) -> pthread_t? {
    final class Body: @unchecked Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
    let context = Unmanaged.passRetained(Body(body)).toOpaque()
    var thread = pthread_t()
    let created = pthread_create(&thread, nil, { arg in
        guard let arg else { return nil }
        Unmanaged<Body>.fromOpaque(arg).takeRetainedValue().run()
        return nil
    }, context)
    guard created == 0 else {
        Unmanaged<Body>.fromOpaque(context).release()
        return nil
    }
    return thread
}
