import XCTest
import Foundation
import SwurlTestSupport

/// `swurl batch --report FILE.html` and `--junit FILE` against nginx and the hostile server on
/// 127.0.0.1. The HTML page is opened in Debian's Chromium, headless (`--dump-dom` prints the
/// DOM after the page's script ran; `--screenshot` saves a PNG next to the test's output); the
/// JUnit file is read with junitparser from the test venv. A missing `chromium` or junitparser
/// fails these tests (runProcess throws), it never skips them.
final class BatchReportTests: XCTestCase {
    private func input(_ lines: [String], in dir: String) throws -> String {
        let path = dir + "/batch.txt"
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private static let chromium = "/usr/bin/chromium"

    /// The DOM of `page` after its scripts ran, as headless Chromium serialises it.
    private func dumpDOM(_ page: String) throws -> String {
        let r = try runProcess(Self.chromium, ["--headless", "--no-sandbox", "--disable-gpu", "--dump-dom",
                                               URL(fileURLWithPath: page).absoluteString])
        return String(decoding: r.stdout, as: UTF8.self)
    }

    /// Saves a screenshot of `page` beside it and prints where, for people to look at.
    private func screenshot(_ page: String) throws -> String {
        let png = page.replacingOccurrences(of: ".html", with: ".png")
        _ = try runProcess(Self.chromium, ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                                           "--screenshot=" + png, "--window-size=1400,1000",
                                           URL(fileURLWithPath: page).absoluteString])
        let data = try Data(contentsOf: URL(fileURLWithPath: png))
        XCTAssertEqual(Array(data.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "not a PNG: \(png)")
        print("BatchReportTests: screenshot of \(page) saved at \(png)")
        return png
    }

    /// The value of `attribute` on the first `<tag …>` of `dom`.
    private func attribute(_ attribute: String, of tag: String, in dom: String) -> String? {
        guard let open = dom.range(of: "<" + tag + " "),
              let close = dom.range(of: ">", range: open.upperBound..<dom.endIndex) else { return nil }
        let element = dom[open.upperBound..<close.lowerBound]
        guard let start = element.range(of: attribute + "=\"") else { return nil }
        let rest = element[start.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end])
    }

    private func occurrences(_ needle: String, in text: String) -> Int {
        text.components(separatedBy: needle).count - 1
    }

    /// 40 lines (34 served, 3 × 404 under --check-status, one refused connection, one
    /// malformed line, one URL with a password): one bar per line, the failures marked, no
    /// script error, the summary's counts, a screenshot.
    func testHTMLReportOpensInChromiumWithOneBarPerLineAndFailuresMarked() throws {
        let nginx = try NginxServer()
        let dir = TestPaths.temporaryDirectory()
        var lines = (1...34).map { nginx.url("/small.txt?n=\($0)") }
        lines.insert(nginx.url("/missing-1 --check-status"), at: 5)
        lines.insert(nginx.url("/missing-2 --check-status"), at: 12)
        lines.insert(nginx.url("/missing-3 --check-status"), at: 20)
        lines.insert("http://127.0.0.1:\(try ServerProcess.refusedPort())/refused", at: 25)
        lines.insert("GET", at: 30)  // malformed: a method without a URL
        lines.append(nginx.url("/small.txt").replacingOccurrences(of: "http://", with: "http://ann:s3cr3t-pw@"))
        XCTAssertEqual(lines.count, 40)
        let page = dir + "/report.html"
        let r = try runSwurl(["batch", try input(lines, in: dir), "--report", page, "--parallel", "4"])
        XCTAssertEqual(r.status, 4, "the first failing line in input order is a 404: \(r.stderr)")
        XCTAssertEqual(nginx.logLines().count, 38, "every line that could reach nginx did")

        let html = try String(contentsOfFile: page, encoding: .utf8)
        XCTAssertFalse(html.contains("s3cr3t-pw"), "a URL's password is redacted in the report")
        let dom = try dumpDOM(page)
        XCTAssertEqual(attribute("data-report", of: "body", in: dom), "ready", "the page's script ran to its end")
        XCTAssertEqual(attribute("data-errors", of: "html", in: dom), "0", "no script error in the page")
        XCTAssertEqual(attribute("data-bars", of: "body", in: dom), "40", "one bar per line")
        XCTAssertEqual(attribute("data-failed-bars", of: "body", in: dom), "5", "each failed line is marked")
        XCTAssertEqual(occurrences("<div class=\"row failed\"", in: dom), 5)
        XCTAssertEqual(occurrences("class=\"bar\"", in: dom), 40)
        XCTAssertTrue(dom.contains("<dd id=\"lines\">40</dd>"), "summary: lines")
        XCTAssertTrue(dom.contains("<dd id=\"failed\">5</dd>"), "summary: failures")
        XCTAssertTrue(dom.contains("<dd id=\"succeeded\">35</dd>"), "summary: successes")
        XCTAssertTrue(dom.contains("<td>3</td><td>exit 4: HTTP 404 Not Found</td>"), "the 404s are one reason, counted")
        XCTAssertTrue(dom.contains("<td>404</td><td>3</td>"), "status histogram: 404")
        XCTAssertTrue(dom.contains("<td>200</td><td>35</td>"), "status histogram: 200")
        XCTAssertTrue(dom.contains("<td>no response</td><td>2</td>"), "status histogram: lines without a response")
        // The 404 line's row: marked, with its URL, status and timings in its title.
        guard let row = dom.range(of: "title=\"line 6: GET " + nginx.url("/missing-1")) else {
            return XCTFail("no row for line 6")
        }
        let rowText = String(dom[row.lowerBound...].prefix(600))
        XCTAssertTrue(rowText.contains("status: 404, exit 4: HTTP 404 Not Found"), rowText)
        XCTAssertTrue(rowText.contains("waiting "), rowText)
        XCTAssertTrue(dom[..<row.lowerBound].hasSuffix("<div class=\"row failed\" "), "line 6's row is marked failed")
        for phase in ["queued", "dns", "connect", "waiting", "receiving"] {
            XCTAssertTrue(dom.contains("<i class=\"\(phase)\""), "a \(phase) segment is drawn")
        }
        _ = try screenshot(page)
    }

    /// The page loads nothing from anywhere: no src or href that leaves the file, no CSS url()
    /// or @import, no <link>, and a Content-Security-Policy that forbids any load.
    func testHTMLReportIsSelfContained() throws {
        let nginx = try NginxServer()
        let dir = TestPaths.temporaryDirectory()
        let page = dir + "/r.html"
        let r = try runSwurl(["batch", try input((1...5).map { nginx.url("/small.txt?n=\($0)") }, in: dir), "--report", page])
        XCTAssertEqual(r.status, 0, r.stderr)
        let html = try String(contentsOfFile: page, encoding: .utf8).lowercased()
        for needle in ["src=", "href=", "url(", "@import", "<link", "<iframe", "<img", "<object"] {
            XCTAssertFalse(html.contains(needle), "the page must not hold \(needle)")
        }
        XCTAssertTrue(html.contains("content-security-policy\" content=\"default-src 'none'"))
        XCTAssertEqual(occurrences("<script", in: html), 2, "only the page's own two scripts")
        // The policy names the two scripts by hash (it allowed every inline script): one slipped
        // into the markup does not run, the page's own still do.
        XCTAssertFalse(html.contains("script-src 'unsafe-inline'"), html)
        let original = try String(contentsOfFile: page, encoding: .utf8)
        let injected = original.replacingOccurrences(of: "<h1>", with: "<script>document.body.dataset.pwned='1'</script><h1>")
        XCTAssertNotEqual(injected, original)
        try injected.write(toFile: page, atomically: true, encoding: .utf8)
        let dom = try dumpDOM(page)
        XCTAssertEqual(attribute("data-report", of: "body", in: dom), "ready", dom)
        XCTAssertFalse(dom.contains("data-pwned"), dom)
        XCTAssertEqual(attribute("data-errors", of: "html", in: dom), "1", "the blocked script is counted")
    }

