import SwurlCore

/// `--har FILE`: an HTTP Archive 1.2 document of every hop swurl ran, one entry per request
/// sent (redirect hops and retried attempts each get their own), written with the one output
/// rule: `OutputFile` (a symbolic link is followed and its target replaced, never the link; a
/// regular file is written beside the target and renamed over it).
///
/// Two ways to write, one format:
/// - `.stream` (one-shot requests, `-d`, `batch`): the head goes to the temporary file at once,
///   each hop's record (`Record.swift`) as the hop ends, the tail and the rename at
///   `commit()`. Records gather into blocks of about 64 KiB; once the first block fills (a
///   batch), a second thread (the batch's, shared with its reports) turns the blocks into
///   entries and writes them, so the thread that drives the transfers only copies bytes
///   (`RecordFormatterThread`). Held in memory:
///   the hops still running (their heads, and a body's text up to
///   `HAREntryRecorder.textLimit`), at most eight blocks of records (the one being filled,
///   `RecordFormatterThread.maxQueued` waiting, the one being written, two kept for reuse) and
///   64 KiB of entries not yet written, never all the entries, so a batch of any length stays
///   flat.
/// - `.rewrite` (the REPL): the entries are kept, and `commit()` writes a whole new file after
///   each request, so a crash loses nothing already done. The REPL's requests are typed by a
///   person, so keeping their entries is small.
package final class HARLog {
    /// What the entries keep.
    package struct Settings: Sendable {
        /// `--har-bodies`: the text of response bodies (text types, valid UTF-8, up to the limit).
        package var bodies = false
        /// `--har-secrets`: credential and cookie values and URL passwords as they were.
        package var secrets = false
        /// `log.creator.version`.
        package var creatorVersion = ""

        package init(bodies: Bool = false, secrets: Bool = false, creatorVersion: String = "") {
            self.bodies = bodies
            self.secrets = secrets
            self.creatorVersion = creatorVersion
        }
    }

    package enum Mode: Sendable {
        case stream, rewrite
    }

    package let path: String
    /// What the entries keep; `.rewrite` may change it between requests (`useSettings`).
    private(set) var settings: Settings
    private let mode: Mode
    /// `.stream`: the file being written, and what writes the entries into it (on this thread
    /// or on the formatter thread once it started).
    private var file: OutputFile?
    private var entryWriter: HAREntryFileWriter?
    /// `.stream`: records not handed over yet.
    private var records = RecordBlock()
    private let formatter: RecordFormatterThread
    /// Whether `formatter` is the log's own (ended by `commit()` and `discard()`), not a batch's.
    private let ownsFormatter: Bool
    /// `.rewrite`: every entry so far, serialized.
    private var entries: [[UInt8]] = []
    private var entryCount = 0
    /// `.rewrite`: the second the last entry started in, as text: entries in the same second reuse it.
    private var secondCache = Timestamp.SecondCache()
    /// `.rewrite`: the entries' connections, numbered.
    private var connections = HARConnections()
    /// What the hops' header lines came to, shared by the log's recorders (one thread uses them).
    let sentHeadMemo = SentHeadMemo()

    /// Opens the log; nothing is replaced until `commit()`.
    /// - Throws: `SwurlError.output` when `path` is a directory or its directory cannot take a
    ///   new file (before any request is sent), or, for `.rewrite`, when it is not a regular file.
    /// - Parameter formatter: the batch's formatter thread, shared with its reports (nil: the
    ///   log's own, started only if a block of records fills).
    package init(path: String, settings: Settings, mode: Mode, formatter: RecordFormatterThread? = nil) throws(SwurlError) {
        self.formatter = formatter ?? RecordFormatterThread()
        ownsFormatter = formatter == nil
        self.path = path
        self.settings = settings
        self.mode = mode
        switch mode {
        case .stream:
            let file = try OutputFile(path: path, option: "--har", mode: 0o600)
            self.file = file
            let writer = HAREntryFileWriter(file: file, path: path, settings: settings)
            Array(HARLog.head(settings).utf8).withUnsafeBytes { writer.write($0) }
            // A file that cannot take even the head (a full disk) fails now, before any request
            // is sent, as --report and --junit do.
            if let error = writer.writeError {
                file.discard()
                throw error
            }
            entryWriter = writer
        case .rewrite:
            switch try OutputTarget.resolve(path) {
            case .directory: throw .output("cannot write '\(path)': it is a directory; give --har a file name")
            case .direct:
                // (`-` came as /dev/stdout: named as it was typed.)
                let shown = path == "/dev/stdout" ? "-" : path
                throw .usage("cannot rewrite '\(shown)' after each request: it is not a regular file; give the REPL's --har a file name")
            case .file(let target):
                // A directory that takes no new file fails now, before any request is sent, not
                // after the first one: a temporary file is made beside the target and removed.
                try AtomicFile(replacing: target, mode: 0o600).discard()
            }
        }
    }

    /// `.rewrite` (the REPL): what the next requests' entries keep (`set --har-bodies`, a line's
    /// `--no-har-secrets`); each entry is written as its request ran. `.stream` keeps its settings
    /// (its entries are written on another thread).
    package func useSettings(bodies: Bool, secrets: Bool) {
        guard mode == .rewrite else { return }
        settings.bodies = bodies
        settings.secrets = secrets
    }

    /// A recorder for one exchange; with `line` (a batch's line number), each of its entries has
    /// the comment `line N` (written with the entry, off the thread that drives the transfers).
    package func recorder(line: Int? = nil) -> HopRecording { Recorder(log: self, line: line) }

    /// How many entries the log holds.
    package var count: Int { entryCount }

    /// Adds one hop's record, which `record` writes (`HAREntryRecorder`); its entry is written
    /// from it (`HAREntryWriter`).
    func appendRecord(_ record: (inout ByteBuffer) -> Void) {
        entryCount += 1
        switch mode {
        case .stream:
            let start = records.bytes.beginRecord()
            record(&records.bytes)
            records.bytes.endRecord(start)
            if records.isFull, let entryWriter {
                // A full block: its entries are written on the formatter thread.
                records = formatter.handOver(records, to: entryWriter)
            }
        case .rewrite:
            var one = ByteBuffer(capacity: 2048)
            let start = one.beginRecord()
            record(&one)
            one.endRecord(start)
            var w = JSONWriter(capacity: 2048)
            one.withUnsafeBytes { block in
                RecordReader.forEach(in: block) { r in HAREntryWriter.entry(&r, settings: settings, cache: &secondCache, connections: &connections, &w) }
            }
            entries.append(w.bytes.array)
        }
    }

    /// `.stream`, once the formatter thread runs: hands over the records gathered so far, so
    /// that their entries are written while the last hops are still running (a batch whose
    /// input ended) rather than at the end. Nothing when the thread never started: a short log
    /// is written at its end, where a thread started for it would cost more than it saves.
    package func handOverEarly() {
        guard mode == .stream, formatter.isRunning, !records.bytes.isEmpty, let entryWriter else { return }
        records = formatter.handOver(records, to: entryWriter)
    }

    /// `.stream`: ends the document and puts it in place (once). `.rewrite`: writes the whole
    /// document as it is now, replacing the last one.
    /// - Throws: `SwurlError.output`; the file is then left as it was.
    package func commit() throws(SwurlError) {
        var failure: SwurlError?
        let work = committing()
        formatter.runEnds([{ failure = work() }])
        if ownsFormatter { formatter.end() }
        if let failure { throw failure }
    }

    /// What `commit()` does, as work for `RecordFormatterThread.runEnds` beside a batch's other
    /// outputs: the records not handed over yet are taken now; the work writes their entries and
    /// the tail, renames the file into place and returns the error, if any. It must run after
    /// every block handed over before (`runEnds` sees to it).
    package func committing() -> () -> SwurlError? {
        switch mode {
        case .stream:
            guard let file, let entryWriter else { return { nil } }
            let last = records
            records = RecordBlock()
            self.file = nil
            self.entryWriter = nil
            return {
                entryWriter.writeRecords(of: last)
                entryWriter.finish(tail: HARLog.tail)
                if let writeError = entryWriter.writeError {
                    file.discard()
                    return writeError
                }
                do throws(SwurlError) { try file.commit() } catch { return error }
                return nil
            }
        case .rewrite:
            return { [self] in
                do throws(SwurlError) { try rewrite() } catch { return error }
                return nil
            }
        }
    }

    /// `.rewrite`: the whole document, replacing the last one.
    private func rewrite() throws(SwurlError) {
        let out = try OutputFile(path: path, option: "--har", mode: 0o600)
        var bytes = Array(HARLog.head(settings).utf8)
        for (i, entry) in entries.enumerated() {
            if i > 0 { bytes += [UInt8(ascii: ","), 0x0A] }
            bytes += entry
        }
        bytes += Array(HARLog.tail.utf8)
        do { try bytes.withUnsafeBytes { try out.write($0) } } catch {
            out.discard()
            throw (error as? SwurlError) ?? .output("writing '\(path)' failed: \(error)")
        }
        try out.commit()
    }

    /// Leaves the file as it was (`.stream`: the temporary file is removed).
    package func discard() {
        // Nothing of this log may still be written when its file goes.
        if let entryWriter { formatter.drain(last: RecordBlock(), to: entryWriter) }
        if ownsFormatter { formatter.end() }
        file?.discard()
        file = nil
        entryWriter = nil
    }

    /// The document up to the first entry: `log.version`, `log.creator`, the opening of `entries`.
    static func head(_ settings: Settings) -> String {
        let creator = JSONValue.object([.init("name", .string("swurl")), .init("version", .string(settings.creatorVersion))])
        return "{\"log\":{\"version\":\"1.2\",\"creator\":" + creator.serialized + ",\"entries\":[\n"
    }

    static let tail = "\n]}}\n"

    /// Hands each hop of one exchange a fresh entry recorder.
    private final class Recorder: HopRecording {
        let log: HARLog
        let line: Int?

        init(log: HARLog, line: Int?) {
            self.log = log
            self.line = line
        }

        func hopWillBegin(_ request: HTTPRequest) -> HopTap? {
            HAREntryRecorder(request: request, log: log, line: line)
        }

        var sentHeadMemo: SentHeadMemo? { log.sentHeadMemo }
    }
}

