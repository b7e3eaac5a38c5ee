#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// The one rule for files whose contents swurl obeys (the config file, session files): as
/// OpenSSH does for its own, such a file must belong to the user (or root) and be writable by
/// nobody else, and no directory on its path may let anybody else replace it. Otherwise another
/// user could plant options (a `--proxy` that receives every Authorization, an `-o` that
/// redirects output) or session headers and credentials into the user's requests.
package enum FileTrust {
    /// Why a file is not trusted, with the command that fixes it.
    package struct Doubt: Equatable, Sendable {
        package let reason: String
        package let fix: String
    }

    /// Refuses the file at `path` (which exists) unless only the user or root can change it.
    /// - Parameters:
    ///   - path: the file, absolute or relative to the working directory.
    ///   - what: how the messages name it ("the config file").
    ///   - fd: the file opened for reading, so the file checked is the file read; nil to check the path.
    /// - Throws: `SwurlError.badData` (65) naming the file, the reason and the fix.
    package static func check(_ path: String, what: String, fd: Int32? = nil) throws(SwurlError) {
        guard let doubt = doubt(path, fd: fd) else { return }
        throw .badData("\(what) \(TerminalSanitizer.clean(path)) is refused: \(doubt.reason)",
                       hint: doubt.fix + " (another user could have changed it; check its contents first)")
    }

    /// Why the file at `path` is not trusted; nil when it is (or cannot be examined: reading it
    /// then reports the error).
    package static func doubt(_ path: String, fd: Int32? = nil) -> Doubt? {
        var st = stat()
        let found = fd.map { fstat($0, &st) == 0 } ?? (stat(ArgumentBytes.path(path), &st) == 0)
        guard found else { return nil }
        let shown = quoted(path)
        if let owner = foreignOwner(st) {
            return Doubt(reason: "it belongs to uid \(owner), not to you (uid \(geteuid())) or root",
                         fix: rootWithOthersHome(owner) ?? "if it is yours: chown \(geteuid()) \(shown); otherwise remove it")
        }
        if st.st_mode & (S_IWGRP | S_IWOTH) != 0 {
            return Doubt(reason: "it is writable by \(writers(st)) (mode \(octal(st.st_mode)))", fix: "chmod go-w \(shown)")
        }
        // Every directory on the path as given and on the path the links lead to.
        for dir in guardingDirectories(of: OutputTarget.absolute(path) ?? path, real: OutputTarget.realPath(path)) {
            if let doubt = directoryDoubt(dir) { return doubt }
        }
        return nil
    }

    /// Refuses to create a file (or directory) at `path`, which does not exist yet, where
    /// another user could replace it or what leads to it: the deepest directory on the path that
    /// exists must pass `directoryDoubt`, with every directory above it and those the path runs
    /// through (`guardingDirectories`). So a session file or a cache is never made in a place
    /// swurl would refuse to read it from.
    /// - Throws: `SwurlError.badData` (65) naming the file, the directory and the fix.
    package static func checkPlace(_ path: String, what: String) throws(SwurlError) {
        guard let file = OutputTarget.absolute(path) else { return }
        // Up the path as written to the deepest directory that exists; what follows it is made.
        var dir = "/"
        var made: [String] = []
        var st = stat()
        for candidate in directories(of: file) {
            if stat(ArgumentBytes.path(candidate), &st) == 0 { dir = candidate; break }
            made.append(OutputTarget.name(of: candidate))
        }
        // `..` after a directory that is not there yet climbs out of what swurl makes, to a
        // place this check cannot see until it is made.
        if made.contains("..") {
            throw refusal(path, what, Doubt(reason: "its path climbs out of a directory that does not exist yet ('..')",
                                            fix: "give the path without '..'"))
        }
        for guarding in guardingDirectories(of: file, real: OutputTarget.realPath(dir).map { $0 + "/" + OutputTarget.name(of: file) }) {
            if let doubt = directoryDoubt(guarding) { throw refusal(path, what, doubt) }
        }
    }

    private static func refusal(_ path: String, _ what: String, _ doubt: Doubt) -> SwurlError {
        .badData("\(what) \(TerminalSanitizer.clean(path)) is not created there: \(doubt.reason)",
                 hint: doubt.fix + " (another user could replace what swurl writes there)")
    }

    /// The directories whose writers could replace `file` or a link that leads to it: each
    /// directory in which the kernel looks a name up on the way (`OutputTarget.walkLookups`),
    /// then the directories that hold the file where its links lead (`real`). Each once, the
    /// file's own first.
    static func guardingDirectories(of file: String, real: String?) -> [String] {
        var lookups: [String] = []
        OutputTarget.walkLookups(file) { step in
            if case .name(let dir) = step { lookups.append(dir) }
            return true
        }
        var seen: Set<String> = []
        var out: [String] = []
        for dir in lookups.reversed() + (real.map { directories(of: $0) } ?? []) where seen.insert(dir).inserted { out.append(dir) }
        return out
    }

    /// Why the directory `dir` lets others replace what it holds; nil when it does not.
    static func directoryDoubt(_ dir: String) -> Doubt? {
        var st = stat()
        // Not a directory (`/dev/null/x`): nothing is looked up in it, and opening the path says
        // "Not a directory" (the hint was `chmod go-w /dev/null`).
        guard stat(ArgumentBytes.path(dir), &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else { return nil }
        let shown = quoted(dir)
        if let owner = foreignOwner(st) {
            return Doubt(reason: "its directory \(TerminalSanitizer.clean(dir)) belongs to uid \(owner), not to you (uid \(geteuid())) or root",
                         fix: rootWithOthersHome(owner) ?? "move the file to a directory of your own")
        }
        // The sticky bit (/tmp) lets only a file's owner rename or remove it.
        if st.st_mode & (S_IWGRP | S_IWOTH) != 0 && st.st_mode & S_ISVTX == 0 {
            return Doubt(reason: "its directory \(TerminalSanitizer.clean(dir)) is writable by \(writers(st)) "
                             + "(mode \(octal(st.st_mode))) without the sticky bit",
                         fix: "chmod go-w \(shown), or move the file to a directory only you can write")
        }
        return nil
    }

    /// The fix for root meeting another user's file or directory: most often root running with
    /// that user's HOME (`su` without `-`, `sudo -E`), where chown or moving the file would take
    /// it from its owner. Nil for any other user.
    private static func rootWithOthersHome(_ owner: uid_t) -> String? {
        guard geteuid() == 0 else { return nil }
        return "it is uid \(owner)'s: run swurl as that user, or give root a path of its own (after su without '-' or sudo -E, "
            + "root keeps that user's HOME: use su - or sudo -H)"
    }

    /// Where making `dir` (with the directories missing above it) would put the user's
    /// directories into another user's: the deepest existing directory above it and its owner,
    /// when that is neither the user nor root (`HOME=/tmp` in a container is fine). Nil when
    /// `dir` exists (nothing is made) or the place is the user's own.
    package static func foreignPlace(_ dir: String) -> (directory: String, owner: uid_t)? {
        var st = stat()
        guard let absolute = OutputTarget.absolute(dir), stat(ArgumentBytes.path(absolute), &st) != 0 else { return nil }
        for candidate in directories(of: absolute) where stat(ArgumentBytes.path(candidate), &st) == 0 {
            return foreignOwner(st).map { (candidate, $0) }
        }
        return nil
    }

    /// The owner's uid when it is neither the user nor root.
    private static func foreignOwner(_ st: stat) -> uid_t? {
        st.st_uid == geteuid() || st.st_uid == 0 ? nil : st.st_uid
    }

    private static func writers(_ st: stat) -> String {
        switch (st.st_mode & S_IWGRP != 0, st.st_mode & S_IWOTH != 0) {
        case (true, true): return "its group and others"
        case (true, false): return "its group"
        default: return "others"
        }
    }

    private static func octal(_ mode: mode_t) -> String {
        let s = String(mode & 0o7777, radix: 8)
        return String(repeating: "0", count: max(0, 4 - s.count)) + s
    }

    /// `path` for a shell command line: as it is when it holds only safe characters, else in single quotes.
    package static func quoted(_ path: String) -> String {
        let clean = TerminalSanitizer.clean(path)
        let plain = clean.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x7A) || "/._-+,:@%".utf8.contains(b)
        }
        return plain && !clean.isEmpty ? clean : "'" + clean.replacingAll("'", with: "'\\''") + "'"
    }

    /// The directories that hold `file`, from its own up to `/`.
    static func directories(of file: String) -> [String] {
        var out: [String] = []
        var rest = Substring(file)
        while let slash = rest.lastIndex(of: "/") {
            let dir = slash == rest.startIndex ? "/" : String(rest[..<slash])
            out.append(dir)
            if dir == "/" { break }
            rest = rest[..<slash]
        }
        return out
    }
}
