import Foundation

/// The scripted origin for the HTTP cache's tests (`Tests/Servers/cache_origin.py`): each
/// response's Cache-Control, ETag, Last-Modified, Date, Expires, Vary and body come from the
/// query string; it counts the requests each path received and logs their headers. `fails=K`
/// makes a path's first K requests answer 503 (`busy`) with the same headers.
package final class CacheOrigin {
    package let server: ServerProcess
    package let logPath: String
    package var port: Int { server.port }

    package init() throws {
        let dir = TestPaths.temporaryDirectory()
        logPath = dir + "/requests.jsonl"
        FileManager.default.createFile(atPath: logPath, contents: nil)
        server = try ServerProcess(executable: TestPaths.venv + "/bin/python3",
                                   arguments: [TestPaths.server("cache_origin.py"), "{PORT}", logPath])
    }

    deinit { server.stop() }

    /// `http://127.0.0.1:PORT` + path.
    package func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// How many requests `path` (without its query) received.
    package func count(_ path: String) -> Int {
        requests().filter { ($0["path"] as? String)?.split(separator: "?").first.map(String.init) == path }.count
    }

    /// The requests received so far (method, path with query, headers).
    package func requests() -> [[String: Any]] {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// The headers of the last request to `path`.
    package func lastHeaders(_ path: String) -> [String: String] {
        let r = requests().last { ($0["path"] as? String)?.split(separator: "?").first.map(String.init) == path }
        return (r?["headers"] as? [String: String]) ?? [:]
    }
}
