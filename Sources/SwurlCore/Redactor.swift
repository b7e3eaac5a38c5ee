/// The one place that hides secrets in what swurl shows back: URLs and options in error
/// messages, the REPL's `env`, batch results and the REPL history filter. `--offline` shows the
/// exact request bytes and does not use it.
package enum Redactor {
    /// What stands in for a hidden secret.
    package static let mask = "****"

    /// A request item (or a word that reads as one) as messages show it: the value of an
    /// Authorization, Proxy-Authorization or Cookie item masked (`Authorization:****`), whatever
    /// follows the name (`:`, `;`, `:@`, `\:`, a blank), but not a longer name (`cookies=1`).
    package static func item(_ text: String) -> String {
        // Most items start with none of the names' letters: nothing to compare for them.
        guard let first = text.utf8.first, "aAcCpP".utf8.contains(first) else { return text }
        let scalars = text.unicodeScalars
        for name in credentialHeaders {
            let head = String(String.UnicodeScalarView(scalars.prefix(name.count)))
            guard head.lowercased() == name, let next = scalars.dropFirst(name.count).first else { continue }
            if next.properties.isAlphabetic || next.properties.numericType != nil || next == "-" || next == "_" { continue }
            // Nothing after the separator (`Cookie;`, an empty header): no value to mask.
            if scalars.count == name.count + 1 { return text }
            return head + String(next) + mask
        }
        return text
    }

    /// `text` masked when it reads as a credential item rather than a URL: the header name, then
    /// `:`, `;`, `=`, `@`, a blank or a backslash, and not `name:PORT` (`cookie:8080/x` is a
    /// host called cookie). Nil for anything else (`authorization.example.com`).
    static func itemTakenForURL(_ text: String) -> String? {
        let shown = item(text)
        guard shown != text else { return nil }
        let scalars = text.unicodeScalars
        let name = shown.unicodeScalars.count - mask.unicodeScalars.count - 1
        guard let next = scalars.dropFirst(name).first, ":;=@ \t\\".unicodeScalars.contains(next) else { return nil }
        if next == ":" {
            let rest = scalars.dropFirst(name + 1)
            let digits = rest.prefix { $0.properties.numericType == .decimal && $0.isASCII }
            let after = rest.dropFirst(digits.count).first
            // A port: at most five digits, at most 65535 (`Authorization:123456789` is a value).
            if !digits.isEmpty, digits.count <= 5, Int(String(String.UnicodeScalarView(digits))).map({ $0 <= 65535 }) == true,
               after == nil || after == "/" || after == "?" || after == "#" { return nil }
        }
        return shown
    }

    /// A header item whose name is a credential header's mistyped (`Proxy\-Authorization:…`,
    /// `Autho rization:…`, a look-alike letter, a blank where the colon goes), as a message
    /// quotes it: cut after the credential's name, its letters read through other characters and
    /// case (`…Authorization****`). Nil when the credential's letters are not in it.
    package static func mistypedCredential(_ text: String) -> String? {
        let words = ["authorization", "cookie"]
        var letters = ""
        for i in text.unicodeScalars.indices {
            let scalar = text.unicodeScalars[i]
            guard scalar.properties.isAlphabetic else { continue }
            letters += scalar.properties.lowercaseMapping
            if words.contains(where: { letters.hasSuffix($0) }) {
                return String(text.unicodeScalars[...i]) + mask
            }
        }
        return nil
    }

    /// Header fields whose values are credentials.
    package static let credentialHeaders: Set<String> = ["authorization", "proxy-authorization", "cookie"]

    /// Whether `name` (any case) is a header field whose value is a credential.
    package static func isCredentialHeader(_ name: some StringProtocol) -> Bool {
        // `Authorization :x` (a blank before the colon) names it too, though no request takes it.
        credentialHeaders.contains(String(name).trimmingSpaces().lowercased())
    }

    /// The userinfo of `text` read as a URL (`scheme://user:pw@host`), a network-path reference
    /// (`//user:pw@host`) or a scheme-less authority (`user:pw@host:8080/x`, as `--proxy` and the
    /// URL shorthands take): its range in `text`, or nil when there is none.
    package static func userinfoRange(_ text: String) -> Range<String.Index>? {
        var start = text.startIndex
        if let sep = text.rangeOfText("://") {
            // The scheme must be the only thing before it (no '/', '?', '#', '@').
            let scheme = text[..<sep.lowerBound]
            guard !scheme.isEmpty, !scheme.contains(where: { "/?#@".contains($0) }) else { return nil }
            start = sep.upperBound
        } else if text.hasPrefix("//") {
            start = text.index(text.startIndex, offsetBy: 2)
        }
        let rest = text[start...]
        let end = rest.firstIndex(where: { "/?#".contains($0) }) ?? rest.endIndex
        guard let at = rest[..<end].lastIndex(of: "@") else { return nil }
        return start..<at
    }

    /// Whether `text`, read as `userinfoRange` reads it, carries a password (`user:pw@`).
    package static func hasURLPassword(_ text: String) -> Bool {
        guard let r = userinfoRange(text) else { return false }
        return text[r].contains(":")
    }

    /// Whether `word` carries a password as a message about a given URL reads one
    /// (`givenURL`: past a `/`, `?` or `#` that a password not percent-encoded may hold:
    /// `ann:pa/ss@host`), not counting an item naming a file (`name:=@file`).
    package static func holdsPasswordAsWritten(_ word: String) -> Bool { writtenPassword(word) != nil }

    /// The `:` and `@` around the password `holdsPasswordAsWritten` reads, or nil.
    private static func writtenPassword(_ word: String) -> (colon: String.Index, at: String.Index)? {
        guard word.containsByte(UInt8(ascii: "@")) else { return nil }
        let start = word.rangeOfText("://")?.upperBound ?? word.startIndex
        guard let (colon, at) = userinfoEnd(word[start...]) else { return nil }
        let password = word[word.index(after: colon)..<at]
        return password.isEmpty || password == "=" ? nil : (colon, at)
    }

    /// `https://ann:pw@h/` → `https://ann:****@h/`; also `//ann:pw@h` and `ann:pw@h:8080`. A
    /// user name without a password is left as it is, unless `userAlone`: then it is masked
    /// whole (`https://TOKEN@h/` → `https://****@h/`), as the files a run writes (`--har`, batch
    /// results) mask it, since a token given as the user name is what libcurl sends as Basic;
    /// so is one with an empty password (`https://TOKEN:@h/`, how API keys are often written),
    /// which libcurl sends alike.
    package static func url(_ text: String, userAlone: Bool = false) -> String {
        // No '@' byte, no userinfo: the common case, without a search by Character.
        guard text.containsByte(UInt8(ascii: "@")), let r = userinfoRange(text) else { return text }
        guard let colon = text[r].firstIndex(of: ":"), !(userAlone && text.index(after: colon) == r.upperBound) else {
            return userAlone && !r.isEmpty ? String(text[..<r.lowerBound]) + mask + String(text[r.upperBound...]) : text
        }
        return String(text[..<text.index(after: colon)]) + mask + String(text[r.upperBound...])
    }

    /// Every word of `text` that `url` would mask, masked: a message that quotes a URL or a
    /// proxy as it was given (libcurl's own errors among them). Words end at blanks, quotes and
    /// angle brackets.
    ///
    /// A URL with a scheme is masked more widely than `url` masks one, since a password a message
    /// quotes may hold what a URL would not (`'`, `/`, `#`, `?`, `@`, a blank in quotes): see
    /// `maskedAuthority` and `userinfoEnd`.
    package static func urls(inText text: String) -> String {
        guard text.containsByte(UInt8(ascii: "@")) else { return text }
        var out = ""
        var word = ""
        func flush() {
            out += word.contains("@") && !isItemFileReference(word) ? url(word) : word
            word = ""
        }
        var i = text.startIndex
        while i < text.endIndex {
            if text[i...].hasPrefix("://"), let masked = maskedAuthority(text, after: text.index(i, offsetBy: 3)) {
                flush()
                out += "://" + masked.text
                i = masked.end
                continue
            }
            let c = text[i]
            if c.isWhitespace || c == "'" || c == "\"" || c == "`" || c == "<" || c == ">" {
                flush()
                out.append(c)
            } else {
                word.append(c)
            }
            i = text.index(after: i)
        }
        flush()
        return out
    }

    /// Whether a word without `://` reads as a request item naming a file (`name:=@file`,
    /// `Header:@file`) rather than `user:password@host`: its "password" is empty or `=`.
    static func isItemFileReference(_ word: String) -> Bool {
        guard let (colon, at) = userinfoEnd(word[...]) else { return false }
        let password = word[word.index(after: colon)..<at]
        return password.isEmpty || password == "="
    }

    /// A URL as given, for a message saying it is invalid: its password masked however it is
    /// written (`userinfoEnd` over all of it after `://`, blanks and all: a password the URL did
    /// not percent-encode may hold anything), and cut after 200 characters (a file read into a
    /// query item can make it megabytes long), and what a terminal would not show escaped (a
    /// line feed in it began a line of its own that could pose as another message).
    /// - Parameter cut: false for a value shown whole (the REPL's `env`).
    package static func givenURL(_ text: String, cut: Bool = true) -> String { TerminalSanitizer.clean(maskedGivenURL(text, cut: cut)) }

    private static func maskedGivenURL(_ text: String, cut: Bool) -> String {
        // Bytes that are not UTF-8 (kept as escapes, `ArgumentBytes`) are shown as \xFF.
        let text = ArgumentBytes.hasEscapes(text) ? ArgumentBytes.shown(text) : text
        // A credential item typed where the URL goes (`swurl 'Authorization:Bearer T' URL`), as
        // given or behind the default scheme swurl put before it.
        if let shown = itemTakenForURL(text) { return shown }
        if let r = text.rangeOfText("://"), !text[..<r.lowerBound].isEmpty,
           text[..<r.lowerBound].unicodeScalars.allSatisfy({ $0.properties.isAlphabetic }),
           let shown = itemTakenForURL(String(text[r.upperBound...])) {
            return String(text[..<r.upperBound]) + shown
        }
        var masked = text
        if text.containsByte(UInt8(ascii: "@")) {
            if let (colon, at) = writtenPassword(text) {
                masked = String(text[...colon]) + mask + String(text[at...])
            } else {
                // A user name alone (`http://TOKEN@host/`, or `TOKEN:@`): a token, sent as Basic
                // credentials.
                masked = url(text, userAlone: true)
            }
        }
        guard cut, masked.utf8.count > 300 else { return masked }
        return String(masked.prefix(200)) + "… (\(text.utf8.count) bytes)"
    }

    /// In `a` (what follows `://`, or a scheme-less authority): the `:` that starts a password
    /// and the `@` that ends it, or nil. The `@` is the last one before the first `/`, `?` or `#`
    /// after the first `@` (a password may hold `@`); a `:` followed by digits and then a `/`
    /// before that `@` is a port, and the `@` belongs to the path or query (`host:80/?to=a@b`).
    static func userinfoEnd(_ a: Substring) -> (colon: Substring.Index, at: Substring.Index)? {
        guard let firstAt = a.firstIndex(of: "@") else { return nil }
        let stop = a[firstAt...].firstIndex(where: { "/?#".contains($0) }) ?? a.endIndex
        guard let at = a[..<stop].lastIndex(of: "@"), let colon = a[..<at].firstIndex(of: ":") else { return nil }
        let afterColon = a[a.index(after: colon)..<at]
        if let slash = afterColon.firstIndex(of: "/") {
            let digits = afterColon[..<slash]
            if !digits.isEmpty && digits.allSatisfy({ ("0"..."9").contains($0) }) { return nil }
        }
        return (colon, at)
    }

    /// From `start` (just after `://`) to the end of the URL: the next blank, or, for a URL in
    /// quotes, the quote that closes it (one followed by the end, a blank or `:,.;)`: a password
    /// may hold a quote). The text up to the password's `@` with the password masked, and where
    /// that `@` is; nil when there is no password.
    private static func maskedAuthority(_ text: String, after start: String.Index) -> (text: String, end: String.Index)? {
        let schemeStart = text[..<start].dropLast(3).lastIndex(where: { !($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        let quoted = schemeStart.map { text[$0] == "'" } ?? false
        var end = text[start...].firstIndex(where: \.isWhitespace) ?? text.endIndex
        if quoted {
            var i = start
            while i < text.endIndex {
                let next = text.index(after: i)
                if text[i] == "'", next == text.endIndex || text[next].isWhitespace || ":,.;)".contains(text[next]) {
                    end = i
                    break
                }
                i = next
            }
        }
        guard let (colon, at) = userinfoEnd(text[start..<end]) else { return nil }
        return (String(text[start...colon]) + mask, at)
    }

    /// `user:password` → `user:****`; a value without a colon (a bearer token, or a user name
    /// whose password is asked for) → `****` when `whole`, else as it is.
    package static func credentials(_ value: String, whole: Bool = true) -> String {
        // `TOKEN:` (an API key with an empty password, curl's `-u sk_…:`) is a token: whole.
        if let colon = value.firstIndex(of: ":") { return value.index(after: colon) == value.endIndex ? mask : String(value[..<colon]) + ":" + mask }
        return whole ? mask : value
    }

    /// Whether `name` (any case) is a header field a HAR file (`--har`) hides by default: the
    /// credentials, and `Set-Cookie`, whose values are the cookies a later request sends (and
    /// RFC 2965's `Cookie2` and `Set-Cookie2`, which some servers still send).
    package static func isRecordedSecretHeader(_ name: String) -> Bool {
        name.withUTF8Bytes { isRecordedSecretHeader(bytes: $0) }
    }

    /// `isRecordedSecretHeader` for a name in bytes (a request head as sent).
    package static func isRecordedSecretHeader(bytes name: UnsafeBufferPointer<UInt8>) -> Bool {
        let u = withoutTrailingBlanks(name)
        // By bytes against each name of the right length: no lower-cased copy (a HAR writes this per header).
        switch u.count {
        case 6: return isASCII(u, named: "cookie")
        case 7: return isASCII(u, named: "cookie2")
        case 10: return isASCII(u, named: "set-cookie")
        case 11: return isASCII(u, named: "set-cookie2")
        case 13: return isASCII(u, named: "authorization")
        case 19: return isASCII(u, named: "proxy-authorization")
        default: return false
        }
    }

    /// Whether `name` (bytes, any case) is a header field whose value is a URL that may carry a
    /// password: `Location`, `Content-Location`, `Referer` (a HAR masks it as in its URLs).
    package static func isURLHeader(bytes name: UnsafeBufferPointer<UInt8>) -> Bool {
        let u = withoutTrailingBlanks(name)
        switch u.count {
        case 7: return isASCII(u, named: "referer")
        case 8: return isASCII(u, named: "location")
        case 16: return isASCII(u, named: "content-location")
        default: return false
        }
    }

    /// A field name without the white space a server may send before its colon
    /// (`Set-Cookie : …`, which libcurl keeps in the name): the same field to a reader.
    private static func withoutTrailingBlanks(_ name: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var u = name
        while let last = u.last, last == 0x20 || last == 0x09 { u = UnsafeBufferPointer(rebasing: u.dropLast()) }
        return u
    }

    /// Whether the bytes `name` are `lower` (lower-case ASCII) in any case of its letters.
    /// (On bytes in memory, not any collection: unspecialized, the generic form cost some 400
    /// instructions a call, and a HAR entry asks this for every header.)
    package static func isASCII(_ name: UnsafeBufferPointer<UInt8>, named lower: StaticString) -> Bool {
        guard name.count == lower.utf8CodeUnitCount else { return false }
        let l = lower.utf8Start
        for k in 0..<name.count {
            let c = name[k]
            let folded = c >= 0x41 && c <= 0x5A ? c | 0x20 : c
            if folded != l[k] { return false }
        }
        return true
    }

    /// A header field as shown: credential values masked (`Authorization: ****`).
    package static func header(name: String, value: String) -> String {
        isCredentialHeader(name) ? name + ": " + mask : name + ": " + value
    }
}
