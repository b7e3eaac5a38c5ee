@preconcurrency import CSupport
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// How many terminal columns text takes: wcwidth(3) in `C.UTF-8`, so a wide East Asian
/// character or an emoji takes two and a combining mark none, whatever the process's locale.
/// For lines that must fit the terminal's width (the progress line): counted in characters, a
/// name in Chinese took twice the room it was given and the line wrapped.
package enum DisplayWidth {
    /// The columns `text` takes (a scalar wcwidth does not know counts one).
    package static func columns<S: StringProtocol>(_ text: S) -> Int {
        var total = 0
        UTF8Locale.run {
            for scalar in text.unicodeScalars { total += width(scalar) }
        }
        return total
    }

    /// The longest start of `text` that takes at most `limit` columns (combining marks stay
    /// with the character before them).
    package static func prefix(_ text: String, columns limit: Int) -> String {
        var used = 0
        var end = text.unicodeScalars.startIndex
        UTF8Locale.run {
            for index in text.unicodeScalars.indices {
                let w = width(text.unicodeScalars[index])
                if used + w > limit { break }
                used += w
                end = text.unicodeScalars.index(after: index)
            }
        }
        return String(text.unicodeScalars[..<end])
    }

    private static func width(_ scalar: Unicode.Scalar) -> Int {
        if scalar.value >= 0x20 && scalar.value < 0x7F { return 1 }
        let w = Int(sw_wcwidth(scalar.value))
        return w < 0 ? 1 : w
    }
}

/// Runs code with this thread's character set UTF-8 (uselocale(3): the process's locale, which
/// other threads read, is left alone), for C functions that read text in it (libidn2, wcwidth).
package enum UTF8Locale {
    package static func run<T>(_ body: () -> T) -> T {
        guard let utf8 = locale else { return body() }
        let previous = uselocale(utf8)
        defer { uselocale(previous) }
        return body()
    }

    /// `C.UTF-8`'s character set, made once (nil where the C library has no such locale).
    nonisolated(unsafe) private static let locale: locale_t? = newlocale(LC_CTYPE_MASK, "C.UTF-8", nil)
}
