import Foundation

/// A TCP server in Python that records the exact bytes a client sent, then answers `200 OK` —
/// to compare `--offline` or `--curl` output with what really went over the wire. It can speak
/// TLS (optionally requiring a client certificate) and listen on a Unix socket as well.
public final class CaptureServer {
    public let server: ServerProcess
    public let capturePath: String
    /// The Unix socket it also listens on, when asked for one.
    public let unixSocket: String?
    public let tls: Bool

    /// - Parameters:
    ///   - tls: the certificate chain (leaf first) and key: the TCP port speaks TLS.
    ///   - clientCA: with `tls`, a client certificate signed under this CA file is required; the
    ///     subject of the one presented is recorded (`peerSubject`).
    ///   - unixSocket: also accept connections on a Unix socket (plain HTTP, in its own
    ///     temporary directory).
    public init(tls: (chain: String, key: String)? = nil, clientCA: String? = nil, unixSocket: Bool = false) throws {
        let dir = TestPaths.temporaryDirectory()
        capturePath = dir + "/capture.bin"
        self.unixSocket = unixSocket ? dir + "/capture.sock" : nil
        self.tls = tls != nil
        let script = #"""
        import os, select, socket, ssl, sys
        port, path, chain, key, client_ca, unix = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
        ctx = None
        if chain:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(chain, key)
            ctx.set_alpn_protocols(['http/1.1'])
            if client_ca:
                ctx.verify_mode = ssl.CERT_REQUIRED
                ctx.load_verify_locations(client_ca)
        listeners = []
        if unix:
            u = socket.socket(socket.AF_UNIX); u.bind(unix); u.listen(4); listeners.append(u)
        s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(('127.0.0.1', port)); s.listen(4); listeners.append(s)
        while True:
            ready, _, _ = select.select(listeners, [], [])
            c, _ = ready[0].accept()
            peer, session = '', ''
            if ctx is not None and ready[0] is s:
                c.settimeout(5)
                try:
                    # A readiness probe connects and closes without a byte: no handshake to try.
                    if not c.recv(1, socket.MSG_PEEK):
                        c.close(); continue
                    c = ctx.wrap_socket(c, server_side=True)
                    session = '%s %s' % (c.version(), c.cipher()[0])
                    cert = c.getpeercert()
                    if cert:
                        peer = ','.join('%s=%s' % kv for rdn in cert.get('subject', ()) for kv in rdn)
                except Exception as e:
                    open(path + '.errors', 'a').write(type(e).__name__ + ': ' + str(e) + '\n')
                    c.close(); continue
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
            open(path + '.peer', 'w').write(peer)
            open(path + '.tls', 'w').write(session)
            open(path, 'wb').write(data)
            open(path + '.all', 'ab').write(data)
            try:
                c.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n\r\nok')
                if ctx is not None and ready[0] is s:
                    c.unwrap()
            except Exception:
                pass
            c.close()
        """#
        server = try ServerProcess(executable: TestPaths.venv + "/bin/python3",
                                   arguments: ["-c", script, "{PORT}", capturePath, tls?.chain ?? "", tls?.key ?? "",
                                               clientCA ?? "", self.unixSocket ?? ""])
    }

    /// The bytes of the last request.
    public var captured: Data { (try? Data(contentsOf: URL(fileURLWithPath: capturePath))) ?? Data() }

    /// The bytes of every request so far, in the order they arrived.
    public var capturedAll: Data { (try? Data(contentsOf: URL(fileURLWithPath: capturePath + ".all"))) ?? Data() }

    /// The subject of the client certificate presented with the last request (`commonName=…`),
    /// empty when none was.
    public var peerSubject: String { (try? String(contentsOfFile: capturePath + ".peer", encoding: .utf8)) ?? "" }

    /// The TLS version and cipher suite of the last request's connection (`TLSv1.3
    /// TLS_AES_256_GCM_SHA384`), empty without TLS.
    public var tlsSession: String { (try? String(contentsOfFile: capturePath + ".tls", encoding: .utf8)) ?? "" }

    /// TLS handshakes that failed on the server's side, one line each.
    public var handshakeErrors: String { (try? String(contentsOfFile: capturePath + ".errors", encoding: .utf8)) ?? "" }

    /// The TCP port's scheme and authority: `http://127.0.0.1:PORT` (`https` with TLS).
    public var base: String { "\(tls ? "https" : "http")://127.0.0.1:\(server.port)" }

    deinit { server.stop() }
}
