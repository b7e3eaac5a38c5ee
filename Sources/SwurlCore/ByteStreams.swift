#if canImport(Glibc)
@preconcurrency import Glibc
#endif
@preconcurrency import CSupport

/// Somewhere bytes can be read from: a file descriptor, or memory in tests.
package protocol ByteSource: AnyObject {
    /// Reads up to `buffer.count` bytes; returns 0 at end of input.
    /// - Throws: `SwurlError.transport` when the read fails.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
}

/// Somewhere bytes can be written: a terminal, a pipe, a file, or memory in tests.
package protocol ByteSink: AnyObject {
    /// Writes all of `bytes` or throws; a partial write is never reported as success.
    func write(_ bytes: UnsafeRawBufferPointer) throws
    /// Writes `bytes`, which the sink may keep instead of copying; `bytes` comes back empty
    /// (possibly with the capacity of another buffer, for the caller to fill again).
    func write(handingOver bytes: inout [UInt8]) throws
    /// Writes the buffers one after another (a file descriptor: with writev(2), several at once).
    func write(gathering buffers: [[UInt8]]) throws
}

extension ByteSink {
    package func write(handingOver bytes: inout [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
        bytes.removeAll(keepingCapacity: true)
    }

    package func write(gathering buffers: [[UInt8]]) throws {
        for b in buffers { try write(b) }
    }

    /// Writes an array of bytes.
    package func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    /// Writes a string as UTF-8.
    package func write(_ text: String) throws {
        var text = text
        try text.withUTF8 { try write(UnsafeRawBufferPointer($0)) }
    }
}

/// A source that can start again from its first byte: a body read from it can be sent twice
/// (a 307 or 308, `--retry`, a Digest round).
package protocol RewindableByteSource: ByteSource {
    /// Makes the next `read` return the first byte again.
    func rewind()
}

/// The bytes of an open regular file from `start` on, read with `pread(2)` so that they can be
/// read again: stdin redirected from a file (`swurl POST url < big.json`) past what is held in
/// memory. The descriptor is not closed (it is stdin's), and once `length` bytes are read its
/// offset is put after them, as `read(2)` would have left it: a command after swurl on the same
/// stdin (`{ swurl POST url; wc -c; } < file`) starts where the body ended, not at the first
/// byte after what was held. (Once, not at every chunk.)
package final class FileRegionSource: RewindableByteSource {
    private let fd: Int32
    private let start: Int64
    private let length: Int64
    private var position: Int64 = 0

    package init(fd: Int32, start: Int64, length: Int64) {
        self.fd = fd
        self.start = start
        self.length = length
    }

    package func rewind() { position = 0 }

    package func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while true {
            let n = pread(fd, buffer.baseAddress, buffer.count, off_t(start + position))
            if n >= 0 {
                let before = position
                position += Int64(n)
                if before < length && (position >= length || n == 0) { lseek(fd, off_t(start + position), SEEK_SET) }
                return n
            }
            if errno == EINTR {
                if Interrupt.requested { throw SwurlError.interrupted }
                continue
            }
            throw SwurlError.transport("reading input failed: \(systemErrorMessage(errno))")
        }
    }
}

/// Reads from a file descriptor, retrying on EINTR; closes it when done with it if it owns it
/// (a file opened for a body), never stdin.
package final class FileDescriptorSource: ByteSource {
    package let fd: Int32
    private let owning: Bool
    package init(fd: Int32, owning: Bool = false) {
        self.fd = fd
        self.owning = owning
    }

    deinit { if owning { close(fd) } }

    package func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while true {
            let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if n >= 0 { return n }
            if errno == EINTR {
                // Ctrl-C ends a read that waits on a terminal or a pipe (exit 130).
                if Interrupt.requested { throw SwurlError.interrupted }
                continue
            }
            throw SwurlError.transport("reading input failed: \(systemErrorMessage(errno))")
        }
    }
}

