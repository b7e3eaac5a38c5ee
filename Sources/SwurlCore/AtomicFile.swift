#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// The one atomic writer: bytes go to a temporary file in the target's own directory
/// (`.NAME.swurl-XXXXXX`), which replaces the target by `rename(2)` only when `commit` is called,
/// so a reader sees the old file or the new one, never a torn one, and a failure leaves the
/// target as it was. The target is a path with its links already resolved (`OutputTarget`): the
/// rename replaces the file a link leads to, never the link. Used by `-o`, session files and the REPL history;
/// downloads keep a `.part` of their own, which must outlive a failure, and batch bodies a
/// temporary file whose final name (`{status}`) is known only at the end.
package final class AtomicFile {
    /// The file the commit replaces.
    package let target: String
    private let tempPath: String
    private var fd: Int32
    private var done = false

    /// Opens the temporary file.
    /// - Parameters:
    ///   - mode: the new file's mode; nil keeps an existing target's mode, or gives a new one
    ///     0666 less the umask, as `open(2)` would.
    ///   - inPlaceAdvice: added to the message when the user may write the target but its
    ///     directory takes no new file (how to write it in place instead, where the door has a way).
    /// - Throws: `SwurlError.output` when the directory cannot take a new file, `.usage` for a
    ///   name longer than its file system allows.
    package init(replacing target: String, mode: mode_t? = nil, inPlaceAdvice: String? = nil) throws(SwurlError) {
        self.target = target
        let shown = AtomicFile.shown(target)
        let dir = OutputTarget.directory(of: target)
        // A name past the file system's longest could be written to a temporary file and fail
        // only at the rename, after the request went out (a POST's answer lost): refused now.
        let nameBytes = ArgumentBytes.path(OutputTarget.name(of: target)).count - 1
        let longest = pathconf(ArgumentBytes.path(dir), Int32(_PC_NAME_MAX))
        if longest > 0, nameBytes > longest {
            throw .usage("cannot write '\(shown)': its name is \(nameBytes) bytes, longer than the file system allows (\(longest))",
                         hint: "give a shorter file name")
        }
        // The temporary name is 14 bytes longer than the target's: for a name near the file
        // system's longest (255 bytes on ext4), it takes a shorter start of it.
        let base = OutputTarget.start(of: OutputTarget.name(of: target), fitting: ".", ".swurl-XXXXXX", in: dir, longest: longest)
        guard let made = AtomicFile.makeTemporary(dir + "/." + base + ".swurl-XXXXXX") else {
            let failure = errno
            // `-o nodir/x`: the directory is what is missing, not the file.
            var st = stat()
            if failure == ENOENT, stat(ArgumentBytes.path(dir), &st) != 0 {
                throw .output("cannot write '\(shown)': the directory '\(AtomicFile.shown(dir))' does not exist")
            }
            // A file the user may write in a directory that takes no new file: why a file beside.
            let writable = (failure == EACCES || failure == EROFS || failure == EPERM) && access(ArgumentBytes.path(target), W_OK) == 0
            throw .output("cannot create a file beside '\(shown)': \(systemErrorMessage(failure))"
                          + (writable ? " (swurl writes a new file beside it and renames it over the old one, so that a failure never leaves it half written; "
                                        + "this directory takes no new file)" + (inPlaceAdvice ?? "") : ""))
        }
        self.fd = made.fd
        tempPath = made.path
        var st = stat()
        if let refusal = AtomicFile.replaceRefusal(target) {
            close(fd)
            self.fd = -1
            unlink(ArgumentBytes.path(tempPath))
            done = true
            throw refusal
        }
        if let mode {
            fchmod(fd, mode)
        } else if stat(ArgumentBytes.path(target), &st) == 0 {
            let fd = self.fd
            AtomicFile.lend(st, chmod: { fchmod(fd, $0) }, chown: { fchown(fd, $0, $1) })
        } else {
            fchmod(fd, AtomicFile.newFileMode())
        }
    }

    deinit { discard() }

    /// The descriptor to write to (until `commit` or `discard`).
    package var descriptor: Int32 { fd }

    /// Writes all of `bytes`.
    /// - Throws: `SwurlError.output` naming `describing`.
    package func write(_ bytes: UnsafeRawBufferPointer, describing: String) throws(SwurlError) {
        try writeAll(fd, bytes, describing: describing)
    }

    /// Puts the file in place of the target (after `fsync` when `durable`).
    /// - Throws: `SwurlError.output`; the target is then left as it was.
    package func commit(durable: Bool = false) throws(SwurlError) {
        guard !done else { return }
        done = true
        let synced = !durable || fsync(fd) == 0
        let syncError = errno
        let closed = close(fd) == 0
        fd = -1
        guard synced, closed, rename(ArgumentBytes.path(tempPath), ArgumentBytes.path(target)) == 0 else {
            let e = synced ? errno : syncError
            unlink(ArgumentBytes.path(tempPath))
            throw .output("saving '\(AtomicFile.shown(target))' failed: \(systemErrorMessage(e))")
        }
    }

    /// Makes a new file of a name no other has, from `template` (a path ending in `XXXXXX`,
    /// its bytes as `ArgumentBytes` carries them), opened for writing, mode 0600, closed on exec.
    /// Nil (errno set) when it cannot be made.
    package static func makeTemporary(_ template: String) -> (fd: Int32, path: String)? {
        var bytes = ArgumentBytes.path(template)
        let fd = bytes.withUnsafeMutableBufferPointer { buf in buf.baseAddress.map { mkstemp($0) } ?? -1 }
        guard fd >= 0 else { return nil }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        return (fd, ArgumentBytes.decode(cString: bytes))
    }

    /// Why `target` may not be replaced, found before the work: in a directory with the sticky
    /// bit (/tmp) only the file's or the directory's owner may replace it (the rename would
    /// fail); and a regular file its mode makes read-only for this user is not replaced either
    /// (curl and HTTPie fail to open it for writing; a rename would replace it all the same).
    /// Nil when neither holds (or there is nothing to replace).
    package static func replaceRefusal(_ target: String) -> SwurlError? {
        var st = stat()
        let path = ArgumentBytes.path(target)
        guard lstat(path, &st) == 0 else { return nil }
        if st.st_uid != geteuid(), othersShare(OutputTarget.directory(of: target)) {
            return .output("cannot replace '\(shown(target))': it is another user's file in a directory with the sticky bit, where only its owner may replace it; write to another name")
        }
        if st.st_mode & S_IFMT == S_IFREG, faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) != 0, errno == EACCES {
            return .output("cannot replace '\(shown(target))': it is read-only; make it writable (chmod u+w) or write to another name")
        }
        return nil
    }

    /// Whether `directory` has the sticky bit and another owner, for a user who is not root:
    /// there only a file's owner may replace it.
    package static func othersShare(_ directory: String) -> Bool {
        let uid = geteuid()
        var st = stat()
        return uid != 0 && stat(ArgumentBytes.path(directory), &st) == 0 && st.st_mode & S_ISVTX != 0 && st.st_uid != uid
    }

    /// What a file replacing `old` takes of it: its permission bits, never set-user-ID,
    /// set-group-ID or sticky (the kernel drops the first two when anyone but root writes a file
    /// in place; a new file carrying them would run the server's bytes as the writer — root, when
    /// root replaces a user's file), and its owner and group where the writer may give them (root:
    /// the user's file stays the user's, as written in place it would; else the group, when the
    /// writer is in it). `chmod` and `chown` apply them to the new file (its descriptor or its path).
    /// The owner first: the new file holds the bytes already, and takes the old one's group
    /// bits only once it has the old one's group.
    package static func lend(_ old: stat, chmod: (mode_t) -> Int32, chown: (uid_t, gid_t) -> Int32) {
        if old.st_uid != geteuid() || old.st_gid != getegid(), chown(old.st_uid, old.st_gid) != 0 {
            _ = chown(uid_t.max, old.st_gid)
        }
        _ = chmod(old.st_mode & 0o777)
    }

    /// 0666 less the umask: the mode open(2) gives a new file.
    package static func newFileMode() -> mode_t {
        let mask = umask(0)
        umask(mask)
        return 0o666 & ~mask
    }

    /// Whether `directory` has the sticky bit (whoever owns it).
    package static func isSticky(_ directory: String) -> Bool {
        var st = stat()
        return stat(ArgumentBytes.path(directory), &st) == 0 && st.st_mode & S_ISVTX != 0
    }

    /// A path as messages show it: bytes that are not UTF-8 as `\xE9`, controls escaped.
    package static func shown(_ path: String) -> String { TerminalSanitizer.clean(ArgumentBytes.shown(path)) }

    /// Removes the temporary file; the target stays as it was.
    package func discard() {
        guard !done else { return }
        done = true
        if fd >= 0 { close(fd) }
        fd = -1
        unlink(ArgumentBytes.path(tempPath))
    }
}
