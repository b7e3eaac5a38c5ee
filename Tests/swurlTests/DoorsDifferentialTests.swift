import XCTest
import Foundation
import SwurlTestSupport

/// Every door the same: each request of the table goes through the one-shot command line, a
/// batch line, a REPL line (script mode), the same options from a config file, and the printed
/// `--curl` command run by /usr/bin/curl. Two recording servers (A, and B for redirects to
/// another origin) keep every request's exact bytes; each door must send what the one-shot
/// request sends and exit with its status. The curl door may instead refuse the export (64),
/// when the case says curl cannot express it. New cases go into `cases`, not into new tests.
final class DoorsDifferentialTests: XCTestCase {
    /// One request of the table. Words are bytes (the shell passes them as they are); `{A}` and
    /// `{B}` stand for the two servers' `http://127.0.0.1:PORT`, `{APORT}` for A's port.
    struct Case {
        let name: String
        /// The command line after `swurl`, but for the options.
        let args: [[UInt8]]
        /// Options (with their values): on the line in most doors, in the config file in the config door.
        var options: [[UInt8]] = []
        /// Whether `--curl` must refuse the case (64) because curl's grammar cannot express it.
        var curlRefuses = false
        /// Whether the curl door is left out, and why (a difference curl has by design).
        var curlDiffers: String?
    }

    private static func w(_ text: String) -> [UInt8] { Array(text.utf8) }
    private static func ws(_ words: String...) -> [[UInt8]] { words.map { Array($0.utf8) } }

