import XCTest
@testable import SwurlEngine
@testable import SwurlCore

/// The rebuilt request head (`SentRequestHead`) with a memo of what the header lines came to
/// is the head without one, line after line, whether the lines repeat, change, or make the head
/// unknown. (What libcurl really sends is held to it by the HAR tests against real servers.)
final class SentRequestHeadTests: XCTestCase {
    private func head(_ url: String, _ lines: [String], acceptEncoding: String? = "deflate, gzip",
                      memo: SentHeadMemo?) -> String? {
        guard let parts = SentRequestHead.rebuild(HTTPRequest(method: .get, url: url), lines: lines, options: TransferOptions(),
                                                  digest: false, acceptEncoding: acceptEncoding, cookiesPossible: false, memo: memo)
        else { return nil }
        // The bytes as the HAR's formatter makes them, and the length the transfer checks
        // against libcurl's count without making them.
        var out = ByteBuffer(capacity: 256)
        var text = url, method = "GET"
        text.withUTF8 { u in
            method.withUTF8 { m in
                parts.tail.withUnsafeBufferPointer { tail in
                    RebuiltRequestHead.append(method: m, url: u, path: parts.path, query: parts.query, host: parts.host, port: parts.port,
                                              tail: tail, to: &out)
                }
            }
        }
        XCTAssertEqual(parts.count, out.count, url)
        return out.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }

    func testTheHeadIsLibcurlsForPlainLines() {
        XCTAssertEqual(head("http://127.0.0.1:8080/a?b=1", ["User-Agent: swurl/1", "X-Empty;", "Accept:", "Expect:"], memo: nil),
                       "GET /a?b=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nAccept-Encoding: deflate, gzip\r\n"
                       + "User-Agent: swurl/1\r\nX-Empty:\r\n\r\n")
        XCTAssertEqual(head("http://h.test/", ["User-Agent: swurl/1"], acceptEncoding: nil, memo: nil),
                       "GET / HTTP/1.1\r\nHost: h.test\r\nAccept: */*\r\nUser-Agent: swurl/1\r\n\r\n")
        XCTAssertNil(head("http://h.test/", ["Cookie: a=b"], memo: nil), "libcurl adds cookies of its own")
        XCTAssertNil(head("https://h.test/", ["User-Agent: swurl/1"], memo: nil), "only plain http:// URLs")
        XCTAssertEqual(head("http://h.test:80", ["User-Agent: swurl/1"], acceptEncoding: nil, memo: nil),
                       "GET / HTTP/1.1\r\nHost: h.test\r\nAccept: */*\r\nUser-Agent: swurl/1\r\n\r\n", "port 80 is left out")
    }

    func testAMemoGivesTheSameHeadsWhateverTheLinesBefore() {
        let memo = SentHeadMemo()
        let cases: [(String, [String], String?)] = [
            ("http://h.test/1", ["User-Agent: swurl/1", "Expect:"], "gzip"),
            ("http://h.test/2", ["User-Agent: swurl/1", "Expect:"], "gzip"),       // the same lines: from the memo
            ("http://h.test:81/3", ["User-Agent: swurl/1", "Expect:"], nil),       // another Accept-Encoding
            ("http://h.test/4", ["User-Agent: swurl/1", "Host: other"], nil),      // lines that make it unknown
            ("http://h.test/5", ["User-Agent: swurl/1", "Host: other"], nil),      // unknown, from the memo
            ("https://h.test/6", ["User-Agent: swurl/1", "Expect:"], "gzip"),      // an URL that makes it unknown
            ("http://h.test/7", ["User-Agent: swurl/1", "Expect:"], "gzip"),
            ("http://h.test/8", ["User-Agent: swurl/2", "Expect:"], "gzip"),       // one line changed
            ("http://h.test/9", ["User-Agent: swurl/2", "Accept-Encoding:"], "gzip"),
        ]
        for (url, lines, encoding) in cases {
            XCTAssertEqual(head(url, lines, acceptEncoding: encoding, memo: memo), head(url, lines, acceptEncoding: encoding, memo: nil),
                           "\(url) \(lines)")
        }
        XCTAssertEqual(memo.lines, ["User-Agent: swurl/2", "Accept-Encoding:"])
        XCTAssertEqual(head("http://h.test/10", ["User-Agent: swurl/2", "Accept-Encoding:"], acceptEncoding: "gzip", memo: memo),
                       "GET /10 HTTP/1.1\r\nHost: h.test\r\nAccept: */*\r\nUser-Agent: swurl/2\r\n\r\n")
    }
}
