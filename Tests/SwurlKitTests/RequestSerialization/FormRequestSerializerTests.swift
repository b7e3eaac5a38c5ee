import XCTest
import SwurlTestSupport
@testable import SwurlCLI
@testable import SwurlOutput
@testable import SwurlResponseSerialization
@testable import SwurlRequestSerialization
@testable import SwurlCore

final class FormRequestSerializerTests: XCTestCase {
    private func form(_ raws: [String]) throws -> String {
        let parser = RequestItemParser(environment: TestEnvironment().environment)
        guard let tree = try ParameterTree.build(try raws.map { try parser.parse($0) }.compactMap(\.parameterField)) else { return "" }
        return FormRequestSerializer.encode(tree)
    }

    func testAFNetworkingNestingAndBracketEscaping() throws {
        XCTAssertEqual(try form(["user[name]=Ann", "tags[]=a", "tags[]=b"]),
                       "user%5Bname%5D=Ann&tags%5B%5D=a&tags%5B%5D=b")
    }

    func testPercentEncodingRules() {
        XCTAssertEqual(FormRequestSerializer.percentEscape("a b+c&d=e%f/g?h~i.j-k_l"),
                       "a%20b%2Bc%26d%3De%25f/g?h~i.j-k_l")
        XCTAssertEqual(FormRequestSerializer.percentEscape("é☃"), "%C3%A9%E2%98%83")
        XCTAssertEqual(FormRequestSerializer.percentEscape(":#[]@!$'()*,;"), "%3A%23%5B%5D%40%21%24%27%28%29%2A%2C%3B")
    }

    /// Repeated names (an array's items) are escaped once and reused; names equal only up to
    /// Unicode equivalence are still escaped from their own bytes.
    func testRepeatedNamesAndCanonicallyEquivalentNames() throws {
        XCTAssertEqual(try form(["a[]=1", "a[]=2", "a[3]=x", "b=1"]),
                       "a%5B%5D=1&a%5B%5D=2&a%5B%5D&a%5B%5D=x&b=1")
        // Two keys (as in JSON and HTTPie), each its own escaped name, though Swift's String == calls them equal.
        XCTAssertEqual(try form(["\u{E9}[]=1", "e\u{301}[]=2", "e\u{301}[]=3"]), "%C3%A9%5B%5D=1&e%CC%81%5B%5D=2&e%CC%81%5B%5D=3")
    }

    func testNullSendsTheKeyAloneAndEmptyContainersNothing() throws {
        XCTAssertEqual(try form(["a:=null", "b:={}", "c:=[]", "d=1"]), "a&d=1")
    }

    func testTypedScalarsAreSentAsJSONText() throws {
        XCTAssertEqual(try form(["n:=1.50", "t:=true", "s:=\"x y\""]), "n=1.50&t=true&s=x%20y")
    }

    func testGETPutsTheFormIntoTheQuery() throws {
        let t = TestEnvironment()
        XCTAssertEqual(t.run(["--offline", "-f", "GET", "http://h/p?z=1", "a[b]=c d"]), 0)
        XCTAssertTrue(t.stdout.text.hasPrefix("GET /p?z=1&a%5Bb%5D=c%20d HTTP/1.1\r\n"), t.stdout.text)
        XCTAssertFalse(t.stdout.text.contains("Content-Length"))
    }
}
