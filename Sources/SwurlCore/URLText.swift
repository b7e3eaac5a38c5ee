/// Text-level URL helpers that need no URL parser: the scheme of a string and the joining of
/// an escaped query.
public enum URLText {
    /// Schemes swurl sends requests to.
    public static let httpSchemes: Set<String> = ["http", "https"]

    /// The scheme of `text` when it starts with `scheme://`.
    public static func schemeOf(_ text: String) -> String? {
        guard let r = text.firstRange(of: "://") else { return nil }
        let scheme = text[..<r.lowerBound]
        guard let first = scheme.first, first.isLetter, first.isASCII,
              scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+.-".contains($0)) }) else { return nil }
        return String(scheme)
    }

    /// Joins `query` (already escaped) to the URL's query string with `&`, before any fragment.
    public static func appendingQuery(_ query: String, to url: String) -> String {
        guard !query.isEmpty else { return url }
        var base = Substring(url)
        var fragment: Substring = ""
        if let hash = base.firstIndex(of: "#") {
            fragment = base[hash...]
            base = base[..<hash]
        }
        let joiner: String
        if !base.contains("?") {
            joiner = "?"
        } else if base.hasSuffix("?") || base.hasSuffix("&") {
            joiner = ""
        } else {
            joiner = "&"
        }
        return base + joiner + query + fragment
    }
}
