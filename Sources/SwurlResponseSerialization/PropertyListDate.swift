import SwurlCore

/// Property-list dates (seconds since 2001-01-01T00:00:00Z) to and from ISO 8601 UTC text,
/// computed by hand so no Foundation is needed on the output path.
package enum PropertyListDate {
    /// Seconds between 1970-01-01 and 2001-01-01.
    static let referenceOffset: Double = 978_307_200

    /// `2026-11-29T20:14:37Z`; fractions of a second are kept to the millisecond when present.
    /// Years have at least four digits, as ISO 8601 wants (`0276-01-02…`); years before 1 BC
    /// are signed (`-0001`, astronomical numbering) and years past 9999 carry a `+`.
    package static func format(_ sinceReference: Double) -> String {
        guard isWritable(sinceReference) else { return String(sinceReference) }
        let unix = sinceReference + referenceOffset
        var whole = unix.rounded(.down)
        var millis = Int(((unix - whole) * 1000).rounded())
        // A fraction that rounds to a whole second is that second (0.9996 s is 00:00:01, not 00:00:00).
        if millis >= 1000 {
            whole += 1
            millis = 0
        }
        let t = HTTPDate.utc(Int(whole))
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        var s = "\(year(Int64(t.year)))-\(two(t.month))-\(two(t.day))T\(two(t.hour)):\(two(t.minute)):\(two(t.second))"
        if millis > 0 && millis < 1000 {
            let m = String(millis)
            s += "." + String(repeating: "0", count: 3 - m.count) + m
        }
        return s + "Z"
    }

    /// Whether `format` writes the date as ISO 8601 (else as the number of seconds it is:
    /// `nan`, `inf`, or beyond some 300,000 years).
    package static func isWritable(_ sinceReference: Double) -> Bool {
        sinceReference.isFinite && abs(sinceReference) < 1e13
    }

    /// ISO 8601's year: four digits at least, signed outside 0000…9999.
    static func year(_ y: Int64) -> String {
        let digits = String(y.magnitude)
        let padded = String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        return y < 0 ? "-" + padded : y > 9999 ? "+" + padded : padded
    }

    /// Parses `YYYY-MM-DDTHH:MM:SSZ` (the form XML property lists use).
    static func parse(_ text: String) -> Double? {
        let b = Array(text.utf8)
        guard b.count == 20, b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54, b[13] == 0x3A, b[16] == 0x3A, b[19] == 0x5A else { return nil }
        func num(_ r: Range<Int>) -> Int64? {
            var v: Int64 = 0
            for i in r { guard b[i] >= 0x30, b[i] <= 0x39 else { return nil }; v = v * 10 + Int64(b[i] - 0x30) }
            return v
        }
        guard let y = num(0..<4), let mo = num(5..<7), let d = num(8..<10), let h = num(11..<13),
              let mi = num(14..<16), let s = num(17..<19), (1...12).contains(mo),
              // A day the month lacks (30 Feb) is no date, not one rolled into the next month.
              (1...HTTPDate.daysIn(month: Int(mo), year: Int(y))).contains(Int(d)),
              h < 24, mi < 60, s < 61 else { return nil }
        let days = Int64(HTTPDate.daysFromCivil(year: Int(y), month: Int(mo), day: Int(d)))
        return Double(days * 86400 + h * 3600 + mi * 60 + s) - referenceOffset
    }
}
