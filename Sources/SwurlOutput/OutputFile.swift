#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlCore

/// `--output FILE`: writes to a temporary file beside FILE and renames it over FILE only when
/// everything succeeded, so a failed transfer never leaves a truncated file behind. FILE is
/// resolved by `OutputTarget`: a symbolic link is followed (the temporary file goes beside its
/// target, which the rename replaces; the link stays), and a target that is not a regular file
/// (`/dev/null`, a FIFO, a terminal, `/dev/stdout` and `/dev/fd/N`) is written in place.
public final class OutputFile: ByteSink {
    public let path: String
    private let tempPath: String
    /// Where the rename puts the file (FILE, or the target of its links).
    private let finalPath: String
    private var fd: Int32
    private var done = false
    private let inPlace: Bool

    /// - Throws: `SwurlError.output` when the directory is not writable.
    public init(path: String) throws(SwurlError) {
        self.path = path
        switch try OutputTarget.resolve(path) {
        case .directory:
            // Refused before anything is transferred (the rename would fail only afterwards).
            throw .output("cannot write '\(path)': it is a directory; give -o a file name")
        case .direct(let target):
            // A regular file reached through /proc (stdout redirected to a file) is appended to:
            // the shell opened it, and what it holds is not ours to overwrite.
            var st = stat()
            let regular = stat(ArgumentBytes.path(target), &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
            let fd = open(ArgumentBytes.path(target), O_WRONLY | O_CLOEXEC | (regular ? O_APPEND : 0))
            guard fd >= 0 else { throw .output("cannot write '\(path)': \(systemErrorMessage(errno))") }
            self.fd = fd
            self.tempPath = target
            self.finalPath = target
            self.inPlace = true
        case .file(let target):
            inPlace = false
            finalPath = target
            var template = ArgumentBytes.path(target + ".swurl-XXXXXX")
            let fd = template.withUnsafeMutableBufferPointer { buf in buf.baseAddress.map { mkstemp($0) } ?? -1 }
            guard fd >= 0 else {
                throw .output("cannot create '\(path)': \(systemErrorMessage(errno))")
            }
            self.fd = fd
            self.tempPath = ArgumentBytes.decode(cString: template)
            // A file that exists keeps its mode; a new one gets the umask's.
            var st = stat()
            if stat(ArgumentBytes.path(target), &st) == 0 {
                fchmod(fd, st.st_mode & 0o7777)
            } else {
                let mask = umask(0)
                umask(mask)
                fchmod(fd, 0o666 & ~mask)
            }
        }
    }

    deinit { discard() }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        try writeAll(fd, bytes, describing: "'\(path)'")
    }

    public func write(gathering buffers: [[UInt8]]) throws {
        try writeAll(fd, buffers, describing: "'\(path)'")
    }

    /// Makes the file visible under its name.
    public func commit() throws(SwurlError) {
        guard !done else { return }
        done = true
        let closed = close(fd)
        fd = -1
        if inPlace { return }
        guard closed == 0, rename(ArgumentBytes.path(tempPath), ArgumentBytes.path(finalPath)) == 0 else {
            let e = systemErrorMessage(errno)
            unlink(ArgumentBytes.path(tempPath))
            throw .output("saving '\(path)' failed: \(e)")
        }
    }

    /// Removes the temporary file; FILE is left as it was.
    public func discard() {
        guard !done else { return }
        done = true
        if fd >= 0 { close(fd) }
        if !inPlace { unlink(ArgumentBytes.path(tempPath)) }
    }
}
