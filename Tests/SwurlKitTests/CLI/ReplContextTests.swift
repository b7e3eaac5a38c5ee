import XCTest
import SwurlTestSupport
@testable import SwurlCLI
@testable import SwurlCore

/// The REPL's pure parts: words, items versus paths, merging defaults, credentials, completion.
final class ReplContextTests: XCTestCase {
    func testShownWordsAreQuotedByBytes() {
        XCTAssertEqual(ReplContext.quote("plain"), "plain")
        XCTAssertEqual(ReplContext.quote(""), "''")
        XCTAssertEqual(ReplContext.quote("a b"), "'a b'")
        XCTAssertEqual(ReplContext.quote("it's"), "'it'\\''s'")
        // A quote with a combining mark is one Character, but the shell still sees the quote.
        XCTAssertEqual(ReplContext.quote("a'\u{301}b"), "'a'\\''\u{301}b'")
    }

    func testWordsSplitLikeAShell() throws {
        XCTAssertEqual(try ReplContext.words("  GET foo  'a b'=c \"x \\\" y\":1 "), ["GET", "foo", "a b=c", "x \" y:1"])
        // As in a shell: the backslash escapes '=' for the line, so the item parser sees a=b=c;
        // quoting or doubling it passes it on.
        XCTAssertEqual(try ReplContext.words("a\\=b=c"), ["a=b=c"])
        XCTAssertEqual(try ReplContext.words("'a\\=b=c' a\\\\=b"), ["a\\=b=c", "a\\=b"])
        XCTAssertEqual(try ReplContext.words(""), [])
        XCTAssertThrowsError(try ReplContext.words("x 'open"))
    }

    func testItemsVersusPaths() {
        for item in ["q==1", "X-Token:abc", "a=b", "n:=1", "f@file", "H;", "user[name]=Ann"] {
            XCTAssertTrue(ReplContext.isItem(item), item)
        }
        for path in ["foo", "/foo", "foo?x=1", "foo/", "a/b:c", "..", "http://h/x=1", ":8080/x", "./a=b"] {
            XCTAssertFalse(ReplContext.isItem(path), path)
        }
        // host:port[/path] is a URL (issue 27); a header whose name has no dot is still an item.
        // An internationalized name too (a header name is ASCII): it was read as a header and refused.
        for url in ["localhost:8080", "localhost:8080/x?q=1", "api.example.org:443", "10.0.0.1:80/", "[::1]:8080/x", "bücher.test:8080/ok"] {
            XCTAssertFalse(ReplContext.isItem(url), url)
            XCTAssertTrue(ReplContext.isAbsolute(url), url)
        }
        for item in ["X-Count:5", "Host:example.org:80", "localhost:abc", "a.b:123456", "localhost:"] {
            XCTAssertFalse(URLText.isHostPort(item), item)
        }
    }

    func testLineOptionsAndItemsOverrideDefaults() throws {
        let defaults = try ArgumentParser.parse(["--form", "-v", "--timeout", "5"])
        let line = try ArgumentParser.parse(["--json", "--timeout", "9"])
        let merged = ReplContext.merge(defaults, line)
        XCTAssertFalse(merged.has(.form))
        XCTAssertTrue(merged.has(.json))
        XCTAssertTrue(merged.has(.verbose))
        XCTAssertEqual(merged.values(.timeout), ["9"])
        XCTAssertEqual(ReplContext.merge(items: ["X-A:1", "q==1", "x-b:2"], ["X-B:3", "q==2"]), ["X-A:1", "X-B:3", "q==2"])
        // A line's pin of either kind replaces the defaults' pins of both (a server passes on any
        // pin: the defaults' --pin-cert widened a line's --pin-pubkey).
        let pinned = ReplContext.merge(try ArgumentParser.parse(["--pin-cert", "root.pem", "--pin-scope", "any"]),
                                       try ArgumentParser.parse(["--pin-pubkey", "k.pem"]))
        XCTAssertFalse(pinned.has(.pinCert))
        XCTAssertEqual(pinned.values(.pinPubkey), ["k.pem"])
        XCTAssertTrue(pinned.has(.pinScope))
    }

