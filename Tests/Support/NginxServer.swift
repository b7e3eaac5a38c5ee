import Foundation

/// Debian's nginx, run unprivileged from a temporary prefix on a free port, serving a docroot
/// (`small.txt` plus whatever the caller writes into `root`). `http2` makes the port speak
/// HTTP/2 with prior knowledge (h2c).
public final class NginxServer {
    public let server: ServerProcess
    public let root: String

    public init(http2: Bool = false) throws {
        let dir = TestPaths.temporaryDirectory()
        root = dir + "/www"
        for sub in ["www", "tmp", "logs"] {
            try FileManager.default.createDirectory(atPath: dir + "/" + sub, withIntermediateDirectories: true)
        }
        try "hello from nginx\n".write(toFile: root + "/small.txt", atomically: true, encoding: .utf8)
        let port = try ServerProcess.freePort()
        let conf = """
        daemon off;
        pid \(dir)/nginx.pid;
        error_log \(dir)/logs/error.log;
        worker_processes 1;
        events { worker_connections 64; }
        http {
            access_log off;
            client_body_temp_path \(dir)/tmp/body;
            proxy_temp_path \(dir)/tmp/proxy;
            fastcgi_temp_path \(dir)/tmp/fastcgi;
            uwsgi_temp_path \(dir)/tmp/uwsgi;
            scgi_temp_path \(dir)/tmp/scgi;
            sendfile on;
            default_type application/octet-stream;
            server {
                listen 127.0.0.1:\(port)\(http2 ? " http2" : "");
                root \(root);
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
    public func url(_ path: String) -> String { "http://127.0.0.1:\(server.port)\(path)" }
}
