import SwurlResponseSerialization
import SwurlCore
/// Decodes a response body only to judge it, the output discarded: what a strict `--decode`
/// says about a body nobody prints (a batch line's). The printer's decoders with the printer's
/// rules, so a body a one-shot request rejects with exit 8 is rejected here too.
package final class BodyDecodingCheck {
    private let writer: BodyWriter
    private var scratch: [UInt8] = []

    /// - Parameters:
    ///   - head: the response, for its media type and charset.
    ///   - decoding: `--decode` and its companions; only a strict choice judges anything.
    ///   - contentTypeAccepted: false when `--accept-type` rejected the type (then nothing is
    ///     decoded, as in the printer).
    package init(head: HTTPResponseHead, decoding: DecodingOptions, contentTypeAccepted: Bool) {
        writer = BodyWriter(enabled: false, mediaType: head.mediaType, charset: head.charset, format: false,
                            theme: nil, terminal: false, decoding: decoding, decode: contentTypeAccepted)
    }

    /// Decodes one more chunk of the body.
    package func feed(_ chunk: UnsafeRawBufferPointer) {
        writer.write(chunk, into: &scratch)
        scratch.removeAll(keepingCapacity: true)
    }

    /// Ends the body.
    /// - Returns: why the strict decoder could not decode it; nil when it could, or when the
    ///   choice is not strict.
    package func finish() -> String? {
        writer.endOfBody()
        while writer.drain(into: &scratch, upTo: 256 << 10) { scratch.removeAll(keepingCapacity: true) }
        writer.finish(into: &scratch)
        scratch = []
        return writer.decodingFailure
    }
}
