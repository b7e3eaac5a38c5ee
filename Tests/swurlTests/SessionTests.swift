import XCTest
import Foundation
import SwurlTestSupport

/// `--session` and `--session-read-only` end to end against httpbin: what the server received
/// on the next run, and what the session file holds.
final class SessionTests: XCTestCase {
    private var config = ""

    override func setUp() {
        config = TestPaths.temporaryDirectory() + "/config"
    }

    private func swurl(_ args: [String], directory: String? = nil) throws -> SwurlResult {
        try runSwurl(args, environment: ["XDG_CONFIG_HOME": config], directory: directory)
    }

    private func url(_ path: String) throws -> String { try HTTPBin.url(path) }
    /// The same httpbin under another host name (another cookie host, another origin).
    private func otherHostURL(_ path: String) throws -> String {
        try HTTPBin.url(path).replacingOccurrences(of: "127.0.0.1", with: "localhost")
    }

    private func namedFile(_ name: String, host: String = "127.0.0.1") throws -> String {
        "\(config)/swurl/sessions/\(host)_\(try HTTPBin.shared().port)/\(name).json"
    }

    private func cookies(_ r: SwurlResult) throws -> [String: String] {
        try r.json()["cookies"] as? [String: String] ?? [:]
    }

    private func sentHeaders(_ r: SwurlResult) throws -> [String: String] {
        try r.json()["headers"] as? [String: String] ?? [:]
    }

