import Foundation

/// Debian's nginx (configured by `Tests/Servers/nginx.conf`), run unprivileged from a temporary
/// prefix on a free port, serving a docroot (`small.txt` plus whatever the caller writes into
/// `root`). `http2` makes the port speak HTTP/2 with prior knowledge (h2c).
package final class NginxServer {
    package let server: ServerProcess
    package let root: String

    /// The access log: one line per request, `CONNECTION STATUS "URI" "AUTHORIZATION" PROTOCOL`.
    package let accessLog: String
    package let tls: Bool

    /// - Parameters:
    ///   - tls: certificate chain and key files: the port speaks TLS (with `http2`, h2 by ALPN).
    ///   - serverConfig: extra directives inside the `server` block (locations, returns).
    package init(http2: Bool = false, tls: (chain: String, key: String)? = nil, serverConfig: String = "") throws {
        let dir = TestPaths.temporaryDirectory()
        root = dir + "/www"
        for sub in ["www", "tmp", "logs"] {
            try FileManager.default.createDirectory(atPath: dir + "/" + sub, withIntermediateDirectories: true)
        }
        try "hello from nginx\n".write(toFile: root + "/small.txt", atomically: true, encoding: .utf8)
        accessLog = dir + "/logs/access.log"
        self.tls = tls != nil
        let tlsConfig = tls.map { "ssl_certificate \($0.chain);\n        ssl_certificate_key \($0.key);" } ?? ""
        // Tests/Servers/nginx.conf with its @NAME@ words filled in (the caller's directives last).
        var conf = try String(contentsOfFile: TestPaths.server("nginx.conf"), encoding: .utf8)
        for (word, value) in [("@DIR@", dir), ("@ROOT@", root),
                              ("@LISTEN@", (tls != nil ? " ssl" : "") + (http2 ? " http2" : "")),
                              ("@TLS@", tlsConfig), ("@SERVER@", serverConfig)] {
            conf = conf.replacingOccurrences(of: word, with: value)
        }
        server = try NginxServer.start(in: dir, configuration: conf)
    }

    /// Starts nginx with `configuration`, its @PORT@ filled in.
    ///
    /// nginx cannot bind port 0 and say which port it got: it is given a port that was free a
    /// moment ago, and another test's server can take it first. nginx then exits ("Address already
    /// in use" in its error log) and is started again on another port. It is ready when it wrote
    /// its pid file, which it does once its port is bound.
    private static func start(in dir: String, configuration: String) throws -> ServerProcess {
        var attempt = 0
        while true {
            attempt += 1
            let port = try ServerProcess.freePort()
            let conf = configuration.replacingOccurrences(of: "@PORT@", with: String(port))
            try conf.write(toFile: dir + "/nginx.conf", atomically: true, encoding: .utf8)
            try? FileManager.default.removeItem(atPath: dir + "/logs/error.log")
            do {
                return try ServerProcess(executable: "/usr/sbin/nginx",
                                         arguments: ["-p", dir, "-c", dir + "/nginx.conf", "-e", dir + "/logs/error.log"],
                                         port: port, readiness: .writesFile(dir + "/nginx.pid"))
            } catch {
                let log = (try? String(contentsOfFile: dir + "/logs/error.log", encoding: .utf8)) ?? ""
                guard attempt < 10, log.contains("Address already in use") else { throw error }
            }
        }
    }

    deinit { server.stop() }

    /// `http://127.0.0.1:PORT` + path.
    package func url(_ path: String) -> String { "\(tls ? "https" : "http")://127.0.0.1:\(server.port)\(path)" }

    /// The access log's lines, once it stopped growing. nginx writes a request's line after its
    /// response went out, so a client that got the response (and the test after it) can be
    /// faster than that write: the log is read until it stayed the same for 50 ms (2 s at most).
    package func logLines() -> [String] {
        func read() -> String { (try? String(contentsOfFile: accessLog, encoding: .utf8)) ?? "" }
        var text = read()
        for _ in 0..<40 {
            usleep(50_000)
            let again = read()
            if again == text { break }
            text = again
        }
        return text.split(separator: "\n").map(String.init)
    }

    /// The distinct connection serial numbers nginx logged requests on.
    package func connections() -> Set<String> {
        Set(logLines().compactMap { $0.split(separator: " ").first.map(String.init) })
    }
}
