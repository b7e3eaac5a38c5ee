import XCTest
@testable import SwurlCLI
@testable import SwurlCore

final class URLBuilderTests: XCTestCase {
    func testLocalhostShorthands() throws {
        XCTAssertEqual(try URLBuilder.resolve(":8080/x").url, "http://localhost:8080/x")
        XCTAssertEqual(try URLBuilder.resolve(":/x").url, "http://localhost/x")
        XCTAssertEqual(try URLBuilder.resolve(":").url, "http://localhost/")
        XCTAssertEqual(try URLBuilder.resolve(":3000").url, "http://localhost:3000/")
    }

    func testMissingSchemeGetsTheDefault() throws {
        XCTAssertEqual(try URLBuilder.resolve("example.org/a?b=1").url, "http://example.org/a?b=1")
        XCTAssertEqual(try URLBuilder.resolve("example.org", defaultScheme: "https").url, "https://example.org/")
        XCTAssertEqual(try URLBuilder.resolve("://example.org").url, "http://example.org/")
        // Scheme-relative (it was glued to the scheme as http:////host).
        XCTAssertEqual(try URLBuilder.resolve("//example.org:8080/a").url, "http://example.org:8080/a")
        XCTAssertEqual(try URLBuilder.resolve("//u:p@example.org/", defaultScheme: "https").url, "https://u:p@example.org/")
    }

    func testBadURLsAreUsageErrors() {
        for bad in ["http://", "", "ftp://example.org", ":abc"] {
            XCTAssertThrowsError(try URLBuilder.resolve(bad), bad) { error in
                XCTAssertEqual(ExitStatus(for: error as! SwurlError), .usage)
            }
        }
    }

    /// A backslash before the path: libcurl reads `good\@evil` as a user name and connects to
    /// `evil`, a browser and HTTPie read it as a path on `good`. Refused; after the path it is
    /// the path's (percent-encoded).
    func testABackslashInTheAuthorityIsRefused() throws {
        for bad in ["http://good.example:1\\@evil.example:2/x", "good.example\\@evil.example/", "https://a\\b:p@h/",
                    "//h\\x@e/"] {
            XCTAssertThrowsError(try URLBuilder.resolve(bad), bad) { error in
                XCTAssertEqual(ExitStatus(for: error as! SwurlError), .usage)
                XCTAssertTrue((error as! SwurlError).message.contains("a '\\' before the path"), "\(error)")
            }
        }
        for good in ["http://h/a\\b", "h/x?q=a\\b", "h#\\"] {
            XCTAssertNoThrow(try URLBuilder.resolve(good), good)
        }
        XCTAssertFalse(URLBuilder.hasBackslashInAuthority("http://h?q=\\"))
        // On the word as typed, before its unsafe bytes are percent-encoded (`//…` read as a path).
        for typed in ["//good\\@evil/", "http:/\\evil/", "http:\\\\evil\\x", "good\\@evil"] {
            XCTAssertThrowsError(try CommandOptions.checkURLWord(typed), typed)
        }
        XCTAssertNoThrow(try CommandOptions.checkURLWord("//h/a\\b"))
        XCTAssertTrue(URLBuilder.hasBackslashInAuthority("http://h\\"))
    }

    func testQueryJoinsExistingQueryAndKeepsFragment() {
        XCTAssertEqual(URLText.appendingQuery("a=1", to: "http://x/p"), "http://x/p?a=1")
        XCTAssertEqual(URLText.appendingQuery("a=1", to: "http://x/p?b=2"), "http://x/p?b=2&a=1")
        XCTAssertEqual(URLText.appendingQuery("a=1", to: "http://x/p?"), "http://x/p?a=1")
        XCTAssertEqual(URLText.appendingQuery("a=1", to: "http://x/p?b=2&"), "http://x/p?b=2&a=1")
        // Regression: a last value ending in '?' swallowed the item (`next=/home?q=1`).
        XCTAssertEqual(URLText.appendingQuery("q=1", to: "http://x/p?next=/home?"), "http://x/p?next=/home?&q=1")
        XCTAssertEqual(URLText.appendingQuery("q=1", to: "http://x/p??"), "http://x/p??&q=1")
        XCTAssertEqual(URLText.appendingQuery("a=1", to: "http://x/p#f"), "http://x/p?a=1#f")
    }

    func testRequestTargetAndHostHeader() throws {
        let u = try URLBuilder.resolve("http://127.0.0.1:81/a%20b?x=1")
        XCTAssertEqual(u.requestTarget, "/a%20b?x=1")
        XCTAssertEqual(u.hostHeader, "127.0.0.1:81")
        XCTAssertEqual(try URLBuilder.resolve("https://example.org").hostHeader, "example.org")
    }

    func testSchemeIsFoundByBytesOrByCharacters() {
        XCTAssertEqual(URLText.schemeOf("http://x"), "http")
        XCTAssertEqual(URLText.schemeOf("HTTPS://x/a://b"), "HTTPS")
        XCTAssertEqual(URLText.schemeOf("svn+ssh://x"), "svn+ssh")
        XCTAssertEqual(URLText.schemeOf("a://"), "a")
        XCTAssertNil(URLText.schemeOf("1http://x"))
        XCTAssertNil(URLText.schemeOf("://x"))
        XCTAssertNil(URLText.schemeOf("http:/x"))
        XCTAssertNil(URLText.schemeOf("x/http://y"))
        XCTAssertNil(URLText.schemeOf("example.org"))
        // Beyond ASCII the Character rules decide: '/' then a combining mark is one Character.
        XCTAssertNil(URLText.schemeOf("http://\u{301}x"))
        XCTAssertEqual(URLText.schemeOf("http://\u{E9}x"), "http")
        XCTAssertNil(URLText.schemeOf("h\u{E9}://x"))
    }

    func testUnsafeBytesInPathQueryAndFragmentArePercentEncoded() {
        XCTAssertEqual(URLText.percentEncodingUnsafeBytes("http://h\u{E9}st/a b\"<>\\^`{|}~\u{E9}?q=1\t2#f\u{7F}"),
                       "http://h\u{E9}st/a%20b%22%3C%3E%5C%5E%60%7B%7C%7D~%C3%A9?q=1%092#f%7F")
        XCTAssertEqual(URLText.percentEncodingUnsafeBytes("http://x/ok-path_~.!$&'()*+,;=:@%41"), "http://x/ok-path_~.!$&'()*+,;=:@%41")
        XCTAssertEqual(URLText.percentEncodingUnsafeBytes("x y"), "x y")
    }

    func testResolvedURLIsTheResolvedURLsText() {
        func outcome(_ body: () throws -> String) -> String {
            do { return try body() } catch { return "error: \((error as? SwurlError)?.message ?? "\(error)")" }
        }
        for raw in ["example.org", "HTTP://Example.org:80/a/../b?q=1#f", ":8080/x", ":", "https://u:p@h/", "http://[::1]:8/",
                    "", "ftp://x", "http://", "http://a b/", ":x", "h\u{E9}st/p\u{E9}", "http://x/%zz"] {
            XCTAssertEqual(outcome { try URLBuilder.resolvedURL(raw) }, outcome { try URLBuilder.resolve(raw).url }, raw)
        }
        XCTAssertEqual(outcome { try URLBuilder.resolvedURL("x", defaultScheme: "https") }, "https://x/")
    }
}
