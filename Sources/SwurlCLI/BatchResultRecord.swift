import SwurlOutput
import SwurlCore

/// A line's result as a record (`Record.swift` in SwurlOutput): what the report's rows and the
/// JUnit test cases are written from, on the batch's formatter thread once a block of them fills
/// (`RecordFormatterThread`), so that the thread driving the transfers only copies bytes.
/// Written and read here, field by field in the same order.
extension ByteBuffer {
    /// `r` as one record, with its place among the lines and the timeline its row draws.
    mutating func recordResult(ordinal: Int, _ r: BatchResult, timeline: BatchTimeline?) {
        let start = beginRecord()
        recordInt(ordinal)
        recordInt(r.line)
        recordString(r.method)
        recordString(r.url)
        recordString(r.requested?.method)
        recordString(r.requested?.url)
        recordOptional(r.status.map(Int64.init))
        recordOptional(r.size)
        recordOptional(r.timeTotal.map { Int64(bitPattern: $0.bitPattern) })
        recordString(r.error)
        recordString(r.hint)
        recordInt(Int64(r.exit.rawValue))
        if let timeline {
            recordInt(1)
            recordDouble(timeline.start)
            recordDouble(timeline.end)
            if let p = timeline.phases {
                recordInt(1)
                p.forEach { _, v in recordDouble(v) }
            } else {
                recordInt(0)
            }
        } else {
            recordInt(0)
        }
        endRecord(start)
    }

    private mutating func recordOptional(_ v: Int64?) {
        recordInt(v == nil ? 0 : 1)
        recordInt(v ?? 0)
    }
}

extension RecordReader {
    /// The result `recordResult` wrote, with its place and timeline.
    mutating func result() -> (ordinal: Int, result: BatchResult, timeline: BatchTimeline?) {
        let ordinal = Int(int())
        var r = BatchResult(line: Int(int()), method: string(), url: string())
        let askedMethod = string(), askedURL = string()
        if let askedMethod, let askedURL { r.requested = (askedMethod, askedURL) }
        r.status = optional().map { Int($0) }
        r.size = optional()
        r.timeTotal = optional().map { Double(bitPattern: UInt64(bitPattern: $0)) }
        r.error = string()
        r.hint = string()
        r.exit = ExitStatus(rawValue: Int32(truncatingIfNeeded: int())) ?? .transportError
        var timeline: BatchTimeline?
        if int() != 0 {
            let start = double(), end = double()
            let phases = int() != 0
                ? BatchTimeline.Phases(queued: double(), retries: double(), redirects: double(), dns: double(), connect: double(),
                                       tls: double(), waiting: double(), receiving: double())
                : nil
            timeline = BatchTimeline(start: start, end: end, phases: phases)
        }
        r.timeline = timeline
        return (ordinal, r, timeline)
    }

    private mutating func optional() -> Int64? {
        let present = int() != 0
        let v = int()
        return present ? v : nil
    }
}

/// The lines' results as records for the batch's formatter thread, beside a `--har` log: one
/// stream for the report's rows and the JUnit cases, so that with both each line is recorded
/// once (by whichever asks first; both ask for a line one after the other) and each full block
/// goes to both writers, the page's first (it counts every line and draws the first ones).
final class ResultRecords {
    private let formatter: RecordFormatterThread
    private let readers = ResultRecordReaders()
    private var block = RecordBlock()
    private var lastOrdinal = -1
    /// The latest end of the lines recorded (`BatchTimeline.of`).
    private var lastEnd: Double = 0
    private var rest: RecordBlock?

    init(formatter: RecordFormatterThread) { self.formatter = formatter }

    /// Adds a writer of the records; before the first line is recorded.
    func add(_ writer: ReportBodyWriter) { readers.writers.append(writer) }

    /// Records line `ordinal`'s result, unless it is the line recorded last.
    func record(ordinal: Int, _ r: BatchResult) {
        guard ordinal != lastOrdinal else { return }
        lastOrdinal = ordinal
        let timeline = BatchTimeline.of(r, after: lastEnd)
        lastEnd = max(lastEnd, timeline.end)
        block.bytes.recordResult(ordinal: ordinal, r, timeline: timeline)
        if block.isFull { block = formatter.handOver(block, to: readers) }
    }

    /// Hands over the records gathered so far, once the formatter thread runs (as
    /// `HARLog.handOverEarly`): their rows and cases are written while the last lines run.
    func handOverEarly() {
        guard formatter.isRunning, !block.bytes.isEmpty else { return }
        block = formatter.handOver(block, to: readers)
    }

    /// The records not handed over when the batch ended: the same block for each writer's end,
    /// which writes it with its own writer (the ends may run at once; they only read it).
    func remaining() -> RecordBlock {
        if let rest { return rest }
        let last = block
        block = RecordBlock()
        rest = last
        return last
    }
}

/// Every writer of a `ResultRecords` stream, for one block in turn.
private final class ResultRecordReaders: RecordBlockWriter, @unchecked Sendable {
    var writers: [ReportBodyWriter] = []

    func writeRecords(of block: RecordBlock) {
        for writer in writers { writer.writeRecords(of: block) }
    }

    var hasFailed: Bool { writers.contains { $0.hasFailed } }
}

/// Writes a report's text from the records of lines' results into its body (on the batch's
/// formatter thread once it started): the report's rows, or the JUnit cases.
final class ReportBodyWriter: RecordBlockWriter, @unchecked Sendable {
    let body: ReportBody
    private let write: (inout ByteBuffer, _ ordinal: Int, BatchResult, BatchTimeline?) -> Void

    init(_ body: ReportBody, write: @escaping (inout ByteBuffer, _ ordinal: Int, BatchResult, BatchTimeline?) -> Void) {
        self.body = body
        self.write = write
    }

    var hasFailed: Bool { body.failed }

    func writeRecords(of block: RecordBlock) {
        block.forEachRecord { reader in
            let (ordinal, r, timeline) = reader.result()
            write(&body.pending, ordinal, r, timeline)
            body.flushIfFull()
        }
    }
}
