#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlOutput
import SwurlCore

/// `swurl batch --junit FILE`: JUnit XML, one `<testcase>` per line (in completion order) with
/// a `<failure type="exit N" message="…">` when the line failed.
///
/// `<testsuite>` carries the counts, which are known only at the end, so the test cases are
/// streamed to an unnamed spool file (created in `$TMPDIR` or `/tmp` and unlinked at once, so
/// nothing is left behind) and copied after the header when the batch ends; memory holds one
/// 64 KiB buffer and the counts. FILE is written through `OutputFile` (atomic, links followed),
/// opened before the first line runs.
final class BatchJUnitReport: BatchResultObserving {
    /// Every test case's class name.
    static let className = "swurl.batch"
    private static let casePrefix = Array("  <testcase classname=\"\(className)\" name=\"line ".utf8)

    private let file: OutputFile
    private let inputName: String
    private let spool: Int32
    private var pending: [UInt8] = []
    private var tests = 0, failures = 0
    private var lastEnd: Double = 0
    private let timestamp: String
    /// The first error writing the spool; reported when the batch ends.
    private var spoolError: SwurlError?

    /// - Throws: `SwurlError.output` when FILE or the spool file cannot be created.
    init(path: String, inputName: String, environment: Environment) throws(SwurlError) {
        file = try OutputFile(path: path, option: "--junit")
        self.inputName = inputName
        let dir = environment.variables["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = ArgumentBytes.path(dir + "/swurl-junit-XXXXXX")
        let fd = template.withUnsafeMutableBufferPointer { buf in buf.baseAddress.map { mkstemp($0) } ?? -1 }
        guard fd >= 0 else {
            file.discard()
            throw .output("cannot create a spool file for --junit in '\(dir)': \(systemErrorMessage(errno))")
        }
        unlink(template)
        spool = fd
        timestamp = BatchJUnitReport.now()
    }

    deinit { close(spool) }

    func observe(ordinal: Int, _ r: BatchResult) {
        tests += 1
        let seconds = r.timeTotal ?? r.timeline?.duration ?? 0
        lastEnd = max(lastEnd, r.timeline?.end ?? 0)
        pending.append(contentsOf: BatchJUnitReport.casePrefix)
        BatchResult.appendDecimal(Int64(r.line), to: &pending)
        if let m = r.method {
            append(": ")
            m.appendMarkupEscaped(to: &pending)
            append(" ")
            (r.shownURL ?? "-").appendMarkupEscaped(to: &pending)
        }
        append("\" time=\"")
        BatchResult.appendSeconds(seconds, to: &pending)
        append("\"")
        if r.exit == .success {
            append("/>\n")
        } else {
            failures += 1
            let message = r.error ?? "failed"
            append(">\n    <failure type=\"exit \(r.exit.rawValue)\" message=\"")
            message.appendMarkupEscaped(to: &pending)
            append("\">exit \(r.exit.rawValue): ")
            message.appendMarkupEscaped(to: &pending)
            if let status = r.status { append(" (HTTP status \(status))") }
            append("</failure>\n  </testcase>\n")
        }
        if pending.count >= 1 << 16 { flushSpool() }
    }

    private func append(_ s: String) { pending.append(contentsOf: s.utf8) }

    private func flushSpool() {
        guard spoolError == nil else { pending.removeAll(keepingCapacity: true); return }
        let fd = spool
        let written = pending.withUnsafeBytes { b in
            Result { () throws(SwurlError) in try writeAll(fd, b, describing: "the --junit spool file") }
        }
        if case .failure(let error) = written { spoolError = error }
        pending.removeAll(keepingCapacity: true)
    }

    func finish() throws(SwurlError) {
        flushSpool()
        if let spoolError { file.discard(); throw spoolError }
        let suite = inputName.markupEscaped
        let counts = "tests=\"\(tests)\" failures=\"\(failures)\" errors=\"0\" skipped=\"0\""
        let head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            + "<testsuites name=\"swurl batch\" \(counts) time=\"\(BatchResult.seconds(lastEnd))\">\n"
            + "<testsuite name=\"\(suite)\" \(counts) time=\"\(BatchResult.seconds(lastEnd))\" timestamp=\"\(timestamp)\">\n"
        do {
            try file.write(Array(head.utf8))
            guard lseek(spool, 0, SEEK_SET) == 0 else {
                throw SwurlError.output("cannot read back the --junit spool file: \(systemErrorMessage(errno))")
            }
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(spool, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                guard n >= 0 else { throw SwurlError.output("cannot read back the --junit spool file: \(systemErrorMessage(errno))") }
                if n == 0 { break }
                try buffer.withUnsafeBytes { try file.write(UnsafeRawBufferPointer(rebasing: $0[..<n])) }
            }
            try file.write(Array("</testsuite>\n</testsuites>\n".utf8))
        } catch {
            file.discard()
            throw (error as? SwurlError) ?? .output("writing '\(file.path)' failed: \(error)")
        }
        try file.commit()
    }

    /// The batch's start as ISO 8601 in UTC (`2026-12-02T07:30:00`), JUnit's `timestamp`.
    private static func now() -> String {
        var t = Glibc.time(nil)
        var tm = tm()
        gmtime_r(&t, &tm)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : String(v) }
        return "\(tm.tm_year + 1900)-\(two(tm.tm_mon + 1))-\(two(tm.tm_mday))T\(two(tm.tm_hour)):\(two(tm.tm_min)):\(two(tm.tm_sec))"
    }
}