    private func mode(_ path: String) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    func testCookiesSetByTheServerAreSentOnTheNextRun() throws {
        let set = try swurl(["--session", "s", try url("/cookies/set/flavour/oat")])
        XCTAssertEqual(set.status, 0, set.stderr)
        let r = try swurl(["--session", "s", try url("/cookies")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try cookies(r), ["flavour": "oat"])
        // Without the session nothing is sent.
        XCTAssertEqual(try cookies(try swurl([try url("/cookies")])), [:])
    }

    /// A download keeps the session's cookies too; a session that cannot be written never costs
    /// the downloaded file.
    func testDownloadUpdatesTheSessionAfterTheFileIsSaved() throws {
        let dir = TestPaths.temporaryDirectory()
        let dl = try swurl(["--session", "s", "-d", "-o", dir + "/out.json", try url("/response-headers?Set-Cookie=dl%3D1")])
        XCTAssertEqual(dl.status, 0, dl.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/out.json"))
        XCTAssertEqual(try cookies(try swurl(["--session", "s", try url("/cookies")])), ["dl": "1"])
        XCTAssertTrue(FileManager.default.createFile(atPath: dir + "/not-a-dir", contents: Data()))
        let failed = try swurl(["--session", dir + "/not-a-dir/s.json", "-d", "-o", dir + "/kept.json", try url("/get")])
        XCTAssertEqual(failed.status, 1, failed.stderr)
        XCTAssertTrue(failed.stderr.contains("session was not saved"), failed.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/kept.json"), "the download was lost")
    }

    func testCookieDeletedByTheServerLeavesTheSession() throws {
        XCTAssertEqual(try swurl(["--session", "s", try url("/cookies/set?a=1&b=2")]).status, 0)
        XCTAssertEqual(try swurl(["--session", "s", try url("/cookies/delete?a")]).status, 0)
        XCTAssertEqual(try cookies(try swurl(["--session", "s", try url("/cookies")])), ["b": "2"])
    }

    func testHeadersAndCredentialsArePersistedAndTheCommandLineOverrides() throws {
        let first = try swurl(["--session", "s", try url("/basic-auth/ann/secret"), "X-Team:blue", "X-Other:1",
                               "-a", "ann:secret", "Content-Type:text/x-not-kept", "If-None-Match:x"])
        XCTAssertEqual(first.status, 0, first.stderr)
        let again = try swurl(["--session", "s", try url("/basic-auth/ann/secret")])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(try again.json()["authenticated"] as? Bool, true)

        let headers = try sentHeaders(try swurl(["--session", "s", try url("/headers"), "X-Other:2"]))
        XCTAssertEqual(headers["X-Team"], "blue")
        XCTAssertEqual(headers["X-Other"], "2")
        XCTAssertNil(headers["If-None-Match"])
        XCTAssertNotEqual(headers["Content-Type"], "text/x-not-kept")
        // The override was stored; `Name:` removes a stored header.
        let later = try sentHeaders(try swurl(["--session", "s", try url("/headers"), "X-Team:"]))
        XCTAssertEqual(later["X-Other"], "2")
        XCTAssertNil(later["X-Team"])
        XCTAssertNil(try sentHeaders(try swurl(["--session", "s", try url("/headers")]))["X-Team"])
        let text = try String(contentsOfFile: try namedFile("s"), encoding: .utf8)
        XCTAssertTrue(text.contains("\"version\": 1"), text)
        XCTAssertFalse(text.contains("text/x-not-kept"), text)
    }

    func testBearerTokenIsPersisted() throws {
        XCTAssertEqual(try swurl(["--session", "s", "-A", "bearer", "-a", "tok-9", try url("/bearer")]).status, 0)
        let r = try swurl(["--session", "s", try url("/bearer")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try r.json()["token"] as? String, "tok-9")
    }

    func testNamedSessionIsBoundToHostAndPort() throws {
        XCTAssertEqual(try swurl(["--session", "work", try url("/cookies/set/k/v"), "X-Team:blue"]).status, 0)
        let other = try swurl(["--session", "work", try otherHostURL("/headers")])
        XCTAssertEqual(other.status, 0, other.stderr)
        let headers = try sentHeaders(other)
        XCTAssertNil(headers["X-Team"])
        XCTAssertNil(headers["Cookie"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: try namedFile("work")))
        XCTAssertTrue(FileManager.default.fileExists(atPath: try namedFile("work", host: "localhost")))
    }

    func testPathSessionNeverSendsOneHostsCookiesOrCredentialsToAnother() throws {
        let path = TestPaths.temporaryDirectory() + "/shared.json"
        XCTAssertEqual(try swurl(["--session", path, try url("/cookies/set/secret/1"), "-a", "ann:pw"]).status, 0)
        // A cookie planted for the other host is sent there, and only there.
        var text = try String(contentsOfFile: path, encoding: .utf8)
        text = text.replacingOccurrences(of: "\"cookies\": [", with:
            "\"cookies\": [\n    {\"domain\": \"localhost\", \"path\": \"/\", \"name\": \"mine\", \"value\": \"2\"},")
        try text.write(toFile: path, atomically: false, encoding: .utf8)

        let other = try swurl(["--session", path, try otherHostURL("/headers")])
        XCTAssertEqual(other.status, 0, other.stderr)
        let headers = try sentHeaders(other)
        XCTAssertEqual(headers["Cookie"], "mine=2")
        XCTAssertNil(headers["Authorization"])
        let same = try sentHeaders(try swurl(["--session", path, try url("/headers")]))
        XCTAssertEqual(same["Cookie"], "secret=1")
        XCTAssertNotNil(same["Authorization"])
    }

    func testSessionCredentialsDoNotFollowARedirectToAnotherOrigin() throws {
        XCTAssertEqual(try swurl(["--session", "s", "-a", "ann:pw", try url("/get")]).status, 0)
        let target = try otherHostURL("/headers")
        let r = try swurl(["--session", "s", "--follow", try url("/redirect-to?url=" + target)])
        XCTAssertEqual(r.status, 0, r.stderr)
        let headers = try sentHeaders(r)
        XCTAssertEqual(headers["Host"], target.replacingOccurrences(of: "http://", with: "").replacingOccurrences(of: "/headers", with: ""))
        XCTAssertNil(headers["Authorization"])
        // On the same origin they are sent.
        XCTAssertNotNil(try sentHeaders(try swurl(["--session", "s", try url("/headers")]))["Authorization"])
    }

    func testReadOnlySessionIsUsedButNeverWritten() throws {
        XCTAssertEqual(try swurl(["--session", "s", try url("/cookies/set/a/1")]).status, 0)
        let file = try namedFile("s")
        let before = try Data(contentsOf: URL(fileURLWithPath: file))
        let r = try swurl(["--session-read-only", "s", try url("/cookies/set/b/2"), "X-New:1", "--follow"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try cookies(r), ["a": "1", "b": "2"])
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: file)), before)
        // A missing read-only session is not created.
        XCTAssertEqual(try swurl(["--session-read-only", "none", try url("/get")]).status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: try namedFile("none")))
    }

    /// The lock is the session's own lock file: a lock on the directory (anybody can take one in
    /// /tmp) does not stall a save, and a lock file held for good fails it after 10 s, exit 1.
    func testALockHeldElsewhereNeverHangsASave() throws {
        let dir = TestPaths.temporaryDirectory()
        let dirFD = open(dir, O_RDONLY | O_DIRECTORY)
        XCTAssertGreaterThanOrEqual(dirFD, 0)
        defer { close(dirFD) }
        XCTAssertEqual(flock(dirFD, LOCK_EX), 0)
        let ok = try swurl(["--session", dir + "/s.json", try url("/cookies/set/a/1")])
        XCTAssertEqual(ok.status, 0, ok.stderr)
        let lockFD = open(dir + "/.s.json.lock", O_RDWR)
        XCTAssertGreaterThanOrEqual(lockFD, 0, "the lock file is next to the session")
        defer { close(lockFD) }
        XCTAssertEqual(try mode(dir + "/.s.json.lock"), 0o600)
        XCTAssertEqual(flock(lockFD, LOCK_EX), 0)
        let held = try swurl(["--session", dir + "/s.json", try url("/cookies/set/b/2")])
        XCTAssertEqual(held.status, 1, held.stderr)
        XCTAssertTrue(held.stderr.contains("the session was not saved: another process held the lock"), held.stderr)
        XCTAssertTrue(try String(contentsOfFile: dir + "/s.json", encoding: .utf8).contains("\"a\""))
    }

    func testTwentyConcurrentWritersLoseNothing() throws {
        let path = TestPaths.temporaryDirectory() + "/many.json"
        let base = try url("/cookies/set")
        // Twenty processes started together, each on its own thread.
        let failures = Failures()
        let threads = (0..<20).map { i in
            Thread {
                let r = try? runSwurl(["--session", path, "\(base)/c\(i)/v\(i)"])
                if r?.status != 0 { failures.add("c\(i): \(r?.stderr ?? "did not run")") }
                failures.finished()
            }
        }
        threads.forEach { $0.start() }
        failures.waitFor(20)
        XCTAssertEqual(failures.list, [])
        let sent = try cookies(try swurl(["--session-read-only", path, try url("/cookies")]))
        XCTAssertEqual(sent.count, 20, "\(sent)")
        for i in 0..<20 { XCTAssertEqual(sent["c\(i)"], "v\(i)") }
        // No temporary files left behind; the lock file stays (removing it would race a writer).
        let left = try FileManager.default.contentsOfDirectory(atPath: (path as NSString).deletingLastPathComponent)
        XCTAssertEqual(Set(left), ["many.json", ".many.json.lock"])
    }

    func testInvalidSessionFileIsAnErrorAndLeftUntouched() throws {
        let dir = TestPaths.temporaryDirectory()
        let cases: [(String, Data)] = [
            ("json", Data("{\"version\": 1, \"headers\": [".utf8)),
            ("types", Data("{\"version\": 1, \"headers\": {\"a\": 1}}".utf8)),
            ("version", Data("{\"version\": 7}".utf8)),
            ("crlf", Data("{\"version\": 1, \"headers\": [{\"name\": \"X\", \"value\": \"a\\r\\nEvil: 1\"}]}".utf8)),
            ("tab", Data("{\"version\": 1, \"cookies\": [{\"domain\": \"127.0.0.1\", \"path\": \"/\", \"name\": \"a\\tb\", \"value\": \"1\"}]}".utf8)),
            ("big", Data("{\"version\": 1, \"headers\": [], \"x\": \"".utf8) + Data(repeating: 0x61, count: 1 << 20) + Data("\"}".utf8)),
        ]
        for (name, bytes) in cases {
            let path = "\(dir)/\(name).json"
            try bytes.write(to: URL(fileURLWithPath: path))
            let r = try swurl(["--session", path, try url("/cookies/set/a/1")])
            XCTAssertEqual(r.status, 65, "\(name): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(path), "\(name): \(r.stderr)")
            XCTAssertEqual(r.stdout, Data(), name)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), bytes, name)
        }
    }

