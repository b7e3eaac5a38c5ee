import XCTest
import Foundation
import SwurlTestSupport

/// Issue 27 §5: messages that say what to type, checks made before connecting, the password
/// prompt beside a piped body, and what `--curl` does with options curl spells differently.
final class MessagesExportDocsTests: XCTestCase {
    /// A method word that Unicode case reads as a known one (`poſt`, U+017F) is no method (it was
    /// a POST before ASCII-only reading); the message names the letter, in every door, instead
    /// of "looks like a URL, but the URL was 'poſt'".
    func testALookAlikeMethodIsNamedAsSuch() throws {
        let url = try HTTPBin.url("/post")
        let oneShot = try runSwurl(["po\u{17F}t", url, "a=1"])
        XCTAssertEqual(oneShot.status, 64, oneShot.stderr)
        XCTAssertTrue(oneShot.stderr.contains("'po\u{17F}t' is no method: '\u{17F}' (U+017F) is no ASCII letter"), oneShot.stderr)
        XCTAssertTrue(oneShot.stderr.contains("swurl POST \(url)"), oneShot.stderr)
        let repl = try runSwurl(["repl", try HTTPBin.url("")], stdin: Data("opt\u{131}ons /get\n".utf8))
        XCTAssertTrue(repl.stderr.contains("(U+0131) is no ASCII letter"), repl.stderr)
    }

    /// An optional value's hint is typed with `=` (after a space it would be the URL).
    func testWaitForNetworkHintUsesEquals() throws {
        let r = try runSwurl(["--wait-for-network=abc", "http://127.0.0.1:9/x"])
        XCTAssertEqual(r.status, 64, r.stderr)
        XCTAssertTrue(r.stderr.contains("hint: e.g. --wait-for-network=2.5\n"), r.stderr)
        XCTAssertTrue(try runSwurl(["--timeout", "x", ":9/x"]).stderr.contains("e.g. --timeout 2.5\n"))
    }

