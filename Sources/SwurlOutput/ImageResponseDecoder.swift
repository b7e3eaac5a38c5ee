import SwurlResponseSerialization
import SwurlCore
/// Shows an image as one line — format, pixel size, bit depth and colour type, frame count,
/// byte size — instead of its bytes. The start of the body is kept: up to 64 MiB on a terminal,
/// for counting frames, 4 MiB elsewhere (a pipe, `-o`, `-d`), where only the type is checked;
/// both shrink under a memory limit (`ulimit -v`/`-d`: a 100 MB image crashed swurl there).
final class ImageResponseDecoder: ResponseDecoding {
    /// How much of the body is kept: a quarter of a memory limit at most, counting the array's
    /// doubling as it grows (two bytes a byte).
    static func keep(terminal: Bool) -> Int { MemoryLimit.bound(terminal ? 64 << 20 : 4 << 20, perUnit: 2) }
    private let keep: Int
    private var head: [UInt8] = []
    private var total = 0

    init(context: DecodingContext) { keep = ImageResponseDecoder.keep(terminal: context.terminal) }

    package func decode(_ chunk: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        total += chunk.count
        if head.count < keep {
            head.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk.prefix(keep - head.count)))
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
