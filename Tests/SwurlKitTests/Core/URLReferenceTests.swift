import XCTest
@testable import SwurlCore

final class URLReferenceTests: XCTestCase {
    private func r(_ ref: String, _ base: String = "https://h/api/v1") -> String {
        URLReference.resolve(ref, against: base)
    }

    // The cases of issue 11 (AFHTTPSessionManager's behaviour).
    func testBaseWithPathGetsTrailingSlash() {
        XCTAssertEqual(URLReference.normalizedBase("https://h/api/v1"), "https://h/api/v1/")
        XCTAssertEqual(URLReference.normalizedBase("https://h/api/v1/"), "https://h/api/v1/")
        XCTAssertEqual(URLReference.normalizedBase("https://h"), "https://h")
        XCTAssertEqual(URLReference.normalizedBase("https://h/a?x=1"), "https://h/a/?x=1")
    }

    func testRelativePathJoinsBasePath() { XCTAssertEqual(r("foo"), "https://h/api/v1/foo") }
    func testAbsolutePathReplacesBasePath() { XCTAssertEqual(r("/foo"), "https://h/foo") }
    func testQueryIsKept() { XCTAssertEqual(r("foo?x=1"), "https://h/api/v1/foo?x=1") }
    func testAbsoluteURLReplacesBase() { XCTAssertEqual(r("http://other:8080/x"), "http://other:8080/x") }
    func testTrailingSlashIsKept() { XCTAssertEqual(r("foo/"), "https://h/api/v1/foo/") }
    func testEmptyReferenceIsTheBase() { XCTAssertEqual(r(""), "https://h/api/v1/") }
    func testDotDot() {
        XCTAssertEqual(r(".."), "https://h/api/")
        XCTAssertEqual(r("../v2/x"), "https://h/api/v2/x")
        XCTAssertEqual(r("../../../.."), "https://h/")
    }
    func testBaseWithoutPath() {
        XCTAssertEqual(r("foo", "http://127.0.0.1:8080"), "http://127.0.0.1:8080/foo")
        XCTAssertEqual(r("", "http://127.0.0.1:8080"), "http://127.0.0.1:8080")
    }
    func testNetworkPathReference() { XCTAssertEqual(r("//o/p"), "https://o/p") }
    func testQueryOnlyReplacesBaseQuery() { XCTAssertEqual(r("?q=1", "https://h/a/?z=2"), "https://h/a/?q=1") }

    // RFC 3986 section 5.4.1, base http://a/b/c/d;p?q (path ends in d;p: no slash added for this table).
    func testRFCNormalExamples() {
        let base = "http://a/b/c/d;p?q"
        func rfc(_ ref: String) -> String {
            // The table assumes the base as is; resolve against the base's directory form by hand.
            var parts = URLReference.Parts(base)
            parts.path = "/b/c/d;p"
            return URLReference.Parts.resolveStrict(ref, parts)
        }
        let table: [(String, String)] = [
            ("g:h", "g:h"), ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"),
            ("/g", "http://a/g"), ("//g", "http://g"), ("?y", "http://a/b/c/d;p?y"), ("g?y", "http://a/b/c/g?y"),
            ("#s", "http://a/b/c/d;p?q#s"), ("g#s", "http://a/b/c/g#s"), (";x", "http://a/b/c/;x"),
            ("", "http://a/b/c/d;p?q"), (".", "http://a/b/c/"), ("./", "http://a/b/c/"), ("..", "http://a/b/"),
            ("../", "http://a/b/"), ("../g", "http://a/b/g"), ("../..", "http://a/"), ("../../g", "http://a/g"),
            ("../../../g", "http://a/g"), ("/./g", "http://a/g"), ("/../g", "http://a/g"), ("g.", "http://a/b/c/g."),
            ("g..", "http://a/b/c/g.."), ("./../g", "http://a/b/g"), ("g/./h", "http://a/b/c/g/h"), ("g/../h", "http://a/b/c/h"),
        ]
        for (ref, want) in table { XCTAssertEqual(rfc(ref), want, ref) }
    }

    func testPartsSplit() {
        let p = URLReference.Parts("https://u@h:1/p/q?x=1#f")
        XCTAssertEqual(p.scheme, "https")
        XCTAssertEqual(p.authority, "u@h:1")
        XCTAssertEqual(p.path, "/p/q")
        XCTAssertEqual(p.query, "x=1")
        XCTAssertEqual(p.fragment, "f")
        XCTAssertNil(URLReference.Parts("foo").scheme)
        XCTAssertEqual(URLReference.Parts("a:b").scheme, "a")
    }

    /// A Location resolves against the request's URL as it is (no `/` added), spaces encoded.
    func testLocationsResolveAgainstTheRequestAsItIs() {
        XCTAssertEqual(URLReference.resolveLocation("sibling", against: "http://h/a/b/c"), "http://h/a/b/sibling")
        XCTAssertEqual(URLReference.resolveLocation("../x", against: "http://h/a/b/c"), "http://h/a/x")
        XCTAssertEqual(URLReference.resolveLocation("?q=1", against: "http://h/a/b/c?z=0"), "http://h/a/b/c?q=1")
        XCTAssertEqual(URLReference.resolveLocation("/e s?x=a b", against: "http://h/a"), "http://h/e%20s?x=a%20b")
        XCTAssertEqual(URLReference.resolveLocation("//o:8/p", against: "https://h/a"), "https://o:8/p")
        // The REPL's base-URL join differs on purpose.
        XCTAssertEqual(URLReference.resolve("sibling", against: "http://h/a/b/c"), "http://h/a/b/c/sibling")
    }

    /// Under `--path-as-is` a REPL path keeps its dot segments (`z/../v` is sent so), but its
    /// leading `./` and `../` step through the base (`cd ..` goes up), as libcurl joins a
    /// relative reference then; an absolute path stays whole.
    func testPathAsIsKeepsTheReferencesDotsButStepsThroughTheBase() {
        func r(_ ref: String, _ base: String) -> String { URLReference.resolve(ref, against: base, pathAsIs: true) }
        XCTAssertEqual(r("z/../v", "http://h/a/"), "http://h/a/z/../v")
        XCTAssertEqual(r("..", "http://h/a/b/"), "http://h/a/")
        XCTAssertEqual(r("../../x", "http://h/a/b/"), "http://h/x")
        XCTAssertEqual(r("../../../x", "http://h/a/b/"), "http://h/x")
        XCTAssertEqual(r("./x/./y", "http://h/a/"), "http://h/a/x/./y")
        XCTAssertEqual(r("/p/../q", "http://h/a/"), "http://h/p/../q")
        XCTAssertEqual(r("x", "http://h"), "http://h/x")
        XCTAssertEqual(URLReference.resolve("z/../v", against: "http://h/a/"), "http://h/a/v")
    }
}