/// Writes to a file descriptor, retrying on EINTR and short writes.
package final class FileDescriptorSink: ByteSink {
    package let fd: Int32
    let name: String
    package init(fd: Int32, name: String) {
        self.fd = fd
        self.name = name
    }

    /// Whether a write failed (a full disk, an I/O error, a reader gone): what follows would be
    /// written nowhere. Not a write Ctrl-C cut short: the stream is fine, and a REPL goes back to
    /// its prompt then.
    package private(set) var writeFailed = false

    package func write(_ bytes: UnsafeRawBufferPointer) throws {
        do { try writeAll(fd, bytes, describing: name) } catch {
            noteFailure(error)
            throw error
        }
    }

    package func write(gathering buffers: [[UInt8]]) throws {
        do { try writeAll(fd, buffers, describing: name) } catch {
            noteFailure(error)
            throw error
        }
    }

    private func noteFailure(_ error: Error) {
        if case SwurlError.interrupted? = error as? SwurlError { return }
        writeFailed = true
    }

    /// Whether this is a pipe, socket or terminal whose reader went away: a pipe says POLLERR,
    /// a socket whose peer closed or a terminal that hung up POLLHUP. False for files.
    package var readerGone: Bool {
        var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        return poll(&p, 1, 0) == 1 && p.revents & Int16(POLLERR | POLLHUP) != 0
    }
}

/// A standard stream the shell closed (`>&-`): every write fails, as it would on the closed
/// descriptor, without touching whatever now has its number.
package final class ClosedSink: ByteSink {
    let name: String
    package init(name: String) { self.name = name }

    package func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count > 0 else { return }
        throw SwurlError.output("writing to \(name) failed: it is closed")
    }
}

/// An in-memory source, used for tests and for bytes read ahead of a stream.
package final class MemorySource: ByteSource {
    private let bytes: [UInt8]
    private var offset = 0
    package init(_ bytes: [UInt8]) { self.bytes = bytes }
    package convenience init(_ text: String) { self.init(Array(text.utf8)) }

    package func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let n = min(buffer.count, bytes.count - offset)
        guard n > 0 else { return 0 }
        bytes.withUnsafeBytes { src in
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: src[offset..<offset + n]))
        }
        offset += n
        return n
    }
}

/// An in-memory sink, used by tests to capture output.
package final class MemorySink: ByteSink {
    package private(set) var bytes: [UInt8] = []
    package init() {}
    package func write(_ bytes: UnsafeRawBufferPointer) throws { self.bytes.append(contentsOf: bytes) }
    /// The captured bytes as UTF-8 text (invalid sequences repaired).
    package var text: String { String(decoding: bytes, as: UTF8.self) }
}

/// Writes all of `bytes` to `fd`, retrying on EINTR and short writes.
/// - Throws: `SwurlError.output` naming `name` when a write fails.
package func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, describing name: String) throws(SwurlError) {
    guard var p = bytes.baseAddress else { return }
    var left = bytes.count
    while left > 0 {
        // After Ctrl-C, a pipe or terminal nobody reads must not block the end: a block goes
        // only where there is room for it.
        let careful = Interrupt.requested
        if careful { try waitForRoom(fd) }
        let want = careful ? min(left, Int(PIPE_BUF)) : left
        let n = Glibc.write(fd, p, want)
        if n < 0 {
            if errno == EINTR { try stopIfInterrupted(); continue }
            throw .output("writing to \(name) failed: \(systemErrorMessage(errno))")
        }
        p += n
        left -= n
        // A short write on a blocking descriptor: a signal cut it.
        if n < want { try stopIfInterrupted() }
    }
}

/// A write to a pipe or terminal nobody reads (`swurl URL | less`) blocks; Ctrl-C cuts it short
/// (EINTR, or a short write), and the write then stops rather than blocking again.
@inline(__always)
private func stopIfInterrupted() throws(SwurlError) {
    if Interrupt.requested { throw .interrupted }
}

/// After Ctrl-C: waits up to 0.2 s for `fd` to take a block of PIPE_BUF bytes (a file always
/// can; a pipe or terminal whose reader keeps up soon does), else stops the write.
private func waitForRoom(_ fd: Int32) throws(SwurlError) {
    var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
    while true {
        let r = poll(&p, 1, 200)
        if r < 0 && errno == EINTR { continue }
        if r == 1 && p.revents & Int16(POLLOUT) != 0 { return }
        throw .interrupted
    }
}

