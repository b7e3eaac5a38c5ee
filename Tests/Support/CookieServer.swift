import Foundation

/// The cookie conformance server in Python (`Tests/Servers/cookies.py`). It answers every path:
/// `?case=ID&step=N` with step N's `Set-Cookie` headers of case ID (from the cases file it is
/// started with), `&to=URL` (or `?to=URL` alone) with a 302 to URL, and logs each request's Host,
/// path, query and the `Cookie` header it received (nil without one).
package final class CookieServer {
    package let server: ServerProcess
    package let logPath: String
    package var port: Int { server.port }

    /// One request as the server logged it.
    package struct Received {
        package var host: String
        package var path: String
        package var query: [String: String]
        package var cookie: String?
    }

    /// - Parameter cases: for each case ID, the `Set-Cookie` values of each of its responses.
    package init(cases: [String: [[String]]]) throws {
        let dir = TestPaths.temporaryDirectory()
        logPath = dir + "/requests.jsonl"
        let casesPath = dir + "/cases.json"
        try JSONSerialization.data(withJSONObject: cases).write(to: URL(fileURLWithPath: casesPath))
        FileManager.default.createFile(atPath: logPath, contents: nil)
        server = try ServerProcess(executable: TestPaths.venv + "/bin/python3",
                                   arguments: [TestPaths.server("cookies.py"), "{PORT}", logPath, casesPath])
    }

    deinit { server.stop() }

    /// The requests received so far.
    package func requests() -> [Received] {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            return Received(host: o["host"] as? String ?? "", path: o["path"] as? String ?? "",
                            query: o["query"] as? [String: String] ?? [:], cookie: o["cookie"] as? String)
        }
    }
}
