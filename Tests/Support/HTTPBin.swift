import Foundation

/// httpbin under gunicorn on 127.0.0.1, started once per test process.
public enum HTTPBin {
    nonisolated(unsafe) private static var server: ServerProcess?
    nonisolated(unsafe) private static var failure: Error?
    private static let lock = NSLock()

    /// The running server; starts it on first use.
    /// - Throws: when the venv is missing or gunicorn does not come up (the test then fails).
    public static func shared() throws -> ServerProcess {
        lock.lock()
        defer { lock.unlock() }
        if let server { return server }
        if let failure { throw failure }
        do {
            let s = try ServerProcess(executable: TestPaths.venv + "/bin/gunicorn",
                                      arguments: ["-w", "4", "-b", "127.0.0.1:{PORT}", "--access-logfile", "-", "httpbin:app"])
            server = s
            return s
        } catch {
            failure = error
            throw error
        }
    }

    /// `http://127.0.0.1:PORT` + path.
    public static func url(_ path: String) throws -> String {
        "http://127.0.0.1:\(try shared().port)\(path)"
    }
}
