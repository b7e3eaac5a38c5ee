import CSupport
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Opening a file swurl reads as its own state (a session, the config file) without hanging:
/// a FIFO would block `open` until some writer appears, and a device never ends. The file is
/// opened with O_NONBLOCK (which no open of a FIFO waits under), judged by `fstat` and handed
/// back blocking, or refused.
package enum RegularFile {
    /// How opening went.
    package enum Opening: Equatable, Sendable {
        /// A regular file, open for reading (blocking); the caller closes it.
        case opened(Int32)
        /// Nothing there (ENOENT, or ENOTDIR for a directory on the path).
        case missing
        /// `open` or `fstat` failed with this errno.
        case failed(Int32)
        /// Something else: "a FIFO", "a directory", "a character device", ….
        case notRegular(String)
    }

    /// `rename(2)` that never replaces a file at `to`: renameat2 with RENAME_NOREPLACE, or where
    /// the file system (NFS, CIFS) or a filter refuses that, `link(2)` (which never replaces
    /// either) then `unlink(2)` of `from`, or where neither can be done (vfat) a check just
    /// before a plain rename. 0, or -1 with errno EEXIST when `to` exists, another errno else.
    package static func renameNoReplace(_ from: String, _ to: String) -> Int32 {
        let src = ArgumentBytes.path(from), dst = ArgumentBytes.path(to)
        if sw_rename_noreplace(src, dst) == 0 { return 0 }
        guard errno == EINVAL || errno == ENOSYS || errno == EPERM else { return -1 }
        if link(src, dst) == 0 || errno == EEXIST && sameFile(src, dst) {
            // (EEXIST for a link that was made: NFS retransmits.) Two names for one file must not
            // stay: the `.part` is written to again by a resume.
            guard unlink(src) == 0 else {
                let e = errno
                unlink(dst)
                errno = e
                return -1
            }
            return 0
        }
        if errno == EEXIST || errno == ENOENT || errno == EACCES || errno == ENOSPC || errno == EDQUOT { return -1 }
        var st = stat()
        if lstat(dst, &st) == 0 {
            errno = EEXIST
            return -1
        }
        return rename(src, dst)
    }

    /// Whether two paths are one file (device and inode, links not followed).
    private static func sameFile(_ a: [CChar], _ b: [CChar]) -> Bool {
        var sa = stat(), sb = stat()
        return lstat(a, &sa) == 0 && lstat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }

    /// Whether `path` (its link not followed) is the file open as `fd`: not removed, renamed
    /// away or replaced by another since it was opened.
    package static func isOpenFile(_ fd: Int32, at path: String) -> Bool {
        var open = stat(), named = stat()
        return fstat(fd, &open) == 0 && lstat(ArgumentBytes.path(path), &named) == 0
            && open.st_dev == named.st_dev && open.st_ino == named.st_ino
    }

    /// Opens `path` for reading if it is a regular file (links followed).
    package static func open(_ path: String) -> Opening {
        let fd = Glibc.open(ArgumentBytes.path(path), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        if fd < 0 {
            return errno == ENOENT || errno == ENOTDIR ? .missing : .failed(errno)
        }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let e = errno
            close(fd)
            return .failed(e)
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            return .notRegular(kind(st.st_mode))
        }
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
        return .opened(fd)
    }

    /// Whether a regular file's size tells how many bytes reading it gives: not on the kernel's
    /// own file systems (/proc, /sys, cgroups, debugfs, tracefs, securityfs, configfs), whose
    /// files say 0 or a page (4096) whatever they hold, nor for a file that says 0 (FUSE files
    /// such as lxcfs's /proc in a container say so too; read to its end, an empty file is still
    /// no bytes).
    package static func sizeIsTrue(_ st: stat, fd: Int32) -> Bool {
        st.st_size > 0 && isOrdinary(sw_fs_type(fd))
    }

    /// `sizeIsTrue` for a path (links followed), by statfs(2): no second open beside the
    /// caller's stat.
    package static func sizeIsTrue(path: [CChar], _ st: stat) -> Bool {
        st.st_size > 0 && isOrdinary(sw_path_fs_type(path))
    }

    /// Whether a file system's magic number (-1: unknown) is none of the kernel's own: proc,
    /// sysfs, cgroup, cgroup2, debugfs, tracefs, securityfs, configfs.
    private static func isOrdinary(_ type: Int) -> Bool {
        type < 0 || ![0x9fa0, 0x6265_6572, 0x0027_e0eb, 0x6367_7270, 0x6462_6720, 0x7472_6163, 0x7363_6673, 0x6265_6570].contains(type)
    }

    /// The file type, as messages name it.
    static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: return "a FIFO"
        case S_IFDIR: return "a directory"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        default: return "a special file"
        }
    }
}
