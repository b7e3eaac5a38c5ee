#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlCore

/// `--output FILE`: writes to a temporary file beside FILE and renames it over FILE only when
/// everything succeeded, so a failed transfer never leaves a truncated file behind. FILE is
/// resolved by `OutputTarget`: a symbolic link is followed (the temporary file goes beside its
/// target, which the rename replaces; the link stays), and a target that is not a regular file
/// (`/dev/null`, a FIFO, a terminal, `/dev/stdout` and `/dev/fd/N`) is written in place.
package final class OutputFile: ByteSink {
    package let path: String
    /// The temporary file that replaces a regular target (nil when written in place).
    private let atomic: AtomicFile?
    private var fd: Int32
    private var done = false

    /// - Parameters:
    ///   - option: the option that named the file, for the message refusing a directory.
    ///   - mode: the mode a replaced or new regular file gets (0600 for files that may hold
    ///     secrets); nil keeps an existing file's mode and gives a new one the umask's.
    /// - Throws: `SwurlError.output` when the directory is not writable.
    package init(path: String, option: String = "-o", mode: mode_t? = nil) throws(SwurlError) {
        self.path = path
        switch try OutputTarget.resolve(path) {
        case .directory:
            // Refused before anything is transferred (the rename would fail only afterwards).
            throw .output("cannot write '\(path)': it is a directory; give \(option) a file name in it: \(option) \(path.hasSuffix("/") ? path : path + "/")NAME")
        case .direct(let target):
            let fd = OutputTarget.openInPlace(path, target: target)
            guard fd >= 0 else { throw OutputTarget.openFailure(path) }
            self.fd = fd
            atomic = nil
        case .file(let target):
            // A file that exists keeps its mode; a new one gets the umask's.
            // curl and HTTPie write a file in a directory that takes no new file in place; so
            // does the shell.
            let file = try AtomicFile(replacing: target, mode: mode,
                                      inPlaceAdvice: option == "-o" ? "; to write it in place, redirect stdout instead: > " + FileTrust.quoted(path) : nil)
            atomic = file
            fd = file.descriptor
        }
    }

    deinit { discard() }

    package func write(_ bytes: UnsafeRawBufferPointer) throws {
        try writeAll(fd, bytes, describing: "'\(path)'")
    }

    package func write(gathering buffers: [[UInt8]]) throws {
        try writeAll(fd, buffers, describing: "'\(path)'")
    }

    /// Whether bytes already written can be written over (`write(_:at:)`): a temporary file
    /// that replaces FILE can; a target written in place (a pipe, a terminal, a file appended
    /// to) cannot.
    package var canRewrite: Bool { atomic != nil }

    /// Whether the file is a terminal (`-o /dev/tty`, `/dev/stdout` on one), written in place.
    package var isTerminal: Bool { atomic == nil && fd >= 0 && isatty(fd) == 1 }

    /// Writes `bytes` at `offset` over what is there, where `canRewrite` says it can.
    package func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(SwurlError) {
        guard canRewrite else { throw .output("'\(path)' cannot be written over in place") }
        guard var p = bytes.baseAddress else { return }
        var left = bytes.count, at = off_t(offset)
        while left > 0 {
            let n = pwrite(fd, p, left, at)
            if n < 0 {
                if errno == EINTR { continue }
                throw .output("writing to '\(path)' failed: \(systemErrorMessage(errno))")
            }
            p += n
            left -= n
            at += off_t(n)
        }
    }

    /// Appends `count` bytes of `input` from `offset` (`copyAll`: in the kernel where both
    /// files allow it).
    /// - Throws: `SwurlError.output` naming `source` when it cannot be read, or the file.
    package func append(from input: Int32, offset: Int64, count: Int64, source: String) throws(SwurlError) {
        try copyAll(from: input, offset: offset, count: count, to: fd, source: source, describing: "'\(path)'")
    }

    /// Makes the file visible under its name.
    package func commit() throws(SwurlError) {
        guard !done else { return }
        done = true
        if let atomic {
            try atomic.commit()
        } else {
            close(fd)
        }
        fd = -1
    }

    /// Removes the temporary file; FILE is left as it was.
    package func discard() {
        guard !done else { return }
        done = true
        if let atomic { atomic.discard() } else if fd >= 0 { close(fd) }
        fd = -1
    }
}
