import XCTest
@testable import SwurlEngine
@testable import SwurlResponseSerialization
@testable import SwurlCore

final class TransferTests: XCTestCase {
    func testResponseHeadSplitsHeadersAtTheColonEvenBeforeACombiningMark() {
        // ':' followed by U+0301 is one Character; a Character search dropped the whole header.
        let head = HTTPResponseHead(lines: ["HTTP/1.1 200 OK \t", "X-A:\u{301}v", "X-B: two \t", "X-C : \u{301} "])
        XCTAssertEqual(head?.status, 200)
        XCTAssertEqual(head?.reason, "OK")
        XCTAssertEqual(head?.headers["X-A"], "\u{301}v")
        XCTAssertEqual(head?.headers["X-B"], "two")
        XCTAssertEqual(head?.headers["X-C "], "\u{301}")
    }

    private final class HeadCollector: TransferDelegate {
        var heads: [HTTPResponseHead] = []
        func transferDidSendRequestHead(_ bytes: [UInt8]) throws {}
        func transferDidSendRequestBody(_ bytes: UnsafeRawBufferPointer) throws {}
        func transferDidReceiveHead(_ head: HTTPResponseHead) throws { heads.append(head) }
        func transferDidReceiveBody(_ bytes: UnsafeRawBufferPointer) throws {}
    }

    /// The head the header callback builds from raw lines (kept as bytes) is the head the String
    /// parser builds from the same lines decoded one by one, folding joined as before (values
    /// that are not UTF-8 aside: the next test).
    func testHeaderCallbackBuildsTheHeadTheLineParserBuilds() throws {
        let heads: [[[UInt8]]] = [
            [Array("HTTP/1.1 200 OK \t".utf8), Array("X-A:\u{301}v".utf8), Array("X-B: two \t".utf8), Array("X-C : \u{301} ".utf8)],
            [Array("HTTP/1.1 404 Not \u{301}Found".utf8), Array("X: y".utf8)],
            [Array("HTTP/1.1 \u{301}200 OK".utf8)],
            [Array("HTTP/1.1 200".utf8), Array("X: a".utf8), Array("  b \t".utf8), Array("\tc".utf8), Array("Y:".utf8), Array(" d".utf8)],
            [Array("HTTP/1.1 200 ".utf8), Array(" folded into the status line".utf8), Array("no colon".utf8)],
            [Array("HTTP/2 204".utf8), [0xC3, 0x28, 0x3A, 0x20, 0x76]],   // a name that is not UTF-8
            [[0x48, 0x54, 0x54, 0x50, 0x2F, 0x31, 0x2E, 0x31, 0x20, 0x32, 0x30, 0x30, 0x20, 0xFF], Array("Z: \u{1F600}".utf8)],
            [Array("HTTP/1.1 +201 Created".utf8)],
            [Array("HTTP/1.1".utf8)],
            [Array("HTTP/\u{301}1.1 200 OK".utf8), Array("X: y".utf8)],
        ]
        for lines in heads {
            let collector = HeadCollector()
            let transfer = try Transfer(request: HTTPRequest(method: "GET", url: "http://127.0.0.1/"), options: TransferOptions(),
                                        delegate: collector)
            // The String way: each line decoded, folded lines joined with one space.
            var texts: [String] = []
            for line in lines {
                let text = String(decoding: line, as: UTF8.self)
                if let first = text.unicodeScalars.first, first == " " || first == "\t", !texts.isEmpty {
                    texts[texts.count - 1] += " " + text.trimmingSpaces()
                } else {
                    texts.append(text)
                }
            }
            let expected = HTTPResponseHead(lines: texts)
            for line in lines + [[]] {
                let sent = line + [0x0D, 0x0A]
                // A head that cannot be read fails the transfer at its end (0), never silently.
                let taken = line.isEmpty && expected == nil ? 0 : sent.count
                XCTAssertEqual(sent.withUnsafeBytes { transfer.easyDidReceiveHeaderLine($0) }, taken, "\(texts)")
            }
            let got = collector.heads.first
            XCTAssertEqual(collector.heads.count, expected == nil ? 0 : 1, "\(texts)")
            XCTAssertEqual(got?.version, expected?.version, "\(texts)")
            XCTAssertEqual(got?.status, expected?.status, "\(texts)")
            XCTAssertEqual(got?.reason, expected?.reason, "\(texts)")
            XCTAssertEqual(got?.headers.fields.map(\.name), expected?.headers.fields.map(\.name), "\(texts)")
            XCTAssertEqual(got?.headers.fields.map(\.value), expected?.headers.fields.map(\.value), "\(texts)")
        }
        XCTAssertFalse(Transfer.isStatusLine(UnsafeRawBufferPointer(start: nil, count: 0)))
        XCTAssertFalse(Array("HTTP/\u{301}1.1 200".utf8).withUnsafeBytes { Transfer.isStatusLine($0) })
        XCTAssertTrue(Array("HTTP/\u{E9}".utf8).withUnsafeBytes { Transfer.isStatusLine($0) })
        XCTAssertTrue(Array("HTTP/".utf8).withUnsafeBytes { Transfer.isStatusLine($0) })
        // An interim head with blanks as StatusLine reads them (it restarted the head's count).
        for (line, interim) in [("HTTP/1.1 103 Early", true), ("HTTP/1.1  103 Early", true), ("HTTP/1.1\t100", true),
                                ("HTTP/1.1 101 Switching", false), ("HTTP/1.1  200 OK", false)] {
            XCTAssertEqual(Array(line.utf8).withUnsafeBytes { Transfer.isInterim($0) }, interim, line)
        }
    }

