import XCTest
@testable import SwurlRequestSerialization
import SwurlCore

/// Each serializer names the Content-Type of what it writes; the request builder only copies it.
final class SerializerContentTypeTests: XCTestCase {
    func testEachSerializerReportsItsOwnContentType() {
        XCTAssertEqual(JSONRequestSerializer().contentType, "application/json")
        XCTAssertEqual(FormRequestSerializer().contentType, "application/x-www-form-urlencoded; charset=utf-8")
        XCTAssertEqual(PropertyListRequestSerializer(binary: true).contentType, "application/x-plist")
        let multipart = MultipartRequestSerializer(boundary: "b0und")
        XCTAssertEqual(multipart.contentType, "multipart/form-data; boundary=b0und")
        let generated = MultipartRequestSerializer(boundary: nil)
        XCTAssertEqual(generated.contentType, "multipart/form-data; boundary=" + generated.boundary)
    }
}
