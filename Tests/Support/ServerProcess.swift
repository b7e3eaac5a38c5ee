import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A server process on 127.0.0.1 started for the tests and killed when the test process exits.
public final class ServerProcess: @unchecked Sendable {
    public let port: Int
    public let process: Process
    public let logPath: String

    /// Starts `executable` with `arguments` (where `{PORT}` is replaced by a free port) and
    /// waits until the port accepts connections.
    /// - Throws: when the executable is missing or the port never opens — a missing server fails
    ///   the test run, it is never skipped.
    public init(executable: String, arguments: [String], environment: [String: String]? = nil,
                port: Int? = nil, readyTimeout: Double = 20) throws {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw TestServerError("server executable '\(executable)' is missing; run 'make test' to install it")
        }
        let port = try port ?? ServerProcess.freePort()
        self.port = port
        logPath = TestPaths.temporaryDirectory() + "/server.log"
        FileManager.default.createFile(atPath: logPath, contents: nil)
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments.map { $0.replacingOccurrences(of: "{PORT}", with: String(port)) }
        if let environment { process.environment = environment }
        let log = FileHandle(forWritingAtPath: logPath)
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
        ServerProcess.register(process.processIdentifier)
        let deadline = Date().addingTimeInterval(readyTimeout)
        while !ServerProcess.canConnect(port) {
            guard process.isRunning, Date() < deadline else {
                let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
                process.terminate()
                throw TestServerError("server \(executable) did not start on port \(port):\n\(text.suffix(2000))")
            }
            usleep(50_000)
        }
    }

    /// The server's log so far.
    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    public func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    /// A port that was free a moment ago.
    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestServerError("socket() failed") }
        defer { close(fd) }
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

    /// Whether something accepts TCP connections on 127.0.0.1:port.
    public static func canConnect(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    nonisolated(unsafe) private static var pids: [Int32] = []
    private static let lock = NSLock()
    nonisolated(unsafe) private static var atexitInstalled = false

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

public struct TestServerError: Error, CustomStringConvertible {
    public var description: String
    public init(_ d: String) { description = d }
}
