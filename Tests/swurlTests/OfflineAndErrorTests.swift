import XCTest
import Foundation
import SwurlTestSupport

final class OfflineAndErrorTests: XCTestCase {
    func testOfflinePrintsTheRequestAndOpensNoConnection() throws {
        let capture = try CaptureServer()
        let r = try runSwurl(["--offline", "POST", "http://127.0.0.1:\(capture.server.port)/x", "a=1"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.text.hasPrefix("POST /x HTTP/1.1\r\nHost: 127.0.0.1:\(capture.server.port)\r\n"), r.text)
        XCTAssertTrue(r.text.hasSuffix("\r\n\r\n{\"a\":\"1\"}"))
        Thread.sleep(forTimeInterval: 0.7)
        XCTAssertEqual(capture.captured.count, 0, "the offline run reached the server")
        let example = try runSwurl(["--offline", "POST", "example.org", "a=1"])
        XCTAssertEqual(example.status, 0)
        XCTAssertTrue(example.text.contains("Host: example.org\r\n"))
    }

    /// `--offline` output must be exactly the bytes libcurl sends.
    func testOfflineBytesEqualWhatTheServerReceives() throws {
        let cases: [[String]] = [
            ["POST", "{URL}/x?q=1", "a=1", "b[c]:=2", "X-A:1"],
            ["-f", "PUT", "{URL}/f", "user[name]=A B", "tags[]=x"],
            ["GET", "{URL}/g", "q==1", "Accept:", "X-E;"],
            ["--raw", "text body", "{URL}/r", "Content-Type:text/plain"],
        ]
        for args in cases {
            let capture = try CaptureServer()
            let base = "http://127.0.0.1:\(capture.server.port)"
            let filled = args.map { $0.replacingOccurrences(of: "{URL}", with: base) }
            let offline = try runSwurl(["--offline"] + filled)
            XCTAssertEqual(offline.status, 0, offline.stderr)
            let sent = try runSwurl(filled)
            XCTAssertEqual(sent.status, 0, sent.stderr)
            XCTAssertEqual(String(decoding: capture.captured, as: UTF8.self), offline.text, "\(args)")
        }
    }

    /// Each bad input gives one error line (plus an optional hint), the right status, no crash.
    func testBadInputGivesAClearErrorAndStatus() throws {
        let url = "http://127.0.0.1:9/x"
        let cases: [([String], Int32, String)] = [
            (["--folow", url], 64, "unknown option '--folow'"),
            ([url, "a:=[1,"], 65, "invalid JSON"),
            ([url, "a=@missing-file"], 66, "missing-file"),
            (["http://"], 64, "invalid URL 'http://'"),
            (["GET"], 64, "needs a URL"),
            (["--timeout", "abc", url], 64, "--timeout"),
            ([url, ":value"], 64, "header name is empty"),
            ([url, "f@/"], 66, "is a directory"),
            ([url, "a[b]c=1"], 64, "bad nested key"),
            ([], 64, "no URL"),
            (["-p", "Z", url], 64, "unknown letter"),
            (["ftp://example.org"], 64, "unsupported URL scheme"),
        ]
        for (args, status, fragment) in cases {
            let r = try runSwurl(args)
            XCTAssertEqual(r.status, status, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.hasPrefix("swurl: error: "), "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(fragment), "\(args): \(r.stderr)")
            XCTAssertTrue(r.stdout.isEmpty)
        }
    }

    func testHelpAndVersion() throws {
        let help = try runSwurl(["--help"])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.text.contains("Usage: swurl [METHOD] URL [REQUEST_ITEM ...] [OPTIONS]"))
        let version = try runSwurl(["--version"])
        XCTAssertTrue(version.text.hasPrefix("swurl 0.1.0\nlibcurl 7."), version.text)
        XCTAssertTrue(version.text.contains("OpenSSL 3"))
    }
}
