import Foundation

/// Where the package, the built binary and the test venv are.
package enum TestPaths {
    /// The package root, found from this file's location.
    package static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// The version in the top-level VERSION file (its first line, trimmed), which the binary
    /// must report; fails loudly when the file is missing or empty.
    package static func version() throws -> String {
        let text = try String(contentsOfFile: packageRoot + "/VERSION", encoding: .utf8)
        guard let first = text.split(separator: "\n").first?.trimmingCharacters(in: .whitespaces), !first.isEmpty else {
            throw TestServerError("VERSION is empty")
        }
        return first
    }

    /// A test server's program or configuration in `Tests/Servers` (`capture.py`, `nginx.conf`…).
    package static func server(_ name: String) -> String { packageRoot + "/Tests/Servers/" + name }

    /// The Python venv with httpbin and gunicorn that `make test` prepares.
    package static var venv: String {
        ProcessInfo.processInfo.environment["SWURL_TEST_VENV"] ?? packageRoot + "/.build/venv"
    }

    /// The `swurl` binary built next to the test bundle.
    package static let binary: String = {
        if let override = ProcessInfo.processInfo.environment["SWURL_BINARY"] { return override }
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
        // xctest bundles on Linux are a single file in the build directory.
        while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("swurl").path), dir.path != "/" {
            dir.deleteLastPathComponent()
        }
        return dir.appendingPathComponent("swurl").path
    }()

    /// A fresh temporary directory.
    package static func temporaryDirectory() -> String {
        let path = NSTemporaryDirectory() + "swurl-test-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// A config file holding `text` under a fresh XDG_CONFIG_HOME: the environment that makes
    /// swurl read it, and the file's path.
    package static func config(_ text: String) throws -> (env: [String: String], file: String) {
        let home = temporaryDirectory()
        try FileManager.default.createDirectory(atPath: home + "/swurl", withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: home + "/swurl/config"))
        return (["XDG_CONFIG_HOME": home], home + "/swurl/config")
    }

}
