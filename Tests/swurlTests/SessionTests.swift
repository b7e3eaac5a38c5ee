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
                               "-a", "ann:secret", "Content-Type:text/x-not-kept", "If-None-Match:x", "Idempotency-Key:k-1"])
        XCTAssertEqual(first.status, 0, first.stderr)
        let again = try swurl(["--session", "s", try url("/basic-auth/ann/secret")])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(try again.json()["authenticated"] as? Bool, true)

        let headers = try sentHeaders(try swurl(["--session", "s", try url("/headers"), "X-Other:2"]))
        XCTAssertEqual(headers["X-Team"], "blue")
        XCTAssertEqual(headers["X-Other"], "2")
        XCTAssertNil(headers["If-None-Match"])
        XCTAssertNil(headers["Idempotency-Key"], "one request's own: a server would answer every later POST with the first's response")
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

    /// `-A digest` without `-a` over a session's stored password answers with Digest: the
    /// stored type (basic) took over and the password went as Basic, in the clear.
    func testADigestAskedForKeepsTheStoredPasswordOutOfBasic() throws {
        XCTAssertEqual(try swurl(["--session", "d", try url("/basic-auth/ann/secret"), "-a", "ann:secret"]).status, 0)
        let digest = try swurl(["--session", "d", "-v", "-A", "digest", "--check-status", try url("/digest-auth/auth/ann/secret")])
        XCTAssertEqual(digest.status, 0, digest.stderr)
        XCTAssertFalse(digest.text.contains("Authorization: Basic"), digest.text)
        XCTAssertTrue(digest.text.contains("Authorization: Digest username=\"ann\""), digest.text)
    }

    func testBearerTokenIsPersisted() throws {
        XCTAssertEqual(try swurl(["--session", "s", "-A", "bearer", "-a", "tok-9", try url("/bearer")]).status, 0)
        let r = try swurl(["--session", "s", try url("/bearer")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try r.json()["token"] as? String, "tok-9")
        // A URL's user info given now wins over the stored credentials (they replaced it).
        let typed = try swurl(["--session", "s", try url("/headers").replacingOccurrences(of: "http://", with: "http://xx:yy@")])
        XCTAssertEqual(typed.status, 0, typed.stderr)
        XCTAssertEqual(try sentHeaders(typed)["Authorization"], "Basic eHg6eXk=")
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

    /// The file is read again under the lock when saving: a read that failed then (here, its
    /// second open made to fail with EMFILE by strace) was "cannot read the session file" with
    /// exit 66, which says nothing was sent; the request had gone. It says the session was not
    /// saved (1).
    func testAReadFailingAtSaveTimeSaysTheSessionWasNotSaved() throws {
        let file = TestPaths.temporaryDirectory() + "/s.json"
        let r = try runProcess("/usr/bin/strace", ["-f", "-qq", "-o", "/dev/null", "-P", file, "-e", "trace=openat",
                                                   "-e", "inject=openat:error=EMFILE:when=2",
                                                   TestPaths.binary, "--no-config", "--session", file, try url("/cookies/set?a=b"), "-o", "/dev/null"],
                               check: false)
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("the session was not saved: cannot read the session file \(file): Too many open files"), r.stderr)
    }

    /// Regression: a session file made invalid while the request was out was "not valid" with
    /// exit 65, which says nothing was sent; the request had gone. It says the session was not
    /// saved (1), and leaves the file as it found it.
    func testASessionMadeInvalidWhileTheRequestWasOutIsNotSaved() throws {
        let server = try ScriptedServer()
        let dir = TestPaths.temporaryDirectory()
        let file = dir + "/s.json", hold = dir + "/hold"
        let r = try runSwurlWhileHeld(["--no-config", "--session", file, "-o", "/dev/null", server.url("/file?size=10&seed=1&hold=" + hold)],
                                      hold: hold) {
            try Data("garbage\n".utf8).write(to: URL(fileURLWithPath: file))
        }
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("the session was not saved: the session file \(file) is not valid"), r.stderr)
        XCTAssertEqual(try String(contentsOfFile: file, encoding: .utf8), "garbage\n")
    }

    /// Regression: a session name near the longest a file name may be (246–250 bytes: NAME.json
    /// fits in 255, the lock's `.NAME.json.lock` does not) failed to be saved after the request
    /// went, every time. The lock takes a shorter start of the name.
    func testASessionNameNearTheLongestIsSaved() throws {
        let dir = TestPaths.temporaryDirectory()
        let file = dir + "/" + String(repeating: "y", count: 248) + ".json"
        let r = try swurl(["--session", file, try url("/cookies/set?a=b"), "-o", "/dev/null"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(try String(contentsOfFile: file, encoding: .utf8).contains("\"a\""), "the session holds the cookie")
    }

    /// A save killed before its rename (`kill -9`) left its temporary file, the session with
    /// its password in it, for good: the next save removes it. Files of that name that hold no
    /// session stay.
    func testASaveRemovesAKilledSavesTemporaryFile() throws {
        let dir = TestPaths.temporaryDirectory()
        let stale = dir + "/.s.json.swurl-Ab12Cd"
        let other = dir + "/.s.json.swurl-Zz99Yy"
        try Data("{\n  \"swurl\": \"session\",\n  \"version\": 1,\n  \"auth\": \"ann:s3cret\"\n".utf8).write(to: URL(fileURLWithPath: stale))
        try Data("not a session".utf8).write(to: URL(fileURLWithPath: other))
        let r = try swurl(["--session", dir + "/s.json", try url("/cookies/set/a/1")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: stale), "the stale copy is gone")
        XCTAssertTrue(FileManager.default.fileExists(atPath: other))
        XCTAssertTrue(try String(contentsOfFile: dir + "/s.json", encoding: .utf8).contains("\"a\""))
        // Two names past 241 bytes share the start a temporary name is cut to, under two locks:
        // one save removed the other's temporary file while that one was saving.
        let long = String(repeating: "a", count: 245)
        let cut = dir + "/." + String(repeating: "a", count: 241) + ".swurl-Qw34Er"
        try Data("{\n  \"swurl\": \"session\",\n".utf8).write(to: URL(fileURLWithPath: cut))
        let saved = try swurl(["--session", dir + "/" + long + "x", try url("/cookies/set/b/2")])
        XCTAssertEqual(saved.status, 0, saved.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: cut), "another session's temporary file stays")
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
        XCTAssertFalse(held.stderr.contains("belongs to another user"), held.stderr)
        XCTAssertFalse(held.stderr.contains("Resource temporarily unavailable"), held.stderr)
        XCTAssertTrue(try String(contentsOfFile: dir + "/s.json", encoding: .utf8).contains("\"a\""))
        // Another user's lock file (made first in a shared directory): the message says whose it
        // is and the way out.
        XCTAssertEqual(fchown(lockFD, 65534, 65534), 0)
        let foreign = try swurl(["--session", dir + "/s.json", try url("/cookies/set/c/3")])
        XCTAssertEqual(foreign.status, 1, foreign.stderr)
        XCTAssertTrue(foreign.stderr.contains("(.s.json.lock belongs to another user; keep the session in a directory only you can write)"),
                      foreign.stderr)
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

    /// Regression: a session saved by an editor that starts files with a byte order mark was
    /// refused ("unexpected character '\\xef'"); the config file skips one, and so does a session.
    func testASessionStartingWithAByteOrderMarkIsRead() throws {
        let path = TestPaths.temporaryDirectory() + "/bom.json"
        try (Data([0xEF, 0xBB, 0xBF]) + Data(#"{"version": 1, "headers": [{"name": "X-Bom", "value": "read"}]}"#.utf8))
            .write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        let r = try swurl(["--session-read-only", path, try url("/headers")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try sentHeaders(r)["X-Bom"], "read", r.text)
    }

    func testInvalidSessionFileIsAnErrorAndLeftUntouched() throws {
        let dir = TestPaths.temporaryDirectory()
        let cases: [(String, Data)] = [
            ("json", Data("{\"version\": 1, \"headers\": [".utf8)),
            ("types", Data("{\"version\": 1, \"headers\": {\"a\": 1}}".utf8)),
            ("version", Data("{\"version\": 7}".utf8)),
            ("crlf", Data("{\"version\": 1, \"headers\": [{\"name\": \"X\", \"value\": \"a\\r\\nEvil: 1\"}]}".utf8)),
            ("cookies", Data("{\"version\": 1, \"cookies\": {}}".utf8)),
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
        try refused("another owner", naming: "uid 12345", fix: geteuid() == 0 ? "it is uid 12345's: run swurl as that user" : "chown")
        XCTAssertEqual(chown(path, geteuid(), getegid()), 0)
        try works("own file again")
        XCTAssertEqual(chmod(dir, 0o777), 0)
        try refused("world-writable directory", naming: "its directory \(dir) is writable by", fix: "chmod go-w \(dir)")
        XCTAssertEqual(chmod(dir, 0o770), 0)
        try refused("group-writable directory", naming: "without the sticky bit", fix: "chmod go-w \(dir)")
        XCTAssertEqual(chmod(dir, 0o1777), 0)
        try works("sticky directory")
    }

    /// A new session file is never made where swurl would refuse to read it back: in (or below)
    /// a directory others can write without the sticky bit, `--session` is refused with 65
    /// before the request, naming the directory and the fix, and nothing is created. A sticky
    /// directory is fine.
    func testNoSessionFileIsMadeWhereOthersCouldReplaceIt() throws {
        let dir = TestPaths.temporaryDirectory() + "/shared"
        XCTAssertEqual(mkdir(dir, 0o700), 0)
        XCTAssertEqual(chmod(dir, 0o777), 0)
        for path in [dir + "/s.json", dir + "/deeper/still/s.json"] {
            let r = try swurl(["--session", path, try url("/headers"), "X-Team:red"])
            XCTAssertEqual(r.status, 65, "\(path): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("its directory \(dir) is writable by") && r.stderr.contains("chmod go-w \(dir)"), r.stderr)
            XCTAssertEqual(r.stdout, Data(), "nothing is sent: \(path)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), [])
        // A link of the user's own to a file not there yet is judged where the save would write.
        let link = TestPaths.temporaryDirectory() + "/link.json"
        XCTAssertEqual(symlink(dir + "/t.json", link), 0)
        let linked = try swurl(["--session", link, try url("/headers")])
        XCTAssertEqual(linked.status, 65, linked.stderr)
        XCTAssertEqual(linked.stdout, Data(), "refused before the request")
        // A read-only session writes nothing: a missing file there is an empty session.
        let readOnly = try swurl(["--session-read-only", dir + "/s.json", try url("/headers"), "X-Team:red"])
        XCTAssertEqual(readOnly.status, 0, readOnly.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), [])
        // Nor do --offline and --curl, which send nothing (they were refused as if they saved).
        for mode in ["--offline", "--curl"] {
            let shown = try swurl(["--session", dir + "/s.json", mode, try url("/headers"), "X-Team:red"])
            XCTAssertEqual(shown.status, 0, "\(mode): \(shown.stderr)")
            XCTAssertTrue(shown.text.contains("X-Team"), shown.text)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), [])
        XCTAssertEqual(chmod(dir, 0o1777), 0)
        let r = try swurl(["--session", dir + "/s.json", try url("/headers"), "X-Team:red"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try mode(dir + "/s.json"), 0o600)
    }

    /// The session file is no place for the exchange's other outputs: `-o` or `--har` naming it
    /// is refused (64: their renames replaced the session), and a download's name from the
    /// server never takes it (a server could plant headers and cookies for other hosts).
    func testTheSessionFileIsNoOtherOutputsPlace() throws {
        let dir = TestPaths.temporaryDirectory()
        for option in ["-o", "--har"] {
            let r = try swurl(["--session", "./s.json", option, "s.json", try url("/cookies/set?a=b")], directory: dir)
            XCTAssertEqual(r.status, 64, "\(option): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("name the same file"), r.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/s.json"))
        let named = try url("/response-headers?Content-Disposition=" + "attachment; filename=s.json".urlQueryEscaped)
        let d = try swurl(["--session", "./s.json", "-d", named, "X-Team:red"], directory: dir)
        XCTAssertEqual(d.status, 0, d.stderr)
        XCTAssertFalse(d.stderr.contains("saved '\(dir)/s.json'"), d.stderr)
        XCTAssertTrue(d.stderr.contains("saved '\(dir)/s.json-1'"), "the server was answered, under another name: \(d.stderr)")
        let again = try swurl(["--session", "./s.json", try url("/headers")], directory: dir)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(try sentHeaders(again)["X-Team"], "red", "the session is the one swurl saved")
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

    // MARK: - Issue 27: cookie order, attributes, limits, redirects, names, odd files, links

    /// The Cookie header on a request to /headers, as httpbin echoes it.
    private func cookieHeader(_ args: [String]) throws -> String? {
        let r = try swurl(args)
        XCTAssertEqual(r.status, 0, r.stderr)
        return try sentHeaders(r)["Cookie"]
    }

    /// The cookies' names in the session file, in its order.
    private func cookieNames(_ path: String) throws -> [String] {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
        return (object?["cookies"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
    }

    /// RFC 6265 §5.4: longer paths first, then earlier creation; the same on every run, and the
    /// file keeps the cookies in the order they were created (it was written from a `Set`).
    func testCookiesAreSentInCreationOrderOnEveryRun() throws {
        let names = (1...6).map { "k\($0)" }
        let query = names.map { "\($0)=v" }.joined(separator: "&")
        XCTAssertEqual(try swurl(["--session", "s", try url("/cookies/set?" + query)]).status, 0)
        XCTAssertEqual(try swurl(["--session", "s", try url("/response-headers?Set-Cookie=deep%3D1%3B%20Path%3D%2Fheaders")]).status, 0)
        let expected = "deep=1; " + names.map { "\($0)=v" }.joined(separator: "; ")
        for run in 1...4 {
            XCTAssertEqual(try cookieHeader(["--session", "s", try url("/headers")]), expected, "run \(run)")
        }
        XCTAssertEqual(try cookieNames(try namedFile("s")), names + ["deep"])
        // A cookie the server changes keeps its place.
        XCTAssertEqual(try swurl(["--session", "s", try url("/cookies/set/k1/w")]).status, 0)
        XCTAssertEqual(try cookieNames(try namedFile("s")), names + ["deep"])
        XCTAssertEqual(try cookieHeader(["--session", "s", try url("/headers")]), expected.replacingOccurrences(of: "k1=v", with: "k1=w"))
    }

    /// `Path=` (empty), a relative and a quoted path are the default path (RFC 6265 §5.2.4), not
    /// a stored `"path": ""` that made every later run exit 65.
    func testEmptyRelativeOrQuotedPathsAreStoredAsTheDefaultPath() throws {
        let set = ["a%3D1%3B%20Path%3D", "b%3D2%3B%20path%3Dx", "c%3D3%3B%20Path%3D%22%2Fq%22"]
            .map { "Set-Cookie=" + $0 }.joined(separator: "&")
        let first = try swurl(["--session", "s", try url("/response-headers?" + set)])
        XCTAssertEqual(first.status, 0, first.stderr)
        let r = try swurl(["--session", "s", try url("/cookies")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try cookies(r), ["a": "1", "b": "2", "c": "3"])
        let text = try String(contentsOfFile: try namedFile("s"), encoding: .utf8)
        XCTAssertEqual(text.components(separatedBy: "\"path\": \"/\"").count, 4, text)
    }

    /// A bad cookie entry (written by an older swurl, or by hand) is skipped with a warning
    /// naming the file and the entry; the rest of the session works, and the next save drops it.
    func testABadCookieEntryIsSkippedWithAWarning() throws {
        let path = TestPaths.temporaryDirectory() + "/s.json"
        try Data("""
            {"version": 1, "cookies": [
              {"domain": "127.0.0.1", "path": "", "name": "empty", "value": "1"},
              {"domain": "127.0.0.1", "path": "/", "name": "a\\tb", "value": "1"},
              {"domain": "127.0.0.1", "path": "/", "name": "good", "value": "1"},
              {"domain": "127.0.0.1", "path": "/", "name": "typed", "value": 5}
            ]}
            """.utf8).write(to: URL(fileURLWithPath: path))
        let r = try swurl(["--session", path, try url("/cookies")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try cookies(r), ["good": "1"])
        for entry in ["cookies[0] (empty for 127.0.0.1) has the path ''", "cookies[1]", "cookies[3] has no string \"value\""] {
            XCTAssertTrue(r.stderr.contains("swurl: warning: the session file \(path): \(entry)"), "\(entry): \(r.stderr)")
        }
        XCTAssertEqual(try cookieNames(path), ["good"])
        let again = try swurl(["--session", path, try url("/cookies")])
        XCTAssertEqual(again.stderr, "")
    }

    /// A request with its own `Host` keeps no cookie the server set for the host that header
    /// names: libcurl's engine files them under it, and a `--session PATH` kept them, to be sent
    /// to that host later (session fixation; batch and the REPL without a session never did).
    /// The URL's own host's cookies are still kept.
    func testACookieSetUnderAHandSetHostIsNotKept() throws {
        let path = TestPaths.temporaryDirectory() + "/s.json"
        let planted = try swurl(["--session", path, try url("/cookies/set?planted=1"), "Host:victim.example"])
        XCTAssertEqual(planted.status, 0, planted.stderr)
        XCTAssertEqual(try cookieNames(path), [])
        let own = try swurl(["--session", path, try url("/cookies/set?mine=1")])
        XCTAssertEqual(own.status, 0, own.stderr)
        XCTAssertEqual(try cookieNames(path), ["mine"])
        let shown = try swurl(["--session", path, "--offline", "http://victim.example/"])
        XCTAssertFalse(shown.text.contains("planted"), shown.text)
    }

    /// Nor does a redirect to that host get it: the engine sent the cookie the first server
    /// filed under the `Host` header's name on the hop to the host it named, and the session kept
    /// it, since that host was reached. A redirect back to the same server (the header goes
    /// again) still carries it.
    func testACookieFiledUnderAHandSetHostNeverFollowsARedirectToThatHost() throws {
        let capture = try CaptureServer()
        let port = try XCTUnwrap(URL(string: capture.base)?.port)
        let redirect = SequenceServer.Reply("302 Found", ["Location: http://localhost:\(port)/login", "Set-Cookie: sid=EVIL; Path=/", "Content-Length: 0"])
        let attacker = try SequenceServer([redirect])
        let path = TestPaths.temporaryDirectory() + "/s.json"
        for session in [["--session", path], []] {
            let r = try swurl(session + ["-F", attacker.url("/go"), "Host:localhost:\(port)"])
            XCTAssertEqual(r.status, 0, r.stderr)
        }
        try capture.sync()
        let sent = String(decoding: capture.capturedAll, as: UTF8.self)
        XCTAssertEqual(sent.components(separatedBy: "GET /login").count, 3, sent)
        XCTAssertFalse(sent.contains("EVIL"), sent)
        XCTAssertEqual(try cookieNames(path), [])
        let same = try SequenceServer([SequenceServer.Reply("302 Found", ["Location: /next", "Set-Cookie: sid=OK; Path=/", "Content-Length: 0"]),
                                       SequenceServer.Reply("200 OK", ["Content-Length: 0"])])
        XCTAssertEqual(try swurl(["-F", same.url("/go"), "Host:localhost:\(port)"]).status, 0)
        XCTAssertTrue(same.requests().last?.contains("Cookie: sid=OK") == true, "\(same.requests())")
    }

    /// Nor through the named host redirecting back to the first origin: that hop carries the
    /// `Host` again, and the cookie its server set there under the name, and the named host's
    /// own cookies (which went to the first server on it), were mixed in one jar. Each server
    /// sees its own: the first one gets its cookie back after the round trip (a Host-routed
    /// app's login through another origin), the named host never gets it, nor does the session.
    func testARoundTripThroughTheNamedHostKeepsEachServersCookiesApart() throws {
        let attacker = try ScriptedServer(), victim = try ScriptedServer()
        func q(_ s: String) -> String { s.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? s }
        // Attacker (Host: localhost:PORT) → the named host (it redirects back, setting its own
        // cookie) → attacker again (it sets one under the name) → attacker's /echo.
        let step2 = attacker.url("/redirect?to=\(q("/echo"))&cookie=\(q("planted=EVIL; Path=/"))")
        let viaVictim = victim.url("/redirect?to=\(q(step2))&cookie=\(q("sid=FRESH; Path=/"))", host: "localhost")
        let go = attacker.url("/redirect?to=\(q(viaVictim))&cookie=\(q("state=S1; Path=/"))")
        let path = TestPaths.temporaryDirectory() + "/s.json"
        let r = try swurl(["--session", path, "-F", go, "Host:localhost:\(victim.port)"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let cookiesAt: (ScriptedServer) -> [String] = { server in
            // (Pairs sorted: their order is the engine's.)
            server.requests().map { request in
                let value = ((request["headers"] as? [String: String]) ?? [:]).first { $0.key.lowercased() == "cookie" }?.value ?? ""
                return value.components(separatedBy: "; ").sorted().joined(separator: "; ")
            }
        }
        XCTAssertEqual(cookiesAt(attacker), ["", "state=S1", "planted=EVIL; state=S1"],
                       "the first server's own cookies come back to it, never the named host's")
        XCTAssertEqual(cookiesAt(victim), [""], "nothing the first server set under the name")
        XCTAssertEqual(Set(try cookieNames(path)), ["sid"], "the named host's own cookie is kept, nothing the first server set")
        XCTAssertEqual(try swurl(["--session", path, victim.url("/echo", host: "localhost")]).status, 0)
        XCTAssertEqual(cookiesAt(victim).last, "sid=FRESH")
    }

    /// A `Host` that opens an IPv6 bracket and never closes it is refused: libcurl read another
    /// name out of it for its cookies (`[victim.tes` became `victim.tess`) than swurl did, so
    /// the cookie views could not keep that name's cookies apart.
    func testAHostWithAnUnclosedBracketIsRefused() throws {
        let r = try swurl(["--offline", "http://127.0.0.1:9/", "Host:[victim.tes"])
        XCTAssertEqual(r.status, 64, r.stderr)
        XCTAssertTrue(r.stderr.contains("an IPv6 address in a Host header needs its closing ']'"), r.stderr)
        XCTAssertEqual(try swurl(["--offline", "http://127.0.0.1:9/", "Host:[::1]:8080"]).status, 0)
    }

    /// A key of the user's own in a session file (a note) is not written back by a save: a
    /// warning says so (it was dropped without a word).
    func testAnUnknownKeyIsNotKeptAndSaysSo() throws {
        let path = TestPaths.temporaryDirectory() + "/s.json"
        try Data("""
            {"swurl": "session", "version": 1, "note": "staging account", "note": "again", "headers": [{"name": "X-Team", "value": "blue"}]}
            """.utf8).write(to: URL(fileURLWithPath: path))
        let r = try swurl(["--session", path, try url("/headers")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("swurl: warning: the session file \(path) holds \"note\", which is not a session key: "
                                        + "it is read as nothing, and a save would not keep it"), r.stderr)
        XCTAssertEqual(r.stderr.components(separatedBy: "holds \"note\"").count, 2, "once for the key: \(r.stderr)")
    }

    /// Per-cookie (4096 bytes of name and value) and per-domain (50) limits apply when saving,
    /// the oldest going first, with a warning naming what was dropped.
    func testSavingKeepsPerCookieAndPerDomainLimits() throws {
        let path = TestPaths.temporaryDirectory() + "/s.json"
        func entry(_ domain: String, _ name: String, _ value: String) -> String {
            "{\"domain\": \"\(domain)\", \"path\": \"/\", \"name\": \"\(name)\", \"value\": \"\(value)\"}"
        }
        let mine = (0..<60).map { entry("127.0.0.1", String(format: "n%02d", $0), "1") }
        let huge = entry("big.example", "huge", String(repeating: "x", count: 4093))
        let fine = entry("big.example", "fine", String(repeating: "x", count: 4092))
        try Data("{\"version\": 1, \"cookies\": [\(([huge, fine] + mine).joined(separator: ",\n"))]}".utf8)
            .write(to: URL(fileURLWithPath: path))
        let r = try swurl(["--session", path, try url("/cookies/set/fresh/1")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("the session file \(path): 1 cookie of more than 4096 bytes (name and value) was not saved: huge"), r.stderr)
        XCTAssertTrue(r.stderr.contains("keeps at most 50 cookies per domain: the 11 oldest cookies for 127.0.0.1 dropped: n00, n01, n02, n03, n04, …"), r.stderr)
        XCTAssertEqual(try cookieNames(path), ["fine"] + (11..<60).map { String(format: "n%02d", $0) } + ["fresh"])
        // Regression: the limit dropped by creation order alone, so a login cookie the server
        // had just set again (the oldest, first in the file) went first, and the next run was
        // logged out. A cookie this run set is dropped last.
        let r2 = try swurl(["--session", path, try url("/cookies/set?n11=again&new1=1")])
        XCTAssertEqual(r2.status, 0, r2.stderr)
        XCTAssertTrue(r2.stderr.contains("the 1 oldest cookies for 127.0.0.1 dropped: n12") || r2.stderr.contains("the oldest cookie for 127.0.0.1 dropped: n12"), r2.stderr)
        let names = try cookieNames(path)
        XCTAssertTrue(names.contains("n11") && names.contains("new1") && !names.contains("n12"), "\(names)")
        // Also set again with the same value (a server re-sending its session id): the oldest,
        // n11 again, stays; n13 goes.
        let r3 = try swurl(["--session", path, try url("/cookies/set?n11=again&new2=1")])
        XCTAssertEqual(r3.status, 0, r3.stderr)
        let again = try cookieNames(path)
        XCTAssertTrue(again.contains("n11") && again.contains("new2") && !again.contains("n13"), "\(again)")
    }

    /// A domain cookie written as HTTPie's sessions and Netscape jars write it (`.example.test`)
    /// is sent to that domain and its subdomains (it was kept and never sent).
    func testADomainWithALeadingDotIsADomainCookie() throws {
        let path = TestPaths.temporaryDirectory() + "/dot.json"
        try Data(#"{"version": 1, "cookies": [{"domain": ".example.test", "path": "/", "name": "dotdom", "value": "1"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: path))
        let port = try XCTUnwrap(URL(string: try url("/"))?.port)
        for host in ["example.test", "api.example.test"] {
            let r = try swurl(["--session", path, "--resolve", "\(host):\(port):127.0.0.1", "http://\(host):\(port)/cookies"])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(r.text.contains("\"dotdom\": \"1\""), "\(host): \(r.text)")
        }
    }

    /// The file never grows past the 1 MiB a later run reads: the oldest cookies go.
    func testTheFileNeverGrowsPastWhatALaterRunReads() throws {
        let path = TestPaths.temporaryDirectory() + "/s.json"
        let value = String(repeating: "y", count: 3900)
        var entries: [String] = []
        var size = 60
        var i = 0
        while size < (1 << 20) - 2000 {
            let e = "{\"domain\": \"f\(i).example\", \"path\": \"/\", \"name\": \"f\(i)\", \"value\": \"\(value)\"}"
            entries.append(e)
            size += e.utf8.count + 2
            i += 1
        }
        entries.removeLast()
        try Data("{\"version\": 1, \"cookies\": [\(entries.joined(separator: ",\n"))]}".utf8).write(to: URL(fileURLWithPath: path))
        var warned = ""
        for n in 0..<4 {
            let r = try swurl(["--session", path, try url("/cookies/set/big\(n)/" + String(repeating: "z", count: 1800))])
            XCTAssertEqual(r.status, 0, "run \(n): \(r.stderr)")
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path)).count
            XCTAssertLessThanOrEqual(bytes, 1 << 20, "run \(n)")
            warned += r.stderr
        }
        // (Written by swurl, each entry is longer than the one given: the first save drops several.)
        XCTAssertTrue(warned.contains("swurl: warning: the session file \(path) would pass 1 MiB: the "), warned)
        XCTAssertTrue(warned.contains(" oldest cookies dropped: f0, f1, "), warned)
        let later = try swurl(["--session", path, try url("/cookies")])
        XCTAssertEqual(later.status, 0, later.stderr)
        XCTAssertEqual(Set(try cookies(later).keys), ["big0", "big1", "big2", "big3"])
        let names = try cookieNames(path)
        XCTAssertFalse(names.contains("f0"), "the oldest went first")
        XCTAssertTrue(names.contains("f\(i - 2)"))
    }

    /// A redirect to another host of the same session gets that host's cookies (as curl
    /// `-b jar -L` and HTTPie do), never the first host's; credentials stay with their origin.
    func testEachRedirectHopGetsItsOwnHostsCookies() throws {
        let redirect = try otherHostURL("/redirect-to?url=")
        // 127.0.0.1 sets a cookie on a hop of a localhost session; localhost sets its own.
        let set = try swurl(["--session", "s", "-F", redirect + (try url("/cookies/set/flavour/oat"))])
        XCTAssertEqual(set.status, 0, set.stderr)
        XCTAssertEqual(try swurl(["--session", "s", "-a", "ann:pw", try otherHostURL("/cookies/set/mine/1")]).status, 0)
        let r = try swurl(["--session", "s", "-F", redirect + (try url("/headers"))])
        XCTAssertEqual(r.status, 0, r.stderr)
        let headers = try sentHeaders(r)
        XCTAssertEqual(headers["Cookie"], "flavour=oat")
        XCTAssertNil(headers["Authorization"])
        // On its own host, localhost gets its cookie and the credentials.
        let home = try sentHeaders(try swurl(["--session", "s", try otherHostURL("/headers")]))
        XCTAssertEqual(home["Cookie"], "mine=1")
        XCTAssertNotNil(home["Authorization"])
        // A PATH session: 127.0.0.1 set the cookie on a run of its own.
        let path = TestPaths.temporaryDirectory() + "/shared.json"
        XCTAssertEqual(try swurl(["--session", path, try url("/cookies/set/direct/1")]).status, 0)
        let hop = try swurl(["--session", path, "-F", redirect + (try url("/cookies"))])
        XCTAssertEqual(hop.status, 0, hop.stderr)
        XCTAssertEqual(try cookies(hop), ["direct": "1"])
    }

    /// A name with a line break or another control character is refused (64) as HTTPie does.
    func testSessionNamesWithControlCharactersAreRefused() throws {
        for name in ["a\nb", "tab\there", "esc\u{1B}[31m", "del\u{7F}"] {
            let r = try swurl(["--session", name, try url("/get")])
            XCTAssertEqual(r.status, 64, "\(name.debugDescription): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("control character"), r.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: config + "/swurl"))
    }

    /// A name too long for its file (NAME.json over 255 bytes) is refused before anything is sent
    /// (the request went out and the save failed: exit 1; the next run said the file could not be
    /// read, 66); 250 bytes is the longest name.
    func testASessionNameTooLongForAFileNameIsRefusedBeforeSending() throws {
        let long = String(repeating: "y", count: 251)
        for extra in [[String](), ["--offline"]] {
            let r = try swurl(["--session", long] + extra + [try url("/get")])
            XCTAssertEqual(r.status, 64, r.stderr)
            XCTAssertTrue(r.stderr.contains("(251 bytes)' is too long: a session file's name (NAME.json) holds at most 250 bytes"), r.stderr)
            XCTAssertTrue(r.text.isEmpty, r.text)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: config + "/swurl"))
        let longest = String(repeating: "é", count: 125)
        XCTAssertEqual(try swurl(["--session", longest, try url("/cookies/set/k/v")]).status, 0)
        XCTAssertEqual(try swurl(["--session", longest, try url("/cookies")]).text.contains("\"k\": \"v\""), true)
    }

    /// Authorization, Cookie and Host added by hand to "headers" are not sent, and each run says
    /// so, naming the file and the entry; the file keeps them.
    func testHeadersASessionNeverSendsAreWarnedAbout() throws {
        let path = TestPaths.temporaryDirectory() + "/s.json"
        let text = """
            {"version": 1, "headers": [
              {"name": "Authorization", "value": "Basic YW5uOnB3"},
              {"name": "Cookie", "value": "planted=1"},
              {"name": "Host", "value": "evil.example"},
              {"name": "X-Team", "value": "blue"}
            ]}
            """
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let r = try swurl(["--session", path, try url("/headers")])
        XCTAssertEqual(r.status, 0, r.stderr)
        let headers = try sentHeaders(r)
        XCTAssertEqual(headers["X-Team"], "blue")
        XCTAssertNil(headers["Authorization"])
        XCTAssertNil(headers["Cookie"])
        XCTAssertNotEqual(headers["Host"], "evil.example")
        for (i, name) in ["Authorization", "Cookie", "Host"].enumerated() {
            XCTAssertTrue(r.stderr.contains("swurl: warning: the session file \(path): headers[\(i)] (\(name)) is ignored: "), r.stderr)
        }
        XCTAssertTrue(r.stderr.contains("remove it from the file"), r.stderr)
        XCTAssertTrue(try String(contentsOfFile: path, encoding: .utf8).contains("planted=1"))
    }

    /// A session or config path that is a FIFO is refused (66), not waited on: no process ever
    /// writes to this FIFO, so a blocking open() of it would wait forever, and swurl ending at
    /// all shows it did not. (A watchdog kills a swurl that hangs, after two minutes, which
    /// fails the status check; nothing here measures how long swurl took.)
    func testAFIFOSessionOrConfigIsRefusedWithoutWaiting() throws {
        let dir = TestPaths.temporaryDirectory()
        let fifo = dir + "/fifo.json"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        for (args, env, what) in [(["--session", fifo], [:], "the session file"), ([], ["SWURL_CONFIG": fifo], "the config file")] {
            var environment = ProcessInfo.processInfo.environment.merging(env) { $1 }
            environment["XDG_CONFIG_HOME"] = config
            let r = try runProcess("/usr/bin/timeout", ["--signal=KILL", "120", TestPaths.binary] + args + [try url("/get")],
                                   environment: environment, check: false)
            XCTAssertNotEqual(r.status, 137, "\(what) was waited on until the watchdog killed swurl (timeout --signal=KILL exits 137)")
            XCTAssertEqual(r.status, 66, r.stderr)
            XCTAssertTrue(r.stderr.contains("\(what) \(fifo) is a FIFO, not a regular file"), r.stderr)
        }
    }

    /// A response cut after its head (here a body shorter than its Content-Length; a timeout or
    /// Ctrl-C alike) still saves the session with the cookies the engine holds: the stored ones
    /// and the one the cut response set. The host's stored cookies were deleted.
    func testACutResponseKeepsTheStoredCookiesAndAddsItsOwn() throws {
        let server = try SequenceServer([.init("200 OK", ["Set-Cookie: sid=secret1; Path=/", "Content-Length: 2"], body: Data("ok".utf8)),
                                         .init("200 OK", ["Set-Cookie: new=2; Path=relative", "Content-Length: 1000"], body: Data("abc".utf8)),
                                         .init("200 OK", ["Set-Cookie: dl=3; Path=/", "Content-Length: 1000"], body: Data("abc".utf8))])
        let dir = TestPaths.temporaryDirectory()
        let file = dir + "/w.json"
        let login = try swurl(["--session", file, server.url("/login")])
        XCTAssertEqual(login.status, 0, login.stderr)
        let cut = try swurl(["--session", file, server.url("/a/b/drop")])
        XCTAssertEqual(cut.status, 1, cut.stderr)
        XCTAssertEqual(Set(try cookieNames(file)), ["sid", "new"])
        // The cut response's cookie with an invalid Path gets its URL's default path, as a whole one's.
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any]
        let new = (object?["cookies"] as? [[String: Any]] ?? []).first { $0["name"] as? String == "new" }
        XCTAssertEqual(new?["path"] as? String, "/a/b")
        // A download cut after its head saves the session too.
        let download = try swurl(["--session", file, "-d", "-o", dir + "/dl.bin", server.url("/dl.bin")])
        XCTAssertEqual(download.status, 1, download.stderr)
        XCTAssertEqual(Set(try cookieNames(file)), ["sid", "new", "dl"])
    }

    /// A redirect whose target cannot be reached: the redirect's response set a cookie, and the
    /// session keeps it (curl's jar does), for a request and a download alike.
    func testARedirectsCookiesAreKeptWhenALaterHopFails() throws {
        let server = try ScriptedServer()
        let dead = "http://127.0.0.1:\(try ServerProcess.refusedPort())/gone"
        let file = TestPaths.temporaryDirectory() + "/r.json"
        let request = try swurl(["-F", "--session", file, server.url("/redirect?to=\(dead.urlQueryEscaped)&cookie=sid%3Dabc%3B%20Path%3D%2F")])
        XCTAssertEqual(request.status, 1, request.stderr)
        XCTAssertEqual(try cookieNames(file), ["sid"])
        let download = try swurl(["-F", "--session", file, "-d", "-o", TestPaths.temporaryDirectory() + "/x.bin",
                                  server.url("/redirect?to=\(dead.urlQueryEscaped)&cookie=dl%3D2%3B%20Path%3D%2F")])
        XCTAssertEqual(download.status, 1, download.stderr)
        XCTAssertEqual(Set(try cookieNames(file)), ["sid", "dl"])
        // Nothing answered: no session is written.
        let none = TestPaths.temporaryDirectory() + "/none.json"
        XCTAssertEqual(try swurl(["--session", none, dead]).status, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: none))
    }

    /// A session file that is a symbolic link (the user's own) is written at its target,
    /// atomically, and the link stays a link.
    func testASymlinkedSessionIsWrittenThroughTheLink() throws {
        let dir = TestPaths.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir + "/real", withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o700])
        let link = dir + "/link.json"
        XCTAssertEqual(symlink("real/s.json", link), 0)
        for n in 1...2 {
            let r = try swurl(["--session", link, try url("/cookies/set/c\(n)/v")])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link), "real/s.json", "run \(n)")
        }
        XCTAssertEqual(try cookieNames(dir + "/real/s.json"), ["c1", "c2"])
        XCTAssertEqual(try mode(dir + "/real/s.json"), 0o600)
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: dir + "/real")), ["s.json", ".s.json.lock"])
        XCTAssertEqual(try cookies(try swurl(["--session", link, try url("/cookies")])), ["c1": "v", "c2": "v"])
        // A dangling link's missing directories are not made where it points (they were, 0700,
        // anywhere on the file system): the session is not saved, and says so.
        let dangling = dir + "/dangling.json"
        XCTAssertEqual(symlink(dir + "/nowhere/deeper/s.json", dangling), 0)
        let lost = try swurl(["--session", dangling, try url("/cookies/set/c/v")])
        XCTAssertEqual(lost.status, 1, lost.stderr)
        XCTAssertTrue(lost.stderr.contains("the session was not saved"), lost.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/nowhere"))
        // A link another user owns is neither read nor written through: refused before sending
        // (it would choose which file's headers and credentials go out), read-only too.
        if geteuid() == 0 {
            XCTAssertEqual(lchown(link, 12345, 12345), 0)
            let capture = try CaptureServer()
            for option in ["--session", "--session-read-only"] {
                let r = try swurl([option, link, capture.base + "/c3"])
                XCTAssertEqual(r.status, 65, r.stderr)
                XCTAssertTrue(r.stderr.contains("the session file \(link) cannot be used: the symbolic link \(link) belongs to uid 12345"), r.stderr)
            }
            XCTAssertEqual(capture.captured.count, 0, "nothing was sent")
            XCTAssertEqual(try cookieNames(dir + "/real/s.json"), ["c1", "c2"])
            // So is one that is a directory on the way (`via/s.json`, via another user's link to
            // the user's directory): it chose the file as well (only the last part was checked).
            XCTAssertEqual(symlink(dir + "/real", dir + "/via"), 0)
            XCTAssertEqual(lchown(dir + "/via", 12345, 12345), 0)
            let through = try swurl(["--session", dir + "/via/s.json", capture.base + "/c4"])
            XCTAssertEqual(through.status, 65, through.stderr)
            XCTAssertTrue(through.stderr.contains("the symbolic link \(dir)/via belongs to uid 12345"), through.stderr)
            XCTAssertEqual(capture.captured.count, 0, "nothing was sent")
        }
    }

    /// A hand-written credential origin in another form (`HTTP://h:80/`) is the same origin; a
    /// cookie whose value holds a `;` (it would send a second cookie) is skipped with a warning.
    func testHandWrittenOriginsAndCookiesAreReadAsMeant() throws {
        let file = TestPaths.temporaryDirectory() + "/s.json"
        let port = try HTTPBin.shared().port
        try Data(#"{"swurl":"session","version":1,"headers":[],"auth":{"type":"basic","origin":"HTTP://127.0.0.1:\#(port)/","username":"u","password":"p"},"cookies":[{"domain":"127.0.0.1","path":"/","name":"a","value":"x;b=c"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: file))
        chmod(file, 0o600)
        let r = try swurl(["--session-read-only", file, try url("/headers")])
        XCTAssertEqual(r.status, 0, r.stderr)
        let sent = try sentHeaders(r)
        XCTAssertEqual(sent["Authorization"], "Basic " + Data("u:p".utf8).base64EncodedString())
        XCTAssertNil(sent["Cookie"], "\(sent)")
        XCTAssertTrue(r.stderr.contains("cookies[0]") && r.stderr.contains("';'"), r.stderr)
    }


    /// A session's cookies and a Cookie item go in one Cookie line (RFC 6265 §5.4), on the wire
    /// and in --offline: they were two lines.
    func testSessionCookiesAndACookieItemMakeOneLine() throws {
        let capture = try CaptureServer()
        let file = TestPaths.temporaryDirectory() + "/s.json"
        try Data(#"{"swurl":"session","version":1,"headers":[],"cookies":[{"domain":"127.0.0.1","path":"/","name":"sid","value":"S"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: file))
        chmod(file, 0o600)
        let r = try swurl(["--session-read-only", file, capture.base + "/x", "Cookie:pre=1"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let head = String(decoding: capture.captured, as: UTF8.self).components(separatedBy: "\r\n\r\n")[0]
        let cookieLines = head.components(separatedBy: "\r\n").filter { $0.lowercased().hasPrefix("cookie:") }
        XCTAssertEqual(cookieLines, ["Cookie: sid=S; pre=1"], head)
        let offline = try swurl(["--session-read-only", file, capture.base + "/x", "Cookie:pre=1", "--offline"])
        XCTAssertEqual(offline.text.components(separatedBy: "\r\n").filter { $0.lowercased().hasPrefix("cookie:") }, ["Cookie: sid=S; pre=1"], offline.text)
        // An empty `Cookie;` beside the session's cookies: the engine's line alone, on the wire,
        // in --offline and in --curl (an empty second line went too, before it in --curl).
        let empty = try CaptureServer()
        XCTAssertEqual(try swurl(["--session-read-only", file, empty.base + "/e", "Cookie;"]).status, 0)
        let emptyHead = String(decoding: empty.captured, as: UTF8.self).components(separatedBy: "\r\n\r\n")[0]
        XCTAssertEqual(emptyHead.components(separatedBy: "\r\n").filter { $0.lowercased().hasPrefix("cookie") }, ["Cookie: sid=S"], emptyHead)
        let emptyOffline = try swurl(["--session-read-only", file, empty.base + "/e", "Cookie;", "--offline"])
        XCTAssertEqual(emptyOffline.text.components(separatedBy: "\r\n").filter { $0.lowercased().hasPrefix("cookie") }, ["Cookie: sid=S"], emptyOffline.text)
        let emptyCurl = try swurl(["--session-read-only", file, empty.base + "/e", "Cookie;", "--curl"])
        XCTAssertEqual(emptyCurl.text.components(separatedBy: "\n").filter { $0.contains("Cookie") }
                        .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \\")) },
                       ["--header 'Cookie: sid=S'"], emptyCurl.text)
        // Items, a value ending in ';' and an empty `Cookie;` beside them: every item is sent.
        for (items, line) in [(["Cookie:a=b", "Cookie:c=d;"], "Cookie: a=b; c=d;"), (["Cookie:a=b", "Cookie;"], "Cookie: a=b")] {
            let capture = try CaptureServer()
            let r = try swurl([capture.base + "/y"] + items)
            XCTAssertEqual(r.status, 0, r.stderr)
            let head = String(decoding: capture.captured, as: UTF8.self).components(separatedBy: "\r\n\r\n")[0]
            XCTAssertEqual(head.components(separatedBy: "\r\n").filter { $0.lowercased().hasPrefix("cookie") }, [line], head)
        }
    }
    /// Another program's JSON with "version": 1 is not a session: refused (65) and left as it
    /// was (it was rewritten as a session, its own keys gone).
    func testAnotherProgramsJSONIsNotTakenForASession() throws {
        let dir = TestPaths.temporaryDirectory()
        let path = dir + "/pkg.json"
        // With any version or none (it said `"version" must be 1` of a file without one).
        for text in [#"{"name":"my-package","version":1,"dependencies":{"a":"1"}}"#, #"{"foo":1}"#, #"{"name":"x","version":"2.0.1"}"#] {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            chmod(path, 0o600)
            let r = try runSwurl(["--no-config", "--session", path, try HTTPBin.url("/get")])
            XCTAssertEqual(r.status, 65, r.stderr)
            XCTAssertTrue(r.stderr.contains("is not a swurl session: it has no \"swurl\": \"session\""), r.stderr)
            XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), text)
        }
    }

    /// A cookie for a one-label domain (`Domain=localhost`) is never sent to its subdomains by
    /// libcurl's engine, and --offline and --curl say so: they showed and exported it for
    /// `a.localhost`, which the request never sent it to. Its own host still gets it.
    func testAOneLabelDomainsCookieGoesToItsOwnHostOnly() throws {
        let capture = try CaptureServer()
        let path = TestPaths.temporaryDirectory() + "/s.json"
        try Data(#"{"swurl":"session","version":1,"headers":[],"cookies":[{"domain":"localhost","includeSubdomains":true,"path":"/","name":"d","value":"1"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        let sub = "http://a.localhost:\(capture.server.port)/x"
        let r = try swurl(["--session-read-only", path, sub])
        XCTAssertEqual(r.status, 0, r.stderr)
        let head = String(decoding: capture.captured, as: UTF8.self).components(separatedBy: "\r\n\r\n")[0]
        XCTAssertFalse(head.lowercased().contains("\r\ncookie:"), head)
        let offline = try swurl(["--session-read-only", path, sub, "--offline"])
        XCTAssertFalse(offline.text.lowercased().contains("\r\ncookie:"), offline.text)
        let curl = try swurl(["--session-read-only", path, sub, "--curl"])
        XCTAssertFalse(curl.text.contains("Cookie"), curl.text)
        let own = try swurl(["--session-read-only", path, "http://localhost:9/x", "--offline"])
        XCTAssertTrue(own.text.contains("\r\nCookie: d=1\r\n"), own.text)
    }

    /// --curl exports the session cookies the engine would send, as --offline shows them: not a
    /// secure cookie over http, not an expired one, not one for another path.
    func testCurlExportsTheCookiesTheEngineWouldSend() throws {
        let dir = TestPaths.temporaryDirectory()
        let path = dir + "/s.json"
        try Data(#"{"swurl":"session","version":1,"headers":[],"cookies":[{"domain":"foo.test","path":"/","name":"p","value":"1"},{"domain":"foo.test","path":"/","name":"sec","value":"1","secure":true},{"domain":"foo.test","path":"/","name":"old","value":"1","expires":1000},{"domain":"foo.test","path":"/zzz","name":"z","value":"1"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        let offline = try runSwurl(["--no-config", "--offline", "--session-read-only", path, "http://foo.test:9/q"])
        XCTAssertTrue(offline.text.contains("Cookie: p=1\r\n"), offline.text + offline.stderr)
        let curl = try runSwurl(["--no-config", "--curl", "--session-read-only", path, "http://foo.test:9/q"])
        XCTAssertTrue(curl.text.contains("--header 'Cookie: p=1'"), curl.text + curl.stderr)
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
