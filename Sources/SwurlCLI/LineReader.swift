#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlOutput
import SwurlResponseSerialization
import SwurlEngine
import SwurlCore
import SwurlCurl

/// Reads input a line at a time (a 64 KiB buffer; a line longer than 1 MiB is that line's error):
/// batch files and the REPL's script mode.
final class LineReader {
    private let source: ByteSource
    private let name: String
    /// A descriptor to close at the end (a file the caller opened for the reader).
    private let owned: Int32?
    private var buffer = [UInt8](repeating: 0, count: 65536)
    private var start = 0, end = 0
    private var atEOF = false
    /// The start of a line whose end has not been read yet (kept across `next` calls).
    private var partial: [UInt8] = []
    private var partialTooLong = false
    private(set) var lineNumber = 0
    private(set) var error: SwurlError?
    /// Whether `next` waits for input (the default). When false, `next` returns nil as soon as
    /// no whole line is ready and the descriptor has nothing to read; `ended` tells that apart
    /// from the end of the input.
    var waits = true
    /// Whether the input has ended (after `next` returned nil).
    private(set) var ended = false
    static let maxLine = 1 << 20

    init(source: ByteSource, name: String, owning fd: Int32? = nil) {
        self.source = source
        self.name = name
        owned = fd
    }

    /// Lines of the file open on `fd`, which the reader closes at its end.
    convenience init(owning fd: Int32, name: String) {
        self.init(source: FileDescriptorSource(fd: fd), name: name, owning: fd)
    }

    deinit { if let owned { close(owned) } }

    /// The descriptor the input comes from, when it is one (not memory in tests).
    var descriptor: Int32? { (source as? FileDescriptorSource)?.fd }

    /// The next line without its line ending (nil at the end, or with `waits` false when none
    /// is ready); `tooLong` when it was cut.
    func next() -> (text: String, tooLong: Bool)? {
        while true {
            if let nl = buffer[start..<end].firstIndex(of: 0x0A) {
                if !partialTooLong { partial += buffer[start..<nl] }
                start = nl + 1
                return take()
            }
            if !partialTooLong { partial += buffer[start..<end] }
            // (One byte more than the longest line: a CR before the newline still to come.)
            if partial.count > LineReader.maxLine + 1 { partialTooLong = true; partial = [] }
            start = 0; end = 0
            if atEOF {
                guard !partial.isEmpty || partialTooLong else { ended = true; return nil }
                return take()
            }
            if !waits, let fd = descriptor, !LineReader.readable(fd) { return nil }
            // An interrupt stops the reading too: a regular file or a device never fails a read
            // with EINTR, and a line with no end in them (`batch /dev/zero`) read on for ever,
            // Ctrl-C unheard.
            if Interrupt.requested { return nil }
            let n: Int
            do {
                n = try buffer.withUnsafeMutableBytes { try source.read(into: $0) }
            } catch let failure {
                if error == nil && !Interrupt.requested {
                    let why = (failure as? SwurlError)?.message ?? "\(failure)"
                    error = .inputFile("reading '\(TerminalSanitizer.clean(name))' failed: \(why)")
                }
                atEOF = true
                continue
            }
            if n == 0 {
                atEOF = true
            } else {
                end = n
            }
        }
    }

    /// The line collected in `partial`, which starts over.
    private func take() -> (text: String, tooLong: Bool) {
        // A CRLF line's CR is no part of it, nor of its length.
        if !partialTooLong, partial.last == 0x0D { partial.removeLast() }
        let tooLong = partialTooLong || partial.count > LineReader.maxLine
        // Decoded as argv is: a byte that is not UTF-8 stays that byte (ArgumentBytes).
        let text = tooLong ? "" : ArgumentBytes.decode(partial)
        partial.removeAll(keepingCapacity: partial.capacity <= 65536)
        partialTooLong = false
        lineNumber += 1
        return (text, tooLong)
    }

    /// Whether a read from `fd` would not block: input, its end, or an error waiting.
    private static func readable(_ fd: Int32) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            let rc = poll(&p, 1, 0)
            if rc >= 0 { return rc == 1 }
            if errno != EINTR || Interrupt.requested { return true }
        }
    }
}
