import SwurlCore
import SwurlResponseSerialization
/// Everything a decoder needs to know about where its output goes.
struct DecodingContext {
    var options: DecodingOptions
    /// Colours, or nil.
    var theme: Theme?
    /// Whether the output is a terminal (control characters must be made visible).
    var terminal: Bool
    /// The media type, lower-cased, without parameters.
    var mediaType: String?
    /// The `charset` parameter of Content-Type, lower-cased.
    var charset: String?
}

/// How a decoder ended.
enum DecodingOutcome: Equatable {
    /// The body was shown decoded (or was empty).
    case decoded
    /// The body could not be decoded and was shown as text; the reason becomes a one-line note,
    /// and a strict decoder turns it into exit 8.
    case failed(String)
    /// An informational line to show after the body (a binary body's summary).
    case note(String)
}

/// A response decoder: turns body chunks into what is shown. One implementation per media
/// family, each in its own file; `CompoundResponseDecoder` chooses between them.
protocol ResponseDecoding: AnyObject {
    /// Appends the display form of `chunk` to `out`; may hold bytes back until `finish`.
    func decode(_ chunk: UnsafeRawBufferPointer, into out: inout [UInt8])
    /// Appends whatever was held back and says how decoding went.
    func finish(into out: inout [UInt8]) -> DecodingOutcome
    /// Appends output that `decode` left pending (a large backlog is formatted in pieces, so it
    /// never sits in memory whole) until `out` holds at least `limit` bytes; returns whether some
    /// is still pending. A caller that never drains loses nothing: the next `decode` or `finish`
    /// writes the backlog first.
    func drain(into out: inout [UInt8], upTo limit: Int) -> Bool
    /// Says that no more chunks come, before `finish`: a decoder that held bytes back and can
    /// now tell they are valid moves them to the backlog that `drain` formats in pieces, so
    /// `finish` does not write their (perhaps huge) output at once. A caller that skips it
    /// loses nothing: `finish` does the same.
    func endOfBody()
    /// The run was interrupted (Ctrl-C, SIGTERM): `finish` writes what is held back or pending
    /// as sent instead of formatting it, so that the end comes at once (a held-back megabyte of
    /// deeply nested JSON was formatted to hundreds of megabytes after the Ctrl-C).
    func abandon()
}

extension ResponseDecoding {
    func drain(into out: inout [UInt8], upTo limit: Int) -> Bool { false }
    func endOfBody() {}
    func abandon() {}
}

/// Collects a whole body for decoders that need all of it (XML, plist, image, sorted JSON), up
/// to a limit past which they give up and show the rest as text.
struct BodyBuffer {
    /// 32 MiB: beyond this a whole-document decoder falls back to streaming text. A document's
    /// tree takes up to some 40 times its bytes (a gzip body of 255 KB held 262 MB of `0,`,
    /// 10 GB as a tree), so the limit keeps a hostile body to about a gigabyte; under a memory
    /// limit (`ulimit -v`) to a quarter of it (`MemoryLimit`).
    static let defaultLimit = MemoryLimit.bound(32 << 20, perUnit: 40)
    private(set) var bytes: [UInt8] = []
    private(set) var total = 0
    let limit: Int

    init(limit: Int = BodyBuffer.defaultLimit) { self.limit = limit }

    /// Appends a chunk; returns false once the limit is passed (the chunk is still kept).
    mutating func append(_ chunk: UnsafeRawBufferPointer) -> Bool {
        bytes.append(contentsOf: chunk)
        total += chunk.count
        return total <= limit
    }

    mutating func take() -> [UInt8] {
        defer { bytes = [] }
        return bytes
    }
}

/// A body that a decoder needs whole (XML, property lists), kept up to a limit; past the limit
/// the body streams on as text instead, so memory stays bounded.
struct WholeBody {
    private var buffer: BodyBuffer
    private var text: TextResponseDecoder?
    private let context: DecodingContext

    init(limit: Int = BodyBuffer.defaultLimit, context: DecodingContext) {
        buffer = BodyBuffer(limit: limit)
        self.context = context
    }

    mutating func add(_ chunk: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        if let text { text.decode(chunk, into: &out); return }
        if !buffer.append(chunk) {
            let t = TextResponseDecoder(context: context)
            t.decode(buffer.take(), into: &out)
            text = t
        }
    }

    /// The whole body, or nil when it outgrew the limit and was shown as text (finished here).
    mutating func finish(into out: inout [UInt8]) -> [UInt8]? {
        if let text {
            _ = text.finish(into: &out)
            return nil
        }
        return buffer.take()
    }
}
