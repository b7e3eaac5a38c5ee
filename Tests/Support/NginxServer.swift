import Foundation

/// Debian's nginx, run unprivileged from a temporary prefix on a free port, serving a docroot
/// (`small.txt` plus whatever the caller writes into `root`). `http2` makes the port speak
/// HTTP/2 with prior knowledge (h2c).
public final class NginxServer {
    public let server: ServerProcess
    public let root: String

    /// The access log: one line per request, `CONNECTION STATUS "URI" "AUTHORIZATION" PROTOCOL`.
    public let accessLog: String
    public let tls: Bool

    /// - Parameters:
    ///   - tls: certificate chain and key files: the port speaks TLS (with `http2`, h2 by ALPN).
    ///   - serverConfig: extra directives inside the `server` block (locations, returns).
    public init(http2: Bool = false, tls: (chain: String, key: String)? = nil, serverConfig: String = "") throws {
        let dir = TestPaths.temporaryDirectory()
        root = dir + "/www"
        for sub in ["www", "tmp", "logs"] {
            try FileManager.default.createDirectory(atPath: dir + "/" + sub, withIntermediateDirectories: true)
        }
        try "hello from nginx\n".write(toFile: root + "/small.txt", atomically: true, encoding: .utf8)
        let port = try ServerProcess.freePort()
        accessLog = dir + "/logs/access.log"
        self.tls = tls != nil
        let tlsConfig = tls.map { "ssl_certificate \($0.chain);\n        ssl_certificate_key \($0.key);" } ?? ""
        let conf = """
        daemon off;
        pid \(dir)/nginx.pid;
        error_log \(dir)/logs/error.log;
        worker_processes 1;
        events { worker_connections 512; }
        http {
            log_format conn '$connection $status "$request_uri" "$http_authorization" $server_protocol';
            access_log \(dir)/logs/access.log conn;
            keepalive_requests 100000;
            client_body_temp_path \(dir)/tmp/body;
            proxy_temp_path \(dir)/tmp/proxy;
            fastcgi_temp_path \(dir)/tmp/fastcgi;
            uwsgi_temp_path \(dir)/tmp/uwsgi;
            scgi_temp_path \(dir)/tmp/scgi;
            sendfile on;
            default_type application/octet-stream;
            server {
                listen 127.0.0.1:\(port)\(tls != nil ? " ssl" : "")\(http2 ? " http2" : "");
                \(tlsConfig)
                root \(root);
                \(serverConfig)
            }
        }
        """
        try conf.write(toFile: dir + "/nginx.conf", atomically: true, encoding: .utf8)
        server = try ServerProcess(executable: "/usr/sbin/nginx",
                                   arguments: ["-p", dir, "-c", dir + "/nginx.conf", "-e", dir + "/logs/error.log"],
                                   port: port)
    }

    deinit { server.stop() }

    /// `http://127.0.0.1:PORT` + path.
    public func url(_ path: String) -> String { "\(tls ? "https" : "http")://127.0.0.1:\(server.port)\(path)" }

    /// The access log's lines so far (nginx writes each when its request ends).
    public func logLines() -> [String] {
        ((try? String(contentsOfFile: accessLog, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// The distinct connection serial numbers nginx logged requests on.
    public func connections() -> Set<String> {
        Set(logLines().compactMap { $0.split(separator: " ").first.map(String.init) })
    }
}
