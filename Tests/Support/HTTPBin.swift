import Foundation

/// httpbin under gunicorn on 127.0.0.1, started once per test process.
package enum HTTPBin {
    nonisolated(unsafe) private static var server: ServerProcess?
    nonisolated(unsafe) private static var failure: Error?
    private static let lock = NSLock()

    /// The running server; starts it on first use.
    /// - Throws: when the venv is missing or gunicorn does not come up (the test then fails).
    package static func shared() throws -> ServerProcess {
        lock.lock()
        defer { lock.unlock() }
        if let server { return server }
        if let failure { throw failure }
        do {
            // --preload imports httpbin once, before the four workers fork, not once in each.
            let s = try ServerProcess(executable: TestPaths.venv + "/bin/gunicorn",
                                      arguments: ["--preload", "-w", "4", "-b", "127.0.0.1:{PORT}", "--access-logfile", "-", "httpbin:app"],
                                      readiness: HTTPBin.listeningAt)
            server = s
            return s
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
