#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// The process environment as a value: streams, terminal flags, variables and the working
/// directory. Nothing else in swurl reads the real process state, so tests can run the whole
/// program in-process over memory streams.
package struct Environment {
    package var stdin: ByteSource
    package var stdout: ByteSink
    package var stderr: ByteSink
    package var stdinIsTerminal: Bool
    package var stdoutIsTerminal: Bool
    package var stderrIsTerminal: Bool
    /// The size of stdin when it is a regular file (`< file`), so it can be sent with a Content-Length.
    package var stdinFileSize: Int64?
    /// Whether stdin has bytes waiting right now (a pipe with data, a non-empty file), asked
    /// without reading any; used to warn that piped input is not sent.
    package var stdinHasData: () -> Bool = { false }
    /// Environment variables (`NO_COLOR`, `TERM`, proxies, `HOME`).
    package var variables: [String: String]
    /// Where relative file paths in request items are resolved.
    package var currentDirectory: String
    /// Where the command being run was read from, when not the command line (`line 3` of a REPL
    /// script): error messages start with it, as a batch's and a config file's do.
    package var errorPlace: String?
    /// Told when what a request keeps after it (its `--session`) could not be saved: a REPL
    /// script stops then, as a batch stops taking lines when its `--har` cannot be written.
    package var stateNotSaved: ((SwurlError) -> Void)?
    /// Told once a request's checks passed and it is about to be sent (not for `--offline`): the
    /// REPL binds the default credentials a line sends to its origin then, never for a line
    /// refused before it sent anything (`-o` naming a directory).
    package var willSend: (() -> Void)?

    /// Whether output can no longer reach stdout: its reader went away, or a write to it failed
    /// (a full disk, an I/O error), or the shell closed it.
    package var stdoutUnusable: Bool {
        if stdout is ClosedSink { return true }
        guard let sink = stdout as? FileDescriptorSink else { return false }
        return sink.writeFailed || sink.readerGone
    }

    package init(stdin: ByteSource, stdout: ByteSink, stderr: ByteSink,
                stdinIsTerminal: Bool = false, stdoutIsTerminal: Bool = false, stderrIsTerminal: Bool = false,
                stdinFileSize: Int64? = nil, variables: [String: String] = [:], currentDirectory: String = ".") {
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = stderr
        self.stdinIsTerminal = stdinIsTerminal
        self.stdoutIsTerminal = stdoutIsTerminal
        self.stderrIsTerminal = stderrIsTerminal
        self.stdinFileSize = stdinFileSize
        self.variables = variables
        self.currentDirectory = currentDirectory
    }

    /// The real process: file descriptors 0, 1, 2 and `environ`.
    ///
    /// A standard descriptor the shell closed (`>&-`, `<&-`) is reopened on /dev/null first, so
    /// no file or socket swurl opens later can take its number and receive what was meant for
    /// it; a closed stdin then reads as empty, and writing to a closed stdout fails.
    package static func process() -> Environment {
        var closed = [false, false, false]
        for fd: Int32 in 0...2 where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
            closed[Int(fd)] = true
            // open() returns the lowest free number: the one just found closed.
            _ = open("/dev/null", (fd == 0 ? O_RDONLY : O_WRONLY) | O_CLOEXEC)
        }
        var vars: [String: String] = [:]
        var p = environ
        while let entry = p.pointee {
            // Split at the first '=' on bytes: Character-wise search costs more than the rest of start-up.
            let length = strlen(entry)
            entry.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
                let all = UnsafeBufferPointer(start: bytes, count: length)
                if let eq = all.firstIndex(of: UInt8(ascii: "=")) {
                    vars[String(decoding: all[..<eq], as: UTF8.self)] = String(decoding: all[(eq + 1)...], as: UTF8.self)
                }
            }
            p += 1
        }
        var st = stat()
        var stdinSize: Int64?
        if fstat(0, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, RegularFile.sizeIsTrue(st, fd: 0) {
            // The remaining bytes from the current offset (a redirected file may have been read from).
            let offset = lseek(0, 0, SEEK_CUR)
            stdinSize = Int64(st.st_size) - Int64(max(offset, 0))
        }
        var cwd = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        // Its bytes as given, as argv's (`ArgumentBytes`): a directory whose name is not UTF-8
        // read as U+FFFD made every relative output path one that does not exist.
        let dir = getcwd(&cwd, cwd.count) != nil ? ArgumentBytes.decode(cString: cwd) : "."
        var environment = Environment(
            stdin: closed[0] ? MemorySource([]) : FileDescriptorSource(fd: 0),
            stdout: closed[1] ? ClosedSink(name: "stdout") : FileDescriptorSink(fd: 1, name: "stdout"),
            stderr: FileDescriptorSink(fd: 2, name: "stderr"),
            stdinIsTerminal: isatty(0) == 1,
            stdoutIsTerminal: isatty(1) == 1,
            stderrIsTerminal: isatty(2) == 1,
            stdinFileSize: stdinSize,
            variables: vars,
            currentDirectory: dir)
        if !closed[0] {
            environment.stdinHasData = {
                if let size = stdinSize { return size > 0 }
                var fds = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
                guard poll(&fds, 1, 0) == 1, fds.revents & Int16(POLLIN) != 0 else { return false }
                var available: Int32 = 0
                return ioctl(0, UInt(FIONREAD), &available) == 0 && available > 0
            }
        }
        return environment
    }

    /// Whether colours are allowed at all: `NO_COLOR` (non-empty) and `TERM=dumb` turn them off.
    package var colorsAllowed: Bool {
        if let v = variables["NO_COLOR"], !v.isEmpty { return false }
        if isDumbTerminal { return false }
        return true
    }

    /// `TERM=dumb`: a terminal without colours or cursor controls.
    package var isDumbTerminal: Bool { variables["TERM"] == "dumb" }

    /// Resolves a user-given path against `currentDirectory` (`~/` against the home directory).
    package func resolvePath(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        if path.hasPrefix("~/"), let home = homeDirectory { return home + path.dropFirst(1) }
        return currentDirectory + "/" + path
    }

    /// The user's home directory: `HOME`, or when it is unset or empty (cron, `env -i`, some
    /// service managers) the password database's entry for this user, as curl and Python's
    /// `expanduser` (HTTPie) fall back; nil when neither names one.
    package var homeDirectory: String? { Environment.homeDirectory(variables) }

    package static func homeDirectory(_ variables: [String: String]) -> String? {
        if let home = variables["HOME"], !home.isEmpty { return home }
        return passwordDatabaseHome()
    }

    /// An XDG base directory: `$VARIABLE` when it is an absolute path (the XDG rule: a relative
    /// one is ignored), else `fallback` under the home directory (`.config`, `.cache`,
    /// `.local/state`); nil without a home directory.
    package static func baseDirectory(_ variables: [String: String], _ variable: String, fallback: String) -> String? {
        if let x = variables[variable], x.hasPrefix("/") { return x }
        return homeDirectory(variables).map { $0 + "/" + fallback }
    }

    /// This user's home directory in the password database (`getpwuid_r`), when it names one.
    private static func passwordDatabaseHome() -> String? {
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>?
        var size = 4096
        while size <= 1 << 20 {
            var buffer = [CChar](repeating: 0, count: size)
            let status = getpwuid_r(getuid(), &entry, &buffer, size, &found)
            if status == ERANGE { size *= 4; continue }
            guard status == 0, found != nil, let dir = entry.pw_dir else { return nil }
            let home = String(cString: dir)
            return home.hasPrefix("/") ? home : nil
        }
        return nil
    }
}

/// Ends the process with `status`. swurl writes unbuffered and commits its files before this
/// point, so the C library's exit handlers (libcurl's and OpenSSL's global clean-up, which only
/// free memory) are skipped.
package func exitProcess(_ status: Int32) -> Never {
    _exit(status)
}
