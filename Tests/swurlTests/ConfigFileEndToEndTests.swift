import XCTest
import Foundation
import SwurlTestSupport

/// The config file of default options, end to end: what httpbin received.
final class ConfigFileEndToEndTests: XCTestCase {
    private func config(_ text: String) throws -> [String: String] { try TestPaths.config(text).env }

    func testConfigOptionsApplyAndTheCommandLineOverrides() throws {
        let env = try config("# defaults\n--form   # send forms\n--print=b\n")
        let form = try runSwurl([try HTTPBin.url("/post"), "a=1"], environment: env)
        XCTAssertEqual(form.status, 0, form.stderr)
        XCTAssertEqual(try form.json()["form"] as? [String: String], ["a": "1"])
        let json = try runSwurl(["--json", try HTTPBin.url("/post"), "a=1"], environment: env)
        XCTAssertEqual(json.status, 0, json.stderr)
        XCTAssertEqual(try json.json()["json"] as? [String: String], ["a": "1"])
        let off = try runSwurl([try HTTPBin.url("/post"), "a=1", "--no-config"], environment: env)
        XCTAssertEqual(try off.json()["json"] as? [String: String], ["a": "1"])
        // SWURL_CONFIG=/dev/null is no config, as an empty one (it was refused: a device).
        let devnull = try runSwurl([try HTTPBin.url("/post"), "a=1"], environment: env.merging(["SWURL_CONFIG": "/dev/null"]) { $1 })
        XCTAssertEqual(devnull.status, 0, devnull.stderr)
        XCTAssertEqual(try devnull.json()["json"] as? [String: String], ["a": "1"])
    }

    func testQuotedValuesReachTheServer() throws {
        let env = try config("--resolve 'swurl.test:\(try HTTPBin.shared().port):127.0.0.1'\n")
        let r = try runSwurl(["http://swurl.test:\(try HTTPBin.shared().port)/get"], environment: env)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual((try r.json()["headers"] as? [String: String])?["Host"], "swurl.test:\(try HTTPBin.shared().port)")
    }

    func testErrorsNameTheFileAndLineAndNothingIsSent() throws {
        let env = try config("--form\n\n--pretty sparkly\n")
        let r = try runSwurl([try HTTPBin.url("/get")], environment: env)
        XCTAssertEqual(r.status, 64)
        XCTAssertTrue(r.stderr.contains("swurl/config:3:"), r.stderr)
        let items = try runSwurl([try HTTPBin.url("/get")], environment: try config("--form a=1\n"))
        XCTAssertEqual(items.status, 64)
        XCTAssertTrue(items.stderr.contains("swurl/config:1: 'a=1'"), items.stderr)
        XCTAssertEqual(items.stdout, Data())
        // A command-line error that quotes a word the config holds too is not put on its line.
        let dir = TestPaths.temporaryDirectory()
        let typed = try runSwurl([try HTTPBin.url("/get"), "@work"], environment: try config("--session work\n"), directory: dir)
        XCTAssertEqual(typed.status, 66, typed.stderr)
        XCTAssertTrue(typed.stderr.hasPrefix("swurl: error: cannot read 'work'"), typed.stderr)
    }

    /// Two of the config's own lines that clash were put on the first line, with a hint for a
    /// clash with the command line ("drop the config's --form for this run"): the later line
    /// made the clash, and both lines are named.
    func testAClashBetweenTwoConfigLinesNamesTheLaterLineAndBoth() throws {
        let r = try runSwurl(["--offline", "POST", try HTTPBin.url("/post"), "a=1"], environment: try config("--form\n# a note\n--json\n"))
        XCTAssertEqual(r.status, 64, r.stderr)
        XCTAssertTrue(r.stderr.contains("swurl/config:3: --json and --form cannot be combined (with "), r.stderr)
        XCTAssertTrue(r.stderr.contains("swurl/config:1)"), r.stderr)
        XCTAssertTrue(r.stderr.contains("two lines of the config file clash"), r.stderr)
        XCTAssertEqual(r.stdout, Data())
        // Two lines holding the same value are no clash: the first bad one is named, with its
        // own hint (the value matched both, and the second was blamed).
        let same = try runSwurl(["-b", try HTTPBin.url("/get")], environment: try config("--timeout=0\n--max-redirects=0\n"))
        XCTAssertEqual(same.status, 64, same.stderr)
        XCTAssertTrue(same.stderr.contains("swurl/config:1: --timeout: '0' is not a positive number"), same.stderr)
        XCTAssertTrue(same.stderr.contains("e.g. --timeout 2.5"), same.stderr)
        // An option named last in the message (`… with --offline`) is named too.
        let last = try runSwurl([try HTTPBin.url("/get")], environment: try config("--curl\n--offline\n"))
        XCTAssertEqual(last.status, 64, last.stderr)
        XCTAssertTrue(last.stderr.contains("swurl/config:2: --curl cannot be combined with --offline (with "), last.stderr)
    }

