import XCTest
import Foundation
import SwurlTestSupport

/// `--timing`, `--timing=json` and `--print=m`.
final class TimingTests: XCTestCase {
    /// The `--timing=json` object on stderr (after an error line when the transfer failed).
    private func timing(_ r: SwurlResult) throws -> [String: Any] {
        let line = try XCTUnwrap(r.stderr.split(separator: "\n").first { $0.hasPrefix("{") }, r.stderr)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], r.stderr)
    }

    func testJSONTimingIsConsistent() throws {
        let r = try runSwurl(["--timing=json", try HTTPBin.url("/delay/0.2")])
        XCTAssertEqual(r.status, 0, r.stderr)
        let t = try timing(r)
        let total = try XCTUnwrap(t["total"] as? Double)
        XCTAssertGreaterThanOrEqual(total, 0.2)
        for phase in ["dns", "connect", "tls", "wait", "transfer", "redirect"] {
            let v = try XCTUnwrap(t[phase] as? Double, phase)
            XCTAssertGreaterThanOrEqual(v, 0, phase)
            XCTAssertLessThanOrEqual(v, total, phase)
        }
        XCTAssertGreaterThanOrEqual(t["wait"] as? Double ?? 0, 0.2)
        let sum = ["dns", "connect", "tls", "wait", "transfer"].compactMap { t[$0] as? Double }.reduce(0, +)
        XCTAssertLessThanOrEqual(sum, total + 0.001)
        XCTAssertEqual(t["remote_ip"] as? String, "127.0.0.1")
        XCTAssertEqual(t["size_download"] as? Int, r.stdout.count)
        XCTAssertEqual(t["http_version"] as? String, "1.1")
        XCTAssertEqual(t["status"] as? Int, 200)
        // The final response's status, as curl's %{http_code}: after redirects, and a 404 too.
        let moved = try runSwurl(["--timing=json", "-F", try HTTPBin.url("/redirect-to?url=/status/404")])
        XCTAssertEqual(try timing(moved)["status"] as? Int, 404, moved.stderr)
        XCTAssertEqual(try timing(moved)["redirects"] as? Int, 1, moved.stderr)
    }

    /// With a body, libcurl 7.88 starts its first-byte clock when the upload starts: the
    /// server's think time showed as transfer (wait 0.4 ms, transfer 2 s) in --timing, a
    /// batch's time_first_byte and the report's bars. The wait is the server's now.
    func testARequestWithABodyWaitsForItsFirstByte() throws {
        let r = try runSwurl(["--timing=json", "POST", try HTTPBin.url("/delay/0.5"), "a=1"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let t = try timing(r)
        XCTAssertGreaterThanOrEqual(t["wait"] as? Double ?? 0, 0.5, r.stderr)
        XCTAssertLessThan(t["transfer"] as? Double ?? 1, 0.5, r.stderr)
        let dir = TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "POST \(try HTTPBin.url("/delay/0.5")) a=1\n".write(toFile: dir + "/lines", atomically: true, encoding: .utf8)
        let batch = try runSwurl(["batch", dir + "/lines", "--jsonl", "-q"])
        XCTAssertEqual(batch.status, 0, batch.stderr)
        let result = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(batch.text.utf8)) as? [String: Any])
        XCTAssertGreaterThanOrEqual(result["time_first_byte"] as? Double ?? 0, 0.5, batch.text)
    }

    /// A transfer that fails still writes its timing (curl's -w does), split as its HAR entry
    /// is: a refused connection is connecting, a server that never answers is waited for.
    func testATransferThatFailsStillWritesItsTiming() throws {
        let refused = try runSwurl(["--timing=json", "http://127.0.0.1:1/"])
        XCTAssertEqual(refused.status, 1, refused.stderr)
        XCTAssertEqual(try timing(refused)["wait"] as? Double, 0, refused.stderr)
        XCTAssertTrue(try timing(refused)["status"] is NSNull, refused.stderr)
        // A chain stopped by --max-redirects (exit 6): it printed nothing.
        let loop = try runSwurl(["--timing=json", "-F", "--max-redirects", "1", try HTTPBin.url("/redirect/3")])
        XCTAssertEqual(loop.status, 6, loop.stderr)
        XCTAssertEqual(try timing(loop)["status"] as? Int, 302, loop.stderr)
        XCTAssertEqual(try timing(loop)["redirects"] as? Int, 1, loop.stderr)
        let slow = try runSwurl(["--timing=json", "--timeout", "0.5", try HTTPBin.url("/delay/3")])
        XCTAssertEqual(slow.status, 2, slow.stderr)
        let t = try timing(slow)
        XCTAssertGreaterThanOrEqual(t["wait"] as? Double ?? 0, 0.4, slow.stderr)
        XCTAssertLessThan(t["transfer"] as? Double ?? 1, 0.1, slow.stderr)
    }

    func testRedirectTimeIsPartOfTheTotal() throws {
        let r = try runSwurl(["-F", "--timing=json", try HTTPBin.url("/redirect/2")])
        let t = try timing(r)
        XCTAssertEqual(t["redirects"] as? Int, 2)
        XCTAssertGreaterThan(t["redirect"] as? Double ?? 0, 0)
        XCTAssertLessThanOrEqual(t["redirect"] as? Double ?? 1, t["total"] as? Double ?? 0)
        // gunicorn closes each connection: three requests, three connections (the final one's
        // alone were counted: 1).
        XCTAssertEqual(t["new_connections"] as? Int, 3, r.stderr)
        XCTAssertEqual(t["connection_reused"] as? Bool, false, r.stderr)
    }

    /// A redirect nginx answers on a kept-alive connection: the final request reused it, so it
    /// had no DNS, connect or TLS of its own (shown as 0.0 ms, and TLS as `-`, as if plain http).
    func testAFinalRequestOverAReusedConnectionSaysSo() throws {
        let nginx = try NginxServer(serverConfig: "location = /r { return 302 /final; } location = /final { return 200 \"ok\\n\"; }")
        let json = try timing(try runSwurl(["-F", "--timing=json", nginx.url("/r")]))
        XCTAssertEqual(json["new_connections"] as? Int, 1, "\(json)")
        XCTAssertEqual(json["connection_reused"] as? Bool, true, "\(json)")
        let text = try runSwurl(["-F", "--timing", nginx.url("/r")])
        func row(_ label: String) -> String? {
            text.stderr.split(separator: "\n").first { $0.hasPrefix(label + "  ") }.map { $0.dropFirst(label.count).trimmingCharacters(in: .whitespaces) }
        }
        XCTAssertEqual(row("TCP connect"), "- (connection reused)", text.stderr)
        XCTAssertEqual(row("TLS handshake"), "-", text.stderr)
        XCTAssertEqual(row("Connections"), "1 new", text.stderr)
        let alone = try runSwurl(["--timing", nginx.url("/final")])
        XCTAssertFalse(alone.stderr.contains("reused") || alone.stderr.contains("Connections"), alone.stderr)
    }

    /// Piped, the meta part starts after a blank line as on a terminal: a body without a final
    /// newline no longer runs into it (`{"a":1}DNS lookup`); without `m` the body is as sent.
    func testTheMetaPartStartsOnALineOfItsOwnWhenPiped() throws {
        let s = try FixtureServer()
        try s.put("a.json", "{\"a\":1}")
        try s.put("b.json", "{\"a\":1}\n")
        let open = s.url("a.json", type: "application/json"), ended = s.url("b.json", type: "application/json")
        let bm = try runSwurl(["-p", "bm", open])
        XCTAssertEqual(bm.status, 0, bm.stderr)
        XCTAssertTrue(bm.text.hasPrefix("{\"a\":1}\n\nDNS lookup"), bm.text)
        let endedBM = try runSwurl(["-p", "bm", ended])
        XCTAssertTrue(endedBM.text.hasPrefix("{\"a\":1}\n\nDNS lookup"), endedBM.text)
        let hbm = try runSwurl(["-p", "hbm", open])
        XCTAssertTrue(hbm.text.contains("\r\n\r\n{\"a\":1}\n\nDNS lookup") || hbm.text.contains("\n\n{\"a\":1}\n\nDNS lookup"), hbm.text)
        let b = try runSwurl(["-p", "b", open])
        XCTAssertEqual(b.stdout, Data("{\"a\":1}".utf8))
    }

    func testTextTimingAndTheMetaLetter() throws {
        let r = try runSwurl(["--timing", try HTTPBin.url("/get")])
        for label in ["DNS lookup", "TCP connect", "TLS handshake", "Waiting (TTFB)", "Transfer", "Total", "Remote address"] {
            XCTAssertTrue(r.stderr.contains(label), label + ": " + r.stderr)
        }
        let m = try runSwurl(["--print=m", try HTTPBin.url("/get")])
        XCTAssertTrue(m.text.contains("Total"), m.text)
        XCTAssertFalse(m.text.contains("\"headers\""), "only the meta part")
    }
}
