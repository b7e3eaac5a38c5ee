import XCTest
@testable import SwurlEngine

/// `NO_PROXY` read as libcurl 7.88 reads it (lib/noproxy.c), so that `--wait-for-network` waits
/// for what the request will really connect to. Each row was checked against curl 7.88.1 on
/// Debian 12 (does a request with `http_proxy` set go through the proxy?): IPv6 entries are
/// compared as text there, with no networks.
final class NoProxyTests: XCTestCase {
    func testNamesAddressesNetworksAndSeparatorsAsLibcurlReadsThem() {
        let rows: [(host: String, noProxy: String, bypassed: Bool)] = [
            ("127.0.0.1", "*", true),
            ("127.0.0.1", "127.0.0.1", true),
            ("127.0.0.1", "127.0.0.0/8", true),
            ("127.0.0.1", "10.0.0.0/8,127.0.0.0/8", true),
            ("127.0.0.1", "127.0.0.1/32", true),
            ("127.0.0.1", "127.0.0.2/32", false),
            // A length of 0 (atoi(3) of `0`, `-0`, `00`, `x`) is the whole address in libcurl,
            // never every address; past 32 bits, nothing.
            ("127.0.0.1", "10.0.0.0/0", false),
            ("127.0.0.1", "0.0.0.0/-0", false),
            ("127.0.0.1", "127.0.0.1/0", true),
            ("127.0.0.1", "127.0.0.1/x", true),
            ("127.0.0.1", "127.0.0.0/8x", true),
            ("127.0.0.1", "127.0.0.1/33", false),
            ("127.0.0.1", "foo 127.0.0.1", true),
            ("127.0.0.1", "localhost,*", false),
            ("127.0.0.1", "*,foo", false),
            ("127.0.0.1", ".0.0.1", false),
            ("localhost", "localhost.", true),
            ("localhost.", "localhost", true),
            ("localhost", "..localhost", false),
            ("api.example.org", "example.org", true),
            ("api.example.org", ".example.org", true),
            ("api.example.org", "EXAMPLE.org", true),
            ("badexample.org", "example.org", false),
            ("[::1]", "::1", true),
            ("[::1]", "[::1]", false),
            ("[::1]", "0:0:0:0:0:0:0:1", false),
            ("[::1]", "::1/128", false),
            ("[fd00::5]", "fd00::/8", false),
        ]
        for row in rows {
            XCTAssertEqual(ProxySettings.bypasses(row.host, noProxy: row.noProxy), row.bypassed, "\(row.host) in '\(row.noProxy)'")
        }
    }

    func testTheProxyForAURLHonoursNoProxyAndAnEmptyProxy() {
        var p = ProxySettings(variables: ["http_proxy": "http://127.0.0.1:3128", "NO_PROXY": "internal.test"])
        XCTAssertEqual(p.proxy(forURL: "http://api.example.org/x"), "http://127.0.0.1:3128")
        XCTAssertNil(p.proxy(forURL: "http://a.internal.test/x"))
        XCTAssertNil(p.proxy(forURL: "https://api.example.org/x"), "http_proxy is for http URLs")
        p.explicit = ""
        XCTAssertNil(p.proxy(forURL: "http://api.example.org/x"), "--proxy '' is no proxy")
    }
}
