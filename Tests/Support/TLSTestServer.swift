import Foundation

/// A TLS server on 127.0.0.1 (Python `ssl`, `Tests/Servers/tls.py`, run by the test venv's
/// interpreter) that logs, per connection, whether the handshake completed and how many application
/// bytes arrived — so a test can prove a rejected handshake let no HTTP byte through.
///
/// Each connection is answered with `200 ok` (or a redirect to `redirect`), then closed.
package final class TLSTestServer: @unchecked Sendable {
    /// One logged connection.
    package struct Connection: Equatable, CustomStringConvertible {
        package var handshake: Bool
        package var bytes: Int
        package var error: String
        package var description: String { "handshake=\(handshake) bytes=\(bytes) \(error)" }
    }

    package let server: ServerProcess
    package let connectionLog: String
    package var port: Int { server.port }
    package var url: String { "https://127.0.0.1:\(port)" }

    /// - Parameters:
    ///   - chain: PEM with the certificates the server sends, leaf first.
    ///   - key: the leaf's private key.
    ///   - clientCA: when set, a client certificate signed under this CA is required.
    ///   - redirect: answer every request with a 302 to this URL (except a request for its path).
    ///   - maxTLS: "1.2" to cap the server at TLS 1.2; "1.1" for a legacy server speaking TLS 1.1 alone
    ///     (an RSA certificate then: TLS 1.1 signs with SHA-1 and MD5).
    ///   - garbageAfterHandshake: answer the request with plain bytes that are not a TLS record.
    ///   - resetMidBody: answer with a 200's head and 1000 of its 100000 bytes, then reset.
    ///   - hangUp: close each connection at once, answering nothing.
    package init(chain: String, key: String, clientCA: String? = nil, redirect: String? = nil, maxTLS: String? = nil,
                garbageAfterHandshake: Bool = false, resetMidBody: Bool = false, hangUp: Bool = false, port: Int? = nil) throws {
        connectionLog = TestPaths.temporaryDirectory() + "/connections.log"
        _ = FileManager.default.createFile(atPath: connectionLog, contents: nil)
        server = try ServerProcess(executable: TestPaths.venv + "/bin/python3",
                                   arguments: [TestPaths.server("tls.py"), "{PORT}", chain, key, connectionLog,
                                               clientCA ?? "", redirect ?? "", maxTLS ?? "",
                                               garbageAfterHandshake ? "garbage" : resetMidBody ? "reset" : hangUp ? "hangup" : ""], port: port)
    }

    deinit { server.stop() }

    /// The connections logged so far, in order.
    package var connections: [Connection] {
        let text = (try? String(contentsOfFile: connectionLog, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ", maxSplits: 2).map(String.init)
            guard parts.count >= 2, let bytes = Int(parts[1]) else { return nil }
            return Connection(handshake: parts[0] == "ok", bytes: bytes, error: parts.count > 2 ? parts[2] : "")
        }
    }

    /// Waits until more than `count` connections are logged and returns the one at `count`.
    package func connection(after count: Int, timeout: Double = 5) -> Connection? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let list = connections
            if list.count > count { return list[count] }
            usleep(20_000)
        }
        return nil
    }
}
