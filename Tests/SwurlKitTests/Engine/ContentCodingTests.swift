import XCTest
@testable import SwurlEngine
@testable import SwurlCurl
@testable import SwurlCore

/// `ContentCoding`, the one home of `Accept-Encoding`: what a request is built with, what each
/// attempt sends, and whether libcurl decodes.
final class ContentCodingTests: XCTestCase {
    private func request(_ headers: [(String, String)] = [], removed: [String] = []) -> HTTPRequest {
        var r = HTTPRequest(method: .get, url: "http://127.0.0.1/")
        for (name, value) in headers { r.headers.add(name, value) }
        r.removedHeaders = removed
        return r
    }

    func testABuiltRequestAsksForWhatLibcurlDecodes() {
        var r = request()
        ContentCoding.decoded.addHeader(to: &r)
        XCTAssertEqual(r.headers["Accept-Encoding"], CurlVersion.acceptEncoding.isEmpty ? nil : CurlVersion.acceptEncoding)
        XCTAssertTrue(ContentCoding.decoded.libcurlDecodes)
        XCTAssertFalse(ContentCoding.asStored.libcurlDecodes)
    }

    func testADecodedRequestIsSentAsBuilt() {
        var r = request([("Accept-Encoding", "br")])
        ContentCoding.decoded.adapt(&r)
        XCTAssertEqual(r.headers["Accept-Encoding"], "br")
        var none = request(removed: ["accept-encoding"])
        ContentCoding.decoded.adapt(&none)
        XCTAssertNil(none.headers["Accept-Encoding"])
    }

    func testStoredBytesAskForIdentityOverAnyHeaderUnlessItWasRemoved() {
        var built = request([("Accept", "*/*"), ("Accept-Encoding", "gzip"), ("X-Last", "1")])
        ContentCoding.asStored.adapt(&built)
        XCTAssertEqual(built.headers["Accept-Encoding"], "identity")
        XCTAssertEqual(built.headers.fields.map(\.name), ["Accept", "Accept-Encoding", "X-Last"], "replaced in place")
        var bare = request()
        ContentCoding.asStored.adapt(&bare)
        XCTAssertEqual(bare.headers["Accept-Encoding"], "identity")
        var removed = request(removed: ["Accept-Encoding"])
        ContentCoding.asStored.adapt(&removed)
        XCTAssertNil(removed.headers["Accept-Encoding"])
    }
}