    func testFilesAndDirectoriesAreCreatedPrivateWhateverTheUmask() throws {
        let r = try runProcess("/bin/sh", ["-c", "umask 000; exec \"$0\" \"$@\"", TestPaths.binary, "--session", "s",
                                           try url("/cookies/set/a/1")],
                               environment: ["XDG_CONFIG_HOME": config, "PATH": "/usr/bin:/bin"], check: false)
        XCTAssertEqual(r.status, 0, r.stderr)
        let file = try namedFile("s")
        XCTAssertEqual(try mode(file), 0o600)
        XCTAssertEqual(try mode((file as NSString).deletingLastPathComponent), 0o700)
        XCTAssertEqual(try mode("\(config)/swurl/sessions"), 0o700)
        // A rewrite keeps the mode.
        XCTAssertEqual(try swurl(["--session", "s", try url("/cookies/set/b/2")]).status, 0)
        XCTAssertEqual(try mode(file), 0o600)
    }

    func testExpiredCookiesAreDroppedOnSave() throws {
        let path = TestPaths.temporaryDirectory() + "/old.json"
        try Data("""
            {"version": 1, "cookies": [
              {"domain": "127.0.0.1", "path": "/", "expires": 1000, "name": "old", "value": "1"},
              {"domain": "elsewhere.example", "path": "/", "expires": 1000, "name": "gone", "value": "1"},
              {"domain": "elsewhere.example", "path": "/", "expires": 0, "name": "kept", "value": "1"}
            ]}
            """.utf8).write(to: URL(fileURLWithPath: path))
        let r = try swurl(["--session", path, try url("/cookies")])
        XCTAssertEqual(try cookies(r), [:])
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertFalse(text.contains("\"old\""), text)
        XCTAssertFalse(text.contains("\"gone\""), text)
        XCTAssertTrue(text.contains("\"kept\""), text)
    }