    static let cases: [Case] = {
        let e9: [UInt8] = [0xE9]
        var c: [Case] = [
            Case(name: "plain GET", args: ws("{A}/get")),
            Case(name: "query items", args: ws("{A}/q", "a==1", "b==x y", "c==")),
            Case(name: "URL query and items", args: ws("{A}/q?x=1", "y==2")),
            Case(name: "port shorthand", args: ws(":{APORT}/short")),
            Case(name: "scheme-less URL", args: ws("127.0.0.1:{APORT}/noscheme")),
            Case(name: "fragment dropped", args: ws("{A}/frag#part")),
            Case(name: "brackets in the query", args: ws("{A}/x?a[0]=1&b[]=2")),
            Case(name: "non-UTF-8 path", args: [w("{A}/b") + e9]),
            Case(name: "non-UTF-8 query item", args: [w("{A}/q"), w("q==") + e9]),
            Case(name: "JSON fields", args: ws("{A}/post", "name=Ann", "age:=30", "ok:=true", "list:=[1,2]")),
            Case(name: "nested JSON keys", args: ws("{A}/post", "user[name]=Ann", "tags[]=a", "tags[]=b", "items[0][id]:=1")),
            Case(name: "form fields", args: ws("{A}/post", "name=Ann", "note=a&b=c"), options: ws("--form")),
            Case(name: "nested form keys", args: ws("{A}/post", "user[name]=Ann", "tags[]=a", "tags[]=b"), options: ws("--form")),
            Case(name: "non-UTF-8 form value", args: [w("{A}/post"), w("v=") + e9], options: ws("--form")),
            Case(name: "non-UTF-8 JSON value", args: [w("{A}/post"), w("v=") + e9]),
            Case(name: "form with GET", args: ws("GET", "{A}/get", "a=1", "b=two words"), options: ws("--form")),
            Case(name: "form with DELETE", args: ws("DELETE", "{A}/del", "a=1"), options: ws("--form")),
            Case(name: "PUT JSON", args: ws("PUT", "{A}/put", "a=1")),
            Case(name: "PATCH JSON", args: ws("PATCH", "{A}/patch", "a=1")),
            Case(name: "DELETE", args: ws("DELETE", "{A}/del")),
            Case(name: "HEAD", args: ws("HEAD", "{A}/head")),
            Case(name: "OPTIONS", args: ws("OPTIONS", "{A}/opt")),
            Case(name: "custom method", args: ws("PROPFIND", "{A}/dav")),
            Case(name: "lower-case method", args: ws("post", "{A}/post", "a=1")),
            Case(name: "custom header", args: ws("{A}/h", "X-A:1", "X-B:two words")),
            Case(name: "repeated header", args: ws("{A}/h", "X-A:1", "X-A:2")),
            Case(name: "removed header", args: ws("{A}/h", "Accept:", "User-Agent:")),
            Case(name: "empty header", args: ws("{A}/h", "X-Empty;")),
            Case(name: "replaced default header", args: ws("{A}/h", "User-Agent:probe/1", "Accept:text/plain")),
            Case(name: "escaped separators", args: ws("{A}/post", "a\\:b=1", "c\\==2", "d\\@e=3")),
            Case(name: "header value from a file", args: ws("{A}/h", "X-File:@h.txt")),
            Case(name: "query value from a file", args: ws("{A}/q", "q==@q.txt")),
            Case(name: "field value from a file", args: ws("{A}/post", "note=@note.txt")),
            Case(name: "JSON value from a file", args: ws("{A}/post", "data:=@data.json")),
            Case(name: "body from a file", args: ws("{A}/post", "@body.json")),
            Case(name: "raw body", args: ws("{A}/post"), options: ws("--raw", "hello raw")),
            Case(name: "raw body as a form", args: ws("{A}/post"), options: ws("--form", "--raw", "a=1&b=2")),
            Case(name: "chunked body", args: ws("{A}/post", "a=1"), options: ws("--chunked"),
                 curlDiffers: "curl sends a chunked JSON body only from stdin"),
            Case(name: "XML plist body", args: ws("{A}/post", "a=1", "n:=2"), options: ws("--plist")),
            Case(name: "binary plist body", args: ws("{A}/post", "a=1", "n:=2"), options: ws("--plist=binary"),
                 curlDiffers: "binary bytes go through printf; compared by the export tests"),
            Case(name: "multipart file", args: ws("{A}/post", "f@upload.txt"), options: ws("--multipart")),
            Case(name: "multipart file and field", args: ws("{A}/post", "f@upload.txt", "name=Ann"), options: ws("--form")),
            Case(name: "multipart type", args: ws("{A}/post", "f@upload.txt;type=text/x-note"), options: ws("--multipart")),
            Case(name: "multipart odd name", args: ws("{A}/post", "we\"ird name@upload.txt", "a;b=1"), options: ws("--multipart")),
            Case(name: "multipart non-UTF-8 filename", args: [w("{A}/post"), w("f@caf") + e9 + w(".txt")], options: ws("--multipart")),
            Case(name: "multipart name with =", args: ws("{A}/post", "a\\=b@upload.txt"), options: ws("--multipart"),
                 curlRefuses: true),
            Case(name: "multipart type listing a second file", args: ws("{A}/post", "f@upload.txt;type=text/plain,h.txt"),
                 options: ws("--multipart"), curlRefuses: true),
            Case(name: "multipart nested field", args: ws("{A}/post", "user[name]=Ann", "f@upload.txt"), options: ws("--multipart")),
            Case(name: "basic auth", args: ws("{A}/auth"), options: ws("-a", "ann:pw")),
            Case(name: "basic auth, long option", args: ws("{A}/auth"), options: ws("--auth=ann:p w")),
            Case(name: "bearer auth", args: ws("{A}/auth"), options: ws("-A", "bearer", "-a", "TOKEN123")),
            Case(name: "Authorization item", args: ws("{A}/auth", "Authorization:Token abc")),
            Case(name: "Cookie item", args: ws("{A}/c", "Cookie:a=1; b=2")),
            Case(name: "URL credentials", args: ws("http://ann:pw@127.0.0.1:{APORT}/auth")),
            Case(name: "redirect, same origin", args: ws("{A}/redirect?to=/landing"), options: ws("--follow")),
            Case(name: "redirect to another origin keeps credentials home",
                 args: ws("{A}/redirect?to={B}/landing", "X-Keep:1"), options: ws("--follow", "-a", "ann:pw")),
            Case(name: "redirect with an Authorization item", args: ws("{A}/redirect?to={B}/landing", "Authorization:Token abc"),
                 options: ws("--follow")),
            Case(name: "POST redirected with 302", args: ws("{A}/redirect?to={B}/landing", "a=1"), options: ws("--follow"),
                 curlDiffers: "curl keeps a --header Content-Type on the GET that follows a 302; swurl drops it with the body"),
            Case(name: "redirect not followed", args: ws("{A}/redirect?to={B}/landing")),
            Case(name: "check-status 404", args: ws("{A}/status/404"), options: ws("--check-status"),
                 curlDiffers: "curl's exit statuses are its own"),
            Case(name: "accept-status", args: ws("{A}/status/404"), options: ws("--accept-status", "404")),
            Case(name: "compressed off", args: ws("{A}/get", "Accept-Encoding:")),
            Case(name: "bad JSON item", args: ws("{A}/post", "a:=[1,")),
            Case(name: "missing file item", args: ws("{A}/post", "a=@missing.txt")),
            Case(name: "unicode field", args: ws("{A}/post", "name=Zoë", "emoji=✓")),
            Case(name: "JSON item with nested object", args: ws("{A}/post", "o:={\"k\": [1, {\"x\": null}]}")),
            Case(name: "HTTP/1.0 not asked", args: ws("{A}/get", "Connection:close")),
        ]
        c.sort { $0.name < $1.name }
        return c
    }()

    // MARK: Doors

    enum Door: String, CaseIterable { case oneShot = "one-shot", batch, repl, config, curl }

