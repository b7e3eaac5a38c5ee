import Foundation

/// A one-connection-at-a-time TCP server in Python (`Tests/Servers/sequence.py`) that answers the
/// Nth request with the Nth scripted reply (the last one again once the script runs out), byte for
/// byte as given, then closes the connection. A reply whose body is shorter than its Content-Length
/// is a cut download; `hold` keeps the connection open that many seconds before closing it. Every
/// request head is logged, so tests can check what was asked (e.g. the Range header).
package final class SequenceServer {
    /// One scripted answer.
    package struct Reply {
        package var head: String
        package var body: Data
        package var hold: Double

        /// `status` line (e.g. `200 OK`), header fields (`Connection: close` is added) and body.
        package init(_ status: String, _ headers: [String] = [], body: Data = Data(), hold: Double = 0) {
            head = "HTTP/1.1 \(status)\r\n" + headers.map { $0 + "\r\n" }.joined() + "Connection: close\r\n\r\n"
            self.body = body
            self.hold = hold
        }
    }

    package let server: ServerProcess
    package let logPath: String

    package init(_ replies: [Reply]) throws {
        let dir = TestPaths.temporaryDirectory()
        logPath = dir + "/requests.jsonl"
        FileManager.default.createFile(atPath: logPath, contents: nil)
        let plan = replies.map { r -> [String: Any] in
            ["head": Data(r.head.utf8).base64EncodedString(), "body": r.body.base64EncodedString(), "hold": r.hold]
        }
        try JSONSerialization.data(withJSONObject: plan).write(to: URL(fileURLWithPath: dir + "/plan.json"))
        server = try ServerProcess(executable: TestPaths.venv + "/bin/python3",
                                   arguments: [TestPaths.server("sequence.py"), "{PORT}", dir + "/plan.json", logPath])
    }

    deinit { server.stop() }

    /// `http://127.0.0.1:PORT` + path.
    package func url(_ path: String) -> String { "http://127.0.0.1:\(server.port)\(path)" }

    /// The request heads received so far, in order.
    package func requests() -> [String] {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8), options: .fragmentsAllowed) as? String
        }
    }
}
