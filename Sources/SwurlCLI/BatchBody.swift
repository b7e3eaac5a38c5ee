#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlOutput
import SwurlResponseSerialization
import SwurlEngine
import SwurlCore
import SwurlCurl

/// Receives one line's response: counts the body, runs a strict `--decode` over it and, with
/// `--output-dir`, writes it to `DIR/.LINE.body.part`, renamed to its final name (`DIR/LINE.body`
/// or the `--name-template` name) when the line succeeds.
final class BatchBody: TransferDelegate {
    /// The facts the line's verdict is drawn from (head, size, strict decoding).
    let judge: ResponseJudge
    var bytes: Int64 { judge.bytes }
    private let partPath: String?
    private var fd: Int32 = -1

    init(outputDir: String?, line: Int, validator: ResponseValidator, decoding: DecodingOptions) {
        partPath = outputDir.map { "\($0)/.\(line).body.part" }
        judge = ResponseJudge(validator: validator, decoding: decoding)
    }

    deinit { if fd >= 0 { close(fd) } }

    func transferDidSendRequestHead(_ bytes: [UInt8]) throws {}
    func transferDidSendRequestBody(_ bytes: UnsafeRawBufferPointer) throws {}

    func transferDidReceiveHead(_ head: HTTPResponseHead) throws {
        judge.received(head: head)
        guard head.status >= 200 else { return }
        // A new response (a retry after a cut): start the file again.
        if let partPath {
            if fd >= 0 { close(fd) }
            // Never through a planted link in a shared directory: a fresh file or nothing.
            unlink(partPath)
            fd = open(partPath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                throw SwurlError.output("cannot write '\(TerminalSanitizer.clean(partPath))': \(systemErrorMessage(errno))")
            }
        }
    }

    func transferDidReceiveBody(_ b: UnsafeRawBufferPointer) throws {
        judge.received(body: b)
        if fd >= 0, let partPath { try writeAll(fd, b, describing: partPath) }
    }

    /// Keeps the body (renamed to `finalPath`) or removes it.
    func settle(keep: Bool, to finalPath: String?) -> SwurlError? {
        if fd >= 0 { close(fd); fd = -1 }
        guard let partPath else { return nil }
        if keep, let finalPath {
            if judge.head == nil || access(partPath, F_OK) != 0 {
                // No body arrived (HEAD, 204): an empty file.
                unlink(partPath)
                let f = open(partPath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
                if f >= 0 { close(f) }
            }
            if rename(partPath, finalPath) != 0 {
                let e = errno
                unlink(partPath)
                // Said as the refusal before sending says it (a `{status}` name, known only now).
                return AtomicFile.replaceRefusal(finalPath)
                    ?? .output("cannot write '\(TerminalSanitizer.clean(finalPath))': \(systemErrorMessage(e))")
            }
        } else {
            unlink(partPath)
        }
        return nil
    }
}