    struct Outcome: Equatable {
        var status: Int32
        var requests: [Data]
    }

    private var servers: [RecordingServer] = []
    private var dir = ""

    override func setUpWithError() throws {
        servers = [try RecordingServer(), try RecordingServer()]
        dir = TestPaths.temporaryDirectory()
        for (name, body) in ["upload.txt": "file body\n", "h.txt": "from-file", "q.txt": "query value",
                             "note.txt": "a note\n", "data.json": "{\"k\": [1, 2]}", "body.json": "{\"raw\": true}"] {
            try Data(body.utf8).write(to: URL(fileURLWithPath: dir + "/" + name))
        }
        // The file the case names with the byte E9 (not UTF-8): created through the shell.
        _ = try runProcess("/bin/sh", ["-c", "printf 'latin-1 name\\n' > \"$(printf 'caf\\351.txt')\""], directory: dir)
    }

    override func tearDown() {
        servers.forEach { $0.stop() }
        try? FileManager.default.removeItem(atPath: dir)
    }

    private func substitute(_ word: [UInt8]) -> [UInt8] {
        var s = word
        for (token, value) in [("{APORT}", String(servers[0].port)), ("{A}", servers[0].base), ("{B}", servers[1].base)] {
            s = DoorsDifferentialTests.replace(Array(token.utf8), with: Array(value.utf8), in: s)
        }
        return s
    }

