import XCTest
@testable import SwurlEngine
import SwurlCore

/// The engine's rules that the capture test (OfflineAndErrorTests) does not reach with a few
/// cookies: the 8190-byte cap, the 150-cookie cap, path matching edge cases, the Host header.
final class EngineCookieHeaderTests: XCTestCase {
    func cookie(_ name: String, _ value: String = "v", path: String = "/", domain: String = "example.org",
                subdomains: Bool = false, secure: Bool = false) -> SessionCookie {
        SessionCookie(domain: domain, includeSubdomains: subdomains, path: path, secure: secure, httpOnly: false,
                      expires: 0, name: name, value: value)
    }

    func testPathMatchingFollowsRFC6265() {
        XCTAssertTrue(EngineCookieHeader.pathMatches("/", "/anything"))
        XCTAssertTrue(EngineCookieHeader.pathMatches("/a", "/a"))
        XCTAssertTrue(EngineCookieHeader.pathMatches("/a", "/a/b?q=1"))
        XCTAssertFalse(EngineCookieHeader.pathMatches("/a", "/ab"))
        XCTAssertFalse(EngineCookieHeader.pathMatches("/A", "/a"))
        XCTAssertEqual(EngineCookieHeader.sanitized("/a/"), "/a")
        XCTAssertEqual(EngineCookieHeader.sanitized("a"), "/")
        XCTAssertEqual(EngineCookieHeader.sanitized("\"/q\""), "/q")
    }

    func testSecureCookiesOnlyInASecureContextAndDomainCookiesForSubdomains() {
        let cookies = [cookie("s", secure: true), cookie("d", domain: "example.org", subdomains: true)]
        XCTAssertEqual(EngineCookieHeader.value(cookies, host: "example.org", path: "/", https: false, now: 0), "d=v")
        // Equal path, domain and name lengths: the older (first listed) goes first.
        XCTAssertEqual(EngineCookieHeader.value(cookies, host: "example.org", path: "/", https: true, now: 0), "s=v; d=v")
        XCTAssertEqual(EngineCookieHeader.value(cookies, host: "api.example.org", path: "/", https: false, now: 0), "d=v")
        XCTAssertNil(EngineCookieHeader.value(cookies, host: "badexample.org", path: "/", https: false, now: 0))
        XCTAssertEqual(EngineCookieHeader.cookieHost(urlHost: "[::1]", hostHeader: nil), "::1")
        XCTAssertEqual(EngineCookieHeader.cookieHost(urlHost: "127.0.0.1", hostHeader: "Example.test:8080"), "Example.test")
        XCTAssertEqual(EngineCookieHeader.cookieHost(urlHost: "127.0.0.1", hostHeader: "[::2]:80"), "::2")
    }

    /// A cookie byte that is not UTF-8 (kept as an `ArgumentBytes` escape) is shown by
    /// `--offline` as the byte the engine sends.
    func testOfflineShowsACookieByteThatIsNotUTF8AsThatByte() throws {
        let value = ArgumentBytes.decode(Array("caf".utf8) + [0xE9])
        let head = try OfflineRequest.head(HTTPRequest(method: .get, url: "http://example.org/"), cookies: [cookie("a", value)], now: 0)
        let needle = Array("Cookie: a=caf".utf8) + [0xE9, 0x0D, 0x0A]
        XCTAssertNotNil((0...(head.count - needle.count)).first { Array(head[$0..<($0 + needle.count)]) == needle },
                        String(decoding: head, as: UTF8.self))
    }

    func testTheHeaderStopsBefore8190BytesAndAt150Cookies() throws {
        let big = (0..<20).map { cookie("c\($0)", String(repeating: "x", count: 1000)) }
        let line = try XCTUnwrap(EngineCookieHeader.value(big, host: "example.org", path: "/", https: false, now: 0))
        XCTAssertLessThan(line.utf8.count, 8190)
        XCTAssertEqual(line.split(separator: ";").count, 8)
        let many = (0..<200).map { cookie("n\($0)") }
        let all = try XCTUnwrap(EngineCookieHeader.value(many, host: "example.org", path: "/", https: false, now: 0))
        XCTAssertEqual(all.split(separator: ";").count, 150)
    }
}