    func testOptionsTheCommandDoesNotTakeAreLeftOut() throws {
        // --overwrite is a download option; as a default it must not break a plain request.
        let env = try config("--overwrite\n")
        let r = try runSwurl([try HTTPBin.url("/get")], environment: env)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try runSwurl([try HTTPBin.url("/get"), "--overwrite"], environment: env).status, 64)
    }

    /// A pin typed on the command line replaces the config's pins (they widened it: a pin that
    /// matches nothing passed on the config's right one), as a REPL or batch line's does.
    func testATypedPinReplacesTheConfigsPins() throws {
        let pki = try CertificateFactory.shared()
        let server = try TLSTestServer(chain: pki.path("leaf-chain.pem"), key: pki.path("leaf.key"))
        let env = try config("--pin-pubkey \(try pki.pin("leaf.pem"))\n")
        let wrong = "sha256//" + String(repeating: "A", count: 43) + "="
        let r = try runSwurl(["--cacert", pki.path("root.pem"), "--pin-pubkey", wrong, "https://localhost:\(server.port)/"], environment: env)
        XCTAssertEqual(r.status, 7, r.stderr)
        XCTAssertTrue(r.stderr.lowercased().contains("pin"), r.stderr)
        // The config's pin of the other kind too (the anchor's certificate passed the server).
        let cert = try runSwurl(["--cacert", pki.path("root.pem"), "--pin-pubkey", wrong, "https://localhost:\(server.port)/"],
                                environment: try config("--pin-cert \(pki.path("root.pem"))\n"))
        XCTAssertEqual(cert.status, 7, cert.stderr)
    }

    /// Defaults that waited for nothing: a config `--boundary` refused every `-f` request
    /// without a file field (urlencoded), and a bare `--cache` typed took the default directory
    /// over the config's `--cache=DIR`.
    func testBoundaryAndCacheDefaultsApplyWhereTheyBelong() throws {
        let dir = TestPaths.temporaryDirectory()
        let env = try config("--boundary XYZ\n--cache=\(dir)/mine\n")
        let form = try runSwurl(["-f", "POST", try HTTPBin.url("/post"), "a=1", "--no-cache"], environment: env)
        XCTAssertEqual(form.status, 0, form.stderr)
        XCTAssertEqual(try form.json()["form"] as? [String: String], ["a": "1"])
        let cached = try runSwurl(["--cache", "-v", try HTTPBin.url("/cache/60")], environment: env.merging(["XDG_CACHE_HOME": dir + "/xdg"]) { $1 })
        XCTAssertEqual(cached.status, 0, cached.stderr)
        XCTAssertTrue(cached.stderr.contains("cache: miss, stored"), cached.stderr)
        XCTAssertFalse(((try? FileManager.default.contentsOfDirectory(atPath: dir + "/mine")) ?? []).filter { !$0.hasPrefix(".") }.isEmpty, "stored in the config's directory")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/xdg/swurl/http"), "not in the default one")
    }

    /// The user's own config file that they cannot read is an error (66) naming it, as a named
    /// one is: its options (a proxy, pins) were dropped without a word. Another user's (after
    /// su) still reads as none.
    func testTheUsersOwnUnreadableConfigIsAnError() throws {
        guard geteuid() == 0 else { throw XCTSkip("needs root to run swurl as another user") }
        let (env, file) = try TestPaths.config("--timeout 5\n")
        let home = try XCTUnwrap(env["XDG_CONFIG_HOME"])
        for path in [home, home + "/swurl", file] { XCTAssertEqual(chown(path, 65534, 65534), 0, path) }
        XCTAssertEqual(chmod(file, 0), 0)
        func run() throws -> (status: Int32, stdout: Data, stderr: String) {
            try runProcess("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", TestPaths.binary, "--offline", ":9/x"],
                           environment: ["XDG_CONFIG_HOME": home, "HOME": home, "PATH": "/usr/bin:/bin"], check: false)
        }
        let own = try run()
        XCTAssertEqual(own.status, 66, own.stderr)
        XCTAssertTrue(own.stderr.contains("cannot read the config file \(file): Permission denied"), own.stderr)
        XCTAssertEqual(chown(file, 0, 0), 0)
        let theirs = try run()
        XCTAssertEqual(theirs.status, 0, theirs.stderr)
        // Regression: their own config directory at mode 000 hid the file, read as none.
        XCTAssertEqual(chown(file, 65534, 65534), 0)
        XCTAssertEqual(chmod(file, 0o600), 0)
        XCTAssertEqual(chmod(home + "/swurl", 0), 0)
        let hidden = try run()
        XCTAssertEqual(hidden.status, 66, hidden.stderr)
        XCTAssertTrue(hidden.stderr.contains("cannot read the config file \(file): Permission denied"), hidden.stderr)
        // Another user's directory (after su) is still no config of theirs.
        XCTAssertEqual(chown(home + "/swurl", 0, 0), 0)
        let othersDirectory = try run()
        XCTAssertEqual(othersDirectory.status, 0, othersDirectory.stderr)
    }

    /// A config file another user could have written is refused with 65, naming the file, why
    /// and the fix, before anything is sent: not the planted `--proxy`, not the request.
    func testAConfigFileOthersCouldChangeIsRefused() throws {
        let proxy = try CaptureServer()
        let env = try config("--proxy http://127.0.0.1:\(proxy.server.port)\n")
        let home = try XCTUnwrap(env["XDG_CONFIG_HOME"])
        let dir = home + "/swurl", file = dir + "/config"
        func refused(_ what: String, naming: String, fix: String) throws {
            let r = try runSwurl([try HTTPBin.url("/get"), "-a", "ann:secret"], environment: env)
            XCTAssertEqual(r.status, 65, "\(what): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(file) && r.stderr.contains(naming) && r.stderr.contains(fix), "\(what): \(r.stderr)")
            XCTAssertEqual(r.stdout, Data(), what)
        }
        for m in [0o664, 0o646, 0o666] as [mode_t] {
            XCTAssertEqual(chmod(file, m), 0)
            try refused("mode \(String(m, radix: 8))", naming: "writable by", fix: "chmod go-w \(file)")
        }
        XCTAssertEqual(chmod(file, 0o644), 0)
        XCTAssertEqual(chown(file, 12345, 12345), 0)
        // Root meets another user's file most often with their HOME (su without '-'): chown would
        // take it from them; the hint names the way out instead.
        try refused("another owner", naming: "uid 12345", fix: geteuid() == 0 ? "it is uid 12345's: run swurl as that user" : "chown")
        XCTAssertEqual(chown(file, geteuid(), getegid()), 0)
        XCTAssertEqual(chmod(dir, 0o777), 0)
        try refused("world-writable directory", naming: "its directory \(dir) is writable by", fix: "chmod go-w \(dir)")
        XCTAssertEqual(chmod(dir, 0o755), 0)
        XCTAssertEqual(chown(dir, 12345, 12345), 0)
        try refused("directory of another user", naming: "its directory \(dir) belongs to uid 12345",
                    fix: geteuid() == 0 ? "use su - or sudo -H" : "move the file")
        XCTAssertEqual(chown(dir, geteuid(), getegid()), 0)
        // A link another user owns, to the user's own file or to a directory on the way, chose
        // which file became the config (only the file itself was checked): refused.
        let other = TestPaths.temporaryDirectory()
        XCTAssertEqual(symlink(file, other + "/config-link"), 0)
        XCTAssertEqual(symlink(dir, other + "/dir-link"), 0)
        for link in [other + "/config-link", other + "/dir-link/config"] {
            let owner = link.hasSuffix("/config") ? other + "/dir-link" : link
            XCTAssertEqual(lchown(owner, 12345, 12345), 0)
            let r = try runSwurl([try HTTPBin.url("/get"), "-a", "ann:secret"], environment: env.merging(["SWURL_CONFIG": link]) { $1 })
            XCTAssertEqual(r.status, 65, "\(link): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("the symbolic link \(owner) belongs to uid 12345"), r.stderr)
        }
        XCTAssertEqual(proxy.capturedAll, Data(), "the planted proxy received nothing")
        // The same file, once only its owner can change it, is used.
        XCTAssertEqual(chmod(dir, 0o1777), 0)
        let r = try runSwurl([try HTTPBin.url("/get"), "--no-config"], environment: env)
        XCTAssertEqual(r.status, 0, r.stderr)
        let used = try runSwurl(["http://swurl.test/x"], environment: env)
        XCTAssertEqual(used.status, 0, used.stderr)
        XCTAssertTrue(String(decoding: proxy.captured, as: UTF8.self).hasPrefix("GET http://swurl.test/x "))
    }

}