/// Writes all of `buffers`, in order, with as few writev(2) calls as the kernel allows (up to
/// 64 buffers a call), retrying on EINTR and after short writes.
package func writeAll(_ fd: Int32, _ buffers: [[UInt8]], describing name: String) throws(SwurlError) {
    if Interrupt.requested {
        for buffer in buffers {
            let failure: SwurlError? = buffer.withUnsafeBytes { raw in
                do throws(SwurlError) { try writeAll(fd, raw, describing: name) } catch { return error }
                return nil
            }
            if let failure { throw failure }
        }
        return
    }
    var index = 0
    var offset = 0   // bytes of buffers[index] already written
    while index < buffers.count {
        if buffers[index].count == offset { index += 1; offset = 0; continue }
        let end = min(buffers.count, index + 64)
        var iov: [iovec] = []
        iov.reserveCapacity(end - index)
        // Each buffer's pointer is used inside its own `withUnsafeBytes`: the calls nest, and
        // writev runs in the innermost one.
        func nest(_ k: Int) -> Int {
            guard k < end else {
                return iov.withUnsafeBufferPointer { Glibc.writev(fd, $0.baseAddress, Int32($0.count)) }
            }
            return buffers[k].withUnsafeBytes { raw in
                let skip = k == index ? offset : 0
                if let base = raw.baseAddress, raw.count > skip {
                    iov.append(iovec(iov_base: UnsafeMutableRawPointer(mutating: base + skip), iov_len: raw.count - skip))
                }
                return nest(k + 1)
            }
        }
        let asked = buffers[index..<end].reduce(0) { $0 + $1.count } - offset
        let n = nest(index)
        if n < 0 {
            if errno == EINTR { try stopIfInterrupted(); continue }
            throw .output("writing to \(name) failed: \(systemErrorMessage(errno))")
        }
        // Step past what was written.
        var left = n
        while left > 0 && index < buffers.count {
            let rest = buffers[index].count - offset
            if left >= rest {
                left -= rest
                index += 1
                offset = 0
            } else {
                offset += left
                left = 0
            }
        }
        if n < asked { try stopIfInterrupted() }
    }
}

/// `strerror` as a Swift string.
package func systemErrorMessage(_ code: Int32) -> String {
    guard let s = strerror(code) else { return "error \(code)" }
    return String(cString: s)
}

/// Copies `count` bytes of `input` from `offset` to `output` at its file position: in the
/// kernel with copy_file_range(2) where both are files that allow it, else (a pipe, a
/// terminal, an append-only file, another kernel) through one 4 MiB buffer, read with pread(2).
/// - Throws: `SwurlError.output` naming `source` when the input ends early or a read fails,
///   naming `name` when a write fails.
package func copyAll(from input: Int32, offset: Int64, count: Int64, to output: Int32,
                    source: String, describing name: String) throws(SwurlError) {
    var position = offset
    let end = offset + count
    var kernel = true
    while kernel && position < end {
        var off = position
        let n = sw_copy_file_range(input, &off, output, UInt(min(end - position, 1 << 30)))
        if n > 0 { position = off; continue }
        if n < 0 && errno == EINTR { continue }
        // 0: the input ended early, or a filesystem that copies nothing this way (some FUSE
        // and overlay mounts); the loop below reads on and tells the two apart.
        if n == 0 { kernel = false; continue }
        // EXDEV, EINVAL (a pipe, O_APPEND), ENOSYS, EOPNOTSUPP, EBADF: nothing was copied by
        // this call; the loop below takes over from where the kernel stopped.
        kernel = false
    }
    guard position < end else { return }
    let size = Int(min(end - position, 4 << 20))
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 4096)
    defer { buffer.deallocate() }
    while position < end {
        let n = pread(input, buffer.baseAddress, Int(min(Int64(size), end - position)), off_t(position))
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { throw .output(n == 0 ? "\(source) ended early" : "reading \(source) failed: \(systemErrorMessage(errno))") }
        try writeAll(output, UnsafeRawBufferPointer(rebasing: buffer[0..<n]), describing: name)
        position += Int64(n)
    }
}
