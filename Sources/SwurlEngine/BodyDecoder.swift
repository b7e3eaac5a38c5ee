import CSupport
import SwurlCore

/// swurl's own decoding of a gzip, deflate or zstd response body (zlib and libzstd through
/// CSupport), in place of libcurl's: libcurl 7.88 delivers a compressed body cut short (a
/// connection closed mid-body, the end of a body without Content-Length) as a whole one, so `-o`
/// replaced a good file with a piece of the document, exit 0. This one knows whether the
/// compressed data reached its end (`ended`). Several codings (`gzip, gzip`) are undone in the
/// reverse of their order. zstd's window is held to 8 MiB (RFC 9659): libcurl's takes what the
/// server asks, up to 128 MiB a response (2 GB for a batch's 16 lines). br stays libcurl's.
final class BodyDecoder {
    /// One decoder a coding, the last applied (the first to undo) first.
    private var stages: [OpaquePointer] = []
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    /// The codings, as the response named them (for messages).
    let codings: String

    /// Whether `codings` are all gzip, deflate or zstd (and identity), which this decodes.
    static func decodes(_ list: [String]) -> Bool {
        !list.isEmpty && list.allSatisfy { ["gzip", "x-gzip", "deflate", "zstd", "identity"].contains($0) }
            && list.contains { $0 != "identity" }
    }

    /// nil when zlib or libzstd cannot be loaded (libcurl's decoding stays then).
    init?(_ list: [String], named: String) {
        codings = named
        for coding in list.reversed() where coding != "identity" {
            let kind = coding == "deflate" ? SW_CODING_DEFLATE : coding == "zstd" ? SW_CODING_ZSTD : SW_CODING_GZIP
            guard let stage = sw_inflater_new(kind) else {
                stages.forEach { sw_inflater_free($0) }
                return nil
            }
            stages.append(stage)
        }
    }

    deinit { stages.forEach { sw_inflater_free($0) } }

    /// Whether every coding's data reached its end.
    var ended: Bool { stages.allSatisfy { sw_inflater_ended($0) != 0 } }

    /// Decodes `bytes`, handing the decoded bytes to `deliver` as they come.
    /// - Throws: `SwurlError.transport` for bytes that are not the coding's, or bytes after its end.
    func decode(_ bytes: UnsafeRawBufferPointer, _ deliver: (UnsafeRawBufferPointer) throws -> Void) throws {
        try feed(0, bytes, deliver)
    }

    private func feed(_ i: Int, _ bytes: UnsafeRawBufferPointer, _ deliver: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard i < stages.count else { return try deliver(bytes) }
        guard !bytes.isEmpty else { return }
        let stage = stages[i]
        sw_inflater_input(stage, bytes.baseAddress, UInt(bytes.count))
        // Each stage has its own output: a stage's bytes feed the next before it reads on.
        var out = [UInt8](repeating: 0, count: i == stages.count - 1 ? 0 : 64 * 1024)
        while true {
            let made: Int = i == stages.count - 1
                ? buffer.withUnsafeMutableBytes { sw_inflater_read(stage, $0.baseAddress, UInt($0.count)) }
                : out.withUnsafeMutableBytes { sw_inflater_read(stage, $0.baseAddress, UInt($0.count)) }
            if made == 0 { return }
            if made == Int(SW_INFLATE_STRAY) {
                throw SwurlError.transport("the response body (Content-Encoding: \(TerminalSanitizer.excerpt(codings))) could not be decoded: bytes follow the end of its compressed data",
                                           hint: "save the bytes as sent with -d -o FILE")
            }
            if made < 0 {
                // The library's words say what was wrong: a damaged body's check value ("incorrect
                // data check") is not a body of another coding; a zstd frame whose window is over
                // 8 MiB "requires too much memory for decoding".
                let said = sw_inflater_message(stage).map { String(cString: $0) }
                let library = String(cString: sw_inflater_library(stage))
                if library == "zstd", let said, said.containsText("too much memory") {
                    throw SwurlError.transport("the response body (Content-Encoding: \(TerminalSanitizer.excerpt(codings))) was not decoded: its zstd window is larger than the 8 MiB a response may use (RFC 9659), which swurl holds it to (zstd: \(said))",
                                               hint: "save the bytes as sent with -d -o FILE, and decode them with zstd -d --long=31")
                }
                let words = said.map { " (\(library): \($0))" } ?? ""
                throw SwurlError.transport("the response body (Content-Encoding: \(TerminalSanitizer.excerpt(codings))) could not be decoded: it is not \(i == 0 ? "what the header says" : "valid compressed data")\(words)",
                                           hint: "save the bytes as sent with -d -o FILE")
            }
            if i == stages.count - 1 {
                try buffer.withUnsafeBytes { try deliver(UnsafeRawBufferPointer(rebasing: $0[0..<made])) }
            } else {
                try out.withUnsafeBytes { try feed(i + 1, UnsafeRawBufferPointer(rebasing: $0[0..<made]), deliver) }
            }
        }
    }
}