/// Turns records into entries and writes them to the log's file, gathered into writes of about
/// 64 KiB. Used by one thread at a time: the log's own until the formatter thread starts, then
/// that thread; the log's end (`HARLog.committing`) runs where `RecordFormatterThread.runEnds`
/// puts it, after every block handed over before.
final class HAREntryFileWriter: RecordBlockWriter, @unchecked Sendable {
    private let file: OutputFile
    private let path: String
    private let settings: HARLog.Settings
    private var pending = JSONWriter(capacity: RecordBlock.size + 8 * 1024)
    /// The second the last entry started in, as text: entries in the same second reuse it.
    private var secondCache = Timestamp.SecondCache()
    /// The entries' connections, numbered.
    private var connections = HARConnections()
    private var written = 0
    /// The first error writing the file, reported by `HARLog.commit()`.
    private(set) var writeError: SwurlError?

    var hasFailed: Bool { writeError != nil }

    init(file: OutputFile, path: String, settings: HARLog.Settings) {
        self.file = file
        self.path = path
        self.settings = settings
    }

    /// The entries of every record in `block`.
    func writeRecords(of block: RecordBlock) {
        block.forEachRecord { r in
            if written > 0 { pending.raw(",\n") }
            written += 1
            HAREntryWriter.entry(&r, settings: settings, cache: &secondCache, connections: &connections, &pending)
            if pending.bytes.count >= RecordBlock.size { flush() }
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
