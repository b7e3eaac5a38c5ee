import SwurlResponseSerialization
import SwurlCore

/// Gathers what `ResponseVerdict` needs of a response that no printer shows (a download's, a
/// batch line's): the final head, the body's size, and a strict `--decode`'s outcome (the
/// printer's decoders, output discarded). A new final head (a retry) starts over.
package final class ResponseJudge {
    package let validator: ResponseValidator
    package let decoding: DecodingOptions
    /// The final response's head, once one arrived.
    package private(set) var head: HTTPResponseHead?
    /// Body bytes of the final response so far.
    package private(set) var bytes: Int64 = 0
    private var check: BodyDecodingCheck?

    package init(validator: ResponseValidator, decoding: DecodingOptions) {
        self.validator = validator
        self.decoding = decoding
    }

    /// A response head: informational ones are skipped; a final one resets the body's facts.
    package func received(head: HTTPResponseHead) {
        // An interim head (a 103) is no final head: a line whose final head then failed was
        // reported with the 103's status.
        guard head.status >= 200 || head.status == 101 else { return }
        self.head = head
        guard head.status >= 200 else { return }
        bytes = 0
        check = decoding.isStrict
            ? BodyDecodingCheck(head: head, decoding: decoding, contentTypeAccepted: validator.acceptsContentType(head.mediaType))
            : nil
    }

    /// A chunk of the final response's body.
    package func received(body chunk: UnsafeRawBufferPointer) {
        bytes += Int64(chunk.count)
        check?.feed(chunk)
    }

    /// Whether the body's bytes are needed (a strict `--decode` checks them), not only its size.
    package var needsBodyBytes: Bool { check != nil }

    /// `count` bytes of the final response's body that the judge did not need to see.
    package func received(bodyCount count: Int64) {
        bytes += count
    }

    /// The verdict on the response (nil when no head arrived); ends the decoding check.
    package func verdict() -> ResponseVerdict? {
        guard let head else { return nil }
        let failure = check?.finish()
        check = nil
        return ResponseVerdict(status: head.status, reason: head.reason, mediaType: head.mediaType, bodyBytes: bytes,
                               decodingFailure: failure, validator: validator, decoding: decoding)
    }
}
