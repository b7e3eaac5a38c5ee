import XCTest
import Foundation
import SwurlTestSupport

/// Values that become header lines (`-a` in every auth type, netrc, header items, multipart
/// parameters, URL and proxy user info) are refused with exit 64 when they hold CR, LF, NUL or
/// another control character, and the server receives nothing.
final class HeaderInjectionTests: XCTestCase {
    /// Runs `args` (with `{URL}` replaced) against a capture server, expects exit 64 with `label`
    /// in the message, then sends a clean request: the server must have received that one only.
    private func assertRefused(_ args: [String], label: String, hint: String? = nil,
                               environment: [String: String] = [:], file: StaticString = #filePath, line: UInt = #line) throws {
        let capture = try CaptureServer()
        let base = "http://127.0.0.1:\(capture.server.port)"
        let filled = args.map { $0.replacingOccurrences(of: "{URL}", with: base)
            .replacingOccurrences(of: "{PORT}", with: "\(capture.server.port)") }
        let r = try runSwurl(filled, environment: environment)
        XCTAssertEqual(r.status, 64, "\(args): \(r.stderr)", file: file, line: line)
        XCTAssertTrue(r.stderr.contains(label), "\(args): \(r.stderr)", file: file, line: line)
        XCTAssertTrue(r.stderr.contains("cannot be sent in a header"), r.stderr, file: file, line: line)
        if let hint { XCTAssertTrue(r.stderr.contains(hint), r.stderr, file: file, line: line) }
        XCTAssertFalse(r.stderr.contains("\r"), "the error shows the bad character escaped", file: file, line: line)
        // The server handles connections one at a time, in order: if the refused run had sent
        // anything, it would be logged before this marker request.
        let marker = try runSwurl(["--ignore-netrc", base + "/marker"])
        XCTAssertEqual(marker.status, 0, marker.stderr, file: file, line: line)
        let all = String(decoding: capture.capturedAll, as: UTF8.self)
        XCTAssertTrue(all.hasPrefix("GET /marker HTTP/1.1\r\n"), "the server received: \(all)", file: file, line: line)
        XCTAssertFalse(all.contains("X-Evil"), all, file: file, line: line)
    }

    func testBearerTokenWithALineBreakIsRefusedAndNothingIsSent() throws {
        try assertRefused(["-A", "bearer", "-a", "tok\r\nX-Evil: injected", "{URL}/x"], label: "--auth (the bearer token)")
        try assertRefused(["--offline", "-A", "bearer", "-a", "tok\r\nX-Evil: injected", "{URL}/x"], label: "--auth")
    }

    func testATokenFromACRLFFileGetsAHint() throws {
        try assertRefused(["-A", "bearer", "-a", "tok\r", "{URL}/x"], label: "--auth (the bearer token)",
                          hint: "ends with a carriage return (a file with CRLF line ends?)")
    }

    func testDigestAndBasicCredentialsAreChecked() throws {
        try assertRefused(["-A", "digest", "-a", "ann\r\nX-Evil: 1:pw", "{URL}/x"], label: "--auth (the user name)")
        // (A NUL cannot reach argv; the unit tests cover it.)
        try assertRefused(["-A", "digest", "-a", "ann:p\u{1}w", "{URL}/x"], label: "--auth (the password)")
        try assertRefused(["-a", "ann:pw\nX-Evil: 1", "{URL}/x"], label: "--auth (the password)")
    }

    func testNetrcCredentialsAreChecked() throws {
        let dir = TestPaths.temporaryDirectory()
        let path = dir + "/netrc"
        let text = "machine 127.0.0.1 login \"nu\r\nX-Evil: 1\" password np\n"
        FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
        try assertRefused(["{URL}/x"], label: "the netrc entry for 127.0.0.1 (the user name)", environment: ["NETRC": path])
    }

    func testHeaderItemsAndMultipartParametersAreChecked() throws {
        try assertRefused(["{URL}/x", "X-A:a\r\nX-Evil: 1"], label: "'X-A:a")
        try assertRefused(["{URL}/x", "X-A:a\u{7F}"], label: "the control character \\x7f")
        // A line feed in the item is shown escaped: the message stays on one line.
        try assertRefused(["{URL}/x", "X-A:a\nX-Evil: 1"], label: "'X-A:a\\nX-Evil: 1': a line feed")
        let item = try runSwurl(["--offline", "http://127.0.0.1:9/x", "a\nb"])
        XCTAssertEqual(item.status, 64, item.stderr)
        XCTAssertTrue(item.stderr.hasPrefix("swurl: error: 'a\\nb' is not a request item\n"), item.stderr)
        let dir = TestPaths.temporaryDirectory()
        FileManager.default.createFile(atPath: dir + "/f.txt", contents: Data("hi".utf8))
        try assertRefused(["-f", "{URL}/x", "f@\(dir)/f.txt;filename=a\r\nX-Evil: 1"], label: "(;filename=)")
        try assertRefused(["-f", "{URL}/x", "f@\(dir)/f.txt;type=text/plain\r\nX-Evil: 1"], label: "(;type=)")
    }

    func testUserInfoInTheURLAndTheProxyIsChecked() throws {
        try assertRefused(["http://ann%0D%0AX-Evil:pw@127.0.0.1:{PORT}/x"], label: "the user name in the URL")
        try assertRefused(["--proxy", "http://ann:p%0Aw@127.0.0.1:{PORT}", "http://example.invalid/x"],
                          label: "the password in the proxy URL")
    }

    func testTabsAndNonASCIIStillPass() throws {
        let capture = try CaptureServer()
        let r = try runSwurl(["-A", "bearer", "-a", "t\tok-é", "http://127.0.0.1:\(capture.server.port)/x", "X-A:a\tb"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let sent = String(decoding: capture.captured, as: UTF8.self)
        XCTAssertTrue(sent.contains("Authorization: Bearer t\tok-é\r\n"), sent)
        XCTAssertTrue(sent.contains("X-A: a\tb\r\n"), sent)
    }
}
