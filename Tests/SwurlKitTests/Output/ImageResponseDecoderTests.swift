import XCTest
import Foundation
import SwurlTestSupport
@testable import SwurlOutput
@testable import SwurlResponseSerialization
@testable import SwurlCore

final class ImageResponseDecoderTests: XCTestCase {
    /// Images built byte by byte in Python (no imaging library needed).
    private func images() throws -> [String: [UInt8]] {
        let out = try runPython(#"""
        import struct, zlib, base64, json
        def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
        png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 640, 480, 8, 6, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(b"\0" * 8)) + chunk(b"IEND", b"")
        apng = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0)) + chunk(b"acTL", struct.pack(">II", 3, 0)) + chunk(b"IEND", b"")
        jpeg = b"\xff\xd8\xff\xe0" + struct.pack(">H", 16) + b"JFIF\0" + b"\1\1\0\0\1\0\1\0\0" + b"\xff\xc0" + struct.pack(">HBHHB", 17, 8, 300, 200, 3) + b"\1\x22\0\2\x11\1\3\x11\1" + b"\xff\xd9"
        frame = b"\x2c" + struct.pack("<HHHHB", 0, 0, 2, 2, 0) + b"\x02\x02\x4c\x01\x00"
        gif = b"GIF89a" + struct.pack("<HHBBB", 2, 2, 0xf0, 0, 0) + b"\0\0\0\xff\xff\xff" + b"\x21\xf9\x04\0\0\0\0\0" + frame + b"\x21\xf9\x04\0\0\0\0\0" + frame + b"\x3b"
        vp8l = b"\x2f" + struct.pack("<I", (99) | (49 << 14) | (1 << 28)) + b"\0" * 8
        webp = b"RIFF" + struct.pack("<I", 4 + 8 + len(vp8l)) + b"WEBP" + b"VP8L" + struct.pack("<I", len(vp8l)) + vp8l
        bmp = b"BM" + struct.pack("<IHHI", 70, 0, 0, 54) + struct.pack("<IiiHHIIiiII", 40, 3, -2, 1, 24, 0, 16, 0, 0, 0, 0) + b"\0" * 16
        ico = struct.pack("<HHH", 0, 1, 2) + struct.pack("<BBBBHHII", 16, 16, 0, 0, 1, 32, 10, 38) + struct.pack("<BBBBHHII", 0, 0, 0, 0, 1, 32, 10, 48) + b"\0" * 20
        print(json.dumps({k: base64.b64encode(v).decode() for k, v in dict(png=png, apng=apng, jpeg=jpeg, gif=gif, webp=webp, bmp=bmp, ico=ico).items()}))
        """#)
        let obj = try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: String] ?? [:]
        return obj.mapValues { [UInt8](Data(base64Encoded: $0) ?? Data()) }
    }

    func testEachFormatIsSummarised() throws {
        let imgs = try images()
        let expected = [
            "png": "PNG image, 640×480, 8-bit RGBA, 1 frame",
            "apng": "PNG image, 4×4, 8-bit RGB, 3 frames",
            "jpeg": "JPEG image, 200×300, 8-bit YCbCr, 1 frame",
            "gif": "GIF image, 2×2, 8-bit indexed, 2 frames",
            "webp": "WebP image, 100×50, 8-bit lossless RGBA, 1 frame",
            "bmp": "BMP image, 3×2, 24-bit RGB, 1 frame",
            "ico": "ICO image, 256×256, 32-bit, 2 images, sizes 16×16, 256×256",
        ]
        for (name, summary) in expected {
            let bytes = try XCTUnwrap(imgs[name])
            XCTAssertEqual(ImageInfo.read(bytes)?.summary, summary, name)
            let r = runDecoder(bytes, mediaType: name == "ico" ? "image/x-icon" : nil)
            XCTAssertEqual(r.text, "", name)
            XCTAssertEqual(r.outcome.noteText, "\(summary), \(ImageResponseDecoder.byteText(bytes.count)); use -o FILE or a pipe to save it", name)
        }
    }

    func testNotAnImageAndTruncatedImagesNeverCrash() throws {
        XCTAssertTrue(runDecoder("hello", choice: .image).outcome.isFailure)
        XCTAssertEqual(runDecoder("", choice: .image).outcome, .decoded)
        for (_, bytes) in try images() {
            for cut in 0..<bytes.count { _ = runDecoder(Array(bytes.prefix(cut)), choice: .image) }
        }
    }

    func testPipedImagesStayBytes() throws {
        let png = try XCTUnwrap(try images()["png"])
        XCTAssertEqual(runDecoder(png, mediaType: "image/png", terminal: false).bytes, png)
    }
}
