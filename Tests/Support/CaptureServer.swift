import Foundation

/// A TCP server in Python (`Tests/Servers/capture.py`) that records the exact bytes a client sent,
/// then answers `200 OK` — to compare `--offline` or `--curl` output with what really went over the
/// wire. It can speak TLS (optionally requiring a client certificate) and listen on a Unix socket
/// as well.
package final class CaptureServer {
    package let server: ServerProcess
    package let capturePath: String
    /// The Unix socket it also listens on, when asked for one.
    package let unixSocket: String?
    package let tls: Bool

    /// - Parameters:
    ///   - tls: the certificate chain (leaf first) and key: the TCP port speaks TLS.
    ///   - clientCA: with `tls`, a client certificate signed under this CA file is required; the
    ///     subject of the one presented is recorded (`peerSubject`).
    ///   - unixSocket: also accept connections on a Unix socket (plain HTTP, in its own
    ///     temporary directory).
    package init(tls: (chain: String, key: String)? = nil, clientCA: String? = nil, unixSocket: Bool = false) throws {
        let dir = TestPaths.temporaryDirectory()
        capturePath = dir + "/capture.bin"
        self.unixSocket = unixSocket ? dir + "/capture.sock" : nil
        self.tls = tls != nil
        server = try ServerProcess(executable: TestPaths.venv + "/bin/python3",
                                   arguments: [TestPaths.server("capture.py"), "{PORT}", capturePath, tls?.chain ?? "", tls?.key ?? "",
                                               clientCA ?? "", self.unixSocket ?? ""])
    }

    /// Returns once every connection made before the call was recorded: the server serves them
    /// one at a time, in order, and this sends one more (plain TCP) that it answers unrecorded.
    /// A test that proves nothing was sent calls it before it looks.
    package func sync() throws {
        guard !tls else { throw TestServerError("sync() speaks plain HTTP; this capture server speaks TLS") }
        let r = try runProcess("/usr/bin/curl", ["-sS", "--noproxy", "*", "\(base)/.capture-sync"])
        guard r.stdout == Data("sync".utf8) else { throw TestServerError("sync: the capture server answered \(r.stdout)") }
    }

    /// The bytes of the last request.
    package var captured: Data { (try? Data(contentsOf: URL(fileURLWithPath: capturePath))) ?? Data() }

    /// The bytes of every request so far, in the order they arrived.
    package var capturedAll: Data { (try? Data(contentsOf: URL(fileURLWithPath: capturePath + ".all"))) ?? Data() }

    /// The subject of the client certificate presented with the last request (`commonName=…`),
    /// empty when none was.
    package var peerSubject: String { (try? String(contentsOfFile: capturePath + ".peer", encoding: .utf8)) ?? "" }

    /// The TLS version and cipher suite of the last request's connection (`TLSv1.3
    /// TLS_AES_256_GCM_SHA384`), empty without TLS.
    package var tlsSession: String { (try? String(contentsOfFile: capturePath + ".tls", encoding: .utf8)) ?? "" }

    /// TLS handshakes that failed on the server's side, one line each.
    package var handshakeErrors: String { (try? String(contentsOfFile: capturePath + ".errors", encoding: .utf8)) ?? "" }

    /// The TCP port's scheme and authority: `http://127.0.0.1:PORT` (`https` with TLS).
    package var base: String { "\(tls ? "https" : "http")://127.0.0.1:\(server.port)" }

    deinit { server.stop() }
}
