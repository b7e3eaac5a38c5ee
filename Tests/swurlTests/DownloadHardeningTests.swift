import XCTest
import Foundation
import SwurlTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Regression tests for what a hostile or broken server (or an unlucky file system layout) could
/// do to `--download` and `--retry`: crashes from server-chosen numbers, error pages in `.part`
/// files, writes through symbolic links, a resumed FILE that disappears, a silent `-k`.
final class DownloadHardeningTests: XCTestCase {
    private func files(_ dir: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
    }

    private func contents(_ path: String) -> Data? {
        try? Data(contentsOf: URL(fileURLWithPath: path))
    }

    private static let html = Data("<html><body><h1>Not Found</h1></body></html>".utf8)

    /// 200 announcing `size` bytes of `A` but sending only `sent` before the connection drops.
    private static func cut(_ sent: Int, of size: Int) -> SequenceServer.Reply {
        SequenceServer.Reply("200 OK", ["Content-Type: application/octet-stream", "Content-Length: \(size)"],
                             body: Data(repeating: UInt8(ascii: "A"), count: sent))
    }

    /// `swurl -d -c -o f.bin` with `AAAAA` in `f.bin.part`, answered by `reply`.
    private func resume(_ reply: SequenceServer.Reply, extra: [String] = []) throws -> (result: SwurlResult, dir: String, server: SequenceServer) {
        let server = try SequenceServer([reply])
        let dir = TestPaths.temporaryDirectory()
        try Data("AAAAA".utf8).write(to: URL(fileURLWithPath: dir + "/f.bin.part"))
        return (try runSwurl(["-d", "-c"] + extra + ["-o", "f.bin", server.url("/f.bin")], directory: dir), dir, server)
    }

    private static func page(_ status: String, _ extra: [String] = []) -> SequenceServer.Reply {
        SequenceServer.Reply(status, ["Content-Type: text/html", "Content-Length: \(html.count)"] + extra, body: html)
    }

