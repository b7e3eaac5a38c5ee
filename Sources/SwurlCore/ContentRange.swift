/// The `Content-Range` field of a 206 or 416 (RFC 9110 §14.4), the one parser for a download's
/// resume and for `--max-filesize`'s count of the bytes on disk.
package enum ContentRange {
    /// `bytes START-END/TOTAL` → (START, END, TOTAL or nil for `*`). Numbers are plain digits (no
    /// sign: `bytes 0-9/-91` was taken as a negative total), and END must lie below TOTAL.
    package static func parse(_ value: String?) -> (start: Int64, end: Int64, total: Int64?)? {
        guard let value else { return nil }
        let v = value.trimmingSpaces()
        guard v.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = String(v.dropFirst(6)).trimmingSpaces()
        let halves = spec.split(separator: "/", maxSplits: 1)
        guard halves.count == 2 else { return nil }
        let range = halves[0].split(separator: "-", maxSplits: 1)
        // END + 1 (the length, the next byte) must be a number too.
        guard range.count == 2, let start = digits(range[0]), let end = digits(range[1]), end >= start, end < Int64.max else { return nil }
        if halves[1] == "*" { return (start, end, nil) }
        guard let total = digits(halves[1]), end < total else { return nil }
        return (start, end, total)
    }

    /// The total of `bytes */TOTAL` (a 416 answer).
    package static func unsatisfiedTotal(_ value: String?) -> Int64? {
        guard let v = value?.trimmingSpaces(), v.lowercased().hasPrefix("bytes */") else { return nil }
        return digits(v.dropFirst(8))
    }

    /// The size of a download a 416 says is already whole: `bytes */TOTAL` naming exactly the
    /// `offset` bytes on disk that the Range asked past (0: nothing was asked for, so nothing is whole).
    package static func completedTotal(_ value: String?, offset: Int64) -> Int64? {
        guard offset > 0, let total = unsatisfiedTotal(value), total == offset else { return nil }
        return total
    }

    /// A non-negative decimal number of ASCII digits only (Int64 would also take `+`/`-`).
    static func digits(_ s: Substring) -> Int64? {
        guard !s.isEmpty, s.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int64(s)
    }
}
