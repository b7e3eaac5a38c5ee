import SwurlCore
/// Chooses the file name for `--download`: Content-Disposition (RFC 6266, with RFC 5987
/// `filename*`), else the first URL's last path segment plus an extension for its Content-Type.
/// Never the name of a redirect target (CVE-2019-10751), and always a plain base name.
package enum DownloadName {
    /// The name a response should be saved under (before `-1`, `-2` suffixes).
    /// - Parameters:
    ///   - contentDisposition: the response's Content-Disposition, if any.
    ///   - initialURL: the URL the user typed (not where redirects led).
    ///   - mediaType: the response's media type, for an extension.
    package static func choose(contentDisposition: String?, initialURL: String, mediaType: String?) -> String {
        if let cd = contentDisposition, let raw = filename(fromContentDisposition: cd), let name = sanitize(raw) {
            return name
        }
        var name = fromURL(initialURL) ?? "index"
        if !name.contains("."), let mediaType, let ext = fileExtension(forMediaType: mediaType) {
            name += "." + ext
        }
        // The rule holds for the final name, whatever step came last.
        return sanitize(name) ?? "index"
    }

    /// The sanitized last path segment of `url`, percent-decoded; nil when there is none.
    package static func fromURL(_ url: String) -> String? {
        var rest = Substring(url)
        if let r = rest.rangeOfText("://") { rest = rest[r.upperBound...] }
        rest = rest.prefix { $0 != "?" && $0 != "#" }
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        let path = rest[slash...]
        guard let last = path.split(separator: "/").last else { return nil }
        return sanitize(percentDecode(String(last), latin1: false))
    }

    /// The file name a Content-Disposition value carries: `filename*` (RFC 5987, UTF-8 or
    /// ISO-8859-1) wins over `filename`. Nil when neither is present.
    package static func filename(fromContentDisposition value: String) -> String? {
        var plain: String?
        var extended: String?
        for param in HeaderParameters.split(value).dropFirst() {
            guard let eq = param.firstIndex(of: "=") else { continue }
            let key = String(param[..<eq]).trimmingSpaces().lowercased()
            let raw = String(param[param.index(after: eq)...]).trimmingSpaces()
            if key == "filename*" {
                // charset'language'percent-encoded
                let pieces = raw.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
                guard pieces.count == 3 else { continue }
                let charset = pieces[0].lowercased()
                guard charset == "utf-8" || charset == "iso-8859-1" else { continue }
                extended = percentDecode(String(pieces[2]), latin1: charset == "iso-8859-1")
            } else if key == "filename" {
                plain = HeaderParameters.unquote(raw)
            }
        }
        return extended ?? plain
    }

    /// A safe base name: the part after the last `/` or `\`, without control characters or
    /// bidirectional controls (which can disguise an extension: `a\u{202E}gpj.exe`), surrounding
    /// white space or leading dots (no hidden files), at most 200 bytes (a long name loses the end
    /// of its stem, keeping its extension). Nil when nothing usable
    /// is left (`..`, `.`, `. ..`, empty).
    ///
    /// The rule "no hidden file, never `.` or `..`" is checked on the result: trimming and dot
    /// stripping repeat until neither changes anything (`. .bashrc` would otherwise become
    /// `.bashrc`), and again after truncation.
    package static func sanitize(_ raw: String) -> String? {
        // By scalars, not Characters: a `/` followed by a combining mark is one Character that
        // compares unequal to "/", yet its first byte is still a path separator.
        let scalars = raw.unicodeScalars
        let base = scalars.lastIndex { $0 == "/" || $0 == "\\" }
            .map { String(String.UnicodeScalarView(scalars[scalars.index(after: $0)...])) } ?? raw
        // Characters drawn as a slash or backslash make a name look like a path: `_`.
        var name = String(visible(base.unicodeScalars.lazy.map { DownloadName.slashLookAlikes.contains($0.value) ? "_" : $0 }))
        name = withoutHiddenPrefix(name)
        if name.utf8.count > 200 {
            // The stem is cut, not the extension (`report….pdf` stays a .pdf), when the
            // extension is short (up to 16 bytes, no blank) and something of the stem is left.
            var ext = ""
            if let dot = name.lastIndex(of: "."), dot != name.startIndex {
                let tail = String(name[dot...])
                if tail.utf8.count <= 16, !tail.contains(" ") { ext = tail; name = String(name[..<dot]) }
            }
            while name.utf8.count + ext.utf8.count > 200 { name.removeLast() }
            name = withoutHiddenPrefix(name + ext)
        }
        return name.isEmpty ? nil : name
    }

    /// Fraction and division slashes, the big, fullwidth, small and box-drawing solidus and
    /// reverse solidus, set minus, the mathematical rising and falling diagonals, Philippine
    /// and Kangxi strokes, the vertical kana repeat mark, and the combining solidus overlays.
    static let slashLookAlikes: Set<UInt32> = [0x0337, 0x0338, 0x1735, 0x2044, 0x2215, 0x2216, 0x2571, 0x2572, 0x27CB, 0x27CD,
                                               0x29F5, 0x29F8, 0x29F9, 0x2F03, 0x3033, 0xFE68, 0xFF0F, 0xFF3C]

    /// Control characters (C0, DEL, C1), the line and paragraph separators, the bidirectional controls, and the other characters
    /// Unicode says may show as nothing (Default_Ignorable_Code_Point: U+00AD, U+034F, U+200B,
    /// U+2060–U+206F, U+FEFF, the Hangul fillers…), which make two names look alike. Not the
    /// joiners U+200C and U+200D (words in Persian, emoji sequences), the variation selectors
    /// (emoji presentation, CJK variants) or the Mongolian ones, which text needs (`visible`
    /// drops those where they only hide). Tag characters are dropped unless they spell a flag (`visible`).
    static func isInvisible(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0..<0x20, 0x7F...0x9F, 0x2028, 0x2029, 0xFFF9...0xFFFB: return true   // and the annotation controls
        default: return s.showsAsNothing
        }
    }

    /// `scalars` without `isInvisible` ones; the joiners and selectors only after a character
    /// that is not ASCII (alone, first, or after `.` or a Latin letter they change nothing a
    /// name needs and hide in it); and tag characters only as a flag's: after the black flag
    /// U+1F3F4, one to eight tag letters and digits (`a`–`z`, `0`–`9`) ended by the cancel tag
    /// U+E007F (🏴 and its tags spell a subdivision's flag, `gbsct`).
    static func visible(_ scalars: some Sequence<Unicode.Scalar>) -> String.UnicodeScalarView {
        var out = String.UnicodeScalarView()
        var flagTags: [Unicode.Scalar]?   // the tags after a black flag so far; nil outside one
        var last: Unicode.Scalar?
        for s in scalars {
            if (0xE0000...0xE007F).contains(s.value) {
                let letterOrDigit = (0xE0061...0xE007A).contains(s.value) || (0xE0030...0xE0039).contains(s.value)
                if var tags = flagTags, s.value == 0xE007F, !tags.isEmpty {
                    tags.append(s)
                    out.append(contentsOf: tags)
                    last = s
                } else if var tags = flagTags, letterOrDigit, tags.count < 8 {
                    tags.append(s)
                    flagTags = tags
                    continue
                }
                flagTags = nil
                continue
            }
            flagTags = s.value == 0x1F3F4 ? [] : nil
            if isInvisible(s) || s.showsAsNothing(after: last) { continue }
            out.append(s)
            last = s
        }
        return out
    }

    /// `name` with white space trimmed from both ends and dots from the front, repeated until
    /// stable: the result neither starts with a dot nor is `.` or `..`.
    static func withoutHiddenPrefix(_ name: String) -> String {
        // By scalars: "." followed by a combining mark is one Character, but the file name would
        // still start with a dot.
        var s = Substring(name).unicodeScalars
        while true {
            let before = s.count
            while let f = s.first, f == "." || f.properties.isWhitespace { s = s.dropFirst() }
            while let l = s.last, l.properties.isWhitespace { s = s.dropLast() }
            if s.count == before { return String(s) }
        }
    }

    /// A file extension for a media type (`json` for application/json), nil for unknown or
    /// generic binary types.
    package static func fileExtension(forMediaType mediaType: String) -> String? {
        let type = mediaType.split(separator: ";").first.map { String($0).trimmingSpaces().lowercased() } ?? ""
        let preferred: [String: String] = [
            "application/json": "json", "text/html": "html", "text/plain": "txt", "image/jpeg": "jpg",
            "application/xml": "xml", "text/xml": "xml", "image/svg+xml": "svg", "application/gzip": "gz",
            "text/javascript": "js", "application/javascript": "js", "image/tiff": "tif", "video/mp4": "mp4",
            "audio/mpeg": "mp3", "application/x-plist": "plist", "application/yaml": "yaml",
        ]
        if let ext = preferred[type] { return ext }
        if type == MIMETypes.fallback || type.isEmpty { return nil }
        return MIMETypes.table.filter { $0.value == type }.keys.sorted().first
    }

    /// `name`, or `name-1`, `name-2`… — the first for which `exists` says no (for the file and
    /// its `.part`).
    package static func unique(_ path: String, exists: (String) -> Bool) -> String {
        if !exists(path) && !exists(path + ".part") { return path }
        var n = 1
        while exists("\(path)-\(n)") || exists("\(path)-\(n).part") { n += 1 }
        return "\(path)-\(n)"
    }

    static func percentDecode(_ s: String, latin1: Bool) -> String {
        let bytes = URLText.percentDecodedBytes(s)
        if latin1 { return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) })) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
