import XCTest
@testable import SwurlResponseSerialization
import SwurlCore

final class ResponseValidatorTests: XCTestCase {
    func testStatusRangesAndClasses() throws {
        let v = ResponseValidator(acceptableStatus: try ResponseValidator.parseStatusList("200-299,304"))
        XCTAssertNil(v.statusFailure(200))
        XCTAssertNil(v.statusFailure(299))
        XCTAssertNil(v.statusFailure(304))
        XCTAssertEqual(v.statusFailure(301), .redirection)
        XCTAssertEqual(v.statusFailure(404), .clientError)
        XCTAssertEqual(v.statusFailure(503), .serverError)
        XCTAssertEqual(ResponseValidator(acceptableStatus: [200...200]).statusFailure(204), .responseRejected)
    }

    func testCheckStatusIsAFNetworkingsDefault200To299Plus1xx() {
        let v = ResponseValidator(checkStatus: true)
        XCTAssertNil(v.statusFailure(204))
        XCTAssertEqual(v.statusFailure(302), .redirection)
        XCTAssertEqual(v.statusFailure(418), .clientError)
        XCTAssertNil(ResponseValidator().statusFailure(500))
    }

    func testBadStatusListsAreUsageErrors() {
        for bad in ["", "abc", "200-", "299-200", "20", "200,,300", "1000"] {
            XCTAssertThrowsError(try ResponseValidator.parseStatusList(bad), bad)
        }
    }

    func testContentTypeMatching() throws {
        let v = ResponseValidator(acceptableTypes: try ResponseValidator.parseTypeList("application/json, text/*,application/*+xml"))
        XCTAssertTrue(v.acceptsContentType("application/json"))
        XCTAssertTrue(v.acceptsContentType("text/html"))
        XCTAssertTrue(v.acceptsContentType("application/atom+xml"))
        XCTAssertFalse(v.acceptsContentType("application/xml"))
        XCTAssertFalse(v.acceptsContentType("image/png"))
        XCTAssertFalse(v.acceptsContentType(nil))
        XCTAssertTrue(ResponseValidator().acceptsContentType(nil))
        XCTAssertTrue(ResponseValidator(acceptableTypes: ["*/*"]).acceptsContentType("x/y"))
        XCTAssertThrowsError(try ResponseValidator.parseTypeList("json"))
        // A parameter never matched (types are compared without theirs): refused, with the fix.
        for given in ["application/json;charset=utf-8", "application/json; charset=utf-8"] {
            XCTAssertThrowsError(try ResponseValidator.parseTypeList(given)) { error in
                XCTAssertEqual((error as? SwurlError)?.hint, "give --accept-type application/json")
            }
        }
    }
}
