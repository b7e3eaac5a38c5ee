import XCTest
import Foundation
import SwurlTestSupport

/// `--retry` against a server that fails before it succeeds.
final class RetryTests: XCTestCase {
    func testRetriesUntilTheServerRecovers() throws {
        let server = try ScriptedServer()
        let r = try runSwurl(["--retry", "3", "--retry-delay", "0.05", server.url("/flaky?key=a&fails=2")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.text, "ok")
        XCTAssertEqual(r.stderr.components(separatedBy: "retrying in").count - 1, 2, r.stderr)
        XCTAssertEqual(server.requests().count, 3)
    }

    func testGivesUpAfterNRetriesAndShowsTheLastResponse() throws {
        let server = try ScriptedServer()
        let r = try runSwurl(["--check-status", "--retry", "1", "--retry-delay", "0.05", server.url("/flaky?key=b&fails=5")])
        XCTAssertEqual(r.status, 5)
        XCTAssertEqual(r.text, "try later")
        XCTAssertEqual(server.requests().count, 2)
    }

    /// A body cut after part of it was written is not retried (the retry would write it again):
    /// said, as the other reasons are; it ended in the error alone.
    func testABodyCutAfterPartOfItWasWrittenSaysWhyItIsNotRetried() throws {
        let server = try ScriptedServer()
        for output in [[String](), ["-o", TestPaths.temporaryDirectory() + "/f"]] {
            let r = try runSwurl(["--retry", "3", "--retry-delay", "0.05"] + output + [server.url("/file?size=100000&cut=1000&key=c\(output.count)")])
            XCTAssertEqual(r.status, 1, r.stderr)
            XCTAssertTrue(r.stderr.contains("swurl: not retrying: the body had begun, and a printed or -o body is not started again (-d resumes a download)"), r.stderr)
            XCTAssertFalse(r.stderr.contains("retrying in"), r.stderr)
        }
        // Without --retry nothing is said of retrying.
        let plain = try runSwurl([server.url("/file?size=100000&cut=1000&key=d")])
        XCTAssertFalse(plain.stderr.contains("retry"), plain.stderr)
    }

    func testNonIdempotentMethodsAreNotRetriedUnlessAsked() throws {
        let server = try ScriptedServer()
        let r = try runSwurl(["--retry", "3", "--retry-delay", "0.05", "POST", server.url("/flaky?key=c&fails=1"), "a=1"])
        XCTAssertEqual(r.text, "try later")
        XCTAssertEqual(server.requests().count, 1)
        let all = try runSwurl(["--retry", "3", "--retry-delay", "0.05", "--retry-all-methods", "POST",
                                server.url("/flaky?key=d&fails=1"), "a=1"])
        XCTAssertEqual(all.text, "ok")
        XCTAssertEqual(server.requests().filter { $0["method"] as? String == "POST" }.last?["body_len"] as? Int, 9)
    }

    /// A body file that grew between attempts is not sent as the first bytes of its new
    /// content under the old length: the retry stops with exit 66, naming the file (and the
    /// server never gets a second body).
    func testABodyFileThatChangedBetweenAttemptsIsNotSentAsAPiece() throws {
        let server = try ScriptedServer()
        let dir = TestPaths.temporaryDirectory()
        let file = dir + "/grow.txt"
        try "short\n".write(toFile: file, atomically: true, encoding: .utf8)
        let r = try runSwurl(["--retry", "2", "--retry-delay", "0.05", "PUT",
                              server.url("/flaky?key=g&fails=1&grow=" + file.urlQueryEscaped), "@" + file])
        XCTAssertEqual(r.status, 66, r.stderr)
        XCTAssertTrue(r.stderr.contains("'\(file)' changed since the request was first sent (6 bytes then, 15 now)"), r.stderr)
        let puts = server.requests().filter { $0["method"] as? String == "PUT" }
        XCTAssertEqual(puts.map { $0["body_len"] as? Int }, [6], "\(puts)")
    }

    func testRetryAfterIsHonoured() throws {
        let server = try ScriptedServer()
        let start = Date()
        let r = try runSwurl(["--retry", "2", "--retry-delay", "0.01", server.url("/flaky?key=e&fails=1&status=429&ra=1")])
        XCTAssertEqual(r.text, "ok", r.stderr)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.95)
    }

