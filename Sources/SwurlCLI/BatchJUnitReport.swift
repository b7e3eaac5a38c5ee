#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlOutput
import SwurlCore

/// `swurl batch --junit FILE`: JUnit XML, one `<testcase>` per line (in completion order) with
/// a `<failure type="exit N" message="…">` when the line failed.
///
/// `<testsuites>` and `<testsuite>` carry the counts, which are known only at the end: the
/// test cases are streamed to the file behind a gap of spaces the two start tags are written
/// into when the batch ends (`ReportBody`); memory holds one 64 KiB buffer and the counts
/// (beside a `--har` log also the blocks of records the cases are then written from,
/// `BatchResultRecord.swift`, on the batch's formatter thread). FILE is written through
/// `OutputFile` (atomic, links followed), opened before the first line runs.
final class BatchJUnitReport: BatchResultObserving {
    /// Every test case's class name.
    static let className = "swurl.batch"
    private static let casePrefix = Array("  <testcase classname=\"\(className)\" name=\"line ".utf8)

    private let file: OutputFile
    private let inputName: String
    private let cases: ReportBodyWriter
    /// The records the cases are written from on the formatter thread (beside a `--har` log).
    private let records: ResultRecords?
    private var tests = 0, failures = 0
    private var lastEnd: Double = 0
    private let timestamp: String

    /// - Throws: `SwurlError.output` when FILE cannot be created or written (or, where FILE is
    ///   not a file that can be written over, the spool file).
    /// - Parameter records: the records to write the cases from on the formatter thread (nil:
    ///   written as lines end).
    init(path: String, inputName: String, environment: Environment, records: ResultRecords?) throws(SwurlError) {
        // 0600, as the HAR: the cases name the lines' URLs with their queries.
        file = try OutputFile(path: path, option: "--junit", mode: 0o600)
        self.inputName = inputName
        self.records = records
        let timestamp = BatchJUnitReport.now()
        self.timestamp = timestamp
        // The gap holds the start tags with the longest counts and time there can be.
        let widest = BatchJUnitReport.startTags(suite: inputName, tests: Int.max, failures: Int.max,
                                                time: String(repeating: "9", count: 20), timestamp: timestamp)
        do throws(SwurlError) {
            let body = try ReportBody(file: file, before: Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n".utf8),
                                      room: widest.count, after: Array(">\n".utf8), option: "--junit", environment: environment)
            cases = ReportBodyWriter(body) { out, _, r, _ in
                BatchJUnitReport.writeCase(r, into: &out)
            }
        } catch {
            file.discard()
            throw error
        }
        records?.add(cases)
    }

    /// `<testsuites …>` and `<testsuite …` with their counts (a line between them): the head has
    /// the last `>` after the gap, so that what the gap has left over are spaces in the tag.
    private static func startTags(suite: String, tests: Int, failures: Int, time: String, timestamp: String) -> [UInt8] {
        let counts = "tests=\"\(tests)\" failures=\"\(failures)\" errors=\"0\" skipped=\"0\" time=\"\(time)\""
        return Array(("<testsuites name=\"swurl batch\" \(counts)>\n"
            + "<testsuite name=\"\(suite.markupEscaped)\" \(counts) timestamp=\"\(timestamp)\"").utf8)
    }

    /// Written on the driving thread without records; with them the formatter thread tells
    /// (`RecordFormatterThread.anOutputFailed`).
    var outputFailed: Bool { records == nil && cases.body.failed }

    func observe(ordinal: Int, _ r: BatchResult) {
        tests += 1
        if r.exit != .success { failures += 1 }
        records?.record(ordinal: ordinal, r)
        lastEnd = max(lastEnd, r.timeline?.end ?? 0)
        if records == nil {
            BatchJUnitReport.writeCase(r, into: &cases.body.pending)
            cases.body.flushIfFull()
        }
    }

    private static func writeCase(_ r: BatchResult, into pending: inout ByteBuffer) {
        func append(_ s: StaticString) { pending.append(s) }
        // A line retried: its attempts before the last one and the pauses between them too.
        let seconds = r.timeTotal.map { $0 + (r.timeline?.phases?.retries ?? 0) } ?? r.timeline?.duration ?? 0
        pending.append(contentsOf: BatchJUnitReport.casePrefix)
        pending.appendDecimal(Int64(r.line))
        // The line's own request, not a redirect's last hop: a case keeps its name from run to run.
        let asked = r.requestedShown
        if let m = asked.method {
            append(": ")
            m.appendMarkupEscaped(to: &pending)
            append(" ")
            (asked.url ?? "-").appendMarkupEscaped(to: &pending)
        }
        append("\" time=\"")
        BatchResult.appendSeconds(seconds, to: &pending)
        append("\"")
        if r.exit == .success {
            append("/>\n")
        } else {
            let message = r.error ?? "failed"
            append(">\n    <failure type=\"exit ")
            pending.appendDecimal(Int64(r.exit.rawValue))
            append("\" message=\"")
            message.appendMarkupEscaped(to: &pending)
            append("\">exit ")
            pending.appendDecimal(Int64(r.exit.rawValue))
            append(": ")
            message.appendMarkupEscaped(to: &pending)
            if let status = r.status {
                append(" (HTTP status ")
                pending.appendDecimal(Int64(status))
                append(")")
            }
            if let hint = r.hint {
                append("\n")
                hint.appendMarkupEscaped(to: &pending)
            }
            append("</failure>\n  </testcase>\n")
        }
    }

    func finishing() -> () -> SwurlError? {
        let last = records?.remaining()
        let tags = BatchJUnitReport.startTags(suite: inputName, tests: tests, failures: failures,
                                              time: BatchResult.seconds(lastEnd), timestamp: timestamp)
        let (file, cases) = (self.file, self.cases)
        return {
            if let last { cases.writeRecords(of: last) }
            do throws(SwurlError) {
                try cases.body.finish(fill: tags, tail: Array("</testsuite>\n</testsuites>\n".utf8))
                try file.commit()
            } catch {
                file.discard()
                return error
            }
            return nil
        }
    }

    /// The batch's start as ISO 8601 in UTC (`2026-12-02T07:30:00`), JUnit's `timestamp`.
    private static func now() -> String {
        String(decoding: Timestamp.secondText(Glibc.time(nil)), as: UTF8.self)
    }
}
