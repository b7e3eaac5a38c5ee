import XCTest
@testable import SwurlCore

/// What swurl knows about methods, in one place.
final class HTTPMethodTests: XCTestCase {
    /// A response's Content-Length: one length, or why it frames no body (the usual one field of
    /// digits has a short way; lists and odd values the general one).
    func testAResponsesContentLengthIsOneLengthOrAnError() {
        func head(_ values: [String], chunked: Bool = false) -> HTTPResponseHead {
            var h = HTTPHeaders()
            for v in values { h.add("Content-Length", v) }
            if chunked { h.add("Transfer-Encoding", "chunked") }
            return HTTPResponseHead(version: "HTTP/1.1", status: 200, reason: "OK", headers: h)
        }
        XCTAssertEqual(head(["5"]).contentLength, 5)
        XCTAssertNil(head(["5"]).contentLengthError)
        XCTAssertEqual(head(["007"]).contentLength, 7)
        XCTAssertEqual(head(["5, 5"]).contentLength, 5)
        XCTAssertEqual(head(["5", "5"]).contentLength, 5)
        XCTAssertEqual(head(["5,"]).contentLength, 5)
        XCTAssertNil(head([]).contentLength)
        XCTAssertNil(head(["5"], chunked: true).contentLength)
        XCTAssertNil(head(["5"], chunked: true).contentLengthError)
        for bad in [["5, 6"], ["5", "6"], ["-1"], ["99999999999999999999"], ["5x"], [""]] {
            XCTAssertNil(head(bad).contentLength, "\(bad)")
            XCTAssertNotNil(head(bad).contentLengthError, "\(bad)")
        }
    }

    func testPropertiesFollowRFC9110AndAFNetworking() {
        XCTAssertEqual(HTTPMethod.known.filter(\.isIdempotent), [.get, .head, .put, .delete, .options, .trace])
        XCTAssertEqual(HTTPMethod.known.filter(\.isSafe), [.get, .head, .options, .trace])
        XCTAssertEqual(HTTPMethod.known.filter(\.encodesParametersInURI), [.get, .head, .delete])
        XCTAssertEqual(HTTPMethod.known.filter(\.mayTakeStdinBody), [.post, .put, .patch, .delete, .connect])
        XCTAssertEqual(HTTPMethod.known.filter(\.sendsEmptyLength), [.post, .put, .patch])
        XCTAssertFalse(HTTPMethod("post").sendsEmptyLength, "the word as sent: a lower-case post is another method")
        XCTAssertTrue(HTTPMethod("delete").isIdempotent)
        XCTAssertTrue(HTTPMethod("PROPFIND").mayTakeStdinBody)
        XCTAssertFalse(HTTPMethod("PROPFIND").isKnown)
        XCTAssertTrue(HTTPMethod("post").isKnown)
        XCTAssertTrue(HTTPMethod("get").isIdempotent)
        XCTAssertEqual(HTTPMethod("patch").uppercased, .patch)
        XCTAssertEqual("\(HTTPMethod.put)", "PUT")
    }

    /// Capitals by ASCII alone: Unicode case mapping made `poſt` (U+017F) a POST and `optıons`
    /// (dotless i) an OPTIONS; HTTPie takes only ASCII letters as a method.
    func testOnlyASCIILettersMakeAKnownMethod() {
        XCTAssertFalse(HTTPMethod("po\u{17F}t").isKnown)
        XCTAssertEqual(HTTPMethod.lookAlike("po\u{17F}t"), "\u{17F}")
        XCTAssertEqual(HTTPMethod.lookAlike("opt\u{131}ons"), "\u{131}")
        XCTAssertNil(HTTPMethod.lookAlike("post"))
        XCTAssertNil(HTTPMethod.lookAlike("caf\u{E9}"))
        XCTAssertEqual(Unicode.Scalar(0x17F)?.codePoint, "U+017F")
        XCTAssertEqual(Unicode.Scalar(0x1F600)?.codePoint, "U+1F600")
        XCTAssertFalse(HTTPMethod("opt\u{131}ons").isKnown)
        XCTAssertEqual(HTTPMethod("po\u{17F}t").uppercased.rawValue, "PO\u{17F}T")
        XCTAssertEqual("a\u{E9}z".asciiUppercased, "A\u{E9}Z")
        XCTAssertEqual("GET".asciiUppercased, "GET")
        XCTAssertTrue(HTTPHeaders.sameName("Content-TYPE", "content-type"))
        XCTAssertFalse(HTTPHeaders.sameName("Coo\u{212A}ie", "Cookie"))
        XCTAssertFalse(HTTPHeaders.sameName("Cookie", "Cookies"))
    }
}
