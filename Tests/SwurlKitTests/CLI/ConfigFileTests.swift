import XCTest
@testable import SwurlCLI
import SwurlCore

/// The config file's words (shell-like quoting, comments) and how its options meet the
/// command line's.
final class ConfigFileTests: XCTestCase {
    private func lines(_ text: String) throws -> [[String]] {
        try ConfigFile.lines(Array(text.utf8), file: "cfg").map { $0.1 }
    }

    func testWordsQuotesAndComments() throws {
        XCTAssertEqual(try lines("--a 'b c'  \"d \\\" \\\\ \\n\" e\\ f # x 'y\n# whole line\n\n  --g=h#i\r\n"),
                       [["--a", "b c", "d \" \\ \\n", "e f"], ["--g=h#i"]])
        XCTAssertEqual(try lines("--x ''\n"), [["--x", ""]])
        XCTAssertEqual(try lines("--x \\\n  y\n"), [["--x", "y"]])
    }

    func testLineNumbersAndUnterminatedQuotes() throws {
        let numbered = try ConfigFile.lines(Array("# c\n\n--a\n--b 'x\ny'\n--c\n".utf8), file: "cfg")
        XCTAssertEqual(numbered.map { $0.0 }, [3, 4, 6])
        XCTAssertThrowsError(try lines("--a\n--b 'oops\n")) { error in
            XCTAssertEqual((error as? SwurlError)?.message, "cfg:2: unterminated ' quote")
        }
        XCTAssertThrowsError(try lines("--a \"x\n"))
    }

    func testUnknownOptionsItemsAndRefusedOptionsNameFileAndLine() {
        func message(_ text: String) -> String? {
            do { _ = try ConfigFile.parse(Array(text.utf8), file: "/c/config"); return nil } catch { return error.message }
        }
        XCTAssertEqual(message("--form\n--fomr\n"), "/c/config:2: unknown option '--fomr'")
        XCTAssertEqual(message("--json a=1\n")?.hasPrefix("/c/config:1: 'a=1' is not an option"), true)
        XCTAssertEqual(message("\n\nexample.org\n")?.hasPrefix("/c/config:3:"), true)
        XCTAssertEqual(message("--help\n"), "/c/config:1: --help is not allowed in the config file")
        XCTAssertEqual(message("--timeout\n"), "/c/config:1: option --timeout needs a value (SECONDS)")
        // curl's form, an option's name without dashes: named so, a secret in it masked (it was
        // shown as it stood).
        XCTAssertEqual(message("auth=u:secretpw\n"), "/c/config:1: 'auth=****' is not an option: a long option takes two dashes")
        XCTAssertEqual(message("proxy=http://u:pw@h:1\n"), "/c/config:1: 'proxy=http://u:****@h:1' is not an option: a long option takes two dashes")
        XCTAssertEqual(message("timeout 5\n"), "/c/config:1: 'timeout' is not an option: a long option takes two dashes")
        // curl's names for credentials, and swurl's in another case: masked too (they were shown).
        for (line, shown) in [("user=bob:secret3", "user=****"), ("proxy-user=bob:secret8", "proxy-user=****"),
                              ("oauth2-bearer=secret9", "oauth2-bearer=****"), ("auth_token=S3", "auth_token=****"),
                              ("API_KEY=S3", "API_KEY=****"), ("api.token=S3", "api.token=****")] {
            XCTAssertEqual(message(line + "\n"), "/c/config:1: '\(shown)' is not an option of swurl's", line)
        }
        XCTAssertEqual(message("AUTH=bob:secret12\n"), "/c/config:1: 'AUTH=****' is not an option: a long option takes two dashes")
        XCTAssertEqual(message("foo=bar\n"), "/c/config:1: 'foo=bar' is not an option; request items and URLs are not allowed in the config file")
        // An item stays an item (`Cookie:a=1` was called an option of curl's), and an empty one
        // shows no mask for a value it does not have.
        XCTAssertEqual(message("'Cookie:a=1'\n"), "/c/config:1: 'Cookie:****' is not an option; request items and URLs are not allowed in the config file")
        XCTAssertEqual(message("'Cookie;'\n"), "/c/config:1: 'Cookie;' is not an option; request items and URLs are not allowed in the config file")
    }