    static func replace(_ needle: [UInt8], with replacement: [UInt8], in bytes: [UInt8]) -> [UInt8] {
        guard !needle.isEmpty else { return bytes }
        var out: [UInt8] = [], i = 0
        while i < bytes.count {
            if i + needle.count <= bytes.count, Array(bytes[i..<i + needle.count]) == needle {
                out += replacement
                i += needle.count
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return out
    }

    /// `word` as one POSIX shell word: single-quoted, its `'` as `'\''`; bytes kept as they are.
    static func quote(_ word: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x27]
        for b in word { if b == 0x27 { out += Array("'\\''".utf8) } else { out.append(b) } }
        return out + [0x27]
    }

    private func line(_ words: [[UInt8]]) -> [UInt8] {
        Array(words.map { DoorsDifferentialTests.quote(substitute($0)) }.joined(separator: [0x20]))
    }

    /// Runs a shell script of raw bytes in the case directory (so argv carries any byte).
    private func shell(_ script: [UInt8], stdin: Data? = nil, environment: [String: String] = [:]) throws -> (status: Int32, stdout: Data, stderr: String) {
        let path = dir + "/run-\(UUID().uuidString).sh"
        try Data(script).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var env = ProcessInfo.processInfo.environment
        for key in ["http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy"] {
            env.removeValue(forKey: key)
        }
        env["SWURL_CONFIG"] = ""
        env["HOME"] = dir
        for (k, v) in environment { env[k] = v }
        return try runProcess("/bin/sh", [path], directory: dir, environment: env, stdin: stdin, check: false)
    }

    private func run(_ c: Case, through door: Door) throws -> (Outcome, String) {
        servers.forEach { $0.clear() }
        let swurl = DoorsDifferentialTests.quote(Array(TestPaths.binary.utf8))
        let r: (status: Int32, stdout: Data, stderr: String)
        switch door {
        case .oneShot:
            r = try shell(swurl + [0x20] + line(c.args + c.options) + Array(" > /dev/null\n".utf8))
        case .batch:
            try Data(line(c.args + c.options) + [0x0A]).write(to: URL(fileURLWithPath: dir + "/lines"))
            r = try shell(swurl + Array(" batch lines > /dev/null\n".utf8))
        case .repl:
            r = try shell(swurl + Array(" repl > /dev/null\n".utf8), stdin: Data(line(c.args + c.options) + [0x0A]))
        case .config:
            try Data(line(c.options) + [0x0A]).write(to: URL(fileURLWithPath: dir + "/config"))
            r = try shell(swurl + [0x20] + line(c.args) + Array(" > /dev/null\n".utf8), environment: ["SWURL_CONFIG": dir + "/config"])
        case .curl:
            let exported = try shell(swurl + Array(" --curl ".utf8) + line(c.args + c.options) + [0x0A])
            guard exported.status == 0 else {
                return (Outcome(status: exported.status, requests: []), exported.stderr)
            }
            try exported.stdout.write(to: URL(fileURLWithPath: dir + "/curl.sh"))
            let ran = try runProcess("/bin/bash", [dir + "/curl.sh"], directory: dir, check: false)
            r = (ran.status, ran.stdout, exported.stderr + ran.stderr)
        }
        return (Outcome(status: r.status, requests: servers[0].requests + servers[1].requests), r.stderr)
    }

    // MARK: Comparison

    /// A request with what may differ between two runs of the same words made equal: the
    /// multipart boundary (random per run) becomes `BOUNDARY`.
    static func normalized(_ raw: Data) -> Data {
        var bytes = [UInt8](raw)
        let head = String(decoding: bytes.prefix(8192), as: UTF8.self)
        if let r = head.range(of: "boundary=") {
            let token = head[r.upperBound...].prefix { !"\r\n; ".contains($0) }
            if !token.isEmpty { bytes = replace(Array(token.utf8), with: Array("BOUNDARY".utf8), in: bytes) }
        }
        return Data(bytes)
    }

    /// curl's request compared by content: the request line, the header fields as a sorted set
    /// (curl orders its own fields first), the body with the boundary made equal; Content-Length
    /// left out for multipart bodies (curl's boundary has another length).
    static func curlComparable(_ raw: Data) -> String {
        let text = String(decoding: normalized(raw), as: UTF8.self)
        let parts = text.components(separatedBy: "\r\n\r\n")
        var lines = (parts.first ?? "").components(separatedBy: "\r\n")
        let requestLine = lines.isEmpty ? "" : lines.removeFirst()
        let multipart = lines.contains { $0.lowercased().hasPrefix("content-type: multipart/") }
        let fields = lines.filter { !(multipart && $0.lowercased().hasPrefix("content-length:")) }
            .map { line -> String in
                guard let colon = line.firstIndex(of: ":") else { return line }
                return line[..<colon].lowercased() + line[colon...]
            }.sorted()
        return ([requestLine] + fields + ["", parts.dropFirst().joined(separator: "\r\n\r\n")]).joined(separator: "\n")
    }

    func testEveryDoorSendsWhatTheOneShotRequestSends() throws {
        XCTAssertGreaterThanOrEqual(DoorsDifferentialTests.cases.count, 60)
        var curlRefused: [String] = []
        for c in DoorsDifferentialTests.cases {
            let (expected, expectedErr) = try run(c, through: .oneShot)
            let reference = expected.requests.map(DoorsDifferentialTests.normalized)
            // A case either reaches the server or is refused before sending (64, 65, 66): never
            // a silent nothing that every door would then "agree" on.
            XCTAssertEqual(reference.isEmpty, [64, 65, 66].contains(expected.status),
                           "\(c.name): one-shot exited \(expected.status) after \(reference.count) requests: \(expectedErr)")
            for door in [Door.batch, .repl, .config] where !(door == .config && c.options.isEmpty) {
                let (got, err) = try run(c, through: door)
                XCTAssertEqual(got.status, expected.status, "\(c.name), \(door.rawValue): \(err) / one-shot: \(expectedErr)")
                let sent = got.requests.map(DoorsDifferentialTests.normalized)
                XCTAssertEqual(sent, reference, "\(c.name), \(door.rawValue) sent something else:\n"
                               + sent.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n--\n")
                               + "\none-shot:\n" + reference.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n--\n"))
            }
            guard c.curlDiffers == nil else { continue }
            let (curl, err) = try run(c, through: .curl)
            if c.curlRefuses || (curl.status == 64 && curl.requests.isEmpty && expected.status != 64) {
                XCTAssertTrue(c.curlRefuses, "\(c.name): --curl refused a case curl can express: \(err)")
                XCTAssertEqual(curl.status, 64, "\(c.name): --curl must refuse: \(err)")
                XCTAssertTrue(curl.requests.isEmpty)
                curlRefused.append(c.name)
                continue
            }
            if expected.requests.isEmpty {
                // swurl refused the request itself: the export refuses it the same way.
                XCTAssertEqual(curl.status, expected.status, "\(c.name), curl door: \(err)")
                continue
            }
            XCTAssertEqual(curl.requests.map(DoorsDifferentialTests.curlComparable), expected.requests.map(DoorsDifferentialTests.curlComparable),
                           "\(c.name): the printed curl command sent something else (\(err))")
        }
    }
}

/// A recording HTTP server (`Tests/Servers/record_http.py`): every request's exact bytes.
final class RecordingServer {
    let server: ServerProcess
    let logPath: String

    init() throws {
        logPath = TestPaths.temporaryDirectory() + "/requests.jsonl"
        server = try ServerProcess(executable: TestPaths.venv + "/bin/python3",
                                   arguments: [TestPaths.packageRoot + "/Tests/Servers/record_http.py", "{PORT}", logPath])
    }

    var port: Int { server.port }
    var base: String { "http://127.0.0.1:\(server.port)" }

    /// The requests so far, oldest first.
    var requests: [Data] {
        guard let text = try? String(contentsOfFile: logPath, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard let obj = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String],
                  let raw = obj["raw"] else { return nil }
            return Data(base64Encoded: raw)
        }
    }

    func clear() { try? Data().write(to: URL(fileURLWithPath: logPath)) }
    func stop() { server.stop() }
}
