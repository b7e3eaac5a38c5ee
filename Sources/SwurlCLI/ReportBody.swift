#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlOutput
import SwurlCore

/// What a batch report learns line by line (`--report`'s rows, `--junit`'s test cases), streamed
/// to its file as the lines end, behind a head written at once. What the head needs from the end
/// of the batch (counts, the time axis) goes into a gap the head leaves: spaces where markup
/// allows them, written over when the batch ends (`finish`). The body is written once, and
/// memory holds one 64 KiB buffer.
///
/// A file that cannot be written over in place (`/dev/stdout`, a pipe, a file the shell opened
/// for appending: `OutputFile.canRewrite`) gets the body through a spool instead: an unnamed
/// file in `$TMPDIR` or `/tmp`, unlinked at once, copied after the completed head at the end.
final class ReportBody {
    /// Bytes not written yet; callers append to it and call `flushIfFull()`.
    var pending = ByteBuffer(capacity: ReportBody.block + 4096)
    private let file: OutputFile
    private let option: String
    private var head: [UInt8]
    /// Where in `head` the end's text goes (spaces until then).
    private let gap: Range<Int>
    /// The spool's descriptor (nil: the body goes straight to the file).
    private let spool: Int32?
    /// The first error writing the body; thrown by `finish`.
    private var error: SwurlError?
    /// Whether writing the body failed (read on the thread that writes it).
    var failed: Bool { error != nil }
    private static let block = 1 << 16

    /// Writes the head, `before`, `room` spaces and `after`, to `file`, or opens a spool when
    /// `file` cannot be written over.
    /// - Throws: `SwurlError.output` when the head cannot be written or the spool created.
    init(file: OutputFile, before: [UInt8], room: Int, after: [UInt8], option: String, environment: Environment) throws(SwurlError) {
        self.file = file
        self.option = option
        head = before + [UInt8](repeating: UInt8(ascii: " "), count: room) + after
        gap = before.count..<before.count + room
        guard !file.canRewrite else {
            spool = nil
            try put(self.head)
            return
        }
        let dir = environment.variables["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        // A TMPDIR that is not there or not writable (a stale variable) falls back to /tmp, as
        // mktemp(1) and Python's tempfile do; the error names TMPDIR's directory.
        var made = AtomicFile.makeTemporary(dir + "/swurl-report-XXXXXX")
        let failure = errno
        if made == nil && dir != "/tmp" { made = AtomicFile.makeTemporary("/tmp/swurl-report-XXXXXX") }
        guard let made else {
            throw .output("cannot create a spool file for \(option) in '\(dir)': \(systemErrorMessage(failure))"
                          + (dir == "/tmp" ? "" : ", nor in /tmp: \(systemErrorMessage(errno))"))
        }
        unlink(ArgumentBytes.path(made.path))
        spool = made.fd
    }

    deinit { if let spool { close(spool) } }

    /// Whether the body goes through a spool (the target is written in place).
    var spooled: Bool { spool != nil }

    /// Writes `pending` out once it holds a block.
    func flushIfFull() {
        if pending.count >= ReportBody.block { flush() }
    }

    private func flush() {
        defer { pending.removeAll() }
        guard error == nil, !pending.isEmpty else { return }
        let written = pending.withUnsafeBytes { b in
            Result { () throws(SwurlError) in
                if let spool { try writeAll(spool, b, describing: "the \(option) spool file") } else { try writeAll(file, b) }
            }
        }
        if case .failure(let e) = written { error = e }
    }

    /// Ends the file: `tail` after the body, and `fill` (at most as long as the gap; the rest
    /// stays spaces) in the gap.
    /// - Throws: `SwurlError.output` when the body, the tail or the head could not be written.
    func finish(fill: [UInt8], tail: [UInt8]) throws(SwurlError) {
        flush()
        if let error { throw error }
        guard fill.count <= gap.count else {
            throw .output("\(option): the end of the report does not fit its head (\(fill.count) bytes for \(gap.count))")
        }
        if let spool {
            head.replaceSubrange(gap.lowerBound..<gap.lowerBound + fill.count, with: fill)
            try put(head)
            try copy(spool)
        }
        try put(tail)
        if spool == nil { try put(fill, at: gap.lowerBound) }
    }

    /// The spool, written to the file after the head.
    private func copy(_ fd: Int32) throws(SwurlError) {
        let size = lseek(fd, 0, SEEK_END)
        guard size >= 0 else { throw .output("cannot read back the \(option) spool file: \(systemErrorMessage(errno))") }
        try file.append(from: fd, offset: 0, count: Int64(size), source: "the \(option) spool file")
    }
}

/// `file.write`, whose error is untyped, with its `SwurlError`.
private func writeAll(_ file: OutputFile, _ b: UnsafeRawBufferPointer) throws(SwurlError) {
    do { try file.write(b) } catch let e as SwurlError { throw e } catch {
        throw .output("writing to '\(file.path)' failed: \(error)")
    }
}

extension ReportBody {
    /// `bytes` to the file: after what is there, or over it at `offset`.
    private func put(_ bytes: [UInt8], at offset: Int? = nil) throws(SwurlError) {
        let file = self.file
        try bytes.withUnsafeBytes { b in
            Result { () throws(SwurlError) in
                if let offset { try file.write(b, at: offset) } else { try writeAll(file, b) }
            }
        }.get()
    }
}
