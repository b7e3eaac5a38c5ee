import Foundation

/// A small threaded HTTP/1.0 server in Python (`Tests/Servers/scripted.py`) with behaviours httpbin
/// lacks, logging every request (method, path, headers, body length, scheme) as a JSON line so
/// tests can check what the server really received:
///
/// - `/file?size=N&seed=S` deterministic bytes, honouring `Range: bytes=A-`; `ignore_range=1`
///   answers 200 anyway; `cut=K&key=X` sends the full Content-Length but only K bytes and drops
///   the connection (the first time for key X only; `later=N`: after it the file has N bytes, another
///   version without validators); `name=F` adds a Content-Disposition,
///   `etag=E` an ETag (If-Range is not looked at); `hold=PATH` creates PATH.got when the request
///   came and answers once PATH exists (a test changes files while the request is out).
/// - `/flaky?key=X&fails=N&status=503&ra=SECONDS` fails N times (per key), then answers `ok`;
///   `grow=PATH` appends to the file PATH with each failure.
/// - `/redirect?to=URL&code=301&body=TEXT&cookie=SET-COOKIE` redirects; `/echo` answers `ok`; `/slow?size=N` drips bytes.
/// - A proxy request (absolute URL in the request line) is answered `proxied` and logged.
///
/// Optional: `unix` listens on a Unix socket too.
package final class ScriptedServer {
    package let server: ServerProcess
    package let logPath: String
    package var port: Int { server.port }

    package init(unixSocket: String? = nil) throws {
        let dir = TestPaths.temporaryDirectory()
        logPath = dir + "/requests.jsonl"
        FileManager.default.createFile(atPath: logPath, contents: nil)
        var args = [TestPaths.server("scripted.py"), "{PORT}", logPath]
        if let unixSocket { args += ["--unix", unixSocket] }
        server = try ServerProcess(executable: TestPaths.venv + "/bin/python3", arguments: args)
    }

    deinit { server.stop() }

    /// `http://127.0.0.1:PORT` + path.
    package func url(_ path: String, host: String = "127.0.0.1") -> String { "http://\(host):\(port)\(path)" }

    /// The requests received so far.
    package func requests() -> [[String: Any]] {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// The bytes `/file?size=N&seed=S` serves.
    package static func fileBytes(size: Int, seed: Int) -> Data {
        var out = Data(capacity: size)
        var x = UInt32(truncatingIfNeeded: seed &* 2654435761 &+ 12345)
        for _ in 0..<size {
            x = x &* 1103515245 &+ 12345
            out.append(UInt8(truncatingIfNeeded: x >> 16))
        }
        return out
    }
}