    /// A reason phrase full of markup, quotes, an ampersand and a control byte ends up as text
    /// in both reports: Chromium runs none of it, and junitparser reads it back.
    func testHostileReasonPhraseIsEscapedInHTMLAndJUnit() throws {
        let hostile = try HostileServer()
        let dir = TestPaths.temporaryDirectory()
        let page = dir + "/hostile.html", junit = dir + "/hostile.xml"
        let lines = [hostile.url("/markup-reason") + " --check-status",
                     "'" + hostile.url("/markup-reason?q=\"><b id=injected>x</b><script>document.documentElement.dataset.pwned=3</script>") + "' --check-status"]
        let r = try runSwurl(["batch", try input(lines, in: dir), "--report", page, "--junit", junit])
        XCTAssertEqual(r.status, 5, r.stderr)
        let dom = try dumpDOM(page)
        XCTAssertEqual(attribute("data-report", of: "body", in: dom), "ready")
        XCTAssertNil(attribute("data-pwned", of: "html", in: dom), "markup from the server ran in the page")
        XCTAssertFalse(dom.contains("id=\"injected\""), "markup from the URL became an element")
        XCTAssertFalse(dom.contains("<img"), "markup from the server became an element")
        XCTAssertTrue(dom.contains("&lt;script&gt;document.documentElement.dataset.pwned"), "the reason shows as text")
        XCTAssertEqual(attribute("data-failed-bars", of: "body", in: dom), "2")
        let out = try runPython("""
        import sys
        from junitparser import JUnitXml
        xml = JUnitXml.fromfile(sys.argv[1])
        for suite in xml:
            for case in suite:
                for res in case.result:
                    print(res.type + "|" + res.message)
        """, arguments: [junit])
        let results = out.split(separator: "\n").map(String.init)
        XCTAssertEqual(results.count, 2, out)
        for line in results {
            XCTAssertTrue(line.hasPrefix("exit 5|HTTP 500 <script>document.documentElement.dataset.pwned=\"1\"</script><img src=x onerror="), line)
            XCTAssertTrue(line.contains(" & ' "), line)
        }
    }