    /// A --cacert file without a certificate is refused before connecting (65), as --cacert-add is.
    func testGarbageCacertIsRefusedBeforeConnecting() throws {
        let capture = try CaptureServer()
        let garbage = TestPaths.temporaryDirectory() + "/garbage.pem"
        try Data("not a certificate\n".utf8).write(to: URL(fileURLWithPath: garbage))
        for option in ["--cacert", "--cacert-add"] {
            let r = try runSwurl([option, garbage, "http://127.0.0.1:\(capture.server.port)/x"])
            XCTAssertEqual(r.status, 65, "\(option): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("\(option): '\(garbage)' holds no"), r.stderr)
        }
        XCTAssertTrue(capture.capturedAll.isEmpty, "nothing was sent")
        let good = try CertificateFactory.shared().path("root.pem")
        let fine = try runSwurl(["--cacert", good, "http://127.0.0.1:\(capture.server.port)/x"])
        XCTAssertEqual(fine.status, 0, fine.stderr)
    }

    /// Stdin sent as a multipart file field (`f@-`) draws no "stdin is not sent" warning.
    func testStdinFileFieldDrawsNoWarning() throws {
        let capture = try CaptureServer()
        let r = try runSwurl(["POST", "http://127.0.0.1:\(capture.server.port)/u", "f@-", "--multipart"], stdin: Data("hi".utf8))
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertFalse(r.stderr.contains("stdin is not sent"), r.stderr)
        XCTAssertNotNil(capture.captured.range(of: Data("\r\nhi\r\n".utf8)))
        // Nor stdin named as a file (`a=@/dev/stdin`, `@/dev/fd/0`), a regular file's: it was
        // warned about, and sent.
        for item in ["a=@/dev/stdin", "@/dev/fd/0"] {
            let file = TestPaths.temporaryDirectory() + "/in.txt"
            try Data("there \(item)".utf8).write(to: URL(fileURLWithPath: file))
            let named = try runProcess("/bin/sh", ["-c", "exec \"$0\" POST \"$1\" \"$2\" < \"$3\"", TestPaths.binary,
                                                   "http://127.0.0.1:\(capture.server.port)/u", item, file], check: false)
            XCTAssertEqual(named.status, 0, named.stderr)
            XCTAssertFalse(named.stderr.contains("stdin is not sent"), item + ": " + named.stderr)
            XCTAssertNotNil(capture.captured.range(of: Data("there \(item)".utf8)), item)
        }
    }

    /// With the body on a pipe, `-a USER` asks for the password on the terminal (/dev/tty).
    func testAuthPasswordIsAskedOnTheTerminalWhenStdinIsAPipe() throws {
        let capture = try CaptureServer()
        let driver = #"""
        import os, pty, sys, time, select
        binary, url = sys.argv[1:3]
        pid, fd = pty.fork()
        if pid == 0:
            os.execv("/bin/sh", ["sh", "-c", 'printf "{}" | "$0" -a ann POST "$1" -b', binary, url])
        buf = b""
        end = time.time() + 20
        while b"password for ann@" not in buf and time.time() < end:
            r, _, _ = select.select([fd], [], [], 0.05)
            if r:
                try: buf += os.read(fd, 4096)
                except OSError: break
        # At once: echo is off before the prompt shows (typed earlier, it is flushed).
        os.write(fd, b"s3cret\n")
        while time.time() < end:
            r, _, _ = select.select([fd], [], [], 0.05)
            if r:
                try: d = os.read(fd, 4096)
                except OSError: break
                if not d: break
                buf += d
        _, status = os.waitpid(pid, 0)
        sys.stdout.write(buf.decode(errors="replace") + "\nexit=%d\n" % os.waitstatus_to_exitcode(status))
        """#
        let out = try runProcess(TestPaths.venv + "/bin/python3",
                                 ["-c", driver, TestPaths.binary, "http://127.0.0.1:\(capture.server.port)/p"], check: false)
        let text = String(decoding: out.stdout, as: UTF8.self)
        XCTAssertTrue(text.contains("password for ann@127.0.0.1:\(capture.server.port)"), text)
        XCTAssertTrue(text.contains("exit=0"), text)
        XCTAssertFalse(text.contains("s3cret"), "echoed: \(text)")
        let sent = String(decoding: capture.captured, as: UTF8.self)
        XCTAssertTrue(sent.contains("Authorization: Basic \(Data("ann:s3cret".utf8).base64EncodedString())\r\n"), sent)
        XCTAssertTrue(sent.hasSuffix("\r\n\r\n{}") || sent.contains("\r\n2\r\n{}\r\n"), sent)
    }

    /// --retry, --max-filesize and --check-status become curl's options (the printed command
    /// runs), and where curl's differ a warning says how; none is dropped silently.
    func testCurlExportMapsRetryMaxFilesizeAndCheckStatus() throws {
        let capture = try CaptureServer()
        let url = "http://127.0.0.1:\(capture.server.port)/x"
        let r = try runSwurl(["--curl", url, "--retry", "2", "--max-filesize", "1K", "--check-status"])
        XCTAssertEqual(r.status, 0, r.stderr)
        for option in ["--retry 2", "--retry-connrefused", "--max-filesize 1024", "--fail-with-body"] {
            XCTAssertTrue(r.text.contains("  \(option)"), "\(option): \(r.text)")
        }
        XCTAssertTrue(r.stderr.contains("curl cannot exit 3, 4 or 5 by status class (--check-status)"), r.stderr)
        let ran = try runProcess("/bin/sh", ["-c", r.text], check: false)
        XCTAssertEqual(ran.status, 0, ran.stderr)
        XCTAssertTrue(String(decoding: capture.captured, as: UTF8.self).hasPrefix("GET /x HTTP/1.1"))
        let post = try runSwurl(["--curl", "POST", url, "--retry", "2"])
        XCTAssertFalse(post.text.contains("--retry"), post.text)
        XCTAssertTrue(post.stderr.contains("curl cannot retry only idempotent methods"), post.stderr)
    }

    /// --max-headers and --wait-for-network have no curl option: the printed command leaves them
    /// out and a warning says so (they were dropped without a word).
    func testCurlExportSaysWhatItLeavesOutOfMaxHeadersAndWaitForNetwork() throws {
        let r = try runSwurl(["--curl", "http://127.0.0.1:9/x", "--max-headers", "20", "--wait-for-network=5"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertFalse(r.text.contains("max-headers") || r.text.contains("wait"), r.text)
        XCTAssertTrue(r.stderr.contains("curl cannot refuse a response with more than 20 header fields (--max-headers)"), r.stderr)
        XCTAssertTrue(r.stderr.contains("curl cannot wait for a route to the host before sending (--wait-for-network)"), r.stderr)
    }

    /// --cache-only and --stale-ok promise answers curl cannot give (it has no cache): a warning
    /// says so, in one-shot and REPL `--curl` alike; a plain --cache asks the server as curl does.
    func testCurlExportSaysWhatItCannotDoOfTheCache() throws {
        let dir = TestPaths.temporaryDirectory() + "/cache"
        for (option, said) in [("--cache-only", "curl cannot answer from swurl's cache without touching the network (--cache-only)"),
                               ("--stale-ok", "curl cannot answer from swurl's cache when the network fails (--stale-ok)")] {
            let r = try runSwurl(["--curl", "--cache=" + dir, option, "http://127.0.0.1:9/x"])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(r.stderr.contains(said), r.stderr)
            let repl = try runSwurl(["repl", "http://127.0.0.1:9", "--cache=" + dir], stdin: Data("GET /x --curl \(option)\n".utf8))
            XCTAssertTrue(repl.stderr.contains(said), repl.stderr)
        }
        let plain = try runSwurl(["--curl", "--cache=" + dir, "http://127.0.0.1:9/x"])
        XCTAssertFalse(plain.stderr.contains("cache"), plain.stderr)
    }

    /// A Host item under --follow: swurl drops it at another origin, curl only when the host
    /// name changes (a redirect to another port got it): said, not left to surprise.
    func testCurlExportWarnsThatItKeepsAHostItemAcrossPorts() throws {
        let r = try runSwurl(["--curl", "--follow", "http://127.0.0.1:9/x", "Host:api.test"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("curl cannot drop the Host header at a redirect to another origin as swurl does"), r.stderr)
        XCTAssertFalse(try runSwurl(["--curl", "http://127.0.0.1:9/x", "Host:api.test"]).stderr.contains("Host"))
    }

    /// The completions the binary generates offer only a command's own options after its word;
    /// the man page names every variable swurl reads; README lists every command.
    func testCompletionsPerCommandAndDocumentedEnvironmentAndCommands() throws {
        let script = TestPaths.temporaryDirectory() + "/swurl.bash"
        let generated = try runSwurl(["--generate", "bash"])
        try generated.stdout.write(to: URL(fileURLWithPath: script))
        let driver = """
            source "$1"
            comp() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); COMPREPLY=(); _swurl; echo "${COMPREPLY[*]}"; }
            # As readline gives them: the line, and its words split at `:` too.
            line() { COMP_LINE="$1"; COMP_POINT=${#1}; shift; comp "$@"; }
            echo "reach=$(comp swurl reach example.org --)"
            echo "request=$(comp swurl example.org --)"
            echo "cache=$(comp swurl --cache=/tmp/c cache '')"
            echo "cachelist=$(comp swurl cache list --)"
            echo "cacheitem=$(comp swurl cache list '')"
            echo "first=$(comp swurl he)"
            echo "topic=$(comp swurl help ba)"
            echo "topics=$(comp swurl help '')"
            echo "aftertopic=$(comp swurl help batch '')"
            # bash splits `--pretty=f` at `=`, and readline replaces an item's file from its `@` on.
            echo "equals=$(comp swurl --pretty = f)"
            echo "equalsempty=$(comp swurl --timing =)"
            echo "afterequals=$(comp swurl --pretty = all P)"
            # `:` breaks words too: a value holding one is no command word (it offered --form after certs).
            echo "colon=$(line 'swurl --resolve h:443:127.0.0.1 reach --wa' swurl --resolve h : 443 : 127.0.0.1 reach --wa)"
            echo "colonproxy=$(line 'swurl --proxy http://127.0.0.1:3128 certs --fo' swurl --proxy http : //127.0.0.1 : 3128 certs --fo)"
            echo "coloncommand=$(line 'swurl --resolve h:443:127.0.0.1 cer' swurl --resolve h : 443 : 127.0.0.1 cer)"
            echo "colonvalue=$(line 'swurl -a :p cer' swurl -a : p cer)"
            echo "colonurl=$(line 'swurl :8080/x cer' swurl : 8080/x cer)"
            echo "afterdashdash=$(comp swurl -- -)"
            cd "$2"
            echo "at=$(COMP_LINE='swurl :8080 X-H:@a' COMP_POINT=18 comp swurl :8080 X-H : @ a)"
            echo "field=$(COMP_LINE='swurl :8080 f@' COMP_POINT=14 comp swurl :8080 f @)"
            # bash-completion takes `@` out of the word breaks: readline replaces the whole
            # `f@a`, so the field name goes back too (it became `@a.json`, a raw body); after an
            # opening quote nothing is offered (the lead was doubled: `@"@a.json`).
            echo "fieldnobreak=$(COMP_WORDBREAKS=$' \t\n"'"'"'><=;|&(:' COMP_LINE='swurl :8080 f@a' COMP_POINT=15 comp swurl :8080 f@a)"
            echo "headernobreak=$(COMP_WORDBREAKS=$' \t\n"'"'"'><=;|&(:' COMP_LINE='swurl :8080 X-H:@a' COMP_POINT=18 comp swurl :8080 X-H : @a)"
            echo "quoted=$(COMP_LINE='swurl :8080 @"a' COMP_POINT=15 comp swurl :8080 @ '"a')"
            # A file value that matches nothing is still the value: no methods or commands offered.
            echo "nofile=$(comp swurl -o zz)"
            echo "nocacert=$(comp swurl --cacert c)"
            # A directory after `@` ends in `/` (Tab goes on into it); a name with a blank is one
            # name, quoted after `@` (readline quotes the others): they were split in two.
            cd more
            echo "atdir=$(COMP_LINE='swurl :8080 f@di' COMP_POINT=16 comp swurl :8080 f @ di)"
            echo "atspaced=$(COMP_LINE='swurl :8080 @my' COMP_POINT=15 comp swurl :8080 @ my)"
            # What readline then inserted, `@my\\ r`, is still one word after `@` (the `@` was lost).
            echo "atescaped=$(COMP_LINE='swurl :8080 @my\\ r' COMP_POINT=18 comp swurl :8080 @ 'my\\ r')"
            spaced() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); COMPREPLY=(); _swurl; echo "${#COMPREPLY[@]}:${COMPREPLY[0]}"; }
            echo "spaced=$(spaced swurl -o my)"
            # A word opened by a quote before its `@`: the name as the quote holds it (printf %q's
            # backslash escapes stayed inside the quotes, naming a file that is not there).
            echo "quotedlead=$(COMP_LINE='swurl :8080 "@my' COMP_POINT=16 spaced swurl :8080 '"@my')"
            echo "squotedlead=$(COMP_LINE="swurl :8080 'f@my" COMP_POINT=17 spaced swurl :8080 "'f@my")"
            cd ..
            # A bundle of short options ending in one that takes a value (`-vA`): its values; and
            # the value after such a bundle (`-qo x`) is no command word.
            echo "bundle=$(comp swurl -vA '')"
            echo "bundlevalue=$(comp swurl -qo x '')"
            # `--no-OPTION` once `--no` is typed.
            echo "noform=$(comp swurl --no-fol)"
            """
        let files = TestPaths.temporaryDirectory()
        for name in ["a.json", "b.txt"] { FileManager.default.createFile(atPath: files + "/" + name, contents: Data()) }
        try FileManager.default.createDirectory(atPath: files + "/more/dir1", withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: files + "/more/my report.pdf", contents: Data())
        let out = String(decoding: try runProcess("/bin/bash", ["-c", driver, "bash", script, files]).stdout, as: UTF8.self)
        let lines = Dictionary(uniqueKeysWithValues: out.split(separator: "\n").compactMap { line -> (String, Set<String>)? in
            guard let eq = line.firstIndex(of: "=") else { return nil }
            return (String(line[..<eq]), Set(line[line.index(after: eq)...].split(separator: " ").map(String.init)))
        })
        let reach = lines["reach"] ?? [], request = lines["request"] ?? []
        XCTAssertTrue(reach.contains("--watch") && reach.contains("--resolve"), "\(reach)")
        for refused in ["--form", "--print", "--offline", "--parallel"] { XCTAssertFalse(reach.contains(refused), "\(refused) after reach") }
        XCTAssertTrue(request.contains("--form") && !request.contains("--watch") && !request.contains("--parallel"), "\(request)")
        XCTAssertEqual(lines["cache"], ["list", "clear", "prune"])
        XCTAssertTrue(lines["cachelist"]?.contains("--no-config") == true, "\(lines["cachelist"] ?? [])")
        XCTAssertFalse(lines["cacheitem"]?.contains("list") == true, "\(lines["cacheitem"] ?? [])")
        // `swurl help batch`, as the README shows it: `help` is a first word to complete.
        XCTAssertEqual(lines["first"], ["help"])
        // …and after it, what `swurl help` takes (`all` and the command words), once.
        XCTAssertEqual(lines["topic"], ["batch"])
        XCTAssertEqual(lines["topics"], ["all", "request", "download", "certs", "repl", "reach", "batch", "cache"])
        XCTAssertFalse(lines["aftertopic"]?.contains("batch") == true, "\(lines["aftertopic"] ?? [])")
        // A value after `=` (it offered files), and the words after it (`all` was read as the command).
        XCTAssertEqual(lines["equals"], ["format"])
        XCTAssertEqual(lines["equalsempty"], ["text", "json"])
        XCTAssertEqual(lines["afterequals"], ["POST", "PUT", "PATCH"])
        // A file after `@` keeps its `@` (`X-H:@a` became the header `X-H:a.json`).
        XCTAssertEqual(lines["at"], ["@a.json"])
        XCTAssertEqual(lines["field"], ["@a.json", "@b.txt", "@more/"])
        XCTAssertEqual(lines["nofile"], [])
        XCTAssertEqual(lines["nocacert"], [])
        XCTAssertEqual(lines["atdir"], ["@dir1/"])
        XCTAssertEqual(lines["fieldnobreak"], ["f@a.json"])
        XCTAssertEqual(lines["headernobreak"], ["@a.json"])
        XCTAssertEqual(lines["quoted"], [])
        XCTAssertTrue(out.contains("\natspaced=@my\\ report.pdf\n"), out)
        XCTAssertTrue(out.contains("\natescaped=@my\\ report.pdf\n"), out)
        XCTAssertTrue(out.contains("\nspaced=1:my report.pdf\n"), out)
        XCTAssertTrue(out.contains("\nquotedlead=1:@my report.pdf\n"), out)
        XCTAssertTrue(out.contains("\nsquotedlead=1:@my report.pdf\n"), out)
        XCTAssertEqual(lines["bundle"], ["basic", "bearer", "digest"])
        XCTAssertTrue(lines["bundlevalue"]?.contains("GET") == true, "\(lines["bundlevalue"] ?? [])")
        XCTAssertEqual(lines["noform"], ["--no-follow"])
        XCTAssertEqual(lines["colon"], ["--watch"])
        XCTAssertEqual(lines["colonproxy"], [])
        XCTAssertEqual(lines["coloncommand"], ["certs"])
        XCTAssertEqual(lines["colonvalue"], ["certs"])
        // `:8080/x` is the URL (the documented shorthand), not a value: no command after it.
        XCTAssertEqual(lines["colonurl"], [])
        XCTAssertFalse(lines["afterdashdash"]?.contains("--form") == true, "\(lines["afterdashdash"] ?? [])")

        let man = try runSwurl(["--generate", "man"]).text
        for variable in ["XDG_STATE_HOME", "NETRC", "http_proxy", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"] {
            XCTAssertTrue(man.contains(".B \(variable)") || man.contains(", \(variable)"), "\(variable) is not in ENVIRONMENT")
        }
        XCTAssertTrue(man.contains("(exit N: MESSAGE)"), "batch's failure suffix is not documented")
        let readme = try String(contentsOfFile: TestPaths.packageRoot + "/README.md", encoding: .utf8)
        for word in ["repl", "reach", "batch"] { XCTAssertTrue(readme.contains("| \(word) | `swurl \(word)"), "\(word) is not in Commands") }
    }
}
