import XCTest
import Foundation
import SwurlTestSupport

/// `--cache`: the private HTTP cache (RFC 9111), one test per rule, each against the scripted
/// origin (`cache_origin.py`), which counts the requests it received: a rule that serves from
/// the cache shows as a count that did not grow.
final class CacheTests: XCTestCase {
    private var origin: CacheOrigin!
    private var dir = ""

    override func setUpWithError() throws {
        origin = try CacheOrigin()
        dir = TestPaths.temporaryDirectory() + "/cache"
    }

    override func tearDown() { origin = nil }

    /// Runs swurl with the test's cache directory.
    private func swurl(_ args: [String], stdin: Data? = nil) throws -> SwurlResult {
        try runSwurl(["--cache=\(dir)"] + args, stdin: stdin)
    }

    /// `swurl --cache --timing=json URL`: the body and what the cache said.
    private func fetch(_ path: String, _ extra: [String] = []) throws -> (body: String, cache: String, result: SwurlResult) {
        let r = try swurl(["--timing=json", origin.url(path)] + extra)
        let line = r.stderr.split(separator: "\n").last { $0.hasPrefix("{") }.map(String.init) ?? "{}"
        let json = (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]) ?? [:]
        return (r.text, json["cache"] as? String ?? "", r)
    }

    private func q(_ s: String) -> String {
        s.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")) ?? s
    }

    private func entries() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { !$0.hasPrefix(".") }
    }

    /// `clear` and `prune` answer in JSON with --json (it was accepted and ignored), and a
    /// `clear` prefix without a scheme takes --default-scheme, as the request's URL did (the
    /// option was refused, and the config's dropped).
    func testClearAndPruneSpeakJSONAndClearTakesTheDefaultScheme() throws {
        _ = try fetch("/j?cc=" + q("max-age=60"))
        XCTAssertEqual(entries().count, 1)
        // The default port names one authority: it cleared every port of the host.
        XCTAssertEqual(try swurl(["cache", "clear", "--json", "http://127.0.0.1:80"]).text, "{\"removed\":0}\n")
        let https = try swurl(["cache", "clear", "--json", "--default-scheme", "https", "127.0.0.1:\(origin.port)/j"])
        XCTAssertEqual(https.status, 0, https.stderr)
        XCTAssertEqual(https.text, "{\"removed\":0}\n", "an https prefix leaves the http entry")
        let http = try swurl(["cache", "clear", "--json", "127.0.0.1:\(origin.port)/j"])
        XCTAssertEqual(http.text, "{\"removed\":1}\n", http.stderr)
        XCTAssertEqual(try swurl(["cache", "prune", "--json"]).text, "{\"removed\":0}\n")
    }

    /// `--path-as-is` sends `/a/../b` as such, and the cache keyed it as `/b` (libcurl's
    /// spelling): one URL's response answered the other, both ways. Its dot segments stay in
    /// the key.
    func testPathAsIsKeepsItsDotSegmentsInTheKey() throws {
        let cc = "?cc=" + q("max-age=60")
        XCTAssertEqual(try fetch("/dots/b" + cc).body, "/dots/b #1")
        let dotted = try fetch("/dots/a/../b" + cc, ["--path-as-is"])
        XCTAssertEqual(dotted.cache, "miss, stored", dotted.result.stderr)
        XCTAssertEqual(dotted.body, "/dots/a/../b #1")
        XCTAssertTrue(try fetch("/dots/a/../b" + cc, ["--path-as-is"]).cache.hasPrefix("hit, age "))
        let plain = try fetch("/dots/b" + cc)
        XCTAssertEqual(plain.body, "/dots/b #1", "the plain URL's own entry")
        // Without --path-as-is the dots are squashed, as before: /b's entry.
        XCTAssertEqual(try fetch("/dots/a/../b" + cc).body, "/dots/b #1")
    }

    /// `cache clear --cache DIR` (a space where `=` belongs) took DIR as a URL prefix and cleared
    /// nothing of the default cache, exit 0 ("removed 0 entries"): refused, naming `--cache=DIR`.
    func testCacheWithASpacedDirectoryIsRefusedNotTakenAsAPrefix() throws {
        _ = try fetch("/sp?cc=" + q("max-age=60"))
        XCTAssertEqual(entries().count, 1)
        for action in ["clear", "list", "prune"] {
            let r = try runSwurl(["cache", action, "--cache", dir])
            XCTAssertEqual(r.status, 64, "\(action): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("is a cache directory, not a URL prefix"), r.stderr)
            XCTAssertTrue(r.stderr.contains("swurl cache \(action) --cache=\(dir)"), r.stderr)
        }
        XCTAssertEqual(entries().count, 1, "nothing was removed")
        // A prefix that is no directory here stays a prefix, and so does a directory that holds
        // no cache (a host's mirror named like the prefix), whichever way --cache came.
        // (The default cache is one of the test's own: a bare --cache clears there.)
        let own = ["XDG_CACHE_HOME": TestPaths.temporaryDirectory()]
        XCTAssertEqual(try runSwurl(["cache", "clear", "--cache", "--json", "nothere.example"], environment: own).status, 0)
        let mirror = TestPaths.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: mirror + "/127.0.0.1", withIntermediateDirectories: true)
        try Data("<html>".utf8).write(to: URL(fileURLWithPath: mirror + "/127.0.0.1/index.html"))
        let prefix = try runSwurl(["cache", "clear", "--cache", "127.0.0.1"], environment: own, directory: mirror)
        XCTAssertEqual(prefix.status, 0, prefix.stderr)
    }

    /// Entries that cannot be removed (the directory read-only here, in a private mount
    /// namespace) are an error (exit 1) naming the cause: "removed 0 entries", exit 0, before.
    func testClearThatCannotRemoveSaysSo() throws {
        _ = try fetch("/ro?cc=" + q("max-age=60"))
        XCTAssertEqual(entries().count, 1)
        let shell = "mount --bind \"$2\" \"$2\" && mount -o remount,bind,ro \"$2\" || exit 99; \"$1\" cache clear --cache=\"$2\"; echo \"rc=$?\""
        let r = try runProcess("/usr/bin/unshare", ["-m", "sh", "-c", shell, "sh", TestPaths.binary, dir], check: false)
        let out = String(decoding: r.stdout, as: UTF8.self)
        XCTAssertTrue(out.contains("rc=1"), out + r.stderr)
        XCTAssertTrue(r.stderr.contains("could not be removed: Read-only file system"), r.stderr)
        XCTAssertEqual(entries().count, 1)
    }

    /// Regression: a cache directory that could not be made (a read-only file system, a full
    /// disk, a file where a parent should be) failed every request with exit 1, so `--cache` in
    /// the config file stopped them all; one that cannot be written only stores nothing. So does
    /// one that cannot be made now, and the request goes on.
    func testACacheDirectoryThatCannotBeMadeStoresNothingAndTheRequestGoesOn() throws {
        let parent = TestPaths.temporaryDirectory()
        FileManager.default.createFile(atPath: parent + "/file", contents: Data("x".utf8))
        let r = try runSwurl(["--cache=\(parent)/file/cache", "--timing=json", origin.url("/made?cc=" + q("max-age=60"))])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.text.hasSuffix("/made #1"), r.text)
        XCTAssertTrue(r.stderr.contains("not stored: cannot create the cache directory '\(parent)/file/cache': Not a directory"), r.stderr)
        let ro = "mount --bind \"$2\" \"$2\" && mount -o remount,bind,ro \"$2\" || exit 99; \"$1\" --cache=\"$2/new\" \"$3\"; echo \"rc=$?\""
        let m = try runProcess("/usr/bin/unshare", ["-m", "sh", "-c", ro, "sh", TestPaths.binary, parent, origin.url("/ro-made")], check: false)
        XCTAssertTrue(String(decoding: m.stdout, as: UTF8.self).hasSuffix("/ro-made #1rc=0\n"), String(decoding: m.stdout, as: UTF8.self) + m.stderr)
        // A file where the directory itself should be is still refused: that is a mistake to fix.
        let f = try runSwurl(["--cache=\(parent)/file", origin.url("/made")])
        XCTAssertEqual(f.status, 1, f.stderr)
        XCTAssertTrue(f.stderr.contains("is not a directory"), f.stderr)
        // `cache list` and `clear` on one out of reach cannot do their work: an error, not an
        // empty cache ("removed 0 entries", exit 0).
        for action in ["list", "clear", "prune"] {
            let c = try runSwurl(["cache", action, "--cache=\(parent)/file/cache"])
            XCTAssertEqual(c.status, 1, "\(action): \(c.stderr)")
            XCTAssertTrue(c.stderr.contains("cannot use the cache directory '\(parent)/file/cache': Not a directory"), c.stderr)
        }
    }

    // MARK: - Freshness (§4.2)

    func testFreshMaxAgeIsServedWithoutTheNetworkWithAnAgeHeader() throws {
        let path = "/fresh?cc=" + q("max-age=60")
        let first = try fetch(path)
        XCTAssertEqual(first.cache, "miss, stored", first.result.stderr)
        let again = try swurl(["--print=hb", origin.url(path)])
        XCTAssertEqual(origin.count("/fresh"), 1)
        XCTAssertTrue(again.text.contains("\nAge: "), again.text)
        XCTAssertTrue(again.text.hasSuffix("/fresh #1"), again.text)
        XCTAssertTrue(try fetch(path).cache.hasPrefix("hit, age "))
        // No transfer ran, so no speed is made up for it.
        let timing = try swurl(["--timing", origin.url(path)])
        XCTAssertTrue(timing.stderr.contains("Downloaded      9 B\n"), timing.stderr)
    }

    /// A HAR file marks the entry the cache served (`_fromCache`, as browsers' HAR files do) and
    /// not the one the network answered.
    func testAHitIsMarkedInTheHAR() throws {
        let path = "/harhit?cc=" + q("max-age=60")
        let har = TestPaths.temporaryDirectory() + "/hit.har"
        func entry() throws -> [String: Any] {
            let r = try swurl([origin.url(path), "--har", har])
            XCTAssertEqual(r.status, 0, r.stderr)
            let log = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: har))) as? [String: Any])
            let entries = try XCTUnwrap((log["log"] as? [String: Any])?["entries"] as? [[String: Any]])
            XCTAssertEqual(entries.count, 1)
            return try XCTUnwrap(entries.first)
        }
        let miss = try entry()
        XCTAssertNil(miss["_fromCache"], "\(miss)")
        XCTAssertNotNil(miss["serverIPAddress"], "\(miss)")
        let hit = try entry()
        XCTAssertEqual(hit["_fromCache"] as? String, "disk", "\(hit)")
        XCTAssertNil(hit["_revalidated"], "\(hit)")
        // Nothing came over the wire (HAR 1.2: bodySize 0 for a cached response).
        XCTAssertEqual((hit["response"] as? [String: Any])?["bodySize"] as? Int, 0, "\(hit)")
        XCTAssertGreaterThan(((hit["response"] as? [String: Any])?["content"] as? [String: Any])?["size"] as? Int ?? 0, 0, "\(hit)")
        XCTAssertEqual(origin.count("/harhit"), 1)
        // A 304 that selected the stored response: recorded as that response, marked as such.
        let etag = "/harreval?etag=v1&cc=" + q("no-cache")
        _ = try swurl([origin.url(etag)])
        let r = try swurl([origin.url(etag), "--har", har, "-v"])
        XCTAssertTrue(r.stderr.contains("swurl: cache: revalidated (304)"), r.stderr)
        let log = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: har))) as? [String: Any])
        let reval = try XCTUnwrap(((log["log"] as? [String: Any])?["entries"] as? [[String: Any]])?.first)
        XCTAssertEqual(reval["_revalidated"] as? Bool, true, "\(reval)")
        // The network was asked: not `_fromCache` (docs/har.md), and the server's address is there.
        XCTAssertNil(reval["_fromCache"], "\(reval)")
        XCTAssertNotNil(reval["serverIPAddress"], "\(reval)")
        XCTAssertEqual((reval["response"] as? [String: Any])?["status"] as? Int, 200, "\(reval)")
    }

    func testExpiresRelativeToDateGivesFreshnessAndABadExpiresNone() throws {
        _ = try fetch("/expires?exp=60")
        XCTAssertTrue(try fetch("/expires?exp=60").cache.hasPrefix("hit"))
        XCTAssertEqual(origin.count("/expires"), 1)
        // Expires 60 s after a Date 100 s old: the apparent age (100 s) is past the lifetime.
        _ = try fetch("/skew?date=-100&exp=-40")
        _ = try fetch("/skew?date=-100&exp=-40")
        XCTAssertEqual(origin.count("/skew"), 2)
        _ = try fetch("/badexp?exp=bad")
        _ = try fetch("/badexp?exp=bad")
        XCTAssertEqual(origin.count("/badexp"), 2)
    }

    /// RFC 9110 §5.6.7: an `Expires` in the obsolete RFC 850 or asctime form, or with names in
    /// another case, is a date; a near miss of the three forms, or two `Expires` fields, is
    /// invalid and so in the past (RFC 9111 §5.3). Cases from the cache-tests suite.
    func testExpiresInEveryHTTPDateFormAndNearMissesAsExpired() throws {
        let valid = ["Thursday, 18-Aug-50 02:01:18 GMT", "Thu Aug  8 02:01:18 2050", "Thu, 18 AUG 2050 02:01:18 gMT"]
        for (i, value) in valid.enumerated() {
            let path = "/valid\(i)?h=" + q("Expires:" + value)
            _ = try fetch(path)
            XCTAssertTrue(try fetch(path).cache.hasPrefix("hit"), value)
            XCTAssertEqual(origin.count("/valid\(i)"), 1, value)
        }
        let invalid = ["h=" + q("Expires:Thu 18 Aug 2050 02:01:18 GMT"), "h=" + q("Expires:Thu, 18  Aug  2050 02:01:18 GMT"),
                       "h=" + q("Expires:Thu, 18 Aug 2050 2:01:18 GMT"),
                       "h=" + q("Expires:Thu, 18 Aug 2050 02:01:18 GMT") + "&h=" + q("Expires:Thu, 18 Aug 2050 02:01:19 GMT")]
        for (i, query) in invalid.enumerated() {
            let path = "/invalid\(i)?" + query
            XCTAssertEqual(try fetch(path).cache, "miss, stored", query)
            _ = try fetch(path)
            XCTAssertEqual(origin.count("/invalid\(i)"), 2, query)
        }
    }

    func testHeuristicFreshnessFromLastModified() throws {
        _ = try fetch("/heuristic?lm=-36000")
        XCTAssertTrue(try fetch("/heuristic?lm=-36000").cache.hasPrefix("hit"))
        XCTAssertEqual(origin.count("/heuristic"), 1)
        // No Last-Modified and no explicit freshness: stored (200 is cacheable by default) but never fresh.
        _ = try fetch("/nofresh")
        _ = try fetch("/nofresh")
        XCTAssertEqual(origin.count("/nofresh"), 2)
    }

    func testAgeCountsTheServersAgeAndTheApparentAge() throws {
        let path = "/aged?cc=" + q("max-age=60") + "&age=30"
        _ = try fetch(path)
        let again = try swurl(["-h", origin.url(path)])
        let age = again.text.split(whereSeparator: \.isNewline).first { $0.hasPrefix("Age: ") }.flatMap { Int($0.dropFirst(5)) } ?? -1
        XCTAssertGreaterThanOrEqual(age, 30, again.text)
        XCTAssertEqual(origin.count("/aged"), 1)
        // An Age beyond max-age: stale at once.
        _ = try fetch("/old?cc=" + q("max-age=60") + "&age=100")
        _ = try fetch("/old?cc=" + q("max-age=60") + "&age=100")
        XCTAssertEqual(origin.count("/old"), 2)
        // A Date 100 s in the past makes the apparent age 100 s.
        _ = try fetch("/apparent?cc=" + q("max-age=60") + "&date=-100")
        _ = try fetch("/apparent?cc=" + q("max-age=60") + "&date=-100")
        XCTAssertEqual(origin.count("/apparent"), 2)
    }

    // MARK: - Validation (§4.3)

    /// RFC 9111 §3.1: `Connection`, the fields it lists and the other hop-by-hop fields are not
    /// stored, from the response nor from a 304 that updates it.
    func testConnectionListedAndHopByHopFieldsAreNotStored() throws {
        let path = "/hop?cc=" + q("max-age=0") + "&etag=" + q("\"h\"") + "&h=" + q("Connection:a, b") + "&h=a:1&h=b:2&h=c:3"
            + "&h=" + q("Keep-Alive:timeout=5") + "&h304=" + q("Connection:d") + "&h304=d:4&h304=e:5"
        let first = try fetch(path, ["--print=h"])
        XCTAssertTrue(first.body.contains("\na: 1"), first.body)
        XCTAssertEqual(try fetch(path).cache, "revalidated (304)")
        let stored = try swurl(["-h", "--cache-only", origin.url(path)])
        XCTAssertTrue(stored.text.contains("\nc: 3") && stored.text.contains("\ne: 5"), stored.text)
        for name in ["Connection", "a", "b", "Keep-Alive", "d"] {
            XCTAssertFalse(stored.text.lowercased().contains("\n" + name.lowercased() + ":"), name + " in\n" + stored.text)
        }
    }

    /// A Transfer-Encoding libcurl cannot decode (the cache-tests suite's): the body as sent,
    /// up to the close, is shown and stored; the stored head has no Transfer-Encoding (§3.1).
    func testUnknownTransferEncodingIsPassedThroughAndNotStored() throws {
        let path = "/te?te=x-custom&cc=" + q("max-age=60")
        let first = try fetch(path)
        XCTAssertEqual(first.result.status, 0, first.result.stderr)
        XCTAssertEqual(first.body, "/te #1")
        XCTAssertEqual(first.cache, "miss, stored")
        let again = try swurl(["--print=hb", origin.url(path)])
        XCTAssertTrue(again.text.hasSuffix("/te #1"), again.text)
        XCTAssertFalse(again.text.contains("Transfer-Encoding"), again.text)
        XCTAssertEqual(origin.count("/te"), 1)
    }

    func testETagValidationMergesThe304HeadersAndServesTheStoredBody() throws {
        let path = "/etag?cc=" + q("max-age=0") + "&etag=" + q("\"v1\"") + "&h304=X-New:yes"
        _ = try fetch(path)
        let again = try fetch(path, ["--print=hb"])
        XCTAssertEqual(again.cache, "revalidated (304)")
        XCTAssertEqual(origin.lastHeaders("/etag")["If-None-Match"], "\"v1\"")
        XCTAssertEqual(origin.count("/etag"), 2)
        XCTAssertTrue(again.body.contains("HTTP/1.1 200 OK"), again.body)
        XCTAssertTrue(again.body.contains("X-New: yes"), again.body)
        XCTAssertTrue(again.body.hasSuffix("/etag #1"), again.body)
        // The merged headers were stored: a third run sees them too.
        let third = try swurl(["-h", "--cache-only", origin.url(path)])
        XCTAssertTrue(third.text.contains("X-New: yes"), third.text)
    }

    /// A 304 whose Cache-Control says no-store: the response it updates may not be stored
    /// (RFC 9111 §3), so the entry goes (it was written again, and served fresh after a 304 with
    /// `no-store, max-age=600`).
    func testA304SayingNoStoreRemovesTheEntry() throws {
        let path = "/ns304?cc=" + q("max-age=0") + "&etag=" + q("\"n\"") + "&h304=" + q("Cache-Control:no-store, max-age=600")
        XCTAssertEqual(try fetch(path).cache, "miss, stored")
        let again = try fetch(path)
        XCTAssertEqual(again.cache, "revalidated (304); removed: no-store", again.result.stderr)
        XCTAssertTrue(again.body.hasSuffix("/ns304 #1"), again.body)
        XCTAssertEqual(entries(), [])
        XCTAssertEqual(try fetch(path).cache, "miss, stored")
        XCTAssertEqual(origin.count("/ns304"), 3)
    }

    /// So does a whole response that may not be stored answering a request that would
    /// have used the entry (a stale one, --refresh): the superseded copy stayed and was
    /// served by the next run, `--cache-only` and `--stale-ok` (RFC 9111 §4.3.3).
    func testAWholeResponseThatMayNotBeStoredRemovesTheEntryItReplaced() throws {
        let path = "/ns200?cc=" + q("max-age=0") + "&cc2=" + q("no-store")
        XCTAssertEqual(try fetch(path).cache, "miss, stored")
        let again = try fetch(path)
        XCTAssertEqual(again.cache, "not stored: no-store; the stored copy removed", again.result.stderr)
        XCTAssertTrue(again.body.hasSuffix("/ns200 #2"), again.body)
        XCTAssertEqual(entries(), [])
        let only = try swurl(["--cache-only", "--stale-ok", origin.url(path)])
        XCTAssertFalse(only.text.contains("/ns200 #1"), only.text)
        // --refresh: the same with a fresh entry.
        let fresh = "/nsrefresh?cc=" + q("max-age=600") + "&cc2=" + q("no-store")
        XCTAssertEqual(try fetch(fresh).cache, "miss, stored")
        XCTAssertEqual(try fetch(fresh, ["--refresh"]).cache, "not stored: no-store; the stored copy removed")
        XCTAssertEqual(entries(), [])
        XCTAssertTrue(try fetch(fresh).body.hasSuffix("/nsrefresh #3"))
        // A status that asks to try again later is no answer either: the copy stays.
        let busy = "/ns429?cc=" + q("max-age=0") + "&status2=429"
        XCTAssertEqual(try fetch(busy).cache, "miss, stored")
        XCTAssertEqual(try fetch(busy).cache, "not stored: status 429, which --retry retries")
        XCTAssertTrue(try swurl(["--cache-only", origin.url(busy)]).text.hasSuffix("/ns429 #1"))
    }

    /// A request saying `Cache-Control: no-store` stores nothing and leaves what is stored alone
    /// (RFC 9111 §5.2.1.5): its 304 removed a still-valid entry, and so would a whole answer.
    func testARequestSayingNoStoreLeavesTheStoredResponseAlone() throws {
        let path = "/reqns?cc=" + q("max-age=0") + "&etag=" + q("\"r\"")
        XCTAssertEqual(try fetch(path).cache, "miss, stored")
        XCTAssertEqual(try fetch(path, ["Cache-Control:no-store"]).cache, "revalidated (304); not updated: no-store in the request")
        XCTAssertEqual(entries().count, 1)
        let whole = "/reqns2?cc=" + q("max-age=600")
        XCTAssertEqual(try fetch(whole).cache, "miss, stored")
        XCTAssertEqual(try fetch(whole, ["--refresh", "Cache-Control:no-store"]).cache, "not stored: no-store in the request")
        XCTAssertTrue(try fetch(whole).body.hasSuffix("/reqns2 #1"))
    }

    /// The answer to a conditional request of the user's own (If-Match, If-Unmodified-Since) is
    /// neither stored nor a reason to drop the stored response: a 412 with max-age took the
    /// 200's place and answered the next plain GET, and one without freshness removed it.
    func testTheAnswerToAConditionOfTheUsersOwnIsNotStored() throws {
        let path = "/cond?cc=" + q("max-age=600") + "&etag=" + q("\"v1\"") + "&status2=412"
        XCTAssertEqual(try fetch(path).cache, "miss, stored")
        for condition in ["If-Match:\"other\"", "If-Unmodified-Since:Thu, 01 Jan 1970 00:00:00 GMT"] {
            let own = try fetch(path, [condition])
            XCTAssertEqual(own.cache, "not stored: the answer (412) to a conditional request of the user's own", own.result.stderr)
        }
        let plain = try fetch(path)
        XCTAssertTrue(plain.cache.hasPrefix("hit"), plain.cache)
        XCTAssertEqual(plain.body, "/cond #1")
    }

    /// A cookie a revalidating 304 sets reached the engine but was not shown (`-h`, `--har`): it
    /// is shown with the updated response, and still never stored with it.
    func testACookieA304SetsIsShownNotStored() throws {
        let path = "/cookie304?cc=" + q("max-age=0") + "&etag=" + q("\"c\"") + "&h304=" + q("Set-Cookie:sid=from304; Path=/")
        _ = try fetch(path)
        let har = TestPaths.temporaryDirectory() + "/t.har"
        let again = try fetch(path, ["--print=h", "--har", har])
        XCTAssertEqual(again.cache, "revalidated (304)")
        XCTAssertTrue(again.body.contains("Set-Cookie: sid=from304; Path=/"), again.body)
        let entry = try XCTUnwrap(((try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: har))) as? [String: Any])?["log"]
            as? [String: Any])?["entries"] as? [[String: Any]])
        let cookies = (entry.first?["response"] as? [String: Any])?["cookies"] as? [[String: Any]]
        XCTAssertEqual(cookies?.first?["name"] as? String, "sid")
        let third = try swurl(["-h", "--cache-only", origin.url(path)])
        XCTAssertFalse(third.text.contains("Set-Cookie"), third.text)
    }

    /// A 304 without `Age` drops the stored one (the origin has just validated the response): an
    /// entry that arrived already older than its max-age is fresh again after it, not validated
    /// on every use.
    func testA304WithoutAgeStartsTheEntrysAgeAgain() throws {
        let path = "/aged304?cc=" + q("max-age=60") + "&etag=" + q("\"a\"") + "&hfull=Age:70"
        XCTAssertEqual(try fetch(path).cache, "miss, stored")
        XCTAssertEqual(try fetch(path).cache, "revalidated (304)")
        let third = try fetch(path, ["--print=h"])
        XCTAssertTrue(third.cache.hasPrefix("hit, age "), third.cache)
        XCTAssertFalse(third.body.contains("Age: 7"), third.body)
        XCTAssertEqual(origin.count("/aged304"), 2)
    }

    /// A 304 without `Date` gets the time it came (RFC 9110 §6.6.1): the stored response's old
    /// `Date` kept its age growing, so every later request was validated again.
    func testA304WithoutDateStartsTheEntrysAgeAgain() throws {
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "GMT")
        format.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let old = format.string(from: Date().addingTimeInterval(-70))
        let path = "/undated304?date=none&cc=" + q("max-age=60") + "&etag=" + q("\"a\"") + "&hfull=" + q("Date:" + old)
        XCTAssertEqual(try fetch(path).cache, "miss, stored")
        XCTAssertEqual(try fetch(path).cache, "revalidated (304)")
        let third = try fetch(path)
        XCTAssertTrue(third.cache.hasPrefix("hit, age "), third.cache)
        XCTAssertEqual(origin.count("/undated304"), 2)
    }

    /// An entry others can write is not served (swurl makes them 0600; its body has no digest):
    /// the request goes, and its response replaces the entry. It was served whatever it held.
    func testAnEntryOthersCanWriteIsNotServed() throws {
        let path = "/writable?cc=" + q("max-age=600")
        XCTAssertEqual(try fetch(path).cache, "miss, stored")
        let stored = try XCTUnwrap(entries().first)
        XCTAssertEqual(chmod(dir + "/" + stored, 0o666), 0)
        let again = try fetch(path)
        XCTAssertEqual(again.cache, "miss, stored")
        XCTAssertEqual(origin.count("/writable"), 2)
        let mode = try FileManager.default.attributesOfItem(atPath: dir + "/" + stored)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600, "replaced by a private entry")
        // `cache list` lists no entry a request would not be served: the table showed it fresh
        // (`--json` left it out).
        XCTAssertEqual(chmod(dir + "/" + stored, 0o606), 0)
        let list = try swurl(["cache", "list"])
        XCTAssertEqual(list.status, 0, list.stderr)
        XCTAssertEqual(list.text, "", list.text)
    }

    /// A response without `Date` is stored with the time it came (RFC 9110 §6.6.1), so a hit
    /// shows one: it was served without any.
    func testAResponseWithoutDateIsStoredWithOne() throws {
        let path = "/undated200?date=none&cc=" + q("max-age=60")
        let first = try fetch(path, ["--print=h"])
        XCTAssertEqual(first.cache, "miss, stored")
        XCTAssertFalse(first.body.contains("\nDate: "), first.body)
        let hit = try fetch(path, ["--print=h"])
        XCTAssertTrue(hit.cache.hasPrefix("hit, age "), hit.cache)
        XCTAssertTrue(hit.body.contains("\nDate: "), hit.body)
        XCTAssertEqual(origin.count("/undated200"), 1)
    }

    /// A 304 without a tag whose `Last-Modified` is not the stored one's names another version
    /// (§4.3.4): the request goes again without validators, and the new response is stored.
    func testA304ForAnotherLastModifiedIsNotTheStoredResponse() throws {
        let path = "/moved304?cc=" + q("max-age=0") + "&lm=-1000&h304=" + q("Last-Modified:Sun, 06 Nov 1994 08:49:37 GMT")
        XCTAssertEqual(try fetch(path).cache, "miss, stored")
        let again = try fetch(path)
        XCTAssertEqual(again.cache, "refetched, stored")
        XCTAssertEqual(again.body, "/moved304 #3")
        XCTAssertEqual(origin.count("/moved304"), 3)
    }

    /// RFC 9111 §4.3.4: a 304 whose `ETag` is not the stored one selects no stored response.
    /// It is not shown (the user's request was not conditional) and the request goes again,
    /// without validators; the new response replaces the entry.
    func testA304ForAnotherETagIsNotShownAndTheRequestGoesAgainUnconditionally() throws {
        let path = "/other304?cc=" + q("max-age=0") + "&etag=" + q("\"a\"") + "&h304=" + q("ETag:\"b\"")
        _ = try fetch(path)
        let again = try fetch(path, ["--print=hb"])
        XCTAssertEqual(again.result.status, 0, again.result.stderr)
        XCTAssertTrue(again.body.contains("HTTP/1.1 200 OK") && !again.body.contains("HTTP/1.1 304"), again.body)
        XCTAssertTrue(again.body.hasSuffix("/other304 #3"), again.body)
        XCTAssertEqual(origin.count("/other304"), 3)
        XCTAssertNil(origin.lastHeaders("/other304")["If-None-Match"])
        // A stored response was there: not a "miss" (said so before, as if there were none).
        XCTAssertEqual(again.cache, "refetched, stored")
        XCTAssertTrue(try swurl(["--cache-only", origin.url(path)]).text.hasSuffix("/other304 #3"))
    }

    /// Regression: nginx with `gzip on` makes a 200's tag weak (`W/"g"`) and sends its 304 with
    /// the strong `"g"`. Compared strongly, the 304 selected nothing: every revalidation went
    /// twice, the second time unconditional. Compared weakly, one request.
    func testAStrong304TagRevalidatesTheSameWeakStoredTag() throws {
        let path = "/weak304?cc=" + q("max-age=0") + "&etag=" + q("W/\"g\"") + "&h304=" + q("ETag:\"g\"")
        _ = try fetch(path)
        let again = try fetch(path)
        XCTAssertEqual(again.cache, "revalidated (304)", again.result.stderr)
        XCTAssertEqual(origin.lastHeaders("/weak304")["If-None-Match"], "W/\"g\"")
        XCTAssertEqual(origin.count("/weak304"), 2)
        XCTAssertEqual(again.body, "/weak304 #1")
    }

    /// (The date is fixed: one ten seconds before each answer changed when the two fetches fell
    /// in two seconds, and a 304 naming another Last-Modified selects nothing.)
    func testLastModifiedValidationSendsIfModifiedSince() throws {
        let path = "/lm?cc=" + q("max-age=0") + "&lm=@\(Int(Date().timeIntervalSince1970) - 10)"
        _ = try fetch(path)
        let again = try fetch(path)
        XCTAssertEqual(again.cache, "revalidated (304)")
        XCTAssertNotNil(origin.lastHeaders("/lm")["If-Modified-Since"])
        XCTAssertEqual(again.body, "/lm #1")
    }

    func testRefreshRevalidatesAFreshEntry() throws {
        let path = "/refresh?cc=" + q("max-age=60") + "&etag=" + q("\"r\"")
        _ = try fetch(path)
        let again = try fetch(path, ["--refresh"])
        XCTAssertEqual(again.cache, "revalidated (304)")
        XCTAssertEqual(origin.count("/refresh"), 2)
        XCTAssertEqual(again.body, "/refresh #1")
    }

    /// `--offline` with a fresh entry, or `--cache-only` without one: a note says the cache would
    /// answer, and nothing would be sent. It only looks: a cache directory not there yet is not made.
    func testOfflineSaysWhenTheCacheWouldAnswer() throws {
        let path = "/offhit?cc=" + q("max-age=600")
        let parent = TestPaths.temporaryDirectory() + "/not-yet", missing = parent + "/cache"
        let looked = try runSwurl(["--offline", "--cache=" + missing, "--cache-only", origin.url(path)])
        XCTAssertEqual(looked.status, 0, looked.stderr)
        XCTAssertTrue(looked.stderr.contains("(miss, only from the cache: 504); it would not be sent"), looked.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: parent), "--offline made the cache directory")
        XCTAssertFalse(try swurl(["--offline", origin.url(path)]).stderr.contains("note"))
        _ = try fetch(path)
        let shown = try swurl(["--offline", origin.url(path)])
        XCTAssertEqual(shown.status, 0, shown.stderr)
        XCTAssertTrue(shown.stderr.contains("swurl: note: the cache would answer this request (hit, age "), shown.stderr)
        let only = try swurl(["--offline", "--cache-only", origin.url("/nothing")])
        XCTAssertTrue(only.stderr.contains("(miss, only from the cache: 504); it would not be sent"), only.stderr)
        XCTAssertEqual(origin.count("/offhit"), 1)
    }

    func testOfflineShowsTheConditionalHeadersAStaleEntryWouldAdd() throws {
        let path = "/offline?cc=" + q("max-age=0") + "&etag=" + q("\"o\"")
        XCTAssertFalse(try swurl(["--offline", origin.url(path)]).text.contains("If-None-Match"))
        _ = try fetch(path)
        let shown = try swurl(["--offline", origin.url(path)])
        XCTAssertTrue(shown.text.contains("If-None-Match: \"o\""), shown.text)
        XCTAssertEqual(origin.count("/offline"), 1)
    }

    // MARK: - Response directives (§5.2.2)

    func testNoStoreIsNeverStored() throws {
        let first = try fetch("/nostore?cc=no-store")
        XCTAssertEqual(first.cache, "not stored: no-store")
        _ = try fetch("/nostore?cc=no-store")
        XCTAssertEqual(origin.count("/nostore"), 2)
        XCTAssertEqual(entries(), [])
    }

    /// RFC 9111 §5.2.2.3: `must-understand` makes a response with a status the cache knows
    /// storable despite `no-store`, and one with an unknown status not storable.
    func testMustUnderstandOverridesNoStoreOnlyForAKnownStatus() throws {
        let cc = "&cc=" + q("max-age=60, no-store, must-understand")
        _ = try fetch("/known?status=200" + cc)
        XCTAssertTrue(try fetch("/known?status=200" + cc).cache.hasPrefix("hit"))
        XCTAssertEqual(origin.count("/known"), 1)
        XCTAssertEqual(try fetch("/unknown?status=599" + cc).cache, "not stored: must-understand, status 599")
        _ = try fetch("/unknown?status=599" + cc)
        XCTAssertEqual(origin.count("/unknown"), 2)
    }

    func testNoCacheIsStoredButAlwaysRevalidated() throws {
        let path = "/nocache?cc=no-cache&etag=" + q("\"n\"")
        _ = try fetch(path)
        let again = try fetch(path)
        XCTAssertEqual(again.cache, "revalidated (304)")
        XCTAssertEqual(origin.lastHeaders("/nocache")["If-None-Match"], "\"n\"")
    }

    func testMustRevalidateForbidsServingStaleWithMaxStale() throws {
        let loose = "/loose?cc=" + q("max-age=0")
        _ = try fetch(loose)
        XCTAssertTrue(try fetch(loose, ["Cache-Control:max-stale=60"]).cache.hasPrefix("hit"))
        XCTAssertEqual(origin.count("/loose"), 1)
        let strict = "/strict?cc=" + q("max-age=0, must-revalidate")
        _ = try fetch(strict)
        _ = try fetch(strict, ["Cache-Control:max-stale=60"])
        XCTAssertEqual(origin.count("/strict"), 2)
    }

    func testPrivateIsStoredAndPublicMakesAStatusCacheable() throws {
        _ = try fetch("/private?cc=" + q("private, max-age=60"))
        XCTAssertTrue(try fetch("/private?cc=" + q("private, max-age=60")).cache.hasPrefix("hit"))
        // 302 is not cacheable by default; public makes it so (heuristic freshness from Last-Modified).
        _ = try fetch("/public?status=302&cc=public&lm=-36000")
        XCTAssertTrue(try fetch("/public?status=302&cc=public&lm=-36000").cache.hasPrefix("hit"))
        XCTAssertEqual(origin.count("/public"), 1)
        _ = try fetch("/plain302?status=302&lm=-36000")
        _ = try fetch("/plain302?status=302&lm=-36000")
        XCTAssertEqual(origin.count("/plain302"), 2)
    }

    // MARK: - Request directives (§5.2.1)

    func testRequestMaxAgeAndMinFresh() throws {
        let path = "/reqdir?cc=" + q("max-age=60")
        _ = try fetch(path)
        XCTAssertTrue(try fetch(path, ["Cache-Control:min-fresh=10"]).cache.hasPrefix("hit"))
        XCTAssertEqual(origin.count("/reqdir"), 1)
        _ = try fetch(path, ["Cache-Control:min-fresh=120"])
        XCTAssertEqual(origin.count("/reqdir"), 2)
        _ = try fetch(path, ["Cache-Control:max-age=0"])
        XCTAssertEqual(origin.count("/reqdir"), 3)
        _ = try fetch(path, ["Cache-Control:no-cache"])
        XCTAssertEqual(origin.count("/reqdir"), 4)
    }

    func testRequestMaxStaleAcceptsAStaleResponse() throws {
        let path = "/maxstale?cc=" + q("max-age=0")
        _ = try fetch(path)
        _ = try fetch(path)
        XCTAssertEqual(origin.count("/maxstale"), 2)
        // Served past its lifetime: the status says so (it said "hit, age 0 s" as for a fresh one).
        XCTAssertTrue(try fetch(path, ["Cache-Control:max-stale"]).cache.hasPrefix("hit, stale (max-stale), age "))
        XCTAssertEqual(origin.count("/maxstale"), 2)
        let fresh = "/maxstale-fresh?cc=" + q("max-age=600")
        _ = try fetch(fresh)
        XCTAssertTrue(try fetch(fresh, ["Cache-Control:max-stale"]).cache.hasPrefix("hit, age "))
    }

    func testOnlyIfCachedAnswers504WithoutTheNetwork() throws {
        let path = "/oic?cc=" + q("max-age=60")
        let miss = try swurl(["--check-status", "-h", origin.url(path), "Cache-Control:only-if-cached"])
        XCTAssertEqual(miss.status, 5, miss.stderr)
        XCTAssertTrue(miss.text.hasPrefix("HTTP/1.1 504"), miss.text)
        XCTAssertEqual(origin.count("/oic"), 0)
        _ = try fetch(path)
        let hit = try fetch(path, ["Cache-Control:only-if-cached"])
        XCTAssertEqual(hit.body, "/oic #1")
        XCTAssertEqual(origin.count("/oic"), 1)
    }

    // MARK: - Vary (§4.1)

    func testVaryMatchesOnlyTheSameHeaderValues() throws {
        let path = "/vary?cc=" + q("max-age=60") + "&vary=X-Lang"
        XCTAssertEqual(try fetch(path, ["X-Lang:en"]).body, "/vary #1 X-Lang=en")
        XCTAssertEqual(try fetch(path, ["X-Lang:en"]).body, "/vary #1 X-Lang=en")
        XCTAssertEqual(try fetch(path, ["X-Lang:fr"]).body, "/vary #2 X-Lang=fr")
        XCTAssertEqual(origin.count("/vary"), 2)
    }

    /// Several Vary fields are one list (RFC 9110 §5.3): the second one counted as well (only the
    /// first was read, so a response fetched with one X-Lang answered another), `*` too.
    func testEveryVaryFieldCounts() throws {
        // Accept, which the cache key leaves to Vary (a header of the user's own, X-Lang, is in
        // the key itself). The origin's body names the first field's value, Accept-Encoding's.
        let path = "/vary2?cc=" + q("max-age=60") + "&vary=Accept-Encoding&h=" + q("Vary:Accept")
        XCTAssertTrue(try fetch(path, ["Accept:application/json"]).body.hasPrefix("/vary2 #1 "))
        XCTAssertTrue(try fetch(path, ["Accept:application/json"]).body.hasPrefix("/vary2 #1 "))
        XCTAssertTrue(try fetch(path, ["Accept:text/html"]).body.hasPrefix("/vary2 #2 "), "a response for JSON answered a request for HTML")
        XCTAssertEqual(origin.count("/vary2"), 2)
        let star = "/varystar2?cc=" + q("max-age=60") + "&vary=Accept&h=" + q("Vary:*")
        XCTAssertEqual(try fetch(star).cache, "not stored: Vary: *")
    }

    func testVaryStarNeverMatches() throws {
        let path = "/varystar?cc=" + q("max-age=60") + "&vary=*"
        XCTAssertEqual(try fetch(path).cache, "not stored: Vary: *")
        _ = try fetch(path)
        XCTAssertEqual(origin.count("/varystar"), 2)
    }

    // MARK: - Invalidation (§4.4)

    func testUnsafeMethodsInvalidateTheURLAndSameOriginLocations() throws {
        let page = "/page?cc=" + q("max-age=60")
        _ = try fetch(page)
        _ = try swurl(["POST", origin.url(page), "a=1"])
        _ = try fetch(page)
        XCTAssertEqual(origin.requests().filter { $0["method"] as? String == "GET" }.count, 2)

        let target = "/target?cc=" + q("max-age=60")
        let other = "/other?cc=" + q("max-age=60")
        _ = try fetch(target)
        _ = try fetch(other)
        _ = try swurl(["PUT", origin.url("/put?loc=" + q(origin.url(target))
                                         + "&cloc=" + q("http://localhost:\(origin.port)" + other)), "a=1"])
        _ = try fetch(target)
        _ = try fetch(other)
        XCTAssertEqual(origin.count("/target"), 2, "a same-origin Location is invalidated")
        XCTAssertEqual(origin.count("/other"), 1, "another origin's Content-Location is not")
        // A failed unsafe request (4xx) invalidates nothing.
        _ = try swurl(["DELETE", origin.url("/del?status=404&loc=" + q(origin.url(other)))])
        _ = try fetch(other)
        XCTAssertEqual(origin.count("/other"), 1)
        // A 2xx whose body is then cut: the server acted on it, so the URL it names is out of
        // date (it was still served from the cache).
        let cut = try swurl(["POST", origin.url("/cutpost?cut=1&cloc=" + q(origin.url(other))), "a=1"])
        XCTAssertEqual(cut.status, 1, cut.stderr)
        XCTAssertEqual(try fetch(other).cache, "miss, stored")
        XCTAssertEqual(origin.count("/other"), 2)
    }

    /// A retried status is no answer to store (a 503 with max-age answered the retry itself from
    /// the cache, and the run showed it, exit 0).
    func testARetriedStatusIsNotStored() throws {
        let path = "/busy?fails=1&cc=" + q("max-age=60")
        let r = try swurl(["--retry", "2", "--retry-delay", "0.05", origin.url(path)])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("retrying"), r.stderr)
        XCTAssertEqual(r.text, "/busy #2")
        XCTAssertEqual(origin.count("/busy"), 2)
        XCTAssertEqual(try fetch(path).body, "/busy #2", "the 200 is the one stored")
    }

    /// A retried status is not stored when the retries run out either: the last 503 was stored
    /// (it said "miss, stored"), and answered every later run, --retry's too, without a request.
    func testAStatusRetriedUntilTheBudgetRanOutIsNotStored() throws {
        let path = "/down?fails=9&cc=" + q("max-age=600")
        let r = try swurl(["-v", "--retry", "1", "--retry-delay", "0.05", origin.url(path)])
        XCTAssertTrue(r.stderr.contains("cache: not stored: status 503, which --retry retries"), r.stderr)
        XCTAssertEqual(origin.count("/down"), 2)
        let again = try fetch(path)
        XCTAssertFalse(again.cache.hasPrefix("hit"), again.cache)
        XCTAssertEqual(origin.count("/down"), 3)
    }

    /// `Vary`: a header absent from the stored request matches only its absence: an empty
    /// `Accept-Language` was answered by the response to a request without one, and the reverse.
    func testAnEmptyVaryHeaderIsNotAnAbsentOne() throws {
        let path = "/varyempty?vary=Accept-Language&cc=" + q("max-age=600")
        XCTAssertEqual(try fetch(path).cache, "miss, stored")
        XCTAssertEqual(try fetch(path, ["Accept-Language;"]).body, "/varyempty #2 Accept-Language=")
        XCTAssertEqual(try fetch(path).body, "/varyempty #3 Accept-Language=")
        XCTAssertEqual(origin.count("/varyempty"), 3)
    }

    // MARK: - What is stored (§3)

    /// A GET with a body (a search API's query) is neither served nor stored: the key does not
    /// cover the body, so another body's response would answer it.
    func testAGetWithABodyGoesToTheNetworkEveryTime() throws {
        let url = origin.url("/search?cc=" + q("max-age=600"))
        for query in ["cats", "dogs"] {
            let r = try swurl(["-v", "GET", url, "q=\(query)"])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertFalse(r.stderr.contains("swurl: cache:"), r.stderr)
        }
        XCTAssertEqual(try fetch("/search?cc=" + q("max-age=600")).cache, "miss, stored")
        XCTAssertEqual(origin.count("/search"), 3)
        XCTAssertEqual(try swurl(["GET", url, "q=birds"]).text, "/search #4")
    }

    /// The fragment is never sent, so it is no part of an entry's URL: `doc#intro` is the entry of
    /// `doc`, and a PUT to `doc` invalidates it. A Location in another spelling of the same URL
    /// (upper-case scheme, a fragment) invalidates it too.
    func testTheFragmentIsNoPartOfAnEntryAndInvalidationMatchesEverySpelling() throws {
        let doc = "/doc?cc=" + q("max-age=600")
        XCTAssertEqual(try fetch(doc + "#intro").cache, "miss, stored")
        XCTAssertTrue(try fetch(doc).cache.hasPrefix("hit, age "))
        XCTAssertEqual(entries().count, 1)
        _ = try swurl(["PUT", origin.url(doc), "a=1"])
        XCTAssertEqual(try fetch(doc + "#intro").cache, "miss, stored")
        let list = try swurl(["cache", "list"])
        XCTAssertFalse(list.text.contains("#intro"), list.text)

        // A host in another case is the same entry (libcurl keeps a host's case), and a Location
        // in another spelling (upper-case scheme and host, a fragment) invalidates it.
        let target = "/L2?cc=" + q("max-age=600")
        let host = "localhost:\(origin.port)"
        func get(_ base: String) throws -> String {
            let r = try swurl(["-v", base + target])
            return r.stderr.split(separator: "\n").first { $0.hasPrefix("swurl: cache: ") }.map(String.init) ?? r.stderr
        }
        XCTAssertEqual(try get("http://LOCALHOST:\(origin.port)"), "swurl: cache: miss, stored")
        XCTAssertTrue(try get("http://" + host).hasPrefix("swurl: cache: hit"))
        let post = try swurl(["POST", "http://\(host)/pp?status=201&loc=" + q("HTTP://LocalHost:\(origin.port)" + target + "#frag"), "a=b"])
        XCTAssertEqual(post.status, 0, post.stderr)
        XCTAssertEqual(try get("http://" + host), "swurl: cache: miss, stored", "the Location invalidated it")
        XCTAssertEqual(try swurl(["cache", "clear", "LOCALHOST:\(origin.port)/./L2#x"]).text, "removed 1 entry\n")
        // Bytes a URL cannot hold are percent-encoded in the prefix as in the request's URL.
        XCTAssertEqual(try fetch("/caf\u{E9} x?cc=" + q("max-age=600")).cache, "miss, stored")
        XCTAssertEqual(try swurl(["cache", "clear", "127.0.0.1:\(origin.port)/caf\u{E9} x"]).text, "removed 1 entry\n")
    }

    /// `Set-Cookie` is not stored, as browsers' caches leave it out: the network's response set the
    /// cookie; a hit hands the engine nothing and so shows none.
    func testSetCookieIsNotStoredNorShownOnAHit() throws {
        let path = "/sets?cc=" + q("max-age=600") + "&h=" + q("Set-Cookie:sid=S1; Path=/")
        let first = try swurl(["--print=h", origin.url(path)])
        XCTAssertTrue(first.text.contains("Set-Cookie: sid=S1"), first.text)
        let hit = try swurl(["--print=h", "-v", origin.url(path)])
        XCTAssertTrue(hit.stderr.contains("swurl: cache: hit"), hit.stderr)
        XCTAssertFalse(hit.text.contains("Set-Cookie"), hit.text)
        XCTAssertEqual(origin.count("/sets"), 1)
        for name in entries() {
            let bytes = try XCTUnwrap(FileManager.default.contents(atPath: dir + "/" + name))
            XCTAssertFalse(String(decoding: bytes, as: UTF8.self).contains("sid=S1"), name)
        }
    }

    func testPartialAndIncompleteResponsesAreNotStored() throws {
        let partial = "/partial?status=206&cc=" + q("max-age=60")
        XCTAssertEqual(try fetch(partial).cache, "not stored: partial content (206)")
        _ = try fetch(partial)
        XCTAssertEqual(origin.count("/partial"), 2)
        let cut = try fetch("/cut?cut=1&cc=" + q("max-age=60"))
        XCTAssertNotEqual(cut.result.status, 0)
        _ = try fetch("/cut?cut=1&cc=" + q("max-age=60"))
        XCTAssertEqual(origin.count("/cut"), 2)
        XCTAssertEqual(entries(), [])
    }

    func testStatusesCacheableByDefault() throws {
        _ = try fetch("/gone?status=404&lm=-36000")
        XCTAssertTrue(try fetch("/gone?status=404&lm=-36000").cache.hasPrefix("hit"))
        XCTAssertEqual(origin.count("/gone"), 1)
        // 201 is not cacheable by default: with only Last-Modified it is not stored.
        XCTAssertEqual(try fetch("/created?status=201&lm=-36000").cache, "not stored: status 201 without explicit freshness")
        _ = try fetch("/created?status=201&lm=-36000")
        XCTAssertEqual(origin.count("/created"), 2)
    }

    // MARK: - Safety

    func testCredentialsArePartOfTheKeyAndNeverStoredInClear() throws {
        let path = "/private-data?cc=" + q("private, max-age=60")
        XCTAssertEqual(try fetch(path, ["Authorization:Bearer secret-token-a"]).body, "/private-data #1")
        XCTAssertEqual(try fetch(path, ["Authorization:Bearer secret-token-a"]).body, "/private-data #1")
        XCTAssertEqual(try fetch(path, ["Authorization:Bearer secret-token-b"]).body, "/private-data #2")
        XCTAssertEqual(try fetch(path).body, "/private-data #3")
        XCTAssertEqual(try fetch(path, ["Cookie:sid=secret-cookie"]).body, "/private-data #4")
        XCTAssertEqual(try fetch(path, ["-a", "ann:secret-password"]).body, "/private-data #5")
        XCTAssertEqual(try fetch(path, ["-a", "ann:secret-password"]).body, "/private-data #5")
        // A credential in a field of the API's own (any header item but the Accept family, the
        // User-Agent, the cache's own fields) is part of the key as well; their order is not.
        XCTAssertEqual(try fetch(path, ["X-Api-Key:secret-alice", "X-Team:blue"]).body, "/private-data #6")
        XCTAssertEqual(try fetch(path, ["X-Team:blue", "x-api-key:secret-alice", "User-Agent:other/1"]).body, "/private-data #6")
        XCTAssertEqual(try fetch(path, ["X-Api-Key:secret-bob", "X-Team:blue"]).body, "/private-data #7")
        XCTAssertEqual(try fetch(path, ["X-Api-Key:secret-alice"]).body, "/private-data #8")
        for name in entries() {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name))
            let text = String(decoding: bytes, as: UTF8.self)
            XCTAssertFalse(text.contains("secret"), name)
        }
    }

    /// A response that varies on `Authorization`, `Cookie` or an API key header wrote their
    /// values into its file (the token, the session id, the key); the key's digests match them,
    /// and the values stay out of the file.
    func testVaryOnCredentialsKeepsThemOutOfTheEntry() throws {
        let path = "/vary-auth?cc=" + q("private, max-age=60") + "&vary=" + q("Authorization, Cookie, X-Api-Key, Accept-Language")
        let with = ["Authorization:Bearer secret-token-a", "Cookie:sid=secret-cookie", "X-Api-Key:secret-key", "Accept-Language:fr"]
        // (The origin echoes the Vary'd values after the count in the body, stored as sent.)
        XCTAssertTrue(try fetch(path, with).body.hasPrefix("/vary-auth #1 "))
        XCTAssertTrue(try fetch(path, with).cache.hasPrefix("hit"))
        let other = try fetch(path, ["Authorization:Bearer secret-token-b", "Cookie:sid=secret-cookie", "X-Api-Key:secret-key", "Accept-Language:fr"])
        XCTAssertTrue(other.body.hasPrefix("/vary-auth #2 "), other.body)
        let key = try fetch(path, ["Authorization:Bearer secret-token-b", "Cookie:sid=secret-cookie", "X-Api-Key:other-key", "Accept-Language:fr"])
        XCTAssertTrue(key.body.hasPrefix("/vary-auth #3 "), "another API key is another response: \(key.body)")
        let language = try fetch(path, ["Authorization:Bearer secret-token-b", "Cookie:sid=secret-cookie", "X-Api-Key:other-key", "Accept-Language:de"])
        XCTAssertTrue(language.body.hasPrefix("/vary-auth #4 "), "the other headers Vary lists still count: \(language.body)")
        var vary: [String] = []
        for name in entries() {
            let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name)), as: UTF8.self)
            vary += text.split(separator: "\n").filter { $0.hasPrefix("vary ") }.map(String.init)
        }
        XCTAssertEqual(vary.sorted(), ["vary accept-language: de", "vary accept-language: fr", "vary accept-language: fr"])
    }

    /// A cookie libcurl's engine adds (set by the redirect before the hop) is part of the key: the
    /// response fetched with it never answers a request without it.
    func testCookiesTheEngineAddsArePartOfTheKey() throws {
        let page = origin.url("/logged-in?cc=" + q("max-age=600"))
        // A persistent cookie: its expiry is no part of the key, only its name and value.
        let login = "/login?status=302&loc=" + q(page) + "&h=" + q("Set-Cookie:sid=LOGGEDIN; Path=/; Max-Age=3600")
        let first = try swurl(["-F", origin.url(login)])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(origin.lastHeaders("/logged-in")["Cookie"], "sid=LOGGEDIN", "the redirect's hop carried the cookie")
        // The same page without the cookie: the origin answers it (a hit would serve the logged-in page).
        XCTAssertEqual(try fetch("/logged-in?cc=" + q("max-age=600")).cache, "miss, stored")
        XCTAssertEqual(origin.count("/logged-in"), 2)
        XCTAssertNil(origin.lastHeaders("/logged-in")["Cookie"])
        // Logged in again a second later (the cookie's expiry is another second): a hit, and one entry.
        Thread.sleep(forTimeInterval: 1.1)
        let again = try swurl(["-F", origin.url(login)])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(again.text, "/logged-in #1")
        XCTAssertEqual(origin.count("/logged-in"), 2)
        XCTAssertEqual(origin.count("/login"), 2)
    }

    /// A session whose cookie the server renews on every response (a new expiry each run): the
    /// key holds the cookies sent, by name and value, so the next run hits.
    func testASessionsRenewedCookieStillHits() throws {
        let session = TestPaths.temporaryDirectory() + "/renewed.json"
        let path = "/renewed?cc=" + q("max-age=600") + "&h=" + q("Set-Cookie:fixed=1; Path=/; Max-Age=3600")
        for _ in 0..<4 {
            let r = try swurl(["--session", session, origin.url(path)])
            XCTAssertEqual(r.status, 0, r.stderr)
            Thread.sleep(forTimeInterval: 1.1)
        }
        // Run 1 without the cookie, run 2 with it (each a response of its own); runs 3 and 4 hit.
        XCTAssertEqual(origin.count("/renewed"), 2)
        XCTAssertEqual(origin.lastHeaders("/renewed")["Cookie"], "fixed=1")
    }

    /// `--offline` with a session shows the validators the real request sends: its key has the
    /// session's cookies for the host as the engine will have them.
    func testOfflineWithASessionShowsTheValidatorsOfAStaleEntry() throws {
        let session = TestPaths.temporaryDirectory() + "/s.json"
        try Data(#"{"version": 1, "cookies": [{"domain": "127.0.0.1", "path": "/", "name": "sid", "value": "s1"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: session))
        let path = "/stale-session?etag=" + q("\"v1\"") + "&cc=" + q("max-age=0")
        let stored = try swurl(["--session-read-only", session, origin.url(path)])
        XCTAssertEqual(stored.status, 0, stored.stderr)
        XCTAssertEqual(origin.lastHeaders("/stale-session")["Cookie"], "sid=s1")
        let offline = try swurl(["--offline", "--session-read-only", session, origin.url(path)])
        XCTAssertEqual(offline.status, 0, offline.stderr)
        XCTAssertTrue(offline.text.contains("If-None-Match: \"v1\""), offline.text)
        let sent = try swurl(["--session-read-only", session, origin.url(path)])
        XCTAssertEqual(sent.status, 0, sent.stderr)
        XCTAssertEqual(origin.lastHeaders("/stale-session")["If-None-Match"], "\"v1\"")
    }

    /// A `Host` field names another virtual host: its response is another response.
    func testAHostFieldIsPartOfTheKey() throws {
        let path = "/vhost?cc=" + q("max-age=600")
        XCTAssertEqual(try fetch(path, ["Host:other.example"]).body, "/vhost #1")
        XCTAssertEqual(try fetch(path).body, "/vhost #2")
        XCTAssertEqual(try fetch(path, ["Host:OTHER.example"]).body, "/vhost #1")
        XCTAssertEqual(try fetch(path).body, "/vhost #2")
        XCTAssertEqual(origin.count("/vhost"), 2)
    }

    /// The URL's password never reaches an entry file (it keeps `****`), and the entry still
    /// answers the same URL.
    func testAURLPasswordIsNotStoredInClear() throws {
        let url = origin.url("/pw?cc=" + q("max-age=600")).replacingOccurrences(of: "http://", with: "http://ann:hunter2@")
        for _ in 0..<2 {
            let r = try swurl([url])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(r.text, "/pw #1")
        }
        XCTAssertEqual(origin.count("/pw"), 1)
        XCTAssertFalse(entries().isEmpty)
        for name in entries() {
            let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name)), as: UTF8.self)
            XCTAssertFalse(text.contains("hunter2"), name)
            XCTAssertTrue(text.contains("ann:****@"), name)
        }
    }

    func testInsecureResponsesAreNeverStored() throws {
        let path = "/insecure?cc=" + q("max-age=60")
        XCTAssertEqual(try fetch(path, ["-k"]).cache, "not stored: --insecure")
        _ = try fetch(path, ["-k"])
        XCTAssertEqual(origin.count("/insecure"), 2)
        XCTAssertEqual(entries(), [])
    }

    func testDirectoryIs0700AndEntries0600() throws {
        _ = try fetch("/modes?cc=" + q("max-age=60"))
        let dirMode = try FileManager.default.attributesOfItem(atPath: dir)[.posixPermissions] as? Int
        XCTAssertEqual(dirMode, 0o700)
        let name = try XCTUnwrap(entries().first)
        let mode = try FileManager.default.attributesOfItem(atPath: dir + "/" + name)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600)
    }

    /// A cache is never made where another user could replace it: under a directory others can
    /// write without the sticky bit, `--cache` is refused (65) before anything is sent or made,
    /// naming the directory and the fix. Under a sticky one it is made.
    func testNoCacheIsMadeUnderADirectoryOthersCanWrite() throws {
        let open = TestPaths.temporaryDirectory() + "/open"
        XCTAssertEqual(mkdir(open, 0o700), 0)
        XCTAssertEqual(chmod(open, 0o777), 0)
        let inside = open + "/swurl/http"
        let r = try runSwurl(["--cache=" + inside, origin.url("/open?cc=" + q("max-age=60"))])
        XCTAssertEqual(r.status, 65, r.stderr)
        XCTAssertTrue(r.stderr.contains("its directory \(open) is writable by") && r.stderr.contains("chmod go-w \(open)"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: open + "/swurl"))
        XCTAssertEqual(origin.count("/open"), 0)
        XCTAssertEqual(chmod(open, 0o1777), 0)
        let works = try runSwurl(["--cache=" + inside, origin.url("/open?cc=" + q("max-age=60"))])
        XCTAssertEqual(works.status, 0, works.stderr)
        XCTAssertEqual(origin.count("/open"), 1)
        XCTAssertTrue(FileManager.default.fileExists(atPath: inside))
    }

    func testCorruptTruncatedAndOtherVersionEntriesAreReplaced() throws {
        let path = "/corrupt?cc=" + q("max-age=60")
        _ = try fetch(path)
        let file = dir + "/" + (try XCTUnwrap(entries().first))
        // Truncated by a byte.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        try bytes.dropLast().write(to: URL(fileURLWithPath: file))
        XCTAssertEqual(try fetch(path).body, "/corrupt #2")
        XCTAssertEqual(try fetch(path).body, "/corrupt #2", "the replacement is used")
        // A flipped byte in the head.
        bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        let headByte = bytes.count - 140
        bytes[headByte] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: file))
        XCTAssertEqual(try fetch(path).body, "/corrupt #3")
        // Another version's footer.
        bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        let footer = bytes.count - 128
        bytes[footer + 11] = UInt8(ascii: "9")
        try bytes.write(to: URL(fileURLWithPath: file))
        XCTAssertEqual(try fetch(path).body, "/corrupt #4")
        // Garbage.
        try Data("not an entry".utf8).write(to: URL(fileURLWithPath: file))
        XCTAssertEqual(try fetch(path).body, "/corrupt #5")
        XCTAssertEqual(try fetch(path).body, "/corrupt #5")
    }

    // MARK: - Policies (AFNetworking's NSURLRequest cache policies)

    func testCacheOnlyServesAnyStoredResponseOrAnswers504() throws {
        let path = "/cacheonly?cc=" + q("max-age=0")
        let miss = try swurl(["--cache-only", "--check-status", "-h", origin.url(path)])
        XCTAssertEqual(miss.status, 5)
        XCTAssertTrue(miss.text.hasPrefix("HTTP/1.1 504"), miss.text)
        // The made-up 504 says so: piped and without --check-status it would pass in silence.
        let silent = try swurl(["--cache-only", origin.url(path)])
        XCTAssertEqual(silent.status, 0)
        XCTAssertEqual(silent.stderr, "swurl: note: cache: miss, only from the cache: 504\n")
        XCTAssertEqual(origin.count("/cacheonly"), 0)
        _ = try fetch(path)
        let stale = try swurl(["--cache-only", "-v", origin.url(path)])
        XCTAssertTrue(stale.text.hasSuffix("/cacheonly #1"), stale.text)
        XCTAssertTrue(stale.stderr.contains("swurl: cache: stale, served (cache only), age "), stale.stderr)
        XCTAssertEqual(origin.count("/cacheonly"), 1)
        // Never the network: a request the cache never answers gets the 504 too, not a transfer.
        // (A POST is named by its method, though it has a body: the docs' "never stores a POST".)
        for (args, what) in [(["POST", origin.url(path), "a=1"], "a POST"), (["HEAD", origin.url(path)], "a HEAD"),
                             (["GET", origin.url(path), "a=1"], "a request with a body"), (["DELETE", origin.url(path)], "a DELETE")] {
            let r = try swurl(["--cache-only", "--check-status", "-v"] + args)
            XCTAssertEqual(r.status, 5, "\(args): \(r.stderr)")
            XCTAssertTrue(r.text.contains("HTTP/1.1 504"), r.text)
            XCTAssertTrue(r.stderr.contains("swurl: cache: only from the cache: 504 (the cache never stores \(what))"), r.stderr)
        }
        // Nor is that 504 retried: the cache would answer every retry the same.
        let retried = try swurl(["--cache-only", "--retry", "2", "-v", "PUT", origin.url(path), "a=1"])
        XCTAssertFalse(retried.stderr.contains("retrying"), retried.stderr)
        let oic = try swurl(["--check-status", "POST", origin.url(path), "a=1", "Cache-Control:only-if-cached"])
        XCTAssertEqual(oic.status, 5, oic.stderr)
        XCTAssertEqual(origin.count("/cacheonly"), 1)
        // Never a stale response that must be validated first (RFC 9111 §5.2.2.2, "in all
        // circumstances"), as --stale-ok: the 504 a disconnected cache answers, said so.
        for (strict, directive) in [("/cacheonly-mr?cc=" + q("max-age=0, must-revalidate"), "must-revalidate"),
                                    ("/cacheonly-nc?cc=" + q("no-cache"), "no-cache")] {
            _ = try fetch(strict)
            let r = try swurl(["--cache-only", "--check-status", origin.url(strict)])
            XCTAssertEqual(r.status, 5, r.text + r.stderr)
            XCTAssertTrue(r.stderr.hasPrefix("swurl: note: cache: stale, must be validated (\(directive)): only from the cache: 504\n"), r.stderr)
        }
        let asked = try swurl(["--cache-only", "--check-status", origin.url(path), "Cache-Control:no-cache"])
        XCTAssertEqual(asked.status, 5, asked.text + asked.stderr)
        XCTAssertTrue(asked.stderr.contains("(the request's no-cache)"), asked.stderr)
        // A fresh entry the request asks to validate (no-cache, or Pragma: no-cache without
        // Cache-Control, as the cache reads both) is not called stale.
        let fresh = "/cacheonly-fresh?cc=" + q("max-age=600")
        _ = try fetch(fresh)
        for item in ["Cache-Control:no-cache", "Pragma:no-cache"] {
            let r = try swurl(["--cache-only", "--check-status", origin.url(fresh), item])
            XCTAssertEqual(r.status, 5, item + ": " + r.text + r.stderr)
            XCTAssertTrue(r.stderr.hasPrefix("swurl: note: cache: must be validated (the request's no-cache): only from the cache: 504\n"), r.stderr)
        }
        XCTAssertEqual(origin.count("/cacheonly-mr") + origin.count("/cacheonly-nc"), 2, "one fetch each, none by --cache-only")
    }

    /// `--max-filesize` judges a body the cache serves (fresh, or selected by a 304) as it judges
    /// the network's: the same command does not pass or fail by what the cache holds.
    func testMaxFilesizeHoldsForAResponseTheCacheServes() throws {
        for (name, cc) in [("/limit-fresh", "max-age=600"), ("/limit-etag", "no-cache")] {
            let path = name + "?etag=v1&cc=" + q(cc)
            XCTAssertEqual(try fetch(path).cache, "miss, stored")
            let full = try swurl(["--max-filesize", "5", origin.url(path)])
            XCTAssertEqual(full.status, 8, "\(name): \(full.stderr)")
            XCTAssertTrue(full.stderr.contains("larger than --max-filesize 5 bytes"), full.stderr)
            // A download has entries of its own (the bytes as stored): one is made first, so the
            // limited download is answered from it (fresh, or selected by a 304).
            let dir = TestPaths.temporaryDirectory()
            XCTAssertEqual(try swurl(["-d", "-o", dir + "/first", origin.url(path)]).status, 0)
            let before = origin.count(name)
            let download = try swurl(["-d", "-o", dir + "/f", "--max-filesize", "5", origin.url(path)])
            XCTAssertEqual(download.status, 8, "\(name): \(download.stderr)")
            XCTAssertEqual(origin.count(name) - before, name == "/limit-fresh" ? 0 : 1, "\(name): served from the cache")
            XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/f"), name)
            XCTAssertEqual(try swurl(["--max-filesize", "100", origin.url(path)]).status, 0)
        }
    }

    /// A URL's user name and password are identity, not the resource: a write to the URL in any
    /// spelling of its credentials invalidates every identity's entry (RFC 9111 §4.4).
    func testInvalidationIgnoresTheURLsUserinfo() throws {
        let path = "/ui?cc=" + q("max-age=600")
        let withInfo = "http://ann:pw@127.0.0.1:\(origin.port)" + path
        XCTAssertEqual(try swurl([withInfo]).text, "/ui #1")
        XCTAssertEqual(try swurl([withInfo]).text, "/ui #1")
        XCTAssertEqual(try swurl(["PUT", origin.url(path), "-a", "ann:pw", "a=1"]).status, 0)
        XCTAssertEqual(try swurl([withInfo]).text, "/ui #3", "the PUT invalidated the entry keyed with user info")
        XCTAssertEqual(try swurl(["-a", "bob:pw", origin.url(path)]).text, "/ui #4")
        XCTAssertEqual(try swurl(["DELETE", "http://ann:pw@127.0.0.1:\(origin.port)" + path]).status, 0)
        XCTAssertEqual(try swurl(["-a", "bob:pw", origin.url(path)]).text, "/ui #6", "bob's entry went too")
    }

    func testStaleOKServesAStoredResponseWhenTheNetworkFails() throws {
        let loose = "/staleok?cc=" + q("max-age=0")
        let strict = "/staleok-strict?cc=" + q("max-age=0, must-revalidate")
        _ = try fetch(loose)
        _ = try fetch(strict)
        let looseURL = origin.url(loose), strictURL = origin.url(strict)
        origin.server.stop()
        let served = try swurl(["--stale-ok", looseURL])
        XCTAssertEqual(served.status, 0, served.stderr)
        XCTAssertEqual(served.text, "/staleok #1")
        // Without -v too, the user is told the response is a stored one shown for a failure.
        XCTAssertTrue(served.stderr.hasPrefix("swurl: note: cache: stale, served because the network failed ("), served.stderr)
        XCTAssertEqual(try swurl(["-q", "--stale-ok", looseURL]).stderr, "")
        XCTAssertEqual(try swurl([looseURL]).status, 1)
        XCTAssertEqual(try swurl(["--stale-ok", strictURL]).status, 1, "must-revalidate is never served stale")
        // Nor for a request that says no-cache itself (RFC 9111 §5.2.1.4).
        XCTAssertEqual(try swurl(["--stale-ok", looseURL, "Cache-Control:no-cache"]).status, 1, "the request's no-cache was ignored")
    }

    func testNoCacheOptionTurnsTheCacheOff() throws {
        let path = "/off?cc=" + q("max-age=60")
        _ = try fetch(path)
        let r = try swurl(["--no-cache", origin.url(path)])
        XCTAssertEqual(r.text, "/off #2")
        XCTAssertEqual(try swurl(["--no-cache", "--cache-only", origin.url(path)]).status, 64)
    }

    func testTheConfigFileTurnsTheCacheOnAndNoCacheTurnsItOff() throws {
        let config = TestPaths.temporaryDirectory() + "/config"
        try "--cache=\(dir)\n".write(toFile: config, atomically: true, encoding: .utf8)
        let url = origin.url("/config?cc=" + q("max-age=60"))
        XCTAssertEqual(try runSwurl([url], environment: ["SWURL_CONFIG": config]).text, "/config #1")
        XCTAssertEqual(try runSwurl([url], environment: ["SWURL_CONFIG": config]).text, "/config #1")
        XCTAssertEqual(try runSwurl(["--no-cache", url], environment: ["SWURL_CONFIG": config]).text, "/config #2")
        XCTAssertEqual(origin.count("/config"), 2)
    }

    func testAConditionalRequestOfTheUsersOwnGetsTheServersAnswer() throws {
        let path = "/own?cc=" + q("max-age=0") + "&etag=" + q("\"x\"")
        _ = try fetch(path)
        let own = try swurl(["-h", origin.url(path), "If-None-Match:\"x\""])
        XCTAssertTrue(own.text.hasPrefix("HTTP/1.1 304"), own.text)
        XCTAssertEqual(try swurl(["--cache-only", origin.url(path)]).text, "/own #1", "the entry is kept")
    }

    // MARK: - Content-Encoding

    func testUnknownContentEncodingIsPassedThroughAndStoredAsReceived() throws {
        let path = "/weird?ce=x-unknown&cc=" + q("max-age=60")
        let plain = try runSwurl([origin.url(path)])
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertEqual(plain.text, "/weird #1")
        XCTAssertEqual(try fetch(path).body, "/weird #2")
        XCTAssertEqual(try fetch(path).body, "/weird #2")
    }

    func testGzipBodyIsServedAsTheNetworkWouldServeIt() throws {
        let path = "/gz?gzip=1&cc=" + q("max-age=60")
        let decoded = try fetch(path)
        XCTAssertEqual(decoded.body, "/gz #1")
        XCTAssertEqual(try fetch(path).body, "/gz #1")
        let out1 = TestPaths.temporaryDirectory() + "/a.gz", out2 = TestPaths.temporaryDirectory() + "/b.gz"
        _ = try swurl(["-d", "-o", out1, origin.url(path)])
        _ = try swurl(["-d", "-o", out2, origin.url(path)])
        let raw = try Data(contentsOf: URL(fileURLWithPath: out1))
        XCTAssertEqual(Array(raw.prefix(2)), [0x1f, 0x8b], "a download keeps the bytes as sent")
        XCTAssertEqual(raw, try Data(contentsOf: URL(fileURLWithPath: out2)))
        XCTAssertEqual(origin.count("/gz"), 2)
    }

    // MARK: - Every door

    func testDownloadFromAFreshEntryNeedsNoTransfer() throws {
        let path = "/file?size=300000&cc=" + q("max-age=60")
        let tmp = TestPaths.temporaryDirectory()
        XCTAssertEqual(try swurl(["-d", "-o", tmp + "/one", origin.url(path)]).status, 0)
        let two = try swurl(["-d", "-v", "-o", tmp + "/two", origin.url(path)])
        XCTAssertEqual(two.status, 0, two.stderr)
        XCTAssertTrue(two.stderr.contains("swurl: cache: hit, age "), "-v says what the cache did, as for a request: \(two.stderr)")
        XCTAssertEqual(origin.count("/file"), 1)
        let one = try Data(contentsOf: URL(fileURLWithPath: tmp + "/one"))
        XCTAssertEqual(one.count, 300000)
        XCTAssertEqual(one, try Data(contentsOf: URL(fileURLWithPath: tmp + "/two")))
    }

    func testBatchLinesShareTheCache() throws {
        let input = TestPaths.temporaryDirectory() + "/lines"
        let url = origin.url("/batch?cc=" + q("max-age=60"))
        try Array(repeating: url, count: 4).joined(separator: "\n").write(toFile: input, atomically: true, encoding: .utf8)
        let r = try swurl(["batch", input, "--parallel", "1"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(origin.count("/batch"), 1)
        _ = try fetch("/batch?cc=" + q("max-age=60"))
        XCTAssertEqual(origin.count("/batch"), 1, "a one-shot request shares the batch's entries")
        // --jsonl says what the cache did for each line.
        let jsonl = try swurl(["batch", input, "--parallel", "1", "--jsonl"])
        let caches = jsonl.text.split(separator: "\n").compactMap { line in
            ((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any])?["cache"] as? String
        }
        XCTAssertEqual(caches.count, 4, jsonl.text)
        XCTAssertTrue(caches.allSatisfy { $0.hasPrefix("hit, age ") }, jsonl.text)
        // A hit's version is the stored response's (it was null: no connection gave one); the
        // 504 of --cache-only for what is not stored came from no server: none.
        XCTAssertEqual(jsonl.text.components(separatedBy: "\"http_version\":\"1.1\"").count - 1, 4, jsonl.text)
        try (origin.url("/never-stored") + "\n").write(toFile: input + "-missing", atomically: true, encoding: .utf8)
        let missing = try swurl(["batch", input + "-missing", "--cache-only", "--jsonl"])
        XCTAssertTrue(missing.text.contains("\"status\":504,\"http_version\":null"), missing.text)
        XCTAssertFalse(try runSwurl(["batch", input, "--jsonl"]).text.contains("\"cache\""), "no cache field without --cache")
    }

    func testReplUsesTheCache() throws {
        let lines = "get /repl?cc=max-age%3D60\nget /repl?cc=max-age%3D60\n"
        let r = try swurl(["repl", origin.url("/")], stdin: Data(lines.utf8))
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(origin.count("/repl"), 1)
        XCTAssertEqual(r.text.components(separatedBy: "/repl #1").count - 1, 2, r.text)
    }

    /// 16 batch lines in each of 4 processes at once on one directory: every body byte-exact,
    /// every entry whole afterwards.
    func testConcurrentBatchesAndProcessesNeverSeeATornEntry() throws {
        let sizes = [100_000, 150_001, 200_002, 250_003, 300_004, 350_005, 400_006, 450_007]
        let urls = sizes.map { origin.url("/conc\($0)?size=\($0)&cc=" + q("max-age=60")) }
        let base = TestPaths.temporaryDirectory()
        let input = base + "/lines"
        try (urls + urls).joined(separator: "\n").write(toFile: input, atomically: true, encoding: .utf8)
        var processes: [Process] = []
        for i in 0..<4 {
            try FileManager.default.createDirectory(atPath: base + "/out\(i)", withIntermediateDirectories: true)
            let p = Process()
            p.executableURL = URL(fileURLWithPath: TestPaths.binary)
            p.arguments = ["--cache=\(dir)", "batch", input, "--parallel", "8", "--output-dir", base + "/out\(i)"]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            processes.append(p)
        }
        for p in processes { waitForExit(p); XCTAssertEqual(p.terminationStatus, 0) }
        func expected(_ size: Int) -> Data {
            var out = Data(capacity: size)
            var x: UInt32 = 12345
            for _ in 0..<size {
                x = x &* 1103515245 &+ 12345
                out.append(UInt8(truncatingIfNeeded: x >> 16))
            }
            return out
        }
        for (k, size) in sizes.enumerated() {
            let want = expected(size)
            for i in 0..<4 {
                for line in [k + 1, k + 1 + sizes.count] {
                    let got = try Data(contentsOf: URL(fileURLWithPath: base + "/out\(i)/\(line).body"))
                    XCTAssertEqual(got, want, "process \(i) line \(line)")
                }
            }
            let cached = try swurl(["--cache-only", urls[k]])
            XCTAssertEqual(cached.stdout, want, "the stored entry for \(size) bytes")
        }
        let list = try swurl(["cache", "list", "--json"])
        let array = try JSONSerialization.jsonObject(with: list.stdout) as? [[String: Any]]
        XCTAssertEqual(array?.count, sizes.count)
    }

    // MARK: - swurl cache

    func testCacheListClearAndPrune() throws {
        _ = try fetch("/one?cc=" + q("max-age=60"))
        _ = try fetch("/two?cc=" + q("max-age=60"))
        _ = try fetch("/three")   // stored, never fresh, no validator: prune removes it
        // Fresh but no-cache without a validator: never used either (prune kept it).
        _ = try fetch("/four?cc=" + q("no-cache, max-age=600"))
        let list = try swurl(["cache", "list"])
        XCTAssertEqual(list.status, 0, list.stderr)
        XCTAssertEqual(list.text.split(separator: "\n").count, 4, list.text)
        XCTAssertTrue(list.text.contains("fresh  " + origin.url("/one")), list.text)
        XCTAssertTrue(list.text.contains("stale  " + origin.url("/three")), list.text)
        let json = try JSONSerialization.jsonObject(with: try swurl(["cache", "list", "--json"]).stdout) as? [[String: Any]]
        XCTAssertTrue(json?.contains { $0["url"] as? String == origin.url("/one?cc=max-age%3D60") } ?? false, "\(json ?? [])")
        XCTAssertEqual(try swurl(["cache", "prune"]).text, "removed 2 entries\n")
        // Written as the request was (no scheme), the prefix takes the request's scheme.
        XCTAssertEqual(try swurl(["cache", "clear", "127.0.0.1:\(origin.port)/one"]).text, "removed 1 entry\n")
        XCTAssertEqual(entries().count, 1)
        XCTAssertEqual(try swurl(["cache", "clear"]).text, "removed 1 entry\n")
        XCTAssertEqual(entries(), [])
        XCTAssertEqual(try swurl(["cache", "frobnicate"]).status, 64)
        // The config file's --cache-max (the requests' bound too) does not keep `list` from
        // running: an action's options are read by the action that takes them.
        let config = TestPaths.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: config + "/swurl", withIntermediateDirectories: true)
        try "--cache-max 500M\n".write(toFile: config + "/swurl/config", atomically: true, encoding: .utf8)
        XCTAssertEqual(try runSwurl(["--cache=\(dir)", "cache", "list"], environment: ["XDG_CONFIG_HOME": config]).status, 0)
    }

    /// `cache clear` clears no more than asked: an empty prefix (an unset shell variable) is
    /// refused, `h` is a host rather than the start of every URL, and the URL typed without a
    /// user name also clears the entry fetched with one (kept as `ann:****@`).
    func testCacheClearPrefixesClearWhatTheySay() throws {
        _ = try fetch("/one?cc=" + q("max-age=60"))
        let withUser = origin.url("/two?cc=" + q("public, max-age=60")).replacingOccurrences(of: "http://", with: "http://ann:pw@")
        XCTAssertEqual(try swurl([withUser]).status, 0)
        let bob = origin.url("/three?cc=" + q("public, max-age=60")).replacingOccurrences(of: "http://", with: "http://bob:pw@")
        XCTAssertEqual(try swurl([bob]).status, 0)
        XCTAssertEqual(entries().count, 3)
        // A user name with no password names that user's entries; a bare word is a host.
        XCTAssertEqual(try swurl(["cache", "clear", origin.url("/three").replacingOccurrences(of: "http://", with: "http://bob@")]).text,
                       "removed 1 entry\n")
        XCTAssertEqual(try swurl(["cache", "clear", "ann"]).text, "removed 0 entries\n")
        let empty = try swurl(["cache", "clear", ""])
        XCTAssertEqual(empty.status, 64, empty.stderr)
        XCTAssertTrue(empty.stderr.contains("the URL prefix is empty"), empty.stderr)
        XCTAssertEqual(try swurl(["cache", "clear", "h"]).text, "removed 0 entries\n")
        XCTAssertEqual(try swurl(["cache", "clear", "https"]).text, "removed 0 entries\n")
        XCTAssertEqual(entries().count, 2)
        XCTAssertEqual(try swurl(["cache", "clear", origin.url("/two")]).text, "removed 1 entry\n")
        XCTAssertEqual(try swurl(["cache", "clear", "HTTP"]).text, "removed 1 entry\n")
        XCTAssertEqual(entries(), [])
    }

    /// `swurl cache` reads the config file's `--cache=DIR`, and `--no-config` leaves it out, as
    /// for every other command (it was refused: "does not apply to 'swurl cache'").
    func testCacheCommandReadsTheConfigAndTakesNoConfig() throws {
        _ = try fetch("/configured?cc=" + q("max-age=60"))
        let home = TestPaths.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: home + "/config/swurl", withIntermediateDirectories: true)
        try Data("--cache=\(dir)\n".utf8).write(to: URL(fileURLWithPath: home + "/config/swurl/config"))
        let env = ["XDG_CONFIG_HOME": home + "/config", "XDG_CACHE_HOME": home + "/empty-cache"]
        let configured = try runSwurl(["cache", "list"], environment: env)
        XCTAssertEqual(configured.status, 0, configured.stderr)
        XCTAssertTrue(configured.text.contains(origin.url("/configured")), configured.text)
        let off = try runSwurl(["cache", "list", "--no-config"], environment: env)
        XCTAssertEqual(off.status, 0, off.stderr)
        XCTAssertEqual(off.text, "", "the default directory, not the config's")
    }

    func testLeastRecentlyUsedEntriesAreEvictedPastCacheMax() throws {
        let a = "/lru-a?size=1000&cc=" + q("max-age=60"), b = "/lru-b?size=1000&cc=" + q("max-age=60")
        let c = "/lru-c?size=1000&cc=" + q("max-age=60")
        _ = try fetch(a, ["--cache-max", "3K"])
        _ = try fetch(b, ["--cache-max", "3K"])
        _ = try fetch(a, ["--cache-max", "3K"])   // a is now the most recently used
        _ = try fetch(c, ["--cache-max", "3K"])   // over the bound: b goes
        XCTAssertEqual(entries().count, 2)
        XCTAssertTrue(try fetch(a, ["--cache-max", "3K"]).cache.hasPrefix("hit"))
        XCTAssertTrue(try fetch(c, ["--cache-max", "3K"]).cache.hasPrefix("hit"))
        XCTAssertEqual(try fetch(b, ["--cache-max", "3K"]).cache, "miss, stored")
        // A body larger than the bound is not written past it (a decompression bomb filled the
        // disk before eviction ran): not stored, the response still shown whole.
        let big = try fetch("/lru-big?size=10000&cc=" + q("max-age=60"), ["--cache-max", "3K"])
        XCTAssertTrue(big.cache.hasPrefix("not stored: the response is larger than --cache-max (3072 bytes)"), big.cache)
        XCTAssertEqual(big.result.status, 0, big.result.stderr)
        XCTAssertEqual(big.result.stdout.count, 10000)
        XCTAssertEqual(entries().count, 2)
        // So is one whose body fits but not with its head: it was said to be stored, then evicted.
        let close = try fetch("/lru-close?size=2900&cc=" + q("max-age=60"), ["--cache-max", "3K"])
        XCTAssertTrue(close.cache.hasPrefix("not stored: the response is larger than --cache-max"), close.cache)
        // A 304 whose headers make the entry too large: revalidated, and said not to be stored again.
        // (The pad is in the URL too, which the entry keeps: about 2.5 KB of head before the 304's.)
        try? FileManager.default.removeItem(atPath: dir)
        let grow = "/lru-grow?size=500&etag=" + q("\"g1\"") + "&cc=" + q("max-age=0") + "&h304=" + q("X-Pad:" + String(repeating: "p", count: 2000))
        XCTAssertEqual(try fetch(grow, ["--cache-max", "4K"]).cache, "miss, stored")
        let grown = try fetch(grow, ["--cache-max", "4K"])
        XCTAssertEqual(grown.cache, "revalidated (304); not stored again: the response is larger than --cache-max (4096 bytes)", grown.result.stderr)
    }

    /// A stored redirect or error that a 304 revalidates is that response, not the 304: `-F`
    /// follows its stored Location (it failed: "the redirect target '' is not a valid URL"), and
    /// a batch reports and judges its status (it printed 304).
    func testARevalidatedRedirectIsFollowedAndABatchReportsTheStoredStatus() throws {
        let target = origin.url("/target?cc=no-store")
        let redirect = "/r?status=301&cc=no-cache&etag=" + q("\"r\"") + "&loc=" + q(target)
        for run in 1...2 {
            let r = try swurl(["-F", origin.url(redirect)])
            XCTAssertEqual(r.status, 0, "run \(run): " + r.stderr)
            XCTAssertTrue(r.text.contains("/target"), "run \(run): " + r.text)
        }
        // A stored redirect's relative Location resolves against the request's URL as it is, as
        // the live one does (served from the cache it went to /a/b/c/sibling).
        // Encoded as libcurl encodes a live one (a space as %20 in the path, + in the query).
        let relative = "/a/b/c?status=301&cc=" + q("max-age=600") + "&loc=" + q("sib ling{x}?cc=no-store&q=a b")
        for run in 1...2 {
            let r = try swurl(["-F", origin.url(relative)])
            XCTAssertEqual(r.status, 0, "run \(run): " + r.stderr)
        }
        XCTAssertEqual(origin.count("/a/b/c"), 1)
        let followed = origin.requests().compactMap { $0["path"] as? String }.filter { $0.hasPrefix("/a/b/") && !$0.hasPrefix("/a/b/c") }
        XCTAssertEqual(followed, ["/a/b/sib%20ling{x}?cc=no-store&q=a+b", "/a/b/sib%20ling{x}?cc=no-store&q=a+b"])
        // One libcurl cannot read is refused from the cache as from the network (it was made a URL).
        let unreadable = "/u?status=301&cc=" + q("max-age=600") + "&loc=" + q("/a\tb")
        var verdicts: [String] = []
        for run in 1...2 {
            let r = try swurl(["-F", origin.url(unreadable)])
            XCTAssertEqual(r.status, 1, "run \(run): " + r.stderr)
            verdicts.append(r.stderr.split(separator: "\n").first.map(String.init) ?? "")
        }
        XCTAssertEqual(verdicts[0], verdicts[1])
        XCTAssertEqual(origin.count("/a\tb") + origin.count("/a%09b"), 0)
        let notFound = origin.url("/n?status=404&cc=no-cache&etag=" + q("\"n\""))
        let lines = TestPaths.temporaryDirectory() + "/lines"
        try (notFound + "\n").write(toFile: lines, atomically: true, encoding: .utf8)
        for run in 1...2 {
            let r = try swurl(["batch", lines, "--jsonl", "--check-status"])
            let o = try XCTUnwrap(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
            XCTAssertEqual(o["status"] as? Int, 404, "run \(run): \(o)")
            XCTAssertEqual(o["exit"] as? Int, 4, "run \(run): \(o)")
        }
    }

    /// `swurl cache list|clear|prune` on a directory that is not there: an empty cache, and no
    /// directory made (a mistyped --cache=DIR left one behind), and a note that none is there.
    func testCacheActionsOnAMissingDirectoryMakeNone() throws {
        let missing = TestPaths.temporaryDirectory() + "/no/such/cache"
        for action in ["list", "clear", "prune"] {
            let r = try runSwurl(["cache", action, "--cache=" + missing])
            XCTAssertEqual(r.status, 0, action + ": " + r.stderr)
            // A typo is not silent: a note names the directory.
            XCTAssertTrue(r.stderr.contains("swurl: note: there is no cache at '\(missing)'"), r.stderr)
        }
        let unknown = try runSwurl(["cache", "bogus"])
        XCTAssertEqual(unknown.status, 64, unknown.stderr)
        XCTAssertTrue(unknown.stderr.hasPrefix("swurl: error: unknown cache action 'bogus'\n"), unknown.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: missing))
    }
}
