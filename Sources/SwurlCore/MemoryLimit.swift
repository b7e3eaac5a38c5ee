#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// The memory the process may take, when a limit says (`ulimit -v`, `ulimit -d`): decoders that
/// need a whole document scale their bounds to it, so that a body they would hold gives the
/// "shown as sent" note instead of an allocation failure (exit 134 and a crash report).
package enum MemoryLimit {
    /// The smaller of the address-space and data limits in bytes; nil when neither is set.
    package static let bytes: Int? = {
        var found: [Int] = []
        for resource in [RLIMIT_AS, RLIMIT_DATA] {
            var limit = rlimit()
            if getrlimit(Int32(resource.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max {
                found.append(Int(clamping: limit.rlim_cur))
            }
        }
        return found.min()
    }()

    /// `bound`, or the share of the limit a structure taking `perUnit` bytes a unit may have
    /// (a quarter of the limit: the binary, libraries and buffers take the rest).
    package static func bound(_ bound: Int, perUnit: Int) -> Int {
        guard let bytes else { return bound }
        return max(1, min(bound, bytes / 4 / max(1, perUnit)))
    }
}
