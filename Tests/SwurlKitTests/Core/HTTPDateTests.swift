import XCTest
import SwurlCore

final class HTTPDateTests: XCTestCase {
    func testParsesAndFormatsIMFFixdate() {
        XCTAssertEqual(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT"), 784_111_777)
        XCTAssertEqual(HTTPDate.format(784_111_777), "Sun, 06 Nov 1994 08:49:37 GMT")
        XCTAssertNil(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT"))
        XCTAssertNil(HTTPDate.parse("0"))
        XCTAssertNil(HTTPDate.parse("Sun, 32 Nov 1994 08:49:37 GMT"))
        XCTAssertEqual(HTTPDate.format(.nan), "Thu, 01 Jan 1970 00:00:00 GMT")
    }
}
