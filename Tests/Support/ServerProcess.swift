import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A server process on 127.0.0.1 started for the tests and killed when the test process exits.
///
/// The server binds its own port: `{PORT}` in its arguments becomes `0` (or the port asked for)
/// and the server reports the port it got once it listens — the Python servers print it on
/// their first line, gunicorn logs `Listening at:`. Nothing probes the port, so in a parallel run
/// no test can reach another test's server that took a port in between (freePort's old race).
package final class ServerProcess: @unchecked Sendable {
    package let port: Int
    package let process: Process
    package let logPath: String

    /// How a server says it is ready.
    package enum Readiness: Sendable {
        /// It prints the port it listens on: the first output line that this maps to a port.
        case announcesPort(@Sendable (String) -> Int?)
        /// It writes this file once it listens on the port it was given (nginx's pid file).
        case writesFile(String)

        /// A Python server of Tests/Servers: the first line is the port number.
        package static let portLine = Readiness.announcesPort { Int($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// Starts `executable` with `arguments` (where `{PORT}` is replaced by `port`, or by 0 for a
    /// port the server picks) and waits until it is ready (`readiness`). Its stdout and stderr go
    /// to `logPath`.
    /// - Throws: when the executable is missing, or the server exits (or hangs for a minute) before
    ///   it is ready — a missing server fails the test run, it is never skipped.
    package init(executable: String, arguments: [String], environment: [String: String]? = nil,
                port: Int? = nil, readiness: Readiness = .portLine) throws {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw TestServerError("server executable '\(executable)' is missing; run 'make test' to install it")
        }
        let logPath = TestPaths.temporaryDirectory() + "/server.log"
        FileManager.default.createFile(atPath: logPath, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments.map { $0.replacingOccurrences(of: "{PORT}", with: String(port ?? 0)) }
        if let environment { process.environment = environment }
        // Both ends close on exec (a socket pair: Glibc's pipe2 is not visible from Swift): a server
        // started at the same time by another thread must not inherit the write end, or this
        // one's exit would never read as the end of its output.
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            throw TestServerError("socketpair() failed")
        }
        let output = FileHandle(fileDescriptor: fds[1], closeOnDealloc: false)
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            close(fds[0]); close(fds[1])
            throw error
        }
        close(fds[1])
        ServerProcess.register(process.processIdentifier)
        var parse: (@Sendable (String) -> Int?)?
        if case .announcesPort(let p) = readiness { parse = p }
        let announcement = ServerProcess.copyOutput(from: fds[0], to: logPath, announcing: parse)
        var got: Int?
        switch readiness {
        case .announcesPort:
            got = announcement.wait()
        case .writesFile(let file):
            got = ServerProcess.awaitFile(file, of: process) ? port : nil
        }
        func failure(_ why: String) -> TestServerError {
            if process.isRunning { process.terminate() }
            let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            return TestServerError("server \(executable) \(why):\n\(text.suffix(2000))")
        }
        guard let got else { throw failure("did not start") }
        if let port, got != port { throw failure("listens on port \(got), not on \(port)") }
        self.port = got
        self.process = process
        self.logPath = logPath
    }

    /// The server's log so far.
    package var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    package func stop() {
        if process.isRunning {
            process.terminate()
            waitForExit(process)
        }
    }

    /// The port a server reports, or nil when it ended (or hung for a minute) before it did.
    final class Announcement: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var port: Int?
        private var said = false

        func say(_ port: Int?) {
            lock.lock()
            defer { lock.unlock() }
            guard !said else { return }
            said = true
            self.port = port
            done.signal()
        }

        /// A watchdog, not a time bound a test asserts on: a server that never says anything
        /// fails the test after a minute instead of hanging the run.
        func wait() -> Int? {
            guard done.wait(timeout: .now() + 60) == .success else { return nil }
            lock.lock()
            defer { lock.unlock() }
            return port
        }
    }

    /// Copies the server's output to the log on a thread of its own until the server closes it,
    /// and meanwhile passes each line to `parse` until it names the port.
    private static func copyOutput(from fd: Int32, to logPath: String, announcing parse: (@Sendable (String) -> Int?)?) -> Announcement {
        let announcement = Announcement()
        let log = FileHandle(forWritingAtPath: logPath)
        let thread = Thread {
            var pending = Data()
            var buffer = [UInt8](repeating: 0, count: 65536)
            var waiting = parse != nil
            while true {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { break }
                let chunk = Data(buffer[0..<n])
                log?.write(chunk)
                guard waiting, let parse else { continue }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending = Data(pending[(newline + 1)...])
                    if let port = parse(line) {
                        announcement.say(port)
                        waiting = false
                        break
                    }
                }
            }
            close(fd)
            try? log?.close()
            announcement.say(nil)
        }
        thread.start()
        return announcement
    }

    /// Waits (polling every 10 ms) until `file` exists and is not empty: true; false when the
    /// process ends first, or after a minute (a watchdog).
    private static func awaitFile(_ file: String, of process: Process) -> Bool {
        let watchdog = Date().addingTimeInterval(60)
        while Date() < watchdog {
            if let size = (try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? Int, size > 0 { return true }
            guard process.isRunning else { return false }
            usleep(10_000)
        }
        return false
    }

    /// A port that was free a moment ago, for a server that cannot bind port 0 itself (nginx):
    /// another server may take it before this one binds it, so the caller retries when its
    /// server exits with "Address already in use".
    package static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestServerError("socket() failed") }
        defer { close(fd) }
        return try boundPort(fd)
    }

    /// A port nothing listens on, for tests of a refused connection: a socket bound to it without
    /// listen(), kept open until the test process ends, so no server can take the port meanwhile.
    package static func refusedPort() throws -> Int { try reservedPort(listening: false) }

    /// A port that takes connections (the kernel's backlog) and never answers: a socket bound and
    /// listening, never accepting, kept open until the test process ends (a handshake or a
    /// response that never comes).
    package static func silentPort() throws -> Int { try reservedPort(listening: true) }

    private static func reservedPort(listening: Bool) throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestServerError("socket() failed") }
        let port: Int
        do {
            port = try boundPort(fd)
            guard !listening || listen(fd, 16) == 0 else { throw TestServerError("listen() failed") }
        } catch {
            close(fd)
            throw error
        }
        lock.lock()
        reserved.append(fd)
        lock.unlock()
        return port
    }

    /// Binds `fd` to a port the kernel picks on 127.0.0.1 and returns it.
    private static func boundPort(_ fd: Int32) throws -> Int {
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sp in
                bind(fd, sp, len) == 0 && getsockname(fd, sp, &len) == 0
            }
        }
        guard ok else { throw TestServerError("bind() failed") }
        return Int(UInt16(bigEndian: addr.sin_port))
    }

    nonisolated(unsafe) private static var pids: [Int32] = []
    private static let lock = NSLock()
    nonisolated(unsafe) private static var atexitInstalled = false
    nonisolated(unsafe) private static var reserved: [Int32] = []

    private static func register(_ pid: Int32) {
        lock.lock()
        defer { lock.unlock() }
        pids.append(pid)
        if !atexitInstalled {
            atexitInstalled = true
            atexit {
                for pid in ServerProcess.pids { kill(pid, SIGTERM) }
            }
        }
    }
}

package struct TestServerError: Error, CustomStringConvertible {
    package var description: String
    package init(_ d: String) { description = d }
}

extension ServerProcess {
    /// `Tests/Servers/connect_proxy.py` (CONNECT, SOCKS5 and the hosts it answers as a broken or
    /// hostile proxy), logging the heads it receives to a file of its own, `log`.
    package static func connectProxy() throws -> (proxy: ServerProcess, log: String) {
        let log = TestPaths.temporaryDirectory() + "/connect-proxy.log"
        return (try ServerProcess(executable: "/usr/bin/python3", arguments: [TestPaths.server("connect_proxy.py"), "{PORT}", log]), log)
    }
}