    func testUnwritableSessionIsAnErrorAfterTheResponse() throws {
        let dir = TestPaths.temporaryDirectory()
        XCTAssertTrue(FileManager.default.createFile(atPath: dir + "/not-a-dir", contents: Data()))
        let r = try swurl(["--session", dir + "/not-a-dir/s.json", try url("/get")])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertNotNil(try r.json()["url"], "the response is printed first")
        XCTAssertTrue(r.stderr.contains("session was not saved"), r.stderr)
        if geteuid() != 0 {
            let ro = dir + "/ro"
            try FileManager.default.createDirectory(atPath: ro, withIntermediateDirectories: false,
                                                    attributes: [.posixPermissions: 0o555])
            let denied = try swurl(["--session", ro + "/s.json", try url("/get")])
            XCTAssertEqual(denied.status, 1, denied.stderr)
            XCTAssertTrue(denied.stderr.contains("session was not saved"), denied.stderr)
        }
    }

    func testSessionOptionsAreRefusedTogetherAndNamesAreChecked() throws {
        XCTAssertEqual(try swurl(["--session", "a", "--session-read-only", "b", try url("/get")]).status, 64)
        XCTAssertEqual(try swurl(["--session", "..", try url("/get")]).status, 64)
    }
    // MARK: - Files that others can write

