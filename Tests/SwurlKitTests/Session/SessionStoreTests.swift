import XCTest
@testable import SwurlSession
import SwurlCore

/// The session model: cookie lines to and from libcurl's format, host binding, the merge of
/// concurrent writers, and the file format's checks.
final class SessionStoreTests: XCTestCase {
    private func cookie(_ name: String, _ value: String, domain: String = "a.example", sub: Bool = false) -> SessionCookie {
        SessionCookie(domain: domain, includeSubdomains: sub, path: "/", secure: false, httpOnly: false,
                      expires: 0, name: name, value: value)
    }

    func testNetscapeLinesRoundTripIncludingHttpOnlyAndDomainCookies() {
        let line = "#HttpOnly_.a.example\tTRUE\t/p\tTRUE\t1900000000\tsid\tx=y z"
        let c = SessionCookie(netscapeLine: line)
        XCTAssertEqual(c?.domain, "a.example")
        XCTAssertEqual(c?.includeSubdomains, true)
        XCTAssertEqual(c?.httpOnly, true)
        XCTAssertEqual(c?.secure, true)
        XCTAssertEqual(c?.value, "x=y z")
        XCTAssertEqual(c?.netscapeLine, line)
        XCTAssertNil(SessionCookie(netscapeLine: "a.example\tFALSE\t/"))
    }

    func testACookieLineTheFileReaderWouldRefuseIsDropped() {
        // A tab inside the value (the seventh field) would make the saved file unreadable.
        XCTAssertNil(SessionCookie(netscapeLine: "a.example\tFALSE\t/\tFALSE\t0\tbad\tx\ty"))
        XCTAssertNil(SessionCookie(netscapeLine: "a.example\tFALSE\t/\tFALSE\t0\tbad\tx\u{1B}[31m"))
        XCTAssertEqual(SessionCookie(netscapeLine: "a.example\tFALSE\t/\tFALSE\t0\tgood\t1")?.value, "1")
    }

    func testHostOnlyCookieAppliesToItsHostOnly() {
        XCTAssertTrue(cookie("a", "1").applies(toHost: "A.example"))
        XCTAssertFalse(cookie("a", "1").applies(toHost: "b.a.example"))
        XCTAssertFalse(cookie("a", "1").applies(toHost: "xa.example"))
        XCTAssertTrue(cookie("a", "1", sub: true).applies(toHost: "b.a.example"))
        XCTAssertFalse(cookie("a", "1", sub: true).applies(toHost: "ba.example"))
    }

    func testMergeKeepsOtherWritersChangesAndAppliesOurs() {
        let before = SessionData(headers: [.init(name: "X-A", value: "1")], cookies: [cookie("keep", "1"), cookie("drop", "1")])
        let after = SessionData(headers: [.init(name: "X-A", value: "2")], cookies: [cookie("keep", "1"), cookie("mine", "1")])
        // Meanwhile another process added a header and a cookie and changed "keep".
        let disk = SessionData(headers: [.init(name: "X-A", value: "1"), .init(name: "X-B", value: "b")],
                               cookies: [cookie("keep", "9"), cookie("drop", "1"), cookie("theirs", "1")])
        let merged = disk.merging(from: before, to: after)
        XCTAssertEqual(merged.headers, [.init(name: "X-A", value: "2"), .init(name: "X-B", value: "b")])
        XCTAssertEqual(merged.cookies.map { "\($0.name)=\($0.value)" }, ["keep=9", "theirs=1", "mine=1"])
    }

    func testFormatRoundTripsAndIsReadable() throws {
        let data = SessionData(headers: [.init(name: "X-Q", value: "a \"b\" \\ é")],
                               auth: SessionAuth(type: .digest, origin: "http://h:80", user: "ann", password: "p:w"),
                               cookies: [cookie("n", "v;1", sub: true)])
        let bytes = SessionFormat.encode(data)
        XCTAssertEqual(try SessionFormat.decode(bytes, file: "f"), data)
        XCTAssertTrue(String(decoding: bytes, as: UTF8.self).contains("\n    {\"name\": \"X-Q\""))
    }

    func testNamedSessionsLiveUnderTheHostAndPort() throws {
        let s = try SessionStore.location("work", origin: Origin(url: "https://API.example.org/x"), configDirectory: "/c")
        XCTAssertEqual(s.path, "/c/swurl/sessions/api.example.org_443/work.json")
        XCTAssertEqual(try SessionStore.location("./w.json", origin: Origin(url: "http://h/"), configDirectory: "/c").path, "./w.json")
        XCTAssertThrowsError(try SessionStore.location("", origin: Origin(url: "http://h/"), configDirectory: "/c"))
    }
}
