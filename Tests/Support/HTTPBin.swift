import Foundation

/// httpbin under gunicorn on 127.0.0.1: the one `make test` started for the whole run when
/// `SWURL_TEST_HTTPBIN_PORT` says where it listens (scripts/with-httpbin), else one started once
/// per test process. `swift test --parallel` runs every test in a process of its own, so a
/// server per process is a gunicorn start (about 0.75 s of CPU) for each of the hundred tests
/// that use httpbin; httpbin keeps no state between requests, so one serves them all.
package enum HTTPBin {
    /// Where the server listens.
    package struct Running: Sendable {
        package let port: Int
    }

    nonisolated(unsafe) private static var server: ServerProcess?
    nonisolated(unsafe) private static var failure: Error?
    private static let lock = NSLock()

    /// The running server; starts it on first use when the run has none.
    /// - Throws: when the venv is missing or gunicorn does not come up, or when
    ///   `SWURL_TEST_HTTPBIN_PORT` is not a port (the test then fails).
    package static func shared() throws -> Running {
        if let given = ProcessInfo.processInfo.environment["SWURL_TEST_HTTPBIN_PORT"], !given.isEmpty {
            guard let port = Int(given), port > 0, port < 65536 else {
                throw TestServerError("SWURL_TEST_HTTPBIN_PORT is '\(given)', not a port")
            }
            return Running(port: port)
        }
        lock.lock()
        defer { lock.unlock() }
        if let server { return Running(port: server.port) }
        if let failure { throw failure }
        do {
            // --preload imports httpbin once, before the four workers fork, not once in each.
            let s = try ServerProcess(executable: TestPaths.venv + "/bin/gunicorn",
                                      arguments: ["--preload", "-w", "4", "-b", "127.0.0.1:{PORT}", "--access-logfile", "-", "httpbin:app"],
                                      readiness: HTTPBin.listeningAt)
            server = s
            return Running(port: s.port)
        } catch {
            failure = error
            throw error
        }
    }

    /// gunicorn logs `[INFO] Listening at: http://127.0.0.1:PORT (PID)` once its socket listens.
    private static let listeningAt = ServerProcess.Readiness.announcesPort { line in
        guard let at = line.range(of: "Listening at: http://127.0.0.1:") else { return nil }
        return Int(line[at.upperBound...].prefix { $0.isNumber })
    }

    /// `http://127.0.0.1:PORT` + path.
    package static func url(_ path: String) throws -> String {
        "http://127.0.0.1:\(try shared().port)\(path)"
    }
}