    func testCredentialLinesAreRecognized() {
        for line in ["GET x -a u:p", "x --auth=u:p", "x -va u:p", "set -a u", "x Authorization:'Bearer t'",
                     "x --key-password s", "https://u:p@h/x", "swurl x cookie:a=b", "x 'unclosed -a",
                     // Forms the history kept before: scheme-less URLs, a scheme-less proxy, clusters.
                     "//ann:pw@localhost:8080/x", "localhost:8080/x --proxy ann:pw@127.0.0.1:3128",
                     "x -qa ann:pw", "x -qva ann", "set --proxy http://ann:pw@p:1", "x Proxy-Authorization:Basic",
                     "x --unknown-option -qa ann:pw", "ann:pw@localhost:8080/x",
                     // Misspelt or cut long options, which fail to parse: the next word may be the password.
                     "get /get -p H --a ann:pw12", "get /get --au ann:pw13", "x --key-pass secret",
                     // Misspelt otherwise: what the error says was meant (they were kept).
                     "GET /get --AUTH ann:pwA", "GET /get --atuh ann:pwC", "GET /get --auht=ann:pwD", "GET /get --key-passwd pwG",
                     // Or named no guess, or another (`--auth-type`): password-like names (they were kept).
                     "get /h --password pw8", "get /c --passwd=bob:pw3", "get /b --basic-auth bob:pw2", "get /i --pasword pw9",
                     "get /t --api-token T1",
                     // A token given as a URL's user name alone (it was kept).
                     "GET https://TOKEN7@h/get", "cd http://tok@h:8080/", "get //SECRET2@127.0.0.1:9/", "get SECRET3@127.0.0.1:9/x",
                     // A blank before the colon: refused as an item, but the secret is on the line.
                     "set 'Authorization :Basic p4'",
                     // One slash, or three (libcurl takes them), and a line that does not parse.
                     "http:///alice:pw3@127.0.0.1:9/x -p h", "http:/u:pw1@127.0.0.1:9/get", "cd http:/u:pw4@h/",
                     "TOKEN7@localhost:9/get --tiemout 3", "GET TOKEN2@127.0.0.1:9/get --nope",
                     // curl's spellings, which do not parse here.
                     "GET x -u ann:S1", "GET x --oauth2-bearer S2", "GET x --header=Authorization:S3", "GET x --user=ann:S4",
                     "GET x -uann:S5", "GET x -U p:S6", "GET x --proxy-user p:S7", "GET x --cookie sid=S9",
                     "GET x -E c.pem:S10", "GET x --pass S11", "GET x -HAuthorization:S12",
                     "GET x -su ann:S13", "GET x --tlspassword S14", "GET x --proxy-header=Proxy-Authorization:S15",
                     // A password holding '/', '#' or '?' (not percent-encoded): messages mask it, and
                     // the history kept it.
                     "http://ann:Zm9v/YmFy@127.0.0.1:9/x", "--proxy ann:Zm9v/YmFy@127.0.0.1:3128 /x", "ann:Zm9v#1@api.example.test/v1",
                     "cd http://u:pa/ss@h/", "set --proxy http://u:pa?ss@127.0.0.1:1", "get //u:pa/ss@h/x",
                     // A scheme-less proxy whose user name is a token (sent as Basic).
                     "--proxy TOKEN@127.0.0.1:9 /a", "set --proxy TOK3@127.0.0.1:9", "set --proxy TOK4@squid:3128",
                     "x --proxy TOK5@proxy.corp.example"] {
            XCTAssertTrue(ReplContext.containsCredentials(line), line)
        }
        // An option value that is not UTF-8 makes the line a usage error, not one without credentials.
        XCTAssertTrue(ReplContext.containsCredentials("get TOK4@127.0.0.1:9/x --timeout " + ArgumentBytes.decode([0xFF])))
        for line in ["GET x", "x --form a=b", "set X-Token:abc", "cd /api", "x q==1", "x email=ann@example.com",
                     "x --proxy http://127.0.0.1:3128", "x -qv", "x --multipart doc@file.txt", "x http://h/?to=a@b",
                     "GET x --header=X-Trace:1 --nope", "x a=b/c@d"] {
            XCTAssertFalse(ReplContext.containsCredentials(line), line)
        }
    }

    func testMaskedURL() {
        XCTAssertEqual(Redactor.url("https://u:p@h/x"), "https://u:****@h/x")
        XCTAssertEqual(Redactor.url("https://h/x"), "https://h/x")
    }

