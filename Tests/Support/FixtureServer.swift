import Foundation

/// A tiny HTTP server in Python (`Tests/Servers/fixture.py`) on 127.0.0.1 that serves the files of
/// a directory with the Content-Type and status the request asks for:
/// `GET /name?type=image/png&status=404`; `gzip=1` sends the file gzip-encoded,
/// `header=Name:%20value` adds a raw header field, `truncate=N` announces the whole file but sends
/// N bytes and closes the connection. `HEAD` is answered with the head only. Used to test response
/// decoders against real responses.
package final class FixtureServer {
    package let server: ServerProcess
    /// Where fixture files are written before they are requested.
    package let directory: String

    package init() throws {
        directory = TestPaths.temporaryDirectory()
        server = try ServerProcess(executable: TestPaths.venv + "/bin/python3",
                                   arguments: [TestPaths.server("fixture.py"), "{PORT}", directory])
    }

    /// Writes a fixture file.
    package func put(_ name: String, _ bytes: Data) throws {
        try bytes.write(to: URL(fileURLWithPath: directory + "/" + name))
    }

    /// Writes a fixture file from text.
    package func put(_ name: String, _ text: String) throws {
        try put(name, Data(text.utf8))
    }

    /// The URL of a fixture served with `type` (none when nil) and `status`.
    package func url(_ name: String, type: String? = nil, status: Int = 200, gzip: Bool = false,
                    headers: [String] = [], truncate: Int? = nil, chunk: Int? = nil) -> String {
        var query: [String] = ["status=\(status)"]
        if let truncate { query.append("truncate=\(truncate)") }
        if let chunk { query.append("chunk=\(chunk)") }
        if gzip { query.append("gzip=1") }
        for h in headers { query.append("header=" + (h.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? h)) }
        if let type { query.append("type=" + (type.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? type)) }
        return "http://127.0.0.1:\(server.port)/\(name)?" + query.joined(separator: "&")
    }

    deinit { server.stop() }
}
