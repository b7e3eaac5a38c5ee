#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlOutput
import SwurlResponseSerialization
import SwurlEngine
import SwurlCore
import SwurlCurl

/// Receives one line's response: counts the body, runs a strict `--decode` over it and, with
/// `--output-dir`, writes it to a temporary file of its own (`DIR/.LINE.body.XXXXXX`, made by
/// `AtomicFile.makeTemporary`, so another batch in the same directory or a planted file cannot
/// share it; a `kill -9` leaves it, as it leaves any temporary file), renamed
/// to its final name (`DIR/LINE.body` or the `--name-template` name) when the line succeeds.
final class BatchBody: TransferDelegate {
    /// The facts the line's verdict is drawn from (head, size, strict decoding).
    let judge: ResponseJudge
    var bytes: Int64 { judge.bytes }
    private let outputDir: String?
    private let line: Int
    /// The temporary file, once made.
    private var partPath: String?
    private var fd: Int32 = -1

    init(outputDir: String?, line: Int, validator: ResponseValidator, decoding: DecodingOptions) {
        self.outputDir = outputDir
        self.line = line
        judge = ResponseJudge(validator: validator, decoding: decoding)
    }

    deinit {
        if fd >= 0 { close(fd) }
        if let partPath { unlink(ArgumentBytes.path(partPath)) }
    }

    func transferDidSendRequestHead(_ bytes: [UInt8]) throws {}
    func transferDidSendRequestBody(_ bytes: UnsafeRawBufferPointer) throws {}

    func transferDidReceiveHead(_ head: HTTPResponseHead) throws {
        judge.received(head: head)
        guard head.status >= 200, outputDir != nil else { return }
        // A new response (a retry after a cut): the same file, started again.
        if fd >= 0 {
            guard ftruncate(fd, 0) == 0, lseek(fd, 0, SEEK_SET) == 0 else {
                throw SwurlError.output("writing to line \(line)'s body in '\(AtomicFile.shown(outputDir ?? ""))' failed: \(systemErrorMessage(errno))")
            }
        } else {
            try makePart()
        }
    }

    func transferDidReceiveBody(_ b: UnsafeRawBufferPointer) throws {
        judge.received(body: b)
        // Named as the user knows it: the line's body in --output-dir, not its hidden temporary name.
        if fd >= 0, let outputDir { try writeAll(fd, b, describing: "line \(line)'s body in '\(AtomicFile.shown(outputDir))'") }
    }

    /// Makes the temporary file beside the final names, with the mode `open(2)` would give a new
    /// file (mkstemp's is 0600).
    private func makePart() throws(SwurlError) {
        guard let outputDir else { return }
        guard let made = AtomicFile.makeTemporary("\(outputDir)/.\(line).body.XXXXXX") else {
            throw .output("cannot create a file in '\(AtomicFile.shown(outputDir))': \(systemErrorMessage(errno))")
        }
        fchmod(made.fd, AtomicFile.newFileMode())
        fd = made.fd
        partPath = made.path
    }

    /// Keeps the body (renamed to `finalPath`) or removes it.
    func settle(keep: Bool, to finalPath: String?) -> SwurlError? {
        let closed = fd < 0 || close(fd) == 0
        let closeError = errno
        fd = -1
        if keep, let finalPath {
            // No body arrived (HEAD, 204): an empty file.
            if partPath == nil {
                do { try makePart() } catch { return error }
                if fd >= 0 { close(fd); fd = -1 }
            }
            guard let partPath else { return nil }
            self.partPath = nil
            guard closed else {
                unlink(ArgumentBytes.path(partPath))
                return .output("cannot write '\(AtomicFile.shown(finalPath))': \(systemErrorMessage(closeError))")
            }
            if rename(ArgumentBytes.path(partPath), ArgumentBytes.path(finalPath)) != 0 {
                let e = errno
                unlink(ArgumentBytes.path(partPath))
                // Said as the refusal before sending says it (a `{status}` name, known only now).
                return AtomicFile.replaceRefusal(finalPath)
                    ?? .output("cannot write '\(AtomicFile.shown(finalPath))': \(systemErrorMessage(e))")
            }
        } else if let partPath {
            self.partPath = nil
            unlink(ArgumentBytes.path(partPath))
        }
        return nil
    }
}
