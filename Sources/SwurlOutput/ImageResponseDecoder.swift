import SwurlResponseSerialization
import SwurlCore
/// Shows an image as one line — format, pixel size, bit depth and colour type, frame count,
/// byte size — instead of its bytes. Only the first 64 MB are kept for counting frames.
final class ImageResponseDecoder: ResponseDecoding {
    static let keep = 64 << 20
    private var head: [UInt8] = []
    private var total = 0

    init(context: DecodingContext) {}

    package func decode(_ chunk: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        total += chunk.count
        if head.count < ImageResponseDecoder.keep {
            head.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk.prefix(ImageResponseDecoder.keep - head.count)))
        }
    }

    func finish(into out: inout [UInt8]) -> DecodingOutcome {
        if isBlank(head) { return .decoded }
        let size = ImageResponseDecoder.byteText(total)
        guard let info = ImageInfo.read(head) else {
            return .failed("the body is not a PNG, JPEG, GIF, WebP, BMP or ICO image; \(size) not shown; use -o FILE or a pipe to save it")
        }
        return .note("\(info.summary), \(size); use -o FILE or a pipe to save it")
    }

    /// `1 234 567 bytes`.
    static func byteText(_ n: Int) -> String {
        var digits = Array(String(n))
        var i = digits.count - 3
        while i > 0 { digits.insert(" ", at: i); i -= 3 }
        return String(digits) + (n == 1 ? " byte" : " bytes")   // `counted`, with the digits grouped
    }
}