    func testCompletion() {
        XCTAssertEqual(ReplCompletion.candidates(before: "GET x ", word: "--follo", seenPaths: []), ["--follow"])
        // Not what the line or `set` then refuses (the REPL's own options, `set --har`).
        XCTAssertEqual(ReplCompletion.candidates(before: "/a ", word: "--sto", seenPaths: []), [])
        XCTAssertFalse(ReplCompletion.candidates(before: "set ", word: "--ha", seenPaths: []).contains("--har"))
        XCTAssertTrue(ReplCompletion.candidates(before: "/a ", word: "--ha", seenPaths: []).contains("--har"))
        XCTAssertEqual(ReplCompletion.candidates(before: "x --pretty ", word: "co", seenPaths: []), ["colors"])
        XCTAssertEqual(ReplCompletion.candidates(before: "x ", word: "--pretty=f", seenPaths: []), ["--pretty=format"])
        XCTAssertEqual(ReplCompletion.candidates(before: "", word: "un", seenPaths: []), ["unset"])
        XCTAssertEqual(ReplCompletion.candidates(before: "", word: "PO", seenPaths: []), ["POST"])
        XCTAssertEqual(ReplCompletion.candidates(before: "GET ", word: "us", seenPaths: ["users/", "items"]), ["users/"])
        XCTAssertEqual(ReplCompletion.candidates(before: "GET x ", word: "content-t", seenPaths: []), ["Content-Type:"])
        // After an option that takes any value, nothing: `-o Accept`, `--session User-Agent:` were offered.
        for before in ["x -o ", "x --session ", "x --cacert ", "x --proxy "] {
            XCTAssertEqual(ReplCompletion.candidates(before: before, word: "ac", seenPaths: ["accounts/"]), [], before)
        }
        XCTAssertEqual(ReplCompletion.candidates(before: "x -q ", word: "ac", seenPaths: ["accounts/"]).prefix(2), ["accounts/", "Accept:"])
        // A remembered path with blanks or quotes goes back as one word; what is typed is read
        // as the line will read it (escaped or quoted).
        // readline hands over the text after the last blank (`start`), escaped or not: what
        // replaces it continues the word as typed.
        let paths = ["my files/", "it's", "plain/"]
        func complete(_ line: String, readlineStart: Int? = nil) -> [String] {
            let bytes = Array(line.utf8)
            let start = readlineStart ?? (bytes.lastIndex(of: 0x20).map { $0 + 1 } ?? 0)
            return ReplCompletion.replacements(line: bytes, start: start, end: bytes.count, seenPaths: paths)
        }
        XCTAssertEqual(complete("GET my"), ["my\\ files/"])
        XCTAssertEqual(complete("GET my\\ f"), ["files/"])
        XCTAssertEqual(complete("cd 'my f"), ["files/"])
        XCTAssertEqual(complete("cd \"my f"), ["files/"])
        XCTAssertEqual(complete("GET it"), ["it\\'s"])
        XCTAssertEqual(complete("GET 'it"), ["'it'\\''s'"])
        XCTAssertEqual(complete("GET \"it"), ["\"it's\""])
        XCTAssertEqual(complete("GET my\\ f", readlineStart: 4), ["my\\ files/"])
        XCTAssertEqual(try ReplContext.words("GET my\\ files/"), ["GET", "my files/"])
        XCTAssertEqual(try ReplContext.words("GET 'it'\\''s'"), ["GET", "it's"])
        XCTAssertEqual(ReplCompletion.lastWord(Array("a 'b c".utf8)).start, 2)
        XCTAssertEqual(ReplCompletion.lastWord(Array("a 'b c".utf8)).open, UInt8(ascii: "'"))
        // unset offers what is set, not every common header name; --no-OPTION names complete.
        XCTAssertEqual(ReplCompletion.candidates(before: "unset ", word: "x-", seenPaths: [], defaults: ["X-Token", "q", "--form"]), ["X-Token"])
        XCTAssertEqual(ReplCompletion.candidates(before: "unset ", word: "--f", seenPaths: [], defaults: ["X-Token", "--form"]), ["--form"])
        XCTAssertEqual(ReplCompletion.candidates(before: "unset ", word: "Acc", seenPaths: [], defaults: ["X-Token"]), [])
        XCTAssertEqual(ReplCompletion.candidates(before: "GET x ", word: "--no-fo", seenPaths: []), ["--no-follow", "--no-form"])
    }

    func testHistoryPath() throws {
        XCTAssertEqual(ReplHistory.path(["XDG_STATE_HOME": "/s", "HOME": "/h"]), "/s/swurl/history")
        XCTAssertEqual(ReplHistory.path(["XDG_STATE_HOME": "relative", "HOME": "/h"]), "/h/.local/state/swurl/history")
        // Without HOME, the password database's home (root's here, as the tests run).
        let home = try XCTUnwrap(passwordDatabaseHome())
        XCTAssertEqual(ReplHistory.path([:]), home + "/.local/state/swurl/history")
        XCTAssertEqual(ReplHistory.path(["HOME": ""]), home + "/.local/state/swurl/history")
    }

    /// HOME when set and not empty, else this user's home in /etc/passwd; an XDG variable only
    /// when it is absolute.
    func testHomeAndBaseDirectories() throws {
        let home = try XCTUnwrap(passwordDatabaseHome())
        XCTAssertEqual(Environment.homeDirectory(["HOME": "/h"]), "/h")
        XCTAssertEqual(Environment.homeDirectory([:]), home)
        XCTAssertEqual(Environment.homeDirectory(["HOME": ""]), home)
        XCTAssertEqual(Environment.baseDirectory(["XDG_CACHE_HOME": "/x", "HOME": "/h"], "XDG_CACHE_HOME", fallback: ".cache"), "/x")
        XCTAssertEqual(Environment.baseDirectory(["XDG_CACHE_HOME": "x", "HOME": "/h"], "XDG_CACHE_HOME", fallback: ".cache"), "/h/.cache")
        XCTAssertEqual(Environment.baseDirectory([:], "XDG_CONFIG_HOME", fallback: ".config"), home + "/.config")
    }

    /// This user's home field in /etc/passwd, read as text (not by getpwuid, which the code uses).
    private func passwordDatabaseHome() throws -> String? {
        let uid = String(getuid())
        let text = try String(contentsOfFile: "/etc/passwd", encoding: .utf8)
        for line in text.split(separator: "\n") {
            let fields: [Substring] = line.split(separator: ":", omittingEmptySubsequences: false)
            if fields.count == 7 && String(fields[2]) == uid { return String(fields[5]) }
        }
        return nil
    }
}
