import SwurlCore

/// What a saved session may hold, as browsers limit their cookie stores (RFC 6265 §6.1 asks
/// for at least 4096 bytes per cookie and 50 cookies per domain): a cookie whose name and
/// value pass 4096 bytes is not kept, a domain keeps its 50 newest cookies, and the file never
/// passes `SessionStore.maxSize`, the most a later run reads. Expired cookies go first (the
/// store drops them before), then the oldest (first in the file).
enum SessionLimits {
    /// The most bytes of name and value a kept cookie has.
    static let maxCookieSize = 4096
    /// The most cookies kept for one domain (`SessionCookie.domain`, case-insensitive).
    static let maxCookiesPerDomain = 50
    /// Names listed in a warning before "…".
    static let namesShown = 5

    /// Applies the limits to `data`'s cookies (oldest first).
    /// - Parameters:
    ///   - shown: the file as warnings name it.
    ///   - maxSize: the most bytes the encoded file may take.
    /// - Returns: a warning for each limit that dropped cookies, naming them.
    /// - Throws: `SwurlError.output` when the file would pass `maxSize` without any cookie.
    static func enforce(_ data: inout SessionData, shown: String, maxSize: Int) throws(SwurlError) -> [String] {
        var warnings: [String] = []
        let large = data.cookies.filter { $0.size > maxCookieSize }
        if !large.isEmpty {
            data.cookies.removeAll { $0.size > maxCookieSize }
            warnings.append("the session file \(shown): \(count(large)) of more than \(maxCookieSize) bytes (name and value) "
                            + "\(large.count == 1 ? "was" : "were") not saved: \(names(large))")
        }
        warnings += perDomain(&data, shown: shown)
        // The file's bytes: its text without cookies, then each cookie's entry and separator.
        var empty = data
        empty.cookies = []
        let base = SessionFormat.encode(empty).count + 4
        guard base <= maxSize else {
            throw .output("the session was not saved: its headers and credentials alone would make \(shown) larger than 1 MiB; remove headers from it")
        }
        let sizes = data.cookies.map { SessionFormat.encode($0).count + 6 }
        var total = base + sizes.reduce(0, +)
        var drop = 0
        while total > maxSize, drop < sizes.count {
            total -= sizes[drop]
            drop += 1
        }
        if drop > 0 {
            let dropped = Array(data.cookies.prefix(drop))
            data.cookies.removeFirst(drop)
            warnings.append("the session file \(shown) would pass 1 MiB: the \(count(dropped, oldest: true)) dropped: \(names(dropped))")
        }
        return warnings
    }

    /// Keeps each domain's `maxCookiesPerDomain` newest cookies.
    private static func perDomain(_ data: inout SessionData, shown: String) -> [String] {
        var counts: [String: Int] = [:]
        for c in data.cookies { counts[c.domain.lowercased(), default: 0] += 1 }
        var excess = counts.filter { $0.value > maxCookiesPerDomain }.mapValues { $0 - maxCookiesPerDomain }
        guard !excess.isEmpty else { return [] }
        var dropped: [String: [SessionCookie]] = [:]
        var order: [String] = []
        data.cookies.removeAll { c in
            let d = c.domain.lowercased()
            guard let n = excess[d], n > 0 else { return false }
            excess[d] = n - 1
            if dropped[d] == nil { order.append(d) }
            dropped[d, default: []].append(c)
            return true
        }
        return order.map { d in
            let list = dropped[d] ?? []
            return "the session file \(shown) keeps at most \(maxCookiesPerDomain) cookies per domain: "
                + "the \(count(list, oldest: true)) for \(TerminalSanitizer.clean(d)) dropped: \(names(list))"
        }
    }

    /// "1 cookie", "3 cookies", "3 oldest cookies".
    private static func count(_ cookies: [SessionCookie], oldest: Bool = false) -> String {
        let word = cookies.count == 1 ? "cookie" : "cookies"
        return oldest ? (cookies.count == 1 ? "oldest cookie" : "\(cookies.count) oldest \(word)") : "\(cookies.count) \(word)"
    }

    /// The cookies' names, the first few.
    private static func names(_ cookies: [SessionCookie]) -> String {
        let shown = cookies.prefix(namesShown).map { TerminalSanitizer.clean($0.name) }.joined(separator: ", ")
        return cookies.count > namesShown ? shown + ", …" : shown
    }
}
