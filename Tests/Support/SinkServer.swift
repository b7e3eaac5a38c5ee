import Foundation

/// An HTTP server in Python (`Tests/Servers/sink.py`) that reads each request body as it streams in
/// (Content-Length or chunked), hashes it without keeping it, and answers with JSON: method, path,
/// headers, body length and SHA-256. Optionally it also saves the body to a file for parsing.
package final class SinkServer {
    package let server: ServerProcess

    package init(saveBodiesTo directory: String? = nil) throws {
        server = try ServerProcess(executable: TestPaths.venv + "/bin/python3",
                                   arguments: [TestPaths.server("sink.py"), "{PORT}"] + (directory.map { [$0] } ?? []))
    }

    package var url: String { "http://127.0.0.1:\(server.port)" }

    deinit { server.stop() }
}
