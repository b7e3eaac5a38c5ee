import XCTest
import Foundation
import SwurlTestSupport

/// swurl's column of the comparison beside Python's CacheControl (`Tests/Servers/cache_compare.py`,
/// the table in docs/cache.md): the scripted cases against `cache_origin.py`, each judged by
/// what the origin received for its last request.
final class CacheComparisonTests: XCTestCase {
    func testSwurlsColumnOfTheComparisonTable() throws {
        let r = try runProcess(TestPaths.venv + "/bin/python3",
                               [TestPaths.server("cache_compare.py"), TestPaths.binary, "--json", "--swurl-only"], check: false)
        XCTAssertEqual(r.status, 0, r.stderr)
        let json = try JSONSerialization.jsonObject(with: r.stdout) as? [String: [String: String]] ?? [:]
        let got = json.mapValues { $0["swurl"] ?? "" }
        let expected = [
            "max-age=60": "cache",
            "Expires 60 s after Date": "cache",
            "Last-Modified 10 h ago, no explicit freshness (heuristic)": "cache",
            "ETag, no-cache": "304",
            "ETag, max-age=0": "304",
            "no-store": "network",
            "no-cache, no validator": "network",
            "Vary: Accept-Language, same value": "cache",
            "Vary: Accept-Language, other value": "network",
            "POST to the URL between two GETs": "network",
            "request Cache-Control: no-cache": "network",
            "status 404, max-age=60": "cache",
        ]
        XCTAssertEqual(got, expected)
    }
}
