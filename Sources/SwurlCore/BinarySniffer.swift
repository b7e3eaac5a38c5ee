#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Decides whether bytes are binary (not fit for a terminal). The one place for both rules:
/// a response body is binary when its first kilobyte holds a NUL (text in another charset is
/// still text); a file being uploaded also when it is not UTF-8.
package enum BinarySniffer {
    /// How many leading bytes the rules look at.
    package static let sniffLength = 1024

    /// The response rule: a NUL among the first `sniffLength` bytes.
    package static func hasNUL(_ head: some Collection<UInt8>) -> Bool {
        head.prefix(sniffLength).contains(0)
    }

    /// Whether the first kilobyte holds a NUL or invalid UTF-8 (a sequence cut at the end is fine).
    static func looksBinary(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let head = UnsafeRawBufferPointer(rebasing: bytes.prefix(sniffLength))
        if hasNUL(head) { return true }
        // Drop a possibly cut multi-byte sequence at the end before validating.
        var end = head.count
        var back = 0
        while end > 0 && back < 3 && head[end - 1] & 0xC0 == 0x80 { end -= 1; back += 1 }
        if end > 0 && head[end - 1] >= 0xC0 { end -= 1 }
        return String(validating: UnsafeRawBufferPointer(rebasing: head[0..<end]), as: UTF8.self) == nil
    }

    /// Reads the first kilobyte of a file; unreadable files count as binary.
    package static func fileLooksBinary(_ path: String) -> Bool {
        let fd = open(ArgumentBytes.path(path), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return true }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n >= 0 else { return true }
        return buffer.withUnsafeBytes { looksBinary(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
    }
}

/// Whether a body of these bytes is nothing but whitespace (a lone space is an empty body).
package func isBlank(_ bytes: [UInt8]) -> Bool {
    bytes.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
}
