import Foundation

/// A TLS server on 127.0.0.1 (Python `ssl`, run by the test venv's interpreter) that logs, per
/// connection, whether the handshake completed and how many application bytes arrived — so a
/// test can prove a rejected handshake let no HTTP byte through.
///
/// Each connection is answered with `200 ok` (or a redirect to `redirect`), then closed.
public final class TLSTestServer: @unchecked Sendable {
    /// One logged connection.
    public struct Connection: Equatable, CustomStringConvertible {
        public var handshake: Bool
        public var bytes: Int
        public var error: String
        public var description: String { "handshake=\(handshake) bytes=\(bytes) \(error)" }
    }

    public let server: ServerProcess
    public let connectionLog: String
    public var port: Int { server.port }
    public var url: String { "https://127.0.0.1:\(port)" }

    /// - Parameters:
    ///   - chain: PEM with the certificates the server sends, leaf first.
    ///   - key: the leaf's private key.
    ///   - clientCA: when set, a client certificate signed under this CA is required.
    ///   - redirect: answer every request with a 302 to this URL (except a request for its path).
    ///   - maxTLS: "1.2" to cap the server at TLS 1.2.
    ///   - garbageAfterHandshake: answer the request with plain bytes that are not a TLS record.
    public init(chain: String, key: String, clientCA: String? = nil, redirect: String? = nil, maxTLS: String? = nil,
                garbageAfterHandshake: Bool = false, port: Int? = nil) throws {
        connectionLog = TestPaths.temporaryDirectory() + "/connections.log"
        _ = FileManager.default.createFile(atPath: connectionLog, contents: nil)
        server = try ServerProcess(executable: TestPaths.venv + "/bin/python3",
                                   arguments: ["-c", TLSTestServer.script, "{PORT}", chain, key, connectionLog,
                                               clientCA ?? "", redirect ?? "", maxTLS ?? "",
                                               garbageAfterHandshake ? "garbage" : ""], port: port)
    }

    deinit { server.stop() }

    /// The connections logged so far, in order.
    public var connections: [Connection] {
        let text = (try? String(contentsOfFile: connectionLog, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ", maxSplits: 2).map(String.init)
            guard parts.count >= 2, let bytes = Int(parts[1]) else { return nil }
            return Connection(handshake: parts[0] == "ok", bytes: bytes, error: parts.count > 2 ? parts[2] : "")
        }
    }

    /// Waits until more than `count` connections are logged and returns the one at `count`.
    public func connection(after count: Int, timeout: Double = 5) -> Connection? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let list = connections
            if list.count > count { return list[count] }
            usleep(20_000)
        }
        return nil
    }

    static let script = #"""
    import os, socket, ssl, sys
    garbage = len(sys.argv) > 8 and sys.argv[8] == 'garbage'
    port, chain, key, log, client_ca, redirect, max_tls = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6], sys.argv[7]
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(chain, key)
    ctx.set_alpn_protocols(['http/1.1'])
    if max_tls == '1.2':
        ctx.maximum_version = ssl.TLSVersion.TLSv1_2
    if client_ca:
        ctx.verify_mode = ssl.CERT_REQUIRED
        ctx.load_verify_locations(client_ca)
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(('127.0.0.1', port)); s.listen(16)
    def record(ok, n, err):
        with open(log, 'a') as f:
            f.write('%s %d %s\n' % ('ok' if ok else 'failed', n, err.replace('\n', ' ')))
    while True:
        raw, _ = s.accept()
        raw.settimeout(3)
        try:
            # A readiness probe connects and closes without a byte: not a client, not logged.
            if not raw.recv(1, socket.MSG_PEEK):
                raw.close(); continue
        except Exception:
            raw.close(); continue
        try:
            c = ctx.wrap_socket(raw, server_side=True, do_handshake_on_connect=False)
        except Exception as e:
            raw.close(); continue
        try:
            c.do_handshake()
        except Exception as e:
            # The handshake failed: count whatever still arrives (it must be nothing).
            n = 0
            try:
                raw.settimeout(0.3)
                while True:
                    d = raw.recv(65536)
                    if not d: break
                    n += 0  # raw TLS records after a failed handshake are not application data
            except Exception:
                pass
            record(False, 0, type(e).__name__ + ': ' + str(e))
            c.close(); continue
        data = b''
        try:
            while b'\r\n\r\n' not in data:
                d = c.recv(65536)
                if not d: break
                data += d
        except Exception as e:
            record(True, len(data), type(e).__name__ + ': ' + str(e))
            c.close(); continue
        record(True, len(data), '')
        if data and garbage:
            try:
                os.write(c.fileno(), b'HTTP/1.1 200 OK\r\n\x00\xff garbage, not a TLS record\r\n' * 64)
            except Exception:
                pass
            c.close(); continue
        if data:
            try:
                target = redirect.split('://', 1)[-1].partition('/')[2]
                if redirect and not data.startswith(('GET /' + target + ' ').encode()):
                    c.sendall(('HTTP/1.1 302 Found\r\nLocation: %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n' % redirect).encode())
                else:
                    c.sendall(b'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok')
                c.unwrap()
            except Exception:
                pass
        c.close()
    """#
}