    /// A session file another user could have written or planted (not the user's or root's,
    /// writable by group or others, in a directory others can write without the sticky bit) is
    /// refused with 65 naming the file, why and the fix; nothing is sent and the file is left
    /// as it is. Once fixed, it works again.
    func testSessionFilesOthersCouldChangeAreRefused() throws {
        let dir = TestPaths.temporaryDirectory() + "/sessions"
        XCTAssertEqual(mkdir(dir, 0o700), 0)
        let path = dir + "/s.json"
        let made = try swurl(["--session", path, try url("/headers"), "X-Team:red"])
        XCTAssertEqual(made.status, 0, made.stderr)
        let stored = try Data(contentsOf: URL(fileURLWithPath: path))
        func refused(_ what: String, naming: String, fix: String) throws {
            let r = try swurl(["--session", path, try url("/headers")])
            XCTAssertEqual(r.status, 65, "\(what): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(path) && r.stderr.contains(naming) && r.stderr.contains(fix), "\(what): \(r.stderr)")
            XCTAssertEqual(r.stdout, Data(), what)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), stored, what)
        }
        func works(_ what: String) throws {
            let r = try swurl(["--session", path, try url("/headers")])
            XCTAssertEqual(r.status, 0, "\(what): \(r.stderr)")
            XCTAssertEqual(try sentHeaders(r)["X-Team"], "red", what)
        }
        for m in [0o666, 0o620, 0o602] as [mode_t] {
            XCTAssertEqual(chmod(path, m), 0)
            try refused("mode \(String(m, radix: 8))", naming: "writable by", fix: "chmod go-w \(path)")
        }
        XCTAssertEqual(chmod(path, 0o600), 0)
        try works("0600")
        XCTAssertEqual(chown(path, 12345, 12345), 0)
        try refused("another owner", naming: "uid 12345", fix: "chown")
        XCTAssertEqual(chown(path, geteuid(), getegid()), 0)
        try works("own file again")
        XCTAssertEqual(chmod(dir, 0o777), 0)
        try refused("world-writable directory", naming: "its directory \(dir) is writable by", fix: "chmod go-w \(dir)")
        XCTAssertEqual(chmod(dir, 0o770), 0)
        try refused("group-writable directory", naming: "without the sticky bit", fix: "chmod go-w \(dir)")
        XCTAssertEqual(chmod(dir, 0o1777), 0)
        try works("sticky directory")
    }

    /// `--session /tmp/FILE`: /tmp is world-writable but sticky, and the file is the user's own
    /// and 0600, so the session works and keeps working.
    func testSessionDirectlyUnderTmpKeepsWorking() throws {
        let path = "/tmp/swurl-test-session-\(UUID().uuidString).json"
        defer {
            unlink(path)
            unlink("/tmp/." + (path as NSString).lastPathComponent + ".lock")
        }
        XCTAssertEqual(try swurl(["--session", path, try url("/headers"), "X-Team:blue"]).status, 0)
        let r = try swurl(["--session", path, try url("/headers")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try sentHeaders(r)["X-Team"], "blue")
        XCTAssertEqual(try mode(path), 0o600)
    }

}

/// What the concurrent writers report, under a lock.
private final class Failures: @unchecked Sendable {
    private let condition = NSCondition()
    private var done = 0
    private(set) var list: [String] = []

    func add(_ s: String) { condition.lock(); list.append(s); condition.unlock() }
    func finished() { condition.lock(); done += 1; condition.broadcast(); condition.unlock() }
    func waitFor(_ n: Int) {
        condition.lock()
        while done < n { condition.wait() }
        condition.unlock()
    }
}
