#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlOutput
import SwurlCore

/// The part of a batch report that is known line by line but goes after a head known only at
/// the end (`--junit`'s test cases after the counts, `--report`'s rows after the summary): an
/// unnamed file, created in `$TMPDIR` or `/tmp` and unlinked at once so nothing is left
/// behind, fed in 64 KiB writes and copied into the report when the batch ends. Memory holds
/// one buffer.
final class ReportSpool {
    /// Bytes not written yet; callers append to it and call `flushIfFull()`.
    var pending = ByteBuffer(capacity: ReportSpool.block + 4096)
    private let fd: Int32
    private let option: String
    /// The first error writing the spool; thrown by `copy(to:)`.
    private var error: SwurlError?
    private static let block = 1 << 16

    /// - Throws: `SwurlError.output` when the spool file cannot be created.
    init(option: String, environment: Environment) throws(SwurlError) {
        self.option = option
        let dir = environment.variables["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = ArgumentBytes.path(dir + "/swurl-report-XXXXXX")
        let fd = template.withUnsafeMutableBufferPointer { buf in buf.baseAddress.map { mkstemp($0) } ?? -1 }
        guard fd >= 0 else {
            throw .output("cannot create a spool file for \(option) in '\(dir)': \(systemErrorMessage(errno))")
        }
        unlink(template)
        self.fd = fd
    }

    deinit { close(fd) }

    /// Writes `pending` out once it holds a block.
    func flushIfFull() {
        if pending.count >= ReportSpool.block { flush() }
    }

    private func flush() {
        guard error == nil else { pending.removeAll(); return }
        let fd = self.fd, what = "the \(option) spool file"
        let written = pending.withUnsafeBytes { b in
            Result { () throws(SwurlError) in try writeAll(fd, b, describing: what) }
        }
        if case .failure(let e) = written { error = e }
        pending.removeAll()
    }

    /// Everything spooled, written to `file` at its current end.
    /// - Throws: `SwurlError.output` when the spool could not be written or read back, or
    ///   `file` not written.
    func copy(to file: OutputFile) throws {
        flush()
        if let error { throw error }
        guard lseek(fd, 0, SEEK_SET) == 0 else {
            throw SwurlError.output("cannot read back the \(option) spool file: \(systemErrorMessage(errno))")
        }
        var buffer = [UInt8](repeating: 0, count: ReportSpool.block)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw SwurlError.output("cannot read back the \(option) spool file: \(systemErrorMessage(errno))") }
            if n == 0 { break }
            try buffer.withUnsafeBytes { try file.write(UnsafeRawBufferPointer(rebasing: $0[..<n])) }
        }
    }
}
