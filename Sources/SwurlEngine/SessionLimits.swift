import SwurlCore

/// What a saved session may hold, as browsers limit their cookie stores (RFC 6265 §6.1 asks
/// for at least 4096 bytes per cookie and 50 cookies per domain): a cookie whose name and
/// value pass 4096 bytes is not kept, a domain keeps 50 cookies, and the file never passes
/// `SessionStore.maxSize`, the most a later run reads. Expired cookies go first (the store drops
/// them before), then the oldest (first in the file) of those this run's responses did not set,
/// then the oldest of the rest: a login cookie the server has just set again is the one in use
/// (RFC 6265 §5.3 drops the cookies used longest ago first), never the first to go because it
/// was created first.
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
    ///   - setNow: the keys (`SessionCookie.key`) of the cookies this run's responses set or
    ///     changed, dropped last.
    /// - Returns: a warning for each limit that dropped cookies, naming them.
    /// - Throws: `SwurlError.output` when the file would pass `maxSize` without any cookie.
    static func enforce(_ data: inout SessionData, shown: String, maxSize: Int, setNow: Set<String> = []) throws(SwurlError) -> [String] {
        var warnings: [String] = []
        let large = data.cookies.filter { $0.size > maxCookieSize }
        if !large.isEmpty {
            data.cookies.removeAll { $0.size > maxCookieSize }
            warnings.append("the session file \(shown): \(count(large)) of more than \(maxCookieSize) bytes (name and value) "
                            + "\(large.count == 1 ? "was" : "were") not saved: \(names(large))")
        }
        warnings += perDomain(&data, shown: shown, setNow: setNow)
        // The file's bytes: its text without cookies, then each cookie's entry and separator.
        var empty = data
        empty.cookies = []
        let base = SessionFormat.encode(empty).count + 4
        guard base <= maxSize else {
            throw .output("the session was not saved: its headers and credentials alone would make \(shown) larger than 1 MiB; remove headers from it")
        }
        var total = base + data.cookies.reduce(0) { $0 + SessionFormat.encode($1).count + 6 }
        var dropped: Set<Int> = []
        for i in dropOrder(data.cookies, setNow: setNow) where total > maxSize {
            total -= SessionFormat.encode(data.cookies[i]).count + 6
            dropped.insert(i)
        }
        if !dropped.isEmpty {
            let list = data.cookies.indices.filter { dropped.contains($0) }.map { data.cookies[$0] }
            data.cookies = data.cookies.indices.filter { !dropped.contains($0) }.map { data.cookies[$0] }
            warnings.append("the session file \(shown) would pass 1 MiB: the \(count(list, oldest: true)) dropped: \(names(list))")
        }
        return warnings
    }

    /// The cookies' places in the order they go: the oldest first of those not set now, then
    /// the oldest of those set now.
    private static func dropOrder(_ cookies: [SessionCookie], setNow: Set<String>) -> [Int] {
        let (now, earlier) = cookies.indices.reduce(into: ([Int](), [Int]())) { acc, i in
            if setNow.contains(cookies[i].key) { acc.0.append(i) } else { acc.1.append(i) }
        }
        return earlier + now
    }

    /// Keeps `maxCookiesPerDomain` cookies of each domain, dropping in `dropOrder`.
    private static func perDomain(_ data: inout SessionData, shown: String, setNow: Set<String>) -> [String] {
        var counts: [String: Int] = [:]
        for c in data.cookies { counts[c.domain.lowercased(), default: 0] += 1 }
        var excess = counts.filter { $0.value > maxCookiesPerDomain }.mapValues { $0 - maxCookiesPerDomain }
        guard !excess.isEmpty else { return [] }
        var gone: Set<Int> = []
        for i in dropOrder(data.cookies, setNow: setNow) {
            let d = data.cookies[i].domain.lowercased()
            guard let n = excess[d], n > 0 else { continue }
            excess[d] = n - 1
            gone.insert(i)
        }
        var dropped: [String: [SessionCookie]] = [:]
        var order: [String] = []
        for i in data.cookies.indices where gone.contains(i) {
            let d = data.cookies[i].domain.lowercased()
            if dropped[d] == nil { order.append(d) }
            dropped[d, default: []].append(data.cookies[i])
        }
        data.cookies = data.cookies.indices.filter { !gone.contains($0) }.map { data.cookies[$0] }
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
