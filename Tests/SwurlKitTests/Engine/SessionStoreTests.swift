import XCTest
@testable import SwurlEngine
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

    /// New cookies are appended in the order this run made them, whatever the hashing; a
    /// changed one keeps its place (the file's order is creation order).
    func testMergeKeepsCreationOrder() {
        let names = (0..<40).map { "c\($0)" }
        let after = SessionData(cookies: names.map { cookie($0, "1") })
        for _ in 0..<5 {
            XCTAssertEqual(SessionData().merging(from: SessionData(), to: after).cookies.map(\.name), names)
        }
        let changed = SessionData(cookies: [cookie("c0", "1"), cookie("c1", "2")])
        let disk = SessionData(cookies: [cookie("c0", "1"), cookie("c1", "1"), cookie("c2", "1")])
        XCTAssertEqual(disk.merging(from: disk, to: changed).cookies.map { "\($0.name)=\($0.value)" }, ["c0=1", "c1=2"])
    }

    func testDefaultPathFollowsRFC6265() {
        XCTAssertEqual(SessionCookie.defaultPath(""), "/")
        XCTAssertEqual(SessionCookie.defaultPath("/"), "/")
        XCTAssertEqual(SessionCookie.defaultPath("/login"), "/")
        XCTAssertEqual(SessionCookie.defaultPath("/a/b/login?x=/y"), "/a/b")
        XCTAssertEqual(SessionCookie.defaultPath("/a/b/"), "/a/b")
        XCTAssertEqual(SessionCookie.defaultPath("x/y"), "/")
    }

    func testLimitsDropLargeCookiesThenEachDomainsOldestThenTheOldestToFit() throws {
        var data = SessionData(cookies: [cookie("big", String(repeating: "x", count: 4094))]
            + (0..<52).map { cookie("a\($0)", "1") } + [cookie("b", "1", domain: "b.example")])
        let warnings = try SessionLimits.enforce(&data, shown: "f", maxSize: 1 << 20)
        XCTAssertEqual(data.cookies.map(\.name), (2..<52).map { "a\($0)" } + ["b"])
        XCTAssertEqual(warnings.count, 2, "\(warnings)")
        // Within a small file: the oldest go first, the newest stay.
        var small = SessionData(cookies: (0..<10).map { cookie("c\($0)", String(repeating: "v", count: 100)) })
        let fit = SessionFormat.encode(small).count - 300
        XCTAssertEqual(try SessionLimits.enforce(&small, shown: "f", maxSize: fit).count, 1)
        XCTAssertLessThanOrEqual(SessionFormat.encode(small).count, fit)
        XCTAssertEqual(small.cookies.last?.name, "c9")
        XCTAssertEqual(small.cookies.first?.name, "c2", "two entries of ~230 bytes make room for 300")
    }

    func testFormatRoundTripsAndIsReadable() throws {
        let data = SessionData(headers: [.init(name: "X-Q", value: "a \"b\" \\ é")],
                               auth: SessionAuth(type: .digest, origin: "http://h:80", user: "ann", password: "p:w"),
                               cookies: [cookie("n", "v=1", sub: true)])
        let bytes = SessionFormat.encode(data)
        XCTAssertEqual(try SessionFormat.decode(bytes, file: "f"), data)
        XCTAssertTrue(String(decoding: bytes, as: UTF8.self).contains("\n    {\"name\": \"X-Q\""))
    }

    /// An HTTPie session file is named as one, not as a broken swurl session to remove.
    func testAnHTTPieSessionFileIsNamedAsOne() {
        let httpie = Array(#"{"__meta__": {"about": "HTTPie session file", "httpie": "3.2.4"}, "auth": {}, "cookies": [], "headers": []}"#.utf8)
        XCTAssertThrowsError(try SessionFormat.decode(httpie, file: "hs.json")) { error in
            guard case .badData(let message, let hint) = error as? SwurlError else { return XCTFail("\(error)") }
            XCTAssertTrue(message.contains("is an HTTPie session file"), message)
            XCTAssertEqual(hint?.contains("remove"), false)
        }
        XCTAssertThrowsError(try SessionFormat.decode(Array(#"{"version": 2}"#.utf8), file: "f")) { error in
            guard case .badData(let message, _) = error as? SwurlError else { return XCTFail("\(error)") }
            XCTAssertTrue(message.hasSuffix("is not valid: \"version\" must be 1"), message)
        }
    }

    func testNamedSessionsLiveUnderTheHostAndPort() throws {
        let s = try SessionStore.location("work", origin: Origin(url: "https://API.example.org/x"), configDirectory: "/c")
        XCTAssertEqual(s.path, "/c/swurl/sessions/api.example.org_443/work.json")
        XCTAssertEqual(try SessionStore.location("./w.json", origin: Origin(url: "http://h/"), configDirectory: "/c").path, "./w.json")
        XCTAssertThrowsError(try SessionStore.location("", origin: Origin(url: "http://h/"), configDirectory: "/c"))
    }
}
