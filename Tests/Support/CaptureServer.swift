import Foundation

/// A one-connection TCP server in Python that records the exact bytes a client sent, then
/// answers `200 OK` — to compare `--offline` output with what really went over the wire.
public final class CaptureServer {
    public let server: ServerProcess
    public let capturePath: String

    public init() throws {
        let dir = TestPaths.temporaryDirectory()
        capturePath = dir + "/capture.bin"
        let script = """
        import socket, sys
        s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(('127.0.0.1', int(sys.argv[1]))); s.listen(4)
        while True:
            c, _ = s.accept()
            c.settimeout(0.5)
            data = b''
            try:
                while True:
                    d = c.recv(65536)
                    if not d: break
                    data += d
            except Exception:
                pass
            if not data:
                c.close(); continue
            open(sys.argv[2], 'wb').write(data)
            open(sys.argv[2] + '.all', 'ab').write(data)
            c.sendall(b'HTTP/1.1 200 OK\\r\\nContent-Length: 2\\r\\nContent-Type: text/plain\\r\\n\\r\\nok')
            c.close()
        """
        server = try ServerProcess(executable: TestPaths.venv + "/bin/python3",
                                   arguments: ["-c", script, "{PORT}", capturePath])
    }

    /// The bytes of the last request.
    public var captured: Data { (try? Data(contentsOf: URL(fileURLWithPath: capturePath))) ?? Data() }

    /// The bytes of every request so far, in the order they arrived.
    public var capturedAll: Data { (try? Data(contentsOf: URL(fileURLWithPath: capturePath + ".all"))) ?? Data() }

    deinit { server.stop() }
}
