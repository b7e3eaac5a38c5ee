#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// A request body as a list of segments that are read one after another while sending.
///
/// Bytes segments hold serialized text (JSON, forms, multipart framing); file segments are read
/// from disk at send time, so a body of any size needs only one buffer of memory; a stream
/// segment (stdin) has no known length and makes the body chunked.
package struct RequestBody: @unchecked Sendable {
    /// One piece of the body.
    package enum Segment {
        case bytes([UInt8])
        /// A regular file whose size was measured when the body was built.
        case file(path: String, size: Int64)
        /// A stream read until its end (stdin); `length` is known when stdin is a regular file.
        case stream(ByteSource, label: String, length: Int64?)
    }

    package var segments: [Segment]
    /// Each file segment's file as it was measured (device and inode), by path: one replaced
    /// before it is opened (`mv new body.json`) is another file, refused rather than sent as a
    /// piece of its content under the measured length.
    private var measured: [String: FileIdentity] = [:]

    package struct FileIdentity: Equatable, Sendable {
        let device: UInt64, inode: UInt64
        init?(path: String) {
            var st = stat()
            guard stat(ArgumentBytes.path(path), &st) == 0 else { return nil }
            self.init(st)
        }
        init(_ st: stat) { device = UInt64(st.st_dev); inode = UInt64(st.st_ino) }
    }

    package init(_ segments: [Segment]) {
        self.segments = segments
        for case .file(let path, _) in segments where measured[path] == nil { measured[path] = FileIdentity(path: path) }
    }
    package init(bytes: [UInt8]) { self.segments = [.bytes(bytes)] }

    /// The exact length when no segment is a stream; nil means chunked transfer encoding.
    package var length: Int64? {
        var total: Int64 = 0
        for segment in segments {
            switch segment {
            case .bytes(let b): total += Int64(b.count)
            case .file(_, let size): total += size
            case .stream(_, _, let length):
                guard let length else { return nil }
                total += length
            }
        }
        return total
    }

    /// Whether the body can be read again from the start (needed for 307/308 redirects): no
    /// segment is a stream that cannot start again.
    package var isRewindable: Bool {
        !segments.contains { if case .stream(let source, _, _) = $0 { return !(source is RewindableByteSource) } else { return false } }
    }

    /// The whole body, when it is held in memory (nil when it reads files or streams).
    package var inMemoryBytes: [UInt8]? {
        var out: [UInt8] = []
        for segment in segments {
            guard case .bytes(let b) = segment else { return nil }
            out += b
        }
        return out
    }

    /// Throws when a file segment's file is no longer the size measured for the body's length
    /// (checked before a retry's or a redirect's head goes out, so that a file rewritten
    /// meanwhile is not sent as a piece of its new content; nothing of that attempt is sent).
    package func checkFileSizes() throws(SwurlError) {
        for case .file(let path, let size) in segments {
            var st = stat()
            guard stat(ArgumentBytes.path(path), &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, Int64(st.st_size) != size else { continue }
            throw .inputFile("'\(path)' changed since the request was first sent (\(size) bytes then, \(st.st_size) now): it is not sent again as a piece of its new content")
        }
    }

    /// A fresh reader positioned at the start of the body.
    package func makeReader() -> RequestBodyReader { RequestBodyReader(segments: segments, measured: measured) }
}

/// Reads a `RequestBody` segment by segment into caller-provided buffers.
package final class RequestBodyReader {
    private let segments: [RequestBody.Segment]
    private var index = 0
    private var offset = 0          // within a bytes segment
    private var fd: Int32 = -1      // open file of a file segment
    private var fileRead: Int64 = 0
    private let measured: [String: RequestBody.FileIdentity]

    init(segments: [RequestBody.Segment], measured: [String: RequestBody.FileIdentity] = [:]) {
        self.segments = segments
        self.measured = measured
        // A reader reads the body from its start: streams that can start again do.
        for case .stream(let source as RewindableByteSource, _, _) in segments { source.rewind() }
    }

    deinit { closeFile() }

    private func closeFile() {
        if fd >= 0 { close(fd) }
        fd = -1
    }

    /// Fills `buffer` with the next bytes; returns 0 at the end of the body.
    /// - Throws: `SwurlError.inputFile` when a file cannot be read or changed size since the
    ///   body's length was computed (a wrong Content-Length must never be sent silently).
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while index < segments.count {
            switch segments[index] {
            case .bytes(let bytes):
                let n = min(buffer.count, bytes.count - offset)
                if n > 0 {
                    bytes.withUnsafeBytes { src in
                        buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: src[offset..<offset + n]))
                    }
                    offset += n
                    return n
                }
            case .file(let path, let size):
                if fd < 0 {
                    fd = open(ArgumentBytes.path(path), O_RDONLY | O_CLOEXEC)
                    if fd < 0 {
                        throw SwurlError.inputFile("cannot read '\(path)': \(systemErrorMessage(errno))")
                    }
                    fileRead = 0
                    // The file measured for the body's length, or refused before a byte of it
                    // goes: another file put at the path, or this one cut shorter. (One that grew,
                    // a log, goes as its measured start.)
                    var st = stat()
                    if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG {
                        if let then = measured[path], then != RequestBody.FileIdentity(st) {
                            closeFile()
                            throw SwurlError.inputFile("'\(path)' was replaced by another file after it was measured; nothing of it was sent")
                        }
                        if Int64(st.st_size) < size {
                            closeFile()
                            throw SwurlError.inputFile("'\(path)' shrank after it was measured (\(size) bytes then, \(st.st_size) now); nothing of it was sent")
                        }
                    }
                }
                let want = Int(min(Int64(buffer.count), size - fileRead))
                if want > 0 {
                    var n: Int
                    repeat { n = Glibc.read(fd, buffer.baseAddress, want) } while n < 0 && errno == EINTR
                    if n < 0 {
                        throw SwurlError.inputFile("cannot read '\(path)': \(systemErrorMessage(errno))")
                    }
                    if n == 0 {
                        throw SwurlError.inputFile("'\(path)' shrank while it was being sent (expected \(size) bytes, got \(fileRead))")
                    }
                    fileRead += Int64(n)
                    return n
                }
                closeFile()
            case .stream(let source, let label, let length):
                let want = length.map { Int(min(Int64(buffer.count), $0 - fileRead)) } ?? buffer.count
                if want > 0 {
                    let n = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want]))
                    if n > 0 { fileRead += Int64(n); return n }
                    if let length, fileRead < length {
                        throw SwurlError.inputFile("\(label) ended early (expected \(length) bytes, got \(fileRead))")
                    }
                }
                fileRead = 0
            }
            index += 1
            offset = 0
        }
        return 0
    }

    /// Writes the whole body to `sink` in chunks (used by `--offline`).
    package func copy(to sink: ByteSink, chunked: Bool = false) throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = try read(into: buffer)
            if chunked {
                if n == 0 { try sink.write("0\r\n\r\n"); return }
                try sink.write(String(n, radix: 16) + "\r\n")
                try sink.write(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
                try sink.write("\r\n")
            } else {
                if n == 0 { return }
                try sink.write(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            }
        }
    }
}
