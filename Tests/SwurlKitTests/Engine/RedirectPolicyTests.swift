import XCTest
@testable import SwurlOutput
@testable import SwurlEngine
@testable import SwurlResponseSerialization
@testable import SwurlRequestSerialization
@testable import SwurlCore

final class RedirectPolicyTests: XCTestCase {
    private func post() -> HTTPRequest {
        var r = HTTPRequest(method: "POST", url: "http://a.test/x", body: RequestBody(bytes: Array("{}".utf8)))
        r.headers.add("Content-Type", "application/json")
        return r
    }

    func testSeeOtherAndPostOn301And302BecomeGetWithoutBody() throws {
        for code in [301, 302, 303] {
            let next = try RedirectPolicy.follow(post(), status: code, to: "http://a.test/y")
            XCTAssertEqual(next.method, "GET")
            XCTAssertNil(next.body)
            XCTAssertNil(next.headers["Content-Type"])
            XCTAssertEqual(next.url, "http://a.test/y")
        }
    }

    func testTemporaryAndPermanentRedirectsKeepMethodAndBody() throws {
        for code in [307, 308] {
            let next = try RedirectPolicy.follow(post(), status: code, to: "http://a.test/y")
            XCTAssertEqual(next.method, "POST")
            XCTAssertEqual(next.body?.inMemoryBytes, Array("{}".utf8))
        }
        let head = HTTPRequest(method: "HEAD", url: "http://a.test/")
        XCTAssertEqual(try RedirectPolicy.follow(head, status: 303, to: "http://a.test/z").method, "HEAD")
    }

    func testStreamedBodiesCannotBeResent() {
        var r = post()
        r.body = RequestBody([.stream(MemorySource("x"), label: "stdin", length: nil)])
        XCTAssertThrowsError(try RedirectPolicy.follow(r, status: 307, to: "http://a.test/y")) { error in
            guard case SwurlError.inputFile(let m, _)? = error as? SwurlError else { return XCTFail("\(error)") }
            XCTAssertTrue(m.contains("stdin"))
        }
        XCTAssertNoThrow(try RedirectPolicy.follow(r, status: 303, to: "http://a.test/y"))
    }

    func testOnlyHTTPTargets() {
        XCTAssertThrowsError(try RedirectPolicy.follow(post(), status: 302, to: "file:///etc/passwd"))
        XCTAssertThrowsError(try RedirectPolicy.follow(post(), status: 302, to: "ftp://a.test/"))
        // http's scheme without the `//` is refused as what it is (it was called no http URL).
        XCTAssertThrowsError(try RedirectPolicy.follow(post(), status: 302, to: "http:127.0.0.1:9/x")) { error in
            XCTAssertTrue((error as? SwurlError)?.message.hasSuffix("'http:127.0.0.1:9/x', which has no '//' after its scheme") ?? false, "\(error)")
        }
    }

    func testOriginsCompareSchemeHostAndPort() throws {
        XCTAssertEqual(try Origin(url: "http://A.test/x"), try Origin(url: "http://a.test:80/y"))
        XCTAssertEqual(try Origin(url: "https://a.test/"), try Origin(url: "https://a.test:443/"))
        XCTAssertNotEqual(try Origin(url: "https://a.test:8443/"), try Origin(url: "http://a.test:8443/"))
        XCTAssertNotEqual(try Origin(url: "http://a.test/"), try Origin(url: "http://a.test:8080/"))
        XCTAssertNotEqual(try Origin(url: "http://a.test/"), try Origin(url: "http://b.test/"))
    }

    private func session(_ url: String, _ configure: (inout TransferOptions) -> Void = { _ in }) throws -> Exchange {
        var request = HTTPRequest(method: "GET", url: url)
        request.headers.add("Authorization", "Bearer user-typed")
        request.headers.add("Cookie", "a=b")
        request.headers.add("Proxy-Authorization", "Basic eDp5")
        request.headers.add("X-Other", "1")
        var options = TransferOptions()
        configure(&options)
        return try Exchange(request: request, options: options) { NullDelegate() }
    }

    func testAnHTTPSToHTTPDowngradeOnTheSamePortDropsCredentials() throws {
        let s = try session("https://a.test:8443/start")
        var hop = s.request
        hop.url = "http://a.test:8443/next"
        let (prepared, digest) = try s.prepared(hop)
        XCTAssertNil(prepared.headers["Authorization"])
        XCTAssertNil(prepared.headers["Cookie"])
        XCTAssertNil(prepared.headers["Proxy-Authorization"])
        XCTAssertEqual(prepared.headers["X-Other"], "1")
        XCTAssertNil(digest)
        // Back on the first origin they are sent again: they are bound to it, not used up.
        hop.url = "https://a.test:8443/again"
        XCTAssertEqual(try s.prepared(hop).0.headers["Authorization"], "Bearer user-typed")
    }

    /// --auth is bound to the first origin; netrc is looked up per hop only without --auth (with
    /// it, a redirect to another netrc host would have that host's password sent).
    func testAuthOptionsAreBoundToTheFirstOriginAndNetrcIsPerHop() throws {
        var request = HTTPRequest(method: "GET", url: "https://a.test/")
        request.headers.add("X-Other", "1")
        var options = TransferOptions()
        options.credentials = Credentials(user: "u", password: "p")
        options.netrc = Netrc(parsing: "machine b.test login bee password bp\ndefault login d password d")
        let s = try Exchange(request: request, options: options) { NullDelegate() }
        XCTAssertEqual(try s.prepared(request).0.headers["Authorization"], "Basic dTpw")
        var hop = request
        hop.url = "http://a.test/"
        XCTAssertNil(try s.prepared(hop).0.headers["Authorization"], "downgrade: neither -a nor the netrc default")
        hop.url = "https://b.test/"
        XCTAssertNil(try s.prepared(hop).0.headers["Authorization"], "with --auth, no netrc entry for another host")
        var withoutAuth = options
        withoutAuth.credentials = nil
        let n = try Exchange(request: request, options: withoutAuth) { NullDelegate() }
        XCTAssertEqual(try n.prepared(hop).0.headers["Authorization"], "Basic " + Base64.encode(Array("bee:bp".utf8)))

        options.authType = .digest
        let d = try Exchange(request: request, options: options) { NullDelegate() }
        let (first, digest) = try d.prepared(request)
        XCTAssertNil(first.headers["Authorization"])
        XCTAssertEqual(digest, Credentials(user: "u", password: "p"))
        hop.url = "https://c.test/"
        XCTAssertNil(try d.prepared(hop).1)
    }
}

private final class NullDelegate: TransferDelegate {
    func transferDidSendRequestHead(_ bytes: [UInt8]) throws {}
    func transferDidSendRequestBody(_ bytes: UnsafeRawBufferPointer) throws {}
    func transferDidReceiveHead(_ head: HTTPResponseHead) throws {}
    func transferDidReceiveBody(_ bytes: UnsafeRawBufferPointer) throws {}
}
