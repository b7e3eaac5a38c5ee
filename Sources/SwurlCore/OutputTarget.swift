#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Where bytes for an output path (`-o`, `-d -o`) really go, decided when the file is opened.
/// A symbolic link is followed to its target and never replaced: `-o /dev/stdout` writes through
/// the link as curl does, and `-o link.txt` updates the file the link points at.
package enum OutputTarget: Equatable, Sendable {
    /// A regular file, or a name not there yet: written to a temporary file in the same
    /// directory and renamed over this path (every symbolic link resolved) when complete.
    case file(String)
    /// Anything else (a pipe, a terminal, a character device, `/proc/self/fd/N`): opened and
    /// written in place at this path.
    case direct(String)
    /// A directory: nothing can be written.
    case directory(String)

    /// Most links followed before giving up (the kernel's own limit).
    package static let maxLinks = 40

    /// Follows `path` through its symbolic links. A path whose directory lies in `/proc` (`/dev/fd/N`,
    /// `/proc/self/fd/N`, and `/dev/stdout` through them) is written directly: its links name open
    /// files, not places to create one.
    /// - Throws: `SwurlError.output` on a loop of links.
    package static func resolve(_ path: String) throws(SwurlError) -> OutputTarget {
        var current = path
        var followed = false
        for _ in 0..<maxLinks {
            if isInProc(current) { return kind(of: path, orFile: path) }
            var st = stat()
            guard lstat(ArgumentBytes.path(current), &st) == 0 else {
                // Not there yet (or not reachable): created here, and open reports what is wrong.
                return .file(current)
            }
            switch st.st_mode & S_IFMT {
            case S_IFLNK:
                try refuseForeignLinkInSharedDirectory(current, link: st)
                guard let target = linkTarget(current) else { return .file(current) }
                followed = true
                current = target
            case S_IFREG: return .file(current)
            case S_IFDIR: return .directory(followed ? current : path)
            default: return .direct(current)
            }
        }
        throw .output("cannot write '\(path)': too many levels of symbolic links")
    }

    /// The kernel's `protected_symlinks` rule, which swurl must apply itself since it follows
    /// links by reading them (and then replaces the file they lead to by a rename): a link in a
    /// sticky directory anyone can write (`/tmp`) is followed only when it is the user's own or
    /// the directory owner's. Another user's link there would make swurl replace a file of its
    /// target's choosing.
    /// - Throws: `SwurlError.output` naming the link and its owner.
    static func refuseForeignLinkInSharedDirectory(_ path: String, link: stat) throws(SwurlError) {
        guard link.st_uid != geteuid() else { return }
        var dir = stat()
        guard stat(ArgumentBytes.path(directory(of: path)), &dir) == 0,
              dir.st_mode & S_ISVTX != 0, dir.st_mode & S_IWOTH != 0, dir.st_uid != link.st_uid else { return }
        throw .output("cannot write '\(TerminalSanitizer.clean(path))': it is a symbolic link of uid \(link.st_uid) in the shared directory "
                      + "\(TerminalSanitizer.clean(directory(of: path))), which swurl does not follow (as the kernel's protected_symlinks); remove the link, or give the path of the file itself")
    }

    /// The descriptor of this process that `path` names through `/proc` (`/dev/stdout`,
    /// `/dev/fd/N`, `/proc/self/fd/N`, or a link to one), nil for any other path. Writing to a
    /// duplicate of it shares its file position with the shell, as writing to stdout does:
    /// opening the path again would make a description of its own, whose writes the shell's
    /// next one would write over.
    package static func ownDescriptor(_ path: String) -> Int32? {
        var current = path
        for _ in 0..<maxLinks {
            if isInProc(current) {
                // `/proc/PID/fd` (or `/proc/PID/task/TID/fd`) with every link resolved.
                guard let dir = realPath(directory(of: current)) else { return nil }
                let parts = dir.split(separator: "/")
                guard parts.count >= 3, parts[0] == "proc", parts[1] == Substring(String(getpid())), parts.last == "fd",
                      let n = Int32(name(of: current)), n >= 0 else { return nil }
                return n
            }
            guard let next = linkTarget(current) else { return nil }
            current = next
        }
        return nil
    }

    /// Opens a `.direct` target (`path` as given, `target` as `resolve` left it) for writing; -1
    /// with `errno` when it cannot be. One of our own descriptors (`-`, /dev/stdout, /dev/fd/N)
    /// is duplicated, so that its file position moves as it would writing to stdout and what the
    /// shell writes next goes after it, not over it. Anything else is opened by its path; a
    /// regular file reached through /proc (another process's descriptor) is appended to: its
    /// owner opened it, and what it holds is not ours to overwrite.
    ///
    /// Only the standard descriptors are duplicated: a higher number may be one swurl opened
    /// itself (a temporary file, a connection of an earlier REPL line), which the path's open
    /// refuses or keeps apart. A standard one the shell closed (`>&-`) holds the /dev/null that
    /// `Environment.process` put there, close-on-exec as nothing inherited is: EBADF, as a closed
    /// stdout is.
    package static func openInPlace(_ path: String, target: String) -> Int32 {
        if let own = ownDescriptor(path), own <= 2 {
            let flags = fcntl(own, F_GETFD)
            if flags >= 0, flags & FD_CLOEXEC != 0 {
                errno = EBADF
                return -1
            }
            return fcntl(own, F_DUPFD_CLOEXEC, 0)
        }
        // Opening a FIFO waits for its reader; a signal cuts the wait (EINTR), which is a failure
        // only when it was Ctrl-C or SIGTERM (the caller then says `interrupted`).
        var fd: Int32
        repeat {
            fd = open(ArgumentBytes.path(target), O_WRONLY | O_CLOEXEC | (leadsToRegularFile(target) ? O_APPEND : 0))
        } while fd < 0 && errno == EINTR && !Interrupt.requested
        return fd
    }

    /// The failure to open `shown` for writing just now (errno): `interrupted` when Ctrl-C or
    /// SIGTERM cut the open (a FIFO waiting for its reader), else the system's reason.
    package static func openFailure(_ shown: String) -> SwurlError {
        errno == EINTR ? .interrupted : .output("cannot write '\(shown)': \(systemErrorMessage(errno))")
    }

    /// Whether `path`, its links followed, is a regular file.
    package static func leadsToRegularFile(_ path: String) -> Bool {
        var st = stat()
        return stat(ArgumentBytes.path(path), &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
    }

    /// Refuses outputs of one command that would land in one file: the last rename would win
    /// and the others be lost without a word, or writers in place would mix. The same file
    /// reached by another spelling or a link counts, and so does one pipe (`/dev/stdout` and
    /// `/dev/fd/1`). A character device (`/dev/null`, a terminal) loses nothing and is not
    /// checked; a directory is left to the output's own refusal.
    /// - Throws: `SwurlError.usage` naming both options.
    package static func refuseShared(_ outputs: [(option: String, path: String)]) throws(SwurlError) {
        var seen: [(option: String, file: FileIdentity)] = []
        for output in outputs {
            guard let file = identity(of: output.path) else { continue }
            if let other = seen.first(where: { $0.file == file }) {
                throw .usage("\(other.option) and \(output.option) name the same file '\(TerminalSanitizer.clean(output.path))'",
                             hint: "give each output a file of its own")
            }
            seen.append((output.option, file))
        }
    }

    /// The names in directory `dir` of the files `paths` write (their links followed), for a
    /// writer of many files in `dir` that must not take them (batch `--output-dir` beside the
    /// batch's own outputs). Paths that lead elsewhere, or do not resolve, give none.
    package static func names(in dir: String, of paths: [String]) -> Set<String> {
        guard let real = realPath(dir) else { return [] }
        var names: Set<String> = []
        for path in paths {
            let target: String
            switch try? resolve(path) {
            case .file(let t)?: target = t
            // A file reached through /proc (`/dev/stdin` redirected from one): where it lies.
            case .direct?: guard let t = realPath(path) else { continue }; target = t
            default: continue
            }
            guard realPath(directory(of: target)) == real else { continue }
            names.insert(name(of: target))
        }
        return names
    }

    /// Whether `a` and `b` write one file (as `refuseShared` judges it).
    package static func sameFile(_ a: String, _ b: String) -> Bool {
        guard let x = identity(of: a), let y = identity(of: b) else { return false }
        return x == y
    }

    private enum FileIdentity: Equatable {
        case inode(UInt64, UInt64)
        case path(String)
    }

    /// The file `path` writes to: its device and inode when it is there, else its directory's
    /// real path and its name.
    private static func identity(of path: String) -> FileIdentity? {
        let target: String
        switch try? resolve(path) {
        case .file(let t)?, .direct(let t)?: target = t
        case .directory?, nil: return nil
        }
        var st = stat()
        if stat(ArgumentBytes.path(target), &st) == 0 {
            return (st.st_mode & S_IFMT) == S_IFCHR ? nil : .inode(UInt64(st.st_dev), UInt64(st.st_ino))
        }
        let name = OutputTarget.name(of: target)
        guard let real = realPath(directory(of: target)) else { return .path(target) }
        return .path(real + "/" + name)
    }

    /// The regular file a file swurl keeps for the user (a session, the REPL's history) is
    /// written to: `path` itself, or the target its symbolic links lead to, so that the link is
    /// never replaced by a regular file. Only links that are the user's own (or root's) are
    /// followed: another user's link would choose where the user's data goes.
    /// - Returns: the path to replace atomically (`AtomicFile`).
    /// - Throws: `SwurlError.output` saying why (without naming the file's role: callers add it)
    ///   when a link on the way belongs to another user, or the path leads to anything but a
    ///   regular file or a name not there yet.
    package static func ownFile(_ path: String) throws(SwurlError) -> String {
        try refuseForeignLinks(path)
        switch try resolve(path) {
        case .file(let target): return target
        case .directory, .direct:
            throw .output("\(TerminalSanitizer.clean(path)) does not lead to a regular file")
        }
    }

    /// Refuses a path that goes through a symbolic link another user owns (not the user's own or
    /// root's), at its end or in any directory on the way: that user's link would choose which
    /// file is read as the user's own (a config file, a session) or where it is written.
    /// - Throws: `SwurlError.output` naming the link and its owner.
    package static func refuseForeignLinks(_ path: String) throws(SwurlError) {
        guard let (link, uid) = firstForeignLink(path) else { return }
        throw .output("the symbolic link \(TerminalSanitizer.clean(link)) belongs to "
                      + "uid \(uid), not to you (uid \(geteuid())); swurl follows only your own links; "
                      + "remove the link, or give the path of the file itself")
    }

    /// The first symbolic link another user owns that resolving `path` goes through, at its end or
    /// on the way (`walkLookups`); nil when none does.
    static func firstForeignLink(_ path: String) -> (link: String, uid: uid_t)? {
        guard let file = absolute(path) else { return nil }
        var found: (link: String, uid: uid_t)?
        walkLookups(file) { step in
            guard case .link(let link, let owner) = step, owner != geteuid(), owner != 0 else { return true }
            found = (link, owner)
            return false
        }
        return found
    }

    /// One step of the kernel's lookup of a path (`walkLookups`).
    package enum Lookup {
        /// A name is looked up in this directory (every link on its way followed).
        case name(in: String)
        /// This symbolic link is met, and followed next.
        case link(String, owner: uid_t)
    }

    /// Walks `file` (absolute) as the kernel resolves it, name by name: links are followed as it
    /// follows them (a link's target is looked up from the root or from the link's own
    /// directory, a link in it in turn, up to `maxLinks`), and a `.` or `..` is no name anyone can
    /// replace (`/a/w/../f` is looked up in `/`, `/a` and `w`'s real parent, not in `w`). What is
    /// not there is walked as a plain name. The one walker of the rules that a path must not pass
    /// through another user's link or directory (`firstForeignLink`, `FileTrust`).
    /// - Parameter visit: called with each step in order; returning false ends the walk.
    package static func walkLookups(_ file: String, _ visit: (Lookup) -> Bool) {
        var current = "/"
        var pending = Array(file.split(separator: "/").reversed())
        var followed = 0
        while let part = pending.popLast() {
            if part == "." { continue }
            if part == ".." {
                // `current` has its links followed: its parent is the kernel's `..`.
                current = directory(of: current)
                continue
            }
            guard visit(.name(in: current)) else { return }
            let candidate = (current == "/" ? "" : current) + "/" + part
            var st = stat()
            if followed < maxLinks, lstat(ArgumentBytes.path(candidate), &st) == 0, (st.st_mode & S_IFMT) == S_IFLNK,
               let target = readLink(candidate) {
                guard visit(.link(candidate, owner: st.st_uid)) else { return }
                followed += 1
                // The target in place of the link: from the root, or from the link's directory.
                if target.hasPrefix("/") { current = "/" }
                pending.append(contentsOf: target.split(separator: "/").reversed())
                continue
            }
            current = candidate
        }
    }

    /// `path` from the root: a relative one joined to the working directory (kept as its bytes,
    /// `ArgumentBytes`); nil when the working directory cannot be read.
    package static func absolute(_ path: String) -> String? {
        if path.hasPrefix("/") { return path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return nil }
        let cwd = ArgumentBytes.decode(cString: buffer)
        return (cwd == "/" ? "" : cwd) + "/" + path
    }

    /// The path that a successful transfer leaves the bytes at.
    package var path: String {
        switch self {
        case .file(let p), .direct(let p), .directory(let p): return p
        }
    }

    /// `.direct` unless `path` (followed) is a directory.
    private static func kind(of path: String, orFile: String) -> OutputTarget {
        var st = stat()
        if stat(ArgumentBytes.path(path), &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR { return .directory(path) }
        return .direct(orFile)
    }

    /// Whether `path`'s directory, with every link resolved, is `/proc` or below it.
    private static func isInProc(_ path: String) -> Bool {
        let dir = directory(of: path)
        guard let real = realPath(dir) else { return false }
        return real == "/proc" || real.hasPrefix("/proc/")
    }

    /// The longest start of `name` with which `prefix + start + suffix` is a name the file system
    /// holding `directory` takes (`longest`: its _PC_NAME_MAX, asked when not given; 255 when it
    /// cannot be told): for a name made from another near that length (a temporary file, a lock).
    package static func start(of name: String, fitting prefix: String, _ suffix: String, in directory: String,
                              longest: Int? = nil) -> String {
        let asked = longest ?? pathconf(ArgumentBytes.path(directory), Int32(_PC_NAME_MAX))
        let limit = asked > 0 ? asked : 255
        var start = name
        while ArgumentBytes.path(prefix + start + suffix).count - 1 > limit, !start.isEmpty { start.removeLast() }
        return start
    }

    /// The last component of `path` (all of it without a `/`).
    package static func name(of path: String) -> String {
        path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
    }

    /// `a/b/c` → `a/b`; `c` → `.`; `/c` → `/`.
    package static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }

    /// Where the symbolic link at `path` leads: its target, a relative one joined to the link's
    /// directory; nil when `path` is not a link (or cannot be read).
    package static func linkTarget(_ path: String) -> String? {
        guard let target = readLink(path) else { return nil }
        return target.hasPrefix("/") ? target : directory(of: path) + "/" + target
    }

    private static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink(ArgumentBytes.path(path), &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return ArgumentBytes.decode(buffer[..<n].map { UInt8(bitPattern: $0) })
    }

    /// `realpath(3)` of `path`, decoded as arguments are; nil when it cannot be resolved.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(ArgumentBytes.path(path), nil) else { return nil }
        defer { free(resolved) }
        return ArgumentBytes.decode(UnsafeBufferPointer(start: resolved, count: strlen(resolved)).map { UInt8(bitPattern: $0) })
    }
}
