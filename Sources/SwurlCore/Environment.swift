#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// The process environment as a value: streams, terminal flags, variables and the working
/// directory. Nothing else in swurl reads the real process state, so tests can run the whole
/// program in-process over memory streams.
public struct Environment {
    public var stdin: ByteSource
    public var stdout: ByteSink
    public var stderr: ByteSink
    public var stdinIsTerminal: Bool
    public var stdoutIsTerminal: Bool
    public var stderrIsTerminal: Bool
    /// The size of stdin when it is a regular file (`< file`), so it can be sent with a Content-Length.
    public var stdinFileSize: Int64?
    /// Environment variables (`NO_COLOR`, `TERM`, proxies, `HOME`).
    public var variables: [String: String]
    /// Where relative file paths in request items are resolved.
    public var currentDirectory: String

    public init(stdin: ByteSource, stdout: ByteSink, stderr: ByteSink,
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
    public static func process() -> Environment {
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
        if fstat(0, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG {
            // The remaining bytes from the current offset (a redirected file may have been read from).
            let offset = lseek(0, 0, SEEK_CUR)
            stdinSize = Int64(st.st_size) - Int64(max(offset, 0))
        }
        var cwd = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let dir = getcwd(&cwd, cwd.count) != nil ? String(cString: cwd) : "."
        return Environment(
            stdin: FileDescriptorSource(fd: 0),
            stdout: FileDescriptorSink(fd: 1, name: "stdout"),
            stderr: FileDescriptorSink(fd: 2, name: "stderr"),
            stdinIsTerminal: isatty(0) == 1,
            stdoutIsTerminal: isatty(1) == 1,
            stderrIsTerminal: isatty(2) == 1,
            stdinFileSize: stdinSize,
            variables: vars,
            currentDirectory: dir)
    }

    /// Whether colours are allowed at all: `NO_COLOR` (non-empty) and `TERM=dumb` turn them off.
    public var colorsAllowed: Bool {
        if let v = variables["NO_COLOR"], !v.isEmpty { return false }
        if variables["TERM"] == "dumb" { return false }
        return true
    }

    /// Resolves a user-given path against `currentDirectory` (`~/` against `HOME`).
    public func resolvePath(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        if path.hasPrefix("~/"), let home = variables["HOME"] { return home + path.dropFirst(1) }
        return currentDirectory + "/" + path
    }
}

/// Ends the process with `status`. swurl writes unbuffered and commits its files before this
/// point, so the C library's exit handlers (libcurl's and OpenSSL's global clean-up, which only
/// free memory) are skipped.
public func exitProcess(_ status: Int32) -> Never {
    _exit(status)
}
