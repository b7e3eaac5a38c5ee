import Foundation

/// A tiny HTTP server in Python on 127.0.0.1 that serves the files of a directory with the
/// Content-Type and status the request asks for: `GET /name?type=image/png&status=404`;
/// `gzip=1` sends the file gzip-encoded, `header=Name:%20value` adds a raw header field,
/// `truncate=N` announces the whole file but sends N bytes and closes the connection.
/// `HEAD` is answered with the head only. Used to test response decoders against real responses.
public final class FixtureServer {
    public let server: ServerProcess
    /// Where fixture files are written before they are requested.
    public let directory: String

    public init() throws {
        directory = TestPaths.temporaryDirectory()
        let script = """
        import gzip, http.server, os, sys, urllib.parse
        root = sys.argv[2]
        class H(http.server.BaseHTTPRequestHandler):
            protocol_version = 'HTTP/1.1'
            def answer(self, body_too):
                u = urllib.parse.urlparse(self.path)
                q = urllib.parse.parse_qs(u.query)
                try:
                    body = open(os.path.join(root, u.path.lstrip('/')), 'rb').read()
                except OSError:
                    body = b''
                status = int(q.get('status', ['200'])[0])
                self.send_response(status)
                if 'type' in q:
                    self.send_header('Content-Type', q['type'][0])
                if 'gzip' in q:
                    body = gzip.compress(body)
                    self.send_header('Content-Encoding', 'gzip')
                for h in q.get('header', []):
                    name, _, value = h.partition(':')
                    self.send_header(name, value.strip())
                if status not in (204, 304):
                    self.send_header('Content-Length', str(len(body)))
                self.end_headers()
                if body_too and status not in (204, 304):
                    if 'truncate' in q:
                        self.wfile.write(body[:int(q['truncate'][0])])
                        self.wfile.flush()
                        self.close_connection = True
                        return
                    self.wfile.write(body)
            def do_GET(self): self.answer(True)
            def do_HEAD(self): self.answer(False)
            def log_message(self, *a): pass
        http.server.ThreadingHTTPServer(('127.0.0.1', int(sys.argv[1])), H).serve_forever()
        """
        server = try ServerProcess(executable: TestPaths.venv + "/bin/python3",
                                   arguments: ["-c", script, "{PORT}", directory])
    }

    /// Writes a fixture file.
    public func put(_ name: String, _ bytes: Data) throws {
        try bytes.write(to: URL(fileURLWithPath: directory + "/" + name))
    }

    /// Writes a fixture file from text.
    public func put(_ name: String, _ text: String) throws {
        try put(name, Data(text.utf8))
    }

    /// The URL of a fixture served with `type` (none when nil) and `status`.
    public func url(_ name: String, type: String? = nil, status: Int = 200, gzip: Bool = false,
                    headers: [String] = [], truncate: Int? = nil) -> String {
        var query: [String] = ["status=\(status)"]
        if let truncate { query.append("truncate=\(truncate)") }
        if gzip { query.append("gzip=1") }
        for h in headers { query.append("header=" + (h.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? h)) }
        if let type { query.append("type=" + (type.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? type)) }
        return "http://127.0.0.1:\(server.port)/\(name)?" + query.joined(separator: "&")
    }

    deinit { server.stop() }
}
