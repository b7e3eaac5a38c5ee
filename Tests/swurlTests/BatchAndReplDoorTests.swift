import XCTest
import Foundation
import SwurlTestSupport

/// Issue 27 §3: a batch line and a REPL line are held to the one-shot request's rules — output
/// failures, what a failed line reports, `host:port` URLs, conflicting defaults, line numbers.
final class BatchAndReplDoorTests: XCTestCase {
    private func input(_ lines: [String]) throws -> String {
        let path = TestPaths.temporaryDirectory() + "/batch.txt"
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private func shell(_ script: String) throws -> (status: Int32, stdout: String, stderr: String) {
        var env = ProcessInfo.processInfo.environment
        for key in ["http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy"] { env.removeValue(forKey: key) }
        env["SWURL"] = TestPaths.binary
        let r = try runProcess("/bin/bash", ["-c", script], environment: env, check: false)
        return (r.status, String(decoding: r.stdout, as: UTF8.self), r.stderr)
    }

    private func repl(_ lines: [String], _ args: [String]) throws -> SwurlResult {
        try runSwurl(["repl"] + args, stdin: Data((lines.joined(separator: "\n") + "\n").utf8))
    }

    /// Results that cannot be written fail the batch with exit 1 and the reason, as a one-shot
    /// request's output does; a `# note` at the end of a line is a comment, as in a shell.
    func testBatchOutputToAFullOrClosedStdoutFails() throws {
        let capture = try CaptureServer()
        let path = try input(["\(capture.base)/a # a note", "\(capture.base)/b"])
        let full = try shell("\"$SWURL\" batch '\(path)' > /dev/full")
        XCTAssertEqual(full.status, 1, full.stderr)
        XCTAssertTrue(full.stderr.contains("writing to stdout failed"), full.stderr)
        // A closed stdout is known before any line is sent: refused then (every line went, and
        // its result was lost).
        try capture.sync()
        let before = capture.capturedAll.count
        let closed = try shell("\"$SWURL\" batch '\(path)' >&-")
        XCTAssertEqual(closed.status, 1, closed.stderr)
        XCTAssertTrue(closed.stderr.contains("stdout is closed (>&-): the batch's results would be lost"), closed.stderr)
        try capture.sync()
        XCTAssertEqual(capture.capturedAll.count, before, "a line was sent")
        let fine = try runSwurl(["batch", path, "--order", "input"])
        XCTAssertEqual(fine.status, 0, fine.text + fine.stderr)
        XCTAssertTrue(fine.text.hasPrefix("1 200 "), fine.text)
    }

    /// A request file saved as UTF-16 failed every line with "a NUL byte cannot be part of an
    /// argument": it is named as UTF-16, with the way to UTF-8.
    func testAUTF16RequestFileIsNamedAsSuch() throws {
        let path = TestPaths.temporaryDirectory() + "/u16.txt"
        var bytes: [UInt8] = [0xFF, 0xFE]
        for u in "http://127.0.0.1:9/x\r\n".utf16 { bytes += [UInt8(u & 0xFF), UInt8(u >> 8)] }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let r = try runSwurl(["batch", path])
        XCTAssertEqual(r.status, 64, r.text + r.stderr)
        XCTAssertTrue(r.text.contains("the file looks like UTF-16 (Notepad's \"Unicode\"); save it as UTF-8"), r.text)
    }

    /// Lines ending in CR alone read as one line, the CRs as blanks: the second line's header
    /// went out with the first request, or its URL was quoted as a misplaced one. Named as such;
    /// CRLF lines still work.
    func testLinesEndingInCarriageReturnsAloneAreNamedAsSuch() throws {
        let capture = try CaptureServer()
        let dir = TestPaths.temporaryDirectory()
        try Data("\(capture.base)/a\rX-Joined:1\r".utf8).write(to: URL(fileURLWithPath: dir + "/cr.txt"))
        let r = try runSwurl(["batch", dir + "/cr.txt"])
        XCTAssertEqual(r.status, 64, r.text + r.stderr)
        XCTAssertTrue(r.text.contains("the line holds a carriage return before its end: the file's lines look like they end in CR alone; end them in LF (tr '\\r' '\\n')"), r.text)
        // Also when the file begins with a comment (the whole file was one, and nothing ran).
        try Data("# requests\r\(capture.base)/a\r".utf8).write(to: URL(fileURLWithPath: dir + "/cr2.txt"))
        let commented = try runSwurl(["batch", dir + "/cr2.txt"])
        XCTAssertEqual(commented.status, 64, commented.text + commented.stderr)
        XCTAssertTrue(commented.text.contains("end in CR alone"), commented.text)
        try capture.sync()
        XCTAssertEqual(capture.capturedAll.count, 0, "nothing was sent")
        try Data("\(capture.base)/a\r\n\(capture.base)/b X-Own:1\r\n".utf8).write(to: URL(fileURLWithPath: dir + "/crlf.txt"))
        let crlf = try runSwurl(["batch", dir + "/crlf.txt"])
        XCTAssertEqual(crlf.status, 0, crlf.text + crlf.stderr)
    }

    /// A batch takes no request items of its own: one given to it is named as such.
    func testBatchNamesAnItemGivenToItAndAnExtraFile() throws {
        let path = try input(["http://127.0.0.1:1/x"])
        let item = try runSwurl(["batch", path, "X-Token:abc"])
        XCTAssertEqual(item.status, 64, item.stderr)
        XCTAssertTrue(item.stderr.contains("'X-Token:abc' is a request item, and a batch takes none of its own"), item.stderr)
        let url = try runSwurl(["batch", path, "http://127.0.0.1:1/y"])
        XCTAssertEqual(url.status, 64, url.stderr)
        XCTAssertFalse(url.stderr.contains("request item"), url.stderr)
        let two = try runSwurl(["batch", path, path])
        XCTAssertEqual(two.status, 64, two.stderr)
        XCTAssertTrue(two.stderr.contains("put the requests in the file, one per line"), two.stderr)
    }

    /// A REPL script stops when its output cannot be written (a full disk), as a batch starts no
    /// new lines and as it stops for a reader gone: its later requests would change things unseen.
    func testReplScriptStopsWhenStdoutCannotBeWritten() throws {
        let server = try ScriptedServer()
        let full = try shell("printf '%s\\n' '\(server.url("/echo?n=1"))' 'POST \(server.url("/echo?n=2")) a=1' | \"$SWURL\" repl > /dev/full")
        XCTAssertEqual(full.status, 1, full.stderr)
        XCTAssertTrue(full.stderr.contains("line 1: writing to stdout failed"), full.stderr)
        XCTAssertEqual(server.requests().count, 1, "\(server.requests())")
    }

    /// A line failing the network wait or --max-filesize is reported with its method and URL
    /// (and, once the response began, its status).
    func testFailedLinesKeepTheirMethodURLAndStatus() throws {
        let nginx = try NginxServer()
        let dead = "http://127.0.0.1:1/x"
        let path = try input(["DELETE \(dead) --wait-for-network=0.3", nginx.url("/small.txt") + " --max-filesize 5"])
        let r = try runSwurl(["batch", path, "--jsonl", "--order", "input"])
        XCTAssertEqual(r.status, 2, r.text + r.stderr)
        let objects = try r.text.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:] }
        XCTAssertEqual(objects.count, 2, r.text)
        XCTAssertEqual(objects.first?["method"] as? String, "DELETE", r.text)
        XCTAssertEqual(objects.first?["url"] as? String, dead, r.text)
        XCTAssertEqual(objects.last?["method"] as? String, "GET", r.text)
        XCTAssertEqual(objects.last?["status"] as? Int, 200, r.text)
        XCTAssertEqual(objects.last?["exit"] as? Int, 8, r.text)
        let text = try runSwurl(["batch", path, "--order", "input"])
        XCTAssertTrue(text.text.hasPrefix("1 error 2 DELETE \(dead): "), text.text)
    }

    /// `host:port[/path]` is a URL in the REPL too, as a base and on a line, never a header item.
    func testReplReadsHostPortAsAURL() throws {
        let capture = try CaptureServer()
        let hostPort = "localhost:\(capture.server.port)"
        let r = try repl(["x", "\(hostPort)/y", "cd \(hostPort)/dir/", "z"], [hostPort])
        XCTAssertEqual(r.status, 0, r.stderr)
        let all = String(decoding: capture.capturedAll, as: UTF8.self)
        for path in ["/x", "/y", "/dir/z"] { XCTAssertTrue(all.contains("GET \(path) HTTP/1.1\r\n"), all) }
        XCTAssertFalse(all.lowercased().contains("\r\nlocalhost:"), "sent as a header: \(all)")
    }

    /// Defaults that exclude each other are refused when set; redirection and pipes are named as
    /// not REPL syntax; every script-mode error names its line.
    func testReplRefusesConflictingDefaultsAndShellSyntaxNamingTheLine() throws {
        let capture = try CaptureServer()
        let dir = TestPaths.temporaryDirectory()
        let r = try runSwurl(["repl", capture.base],
                             stdin: Data("set --json --form\n# comment\nget > out.txt\nget | head\nPOST p a=1\n".utf8),
                             directory: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("error: line 1: set: --json and --form cannot both be defaults"), r.stderr)
        XCTAssertTrue(r.stderr.contains("error: line 3: '>': redirection and pipes are not REPL syntax"), r.stderr)
        XCTAssertTrue(r.stderr.contains("error: line 4: '|': redirection and pipes are not REPL syntax"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/out.txt"))
        // The refused set left no default behind: the body is the one-shot default, JSON.
        XCTAssertTrue(String(decoding: capture.captured, as: UTF8.self).hasSuffix("\r\n\r\n{\"a\":\"1\"}"),
                      String(decoding: capture.captured, as: UTF8.self))
        let failing = try repl(["nowhere:80:x:y --timeout abc"], [capture.base])
        XCTAssertTrue(failing.stderr.contains("error: line 1: "), failing.stderr)
    }

    /// Only a bare word is an operator, as in a shell: a quoted `'<note/>'` is data (an XML body),
    /// `2'>'x` a word, and a quoted `'#x'` first word no comment. `>'out'` is still refused.
    func testQuotedWordsAreNeverShellSyntaxInTheRepl() throws {
        let capture = try CaptureServer()
        let dir = TestPaths.temporaryDirectory()
        let r = try runSwurl(["repl", capture.base],
                             stdin: Data("get >'out.txt'\nPOST p --raw '<note>hi</note>'\nPOST q '|x'=1 '&&'==2\n'#frag' --offline\n".utf8),
                             directory: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        let sent = String(decoding: capture.capturedAll, as: UTF8.self)
        XCTAssertTrue(sent.contains("\r\n\r\n<note>hi</note>"), sent)
        XCTAssertTrue(sent.contains("POST /q?%26%26=2 ") && sent.contains("{\"|x\":\"1\"}"), sent)
        XCTAssertTrue(r.text.contains("GET /#frag HTTP/1.1") || r.text.contains("GET / HTTP/1.1"), r.text)
        XCTAssertFalse(r.stderr.contains("line 2:") || r.stderr.contains("line 3:") || r.stderr.contains("line 4:"), r.stderr)
        XCTAssertTrue(r.stderr.contains("error: line 1: '>out.txt': redirection and pipes are not REPL syntax"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/out.txt"))
    }

    /// A batch line pasted from a shell (`swurl URL …`) drops the command's name, as a REPL line
    /// does (it failed with "the URL was 'swurl'").
    func testABatchLinePastedFromAShellDropsTheCommandName() throws {
        let lines = TestPaths.temporaryDirectory() + "/lines"
        try Data("swurl \(try HTTPBin.url("/anything")) c==3\n".utf8).write(to: URL(fileURLWithPath: lines))
        let r = try runSwurl(["--no-config", "batch", lines, "--jsonl"])
        XCTAssertEqual(r.status, 0, r.text + r.stderr)
        XCTAssertTrue(r.text.contains("/anything?c=3"), r.text)
    }

    /// A byte order mark at the start of any line (files joined with cat) is skipped, as it is
    /// on the first (the second line failed as a URL starting with U+FEFF).
    func testAByteOrderMarkOnALaterLineIsSkipped() throws {
        let lines = TestPaths.temporaryDirectory() + "/lines"
        let bom = "\u{FEFF}"
        try Data("\(bom)\(try HTTPBin.url("/get"))\n\(bom)\(try HTTPBin.url("/get?x=1"))\n".utf8).write(to: URL(fileURLWithPath: lines))
        let r = try runSwurl(["--no-config", "batch", lines, "--order", "input"])
        XCTAssertEqual(r.status, 0, r.text + r.stderr)
        XCTAssertTrue(r.text.contains("2 200 "), r.text)
    }

    /// -4 with an IPv6 literal, -6 with an IPv4 one: refused before any attempt, in every door
    /// (libcurl said "Couldn't connect", and the hint asked whether the server was running).
    func testTheOtherAddressFamilyIsRefused() throws {
        let one = try runSwurl(["--no-config", "-4", "http://[::1]:9/"])
        XCTAssertEqual(one.status, 64, one.stderr)
        XCTAssertTrue(one.stderr.contains("-4 (--ipv4) cannot reach the IPv6 address [::1]"), one.stderr)
        // Through a proxy, -4 is how swurl reaches the proxy: the IPv6 target is the proxy's to reach.
        let proxied = try runSwurl(["--no-config", "-4", "--proxy", "http://127.0.0.1:\(try ServerProcess.refusedPort())", "http://[::1]:9/"])
        XCTAssertNotEqual(proxied.status, 64, proxied.stderr)
        XCTAssertTrue(proxied.stderr.contains("proxy"), proxied.stderr)
        // A Unix socket has no IP address: libcurl found none, and the message blamed the server.
        let socket = try runSwurl(["--no-config", "-6", "--unix-socket", "/tmp/no-such.sock", "http://x/"])
        XCTAssertEqual(socket.status, 64, socket.stderr)
        XCTAssertTrue(socket.stderr.contains("--unix-socket connects to no IP address"), socket.stderr)
        let lines = TestPaths.temporaryDirectory() + "/lines"
        try Data("http://127.0.0.1:9/ -6\n".utf8).write(to: URL(fileURLWithPath: lines))
        let batch = try runSwurl(["--no-config", "batch", lines])
        XCTAssertTrue(batch.text.contains("-6 (--ipv6) cannot reach the IPv4 address 127.0.0.1"), batch.text)
        // A --resolve entry for the URL's host and port with addresses of the other family only
        // (libcurl said "Could not resolve host"); an entry with one of the family is used.
        let port = try HTTPBin.shared().port
        let resolved = try runSwurl(["--no-config", "-6", "--resolve", "LocalHost:\(port):127.0.0.1", "http://localhost:\(port)/get"])
        XCTAssertEqual(resolved.status, 64, resolved.stderr)
        XCTAssertTrue(resolved.stderr.contains("-6 (--ipv6) finds no IPv6 address in --resolve for localhost:\(port) (127.0.0.1)"), resolved.stderr)
        let usable = try runSwurl(["--no-config", "-4", "--check-status", "--resolve", "localhost:\(port):[::1],127.0.0.1", "http://localhost:\(port)/get"])
        XCTAssertEqual(usable.status, 0, usable.stderr)
        // libcurl keeps the last entry for HOST:PORT (a config's entry, then the command line's),
        // and `*` only when no entry names the host.
        let replaced = try runSwurl(["--no-config", "-4", "--check-status", "--resolve", "localhost:\(port):[::1]",
                                     "--resolve", "localhost:\(port):127.0.0.1", "http://localhost:\(port)/get"])
        XCTAssertEqual(replaced.status, 0, replaced.stderr)
        let replacedBadly = try runSwurl(["--no-config", "-4", "--resolve", "localhost:\(port):127.0.0.1",
                                          "--resolve", "localhost:\(port):[::1]", "http://localhost:\(port)/get"])
        XCTAssertEqual(replacedBadly.status, 64, replacedBadly.stderr)
        let wildcard = try runSwurl(["--no-config", "-4", "--resolve", "*:\(port):[::1]", "http://localhost:\(port)/get"])
        XCTAssertEqual(wildcard.status, 64, wildcard.stderr)
        let named = try runSwurl(["--no-config", "-4", "--check-status", "--resolve", "*:\(port):[::1]",
                                  "--resolve", "+localhost:\(port):127.0.0.1", "http://localhost:\(port)/get"])
        XCTAssertEqual(named.status, 0, named.stderr)
        // A batch line's own entries are read the same way.
        try Data("http://localhost:\(port)/get -6 --resolve localhost:\(port):127.0.0.1\n".utf8).write(to: URL(fileURLWithPath: lines))
        let batchLine = try runSwurl(["--no-config", "batch", lines])
        XCTAssertTrue(batchLine.text.contains("-6 (--ipv6) finds no IPv6 address in --resolve"), batchLine.text)
    }

    /// A REPL line that sends nothing (--offline, --curl) shows the cookies of the REPL's jar the
    /// line would send (they were left out, though the same line sent them).
    func testREPLOfflineAndCurlShowTheJarsCookies() throws {
        let r = try runSwurl(["--no-config", "repl", try HTTPBin.url("")],
                             stdin: Data("/cookies/set?a=1 -q\n/cookies --offline\n/cookies --curl\n".utf8))
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.text.contains("GET /cookies HTTP/1.1\r\nHost: 127.0.0.1:\(try HTTPBin.shared().port)\r\nCookie: a=1\r\n"), r.text)
        XCTAssertTrue(r.text.contains("--header 'Cookie: a=1'"), r.text)
    }

    /// `--no-config` is the whole run's: a batch or REPL line (or `set`) that gives it is refused
    /// (it was accepted and the config's credentials went anyway); `set --har` is refused (each
    /// line rewrote that file with its own entry alone, and the REPL's own log lost them); a byte
    /// order mark before a REPL line or a config line is skipped, as before a batch line (it went
    /// into the URL's path, and the request was sent).
    func testRunWideOptionsOnALineAndByteOrderMarks() throws {
        let config = try TestPaths.config("\u{FEFF}-a u:p\n")
        let base = try HTTPBin.url("")
        let lines = TestPaths.temporaryDirectory() + "/lines"
        try Data("\(base)/headers --no-config\n".utf8).write(to: URL(fileURLWithPath: lines))
        let batch = try runSwurl(["batch", lines], environment: config.env)
        XCTAssertTrue(batch.text.contains("--no-config cannot be used on a batch line"), batch.text)
        let script = ["x --no-config --offline", "set --no-config", "set --har s.har", "\u{FEFF}anything/bom --offline"]
        let r = try runSwurl(["repl", base], stdin: Data((script.joined(separator: "\n") + "\n").utf8), environment: config.env)
        XCTAssertTrue(r.stderr.contains("line 1: --no-config applies to 'swurl repl' itself, not to a line"), r.stderr)
        XCTAssertTrue(r.stderr.contains("line 2: --no-config is an option of 'swurl repl' itself"), r.stderr)
        XCTAssertTrue(r.stderr.contains("line 3: set --har: the REPL's --har is given when it starts"), r.stderr)
        // The config's BOM line was read as -a u:p: the request carries the credentials.
        XCTAssertTrue(r.text.contains("GET /anything/bom HTTP/1.1\r\n"), r.text)
        XCTAssertTrue(r.text.contains("Authorization: Basic dTpw\r\n"), r.text)
        XCTAssertFalse(r.text.contains("x --no-config"), r.text)
        // A line's own -a replaces a default Authorization: item (the item won); the next line
        // has the default again.
        let auth = try runSwurl(["repl", base, "--no-config", "Authorization:Bearer x"], stdin: Data("--offline a -a u:p\n--offline b\n".utf8))
        XCTAssertEqual(auth.text.components(separatedBy: "\r\n").filter { $0.hasPrefix("Authorization:") },
                       ["Authorization: Basic dTpw", "Authorization: Bearer x"], auth.text)
    }
}
