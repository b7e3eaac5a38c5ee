/// Text-level URL helpers that need no URL parser: the scheme of a string and the joining of
/// an escaped query.
package enum URLText {
    /// Schemes swurl sends requests to.
    package static let httpSchemes: Set<String> = ["http", "https"]

    /// Whether `text` starts with a scheme and `:`, with or without `//` (`data:,x`, `mailto:a`).
    package static func hasSchemePrefix(_ text: String) -> Bool {
        let u = Array(text.utf8)
        var i = 0
        while i < u.count, isSchemeByte(u[i], first: i == 0) { i += 1 }
        return i > 0 && i < u.count && u[i] == UInt8(ascii: ":")
    }

    /// The scheme of `text` when it starts with `scheme://`.
    package static func schemeOf(_ text: String) -> String? {
        // The common case by bytes: ASCII scheme characters, then `://` and an ASCII byte (or
        // the end), so no Character there can combine with what follows; anything else is
        // searched for by Character below.
        let u = text.utf8
        var i = u.startIndex
        while i != u.endIndex, isSchemeByte(u[i], first: i == u.startIndex) { i = u.index(after: i) }
        if i != u.startIndex {
            var j = i
            var separator = true
            for b in "://".utf8 {
                guard j != u.endIndex, u[j] == b else { separator = false; break }
                j = u.index(after: j)
            }
            if separator && (j == u.endIndex || u[j] < 0x80) { return String(text[..<i]) }
        }
        guard let colon = characterSeparator(in: text) else { return nil }
        let scheme = text[..<colon]
        guard let first = scheme.first, first.isLetter, first.isASCII,
              scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+.-".contains($0)) }) else { return nil }
        return String(scheme)
    }

    /// Whether `text` is a port (digits) and nothing else or then a path, query or fragment
    /// (`8080`, `8080/x`, `8080?q`): what follows `host:` in `http:8080/x`.
    package static func isPortThenPath(_ text: Substring) -> Bool {
        let digits = text.prefix { $0.isASCII && $0.isNumber }
        let rest = text.dropFirst(digits.count)
        return !digits.isEmpty && (rest.isEmpty || rest.first == "/" || rest.first == "?" || rest.first == "#")
    }

    /// Whether `text` is `HOST:PORT` with an optional path, query or fragment after the port
    /// (`localhost:8080/x`, `api.example.org:443`, `[::1]:8080`): a URL without its scheme, as the
    /// one-shot command takes it. HOST is `localhost`, a name or address with a dot (an
    /// internationalized one too, `bücher.example:8080`: a header name is ASCII), or a
    /// bracketed IPv6 address, so a header item such as `X-Count:5` is never one.
    package static func isHostPort(_ text: String) -> Bool {
        let u = Array(text.utf8)
        let end = u.firstIndex { "/?#".utf8.contains($0) } ?? u.count
        guard let colon = u[..<end].lastIndex(of: UInt8(ascii: ":")) else { return false }
        let host = u[..<colon]
        let isName = host.allSatisfy { b in
            (b | 0x20 >= UInt8(ascii: "a") && b | 0x20 <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9"))
                || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") || b >= 0x80
        }
        let named = isName && (host.contains(UInt8(ascii: ".")) || String(decoding: host, as: UTF8.self).lowercased() == "localhost")
            && host.first != UInt8(ascii: ".") && host.first != UInt8(ascii: "-")
        let bracketed = host.first == UInt8(ascii: "[") && host.last == UInt8(ascii: "]") && host.count > 2
        guard named || bracketed else { return false }
        let port = u[(colon + 1)...].prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        let after = colon + 1 + port.count
        return (1...5).contains(port.count) && (after == u.count || "/?#".utf8.contains(u[after]))
    }

    /// `isHostPort` after an optional `user[:password]@` (`ann:pw@localhost:8080/x`), the form
    /// curl and the one-shot request take as a URL with credentials.
    package static func isHostPortWithUserinfo(_ text: String) -> Bool {
        if isHostPort(text) { return true }
        let u = Array(text.utf8)
        let end = u.firstIndex { "/?#".utf8.contains($0) } ?? u.count
        guard let at = u[..<end].lastIndex(of: UInt8(ascii: "@")), at > 0 else { return false }
        return isHostPort(String(decoding: u[(at + 1)...], as: UTF8.self))
    }

    /// Where `://` starts as three Characters (a combining mark on the second `/` makes it another
    /// Character, so no separator there).
    private static func characterSeparator(in text: String) -> String.Index? {
        var i = text.startIndex
        while i != text.endIndex {
            let next = text.index(after: i)
            if text[i] == ":", next != text.endIndex, text[next] == "/" {
                let last = text.index(after: next)
                if last != text.endIndex, text[last] == "/" { return i }
            }
            i = next
        }
        return nil
    }

    private static func isSchemeByte(_ b: UInt8, first: Bool) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): return true
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "."), UInt8(ascii: "-"): return !first
        default: return false
        }
    }

    /// Joins `query` (already escaped) to the URL's query string with `&`, before any fragment.
    /// `url` with every byte a URL cannot hold literally — space, controls, non-ASCII (UTF-8 or
    /// bytes from argv that are not UTF-8, see `ArgumentBytes`), `"<>\\^`{|}` — percent-encoded
    /// in the path, query and fragment, as HTTPie does. The scheme and authority are left alone
    /// (a non-ASCII host name is IDN, not percent-encoding); `%` is kept, so encoded input stays.
    package static func percentEncodingUnsafeBytes(_ url: String) -> String {
        let bytes = ArgumentBytes.bytes(url)
        var start = 0
        // The scheme's `://`, if any, is at the first slash.
        if let slash = bytes.firstIndex(of: UInt8(ascii: "/")), slash > 0, bytes[slash - 1] == UInt8(ascii: ":"),
           slash + 1 < bytes.count, bytes[slash + 1] == UInt8(ascii: "/") {
            start = slash + 2
        }
        let rest = bytes[start...]
        guard let pathStart = rest.firstIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") })
        else { return url }
        guard bytes[pathStart...].contains(where: isUnsafe) else { return url }
        let hex = Array("0123456789ABCDEF".utf8)
        var out = Array(bytes[..<pathStart])
        for b in bytes[pathStart...] {
            if isUnsafe(b) {
                out += [UInt8(ascii: "%"), hex[Int(b >> 4)], hex[Int(b & 0xF)]]
            } else {
                out.append(b)
            }
        }
        return ArgumentBytes.decode(out)
    }

    /// Space, controls, non-ASCII and `"<>\\^`{|}`: bytes a URL's path cannot hold literally.
    private static func isUnsafe(_ b: UInt8) -> Bool {
        switch b {
        case 0...0x20, 0x7F...0xFF: return true
        case UInt8(ascii: "\""), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\\"), UInt8(ascii: "^"),
             UInt8(ascii: "`"), UInt8(ascii: "{"), UInt8(ascii: "|"), UInt8(ascii: "}"): return true
        default: return false
        }
    }

    /// `url` without its `user:password@` (an absolute URL as libcurl writes it back, whose
    /// user info holds no `/`, `?`, `#` or `@` unencoded); as it is when it has none.
    package static func withoutUserInfo(_ url: String) -> String {
        guard url.containsByte(UInt8(ascii: "@")), let r = Redactor.userinfoRange(url) else { return url }
        return String(url[..<r.lowerBound]) + String(url[url.index(after: r.upperBound)...])
    }

    package static func appendingQuery(_ query: String, to url: String) -> String {
        guard !query.isEmpty else { return url }
        var base = Substring(url)
        var fragment: Substring = ""
        if let hash = base.firstIndex(of: "#") {
            fragment = base[hash...]
            base = base[..<hash]
        }
        let joiner: String
        if let question = base.firstIndex(of: "?") {
            // Nothing to join to after an empty query (`p?`) or a trailing `&`; a value that
            // ends in `?` (`next=/home?`) is one to join to.
            joiner = base.index(after: question) == base.endIndex || base.hasSuffix("&") ? "" : "&"
        } else {
            joiner = "?"
        }
        return base + joiner + query + fragment
    }

    /// The bytes of `s` with every `%XX` replaced by the byte it names (other bytes as they are).
    package static func percentDecodedBytes(_ s: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var rest = Array(s.utf8)[...]
        while let b = rest.popFirst() {
            if b == UInt8(ascii: "%"), rest.count >= 2,
               let v = UInt8(String(decoding: rest.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(v)
                rest = rest.dropFirst(2)
            } else {
                bytes.append(b)
            }
        }
        return bytes
    }
}
