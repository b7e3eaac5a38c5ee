#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// The one reader of small whole files: `=@` items, certificate and key files, netrc, config.
package enum SmallFile {
    /// The bytes of the file at `path`.
    /// - Parameters:
    ///   - maxSize: refuse (throw) when the file holds more bytes than this; nil for no limit.
    ///   - regularOnly: refuse anything but a regular file (no FIFOs or devices that never end).
    /// - Throws: `SwurlError.inputFile` with the system's reason.
    package static func read(_ path: String, maxSize: Int? = nil, regularOnly: Bool = false) throws(SwurlError) -> [UInt8] {
        // Only a regular file will do: opened without waiting (a FIFO would block the open until
        // a writer came), refused below when it is anything else.
        let fd = open(ArgumentBytes.path(path), O_RDONLY | O_CLOEXEC | (regularOnly ? O_NONBLOCK : 0))
        guard fd >= 0 else { throw .inputFile(systemErrorMessage(errno)) }
        defer { close(fd) }
        if regularOnly || maxSize != nil {
            var st = stat()
            guard fstat(fd, &st) == 0 else { throw .inputFile(systemErrorMessage(errno)) }
            if regularOnly && (st.st_mode & S_IFMT) != S_IFREG { throw .inputFile("not a regular file") }
            if let maxSize, (st.st_mode & S_IFMT) == S_IFREG, st.st_size > maxSize {
                throw .inputFile("larger than \(maxSize) bytes")
            }
        }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .inputFile(systemErrorMessage(errno))
            }
            if n == 0 { return out }
            out += buffer[0..<n]
            if let maxSize, out.count > maxSize { throw .inputFile("larger than \(maxSize) bytes") }
        }
    }
}

/// Reads a whole (small) file; used for `=@`-style items and certificate files.
package func readWholeFile(_ path: String) throws(SwurlError) -> [UInt8] {
    try SmallFile.read(path)
}
