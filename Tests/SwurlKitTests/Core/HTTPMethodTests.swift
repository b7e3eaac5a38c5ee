import XCTest
@testable import SwurlCore

/// What swurl knows about methods, in one place.
final class HTTPMethodTests: XCTestCase {
    func testPropertiesFollowRFC9110AndAFNetworking() {
        XCTAssertEqual(HTTPMethod.known.filter(\.isIdempotent), [.get, .head, .put, .delete, .options, .trace])
        XCTAssertEqual(HTTPMethod.known.filter(\.isSafe), [.get, .head, .options, .trace])
        XCTAssertEqual(HTTPMethod.known.filter(\.encodesParametersInURI), [.get, .head, .delete])
        XCTAssertEqual(HTTPMethod.known.filter(\.mayTakeStdinBody), [.post, .put, .patch, .delete, .connect])
        XCTAssertTrue(HTTPMethod("PROPFIND").mayTakeStdinBody)
        XCTAssertFalse(HTTPMethod("PROPFIND").isKnown)
        XCTAssertTrue(HTTPMethod("post").isKnown)
        XCTAssertTrue(HTTPMethod("get").isIdempotent)
        XCTAssertEqual(HTTPMethod("patch").uppercased, .patch)
        XCTAssertEqual("\(HTTPMethod.put)", "PUT")
    }
}
