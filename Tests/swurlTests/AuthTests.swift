import XCTest
import Foundation
import SwurlTestSupport

/// `--auth`, `--auth-type` and `.netrc` against httpbin.
final class AuthTests: XCTestCase {
    func testBasicAuth() throws {
        let r = try runSwurl(["-a", "ann:secret", try HTTPBin.url("/basic-auth/ann/secret")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try r.json()["authenticated"] as? Bool, true)
        XCTAssertEqual(try runSwurl(["--check-status", "-a", "ann:wrong", try HTTPBin.url("/basic-auth/ann/secret")]).status, 4)
    }

    func testDigestAuth() throws {
        let r = try runSwurl(["-A", "digest", "-a", "ann:secret", try HTTPBin.url("/digest-auth/auth/ann/secret")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try r.json()["user"] as? String, "ann")
    }

    /// Digest takes the user and password from the URL or netrc as curl's --digest does (it
    /// asked for --auth, exit 64); with none the request goes without, as curl's does.
    func testDigestTakesCredentialsFromTheURLOrNetrc() throws {
        let url = try HTTPBin.url("/digest-auth/auth/ann/secret")
        let inURL = try runSwurl(["-A", "digest", url.replacingOccurrences(of: "http://", with: "http://ann:secret@")])
        XCTAssertEqual(inURL.status, 0, inURL.stderr)
        XCTAssertEqual(try inURL.json()["user"] as? String, "ann")
        let path = try netrc("machine 127.0.0.1 login ann password secret\n")
        let fromNetrc = try runSwurl(["-A", "digest", url], environment: ["NETRC": path])
        XCTAssertEqual(fromNetrc.status, 0, fromNetrc.stderr)
        XCTAssertEqual(try fromNetrc.json()["user"] as? String, "ann")
        // The printed curl command asks for Digest too, and curl reads the same netrc file.
        let printed = try runSwurl(["--curl", "-A", "digest", url], environment: ["NETRC": path])
        XCTAssertTrue(printed.text.contains("--digest"), printed.text)
        let ran = try runProcess("/bin/sh", ["-c", printed.text], check: false)
        XCTAssertEqual(ran.status, 0, ran.stderr)
        XCTAssertTrue(String(decoding: ran.stdout, as: UTF8.self).contains("\"authenticated\": true"), printed.text)
        // With none the request goes without, as curl's does.
        XCTAssertEqual(try runSwurl(["-A", "digest", "--ignore-netrc", "--check-status", url]).status, 4)
        // A bearer token has no other source.
        XCTAssertEqual(try runSwurl(["-A", "bearer", url]).status, 64)
    }

    /// `-A digest` as a default (the config file's, a batch's, the REPL's) without `-a` was left
    /// out as a qualifier waiting for --auth: the URL's or netrc's password then went as Basic.
    func testADigestDefaultIsKeptForCredentialsFromTheURLOrNetrc() throws {
        let url = try HTTPBin.url("/digest-auth/auth/ann/secret")
        let withUser = url.replacingOccurrences(of: "http://", with: "http://ann:secret@")
        let dir = TestPaths.temporaryDirectory()
        let config = dir + "/config"
        FileManager.default.createFile(atPath: config, contents: Data("-A digest\n".utf8), attributes: [.posixPermissions: 0o600])
        let r = try runSwurl(["-v", "--check-status", withUser], environment: ["SWURL_CONFIG": config])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertFalse(r.text.contains("Authorization: Basic"), r.text)
        let path = try netrc("machine 127.0.0.1 login ann password secret\n")
        try (url + "\n").write(toFile: dir + "/lines", atomically: true, encoding: .utf8)
        let batch = try runSwurl(["batch", dir + "/lines", "-A", "digest", "--check-status"], environment: ["NETRC": path])
        XCTAssertEqual(batch.status, 0, batch.text + batch.stderr)
        let repl = try runSwurl(["repl", "-A", "digest"], stdin: Data((withUser + " --check-status\n").utf8))
        XCTAssertEqual(repl.status, 0, repl.text + repl.stderr)
        XCTAssertTrue(repl.text.contains("\"authenticated\": true"), repl.text)
    }

    /// `-v` with Digest shows both requests and the challenge between them, as `curl -v` does.
    func testVerboseDigestShowsBothRequests() throws {
        let r = try runSwurl(["-v", "-A", "digest", "-a", "ann:secret", try HTTPBin.url("/digest-auth/auth/ann/secret")])
        XCTAssertEqual(r.status, 0, r.stderr)
        let text = r.text
        XCTAssertEqual(text.components(separatedBy: "GET /digest-auth/auth/ann/secret HTTP/1.1").count - 1, 2, text)
        XCTAssertTrue(text.contains("401 UNAUTHORIZED"), text)
        XCTAssertTrue(text.contains("Authorization: Digest username=\"ann\""), text)
        XCTAssertTrue(text.contains("\"authenticated\": true") || text.contains("\"authenticated\":true"), text)
    }

    func testBearerAuth() throws {
        let r = try runSwurl(["-A", "bearer", "-a", "tok-123", try HTTPBin.url("/bearer")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try r.json()["token"] as? String, "tok-123")
    }

    func testMissingPasswordWithoutATerminalIsAUsageError() throws {
        let r = try runSwurl(["-a", "ann", try HTTPBin.url("/basic-auth/ann/secret")])
        XCTAssertEqual(r.status, 64)
        XCTAssertTrue(r.stderr.contains("password"), r.stderr)
    }

    private func netrc(_ text: String) throws -> String {
        let dir = TestPaths.temporaryDirectory()
        let path = dir + "/netrc"
        FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
        return path
    }

    /// A netrc password in bytes that are not UTF-8 (a Latin-1 file) is refused as such an
    /// --auth is: it went out with U+FFFD in place of the byte.
    func testANetrcPasswordThatIsNotUTF8IsRefused() throws {
        let path = TestPaths.temporaryDirectory() + "/netrc"
        FileManager.default.createFile(atPath: path, contents: Data("machine 127.0.0.1 login u password p".utf8) + Data([0xE9, 0x0A]),
                                       attributes: [.posixPermissions: 0o600])
        let r = try runSwurl([try HTTPBin.url("/headers")], environment: ["NETRC": path])
        XCTAssertEqual(r.status, 64, r.stderr)
        XCTAssertTrue(r.stderr.contains("the netrc entry for 127.0.0.1 (the password) is not valid UTF-8 text"), r.stderr)
    }

    func testNetrcIsUsedByDefaultAndCanBeIgnored() throws {
        let path = try netrc("machine 127.0.0.1\n  login nu\n  password np\n")
        let r = try runSwurl([try HTTPBin.url("/basic-auth/nu/np")], environment: ["NETRC": path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try r.json()["user"] as? String, "nu")
        let ignored = try runSwurl(["--check-status", "--ignore-netrc", try HTTPBin.url("/basic-auth/nu/np")], environment: ["NETRC": path])
        XCTAssertEqual(ignored.status, 4)
        // --curl names $NETRC's file: curl 7.88 would read ~/.netrc and send other credentials.
        let curl = try runSwurl(["--curl", try HTTPBin.url("/basic-auth/nu/np")], environment: ["NETRC": path])
        XCTAssertTrue(curl.text.contains("--netrc-optional \\\n  --netrc-file \(path)"), curl.text)
        // One that others could have changed is not used, and a warning says so.
        XCTAssertEqual(chmod(path, 0o666), 0)
        let planted = try runSwurl(["--check-status", try HTTPBin.url("/basic-auth/nu/np")], environment: ["NETRC": path])
        XCTAssertEqual(planted.status, 4, planted.stderr)
        XCTAssertTrue(planted.stderr.contains("is not used: it is writable by its group and others"), planted.stderr)
        // Once a run: batch lines with options of their own read it again each (one warning a line).
        let lines = TestPaths.temporaryDirectory() + "/lines"
        let url = try HTTPBin.url("/get")
        try Data("\(url) --timeout 5\n\(url) --timeout 5\n\(url) -qq\n".utf8).write(to: URL(fileURLWithPath: lines))
        let batch = try runSwurl(["batch", lines], environment: ["NETRC": path])
        XCTAssertEqual(batch.status, 0, batch.stderr)
        XCTAssertEqual(batch.stderr.components(separatedBy: "is not used:").count - 1, 1, batch.stderr)
    }

    func testNetrcIsLookedUpPerHopAndItsDefaultOnlyForTheFirstHost() throws {
        let port = try HTTPBin.shared().port
        let path = try netrc("machine 127.0.0.1 login first password one\ndefault login any password all\n")
        let url = try HTTPBin.url("/redirect-to?url=" + "http://localhost:\(port)/headers".urlQueryEscaped)
        let r = try runSwurl(["-F", url], environment: ["NETRC": path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertNil((try r.json()["headers"] as? [String: String])?["Authorization"], "neither 127.0.0.1's nor the default entry")

        let perHost = try netrc("machine 127.0.0.1 login first password one\nmachine localhost login second password two\n")
        let r2 = try runSwurl(["-F", url], environment: ["NETRC": perHost])
        XCTAssertEqual((try r2.json()["headers"] as? [String: String])?["Authorization"], "Basic c2Vjb25kOnR3bw==")
        // With --auth (a password or a token) netrc is not read at all, as the help says: the
        // first server could otherwise redirect to another netrc host and have its password sent.
        // An Authorization item is credentials the same way (its hop to localhost took
        // localhost's netrc password).
        for (before, after) in [(["-a", "au:ap"], []), (["-A", "bearer", "-a", "tok"], []), ([], ["Authorization:Bearer item"])] {
            let withAuth = try runSwurl(["-F"] + before + [url] + after, environment: ["NETRC": perHost])
            XCTAssertEqual(withAuth.status, 0, withAuth.stderr)
            XCTAssertNil((try withAuth.json()["headers"] as? [String: String])?["Authorization"], "\(before) \(after)")
        }
    }

    /// `--curl` leaves netrc out where swurl takes nothing from it: with a password in the URL
    /// or an Authorization item, curl's --netrc-optional sent the netrc password of the host a
    /// redirect reached. The printed command, run, sends what swurl sends.
    func testTheCurlCommandTakesNetrcOnlyWhereSwurlDoes() throws {
        let port = try HTTPBin.shared().port
        let path = try netrc("machine 127.0.0.1 login first password one\nmachine localhost login second password two\n")
        let target = "/redirect-to?url=" + "http://localhost:\(port)/headers".urlQueryEscaped
        for (url, items) in [("http://q:w@127.0.0.1:\(port)" + target, []), ("http://127.0.0.1:\(port)" + target, ["Authorization:Bearer item"])] {
            let sent = try runSwurl(["-F", url] + items, environment: ["NETRC": path])
            XCTAssertEqual(sent.status, 0, sent.stderr)
            XCTAssertNil((try sent.json()["headers"] as? [String: String])?["Authorization"], url)
            let printed = try runSwurl(["--curl", "-F", url] + items, environment: ["NETRC": path])
            XCTAssertEqual(printed.status, 0, printed.stderr)
            XCTAssertFalse(printed.text.contains("--netrc"), printed.text)
            let script = TestPaths.temporaryDirectory() + "/command.sh"
            try printed.stdout.write(to: URL(fileURLWithPath: script))
            let ran = try runProcess("/bin/sh", [script], check: false)
            XCTAssertEqual(ran.status, 0, ran.stderr)
            let byCurl = try JSONSerialization.jsonObject(with: ran.stdout) as? [String: Any]
            XCTAssertNil((byCurl?["headers"] as? [String: String])?["Authorization"], printed.text)
        }
        // A user without a password takes that host's netrc password: kept, with a warning
        // about the hosts a redirect reaches.
        let user = try runSwurl(["--curl", "-F", "http://first@127.0.0.1:\(port)" + target], environment: ["NETRC": path])
        XCTAssertTrue(user.text.contains("--netrc-optional"), user.text)
        XCTAssertTrue(user.stderr.contains("after a redirect to another host curl sends that host's netrc password, swurl none"), user.stderr)
        // A user netrc has no entry of for the host: swurl sends it with an empty password;
        // curl 7.88 with --netrc-optional sent another login's (the printed command, run).
        for file in ["machine 127.0.0.1 login w password wp\n", "default login d password dp\n"] {
            let other = try netrc(file)
            let url = "http://x@127.0.0.1:\(port)/headers"
            let printed = try runSwurl(["--curl", url], environment: ["NETRC": other])
            XCTAssertFalse(printed.text.contains("--netrc"), printed.text)
            let script = TestPaths.temporaryDirectory() + "/command.sh"
            try printed.stdout.write(to: URL(fileURLWithPath: script))
            let ran = try runProcess("/bin/sh", [script], check: false)
            let byCurl = try JSONSerialization.jsonObject(with: ran.stdout) as? [String: Any]
            XCTAssertEqual((byCurl?["headers"] as? [String: String])?["Authorization"], "Basic " + Data("x:".utf8).base64EncodedString(), printed.text)
        }
        // The `default` entry with -F: curl 7.88 sends it to a redirect's host (CVE-2025-0167),
        // swurl to the first host only: said.
        let fallback = try netrc("default login d password dp\n")
        let followed = try runSwurl(["--curl", "-F", "http://127.0.0.1:\(port)" + target], environment: ["NETRC": fallback])
        XCTAssertTrue(followed.stderr.contains("curl 7.88 sends the default login and password there, swurl none"), followed.stderr)
    }

    /// `http://user@host/` names the login and leaves the password to netrc, as in curl: the
    /// entry for that host with that login answers, not the host's first entry.
    func testAURLUserWithoutAPasswordTakesItsNetrcPassword() throws {
        let path = try netrc("machine 127.0.0.1 login other password nope\nmachine 127.0.0.1 login nu password np\n")
        let port = try HTTPBin.shared().port
        let r = try runSwurl(["--check-status", "http://nu@127.0.0.1:\(port)/basic-auth/nu/np"], environment: ["NETRC": path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try r.json()["user"] as? String, "nu")
        // A login netrc does not know goes with an empty password; a password in the URL wins.
        let unknown = try runSwurl(["--check-status", "http://nobody@127.0.0.1:\(port)/basic-auth/nu/np"], environment: ["NETRC": path])
        XCTAssertEqual(unknown.status, 4, unknown.stderr)
        let given = try runSwurl(["--check-status", "http://nu:wrong@127.0.0.1:\(port)/basic-auth/nu/np"], environment: ["NETRC": path])
        XCTAssertEqual(given.status, 4, given.stderr)
        // --ignore-netrc leaves it empty.
        let ignored = try runSwurl(["--check-status", "--ignore-netrc", "http://nu@127.0.0.1:\(port)/basic-auth/nu/np"], environment: ["NETRC": path])
        XCTAssertEqual(ignored.status, 4, ignored.stderr)
    }
}