    /// Runs `swurl ARGS` in `dir` against a `/file…&hold=H` URL: `meanwhile` runs once the
    /// server has the request (and swurl has looked at the files), then the server answers.
    /// With `midBody`, the server holds after the head and half the body instead (`midhold=H`),
    /// and the hold's files are kept out of `dir` (`meanwhile` may lock it).
    private func whileTheRequestIsOut(_ args: [String], url: String, dir: String, midBody: Bool = false,
                                      meanwhile: () throws -> Void) throws -> (status: Int32, stderr: String) {
        let hold = (midBody ? TestPaths.temporaryDirectory() : dir) + "/hold"
        let r = try runSwurlWhileHeld(args + [url + (midBody ? "&midhold=" : "&hold=") + hold], hold: hold, directory: dir) {
            // Mid-body: once swurl has read the head and opened its `.part` (the server's bytes
            // may still wait in the socket on a loaded machine, and `meanwhile` may lock the
            // directory).
            func partOpened() -> Bool { ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).contains { $0.hasSuffix(".part") } }
            let deadline = Date().addingTimeInterval(30)
            while midBody, !partOpened(), Date() < deadline { usleep(20_000) }
            try meanwhile()
        }
        try? FileManager.default.removeItem(atPath: hold)
        try? FileManager.default.removeItem(atPath: hold + ".got")
        return (r.status, r.stderr)
    }

    /// Regression: `-c` read the `.part`'s size, asked for the rest, and wrote the rest into a
    /// new `.part` when the old one had gone meanwhile (removed, or finished and renamed by
    /// another run): the file's tail alone was saved as the whole file, exit 0, replacing a
    /// complete copy. A `.part` of another size was appended to all the same.
    func testAResumedPartThatWentAwayOrChangedMeanwhileIsNotWrittenTo() throws {
        let server = try ScriptedServer()
        let url = server.url("/file?size=1000&seed=4")
        let start = ScriptedServer.fileBytes(size: 1000, seed: 4).prefix(400)
        let gone = TestPaths.temporaryDirectory()
        try start.write(to: URL(fileURLWithPath: gone + "/g.part"))
        let r = try whileTheRequestIsOut(["-d", "-c", "-o", "g"], url: url, dir: gone) {
            try FileManager.default.removeItem(atPath: gone + "/g.part")
        }
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("g.part' went away while the request was out"), r.stderr)
        XCTAssertEqual(files(gone), [])
        let changed = TestPaths.temporaryDirectory()
        try start.write(to: URL(fileURLWithPath: changed + "/g.part"))
        let grown = start + Data(repeating: 0x41, count: 100)
        let c = try whileTheRequestIsOut(["-d", "-c", "-o", "g"], url: url, dir: changed) {
            try grown.write(to: URL(fileURLWithPath: changed + "/g.part"))
        }
        XCTAssertEqual(c.status, 1, c.stderr)
        XCTAssertTrue(c.stderr.contains("g.part' changed while the request was out (400 bytes then, 500 now"), c.stderr)
        XCTAssertEqual(files(changed), ["g.part"])
        XCTAssertEqual(contents(changed + "/g.part"), grown)
        XCTAssertEqual(server.requests().compactMap { ($0["headers"] as? [String: String])?["Range"] }, ["bytes=400-", "bytes=400-"])
    }

    /// Regression: `-o FILE` checked that FILE was not there when it began, and replaced one that
    /// appeared while the body came (another run's, the user's). It is kept; the download stays
    /// in FILE.part.
    func testAnOutputFileThatAppearedMeanwhileIsNotReplaced() throws {
        let server = try ScriptedServer()
        let dir = TestPaths.temporaryDirectory()
        let r = try whileTheRequestIsOut(["-d", "-o", "t"], url: server.url("/file?size=1000&seed=5"), dir: dir) {
            try Data("precious".utf8).write(to: URL(fileURLWithPath: dir + "/t"))
        }
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("t' appeared while the download ran and was not replaced"), r.stderr)
        XCTAssertEqual(contents(dir + "/t"), Data("precious".utf8))
        XCTAssertEqual(contents(dir + "/t.part"), ScriptedServer.fileBytes(size: 1000, seed: 5))
        // With --overwrite it is replaced, as asked.
        let o = try whileTheRequestIsOut(["-d", "--overwrite", "-o", "t2"], url: server.url("/file?size=1000&seed=5"), dir: dir) {
            try Data("old".utf8).write(to: URL(fileURLWithPath: dir + "/t2"))
        }
        XCTAssertEqual(o.status, 0, o.stderr)
        XCTAssertEqual(contents(dir + "/t2"), ScriptedServer.fileBytes(size: 1000, seed: 5))
    }

    /// Regression: the `.part` is renamed by its name at the end; one replaced while the body came
    /// (another file moved over it) was saved as FILE, exit 0 and "saved (1000 bytes)", holding
    /// the other file's bytes; one removed (a second run started over under the name) gave the
    /// second run's partial file the name. Either is an error now, and nothing is renamed.
    func testAPartReplacedOrRemovedWhileTheBodyCameIsNotSaved() throws {
        let server = try ScriptedServer()
        let url = server.url("/file?size=1000&seed=6")
        let replaced = TestPaths.temporaryDirectory()
        let r = try whileTheRequestIsOut(["-d", "-o", "r"], url: url, dir: replaced, midBody: true) {
            try Data("IMPOSTER".utf8).write(to: URL(fileURLWithPath: replaced + "/other"))
            XCTAssertEqual(rename(replaced + "/other", replaced + "/r.part"), 0)
        }
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("r.part' was removed or replaced while the download ran"), r.stderr)
        XCTAssertEqual(files(replaced), ["r.part"])
        XCTAssertEqual(contents(replaced + "/r.part"), Data("IMPOSTER".utf8))
        let removed = TestPaths.temporaryDirectory()
        let g = try whileTheRequestIsOut(["-d", "-o", "g"], url: url, dir: removed, midBody: true) {
            try FileManager.default.removeItem(atPath: removed + "/g.part")
        }
        XCTAssertEqual(g.status, 1, g.stderr)
        XCTAssertTrue(g.stderr.contains("g.part' was removed or replaced while the download ran"), g.stderr)
        XCTAssertFalse(g.stderr.contains("kept as"), g.stderr)
        XCTAssertEqual(files(removed), [])
    }

    /// Regression: a resume the server answered from the start (it ignored the range) whose
    /// response then failed its verdict left a `.part` cut back to the old length but holding the
    /// new body's bytes (or zeros after them), after "nothing was saved".
    func testAStartOverThatFailsItsVerdictLeavesNoPart() throws {
        let server = try ScriptedServer()
        for (name, inPlace) in [("k", false), ("k2", true)] {
            let dir = TestPaths.temporaryDirectory()
            let old = Data(repeating: 0x51, count: inPlace ? 3000 : 300)
            try old.write(to: URL(fileURLWithPath: dir + "/" + name + (inPlace ? "" : ".part")))
            let r = try runSwurl(["-d", "-c", "-o", name, "--accept-type", "application/json", server.url("/file?size=1000&ignore_range=1")],
                                 directory: dir)
            XCTAssertEqual(r.status, 8, r.stderr)
            XCTAssertTrue(r.stderr.contains("nothing was saved"), r.stderr)
            // A file resumed in place is as it was; the .part that was rewritten is gone.
            XCTAssertEqual(files(dir), inPlace ? [name] : [], r.stderr)
            if inPlace { XCTAssertEqual(contents(dir + "/" + name), old) }
        }
    }

    // MARK: Retry-After

    /// `-d` without `-o` in a directory the user cannot write: refused before sending, as `-o`
    /// is (the POST went out, then the .part could not be made and its answer was lost).
    func testADownloadIntoADirectoryThatCannotBeWrittenIsRefusedBeforeSending() throws {
        guard geteuid() == 0 else { throw TestServerError("this test runs as root, to run swurl as another user (make test does)") }
        let capture = try CaptureServer()
        // Where the other user can reach it (the test's own directories may be private): the
        // binary copied beside a directory only root can write.
        let base = "/tmp/swurl-readonly-\(UUID().uuidString)", dir = base + "/readonly"
        defer { try? FileManager.default.removeItem(atPath: base) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        XCTAssertEqual(chmod(base, 0o755), 0)
        try FileManager.default.copyItem(atPath: TestPaths.binary, toPath: base + "/swurl")
        XCTAssertEqual(chmod(base + "/swurl", 0o755), 0)
        let r = try runProcess("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", base + "/swurl",
                                                   "-d", "POST", capture.base + "/post", "a=1"], directory: dir, check: false)
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("cannot write a download into '\(dir)': Permission denied"), r.stderr)
        try capture.sync()
        XCTAssertEqual(capture.capturedAll.count, 0, "nothing was sent")
    }

    /// Regression: `-d` in a working directory another had removed sent the POST, then could not
    /// make its `.part` (access(2) still allows a deleted directory). Refused before sending.
    func testADownloadInADeletedWorkingDirectoryIsRefusedBeforeSending() throws {
        let capture = try CaptureServer()
        let base = TestPaths.temporaryDirectory()
        let r = try runProcess("/bin/sh", ["-c", "mkdir gone && cd gone && rmdir ../gone && exec \"$0\" -d POST \"$1\" a=1",
                                           TestPaths.binary, capture.base + "/post"], directory: base, check: false)
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("cannot write a download into '.': the directory was deleted"), r.stderr)
        try capture.sync()
        XCTAssertEqual(capture.capturedAll.count, 0, "nothing was sent")
    }

    /// `-d -o nodir/x` names the missing directory as `-o nodir/x` does (it said "cannot write
    /// 'nodir/x.part': No such file or directory"), before sending.
    func testADownloadIntoAMissingDirectoryNamesTheDirectory() throws {
        let capture = try CaptureServer()
        let base = TestPaths.temporaryDirectory()
        let r = try runSwurl(["-d", "-o", base + "/nodir/x", "POST", capture.base + "/post", "a=1"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("cannot write '\(base)/nodir/x.part': the directory '\(base)/nodir' does not exist"), r.stderr)
        try capture.sync()
        XCTAssertEqual(capture.capturedAll.count, 0, "nothing was sent")
    }

    /// Starts swurl, waits until it announces its retry, and interrupts it: the announced wait
    /// must be capped, and swurl must still be alive (not trapped) to end by the SIGINT (130).
    func testAHugeRetryAfterIsCappedAndNeverTraps() throws {
        for value in ["9223372036854775807", "31536000", "Sun, 06 Nov 9999 08:49:37 GMT"] {
            let server = try SequenceServer([Self.page("503 Service Unavailable", ["Retry-After: \(value)"]),
                                             SequenceServer.Reply("200 OK", ["Content-Length: 2"], body: Data("ok".utf8))])
            let dir = TestPaths.temporaryDirectory()
            let errPath = dir + "/stderr"
            FileManager.default.createFile(atPath: errPath, contents: nil)
            let p = Process()
            p.executableURL = URL(fileURLWithPath: TestPaths.binary)
            p.arguments = ["--retry", "1", server.url("/")]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle(forWritingAtPath: errPath)
            p.standardInput = FileHandle.nullDevice
            try p.run()
            let deadline = Date().addingTimeInterval(10)
            var stderr = ""
            while p.isRunning, Date() < deadline {
                stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
                if stderr.contains("retrying in") { break }
                usleep(20_000)
            }
            usleep(100_000)
            let alive = p.isRunning
            if alive { kill(p.processIdentifier, SIGINT) }
            waitForExit(p)
            stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
            XCTAssertTrue(alive, "\(value): swurl died: \(p.terminationReason == .uncaughtSignal ? "signal" : "exit") \(p.terminationStatus) \(stderr)")
            XCTAssertEqual(endingSignal(p), SIGINT, "\(value): \(stderr)")
            XCTAssertTrue(stderr.contains("retrying in 300 s"), "\(value): \(stderr)")
        }
    }

    func testARetryAfterDateWithAnImpossibleYearIsIgnored() throws {
        let server = try SequenceServer([Self.page("503 Service Unavailable", ["Retry-After: Sun, 06 Nov 99999999999 08:49:37 GMT"]),
                                         SequenceServer.Reply("200 OK", ["Content-Length: 2"], body: Data("ok".utf8))])
        let r = try runSwurl(["--retry", "1", "--retry-delay", "0.05", server.url("/")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.text, "ok", r.stderr)
        XCTAssertEqual(server.requests().count, 2)
    }

    // MARK: Resume arithmetic

    /// Two Content-Length values that differ: the download said "stopped after 10 of 5 bytes"
    /// and kept a `.part` to resume, which could never end well. Nothing is written.
    func testContentLengthsThatDifferAreRefused() throws {
        let server = try SequenceServer([SequenceServer.Reply("200 OK", ["Content-Length: 5", "Content-Length: 10"], body: Data("0123456789".utf8))])
        let dir = TestPaths.temporaryDirectory()
        let r = try runSwurl(["-d", "-o", "x.bin", server.url("/x")], directory: dir)
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("the server's Content-Length names more than one length (5, 10)"), r.stderr)
        XCTAssertEqual(files(dir), [])
    }

    func testAResumeLengthThatOverflowsIsATransportError() throws {
        let (r, dir, server) = try resume(SequenceServer.Reply("206 Partial Content",
                                                               ["Content-Range: bytes 5-9/*", "Content-Length: 9223372036854775807"],
                                                               body: Data("BBBBB".utf8)))
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("the server's Content-Range (bytes 5-9) does not match its Content-Length (9223372036854775807)"), r.stderr)
        XCTAssertEqual(contents(dir + "/f.bin.part"), Data("AAAAA".utf8))
        XCTAssertEqual(files(dir), ["f.bin.part"])
        XCTAssertTrue(server.requests().first?.contains("Range: bytes=5-") == true, "\(server.requests())")
    }

    /// A 206's bytes go where its Content-Range says, so a range the file cannot take as it
    /// comes is refused and the `.part` left as it was: the rest encoded (the download asked for
    /// identity), a Content-Length that is not the range's span, or (without a length) more bytes
    /// than the range.
    func testAResumedRangeTheFileCannotTakeLeavesThePartAsItWas() throws {
        let replies: [(SequenceServer.Reply, String)] = [
            (SequenceServer.Reply("206 Partial Content", ["Content-Range: bytes 5-9/10", "Content-Length: 5", "Content-Encoding: gzip"],
                                  body: Data([0x1F, 0x8B, 0x08, 0, 0])), "encoded (Content-Encoding: gzip)"),
            (SequenceServer.Reply("206 Partial Content", ["Content-Range: bytes 5-6/10", "Content-Length: 5"], body: Data("BBBBB".utf8)),
             "does not match its Content-Length (5)"),
            // `identity, gzip` as two fields: every field counts.
            (SequenceServer.Reply("206 Partial Content", ["Content-Range: bytes 5-9/10", "Content-Encoding: identity", "Content-Encoding: gzip"],
                                  body: Data([0x1F, 0x8B, 0x08, 0, 0])), "encoded (Content-Encoding: gzip)"),
        ]
        for (reply, message) in replies {
            let (r, dir, server) = try resume(reply)
            XCTAssertEqual(r.status, 1, r.stderr)
            XCTAssertTrue(server.requests().first?.contains("Range: bytes=5-") == true, "\(server.requests())")
            XCTAssertTrue(r.stderr.contains(message), r.stderr)
            XCTAssertEqual(contents(dir + "/f.bin.part"), Data("AAAAA".utf8), message)
            XCTAssertEqual(files(dir), ["f.bin.part"])
        }
        // No length, the body runs to the close: the range's bytes are kept, the rest refused.
        let (r, dir, _) = try resume(SequenceServer.Reply("206 Partial Content", ["Content-Range: bytes 5-6/10"], body: Data("BBBBB".utf8)))
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("more than the range it announced"), r.stderr)
        XCTAssertEqual(contents(dir + "/f.bin.part"), Data("AAAAABB".utf8))
    }

    /// A range resumed in another run must come from the response the `.part`'s bytes came from
    /// (its ETag, weak too, else its Last-Modified; its Content-Encoding; its size), kept with the
    /// `.part` (`user.swurl.origin`): a 206 naming no ETag, another weak ETag, another coding or
    /// another file size was joined to the bytes on disk, and the spliced file saved with exit 0.
    /// One with the same coding (a file stored gzipped, labelled so both times) is joined.
    func testAResumedRangeMustComeFromTheResponseThePartCameFrom() throws {
        let gzip: [UInt8] = [0x1F, 0x8B, 0x08, 0, 0, 0, 0, 0, 0, 3]
        func first(_ fields: [String], body: [UInt8] = Array("AAAA".utf8)) -> SequenceServer.Reply {
            SequenceServer.Reply("200 OK", ["Content-Length: 10"] + fields, body: Data(body.prefix(4)))
        }
        func rest(_ fields: [String], body: [UInt8] = Array("BBBBBB".utf8), total: Int = 10) -> SequenceServer.Reply {
            SequenceServer.Reply("206 Partial Content", ["Content-Range: bytes 4-\(total - 1)/\(total)", "Content-Length: \(total - 4)"] + fields,
                                 body: Data(body))
        }
        let refused: [(String, SequenceServer.Reply, SequenceServer.Reply, String)] = [
            ("gzip, then identity", first(["Content-Encoding: gzip", "ETag: \"e1\""], body: gzip), rest(["ETag: \"e1\""]),
             "without a Content-Encoding, and the bytes on disk came encoded as gzip"),
            ("no ETag on the rest", first(["ETag: \"v1\""]), rest([]), "without its ETag: the bytes on disk are of \"v1\""),
            ("another weak ETag", first(["ETag: W/\"w1\""]), rest(["ETag: W/\"w2\""]), "another version of the file (ETag W/\"w2\""),
            ("another size", first([]), rest([], body: Array(repeating: 0x42, count: 16), total: 20), "it was 10 bytes, the rest sent now is of one of 20"),
            // ETags the attribute could not hold as they were (a tab, a byte past 0x7F, past the
            // 1 KiB it is read in): the origin went unwritten, and nothing was checked.
            ("a weak ETag with a tab", first(["ETag: W/\"a\tb\""]), rest(["ETag: W/\"other\""]), "another version of the file (ETag W/\"other\""),
            ("a weak ETag past ASCII", first(["ETag: W/\"café\""]), rest(["ETag: W/\"other\""]), "the bytes on disk are of W/\"café\""),
            ("a long weak ETag", first(["ETag: W/\"" + String(repeating: "x", count: 1100) + "\""]), rest(["ETag: W/\"other\""]),
             "the bytes on disk are of one of 1104 bytes"),
        ]
        // The first run is cut (the .part kept), the second resumes it with --continue.
        func cutThenContinue(_ name: String, _ cut: SequenceServer.Reply, _ second: SequenceServer.Reply) throws -> (SwurlResult, String) {
            let server = try SequenceServer([cut, second])
            let dir = TestPaths.temporaryDirectory()
            XCTAssertEqual(try runSwurl(["-d", "-o", "f.bin", server.url("/f.bin")], directory: dir).status, 1, name)
            return (try runSwurl(["-d", "-c", "-o", "f.bin", server.url("/f.bin")], directory: dir), dir)
        }
        for (name, cut, second, message) in refused {
            let (r, dir) = try cutThenContinue(name, cut, second)
            XCTAssertEqual(r.status, 1, "\(name): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(message), "\(name): \(r.stderr)")
            XCTAssertEqual(files(dir), ["f.bin.part"], name)
            XCTAssertEqual(contents(dir + "/f.bin.part")?.count, 4, name)
        }
        let joined: [(String, SequenceServer.Reply, SequenceServer.Reply, [UInt8])] = [
            ("gzip both times", first(["Content-Encoding: gzip", "ETag: \"g1\""], body: gzip), rest(["Content-Encoding: gzip", "ETag: \"g1\""], body: Array(gzip.suffix(6))), gzip),
            ("the same weak ETag", first(["ETag: W/\"w1\""]), rest(["ETag: W/\"w1\""]), Array("AAAABBBBBB".utf8)),
        ]
        for (name, cut, second, whole) in joined {
            let (r, dir) = try cutThenContinue(name, cut, second)
            XCTAssertEqual(r.status, 0, "\(name): \(r.stderr)")
            XCTAssertEqual(contents(dir + "/f.bin"), Data(whole), name)
        }
    }

    /// A `Range` item under `-d` is not sent (the download asks for the whole file or the rest
    /// of its `.part`): a note says so (the whole file came without a word).
    func testARangeItemUnderDownloadIsNotSentAndSaysSo() throws {
        let server = try SequenceServer([SequenceServer.Reply("200 OK", ["Content-Length: 10"], body: Data("0123456789".utf8))])
        let dir = TestPaths.temporaryDirectory()
        let r = try runSwurl(["-d", "-o", "f.bin", server.url("/f.bin"), "Range:bytes=0-3"], directory: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("swurl: note: -d sends no Range of yours"), r.stderr)
        XCTAssertFalse(server.requests().first?.contains("Range:") ?? true, "\(server.requests())")
        XCTAssertEqual(contents(dir + "/f.bin"), Data("0123456789".utf8))
    }

    /// If-Range carries a strong validator only (RFC 9110 §13.1.5): a strong ETag, or without an
    /// ETag a Last-Modified at least a second before the response's Date. A date beside a weak
    /// ETag, or one the Date does not show strong, went as If-Range.
    func testIfRangeCarriesOnlyAStrongValidator() throws {
        let modified = "Sun, 06 Nov 1994 08:49:37 GMT"
        let cases: [([String], String?)] = [
            (["ETag: W/\"w1\"", "Last-Modified: " + modified, "Date: Mon, 07 Nov 1994 08:49:37 GMT"], nil),
            (["Last-Modified: " + modified, "Date: " + modified], nil),
            (["Last-Modified: " + modified], nil),
            (["Last-Modified: " + modified, "Date: Mon, 07 Nov 1994 08:49:37 GMT"], modified),
            (["ETag: \"s1\"", "Last-Modified: " + modified, "Date: Mon, 07 Nov 1994 08:49:37 GMT"], "\"s1\""),
        ]
        for (fields, expected) in cases {
            let server = try SequenceServer([SequenceServer.Reply("200 OK", ["Content-Length: 10"] + fields, body: Data("AAAA".utf8))])
            let dir = TestPaths.temporaryDirectory()
            _ = try runSwurl(["-d", "-o", "f.bin", server.url("/f.bin")], directory: dir)
            _ = try runSwurl(["-d", "-c", "-o", "f.bin", server.url("/f.bin")], directory: dir)
            let head = server.requests().last ?? ""
            let ifRange = head.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix("if-range:") }.map { String($0.dropFirst(9)).trimmingCharacters(in: .whitespaces) }
            XCTAssertTrue(head.contains("Range: bytes=4-"), head)
            XCTAssertEqual(ifRange, expected, "\(fields): \(head)")
        }
    }

    /// A resumed range near Int64's end with --max-filesize: the sum of the server's numbers
    /// overflowed and trapped (exit 132); it is simply too large.
    func testARangeNearTheEndOfInt64WithMaxFilesizeIsTooLargeNotACrash() throws {
        let server = try SequenceServer([SequenceServer.Reply("206 Partial Content",
                                                              ["Content-Range: bytes 4-9223372036854775806/9223372036854775807",
                                                               "Content-Length: 9223372036854775803"], body: Data("BBBB".utf8))])
        let dir = TestPaths.temporaryDirectory()
        try Data("AAAA".utf8).write(to: URL(fileURLWithPath: dir + "/big.part"))
        let r = try runSwurl(["-d", "-c", "--max-filesize", "1000", "-o", "big", server.url("/big")], directory: dir)
        XCTAssertEqual(r.status, 8, r.stderr)
        XCTAssertTrue(r.stderr.contains("larger than --max-filesize"), r.stderr)
        XCTAssertEqual(contents(dir + "/big.part"), Data("AAAA".utf8))
    }

    /// --max-filesize counts the bytes on disk, not the start the server names: a 206 from far
    /// past the `.part` is the wrong range (said as such), not "9223372036854775000 bytes of it
    /// already on disk".
    func testMaxFilesizeCountsTheBytesOnDiskNotTheServersStart() throws {
        let server = try SequenceServer([SequenceServer.Reply("206 Partial Content",
                                                              ["Content-Range: bytes 9223372036854775000-9223372036854775003/*",
                                                               "Content-Length: 4"], body: Data("BBBB".utf8))])
        let dir = TestPaths.temporaryDirectory()
        try Data("AAAA".utf8).write(to: URL(fileURLWithPath: dir + "/far.part"))
        let r = try runSwurl(["-d", "-c", "--max-filesize", "1000000", "-o", "far", server.url("/far")], directory: dir)
        XCTAssertNotEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("resumed at byte 9223372036854775000, not at byte 4"), r.stderr)
        XCTAssertFalse(r.stderr.contains("already on disk"), r.stderr)
        XCTAssertEqual(contents(dir + "/far.part"), Data("AAAA".utf8))
        // A start before the .part's end, whole file within the limit: the wrong range too.
        let back = try SequenceServer([SequenceServer.Reply("206 Partial Content", ["Content-Range: bytes 0-9/10", "Content-Length: 10"],
                                                            body: Data("BBBBBBBBBB".utf8))])
        let r2 = try runSwurl(["-d", "-c", "--max-filesize", "10", "-o", "far", back.url("/far")], directory: dir)
        XCTAssertTrue(r2.stderr.contains("resumed at byte 0, not at byte 4"), r2.stderr)
        XCTAssertFalse(r2.stderr.contains("max-filesize"), r2.stderr)
        // Resuming again would fail the same way: the hint says to delete the .part, and no note
        // says to resume it (the two contradicted each other).
        XCTAssertTrue(r2.stderr.contains("to start over"), r2.stderr)
        XCTAssertFalse(r2.stderr.contains("resume it"), r2.stderr)
    }

    /// The resume hint prints a command only when that command repeats the request: after a
    /// header item (or a pin, a proxy...) it says to run the same command with --continue; after
    /// a trust failure (a pin that does not match) it says nothing, as resuming cannot help and a
    /// printed command without the pin would fetch from whichever server answers.
    func testTheResumeHintNeverDropsAnOptionAndIsNotGivenAfterATrustFailure() throws {
        let server = try SequenceServer([Self.cut(100, of: 1000)])
        let dir = TestPaths.temporaryDirectory()
        let r = try runSwurl(["-d", server.url("/data.bin"), "X-Token:abc"], directory: dir)
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("resume it with the same command and --continue (-c)"), r.stderr)
        XCTAssertFalse(r.stderr.contains("swurl -d -c"), r.stderr)
        // A DELETE printed as `swurl -d -c URL` would be a GET.
        let delete = try runSwurl(["-d", "-o", "del.bin", "DELETE", server.url("/del.bin")], directory: dir)
        XCTAssertEqual(delete.status, 1, delete.stderr)
        XCTAssertTrue(delete.stderr.contains("resume it with the same command and --continue (-c)"), delete.stderr)
        // Display options change nothing asked for: the command is printed.
        let shown = try runSwurl(["-d", "--pretty=none", "-o", "shown.bin", server.url("/shown.bin")], directory: dir)
        XCTAssertTrue(shown.stderr.contains("resume it with --continue: swurl -d -c -o "), shown.stderr)

        let pki = try CertificateFactory.shared()
        let tls = try CaptureServer(tls: (pki.path("leaf-chain.pem"), pki.path("leaf.key")))
        try Data("AAAA".utf8).write(to: URL(fileURLWithPath: dir + "/f.bin.part"))
        let pinned = try runSwurl(["-d", "-c", "-o", "f.bin", "--cacert", pki.path("root.pem"),
                                   "--pin-pubkey", try pki.pin("leaf2.pem"), "https://localhost:\(tls.server.port)/f.bin"], directory: dir)
        XCTAssertEqual(pinned.status, 7, pinned.stderr)
        XCTAssertFalse(pinned.stderr.contains("resume it"), pinned.stderr)
        XCTAssertEqual(contents(dir + "/f.bin.part"), Data("AAAA".utf8))
    }

    /// A 206 to a request for the whole file: from byte 0 it is the file's start (the rest can
    /// follow with --continue); from anywhere else it is refused, nothing saved.
    func testAnUnrequestedPartialResponseIsNeverSavedAsTheWholeFile() throws {
        let middle = try SequenceServer([SequenceServer.Reply("206 Partial Content", ["Content-Range: bytes 100-109/1000", "Content-Length: 10"],
                                                              body: Data(repeating: UInt8(ascii: "M"), count: 10))])
        var dir = TestPaths.temporaryDirectory()
        var r = try runSwurl(["-d", middle.url("/u.bin")], directory: dir)
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("sent bytes 100-109 of the file (206) to a request for all of it"), r.stderr)
        XCTAssertEqual(files(dir), [])

        let start = try SequenceServer([SequenceServer.Reply("206 Partial Content", ["Content-Range: bytes 0-9/1000", "Content-Length: 10"],
                                                             body: Data(repeating: UInt8(ascii: "S"), count: 10))])
        dir = TestPaths.temporaryDirectory()
        r = try runSwurl(["-d", start.url("/s.bin")], directory: dir)
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("stopped after 10 of 1000 bytes"), r.stderr)
        XCTAssertEqual(files(dir), ["s.bin.part"])
    }

    // MARK: Bodies that are not saved

    func testAnErrorPageAfterARetryNeverLandsInThePartFile() throws {
        for (status, exit) in [("404 Not Found", Int32(4)), ("503 Service Unavailable", Int32(5))] {
            let server = try SequenceServer([Self.cut(100, of: 1000), Self.page(status)])
            let dir = TestPaths.temporaryDirectory()
            let r = try runSwurl(["-d", "--retry", "1", "--retry-delay", "0.05", server.url("/data.bin")], directory: dir)
            XCTAssertEqual(r.status, exit, r.stderr)
            XCTAssertTrue(r.stderr.contains("nothing was saved"), r.stderr)
            XCTAssertEqual(files(dir), ["data.bin.part"], status)
            XCTAssertEqual(contents(dir + "/data.bin.part"), Data(repeating: UInt8(ascii: "A"), count: 100), status)
            XCTAssertTrue(server.requests().last?.contains("Range: bytes=100-") == true, "\(server.requests())")
        }
    }

    /// A 416 that names no size (so no "larger than the server's" either) offered the command that
    /// had just failed ("resume it with --continue: swurl -d -c …"): it says to start over instead.
    func testA416WithoutASizeIsNotOfferedForResuming() throws {
        let server = try SequenceServer([Self.page("416 Range Not Satisfiable", [])])
        let dir = TestPaths.temporaryDirectory()
        try Data("abcde".utf8).write(to: URL(fileURLWithPath: dir + "/r.part"))
        let r = try runSwurl(["-d", "-c", "-o", "r", server.url("/r")], directory: dir)
        XCTAssertEqual(r.status, 4, r.stderr)
        XCTAssertFalse(r.stderr.contains("resume it with"), r.stderr)
        XCTAssertTrue(r.stderr.contains("swurl: hint: the server cannot send the rest from where '\(dir)/r.part' ends; remove it to download the file again from the start"), r.stderr)
        XCTAssertEqual(contents(dir + "/r.part"), Data("abcde".utf8))
    }

    /// A 416 naming the size on disk says the file is complete only when it is of the version the
    /// bytes on disk are of: a server that ignored If-Range names its current version's size and
    /// ETag, and the first bytes of a 1000-byte file were saved as the whole 100-byte file.
    func testA416OfAnotherVersionIsNotTakenForTheWholeFile() throws {
        let chunkedCut = SequenceServer.Reply("200 OK", ["Transfer-Encoding: chunked", "ETag: \"a1\""],
                                              body: Data("64\r\n".utf8) + Data(repeating: UInt8(ascii: "A"), count: 100) + Data("\r\n".utf8))
        let cases: [(first: SequenceServer.Reply, answer: [String], says: String)] = [
            // The kept size (1000) against the 416's (100), with or without validators.
            (Self.cut(100, of: 1000), ["Content-Range: bytes */100"], "the file changed on the server between attempts: it was 1000 bytes"),
            (Self.cut(100, of: 1000), ["Content-Range: bytes */100", "ETag: \"a2\""], "it was 1000 bytes"),
            // No kept size (chunked): the 416's ETag is another.
            (chunkedCut, ["Content-Range: bytes */100", "ETag: \"a2\""], "the server's 416 names another version of the file (ETag"),
        ]
        for (first, answer, says) in cases {
            let server = try SequenceServer([first, SequenceServer.Reply("416 Range Not Satisfiable", answer)])
            let dir = TestPaths.temporaryDirectory()
            let cut = try runSwurl(["-d", "-o", "f.bin", server.url("/f.bin")], directory: dir)
            XCTAssertNotEqual(cut.status, 0, cut.stderr)
            XCTAssertEqual(contents(dir + "/f.bin.part")?.count, 100, cut.stderr)
            let r = try runSwurl(["-d", "-c", "-o", "f.bin", server.url("/f.bin")], directory: dir)
            XCTAssertEqual(r.status, 1, "\(answer): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(says), r.stderr)
            XCTAssertFalse(r.stderr.contains("saved"), r.stderr)
            XCTAssertEqual(files(dir), ["f.bin.part"], "\(answer)")
            XCTAssertEqual(contents(dir + "/f.bin.part"), Data(repeating: UInt8(ascii: "A"), count: 100))
        }
        // The same ETag and size: complete, as before.
        let server = try SequenceServer([chunkedCut, SequenceServer.Reply("416 Range Not Satisfiable", ["Content-Range: bytes */100", "ETag: \"a1\""])])
        let dir = TestPaths.temporaryDirectory()
        _ = try runSwurl(["-d", "-o", "f.bin", server.url("/f.bin")], directory: dir)
        let r = try runSwurl(["-d", "-c", "-o", "f.bin", server.url("/f.bin")], directory: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(files(dir), ["f.bin"])
    }

    /// A 416 is judged by the validators as a 206's range is: by the ETag kept, else the
    /// Last-Modified. The same ETag with another Last-Modified is the same version (the 416 refused
    /// it, the 206 took it), and an older swurl's `.part` (its validator attribute alone) is
    /// judged by that validator (the 416 finished it whatever ETag it named).
    func testA416IsJudgedByTheSameValidatorsAsA206() throws {
        let dated = SequenceServer.Reply("200 OK", ["Transfer-Encoding: chunked", "ETag: \"a1\"", "Last-Modified: Mon, 07 Dec 2026 10:00:00 GMT"],
                                         body: Data("64\r\n".utf8) + Data(repeating: UInt8(ascii: "A"), count: 100) + Data("\r\n".utf8))
        let server = try SequenceServer([dated, SequenceServer.Reply("416 Range Not Satisfiable",
                                                                     ["Content-Range: bytes */100", "ETag: \"a1\"", "Last-Modified: Tue, 08 Dec 2026 10:00:00 GMT"])])
        let dir = TestPaths.temporaryDirectory()
        _ = try runSwurl(["-d", "-o", "f.bin", server.url("/f.bin")], directory: dir)
        XCTAssertEqual(files(dir), ["f.bin.part"])
        let same = try runSwurl(["-d", "-c", "-o", "f.bin", server.url("/f.bin")], directory: dir)
        XCTAssertEqual(same.status, 0, same.stderr)
        XCTAssertEqual(files(dir), ["f.bin"])

        let old = TestPaths.temporaryDirectory()
        try Data(repeating: UInt8(ascii: "A"), count: 100).write(to: URL(fileURLWithPath: old + "/g.bin.part"))
        _ = try runPython("import os, sys; os.setxattr(sys.argv[1], 'user.swurl.validator', b'\"v1\"')", arguments: [old + "/g.bin.part"])
        let other = try SequenceServer([SequenceServer.Reply("416 Range Not Satisfiable", ["Content-Range: bytes */100", "ETag: \"v2\""])])
        let r = try runSwurl(["-d", "-c", "-o", "g.bin", other.url("/g.bin")], directory: old)
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("the server's 416 names another version of the file (ETag \"v2\", the bytes on disk are of \"v1\")"), r.stderr)
        XCTAssertEqual(files(old), ["g.bin.part"])
    }

    /// A file replaced by `-o` or `-d --overwrite` keeps its permission bits but never its
    /// set-user-ID or set-group-ID bit (a user's setuid file replaced by root became a setuid-root
    /// program of the server's bytes), and stays its owner's when root replaces it.
    func testAReplacedFileLosesItsSetIDBitsAndKeepsItsOwner() throws {
        for extra in [[String](), ["-d", "--overwrite"]] {
            let server = try SequenceServer([SequenceServer.Reply("200 OK", ["Content-Length: 3"], body: Data("new".utf8))])
            let dir = TestPaths.temporaryDirectory()
            let path = dir + "/tool"
            try Data("old".utf8).write(to: URL(fileURLWithPath: path))
            XCTAssertEqual(chmod(path, 0o6755), 0)
            // Another user's file, when root runs the tests (as CI does).
            let other: uid_t = 65534
            if geteuid() == 0 { XCTAssertEqual(chown(path, other, gid_t(other)), 0) }
            let r = try runSwurl(extra + ["-q", "-o", "tool", server.url("/tool")], directory: dir)
            XCTAssertEqual(r.status, 0, r.stderr)
            var st = stat()
            XCTAssertEqual(stat(path, &st), 0)
            XCTAssertEqual(contents(path), Data("new".utf8))
            XCTAssertEqual(st.st_mode & 0o7777, 0o755, "\(extra)")
            if geteuid() == 0 {
                XCTAssertEqual(st.st_uid, other, "\(extra)")
                XCTAssertEqual(st.st_gid, gid_t(other), "\(extra)")
            }
        }
    }

    /// The 416's own body never goes into the file; and a 416 naming 100 bytes after the first
    /// attempt announced 1000 is another version of the file: the 100 bytes stay a `.part`
    /// (they were saved as the whole file, exit 0).
    /// Root downloading into a directory another user may write: that user can put a link in
    /// place of the `.part` while it is being saved (Tests/Servers/part_swapper.c does it the
    /// moment the `.part`'s attributes change). Its mode and owner are set through the open file,
    /// so the link's target (root's private file) keeps its mode; by name, it became 0644 within
    /// a few tries. (The swapper runs as the test's user: who swaps makes no difference to
    /// where the chmod lands.)
    func testALinkPutInPlaceOfThePartNeverLendsItsTargetAMode() throws {
        let compilers = ["/usr/bin/cc", "/usr/bin/gcc", "/usr/bin/clang"]
        guard let cc = compilers.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw TestServerError("no C compiler to build Tests/Servers/part_swapper.c")
        }
        let tools = TestPaths.temporaryDirectory()
        _ = try runProcess(cc, ["-O1", "-o", tools + "/part_swapper", TestPaths.server("part_swapper.c")])
        let body = Data(repeating: UInt8(ascii: "B"), count: 200_000)
        let attempts = 20
        let server = try SequenceServer(Array(repeating: SequenceServer.Reply("200 OK", ["Content-Length: \(body.count)"], body: body), count: attempts))
        var swaps = 0
        for attempt in 0..<attempts {
            let base = TestPaths.temporaryDirectory()
            let dir = base + "/shared", victim = base + "/victim"
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
            try Data("old".utf8).write(to: URL(fileURLWithPath: dir + "/file"))
            XCTAssertEqual(chmod(dir + "/file", 0o644), 0)
            try Data("secret".utf8).write(to: URL(fileURLWithPath: victim))
            XCTAssertEqual(chmod(victim, 0o600), 0)
            XCTAssertEqual(symlink(victim, dir + "/evil"), 0)
            let swapper = Process()
            swapper.executableURL = URL(fileURLWithPath: tools + "/part_swapper")
            swapper.arguments = [dir, "file.part", "evil"]
            let out = Pipe()
            swapper.standardOutput = out
            try swapper.run()
            usleep(50_000)
            let r = try runSwurl(["-d", "--overwrite", "-o", dir + "/file", server.url("/file")])
            if swapper.isRunning { swapper.terminate() }
            swapper.waitUntilExit()
            if String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).contains("swapped") { swaps += 1 }
            var st = stat()
            XCTAssertEqual(stat(victim, &st), 0)
            XCTAssertEqual(st.st_mode & 0o7777, 0o600, "attempt \(attempt): \(r.stderr)")
        }
        XCTAssertGreaterThan(swaps, 0, "the link was never put in place: the test tried nothing")
    }

    func testThe416BodyAfterARetryIsNotAppended() throws {
        let server = try SequenceServer([Self.cut(100, of: 1000), Self.page("416 Range Not Satisfiable", ["Content-Range: bytes */100"])])
        let dir = TestPaths.temporaryDirectory()
        let r = try runSwurl(["-d", "--retry", "1", "--retry-delay", "0.05", server.url("/data.bin")], directory: dir)
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("it was 1000 bytes, the server now says it is 100 bytes"), r.stderr)
        XCTAssertEqual(files(dir), ["data.bin.part"])
        XCTAssertEqual(contents(dir + "/data.bin.part"), Data(repeating: UInt8(ascii: "A"), count: 100))
    }

    // MARK: Symbolic links and devices

    /// `-d -o LINK` follows the link: the target counts as the existing file, `--overwrite`
    /// replaces the target (its `.part` grows beside it), and the link itself stays a link.
    func testOutputThroughASymlinkUpdatesTheTargetAndKeepsTheLink() throws {
        let server = try SequenceServer([SequenceServer.Reply("200 OK", ["Content-Length: 3"], body: Data("new".utf8))])
        let dir = TestPaths.temporaryDirectory()
        let precious = Data("precious content that must survive\n".utf8)
        try FileManager.default.createDirectory(atPath: dir + "/real", withIntermediateDirectories: true)
        try precious.write(to: URL(fileURLWithPath: dir + "/real/target.txt"))
        XCTAssertEqual(symlink("real/target.txt", dir + "/link"), 0)

        let refused = try runSwurl(["-d", "-o", "link", server.url("/x")], directory: dir)
        XCTAssertEqual(refused.status, 64, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("already exists"), refused.stderr)
        XCTAssertEqual(contents(dir + "/real/target.txt"), precious, "nothing is written without --overwrite")

        let replaced = try runSwurl(["-d", "--overwrite", "-o", "link", server.url("/x")], directory: dir)
        XCTAssertEqual(replaced.status, 0, replaced.stderr)
        XCTAssertEqual(contents(dir + "/real/target.txt"), Data("new".utf8), "the target is updated")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: dir + "/link"), "real/target.txt")
        XCTAssertEqual(files(dir), ["link", "real"])
        XCTAssertEqual(files(dir + "/real"), ["target.txt"])
    }

    func testADerivedNameThatIsASymlinkGetsASuffix() throws {
        let server = try SequenceServer([SequenceServer.Reply("200 OK", ["Content-Length: 3"], body: Data("new".utf8))])
        let dir = TestPaths.temporaryDirectory()
        let precious = Data("precious\n".utf8)
        try precious.write(to: URL(fileURLWithPath: dir + "/target.txt"))
        XCTAssertEqual(symlink("target.txt", dir + "/report"), 0)
        let r = try runSwurl(["-d", server.url("/report")], directory: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(contents(dir + "/target.txt"), precious)
        XCTAssertEqual(contents(dir + "/report-1"), Data("new".utf8))
    }

    func testARetryIntoAPipeNeverAppendsASecondCopy() throws {
        let server = try SequenceServer([Self.cut(100, of: 1000),
                                         SequenceServer.Reply("200 OK", ["Content-Length: 1000"],
                                                              body: Data(repeating: UInt8(ascii: "B"), count: 1000))])
        let dir = TestPaths.temporaryDirectory()
        XCTAssertEqual(mkfifo(dir + "/fifo", 0o600), 0)
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/bin/sh")
        reader.arguments = ["-c", "cat fifo > received"]
        reader.currentDirectoryURL = URL(fileURLWithPath: dir)
        try reader.run()
        let r = try runSwurl(["-d", "-o", "fifo", "--retry", "1", "--retry-delay", "0.05", server.url("/x")], directory: dir)
        waitForExit(reader)
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("ignored the range"), r.stderr)
        XCTAssertEqual(contents(dir + "/received"), Data(repeating: UInt8(ascii: "A"), count: 100))
        XCTAssertEqual(files(dir), ["fifo", "received"])
    }

    // MARK: --continue -o FILE

    func testContinueIntoAFileLeavesItAsItWasWhenTheRequestFails() throws {
        let server = try SequenceServer([Self.page("404 Not Found")])
        let dir = TestPaths.temporaryDirectory()
        try Data("12345".utf8).write(to: URL(fileURLWithPath: dir + "/keep.bin"))
        let r = try runSwurl(["-d", "-c", "-o", "keep.bin", server.url("/keep.bin")], directory: dir)
        XCTAssertEqual(r.status, 4, r.stderr)
        XCTAssertEqual(files(dir), ["keep.bin"])
        XCTAssertEqual(contents(dir + "/keep.bin"), Data("12345".utf8))

        let refused = try runSwurl(["-d", "-c", "-o", "keep.bin", "http://127.0.0.1:\(try ServerProcess.refusedPort())/"], directory: dir)
        XCTAssertEqual(refused.status, 1, refused.stderr)
        XCTAssertEqual(files(dir), ["keep.bin"])
        XCTAssertEqual(contents(dir + "/keep.bin"), Data("12345".utf8))
    }

    func testContinueIntoAFileThatTheServerRestartsKeepsTheFileUntilTheNewCopyIsComplete() throws {
        let server = try ScriptedServer()
        let dir = TestPaths.temporaryDirectory()
        let original = Data(repeating: 0xEE, count: 10_000)
        try original.write(to: URL(fileURLWithPath: dir + "/f.bin"))
        let expected = ScriptedServer.fileBytes(size: 30_000, seed: 5)
        let cut = try runSwurl(["-d", "-c", "-o", "f.bin", server.url("/file?size=30000&seed=5&ignore_range=1&cut=5000&key=r")],
                               directory: dir)
        XCTAssertEqual(cut.status, 1, cut.stderr)
        XCTAssertEqual(contents(dir + "/f.bin"), original, "the file is untouched while the new copy is incomplete")
        XCTAssertEqual(contents(dir + "/f.bin.part"), expected.prefix(5_000))

        let resumed = try runSwurl(["-d", "-c", "-o", "f.bin", server.url("/file?size=30000&seed=5")], directory: dir)
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        XCTAssertEqual(files(dir), ["f.bin"])
        XCTAssertEqual(contents(dir + "/f.bin"), expected)
    }

    func testContinueIntoAFileAppendsInPlace() throws {
        let server = try ScriptedServer()
        let dir = TestPaths.temporaryDirectory()
        let expected = ScriptedServer.fileBytes(size: 50_000, seed: 4)
        try expected.prefix(20_000).write(to: URL(fileURLWithPath: dir + "/g.bin"))
        let r = try runSwurl(["-d", "-c", "-o", "g.bin", server.url("/file?size=50000&seed=4")], directory: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(files(dir), ["g.bin"])
        XCTAssertEqual(contents(dir + "/g.bin"), expected)
        XCTAssertEqual((server.requests().last?["headers"] as? [String: String])?["Range"], "bytes=20000-")

        // Already complete: a 416 leaves it as it is.
        let again = try runSwurl(["-d", "-c", "-o", "g.bin", server.url("/file?size=50000&seed=4")], directory: dir)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(files(dir), ["g.bin"])
        XCTAssertEqual(contents(dir + "/g.bin"), expected)
    }

    /// Regression: `-c -o FILE` growing FILE in place sent the request before finding FILE
    /// could not be written (then hinted to resume it, which failed the same way). An immutable
    /// file stands for one the user cannot write (the tests run as root).
    func testResumingInPlaceIntoAFileThatCannotBeWrittenSendsNothing() throws {
        let server = try ScriptedServer()
        let dir = TestPaths.temporaryDirectory()
        let path = dir + "/ro.bin"
        try ScriptedServer.fileBytes(size: 500, seed: 4).write(to: URL(fileURLWithPath: path))
        let locked = try runProcess("/usr/bin/chattr", ["+i", path], check: false)
        XCTAssertEqual(locked.status, 0, "chattr +i is needed (ext4): \(locked.stderr)")
        defer { _ = try? runProcess("/usr/bin/chattr", ["-i", path], check: false) }
        let r = try runSwurl(["-d", "-c", "-o", "ro.bin", server.url("/file?size=1000&seed=4")], directory: dir)
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.hasPrefix("swurl: error: cannot resume into '\(path)': Operation not permitted"), r.stderr)
        XCTAssertEqual(server.requests().count, 0)
    }

    /// Regression: when the final rename failed (the directory made immutable, or moved, while
    /// the body came), the `.part` had already lost its URL and validator and become 0644, and the
    /// message did not say the whole download was in it.
    func testAFailedFinalRenameKeepsTheWholeDownloadResumable() throws {
        let server = try ScriptedServer()
        let dir = TestPaths.temporaryDirectory()
        // A user name alone in the URL (a token): the kept URL masks it.
        let url = server.url("/file?size=200000&seed=6").replacingOccurrences(of: "http://", with: "http://TOKEN7@")
        let (status, stderr) = try whileTheRequestIsOut(["-d", "-o", "d.bin"], url: url, dir: dir, midBody: true) {
            let locked = try runProcess("/usr/bin/chattr", ["+i", dir], check: false)
            XCTAssertEqual(locked.status, 0, "chattr +i is needed (ext4): \(locked.stderr)")
        }
        _ = try? runProcess("/usr/bin/chattr", ["-i", dir], check: false)
        XCTAssertEqual(status, 1, stderr)
        XCTAssertTrue(stderr.contains("saving '\(dir)/d.bin' failed: Operation not permitted; the whole download is kept as '\(dir)/d.bin.part'"), stderr)
        XCTAssertEqual(contents(dir + "/d.bin.part"), ScriptedServer.fileBytes(size: 200000, seed: 6))
        let mode = (try FileManager.default.attributesOfItem(atPath: dir + "/d.bin.part")[.posixPermissions] as? Int) ?? 0
        XCTAssertEqual(mode, 0o600, "the .part stays private")
        let kept = try runPython("import os, sys; print(os.getxattr(sys.argv[1], 'user.swurl.url').decode())", arguments: [dir + "/d.bin.part"])
        XCTAssertTrue(kept.contains("****@127.0.0.1") && kept.contains("/file?size=200000") && !kept.contains("TOKEN7"), kept)
    }

    // MARK: -k and the progress bar

    func testInsecureDownloadsWarn() throws {
        let server = try SequenceServer([SequenceServer.Reply("200 OK", ["Content-Length: 3"], body: Data("new".utf8))])
        let dir = TestPaths.temporaryDirectory()
        let r = try runSwurl(["-k", "-d", server.url("/x")], directory: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("swurl: warning: --insecure"), r.stderr)
        let plain = try runSwurl(["-d", "--overwrite", server.url("/x")], directory: dir)
        XCTAssertFalse(plain.stderr.contains("warning"), plain.stderr)
    }

    /// A huge Content-Length and a trickle of bytes on a terminal: the ETA is absurd, and the
    /// bar must show that instead of trapping. `script` gives swurl a pseudo-terminal.
    func testTheProgressBarSurvivesAnAbsurdETA() throws {
        let server = try SequenceServer([SequenceServer.Reply("200 OK", ["Content-Length: 9223372036854775807"],
                                                              body: Data("A".utf8), hold: 2.5)])
        let dir = TestPaths.temporaryDirectory()
        let command = "'\(TestPaths.binary)' -d -o out.bin '\(server.url("/x"))'"
        let r = try runProcess("/usr/bin/script", ["-qfec", command, dir + "/typescript"], directory: dir, check: false)
        let screen = String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: dir + "/typescript"))) ?? Data(), as: UTF8.self)
        XCTAssertEqual(r.status, 1, screen)
        XCTAssertTrue(screen.contains("--:--"), screen)
        XCTAssertTrue(screen.contains("out.bin.part"), screen)
    }
}
