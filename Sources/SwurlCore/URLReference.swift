/// RFC 3986 reference resolution against a base URL, the way AFHTTPSessionManager joins a
/// relative path to its base URL: a base whose path is not empty gets a trailing `/` first
/// (`https://h/api/v1` → `https://h/api/v1/`), so `foo` resolves to `…/v1/foo`, not `…/foo`.
/// Text only: no percent-decoding and no validation (the request's URL parser does that).
package enum URLReference {
    /// The five components of RFC 3986 appendix B; nil for an absent component.
    package struct Parts: Equatable, Sendable {
        package var scheme: String?
        package var authority: String?
        package var path: String
        package var query: String?
        package var fragment: String?

        /// Recomposes the parts (RFC 3986 section 5.3).
        package var text: String {
            var s = ""
            if let scheme { s += scheme + ":" }
            if let authority { s += "//" + authority }
            s += path
            if let query { s += "?" + query }
            if let fragment { s += "#" + fragment }
            return s
        }

        /// Splits a URI reference (`^(([^:/?#]+):)?(//([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?`).
        package init(_ text: String) {
            var rest = Substring(text)
            if let colon = rest.firstIndex(where: { ":/?#".contains($0) }), rest[colon] == ":", colon != rest.startIndex {
                scheme = String(rest[..<colon])
                rest = rest[rest.index(after: colon)...]
            }
            if rest.hasPrefix("//") {
                rest = rest.dropFirst(2)
                let end = rest.firstIndex(where: { "/?#".contains($0) }) ?? rest.endIndex
                authority = String(rest[..<end])
                rest = rest[end...]
            }
            if let hash = rest.firstIndex(of: "#") {
                fragment = String(rest[rest.index(after: hash)...])
                rest = rest[..<hash]
            }
            if let q = rest.firstIndex(of: "?") {
                query = String(rest[rest.index(after: q)...])
                rest = rest[..<q]
            }
            path = String(rest)
        }
    }

    /// The base as AFHTTPSessionManager keeps it: a non-empty path that does not end in `/` gets one.
    package static func normalizedBase(_ base: String) -> String {
        var parts = Parts(base)
        if !parts.path.isEmpty && !parts.path.hasSuffix("/") { parts.path += "/" }
        return parts.text
    }

    /// A `Location` (or `Content-Location`) against the URL of the request it answered: RFC 3986
    /// section 5.2.2 with that URL as it is (no `/` added: `sibling` from `/a/b/c` is
    /// `/a/b/sibling`, as libcurl follows it), then what a URL cannot hold literally (a space)
    /// percent-encoded. The base-URL join (`resolve`) is for the REPL's paths only.
    package static func resolveLocation(_ reference: String, against url: String) -> String {
        URLText.percentEncodingUnsafeBytes(Parts.resolveStrict(reference, Parts(url)))
    }

    /// Resolves `reference` against `base` (normalized first), RFC 3986 section 5.2.2, strict:
    /// a reference with a scheme replaces the base. With `pathAsIs` (`--path-as-is`) the
    /// reference's dot segments stay.
    package static func resolve(_ reference: String, against base: String, pathAsIs: Bool = false) -> String {
        Parts.resolveStrict(reference, Parts(normalizedBase(base)), keepingDotSegments: pathAsIs)
    }
}

extension URLReference.Parts {
    /// Section 5.2.2 against a base taken as is (section 5.2.4 left out with `keepingDotSegments`).
    static func resolveStrict(_ reference: String, _ b: URLReference.Parts, keepingDotSegments: Bool = false) -> String {
        let removeDotSegments = keepingDotSegments ? { $0 } : URLReference.removeDotSegments
        let r = URLReference.Parts(reference)
        var t = URLReference.Parts("")
        if r.scheme != nil {
            t = r
            t.path = removeDotSegments(r.path)
        } else {
            if r.authority != nil {
                t.authority = r.authority
                t.path = removeDotSegments(r.path)
                t.query = r.query
            } else {
                if r.path.isEmpty {
                    t.path = b.path
                    t.query = r.query ?? b.query
                } else {
                    if r.path.hasPrefix("/") {
                        t.path = removeDotSegments(r.path)
                    } else if keepingDotSegments {
                        t.path = URLReference.mergeKeepingDots(base: b, r.path)
                    } else {
                        t.path = removeDotSegments(URLReference.merge(base: b, r.path))
                    }
                    t.query = r.query
                }
                t.authority = b.authority
            }
            t.scheme = b.scheme
        }
        t.fragment = r.fragment
        return t.text
    }
}

extension URLReference {
    /// Section 5.2.3 under `--path-as-is`, as libcurl joins a relative reference then: its
    /// leading `./` and `../` step through the base's directories (`cd ..` goes up), the rest
    /// of it stays as typed (`z/../v` is sent so).
    static func mergeKeepingDots(base: Parts, _ path: String) -> String {
        var directory = base.authority != nil && base.path.isEmpty ? "/"
            : base.path.lastIndex(of: "/").map { String(base.path[...$0]) } ?? ""
        var rest = Substring(path)
        while true {
            if rest.hasPrefix("./") {
                rest = rest.dropFirst(2)
            } else if rest == "." {
                rest = ""
            } else if rest.hasPrefix("../") || rest == ".." {
                rest = rest.dropFirst(rest == ".." ? 2 : 3)
                // One level up, never above the root.
                let inner = directory.dropLast()
                directory = inner.lastIndex(of: "/").map { String(inner[...$0]) } ?? directory
            } else {
                break
            }
        }
        return directory + rest
    }

    /// Section 5.2.3.
    static func merge(base: Parts, _ path: String) -> String {
        if base.authority != nil && base.path.isEmpty { return "/" + path }
        guard let slash = base.path.lastIndex(of: "/") else { return path }
        return base.path[...slash] + path
    }

    /// Section 5.2.4: removes `.` and `..` segments.
    package static func removeDotSegments(_ path: String) -> String {
        var input = Substring(path)
        var output: [Substring] = []  // segments, each starting with "/" except maybe the first
        while !input.isEmpty {
            if input.hasPrefix("../") {
                input = input.dropFirst(3)
            } else if input.hasPrefix("./") {
                input = input.dropFirst(2)
            } else if input.hasPrefix("/./") {
                input = input.dropFirst(2)
            } else if input == "/." {
                input = "/"
            } else if input.hasPrefix("/../") {
                input = input.dropFirst(3)
                if !output.isEmpty { output.removeLast() }
            } else if input == "/.." {
                input = "/"
                if !output.isEmpty { output.removeLast() }
            } else if input == "." || input == ".." {
                input = ""
            } else {
                let start = input.hasPrefix("/") ? input.index(after: input.startIndex) : input.startIndex
                let end = input[start...].firstIndex(of: "/") ?? input.endIndex
                output.append(input[..<end])
                input = input[end...]
            }
        }
        return output.joined()
    }
}
