#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlCore

/// `--output FILE`: writes to a temporary file beside FILE and renames it over FILE only when
/// everything succeeded, so a failed transfer never leaves a truncated file behind. A FILE that
/// exists and is not a regular file (`/dev/null`, a FIFO, a terminal) is written in place: a
/// rename would replace the device node itself.
public final class OutputFile: ByteSink {
    public let path: String
    private let tempPath: String
    private var fd: Int32
    private var done = false
    private let inPlace: Bool

    /// - Throws: `SwurlError.output` when the directory is not writable.
    public init(path: String) throws(SwurlError) {
        self.path = path
        var st = stat()
        if stat(ArgumentBytes.path(path), &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
            // Refused before anything is transferred (the rename would fail only afterwards).
            throw .output("cannot write '\(path)': it is a directory; give -o a file name")
        }
        if stat(ArgumentBytes.path(path), &st) == 0, (st.st_mode & S_IFMT) != S_IFREG {
            let fd = open(ArgumentBytes.path(path), O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { throw .output("cannot write '\(path)': \(systemErrorMessage(errno))") }
            self.fd = fd
            self.tempPath = path
            self.inPlace = true
            return
        }
        inPlace = false
        var template = ArgumentBytes.path(path + ".swurl-XXXXXX")
        let fd = template.withUnsafeMutableBufferPointer { buf in buf.baseAddress.map { mkstemp($0) } ?? -1 }
        guard fd >= 0 else {
            throw .output("cannot create '\(path)': \(systemErrorMessage(errno))")
        }
        self.fd = fd
        self.tempPath = ArgumentBytes.decode(cString: template)
        let mask = umask(0)
        umask(mask)
        fchmod(fd, 0o666 & ~mask)
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
        guard closed == 0, rename(ArgumentBytes.path(tempPath), ArgumentBytes.path(path)) == 0 else {
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