    /// A field value that is not UTF-8 is read as ISO-8859-1 (a Latin-1 file name keeps its
    /// letters); a UTF-8 value, and ASCII, as UTF-8.
    func testFieldValuesThatAreNotUTF8AreReadAsLatin1() throws {
        let collector = HeadCollector()
        let transfer = try Transfer(request: HTTPRequest(method: "GET", url: "http://127.0.0.1/"), options: TransferOptions(),
                                    delegate: collector)
        let lines: [[UInt8]] = [Array("HTTP/1.1 200 OK".utf8),
                                Array("Content-Disposition: attachment; filename=\"caf".utf8) + [0xE9] + Array(".txt\"".utf8),
                                [0x58, 0x3A, 0x20, 0xC3, 0x28, 0xFF, 0x3A, 0xE2, 0x82],
                                Array("Y: caf\u{E9} \u{1F600}".utf8), Array("Z: plain".utf8), []]
        for line in lines {
            let sent = line + [0x0D, 0x0A]
            XCTAssertEqual(sent.withUnsafeBytes { transfer.easyDidReceiveHeaderLine($0) }, sent.count)
        }
        let head = try XCTUnwrap(collector.heads.first)
        XCTAssertEqual(head.headers["Content-Disposition"], "attachment; filename=\"caf\u{E9}.txt\"")
        XCTAssertEqual(head.headers["X"], "\u{C3}(\u{FF}:\u{E2}\u{82}")
        XCTAssertEqual(head.headers["Y"], "caf\u{E9} \u{1F600}")
        XCTAssertEqual(head.headers["Z"], "plain")
    }

    func testTrimmingWorksOnScalarsNotCharacters() {
        XCTAssertEqual(" \t a b \r\n".trimmingSpaces(), "a b")
        XCTAssertEqual("a\r\n\r\n".trimmingTrailingNewlines(), "a")
        XCTAssertEqual("\r\n 42 \r\n".trimmingNewlines(), "42")
        // A space then a combining mark: the space is trimmed, the mark (not white space) stays.
        XCTAssertEqual(" \u{301}a".trimmingSpaces(), "\u{301}a")
        XCTAssertEqual("\n\u{301}7".trimmingNewlines(), "\u{301}7")
    }

    func testStatusLinesOutsideASCIISplitByCharacter() {
        // A space before a combining mark is one Character: no separator there.
        let head = HTTPResponseHead(lines: ["HTTP/1.1 404 Not \u{301}Found", "X: y"])
        XCTAssertEqual(head?.status, 404)
        XCTAssertEqual(head?.reason, "Not \u{301}Found")
        XCTAssertNil(HTTPResponseHead(lines: ["HTTP/1.1 \u{301}200 OK"]))
        XCTAssertEqual(HTTPResponseHead(lines: ["HTTP/2 204"])?.reason, "")
        XCTAssertNil(HTTPResponseHead(lines: ["HTTP/1.1"]))
        // As libcurl reads them: blanks around the code, none after it, three digits.
        XCTAssertEqual(HTTPResponseHead(lines: ["HTTP/1.1  500  Internal Error "])?.reason, "Internal Error")
        XCTAssertEqual(HTTPResponseHead(lines: ["HTTP/1.1 200OK"])?.status, 200)
        XCTAssertEqual(HTTPResponseHead(lines: ["HTTP/1.1 503\tBusy"])?.reason, "Busy")
        XCTAssertNil(HTTPResponseHead(lines: ["HTTP/1.1 20 OK"]))
        XCTAssertNil(HTTPResponseHead(lines: ["HTTP/1.1 2000 OK"]))
    }

    /// Field names are tokens (RFC 9110 §5.1): the same name is the same bytes but for ASCII
    /// case. Unicode case made U+212A KELVIN SIGN a `k` (`Coo\u{212A}ie` was taken for
    /// `Cookie`, which libcurl does not send or read as one) and `É` an `é`.
    func testHeaderNamesCompareByASCIICaseOnly() {
        let headers = HTTPHeaders([.init(name: "content-TYPE", value: "a"), .init(name: "\u{212A}ey", value: "kelvin"),
                                   .init(name: "X-\u{C9}", value: "e")])
        XCTAssertEqual(headers["Content-Type"], "a")
        XCTAssertNil(headers["Content-Typ"])
        XCTAssertNil(headers["Content-Types"])
        XCTAssertNil(headers["KEY"])
        XCTAssertEqual(headers["\u{212A}EY"], "kelvin")
        XCTAssertNil(headers["x-\u{E9}"])
        XCTAssertEqual(headers["x-\u{C9}"], "e")
        XCTAssertNil(headers["x-e\u{301}"])
    }
}