    /// A line that got a response and was then cut off keeps its HTTP version and timings in
    /// `--jsonl` and its phases in the page, as its HAR entry has them; its text result stays an
    /// error (the body is not whole, so no size).
    func testALineCutAfterItsResponseBeganKeepsItsTimings() throws {
        let hostile = try HostileServer()
        let dir = TestPaths.temporaryDirectory()
        let page = dir + "/cut.html"
        let batch = try input([hostile.url("/short")], in: dir)
        let r = try runSwurl(["batch", batch, "--jsonl", "--report", page])
        XCTAssertEqual(r.status, 1, r.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.text.utf8)) as? [String: Any], r.text)
        XCTAssertEqual(json["status"] as? Int, 200, r.text)
        XCTAssertNotNil(json["http_version"] as? String, r.text)
        XCTAssertNotNil(json["time_total"] as? Double, r.text)
        XCTAssertTrue(json["size"] is NSNull, r.text)
        let html = try String(contentsOfFile: page, encoding: .utf8)
        XCTAssertFalse(html.contains("<i class=\"failed-key\" style=\"width:100%\">"), "the line's phases are drawn")
        let text = try runSwurl(["batch", batch])
        XCTAssertTrue(text.text.hasPrefix("1 error 1 GET "), text.text)
    }

    /// A failure's message can quote the server (here a Location whose host holds U+202E, the
    /// right-to-left override): the results, `--jsonl`, the page and JUnit show the override
    /// escaped, as the terminal does, so it cannot reorder the words around it.
    func testABidiControlFromTheServerIsEscapedInEveryOutput() throws {
        let server = try SequenceServer([.init("302 Found", ["Location: http://\u{202E}moc.evil/x", "Content-Length: 0"])])
        let dir = TestPaths.temporaryDirectory()
        let page = dir + "/bidi.html", junit = dir + "/bidi.xml"
        let batch = try input([server.url("/x") + " --follow"], in: dir)
        for extra in [[], ["--jsonl"]] {
            let r = try runSwurl(["batch", batch, "--report", page, "--junit", junit] + extra)
            XCTAssertEqual(r.status, 1, r.stderr)
            for (what, text) in [("stdout", r.text), ("report", try String(contentsOfFile: page, encoding: .utf8)),
                                 ("junit", try String(contentsOfFile: junit, encoding: .utf8))] {
                XCTAssertFalse(text.unicodeScalars.contains("\u{202E}"), "\(what): \(text.prefix(3000))")
                XCTAssertTrue(text.contains("\\u{202e}moc.evil"), "\(what): \(text.prefix(3000))")
            }
        }
    }

    /// `setpriv`'s arguments that run swurl as nobody.
    private let asNobody = ["--reuid=65534", "--regid=65534", "--clear-groups", TestPaths.binary]

    /// A fresh directory with the sticky bit (as /tmp), removed after the test, holding `files`,
    /// each root's and writable by all, and a capture server; the test is skipped unless root
    /// (it runs swurl as nobody, for whom they are another user's files).
    private func stickyDirectory(holding files: [String]) throws -> (dir: String, capture: CaptureServer) {
        guard geteuid() == 0 else { throw XCTSkip("needs root to run swurl as another user") }
        let dir = "/tmp/swurl-sticky-" + UUID().uuidString
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o1777])
        addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
        for name in files {
            try "root's".write(toFile: dir + "/" + name, atomically: false, encoding: .utf8)
            try fm.setAttributes([.posixPermissions: 0o666], ofItemAtPath: dir + "/" + name)
        }
        return (dir, try CaptureServer())
    }

    /// The environment swurl runs in as nobody: its home and TMPDIR in `dir`, no config file.
    private func stickyEnvironment(_ dir: String) -> [String: String] {
        ["HOME": dir, "TMPDIR": dir, "SWURL_CONFIG": "", "PATH": "/usr/bin:/bin"]
    }

    /// A read-only file (its owner's own, mode 0444) is not replaced by rename either: curl and
    /// HTTPie fail to open it, and swurl replaced it. Refused before any request, in every door
    /// that writes a file; made writable again, it is replaced.
    func testAReadOnlyFileIsNotReplaced() throws {
        let (dir, capture) = try stickyDirectory(holding: [])
        let base = "http://127.0.0.1:\(capture.server.port)"
        let file = dir + "/ro.bin"
        try "keep".write(toFile: file, atomically: false, encoding: .utf8)
        XCTAssertEqual(chown(file, 65534, 65534), 0)
        XCTAssertEqual(chmod(file, 0o444), 0)
        try (base + "/line\n").write(toFile: dir + "/lines", atomically: false, encoding: .utf8)
        XCTAssertEqual(chmod(dir + "/lines", 0o644), 0)
        let env = stickyEnvironment(dir)
        for args in [["-o", file, base + "/one"], ["-d", "--overwrite", "-o", file, base + "/two"], ["--har", file, base + "/three"],
                     ["batch", dir + "/lines", "--report", file]] {
            let r = try runProcess("/usr/bin/setpriv", asNobody + args, directory: dir, environment: env, check: false)
            XCTAssertEqual(r.status, 1, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("cannot replace '\(file)': it is read-only"), r.stderr)
        }
        XCTAssertEqual(capture.captured.count, 0, "nothing was sent")
        XCTAssertEqual(try String(contentsOfFile: file, encoding: .utf8), "keep")
        XCTAssertEqual(chmod(file, 0o644), 0)
        let writable = try runProcess("/usr/bin/setpriv", asNobody + ["-o", file, base + "/four"], directory: dir, environment: env, check: false)
        XCTAssertEqual(writable.status, 0, writable.stderr)
        XCTAssertNotEqual(try String(contentsOfFile: file, encoding: .utf8), "keep")
    }

    /// A batch file's name with a bidirectional control (`rep‮txt.exe`) went into the page's
    /// title and heading and the JUnit suite's name as it was: shown as `\u{202e}`, as a
    /// server's text is.
    func testABidiControlInTheBatchFilesNameIsShownEscaped() throws {
        let nginx = try NginxServer()
        let dir = TestPaths.temporaryDirectory()
        let name = dir + "/rep\u{202E}txt.exe"
        try (nginx.url("/small.txt") + "\n").write(toFile: name, atomically: true, encoding: .utf8)
        let r = try runSwurl(["batch", name, "-q", "--report", dir + "/r.html", "--junit", dir + "/j.xml"])
        XCTAssertEqual(r.status, 0, r.stderr)
        for file in ["/r.html", "/j.xml"] {
            let text = try String(contentsOfFile: dir + file, encoding: .utf8)
            XCTAssertFalse(text.contains("\u{202E}"), file)
            XCTAssertTrue(text.contains("rep\\u{202e}txt.exe"), file)
        }
    }

    /// A file the user may write in a directory they cannot (root's, 0755): `-o` refuses before
    /// sending (it writes beside and renames), and said only "Permission denied", where curl
    /// and HTTPie write the file in place: the message says why, and names `> FILE`.
    func testAWritableFileInADirectoryThatTakesNoNewFileSaysWhyAndTheWayOut() throws {
        let (dir, capture) = try stickyDirectory(holding: [])
        let locked = dir + "/locked"
        try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        let file = locked + "/out.txt"
        try "theirs".write(toFile: file, atomically: false, encoding: .utf8)
        XCTAssertEqual(chown(file, 65534, 65534), 0)
        let base = "http://127.0.0.1:\(capture.server.port)"
        let r = try runProcess("/usr/bin/setpriv", asNobody + ["-o", file, base + "/one"], directory: dir, environment: stickyEnvironment(dir), check: false)
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("cannot create a file beside '\(file)': Permission denied (swurl writes a new file beside it"), r.stderr)
        XCTAssertTrue(r.stderr.contains("to write it in place, redirect stdout instead: > \(file)"), r.stderr)
        XCTAssertEqual(capture.captured.count, 0, "nothing was sent")
        // --har is no -o: the reason, without the stdout way.
        let har = try runProcess("/usr/bin/setpriv", asNobody + ["--har", file, base + "/two"], directory: dir, environment: stickyEnvironment(dir), check: false)
        XCTAssertEqual(har.status, 1, har.stderr)
        XCTAssertTrue(har.stderr.contains("this directory takes no new file)"), har.stderr)
        XCTAssertFalse(har.stderr.contains("redirect stdout"), har.stderr)
    }

    /// In a directory with the sticky bit, another user's file cannot be replaced by rename(2):
    /// the report (or the HAR, or a download's file) is refused before any line runs, not lost
    /// after all of them.
    func testAnotherUsersFileInAStickyDirectoryIsRefusedBeforeAnyRequest() throws {
        let (dir, capture) = try stickyDirectory(holding: ["owned.html", "owned.har", "dl.bin.part"])
        let fm = FileManager.default
        let base = "http://127.0.0.1:\(capture.server.port)"
        try (base + "/line\n").write(toFile: dir + "/lines", atomically: false, encoding: .utf8)
        try fm.setAttributes([.posixPermissions: 0o644], ofItemAtPath: dir + "/lines")
        let env = stickyEnvironment(dir)
        for args in [["batch", dir + "/lines", "--report", dir + "/owned.html"], ["--har", dir + "/owned.har", base + "/one"],
                     ["-d", "--overwrite", "-o", dir + "/owned.html", base + "/two"],
                     // The bytes would go into the other user's .part.
                     ["-d", "-o", dir + "/dl.bin", base + "/three"]] {
            let r = try runProcess("/usr/bin/setpriv", asNobody + args,
                                   directory: dir, environment: env, check: false)
            XCTAssertEqual(r.status, 1, r.stderr)
            XCTAssertTrue(r.stderr.contains("another user's file in a directory with the sticky bit"), r.stderr)
        }
        // `-d -c` finds a `.part` by its marker, which anyone may set: another user's is refused.
        try "root's".write(toFile: dir + "/f3.part", atomically: false, encoding: .utf8)
        try fm.setAttributes([.posixPermissions: 0o666], ofItemAtPath: dir + "/f3.part")
        _ = try runPython("import os, sys; os.setxattr(sys.argv[1], 'user.swurl.url', sys.argv[2].encode())", arguments: [dir + "/f3.part", base + "/f3"])
        let found = try runProcess("/usr/bin/setpriv", asNobody + ["-d", "-c", base + "/f3"], directory: dir, environment: env, check: false)
        XCTAssertEqual(found.status, 1, found.stderr)
        XCTAssertTrue(found.stderr.contains("cannot replace '\(dir)/f3.part': it is another user's file"), found.stderr)
        XCTAssertEqual(capture.captured.count, 0, "nothing was sent")
        for name in ["owned.html", "owned.har", "dl.bin.part", "f3.part"] {
            XCTAssertEqual(try String(contentsOfFile: dir + "/" + name, encoding: .utf8), "root's")
        }
        XCTAssertEqual(try fm.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix(".") }, [], "no temporary file left")
    }

    /// Resuming another user's file in place in a sticky directory: when the server ignores the
    /// range (200), the new copy would grow in FILE.part and be renamed over their file, which
    /// the sticky bit forbids; it is refused at the response's head, before a byte is written,
    /// and no resume command is suggested for their file (nor for their unmarked `.part`).
    func testAnInPlaceResumeThatMustStartOverIsRefusedForAnotherUsersFile() throws {
        let (dir, capture) = try stickyDirectory(holding: ["theirs", "five.part"])
        let fm = FileManager.default
        let base = "http://127.0.0.1:\(capture.server.port)"
        let env = stickyEnvironment(dir)
        let r = try runProcess("/usr/bin/setpriv", asNobody + ["-d", "-c", "-o", dir + "/theirs", base + "/four"],
                               directory: dir, environment: env, check: false)
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("cannot replace '\(dir)/theirs': it is another user's file"), r.stderr)
        XCTAssertFalse(r.stderr.contains("resume it"), r.stderr)
        XCTAssertTrue(String(decoding: capture.captured, as: UTF8.self).contains("Range: bytes=6-"), "the resume asked for the rest")
        XCTAssertEqual(try String(contentsOfFile: dir + "/theirs", encoding: .utf8), "root's")
        XCTAssertFalse(fm.fileExists(atPath: dir + "/theirs.part"), "nothing was written")
        let found = try runProcess("/usr/bin/setpriv", asNobody + ["-d", "-c", base + "/five"], directory: dir, environment: env, check: false)
        XCTAssertFalse(found.stderr.contains("to resume it"), found.stderr)
        XCTAssertEqual(try String(contentsOfFile: dir + "/five.part", encoding: .utf8), "root's")
        // A server that honours the range and is cut off: their file grew in place (no rename
        // needed), and resuming it again is worth the hint.
        let cut = try SequenceServer([SequenceServer.Reply("206 Partial Content", ["Content-Range: bytes 6-15/16", "Content-Length: 10"],
                                                           body: Data("BBB".utf8))])
        let resumed = try runProcess("/usr/bin/setpriv", asNobody + ["-d", "-c", "-o", dir + "/theirs", cut.url("/six")],
                                     directory: dir, environment: env, check: false)
        XCTAssertNotEqual(resumed.status, 0, resumed.stderr)
        XCTAssertTrue(resumed.stderr.contains("resume it with --continue"), resumed.stderr)
        XCTAssertEqual(try String(contentsOfFile: dir + "/theirs", encoding: .utf8), "root'sBBB")
    }

    /// `batch --output-dir` in a sticky directory: a line whose body file is another user's is
    /// refused before it is sent (a POST's effect would be lost with its body); the other lines
    /// run, one whose old temporary name (`.3.body.part`) is another user's too (a body's
    /// temporary file has a name of its own now).
    func testABatchLineWhoseBodyCannotBeSavedInASharedDirectoryIsNotSent() throws {
        let (dir, capture) = try stickyDirectory(holding: ["1.body", ".3.body.part", "2-200.out"])
        let fm = FileManager.default
        let base = "http://127.0.0.1:\(capture.server.port)"
        try "POST \(base)/one a=1\n\(base)/two\nPOST \(base)/three\n".write(toFile: dir + "/lines", atomically: false, encoding: .utf8)
        try fm.setAttributes([.posixPermissions: 0o644], ofItemAtPath: dir + "/lines")
        let env = stickyEnvironment(dir)
        let r = try runProcess("/usr/bin/setpriv", asNobody + ["batch", dir + "/lines", "--output-dir", dir],
                               directory: dir, environment: env, check: false)
        let out = String(decoding: r.stdout, as: UTF8.self)
        XCTAssertEqual(r.status, 1, out + r.stderr)
        XCTAssertTrue(out.contains("1 error 1 POST \(base)/one: cannot replace '\(dir)/1.body'"), out)
        try capture.sync()
        let sent = String(decoding: capture.capturedAll, as: UTF8.self)
        XCTAssertTrue(sent.contains("GET /two ") && sent.contains("POST /three "), sent)
        XCTAssertFalse(sent.contains("/one"), sent)
        XCTAssertEqual(try String(contentsOfFile: dir + "/1.body", encoding: .utf8), "root's")
        XCTAssertEqual(try String(contentsOfFile: dir + "/.3.body.part", encoding: .utf8), "root's")
        XCTAssertTrue(fm.fileExists(atPath: dir + "/2.body") && fm.fileExists(atPath: dir + "/3.body"))
        // A `{status}` name is known only at the end: the same refusal, after the request.
        let named = try runProcess("/usr/bin/setpriv", asNobody + ["batch", dir + "/lines", "--output-dir", dir, "--name-template", "{line}-{status}.out"],
                                   directory: dir, environment: env, check: false)
        let namedOut = String(decoding: named.stdout, as: UTF8.self)
        XCTAssertTrue(namedOut.contains("GET \(base)/two (exit 1: cannot replace '\(dir)/2-200.out': it is another user's file"), namedOut)
    }

    /// A batch file with no lines makes a report that says no line ran, not an empty table.
    func testABatchWithoutLinesSaysSoInItsReport() throws {
        let dir = TestPaths.temporaryDirectory()
        let page = dir + "/r.html"
        let r = try runSwurl(["batch", try input(["# nothing to send"], in: dir), "--report", page, "-q"])
        XCTAssertEqual(r.status, 0, r.text + r.stderr)
        let html = try String(contentsOfFile: page, encoding: .utf8)
        XCTAssertTrue(html.contains("<section id=\"statuses\"><h2>Status codes</h2><p class=\"note\">No line ran.</p></section>"), html)
        XCTAssertEqual(attribute("data-report", of: "body", in: try dumpDOM(page)), "ready")
    }

    /// Every status class the histogram draws has a colour: 600 to 999 had none, so their rows
    /// showed a count without a bar.
    func testEveryStatusClassInTheHistogramHasAColour() throws {
        let dir = TestPaths.temporaryDirectory()
        let page = dir + "/r.html"
        let lines = try [200, 404, 600, 999].map { try HTTPBin.url("/status/\($0)") }
        let r = try runSwurl(["batch", try input(lines, in: dir), "--report", page, "-q"])
        XCTAssertEqual(r.status, 0, r.text + r.stderr)
        let html = try String(contentsOfFile: page, encoding: .utf8)
        guard let statuses = html.range(of: "<section id=\"statuses\">"), let style = html.range(of: "</style>") else {
            return XCTFail("no histogram or stylesheet: \(html.prefix(500))")
        }
        let histogram = html[statuses.lowerBound...].prefix { $0 != "\n" }
        let classes = histogram.components(separatedBy: "class=\"").dropFirst().compactMap { $0.split(separator: "\"").first.map(String.init) }
            .filter { $0.hasPrefix("s") && $0.hasSuffix("xx") }
        XCTAssertEqual(Set(classes), ["s2xx", "s4xx", "s6xx", "s9xx"], String(histogram))
        for cls in classes {
            XCTAssertTrue(html[..<style.lowerBound].contains("." + cls + "{") || html[..<style.lowerBound].contains("." + cls + ","), cls)
        }
    }

    /// A line whose credential item is refused (a token with a control character) is reported
    /// without the token, on stdout and in both files, which are 0600 like the HAR.
    func testACredentialItemsValueIsNeverInTheResultsOrTheReports() throws {
        let dir = TestPaths.temporaryDirectory()
        let page = dir + "/r.html", junit = dir + "/j.xml"
        let lines = [try HTTPBin.url("/get") + " 'Authorization:Bearer BATCHSECRET\u{01}'",
                     try HTTPBin.url("/get") + " 'Cookie;session=COOKIESECRET'"]
        let r = try runSwurl(["batch", try input(lines, in: dir), "--report", page, "--junit", junit])
        XCTAssertEqual(r.status, 64, r.stderr)
        for (what, text) in [("stdout", r.text), ("stderr", r.stderr), ("report", try String(contentsOfFile: page, encoding: .utf8)),
                             ("junit", try String(contentsOfFile: junit, encoding: .utf8))] {
            XCTAssertFalse(text.contains("BATCHSECRET") || text.contains("COOKIESECRET"), "\(what): \(text.prefix(2000))")
            if what != "stderr" { XCTAssertTrue(text.contains("Authorization:****"), "\(what)") }
        }
        for file in [page, junit] {
            let mode = try (FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? NSNumber)?.intValue
            XCTAssertEqual(mode, 0o600, file)
        }
    }

    /// One test case per line with name, class name and time; a failure of type "exit N"
    /// with the message on each failing line; counts on <testsuite> and <testsuites>.
    func testJUnitHasOneTestCasePerLineAndFailuresWithExitStatus() throws {
        let nginx = try NginxServer()
        let dir = TestPaths.temporaryDirectory()
        let dead = try ServerProcess.refusedPort()
        var lines = (1...20).map { nginx.url("/small.txt?n=\($0)") }
        lines.insert(nginx.url("/nope --check-status"), at: 3)
        lines.append("http://127.0.0.1:\(dead)/refused")
        lines.append("POST " + nginx.url("/small.txt") + " a:={bad")
        let junit = dir + "/junit.xml"
        let r = try runSwurl(["batch", try input(lines, in: dir), "--junit", junit, "--jsonl"])
        XCTAssertEqual(r.status, 4, r.stderr)
        XCTAssertEqual(r.text.split(separator: "\n").count, 23, "--jsonl still printed every line")
        let out = try runPython("""
        import sys
        from junitparser import JUnitXml, Failure
        xml = JUnitXml.fromfile(sys.argv[1])
        suites = list(xml)
        print("suites", len(suites))
        s = suites[0]
        print("suite", s.name, s.tests, s.failures, s.errors, s.skipped)
        for case in s:
            fails = [r for r in case.result if isinstance(r, Failure)]
            f = fails[0] if fails else None
            print("case", case.classname, repr(case.name), float(case.time) >= 0,
                  f.type if f else "-", f.message if f else "-")
        """, arguments: [junit])
        let rows = out.split(separator: "\n").map(String.init)
        XCTAssertEqual(rows.first, "suites 1", out)
        XCTAssertEqual(rows.dropFirst().first, "suite \(dir)/batch.txt 23 3 0 0", out)
        let cases = rows.filter { $0.hasPrefix("case ") }
        XCTAssertEqual(cases.count, 23, out)
        for n in [1, 2, 3, 5, 21] {
            let name = "line \(n): GET " + nginx.url("/small.txt?n=\(n > 4 ? n - 1 : n)")
            XCTAssertTrue(cases.contains("case swurl.batch '\(name)' True - -"), "\(name) in\n\(out)")
        }
        XCTAssertTrue(cases.contains("case swurl.batch 'line 4: GET \(nginx.url("/nope"))' True exit 4 HTTP 404 Not Found"), out)
        XCTAssertTrue(cases.contains { $0.hasPrefix("case swurl.batch 'line 22: GET http://127.0.0.1:\(dead)/refused' True exit 1 ") }, out)
        XCTAssertTrue(cases.contains { $0.hasPrefix("case swurl.batch 'line 23' True exit 65 ") }, out)
        // The counts stand on <testsuites> too.
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        XCTAssertTrue(xml.contains("<testsuites name=\"swurl batch\" tests=\"23\" failures=\"3\""), xml)
    }

    /// A followed line's test case is named by the line's own method and URL, not its last
    /// hop's (a POST that a 303 sent on as a GET to a changing URL): a case keeps its name from
    /// run to run. Written directly and, beside `--har`, from the formatter thread's records.
    func testAFollowedLinesJUnitCaseKeepsTheLinesOwnName() throws {
        let dir = TestPaths.temporaryDirectory()
        let start = try HTTPBin.url("/redirect-to?url=%2Fget%3Fnonce%3D7&status_code=303")
        let path = try input(["POST " + start + " a=1", try HTTPBin.url("/get?plain=1")], in: dir)
        for extra in [[], ["--har", dir + "/log.har"]] {
            let junit = dir + "/junit.xml"
            let r = try runSwurl(["batch", path, "--follow", "--junit", junit] + extra)
            XCTAssertEqual(r.status, 0, r.text + r.stderr)
            XCTAssertTrue(r.text.contains("GET " + (try HTTPBin.url("/get?nonce=7"))), "results show the last hop: " + r.text)
            let xml = try String(contentsOfFile: junit, encoding: .utf8)
            XCTAssertTrue(xml.contains("name=\"line 1: POST " + start.replacingOccurrences(of: "&", with: "&amp;") + "\""), "\(extra): " + xml)
            XCTAssertTrue(xml.contains("name=\"line 2: GET " + (try HTTPBin.url("/get?plain=1")) + "\""), xml)
            XCTAssertFalse(xml.contains("nonce=7"), xml)
        }
    }

    /// A line retried: its attempts before the last and the pauses between them are its
    /// *retries* phase, not *queued* (two 503s answered after 0.3 s each showed as 600 ms
    /// queued), and its JUnit case counts them (it had the last attempt's 1 ms), with and without
    /// `--har` (records written on the formatter thread). (Two pauses of --retry-delay 0.3 come
    /// to at least 0.45 s: 0.15–0.3 s, then 0.3–0.6 s.)
    func testARetriedLinesAttemptsAreItsRetriesPhaseAndInItsJUnitTime() throws {
        let server = try ScriptedServer()
        let dir = TestPaths.temporaryDirectory()
        for (n, extra) in [[], ["--har", dir + "/log.har"]].enumerated() {
            let path = try input([server.url("/flaky?key=r\(n)&fails=2") + " --retry 2 --retry-delay 0.3"], in: dir)
            let page = dir + "/report.html", junit = dir + "/junit.xml"
            let r = try runSwurl(["batch", path, "--report", page, "--junit", junit, "-q"] + extra)
            XCTAssertEqual(r.status, 0, r.stderr)
            let html = try String(contentsOfFile: page, encoding: .utf8)
            guard let title = html.range(of: "title=\"line 1: GET ") else { return XCTFail("no row: \(extra)") }
            let row = String(html[title.lowerBound...].prefix(700))
            func ms(_ phase: String) -> Double? {
                guard let at = row.range(of: "&#10;" + phase + " ") else { return nil }
                let text = row[at.upperBound...].prefix { $0 != "&" && $0 != "\"" }
                let number = Double(text.prefix { $0.isNumber || $0 == "." }) ?? -1
                return text.hasSuffix(" ms") ? number : text.hasSuffix(" s") ? number * 1000 : number / 1000
            }
            XCTAssertGreaterThanOrEqual(ms("retries") ?? 0, 400, "\(extra): \(row)")
            XCTAssertLessThan(ms("queued") ?? 0, 300, "\(extra): \(row)")
            XCTAssertTrue(html.contains("<i class=\"retries\""), "a retries segment is drawn")
            let xml = try String(contentsOfFile: junit, encoding: .utf8)
            guard let time = xml.range(of: "classname=\"swurl.batch\" name=\"line 1: GET ") .flatMap({ xml[$0.upperBound...].range(of: "time=\"") }),
                  let seconds = Double(xml[time.upperBound...].prefix { $0 != "\"" }) else { return XCTFail(xml) }
            XCTAssertGreaterThanOrEqual(seconds, 0.4, xml)
        }
        // A line whose last attempt failed after its response began (a body cut short) keeps
        // its retries too (its failed hop's timing had none: all of it was "queued").
        let hostile = try HostileServer()
        let path = try input([hostile.url("/short") + " --retry 2 --retry-delay 0.3"], in: dir)
        let page = dir + "/cut.html"
        _ = try runSwurl(["batch", path, "--report", page, "-q"])
        let html = try String(contentsOfFile: page, encoding: .utf8)
        XCTAssertTrue(html.contains("&#10;retries "), html.components(separatedBy: "title=\"line 1").last.map { String($0.prefix(400)) } ?? html)
    }

    /// Past the first 2000 lines, bars stop and the rest is counted: 2600 lines give 2000 bars,
    /// a note and the aggregate section, and the summary counts all 2600. (Beside `--har`, so
    /// many rows and test cases are written on the batch's formatter thread with the HAR's
    /// entries: the failed line among the bars is marked, the JUnit file has every case and the
    /// HAR every line.)
    func testLinesPastTheFirstTwoThousandAreAggregatedNotDrawn() throws {
        let nginx = try NginxServer()
        let dir = TestPaths.temporaryDirectory()
        var lines = (1...2600).map { _ in nginx.url("/small.txt") }
        lines[1500] = nginx.url("/gone-early --check-status")
        lines[2400] = nginx.url("/gone --check-status")
        let page = dir + "/big.html", junit = dir + "/big.xml", har = dir + "/big.har"
        let r = try runSwurl(["batch", try input(lines, in: dir), "--report", page, "--junit", junit, "--har", har, "-q"])
        XCTAssertEqual(r.status, 4, r.stderr)
        let log = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: har))) as? [String: Any])
        XCTAssertEqual(((log["log"] as? [String: Any])?["entries"] as? [Any])?.count, 2600)
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        XCTAssertTrue(xml.contains(#"<testsuites name="swurl batch" tests="2600" failures="2""#), String(xml.prefix(400)))
        XCTAssertEqual(xml.components(separatedBy: "<testcase ").count - 1, 2600)
        XCTAssertTrue(xml.contains(#"name="line 1501: GET "#) && xml.contains(#"<failure type="exit 4""#))
        let dom = try dumpDOM(page)
        XCTAssertEqual(attribute("data-report", of: "body", in: dom), "ready")
        XCTAssertEqual(attribute("data-bars", of: "body", in: dom), "2000")
        XCTAssertEqual(attribute("data-failed-bars", of: "body", in: dom), "1")
        XCTAssertEqual(attribute("data-lines", of: "div", in: dom.components(separatedBy: "<div id=\"waterfall\"").dropFirst().first.map { "<div " + $0 } ?? ""), "2600")
        XCTAssertTrue(dom.contains("<dd id=\"lines\">2600</dd>"))
        XCTAssertTrue(dom.contains("<dd id=\"failed\">2</dd>"))
        XCTAssertTrue(dom.contains("The first 2000 lines are drawn; the other 600 are counted"), "the page says it aggregated")
        XCTAssertTrue(dom.contains("600 lines (1 failed)"), "the aggregate counts the rest and its failure")
    }

    /// Both files are written atomically through a symbolic link (the link stays, its target is
    /// replaced); a directory is refused before any line is sent.
    func testReportsFollowSymlinksAndADirectoryIsRefusedBeforeAnyRequest() throws {
        let nginx = try NginxServer()
        let dir = TestPaths.temporaryDirectory()
        let batch = try input([nginx.url("/small.txt")], in: dir)
        let fm = FileManager.default
        try "old report".write(toFile: dir + "/target.html", atomically: true, encoding: .utf8)
        try fm.createSymbolicLink(atPath: dir + "/link.html", withDestinationPath: "target.html")
        try "old junit".write(toFile: dir + "/target.xml", atomically: true, encoding: .utf8)
        try fm.createSymbolicLink(atPath: dir + "/link.xml", withDestinationPath: "target.xml")
        let r = try runSwurl(["batch", batch, "--report", dir + "/link.html", "--junit", dir + "/link.xml"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try fm.destinationOfSymbolicLink(atPath: dir + "/link.html"), "target.html")
        XCTAssertEqual(try fm.destinationOfSymbolicLink(atPath: dir + "/link.xml"), "target.xml")
        XCTAssertTrue(try String(contentsOfFile: dir + "/target.html", encoding: .utf8).hasPrefix("<!DOCTYPE html>"))
        XCTAssertTrue(try String(contentsOfFile: dir + "/target.xml", encoding: .utf8).hasPrefix("<?xml"))
        XCTAssertEqual(try fm.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix(".") }, [], "no temporary file left")

        let before = nginx.logLines().count
        for option in ["--report", "--junit"] {
            let bad = try runSwurl(["batch", batch, option, dir])
            XCTAssertEqual(bad.status, 1, bad.stderr)
            XCTAssertTrue(bad.stderr.contains("it is a directory; give \(option) a file name"), bad.stderr)
        }
        XCTAssertEqual(nginx.logLines().count, before, "nothing was sent for a batch whose report cannot be written")
    }

    /// `-` is stdout, as in curl: the JUnit file follows the results there, and no file named
    /// `-` is made.
    func testADashIsStdout() throws {
        let nginx = try NginxServer()
        let dir = TestPaths.temporaryDirectory()
        let batch = try input([nginx.url("/small.txt"), nginx.url("/small.txt")], in: dir)
        let r = try runSwurl(["batch", batch, "--junit", "-"], directory: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        let out = String(decoding: r.stdout, as: UTF8.self)
        XCTAssertEqual(occurrences("<testcase ", in: out), 2, out)
        XCTAssertTrue(out.hasSuffix("</testsuites>\n"), out)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/-"))
        // The HAR is streamed as lines end: on stdout it would mix with the results.
        let har = try runSwurl(["batch", batch, "--har", "-"], directory: dir)
        XCTAssertEqual(har.status, 64, har.stderr)
        XCTAssertTrue(har.stderr.contains("--har cannot share stdout with the results"), har.stderr)
    }

    /// Two outputs naming one file, by the same name, another spelling, a link or one device,
    /// are refused before any line is sent (the last rename would replace the others without a
    /// word), and the file is left as it was.
    func testOutputsNamingOneFileAreRefusedBeforeAnyRequest() throws {
        let nginx = try NginxServer()
        let dir = TestPaths.temporaryDirectory()
        let batch = try input([nginx.url("/small.txt")], in: dir)
        try "old".write(toFile: dir + "/kept.html", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.xml", withDestinationPath: "kept.html")
        let before = nginx.logLines().count
        let cases: [([String], String)] = [
            (["--har", dir + "/kept.html", "--report", dir + "/kept.html"], "--har and --report"),
            (["--report", dir + "/kept.html", "--junit", dir + "/link.xml"], "--report and --junit"),
            (["--har", dir + "/new.out", "--junit", dir + "/./new.out"], "--har and --junit"),
            (["--report", "/dev/stdout", "--junit", "/dev/fd/1"], "--report and --junit"),
        ]
        for (outputs, named) in cases {
            let r = try runSwurl(["batch", batch, "-q"] + outputs)
            XCTAssertEqual(r.status, 64, outputs.joined(separator: " ") + ": " + r.stderr)
            XCTAssertTrue(r.stderr.contains("\(named) name the same file"), r.stderr)
        }
        XCTAssertEqual(nginx.logLines().count, before, "nothing was sent")
        XCTAssertEqual(try String(contentsOfFile: dir + "/kept.html", encoding: .utf8), "old")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/new.out"))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix(".") }, [], "no temporary file left")
        let distinct = try runSwurl(["batch", batch, "-q", "--har", dir + "/a.har", "--report", dir + "/a.html", "--junit", dir + "/a.xml"])
        XCTAssertEqual(distinct.status, 0, distinct.stderr)
        XCTAssertEqual(nginx.logLines().count, before + 1, "the log counts what is sent")
    }

    /// A directory as the input opened, and failed at its first read: after the outputs were
    /// opened, so the last run's reports were replaced by empty ones (a typo in CI, `swurl batch
    /// urls/`, left a green-looking empty JUnit file). It is refused before they are touched.
    func testADirectoryAsTheInputLeavesTheReportsAsTheyWere() throws {
        let dir = TestPaths.temporaryDirectory()
        for name in ["k.html", "k.xml", "k.har"] { try "KEEP".write(toFile: dir + "/" + name, atomically: true, encoding: .utf8) }
        let r = try runSwurl(["batch", dir, "--report", "k.html", "--junit", "k.xml", "--har", "k.har"], directory: dir)
        XCTAssertEqual(r.status, 66, r.stderr)
        XCTAssertTrue(r.stderr.contains("is a directory, not a file of request lines"), r.stderr)
        for name in ["k.html", "k.xml", "k.har"] {
            XCTAssertEqual(try String(contentsOfFile: dir + "/" + name, encoding: .utf8), "KEEP", name)
        }
    }

    /// The page and the JUnit file are written as the lines end, into the files themselves (what
    /// is known only at the end goes into room left in their start tags): no spool file, so a
    /// TMPDIR that does not exist does not matter. A target that cannot be written over in place
    /// (here stderr) gets the same bytes through a spool in TMPDIR, and a TMPDIR that cannot hold
    /// one fails the batch before anything is sent, naming it.
    func testReportsNeedASpoolOnlyWhenWrittenInPlace() throws {
        let nginx = try NginxServer()
        let dir = TestPaths.temporaryDirectory()
        let batch = try input((1...30).map { nginx.url("/small.txt?n=\($0)") } + ["http://127.0.0.1:\(try ServerProcess.refusedPort())/x"], in: dir)
        let missing = dir + "/no-such-tmp"
        let r = try runSwurl(["batch", batch, "-q", "--report", dir + "/r.html", "--junit", dir + "/j.xml"],
                             environment: ["TMPDIR": missing])
        XCTAssertEqual(r.status, 1, "the refused line's exit status: \(r.stderr)")
        let xml = try String(contentsOfFile: dir + "/j.xml", encoding: .utf8)
        XCTAssertEqual(occurrences("<testcase ", in: xml), 31)
        XCTAssertTrue(xml.contains(#"<testsuites name="swurl batch" tests="31" failures="1" errors="0" skipped="0" time=""#), String(xml.prefix(600)))
        let counts = try runPython("""
        import sys
        from junitparser import JUnitXml
        xml = JUnitXml.fromfile(sys.argv[1])
        for suite in xml:
            print(suite.tests, suite.failures, len(list(suite)))
        """, arguments: [dir + "/j.xml"])
        XCTAssertEqual(counts, "31 1 31\n")
        let dom = try dumpDOM(dir + "/r.html")
        XCTAssertEqual(attribute("data-report", of: "body", in: dom), "ready", "the page's script ran to its end")
        XCTAssertEqual(attribute("data-bars", of: "body", in: dom), "31")
        XCTAssertEqual(attribute("data-failed-bars", of: "body", in: dom), "1")
        XCTAssertTrue(dom.contains("<dd id=\"lines\">31</dd>"), "summary: lines")
        // The summary, written after the rows, stands before the waterfall in the document once
        // the page's script ran.
        let summary = try XCTUnwrap(dom.range(of: "<section id=\"summary\""))
        let waterfall = try XCTUnwrap(dom.range(of: "<section id=\"waterfall-section\""))
        XCTAssertLessThan(summary.lowerBound, waterfall.lowerBound)

        // stderr is written in place: through the spool, the same JUnit file.
        let piped = try runSwurl(["batch", batch, "-q", "--junit", "/dev/stderr"], environment: ["TMPDIR": dir])
        XCTAssertEqual(piped.status, 1, piped.stderr)
        XCTAssertTrue(piped.stderr.contains(#"<testsuites name="swurl batch" tests="31" failures="1" errors="0" skipped="0" time=""#), piped.stderr)
        XCTAssertEqual(occurrences("<testcase ", in: piped.stderr), 31)
        XCTAssertTrue(piped.stderr.hasSuffix("</testsuite>\n</testsuites>\n"), String(piped.stderr.suffix(200)))

        // A TMPDIR that is not there falls back to /tmp (it failed the batch), as mktemp(1) does.
        let fallback = try runSwurl(["batch", batch, "-q", "--junit", "/dev/stderr"], environment: ["TMPDIR": missing])
        XCTAssertEqual(fallback.status, 1, fallback.stderr)
        XCTAssertEqual(occurrences("<testcase ", in: fallback.stderr), 31, fallback.stderr)
        // No spool anywhere (/tmp read-only too, in a mount namespace of its own): refused
        // before any line is sent, naming TMPDIR's directory.
        let before = nginx.logLines().count
        // (The binary is run through a descriptor opened before: a clone under /tmp is hidden then.)
        let shell = "exec 3<\"$1\"\nmount -t tmpfs -o ro tmpfs /tmp || exit 99\nTMPDIR=\"$2\" /proc/$$/fd/3 batch - -q --junit /dev/stderr 2>&1; echo \"batch=$?\""
        let bad = try runProcess("/usr/bin/unshare", ["-m", "sh", "-c", shell, "sh", TestPaths.binary, missing], stdinFile: batch, check: false)
        let text = String(decoding: bad.stdout, as: UTF8.self)
        XCTAssertTrue(text.contains("batch=1"), text + bad.stderr)
        XCTAssertTrue(text.contains("cannot create a spool file for --junit in '\(missing)'"), text)
        XCTAssertEqual(nginx.logLines().count, before, "nothing was sent for a batch whose report cannot be written")
    }

    /// A report that cannot be written (a full device) fails the batch with exit 1 and the
    /// reason after the lines ran and their results were printed.
    func testAReportThatCannotBeWrittenFailsTheBatchAfterTheResults() throws {
        let nginx = try NginxServer()
        let dir = TestPaths.temporaryDirectory()
        for option in ["--report", "--junit"] {
            let r = try runSwurl(["batch", try input([nginx.url("/small.txt")], in: dir), option, "/dev/full"])
            XCTAssertEqual(r.status, 1, "\(option): \(r.stderr)")
            XCTAssertTrue(r.text.hasPrefix("1 200 "), r.text)
            XCTAssertTrue(r.stderr.contains("swurl: error: ") && r.stderr.contains("/dev/full"), r.stderr)
        }
        XCTAssertEqual(nginx.logLines().count, 2)
    }

    /// The outputs end side by side (the HAR log's and the JUnit file's on the formatter thread,
    /// the page's on the thread that ran the lines): whichever of them cannot be written fails
    /// the batch with its own error, once, and the other two are whole. (The page and the JUnit
    /// file to /dev/full fail at the end, through their spool; the HAR log's head is written at
    /// once and fails there, before any line is sent, as an unwritable report's does.)
    func testAnOutputThatFailsAtTheEndLeavesTheOthersWhole() throws {
        let nginx = try NginxServer()
        let dir = TestPaths.temporaryDirectory()
        // 1,000 lines fill blocks of records, so the formatter thread runs. With every line a
        // success, the output that cannot be written fails the batch (1); with one line failing
        // (4), the lines' status stands, whichever output it is (as beside a request).
        var lines = Array(repeating: nginx.url("/small.txt"), count: 1000)
        let path = try input(lines, in: dir)
        lines[500] = nginx.url("/gone --check-status")
        let failingLine = dir + "/failing.txt"
        try (lines.joined(separator: "\n") + "\n").write(toFile: failingLine, atomically: true, encoding: .utf8)
        let before = nginx.logLines().count
        let har = try runSwurl(["batch", path, "-q", "--har", "/dev/full", "--report", dir + "/h.html", "--junit", dir + "/h.xml"])
        XCTAssertEqual(har.status, 1, har.stderr)
        XCTAssertTrue(har.stderr.contains("/dev/full"), har.stderr)
        XCTAssertEqual(nginx.logLines().count, before, "nothing was sent")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/h.html"))
        for (failing, batch, status): (String, String, Int32) in [("--report", path, 1), ("--junit", path, 1),
                                                                  ("--report", failingLine, 4), ("--junit", failingLine, 4)] {
            let files = ["--har": dir + "/o.har", "--report": dir + "/o.html", "--junit": dir + "/o.xml"]
            for file in files.values { try? FileManager.default.removeItem(atPath: file) }
            var args = ["batch", batch, "-q", "--parallel", "16"]
            for option in ["--har", "--report", "--junit"] {
                args += [option, option == failing ? "/dev/full" : files[option] ?? ""]
            }
            let r = try runSwurl(args)
            XCTAssertEqual(r.status, status, "\(failing): \(r.stderr)")
            XCTAssertEqual(occurrences("swurl: error: ", in: r.stderr), 1, r.stderr)
            XCTAssertEqual(occurrences("/dev/full", in: r.stderr), 1, r.stderr)
            var counts: [Int] = []
            for (option, file) in files where option != failing {
                let text = try String(contentsOfFile: file, encoding: .utf8)
                switch option {
                case "--har":
                    let log = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
                    let entries = (log?["log"] as? [String: Any])?["entries"] as? [Any]
                    XCTAssertEqual(entries?.count, 1000, failing)
                case "--report":
                    counts.append(occurrences("<div class=\"row", in: text))
                    XCTAssertTrue(text.hasSuffix("</body></html>\n"), failing)
                default:
                    counts.append(occurrences("<testcase ", in: text))
                    XCTAssertTrue(text.hasSuffix("</testsuites>\n"), failing)
                }
            }
            XCTAssertEqual(counts, [1000], failing)
            XCTAssertFalse(FileManager.default.fileExists(atPath: files[failing] ?? ""), failing)
        }
    }

    // 100,000 lines with both reports keep memory flat: BatchTests.testHundredThousandLinesKeepMemoryFlat
    // (one test with the batch without reports it is measured against).

    /// Runs `swurl batch` with `args` (its results as JSON lines in `out`), waits for `lines`
    /// results, then sends SIGINT; returns the exit status as Python's `wait` gives it.
    private func interruptedBatch(_ args: [String], out: String, afterResults lines: Int, signal: String = "SIGINT") throws -> String {
        let script = """
        import json, signal, subprocess, sys, time
        binary, out, lines, args, sig = sys.argv[1], sys.argv[2], int(sys.argv[3]), json.loads(sys.argv[4]), sys.argv[5]
        with open(out, "wb") as f:
            p = subprocess.Popen([binary, "batch"] + args + ["--jsonl"],
                                 stdout=f, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        deadline = time.time() + 60
        while time.time() < deadline:
            with open(out, "rb") as f:
                if f.read().count(b"\\n") >= lines: break
            time.sleep(0.05)
        time.sleep(0.3)
        p.send_signal(getattr(signal, sig))
        print(p.wait(timeout=60))
        """
        let json = String(decoding: try JSONSerialization.data(withJSONObject: args), as: UTF8.self)
        let r = try runProcess("/usr/bin/python3", ["-c", script, TestPaths.binary, out, String(lines), json, signal])
        return String(decoding: r.stdout, as: UTF8.self)
    }

    /// Ctrl-C: both reports are still written, holding the lines that finished and the running
    /// ones as interrupted (exit 130).
    func testCtrlCStillWritesBothReports() throws {
        let nginx = try NginxServer()
        let slow = try HTTPBin.url("/delay/10")
        let dir = TestPaths.temporaryDirectory()
        let path = try input([nginx.url("/small.txt"), nginx.url("/small.txt")] + Array(repeating: slow, count: 3), in: dir)
        let page = dir + "/r.html", junit = dir + "/j.xml"
        let status = try interruptedBatch([path, "--parallel", "5", "--report", page, "--junit", junit],
                                          out: dir + "/out.jsonl", afterResults: 2)
        XCTAssertEqual(status, "-2\n", "ended by SIGINT (130 in a shell)")
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        XCTAssertEqual(occurrences("<testcase ", in: xml), 5, xml)
        XCTAssertEqual(occurrences("<failure type=\"exit 130\"", in: xml), 3, xml)
        let dom = try dumpDOM(page)
        XCTAssertEqual(attribute("data-report", of: "body", in: dom), "ready")
        XCTAssertEqual(attribute("data-bars", of: "body", in: dom), "5")
        XCTAssertEqual(attribute("data-failed-bars", of: "body", in: dom), "3")
    }

    /// SIGTERM (`timeout`, a cancelled CI job) stops the batch as Ctrl-C does: the three outputs
    /// are written with the lines that ran, no temporary file stays behind, and the process then
    /// ends by the signal (Python's -15), as it would have without a handler.
    func testSIGTERMWritesTheOutputsAndEndsByTheSignal() throws {
        let nginx = try NginxServer()
        let slow = try HTTPBin.url("/delay/10")
        let dir = TestPaths.temporaryDirectory()
        let path = try input([nginx.url("/small.txt"), nginx.url("/small.txt")] + Array(repeating: slow, count: 3), in: dir)
        let har = dir + "/t.har", page = dir + "/t.html", junit = dir + "/t.xml"
        let status = try interruptedBatch([path, "--parallel", "5", "--har", har, "--report", page, "--junit", junit],
                                          out: dir + "/out.jsonl", afterResults: 2, signal: "SIGTERM")
        XCTAssertEqual(status, "-15\n")
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        XCTAssertEqual(occurrences("<testcase ", in: xml), 5, xml)
        XCTAssertEqual(occurrences("<failure type=\"exit 130\"", in: xml), 3, xml)
        XCTAssertTrue(try String(contentsOfFile: page, encoding: .utf8).hasSuffix("</body></html>\n"))
        let log = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: har))) as? [String: Any]
        let entries = (log?["log"] as? [String: Any])?["entries"] as? [[String: Any]] ?? []
        XCTAssertEqual(entries.filter { ($0["response"] as? [String: Any])?["status"] as? Int == 200 }.count, 2)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix(".") }, [], "no temporary file left")
    }

    /// SIGTERM or SIGHUP while an output is being opened (a FIFO nobody reads yet) ends the
    /// process by the signal, as it does once the lines run: it exited 130 as after Ctrl-C.
    func testSIGTERMWhileAnOutputOpensEndsByTheSignal() throws {
        let dir = TestPaths.temporaryDirectory()
        let path = try input(["http://127.0.0.1:9/never"], in: dir)
        let script = """
        import os, signal, subprocess, sys, time
        binary, fifo, lines, option, sig = sys.argv[1:6]
        os.mkfifo(fifo)
        def pre():
            for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP): signal.signal(s, signal.SIG_DFL)
        p = subprocess.Popen([binary, "--no-config", "batch", lines, option, fifo], stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=pre)
        time.sleep(0.5)
        p.send_signal(getattr(signal, sig))
        print(p.wait(timeout=20))
        os.unlink(fifo)
        """
        for (option, sig, status) in [("--report", "SIGTERM", "-15"), ("--junit", "SIGHUP", "-1"), ("--har", "SIGTERM", "-15"),
                                      ("--har", "SIGINT", "-2")] {
            let out = try runPython(script, arguments: [TestPaths.binary, dir + "/fifo", path, option, sig])
            XCTAssertEqual(out.trimmingCharacters(in: .whitespacesAndNewlines), status, "\(option) \(sig)")
        }
    }

    /// Ctrl-C in a batch whose formatter thread runs (200 lines' HAR records fill blocks before
    /// the slow lines): the three outputs still end side by side and hold every line (exit 130).
    func testCtrlCWithTheFormatterThreadRunningWritesAllThreeOutputs() throws {
        let nginx = try NginxServer()
        let slow = try HTTPBin.url("/delay/10")
        let dir = TestPaths.temporaryDirectory()
        let path = try input(Array(repeating: nginx.url("/small.txt"), count: 200) + Array(repeating: slow, count: 3), in: dir)
        let har = dir + "/c.har", page = dir + "/c.html", junit = dir + "/c.xml"
        let status = try interruptedBatch([path, "--parallel", "5", "--har", har, "--report", page, "--junit", junit],
                                          out: dir + "/out.jsonl", afterResults: 200)
        XCTAssertEqual(status, "-2\n", "ended by SIGINT (130 in a shell)")
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        XCTAssertEqual(occurrences("<testcase ", in: xml), 203, String(xml.suffix(2000)))
        XCTAssertEqual(occurrences("<failure type=\"exit 130\"", in: xml), 3)
        let text = try String(contentsOfFile: page, encoding: .utf8)
        XCTAssertEqual(occurrences("<div class=\"row", in: text), 203)
        XCTAssertTrue(text.hasSuffix("</body></html>\n"))
        let log = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: har))) as? [String: Any]
        let entries = (log?["log"] as? [String: Any])?["entries"] as? [[String: Any]] ?? []
        // The 200 served lines, and the interrupted ones as far as they went.
        XCTAssertEqual(entries.filter { ($0["response"] as? [String: Any])?["status"] as? Int == 200 }.count, 200)
    }

    /// Neither option is taken by a one-shot request or by a batch line.
    func testReportOptionsBelongToBatchAlone() throws {
        let nginx = try NginxServer()
        let dir = TestPaths.temporaryDirectory()
        let oneShot = try runSwurl([nginx.url("/small.txt"), "--report", dir + "/x.html"])
        XCTAssertEqual(oneShot.status, 64, oneShot.stderr)
        let r = try runSwurl(["batch", try input([nginx.url("/small.txt") + " --junit " + dir + "/y.xml"], in: dir), "--jsonl"])
        XCTAssertEqual(r.status, 64, r.stderr)
        XCTAssertTrue(r.text.contains("\"exit\":64"), r.text)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/x.html"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/y.xml"))
    }
}
