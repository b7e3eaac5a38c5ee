import XCTest
import Foundation
import SwurlTestSupport

/// What a curl user types gets swurl's grammar in the hint; options that would do nothing
/// are refused; `-o` takes `-` for stdout and refuses a directory before sending anything.
final class GrammarAndContextTests: XCTestCase {
    func testCurlSpellingsGetSwurlsGrammar() throws {
        let url = "http://127.0.0.1:9/x"
        let cases: [([String], String)] = [
            (["-X", "POST", url], "the method is the first word"),
            (["-H", "A: b", url], "headers are request items"),
            (["--data", "x", url], "data are request items"),
            (["-d", "data", url], "looks like a URL, but the URL was 'data'"),
            (["-d", "@t.txt", url], "a body file is the item @t.txt after the URL"),
            (["-d", "@t.txt", "127.0.0.1:9/x"], "swurl's -d is --download, not curl's --data"),
            (["-i", url], "-h prints them alone, -p hb with the body"),
            (["--include", url], "-h prints them alone"),
            (["--location", url], "follow redirects with --follow"),
            (["--json", #"{"a":1}"#, url], "--json takes no value"),
            (["--json", #"[{"a":1}]"#, "127.0.0.1:9/x"], "--json takes no value"),
            (["POST", url, "--json", #"{"a": 1}"#], "is not a request item: it looks like a JSON body"),
            ([#"--json={"a":1}"#, url], "the whole body as @file or on stdin"),
        ]
        for (args, hint) in cases {
            let r = try runSwurl(args)
            XCTAssertEqual(r.status, 64, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(hint), "\(args): \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("did you mean '-j'"), r.stderr)
        }
        // What only looks close stays what it is: a nested-key item, an IPv6 host.
        XCTAssertEqual(try runSwurl(["--offline", "POST", ":9/x", "[]:=1"]).status, 0)
        XCTAssertEqual(try runSwurl(["--offline", "[::1]:9/x"]).status, 0)
    }

    func testLowerCaseKnownMethodsAreAccepted() throws {
        let capture = try CaptureServer()
        let r = try runSwurl(["post", "http://127.0.0.1:\(capture.server.port)/m", "a=1"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(capture.captured.starts(with: Data("POST /m HTTP/1.1\r\n".utf8)))
        let offline = try runSwurl(["--offline", "delete", ":9/d"])
        XCTAssertTrue(offline.text.hasPrefix("DELETE /d HTTP/1.1"), offline.text)
    }

    func testOptionsThatWouldDoNothingAreRefused() throws {
        let all = try runSwurl(["--all", "--offline", ":9/x"])
        XCTAssertEqual(all.status, 64, all.stderr)
        XCTAssertTrue(all.stderr.contains("--all"), all.stderr)
        XCTAssertEqual(try runSwurl(["--all", "-F", "--offline", ":9/x"]).status, 0)
        let boundary = try runSwurl(["--boundary", "B", "--offline", ":9/x", "a=1"])
        XCTAssertEqual(boundary.status, 64, boundary.stderr)
        XCTAssertTrue(boundary.stderr.contains("--boundary"), boundary.stderr)
        XCTAssertEqual(try runSwurl(["--boundary", "B", "--multipart", "--offline", ":9/x", "a=1"]).status, 0)
    }

    func testDashOutputIsStdout() throws {
        let capture = try CaptureServer()
        let dir = TestPaths.temporaryDirectory()
        let r = try runSwurl(["-o", "-", "http://127.0.0.1:\(capture.server.port)/x"], directory: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.text, "ok")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/-"))
    }

    func testDirectoryOutputFailsBeforeSending() throws {
        let capture = try CaptureServer()
        let dir = TestPaths.temporaryDirectory()
        let r = try runSwurl(["-o", dir, "http://127.0.0.1:\(capture.server.port)/x"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("is a directory"), r.stderr)
        try capture.sync()
        XCTAssertEqual(capture.captured.count, 0, "the request was sent")
    }
}