    func testCommandLineOverridesTheConfig() throws {
        let dir = NSTemporaryDirectory() + "swurl-config-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/config"
        try Data("--form --timeout 30 --verify-host -4\n--resolve a:80:1.2.3.4\n".utf8).write(to: URL(fileURLWithPath: path))
        var env = Environment.process()
        env.variables = ["SWURL_CONFIG": path]
        let cli = try ArgumentParser.parse(["--json", "--timeout=5", "--no-verify-host", "--resolve", "b:80:1.2.3.4", "x.org"])
        let merged = try ConfigFile.apply(to: cli, environment: env)
        XCTAssertFalse(merged.has(.form))
        XCTAssertTrue(merged.has(.json))
        XCTAssertEqual(merged.value(.timeout), "5")
        XCTAssertFalse(merged.has(.verifyHost))
        XCTAssertTrue(merged.has(.ipv4))
        XCTAssertEqual(merged.values(.resolve), ["a:80:1.2.3.4", "b:80:1.2.3.4"])
        XCTAssertEqual(merged.positionals, ["x.org"])
        // --no-config and SWURL_CONFIG= leave the command line alone.
        let off = try ConfigFile.apply(to: try ArgumentParser.parse(["--no-config", "x.org"]), environment: env)
        XCTAssertFalse(off.has(.form))
        env.variables = ["SWURL_CONFIG": ""]
        XCTAssertFalse(try ConfigFile.apply(to: try ArgumentParser.parse(["x.org"]), environment: env).has(.form))
        // A named file that is missing is an error; the default one is not.
        env.variables = ["SWURL_CONFIG": dir + "/missing"]
        XCTAssertThrowsError(try ConfigFile.apply(to: cli, environment: env))
        env.variables = ["XDG_CONFIG_HOME": dir + "/none"]
        XCTAssertEqual(try ConfigFile.apply(to: cli, environment: env).positionals, ["x.org"])
    }

    /// A typed -a is not of the config -a's type: `-a tok -A bearer` in the config sent a typed
    /// `-a bob:pw` as a bearer token (as a REPL or batch line's is not). A config -A without a
    /// config -a is the type of typed credentials, and stays; a typed -A wins.
    func testATypedAuthIsNotOfTheConfigAuthsType() throws {
        let dir = NSTemporaryDirectory() + "swurl-config-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/config"
        var env = Environment.process()
        env.variables = ["SWURL_CONFIG": path]
        func merged(_ config: String, _ typed: [String]) throws -> ParsedArguments {
            try Data(config.utf8).write(to: URL(fileURLWithPath: path))
            chmod(path, 0o600)
            return try ConfigFile.apply(to: try ArgumentParser.parse(typed + ["x.org"]), environment: env)
        }
        let own = try merged("-a tok -A bearer\n", ["-a", "bob:pw"])
        XCTAssertEqual(own.value(.auth), "bob:pw")
        XCTAssertFalse(own.has(.authType))
        XCTAssertEqual(try merged("-a tok -A bearer\n", []).value(.authType), "bearer")
        XCTAssertEqual(try merged("-A digest\n", ["-a", "bob:pw"]).value(.authType), "digest")
        XCTAssertEqual(try merged("-a tok -A bearer\n", ["-a", "t2", "-A", "bearer"]).value(.authType), "bearer")
        // Likewise a typed key does not take the config key's password; a typed --cert for the
        // config's --key keeps it (the key is the same), and a typed --cert where the config's
        // key was in its --cert does not.
        XCTAssertFalse(try merged("--key k.pem --key-password pw\n", ["--key", "other.pem"]).has(.keyPassword))
        XCTAssertEqual(try merged("--key k.pem --key-password pw\n", ["--cert", "c.pem"]).value(.keyPassword), "pw")
        XCTAssertEqual(try merged("--cert c.pem --key k.pem --key-password pw\n", ["--cert", "c2.pem"]).value(.keyPassword), "pw")
        XCTAssertFalse(try merged("--cert both.pem --key-password pw\n", ["--cert", "other.pem"]).has(.keyPassword))
        // -A digest stays with a typed -a: dropped, the password went as Basic, in the clear.
        XCTAssertEqual(try merged("-A digest -a bob:pw\n", ["-a", "alice:pw2"]).value(.authType), "digest")
    }
}
