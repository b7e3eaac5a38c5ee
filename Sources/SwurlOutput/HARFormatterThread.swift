#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlCore

/// A block of hop records (`HAREntryRecord.swift`) on its way to the formatter: a class, so
/// that the block's memory changes hands, not a copy of it.
final class RecordBlock: @unchecked Sendable {
    var bytes = ByteBuffer(capacity: HARLog.block + 8 * 1024)
}

/// Turns records into entries and writes them to the log's file, gathered into writes of about
/// 64 KiB. Used by one thread at a time: the log's own until the formatter thread starts, then
/// that thread until it ends.
final class HAREntryFileWriter: @unchecked Sendable {
    private let file: OutputFile
    private let path: String
    private let settings: HARLog.Settings
    private var pending = JSONWriter(capacity: HARLog.block + 8 * 1024)
    /// The second the last entry started in, as text: entries in the same second reuse it.
    private var secondCache = Timestamp.SecondCache()
    private var written = 0
    /// The first error writing the file, reported by `HARLog.commit()`.
    private(set) var writeError: SwurlError?

    init(file: OutputFile, path: String, settings: HARLog.Settings) {
        self.file = file
        self.path = path
        self.settings = settings
    }

    /// The entries of every record in `block`.
    func writeEntries(of block: RecordBlock) {
        block.bytes.withUnsafeBytes { bytes in
            HAREntryRecordReader.forEach(in: bytes) { r in
                if written > 0 { pending.raw(",\n") }
                written += 1
                HAREntryWriter.entry(&r, settings: settings, cache: &secondCache, &pending)
                if pending.bytes.count >= HARLog.block { flush() }
            }
        }
    }

    /// What is pending and `tail`, written.
    func finish(tail: String) {
        pending.bytes.append(contentsOf: tail)
        flush()
    }

    private func flush() {
        pending.bytes.withUnsafeBytes { write($0) }
        pending.bytes.removeAll()
    }

    func write(_ bytes: UnsafeRawBufferPointer) {
        guard writeError == nil else { return }
        do { try file.write(bytes) } catch {
            writeError = (error as? SwurlError) ?? .output("writing '\(path)' failed: \(error)")
        }
    }
}

/// The HAR log's second thread: the thread that drives a batch's transfers hands it full blocks
/// of records and goes on; this one writes their entries. Only the blocks' bytes cross (and
/// the blocks themselves come back to be filled again), never a hop's objects. At most
/// `maxQueued` blocks wait; the driving thread waits beyond that, so memory stays flat.
final class HARFormatterThread: @unchecked Sendable {
    static let maxQueued = 4
    private let writer: HAREntryFileWriter
    private var thread = pthread_t()
    private var running = false
    // Shared, guarded by `mutex`.
    private var queued: [RecordBlock] = []
    private var spare: [RecordBlock] = []
    private var closed = false
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let cond: UnsafeMutablePointer<pthread_cond_t>

    /// Starts the thread; without one (pthread_create failed), `handOver` writes the entries itself.
    init(writer: HAREntryFileWriter) {
        self.writer = writer
        mutex = .allocate(capacity: 1)
        cond = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(cond, nil)
        let context = Unmanaged.passRetained(self).toOpaque()
        let started = pthread_create(&thread, nil, { arg in
            guard let arg else { return nil }
            Unmanaged<HARFormatterThread>.fromOpaque(arg).takeRetainedValue().run()
            return nil
        }, context)
        if started == 0 {
            running = true
        } else {
            Unmanaged<HARFormatterThread>.fromOpaque(context).release()
        }
    }

    deinit {
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        cond.deallocate()
        mutex.deallocate()
    }

    /// Queues `block` (waiting while `maxQueued` are queued); returns an empty block to fill next.
    func handOver(_ block: RecordBlock) -> RecordBlock {
        guard running else {
            writer.writeEntries(of: block)
            block.bytes.removeAll()
            return block
        }
        pthread_mutex_lock(mutex)
        while queued.count >= HARFormatterThread.maxQueued { pthread_cond_wait(cond, mutex) }
        queued.append(block)
        let next = spare.popLast()
        pthread_cond_broadcast(cond)
        pthread_mutex_unlock(mutex)
        return next ?? RecordBlock()
    }

    /// Queues the last block, waits until every entry is written and ends the thread.
    func finish(last block: RecordBlock) {
        guard running else {
            writer.writeEntries(of: block)
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
            writer.writeEntries(of: block)
            block.bytes.removeAll()
            pthread_mutex_lock(mutex)
            if spare.count < 2 { spare.append(block) }
            pthread_cond_broadcast(cond)
        }
        pthread_mutex_unlock(mutex)
    }
}
