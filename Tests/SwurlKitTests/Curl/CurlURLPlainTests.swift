import XCTest
@testable import SwurlCurl

/// The plain-URL fast path must give exactly libcurl's parts for every URL it takes.
final class CurlURLPlainTests: XCTestCase {
    private func assertSameAsLibcurl(_ url: String, file: StaticString = #filePath, line: UInt = #line) throws -> Bool {
        guard let fast = try CurlURL.allParts(url, libcurl: false) else { return false }
        let slow: [String?]?
        do { slow = try CurlURL.allParts(url, libcurl: true) } catch {
            XCTFail("the fast path took \(url.debugDescription), which libcurl refuses: \(error.message)", file: file, line: line)
            return true
        }
        XCTAssertEqual(fast, slow, "parts of \(url.debugDescription)", file: file, line: line)
        return true
    }

    func testCommonURLsTakeTheFastPathWithLibcurlsParts() throws {
        for url in ["http://127.0.0.1:8080/small.txt", "https://api.example.com/v1/items?x=1&y=%20z",
                    "http://localhost", "https://example.com:8443", "http://a-b.c0m/x/y.json?q=a.b/c?d",
                    "http://10.0.0.255/", "https://h.example/p;a=b/@:!$&'()*+,=~_-", "http://h.example/%4a%2f?q=%e9%2E",
                    "http://h.example/a.b/c..d/e.?x=./../"] {
            XCTAssertTrue(try assertSameAsLibcurl(url), "\(url) should take the fast path")
        }
    }

    /// Long names and paths: whatever the fast path takes, libcurl must agree with.
    func testLongHostsLabelsAndPaths() throws {
        let label = String(repeating: "a", count: 70)
        for url in ["http://\(label).example/", "http://" + Array(repeating: "abcdefghi", count: 28).joined(separator: ".") + "/",
                    "http://" + Array(repeating: "abcdefghi", count: 25).joined(separator: ".") + "/x",
                    "http://example.com/" + String(repeating: "p", count: 100_000),
                    "http://example.com/?" + String(repeating: "q", count: 100_000)] {
            _ = try assertSameAsLibcurl(url)
        }
        XCTAssertNil(try CurlURL.allParts("http://example.com/" + String(repeating: "p", count: 8_000_000), libcurl: false))
    }

    func testURLsLibcurlWouldRewriteTakeItsParse() throws {
        for url in ["HTTP://example.com/", "http://Example.com/", "http://127.1/", "http://0x7f.0.0.1/", "http://2130706433/",
                    "http://010.0.0.1/", "http://example.com:080/", "http://example.com:0/", "http://example.com:65536/",
                    "http://example.com:/", "http://example.com?x", "http://example.com/a/../b", "http://example.com/./b",
                    "http://example.com/a/%2e%2E/b", "http://example.com/a?", "http://u:p@example.com/", "http://example.com/#f",
                    "http://[::1]/", "http://exa mple.com/", "http://example.com/a b", "http://example.com/%zz",
                    "http://example..com/", "http://example.com./", "http://.example.com/", "ftp://example.com/",
                    "http://abc/", "http://caf\u{E9}.com/", "http://example.com\\@evil.com/", "http://example.com/\u{7F}"] {
            XCTAssertNil(try CurlURL.allParts(url, libcurl: false), "\(url.debugDescription) must take libcurl's parse")
        }
    }

    func testRandomURLsAgreeWithLibcurl() throws {
        var rng = SeededGenerator(state: 0x5EED_0F_0C0D)
        // Mostly ordinary pieces, so that many URLs reach the fast path, with tricky ones mixed in.
        func pick(_ plain: [String], _ tricky: [String]) -> String {
            let set = rng.next() % 4 == 0 ? tricky : plain
            return set[Int(rng.next() % UInt64(set.count))]
        }
        var taken = 0
        for _ in 0..<100_000 {
            var url = pick(["http://", "https://"], ["HTTP://", "http:/", "ftp://", "", "https:///"])
            for k in 0..<(1 + Int(rng.next() % 4)) {
                if k > 0 { url += pick(["."], ["", "..", "-"]) }
                url += pick(["a", "example", "com", "g0", "h-1", "localhost", "127", "0", "1", "255"],
                            ["x", "0x7f", "00", "256", "dead", "Z", "_", "%41", "@", "[::1]", "-", "\u{E9}"])
            }
            url += pick(["", ":1", ":80", ":8080", ":65535"], [":", ":0", ":080", ":65536", ":99999", ":12a"])
            for _ in 0..<Int(rng.next() % 8) {
                url += pick(["/", "a", "b.json", "%41", "?", "=", "&", "x.y", "~", "+", ",", ";", ":", "@", "!", "-_"],
                            [".", "..", "%2e", "%2E", "%4", "%", "#", " ", "\\", "'", "$", "(", ")", "*", "Z", "\u{E9}",
                             "\u{7F}", "\t", "//", "/./", "/../", "/.", "?#"])
            }
            if try assertSameAsLibcurl(url) { taken += 1 }
        }
        // The generator must reach the fast path often enough for the comparison to mean something.
        XCTAssertGreaterThan(taken, 2_500)
    }
}
