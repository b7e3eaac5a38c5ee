import XCTest
import Foundation
import SwurlTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `--download` end to end: naming rules, `.part` files, resume, 4xx handling, Ctrl-C.
final class DownloadTests: XCTestCase {
    private func files(_ dir: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
    }

    /// A status --accept-status lists that leaves nothing to save (a 304) is no failure of the
    /// download: a note, exit 0, as the other doors accept it (it was "error", exit 3).
    func testAnAcceptedStatusWithNothingToSaveIsANote() throws {
        let dir = TestPaths.temporaryDirectory()
        let r = try runSwurl(["-d", "-o", "f", "--accept-status", "200-299,304", try HTTPBin.url("/status/304")], directory: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("swurl: note: HTTP 304 NOT MODIFIED (accepted); nothing was saved"), r.stderr)
        XCTAssertEqual(files(dir), [])
        let refused = try runSwurl(["-d", "-o", "f", try HTTPBin.url("/status/304")], directory: dir)
        XCTAssertEqual(refused.status, 3, refused.stderr)
    }

    func testNameComesFromTheURLPlusAnExtensionForTheContentType() throws {
        let dir = TestPaths.temporaryDirectory()
        let r = try runSwurl(["-d", try HTTPBin.url("/json")], directory: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(files(dir), ["json.json"])
        XCTAssertEqual(r.stdout.count, 0, "download mode leaves stdout alone")
        XCTAssertTrue(r.stderr.contains("saved"), r.stderr)
    }

    /// `swurl URL -d name=Ann`, curl's form post by habit, is a download of a JSON POST's
    /// answer here: it works, and a note says so (not with -q).
    func testADownloadWithDataItemsSaysWhatItIs() throws {
        let dir = TestPaths.temporaryDirectory()
        let r = try runSwurl([try HTTPBin.url("/post"), "-d", "name=Ann"], directory: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("swurl: note: -d is --download here"), r.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/post.json"))
        let quiet = try runSwurl([try HTTPBin.url("/post"), "-d", "-q", "name=Ann"], directory: dir)
        XCTAssertEqual(quiet.status, 0, quiet.stderr)
        XCTAssertFalse(quiet.stderr.contains("note:"), quiet.stderr)
        let plain = try runSwurl(["-d", try HTTPBin.url("/json")], directory: dir)
        XCTAssertFalse(plain.stderr.contains("note:"), plain.stderr)
    }

    /// Options that only shape a shown body (--sort-keys, --drop-nulls, --plist-as json,
    /// --stream) were silently ignored by a download: a note says the file gets the body as
    /// received (and the bytes are the server's, unsorted).
    func testOptionsThatShapeAShownBodyAreNotedByADownload() throws {
        let dir = TestPaths.temporaryDirectory()
        let r = try runSwurl(["-d", "-o", "j.json", "--sort-keys", "--drop-nulls", try HTTPBin.url("/json")], directory: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("swurl: note: --sort-keys and --drop-nulls shape a body shown, not a download: the file gets the body as received"), r.stderr)
        let served = try runSwurl([try HTTPBin.url("/json")])
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/j.json")), served.stdout)
        // --all shows a shown response's hops; a download's are not shown (-v shows its head).
        let all = try runSwurl(["-d", "-o", "a.json", "-F", "--all", try HTTPBin.url("/redirect-to?url=/json")], directory: dir)
        XCTAssertEqual(all.status, 0, all.stderr)
        XCTAssertTrue(all.stderr.contains("swurl: note: --all shows the hops of a response shown, not of a download"), all.stderr)
        let quiet = try runSwurl(["-d", "-q", "-o", "k.json", "--stream", try HTTPBin.url("/json")], directory: dir)
        XCTAssertEqual(quiet.status, 0, quiet.stderr)
        XCTAssertFalse(quiet.stderr.contains("note:"), quiet.stderr)
    }

    func testExistingFilesAreNeverOverwrittenWithoutOverwrite() throws {
        let dir = TestPaths.temporaryDirectory()
        let url = try HTTPBin.url("/bytes/300?seed=3")
        for _ in 0..<3 { XCTAssertEqual(try runSwurl(["-d", url], directory: dir).status, 0) }
        XCTAssertEqual(files(dir), ["300", "300-1", "300-2"])
        XCTAssertEqual(try runSwurl(["-d", "--overwrite", url], directory: dir).status, 0)
        XCTAssertEqual(files(dir), ["300", "300-1", "300-2"])
    }

    /// A file --overwrite replaces keeps its mode (a private file came back 0644), as -o's does;
    /// a directory of the name is never the target (the save failed after the whole download).
    func testOverwriteKeepsTheModeAndNeverTargetsADirectory() throws {
        let dir = TestPaths.temporaryDirectory()
        let secret = dir + "/secret.bin"
        FileManager.default.createFile(atPath: secret, contents: Data("s".utf8), attributes: [.posixPermissions: 0o600])
        let replaced = try runSwurl(["-q", "-d", "--overwrite", "-o", secret, try HTTPBin.url("/bytes/100?seed=4")], directory: dir)
        XCTAssertEqual(replaced.status, 0, replaced.stderr)
        let attributes = try FileManager.default.attributesOfItem(atPath: secret)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        XCTAssertEqual((attributes[.size] as? NSNumber)?.intValue, 100)
        try FileManager.default.createDirectory(atPath: dir + "/50", withIntermediateDirectories: false)
        let beside = try runSwurl(["-q", "-d", "--overwrite", try HTTPBin.url("/bytes/50")], directory: dir)
        XCTAssertEqual(beside.status, 0, beside.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/50-1")).count, 50)
    }

    /// Names near the file system's longest (255 bytes): -o's temporary file takes a shorter
    /// name (it failed: "File name too long", where curl writes the file); -d's NAME.part would
    /// not fit, which is refused before the request goes (it failed after a POST had gone).
    func testNamesNearTheLongestAFileSystemTakes() throws {
        let dir = TestPaths.temporaryDirectory()
        let long = String(repeating: "M", count: 250)
        let plain = try runSwurl(["-o", long, try HTTPBin.url("/bytes/10")], directory: dir)
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/" + long)).count, 10)
        let server = try CaptureServer()
        let download = try runSwurl(["-d", "-o", long + "xx", "POST", "http://127.0.0.1:\(server.server.port)/up", "a=1"], directory: dir)
        XCTAssertEqual(download.status, 64, download.stderr)
        XCTAssertTrue(download.stderr.contains("would be longer than the file system allows (255)"), download.stderr)
        XCTAssertEqual(server.captured.count, 0, "nothing was sent")
        XCTAssertEqual(files(dir), [long])
    }

    /// Downloads of one name started together each take a free name (one failed with "being
    /// written by another download" when its pick's .part was a moment old).
    func testDownloadsStartedTogetherNeverFailOnOneName() throws {
        let dir = TestPaths.temporaryDirectory()
        let url = try HTTPBin.url("/bytes/2000")
        let lock = NSLock()
        nonisolated(unsafe) var statuses: [Int32] = []
        nonisolated(unsafe) var said: [String] = []
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            let r = try? runSwurl(["-q", "-d", url], directory: dir)
            lock.lock()
            statuses.append(r?.status ?? -1)
            if let r, r.status != 0 { said.append(r.stderr) }
            lock.unlock()
        }
        XCTAssertEqual(statuses, Array(repeating: 0, count: 16), said.joined(separator: "\n"))
        XCTAssertEqual(files(dir).count, 16, "\(files(dir))")
        XCTAssertFalse(files(dir).contains { $0.hasSuffix(".part") }, "\(files(dir))")
    }

    func testOutputOptionNamesTheFileAndRefusesToReplaceIt() throws {
        let dir = TestPaths.temporaryDirectory()
        let url = try HTTPBin.url("/bytes/100?seed=1")
        XCTAssertEqual(try runSwurl(["-d", "-o", "mine.bin", url], directory: dir).status, 0)
        let again = try runSwurl(["-d", "-o", "mine.bin", url], directory: dir)
        XCTAssertEqual(again.status, 64)
        XCTAssertTrue(again.stderr.contains("already exists"), again.stderr)
        XCTAssertEqual(try runSwurl(["-d", "-o", "mine.bin", "--overwrite", url], directory: dir).status, 0)
        XCTAssertEqual(files(dir), ["mine.bin"])
    }

    func testContentDispositionNamesTheFile() throws {
        let dir = TestPaths.temporaryDirectory()
        let url = try HTTPBin.url("/response-headers?Content-Disposition=" + "attachment; filename=\"report.pdf\"".urlQueryEscaped)
        XCTAssertEqual(try runSwurl(["-d", url], directory: dir).status, 0)
        XCTAssertEqual(files(dir), ["report.pdf"])
    }

    func testRFC5987FilenameWinsOverThePlainOne() throws {
        let dir = TestPaths.temporaryDirectory()
        let cd = "attachment; filename=\"fallback.txt\"; filename*=UTF-8''%E2%82%AC%20rates.txt"
        XCTAssertEqual(try runSwurl(["-d", try HTTPBin.url("/response-headers?Content-Disposition=" + cd.urlQueryEscaped)],
                                    directory: dir).status, 0)
        XCTAssertEqual(files(dir), ["€ rates.txt"])
    }

    /// A `filename` in ISO-8859-1 (HTTP's old charset for field values) keeps its letter:
    /// `café.txt`, not `caf\u{FFFD}.txt`; `-h` shows such a value as the same letters.
    func testALatin1FilenameKeepsItsLetters() throws {
        let hostile = try HostileServer()
        let dir = TestPaths.temporaryDirectory()
        let r = try runSwurl(["-d", hostile.url("/latin1-name")], directory: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(files(dir), ["caf\u{E9}.txt"])
        XCTAssertEqual(try String(contentsOfFile: dir + "/caf\u{E9}.txt", encoding: .utf8), "latin\n")
        let shown = try runSwurl(["-h", hostile.url("/latin1-name")])
        XCTAssertTrue(shown.text.contains("X-Latin: gr\u{FC}\u{DF}e"), shown.text)
    }

    func testMaliciousContentDispositionCannotEscapeTheDirectoryOrHideAFile() throws {
        let parent = TestPaths.temporaryDirectory()
        let dir = parent + "/inner"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for (cd, expected) in [("attachment; filename=\"../../escape.sh\"", "escape.sh"),
                               ("attachment; filename=\".bashrc\"", "bashrc"),
                               ("attachment; filename=\"..\"", "response-headers")] {
            try? FileManager.default.removeItem(atPath: dir)
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            let r = try runSwurl(["-d", try HTTPBin.url("/response-headers?Content-Disposition=" + cd.urlQueryEscaped)], directory: dir)
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(files(dir).first?.hasPrefix(expected) == true, "\(cd) → \(files(dir))")
            XCTAssertEqual(files(parent), ["inner"], cd)
        }
    }

    /// Regression (issue 17): a space between leading dots survived sanitizing, so a server could
    /// choose `.bashrc`, `.gitconfig`, `.` or `..` as the name (both Content-Disposition forms,
    /// and URL names alike). Bidirectional controls are dropped too.
    func testDotsAndSpacesInAnyOrderNeverMakeAHiddenFile() throws {
        let cases: [(String, String)] = [
            ("attachment; filename=\". .bashrc\"", "bashrc"),
            ("attachment; filename*=UTF-8''.%20.gitconfig", "gitconfig"),
            ("attachment; filename=\". ..\"", "response-headers.json"),
            ("attachment; filename=\" . . \"", "response-headers.json"),
            ("attachment; filename*=UTF-8''invoice%E2%80%AEfdp.exe", "invoicefdp.exe"),
        ]
        for (cd, expected) in cases {
            let dir = TestPaths.temporaryDirectory()
            let r = try runSwurl(["-d", try HTTPBin.url("/response-headers?Content-Disposition=" + cd.urlQueryEscaped)], directory: dir)
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(files(dir), [expected], cd)
            let body = FileManager.default.contents(atPath: dir + "/" + expected) ?? Data()
            XCTAssertTrue(String(decoding: body, as: UTF8.self).contains("Content-Disposition"), cd)
        }
        let dir = TestPaths.temporaryDirectory()
        let r = try runSwurl(["-d", try HTTPBin.url("/anything/.%20.profile")], directory: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(files(dir), ["profile.json"])
    }

    func testTheNameNeverComesFromARedirectTarget() throws {
        let dir = TestPaths.temporaryDirectory()
        let r = try runSwurl(["-d", try HTTPBin.url("/redirect-to?url=" + "/anything/.bashrc".urlQueryEscaped)], directory: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(files(dir), ["redirect-to.json"])
    }

    func testAnErrorStatusWritesNoFile() throws {
        let dir = TestPaths.temporaryDirectory()
        let r = try runSwurl(["-d", try HTTPBin.url("/status/404")], directory: dir)
        XCTAssertEqual(r.status, 4)
        XCTAssertTrue(r.stderr.contains("404"), r.stderr)
        XCTAssertEqual(files(dir), [])
        XCTAssertEqual(try runSwurl(["-d", try HTTPBin.url("/status/503")], directory: dir).status, 5)
        XCTAssertEqual(files(dir), [])
    }

    func testACutDownloadKeepsThePartFileAndResumesByteIdentical() throws {
        let server = try ScriptedServer()
        let dir = TestPaths.temporaryDirectory()
        let expected = ScriptedServer.fileBytes(size: 200_000, seed: 9)
        let cut = try runSwurl(["-d", "-o", "big.bin", server.url("/file?size=200000&seed=9&cut=80000&key=a")], directory: dir)
        XCTAssertEqual(cut.status, 1, cut.stderr)
        XCTAssertEqual(files(dir), ["big.bin.part"], "no finished-looking file after a cut")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/big.bin.part")), expected.prefix(80_000))

        let resumed = try runSwurl(["-d", "-c", "-o", "big.bin", server.url("/file?size=200000&seed=9")], directory: dir)
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        XCTAssertEqual(files(dir), ["big.bin"])
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/big.bin")), expected)
        let last = server.requests().last?["headers"] as? [String: String]
        XCTAssertEqual(last?["Range"], "bytes=80000-")
    }

    /// A `.part` an earlier download left was cut back to nothing by a download without -c,
    /// without a word (a large one too): said, with -c as the way to resume it; -c says nothing.
    func testAPartFileStartedOverWithoutContinueIsNoted() throws {
        let dir = TestPaths.temporaryDirectory()
        try Data(repeating: 7, count: 5000).write(to: URL(fileURLWithPath: dir + "/y.bin.part"))
        let r = try runSwurl(["-d", "-o", "y.bin", try HTTPBin.url("/bytes/100")], directory: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("'\(dir)/y.bin.part' (5000 bytes) left by an earlier download was started over; --continue (-c) resumes such a file"), r.stderr)
        XCTAssertEqual(files(dir), ["y.bin"])
        let fresh = try runSwurl(["-d", "-o", "z.bin", try HTTPBin.url("/bytes/100")], directory: dir)
        XCTAssertFalse(fresh.stderr.contains("started over"), fresh.stderr)
        let quiet = try runSwurl(["-q", "-d", "-o", "q.bin", try HTTPBin.url("/bytes/100")], directory: dir)
        XCTAssertEqual(quiet.stderr, "")
        // A name from the response whose `.part` an earlier download left: the next free name,
        // and a note naming the earlier `.part` and how to resume it (the new name was taken
        // without a word, and the earlier `.part` left for good).
        try Data(repeating: 7, count: 3000).write(to: URL(fileURLWithPath: dir + "/100.part"))
        let derived = try runSwurl(["-d", try HTTPBin.url("/bytes/100")], directory: dir)
        XCTAssertEqual(derived.status, 0, derived.stderr)
        XCTAssertTrue(derived.stderr.contains("note: '\(dir)/100.part' (3000 bytes) is left by an earlier download, so this one is saved as '\(dir)/100-1'; -c -o '\(dir)/100' resumes the earlier one"),
                      derived.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/100.part")).count, 3000)
    }

    /// The `.part` is private while it grows (it was 0666 less the umask, readable by all while
    /// `--overwrite` replaced a 0600 file); the finished file gets 0666 less the umask, or the
    /// mode of the file it replaces.
    func testThePartFileIsPrivateUntilItIsTheFile() throws {
        let server = try ScriptedServer()
        let dir = TestPaths.temporaryDirectory()
        let cut = try runSwurl(["-d", "-o", "f.bin", server.url("/file?size=20000&seed=3&cut=5000&key=m")], directory: dir)
        XCTAssertEqual(cut.status, 1, cut.stderr)
        XCTAssertEqual(try mode(dir + "/f.bin.part"), 0o600)
        let resumed = try runSwurl(["-d", "-c", "-o", "f.bin", server.url("/file?size=20000&seed=3")], directory: dir)
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        let mask = umask(0)
        umask(mask)
        XCTAssertEqual(try mode(dir + "/f.bin"), 0o666 & ~Int(mask))
    }

    private func mode(_ path: String) throws -> Int {
        try XCTUnwrap((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue)
    }

    /// A server that ignores If-Range and answers 206 with the rest of another version (another
    /// ETag) had its bytes appended to the old version's: refused, the `.part` kept as it was.
    func testA206OfAnotherVersionIsNotAppended() throws {
        let server = try ScriptedServer()
        let dir = TestPaths.temporaryDirectory()
        let cut = try runSwurl(["-d", "-o", "v.bin", server.url("/file?size=20000&seed=1&cut=4000&key=v&etag=%22e1%22")], directory: dir)
        XCTAssertEqual(cut.status, 1, cut.stderr)
        let other = try runSwurl(["-d", "-c", "-o", "v.bin", server.url("/file?size=20000&seed=2&etag=%22e2%22")], directory: dir)
        XCTAssertNotEqual(other.status, 0, other.stderr)
        XCTAssertTrue(other.stderr.contains("another version of the file (ETag \"e2\""), other.stderr)
        XCTAssertEqual(files(dir), ["v.bin.part"])
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/v.bin.part")), ScriptedServer.fileBytes(size: 20000, seed: 1).prefix(4000))
        // The same version resumes.
        let same = try runSwurl(["-d", "-c", "-o", "v.bin", server.url("/file?size=20000&seed=1&etag=%22e1%22")], directory: dir)
        XCTAssertEqual(same.status, 0, same.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/v.bin")), ScriptedServer.fileBytes(size: 20000, seed: 1))
    }

    /// In a directory with the sticky bit (/tmp), another user's `NAME.part` is theirs to read and
    /// change: root wrote the download into it (and renamed it, still theirs, to NAME).
    func testRootNeverWritesIntoAnotherUsersPartFile() throws {
        guard geteuid() == 0 else { throw XCTSkip("needs root: another user's file in a sticky directory") }
        let server = try ScriptedServer()
        let dir = "/tmp/swurl-sticky-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o1777])
        addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
        try "planted".write(toFile: dir + "/out.part", atomically: false, encoding: .utf8)
        XCTAssertEqual(chown(dir + "/out.part", 65534, 65534), 0)
        for args in [["-d", "-o", dir + "/out"], ["-d", "-c", "-o", dir + "/out"]] {
            let r = try runSwurl(args + [server.url("/file?size=100&seed=1")])
            XCTAssertEqual(r.status, 1, r.stderr)
            XCTAssertTrue(r.stderr.contains("it is another user's file in a directory with the sticky bit"), r.stderr)
            XCTAssertFalse(r.stderr.contains("resume it"), r.stderr)
            XCTAssertEqual(try String(contentsOfFile: dir + "/out.part", encoding: .utf8), "planted")
            XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/out"))
        }
        XCTAssertEqual(server.requests().count, 0, "refused before the request went")
    }

    /// A name the terminal cannot show as it is: the resume hint quotes its bytes as `$'…'`, so
    /// that pasting it resumes the same file. Not UTF-8 (`-o $'n\xff.bin'`): it printed U+FFFD,
    /// another name, and the notes show the byte as \xFF. A line break: it was written in single
    /// quotes, which the terminal's sanitizing then showed with an escape.
    func testTheResumeHintKeepsANameTheTerminalCannotShow() throws {
        let server = try ScriptedServer()
        // (the name in bash's $'…', how the hint writes it)
        for (seed, shell, hinted) in [(5, "n\\xff.bin", "n\\xff.bin"), (6, "n\\nl.bin", "n\\x0al.bin")] {
            let dir = TestPaths.temporaryDirectory()
            let url = server.url("/file?size=50000&seed=\(seed)&cut=20000&key=n\(seed)")
            let cut = try runProcess("/bin/bash", ["-c", "cd \"$1\" && \"$0\" -d -o $'\(shell)' \"$2\"", TestPaths.binary, dir, url],
                                     check: false)
            XCTAssertEqual(cut.status, 1, cut.stderr)
            if seed == 5 { XCTAssertTrue(cut.stderr.contains("kept in '\(dir)/n\\xFF.bin.part'"), cut.stderr) }
            let marker = "resume it with --continue: "
            let hint = try XCTUnwrap(cut.stderr.components(separatedBy: "\n").first { $0.contains(marker) }?.components(separatedBy: marker).last)
            XCTAssertTrue(hint.contains("-o $'\(dir)/\(hinted)'"), hint)
            // The hint, pasted into a shell (swurl being the binary under test), finishes the file.
            let resumed = try runProcess("/bin/bash", ["-c", "swurl() { \"$0\" \"$@\"; }; " + hint, TestPaths.binary], check: false)
            XCTAssertEqual(resumed.status, 0, resumed.stderr)
            let names = try FileManager.default.contentsOfDirectory(atPath: dir)
            XCTAssertEqual(names.count, 1, "\(names)")
            let saved = try runProcess("/bin/bash", ["-c", "cat -- \"$0\"/$'\(shell)'", dir])
            XCTAssertEqual(saved.stdout, ScriptedServer.fileBytes(size: 50_000, seed: seed), shell)
        }
    }

    func testADownloadAsksForTheStoredBytesUnlessTheHeaderIsRemoved() throws {
        // A download asks for identity (its ranges refer to the stored bytes), even over a
        // header item; a request asks for what libcurl decodes.
        let server = try ScriptedServer()
        let dir = TestPaths.temporaryDirectory()
        func sent(_ args: [String]) throws -> String? {
            let r = try runSwurl(args, directory: dir)
            XCTAssertEqual(r.status, 0, r.stderr)
            return (server.requests().last?["headers"] as? [String: String])?["Accept-Encoding"]
        }
        let url = server.url("/file?size=1000&seed=3")
        XCTAssertEqual(try sent(["-d", "-o", "a.bin", url]), "identity")
        XCTAssertEqual(try sent(["-d", "-o", "b.bin", url, "Accept-Encoding:gzip"]), "identity")
        XCTAssertNil(try sent(["-d", "-o", "c.bin", url, "Accept-Encoding:"]))
        let request = try sent(["-o", "d.bin", url])
        XCTAssertNotEqual(request, "identity")
        XCTAssertEqual(request?.contains("gzip"), true, request ?? "none")
    }

    func testContinueWithoutOutputFindsThePartFileByTheURLName() throws {
        let server = try ScriptedServer()
        let dir = TestPaths.temporaryDirectory()
        let expected = ScriptedServer.fileBytes(size: 50_000, seed: 4)
        XCTAssertEqual(try runSwurl(["-d", server.url("/file?size=50000&seed=4&cut=20000&key=b")], directory: dir).status, 1)
        XCTAssertEqual(files(dir), ["file.part"])
        // The same URL (the server cuts only once per key): another URL's .part without a validator
        // is not taken (its bytes could be another resource's).
        let other = try runSwurl(["-d", "-c", server.url("/file?size=50000&seed=5")], directory: dir)
        XCTAssertEqual(other.status, 0, other.stderr)
        XCTAssertEqual(files(dir), ["file-1", "file.part"], "a new download beside the other URL's .part")
        XCTAssertTrue(other.stderr.contains("so it is not resumed; to resume it: swurl -d -c -o \(dir)/file URL"), other.stderr)
        try FileManager.default.removeItem(atPath: dir + "/file-1")
        let r = try runSwurl(["-d", "-c", server.url("/file?size=50000&seed=4&cut=20000&key=b")], directory: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/file")), expected)
        // Run again once it is complete: a finished file keeps no URL, so a copy is made, and a
        // note names the command that finds the file complete instead.
        let again = try runSwurl(["-d", "-c", server.url("/file?size=50000&seed=4")], directory: dir)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stderr.contains("'\(dir)/file' is there but is no partial download of this URL, so the download gets a new name; "
                                            + "to resume it or find it complete: swurl -d -c -o \(dir)/file URL"), again.stderr)
        let complete = try runSwurl(["-d", "-c", "-o", "file", server.url("/file?size=50000&seed=4")], directory: dir)
        XCTAssertEqual(complete.status, 0, complete.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/file")), expected)
    }

    /// The note on `-d -c` run again finds a file whose extension the Content-Type gave it
    /// (`/json` saved as `json.json`), as `--continue` finds such a `.part`.
    func testTheNoteOnARepeatedContinueFindsANameTheContentTypeExtended() throws {
        let dir = TestPaths.temporaryDirectory()
        let url = try HTTPBin.url("/json")
        XCTAssertEqual(try runSwurl(["-d", url], directory: dir).status, 0)
        let again = try runSwurl(["-d", "-c", url], directory: dir)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stderr.contains("'\(dir)/json.json' is there but is no partial download of this URL"), again.stderr)
    }

    func testAServerIgnoringRangeMakesTheDownloadStartOver() throws {
        let server = try ScriptedServer()
        let dir = TestPaths.temporaryDirectory()
        let expected = ScriptedServer.fileBytes(size: 30_000, seed: 5)
        try Data(repeating: 0xEE, count: 10_000).write(to: URL(fileURLWithPath: dir + "/f.bin.part"))
        let r = try runSwurl(["-d", "-c", "-o", "f.bin", server.url("/file?size=30000&seed=5&ignore_range=1")], directory: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("ignored the range"), r.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/f.bin")), expected)
    }

    func testACompletePartFileIsRecognisedFromA416() throws {
        let server = try ScriptedServer()
        let dir = TestPaths.temporaryDirectory()
        let expected = ScriptedServer.fileBytes(size: 5_000, seed: 6)
        try expected.write(to: URL(fileURLWithPath: dir + "/g.bin.part"))
        let r = try runSwurl(["-d", "-c", "-o", "g.bin", server.url("/file?size=5000&seed=6")], directory: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/g.bin")), expected)
    }

    func testRetryAfterACutResumesWithARange() throws {
        let server = try ScriptedServer()
        let dir = TestPaths.temporaryDirectory()
        let expected = ScriptedServer.fileBytes(size: 60_000, seed: 7)
        let r = try runSwurl(["-d", "-o", "h.bin", "--retry", "2", "--retry-delay", "0.05",
                              server.url("/file?size=60000&seed=7&cut=25000&key=c")], directory: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/h.bin")), expected)
        XCTAssertEqual((server.requests().last?["headers"] as? [String: String])?["Range"], "bytes=25000-")
        XCTAssertTrue(r.stderr.contains("retrying"), r.stderr)
    }

    /// Without validators, a retry's range of a file of another size than the first attempt
    /// announced is the rest of another version: refused, the bytes of the first kept in the
    /// .part, never joined to the other's into a file saved as complete.
    func testARetryNeverJoinsTwoVersionsOfAFileWithoutValidators() throws {
        let server = try ScriptedServer()
        let dir = TestPaths.temporaryDirectory()
        let r = try runSwurl(["-d", "-o", "v.bin", "--retry", "2", "--retry-delay", "0.05",
                              server.url("/file?size=100000&seed=3&cut=30000&key=v&later=200000")], directory: dir)
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("changed on the server between attempts"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/v.bin"))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/v.bin.part")), ScriptedServer.fileBytes(size: 100_000, seed: 3).prefix(30_000))
    }

    func testAPipeOrDeviceAsOutputIsWrittenInPlaceNeverReplaced() throws {
        for extra in [["-d"], []] {
            let dir = TestPaths.temporaryDirectory()
            let fifo = dir + "/fifo"
            XCTAssertEqual(mkfifo(fifo, 0o600), 0)
            let reader = Process()
            reader.executableURL = URL(fileURLWithPath: "/bin/sh")
            reader.arguments = ["-c", "cat fifo > received"]
            reader.currentDirectoryURL = URL(fileURLWithPath: dir)
            try reader.run()
            let r = try runSwurl(extra + ["-o", "fifo", try HTTPBin.url("/bytes/2000?seed=2")], directory: dir)
            waitForExit(reader)
            XCTAssertEqual(r.status, 0, r.stderr)
            var st = stat()
            XCTAssertEqual(lstat(fifo, &st), 0)
            XCTAssertEqual(st.st_mode & S_IFMT, S_IFIFO, "\(extra): the FIFO is still a FIFO")
            XCTAssertEqual((try? Data(contentsOf: URL(fileURLWithPath: dir + "/received")))?.count, 2000, "\(extra)")
            XCTAssertEqual(files(dir), ["fifo", "received"])
        }
    }

    func testCtrlCExits130AndKeepsAResumablePartFile() throws {
        let server = try ScriptedServer()
        let dir = TestPaths.temporaryDirectory()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: TestPaths.binary)
        p.arguments = ["-d", "-o", "slow.bin", server.url("/slow?size=200000")]
        p.currentDirectoryURL = URL(fileURLWithPath: dir)
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        let deadline = Date().addingTimeInterval(10)
        while (try? FileManager.default.attributesOfItem(atPath: dir + "/slow.bin.part")[.size] as? Int).flatMap({ $0 }) ?? 0 < 2000,
              Date() < deadline {
            usleep(20_000)
        }
        kill(p.processIdentifier, SIGINT)
        waitForExit(p)
        XCTAssertEqual(endingSignal(p), SIGINT, "ended by SIGINT (130 in a shell)")
        XCTAssertEqual(files(dir), ["slow.bin.part"])
    }

    /// Regression: a `.part` named by the server (Content-Disposition) was not found by
    /// `-d -c URL` though the same URL left it: the download started over under NAME-1.
    func testContinueFindsAPartTheServerNamed() throws {
        let server = try ScriptedServer()
        let dir = TestPaths.temporaryDirectory()
        let url = server.url("/file?size=1000&seed=9&name=report.bin&cut=300&key=cdname&etag=%22v9%22")
        let cut = try runSwurl(["-d", url], directory: dir)
        XCTAssertNotEqual(cut.status, 0, cut.stderr)
        XCTAssertEqual(files(dir), ["report.bin.part"])
        let resumed = try runSwurl(["-d", "-c", url], directory: dir)
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        XCTAssertEqual(files(dir), ["report.bin"])
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/report.bin")), ScriptedServer.fileBytes(size: 1000, seed: 9))
        XCTAssertEqual((server.requests().last?["headers"] as? [String: String])?["Range"], "bytes=300-")
    }

    /// A resumed download asks with If-Range (the validator of the bytes on disk, kept with the
    /// .part): a file that changed on the server comes whole instead of its tail being spliced
    /// onto the old bytes; --max-filesize counts the bytes on disk too, and refuses an announced
    /// size over it before writing anything.
    func testResumingNeverSplicesTwoVersionsOrTwoResources() throws {
        let nginx = try NginxServer()
        let old = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0) })
        let new = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) })
        try old.write(to: URL(fileURLWithPath: nginx.root + "/f.bin"))
        let dir = TestPaths.temporaryDirectory()
        let cut = try runSwurl(["-d", "--max-filesize", "100K", nginx.url("/f.bin")], directory: dir)
        XCTAssertEqual(cut.status, 8, cut.stderr)
        XCTAssertFalse(cut.stderr.contains("after decoding"), "a download is counted as received: \(cut.stderr)")
        // Announced over the limit: refused before a byte is written (no .part to resume).
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/f.bin.part"))
        // A .part as a cut leaves it: the first 100,000 bytes, its validator kept with it.
        let first = try runSwurl(["-d", nginx.url("/f.bin"), "-o", "f.bin"], directory: dir)
        XCTAssertEqual(first.status, 0, first.stderr)
        let part = dir + "/f.bin.part"
        try FileManager.default.moveItem(atPath: dir + "/f.bin", toPath: part)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: part))
        try handle.truncate(atOffset: 100_000)
        try handle.close()
        // swurl's own .part carries the ETag; this hand-made one is given the one it had.
        let head = String(decoding: try runProcess("/usr/bin/curl", ["-sI", nginx.url("/f.bin")]).stdout, as: UTF8.self)
        let etag = try XCTUnwrap(head.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix("etag:") }?.dropFirst(5)
            .trimmingCharacters(in: .whitespaces))
        _ = try runProcess("/usr/bin/python3", ["-c", "import os, sys; os.setxattr(sys.argv[1], 'user.swurl.validator', sys.argv[2].encode())",
                                                part, etag])
        usleep(1_100_000)   // a new Last-Modified second, so nginx's ETag changes
        try new.write(to: URL(fileURLWithPath: nginx.root + "/f.bin"))
        let resumed = try runSwurl(["-d", "-c", nginx.url("/f.bin"), "-o", "f.bin"], directory: dir)
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/f.bin")), new, "the new file, whole")
        XCTAssertTrue(resumed.stderr.contains("changed on the server"), resumed.stderr)
        // --max-filesize judges the whole file, what is on disk included.
        try Data(new.prefix(100_000)).write(to: URL(fileURLWithPath: dir + "/g.bin.part"))
        try new.write(to: URL(fileURLWithPath: nginx.root + "/g.bin"))
        let limited = try runSwurl(["-d", "-c", "--max-filesize", "150K", nginx.url("/g.bin"), "-o", "g.bin"], directory: dir)
        XCTAssertEqual(limited.status, 8, limited.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/g.bin"))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/g.bin.part")).count, 100_000, "the .part is kept whole")
        // The same command would stop at the same limit: the note says to raise it.
        XCTAssertTrue(limited.stderr.contains("resume it with the same command, --continue (-c) and a larger --max-filesize"), limited.stderr)
        // A .part that is already the whole file (the server answers 416 with its size) is judged
        // as that file: over the limit, it is refused and kept as it is.
        try new.write(to: URL(fileURLWithPath: dir + "/g.bin.part"))
        let complete = try runSwurl(["-d", "-c", "--max-filesize", "150K", nginx.url("/g.bin"), "-o", "g.bin"], directory: dir)
        XCTAssertEqual(complete.status, 8, complete.stderr)
        XCTAssertTrue(complete.stderr.contains("the file, already whole on disk (200000 bytes), is larger than --max-filesize"), complete.stderr)
        XCTAssertFalse(complete.stderr.contains("resume it with --continue"), "a whole file is no partial one: \(complete.stderr)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/g.bin"))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/g.bin.part")), new, "the .part is kept whole")
        // A 416 that does not name the size on disk (the .part is longer than the file) says
        // nothing of the file's size: the 416 is the answer, as without the limit.
        try (new + Data(count: 50_000)).write(to: URL(fileURLWithPath: dir + "/g.bin.part"))
        let longer = try runSwurl(["-d", "-c", "--max-filesize", "150K", nginx.url("/g.bin"), "-o", "g.bin"], directory: dir)
        XCTAssertEqual(longer.status, 4, longer.stderr)
        XCTAssertFalse(longer.stderr.contains("already on disk"), longer.stderr)
        // The 416 is explained: the file on disk is longer than the server's.
        XCTAssertTrue(longer.stderr.contains("swurl: hint: the file on disk (250000 bytes) is larger than the server's (200000 bytes): it is no partial copy of this URL"), longer.stderr)
        // ...and not offered for resuming, which would fail the same way.
        XCTAssertFalse(longer.stderr.contains("resume it with --continue"), longer.stderr)
        let again = try runSwurl(["-d", "-c", nginx.url("/g.bin"), "-o", "g.bin"], directory: dir)
        XCTAssertEqual(again.status, 4, again.stderr)
        XCTAssertFalse(again.stderr.contains("resume it with --continue"), again.stderr)
        try new.write(to: URL(fileURLWithPath: dir + "/g.bin.part"))
        let within = try runSwurl(["-d", "-c", "--max-filesize", "300K", nginx.url("/g.bin"), "-o", "g.bin"], directory: dir)
        XCTAssertEqual(within.status, 0, within.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/g.bin")), new)
        // A range the user asked for is not a file on disk: its start does not count.
        let ranged = try runSwurl(["--max-filesize", "1000", nginx.url("/g.bin"), "Range:bytes=199500-", "-o", dir + "/tail.bin"])
        XCTAssertEqual(ranged.status, 0, ranged.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/tail.bin")).count, 500)
    }
}

extension String {
    /// Percent-escapes everything but unreserved characters, for a query value.
    var urlQueryEscaped: String {
        addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")) ?? self
    }

}
