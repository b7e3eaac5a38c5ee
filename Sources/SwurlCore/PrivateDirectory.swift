#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// The one way swurl makes the directories of a file that holds secrets (a session, the cache,
/// the REPL's history): the missing ones, as `mkdir -p` would, each with mode 0700 from the start.
/// A relative path is relative to the working directory (a relative `HOME` as curl and HTTPie
/// read it), never to `/`.
package enum PrivateDirectory {
    /// - Returns: nil when `path` is a directory now (made, or there already); else the errno
    ///   of the step that failed (ENOTDIR when `path`, or a part of it, is something else).
    package static func make(_ path: String) -> Int32? {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for part in path.split(separator: "/") {
            prefix += (prefix.isEmpty || prefix.hasSuffix("/") ? "" : "/") + part
            if mkdir(ArgumentBytes.path(prefix), 0o700) != 0 && errno != EEXIST { return errno }
        }
        var st = stat()
        guard stat(ArgumentBytes.path(path), &st) == 0 else { return errno }
        return st.st_mode & S_IFMT == S_IFDIR ? nil : ENOTDIR
    }
}