    func testRetryMaxTimeStopsEarly() throws {
        let server = try ScriptedServer()
        let r = try runSwurl(["--retry", "5", "--retry-max-time", "0.5", server.url("/flaky?key=f&fails=5&ra=2")])
        XCTAssertEqual(r.text, "try later")
        XCTAssertEqual(server.requests().count, 1)
        // It says why it did not wait for the server's Retry-After (it used to end in silence).
        XCTAssertTrue(r.stderr.contains("swurl: HTTP 503 Service Unavailable; not retrying: waiting 2.0 s for retry 1 of 5 would pass --retry-max-time 0.5"),
                      r.stderr)
        // A transport failure: the error names it, the note only why no retry follows.
        let port = try ServerProcess.refusedPort()
        let refused = try runSwurl(["--retry", "3", "--retry-delay", "5", "--retry-max-time", "1", "http://127.0.0.1:\(port)/"])
        XCTAssertEqual(refused.status, 1, refused.stderr)
        // (The wait has its jitter: between half of 5 s and 5 s.)
        XCTAssertTrue(refused.stderr.hasPrefix("swurl: not retrying: waiting "), refused.stderr)
        XCTAssertTrue(refused.stderr.contains(" s for retry 1 of 3 would pass --retry-max-time 1.0\nswurl: error: Failed to connect"), refused.stderr)
        XCTAssertFalse(refused.stderr.contains("retrying in"), refused.stderr)
        let quiet = try runSwurl(["-q", "--retry", "5", "--retry-max-time", "0.5", server.url("/flaky?key=f2&fails=5&ra=2")])
        XCTAssertFalse(quiet.stderr.contains("not retrying"), quiet.stderr)
    }

    func testConnectionFailuresAreRetried() throws {
        let port = try ServerProcess.refusedPort()
        let r = try runSwurl(["--retry", "2", "--retry-delay", "0.05", "http://127.0.0.1:\(port)/"])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr.components(separatedBy: "retrying in").count - 1, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("retry 2 of 2"), r.stderr)
        let quiet = try runSwurl(["-q", "--retry", "1", "--retry-delay", "0.05", "http://127.0.0.1:\(port)/"])
        XCTAssertFalse(quiet.stderr.contains("retrying"), quiet.stderr)
    }

    /// The retry notices on stderr, word for word (the engine reports events, the CLI words them).
    func testRetryNoticesReadAsBefore() throws {
        let server = try ScriptedServer()
        let r = try runSwurl(["--retry", "2", server.url("/flaky?key=g&fails=1&ra=0")])
        XCTAssertEqual(r.text, "ok", r.stderr)
        XCTAssertEqual(r.stderr, "swurl: HTTP 503 Service Unavailable; retrying in 0.0 s (retry 1 of 2)\n")

        let port = try ServerProcess.refusedPort()
        let refused = try runSwurl(["--retry", "1", "--retry-delay", "0.05", "http://127.0.0.1:\(port)/"])
        let lines = refused.stderr.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 3, refused.stderr)
        XCTAssertTrue(lines.first?.hasPrefix("swurl: Failed to connect to 127.0.0.1 port \(port)") ?? false, refused.stderr)
        // --retry-delay 0.05 waits 0.025 to 0.05 s, shown in hundredths (never 0.0).
        XCTAssertTrue(["0.03", "0.04", "0.05"].contains { lines.first?.hasSuffix("; retrying in \($0) s (retry 1 of 1)") ?? false },
                      refused.stderr)
    }

    func testTimeoutsAreRetried() throws {
        let r = try runSwurl(["--timeout", "0.4", "--retry", "1", "--retry-delay", "0.05", try HTTPBin.url("/delay/3")])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertEqual(r.stderr.components(separatedBy: "retrying in").count - 1, 1, r.stderr)
        // swurl's own stall check ends the transfer: no libcurl "(Callback aborted)" after it.
        XCTAssertTrue(r.stderr.contains("swurl: error: timed out after 0.4 seconds without data\n"), r.stderr)
        XCTAssertFalse(r.stderr.contains("Callback aborted"), r.stderr)
        let one = try runSwurl(["--timeout", "1", try HTTPBin.url("/delay/3")])
        XCTAssertEqual(one.status, 2, one.stderr)
        XCTAssertTrue(one.stderr.contains("timed out after 1 second without data\n"), one.stderr)
    }
}
