/// What an image's header says: format, pixel size, bit depth, colour type and frame count —
/// read from untrusted bytes with every offset checked (PNG, JPEG, GIF, WebP, BMP, ICO).
package struct ImageInfo: Equatable {
    package var format: String
    var width: Int
    var height: Int
    /// Bits per sample or per pixel, as the format states it; nil when unknown.
    var bitDepth: Int?
    /// `RGBA`, `greyscale`, `indexed`, `YCbCr`…; nil when unknown.
    var colorType: String?
    /// Frames of an animation, images in an icon; nil when only a partial body was read.
    var frames: Int?
    /// Further sizes (icons hold several).
    var extra: String?

    /// The format named by the first bytes, or nil.
    package static func sniff(_ b: some Collection<UInt8>) -> String? {
        let h = Array(b.prefix(16))
        if h.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "PNG" }
        if h.starts(with: [0xFF, 0xD8, 0xFF]) { return "JPEG" }
        if h.starts(with: Array("GIF87a".utf8)) || h.starts(with: Array("GIF89a".utf8)) { return "GIF" }
        if h.count >= 12, h.starts(with: Array("RIFF".utf8)), Array(h[8..<12]) == Array("WEBP".utf8) { return "WebP" }
        if h.starts(with: Array("BM".utf8)), h.count >= 15, h[6] == 0, h[7] == 0, h[8] == 0, h[9] == 0 { return "BMP" }
        if h.starts(with: [0, 0, 1, 0]), h.count >= 6, h[4] | h[5] != 0 { return "ICO" }
        return nil
    }

    /// Reads the header of a complete (or partial) image; nil when it is not one of the formats.
    package static func read(_ b: [UInt8]) -> ImageInfo? {
        switch sniff(b) {
        case "PNG": return png(b)
        case "JPEG": return jpeg(b)
        case "GIF": return gif(b)
        case "WebP": return webp(b)
        case "BMP": return bmp(b)
        case "ICO": return ico(b)
        default: return nil
        }
    }

    private static func be(_ b: [UInt8], _ at: Int, _ n: Int) -> Int? {
        guard at >= 0, n > 0, at + n <= b.count else { return nil }
        var v = 0
        for k in 0..<n { v = v << 8 | Int(b[at + k]) }
        return v
    }

    private static func le(_ b: [UInt8], _ at: Int, _ n: Int) -> Int? {
        guard at >= 0, n > 0, at + n <= b.count else { return nil }
        var v = 0
        for k in (0..<n).reversed() { v = v << 8 | Int(b[at + k]) }
        return v
    }

    private static func tag(_ b: [UInt8], _ at: Int) -> String? {
        guard at >= 0, at + 4 <= b.count else { return nil }
        return String(decoding: b[at..<at + 4], as: UTF8.self)
    }

    static func png(_ b: [UInt8]) -> ImageInfo? {
        guard tag(b, 12) == "IHDR", let w = be(b, 16, 4), let h = be(b, 20, 4), let depth = be(b, 24, 1),
              let type = be(b, 25, 1) else { return nil }
        let types = [0: "greyscale", 2: "RGB", 3: "indexed", 4: "greyscale+alpha", 6: "RGBA"]
        var frames: Int? = 1
        var at = 8
        var sawEnd = false
        while let length = be(b, at, 4), let name = tag(b, at + 4) {
            if name == "acTL", let n = be(b, at + 8, 4) { frames = n }
            if name == "IEND" { sawEnd = true; break }
            at += 12 + length
        }
        if !sawEnd && frames == 1 && at < b.count { frames = nil }
        return ImageInfo(format: "PNG", width: w, height: h, bitDepth: depth, colorType: types[type] ?? "type \(type)", frames: frames)
    }

    static func jpeg(_ b: [UInt8]) -> ImageInfo? {
        var at = 2
        while at + 4 <= b.count {
            guard b[at] == 0xFF else { return nil }
            let marker = b[at + 1]
            if marker == 0xFF { at += 1; continue }
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { at += 2; continue }
            guard let length = be(b, at + 2, 2), length >= 2 else { return nil }
            if (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC {
                guard let precision = be(b, at + 4, 1), let h = be(b, at + 5, 2), let w = be(b, at + 7, 2),
                      let comps = be(b, at + 9, 1) else { return nil }
                let types = [1: "greyscale", 3: "YCbCr", 4: "CMYK"]
                var type = types[comps] ?? "\(comps) components"
                if marker == 0xC2 { type += ", progressive" }
                return ImageInfo(format: "JPEG", width: w, height: h, bitDepth: precision, colorType: type, frames: 1)
            }
            if marker == 0xDA || marker == 0xD9 { return nil }
            at += 2 + length
        }
        return nil
    }

    static func gif(_ b: [UInt8]) -> ImageInfo? {
        guard let w = le(b, 6, 2), let h = le(b, 8, 2), let packed = be(b, 10, 1) else { return nil }
        let depth = (packed >> 4 & 7) + 1
        var at = 13
        if packed & 0x80 != 0 { at += 3 << ((packed & 7) + 1) }
        var frames = 0
        var complete = false
        func skipSubBlocks(_ start: Int) -> Int? {
            var p = start
            while let size = be(b, p, 1) {
                p += 1
                if size == 0 { return p }
                p += size
            }
            return nil
        }
        scan: while let block = be(b, at, 1) {
            switch block {
            case 0x21:
                guard let next = skipSubBlocks(at + 2) else { break scan }
                at = next
            case 0x2C:
                guard let local = be(b, at + 9, 1) else { break scan }
                frames += 1
                var p = at + 10
                if local & 0x80 != 0 { p += 3 << ((local & 7) + 1) }
                guard let next = skipSubBlocks(p + 1) else { break scan }
                at = next
            case 0x3B:
                complete = true
                break scan
            default:
                break scan
            }
        }
        return ImageInfo(format: "GIF", width: w, height: h, bitDepth: depth, colorType: "indexed",
                         frames: complete || frames > 0 ? max(frames, 1) : nil)
    }

    static func webp(_ b: [UInt8]) -> ImageInfo? {
        switch tag(b, 12) {
        case "VP8 ":
            guard be(b, 23, 3) == 0x9D012A, let w = le(b, 26, 2), let h = le(b, 28, 2) else { return nil }
            return ImageInfo(format: "WebP", width: w & 0x3FFF, height: h & 0x3FFF, bitDepth: 8, colorType: "lossy YUV", frames: 1)
        case "VP8L":
            guard be(b, 20, 1) == 0x2F, let bits = le(b, 21, 4) else { return nil }
            let alpha = bits >> 28 & 1 == 1
            return ImageInfo(format: "WebP", width: (bits & 0x3FFF) + 1, height: (bits >> 14 & 0x3FFF) + 1, bitDepth: 8,
                             colorType: alpha ? "lossless RGBA" : "lossless RGB", frames: 1)
        case "VP8X":
            guard let flags = be(b, 20, 1), let w = le(b, 24, 3), let h = le(b, 27, 3) else { return nil }
            var frames = 0
            var at = 12
            while let name = tag(b, at), let size = le(b, at + 4, 4) {
                if name == "ANMF" { frames += 1 }
                at += 8 + size + (size & 1)
            }
            let alpha = flags & 0x10 != 0
            return ImageInfo(format: "WebP", width: w + 1, height: h + 1, bitDepth: 8, colorType: alpha ? "RGBA" : "RGB",
                             frames: flags & 0x02 != 0 ? frames : 1)
        default:
            return nil
        }
    }

    static func bmp(_ b: [UInt8]) -> ImageInfo? {
        guard let header = le(b, 14, 4) else { return nil }
        if header == 12 {
            guard let w = le(b, 18, 2), let h = le(b, 20, 2), let bpp = le(b, 24, 2) else { return nil }
            return ImageInfo(format: "BMP", width: w, height: h, bitDepth: bpp, colorType: bpp <= 8 ? "indexed" : "RGB", frames: 1)
        }
        guard header >= 40, let w = le(b, 18, 4), let hRaw = le(b, 22, 4), let bpp = le(b, 28, 2) else { return nil }
        let h = Int(Int32(truncatingIfNeeded: hRaw))
        let width = Int(Int32(truncatingIfNeeded: w))
        return ImageInfo(format: "BMP", width: abs(width), height: abs(h), bitDepth: bpp,
                         colorType: bpp <= 8 ? "indexed" : bpp == 32 ? "RGBA" : "RGB", frames: 1)
    }

    static func ico(_ b: [UInt8]) -> ImageInfo? {
        guard let count = le(b, 4, 2), count > 0 else { return nil }
        var sizes: [String] = []
        var best = (0, 0, 0)
        for k in 0..<min(count, 64) {
            let at = 6 + 16 * k
            guard let w0 = be(b, at, 1), let h0 = be(b, at + 1, 1), let bpp = le(b, at + 6, 2) else { break }
            let w = w0 == 0 ? 256 : w0, h = h0 == 0 ? 256 : h0
            sizes.append("\(w)×\(h)")
            if w * h > best.0 * best.1 { best = (w, h, bpp) }
        }
        guard !sizes.isEmpty else { return nil }
        return ImageInfo(format: "ICO", width: best.0, height: best.1, bitDepth: best.2 > 0 ? best.2 : nil, colorType: nil,
                         frames: count, extra: count > 1 ? "sizes " + sizes.joined(separator: ", ") + (count > 64 ? ", …" : "") : nil)
    }

    /// `PNG image, 640×480, 8-bit RGBA, 1 frame`.
    package var summary: String {
        var parts = ["\(format) image", "\(width)×\(height)"]
        switch (bitDepth, colorType) {
        case (let d?, let t?): parts.append("\(d)-bit \(t)")
        case (let d?, nil): parts.append("\(d)-bit")
        case (nil, let t?): parts.append(t)
        default: break
        }
        if let frames {
            let noun = format == "ICO" ? (frames == 1 ? "image" : "images") : (frames == 1 ? "frame" : "frames")
            parts.append("\(frames) \(noun)")
        }
        if let extra { parts.append(extra) }
        return parts.joined(separator: ", ")
    }
}
