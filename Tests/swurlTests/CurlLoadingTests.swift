import XCTest
import Foundation
import SwurlTestSupport

/// libcurl is opened with dlopen the first time a hop goes to the network (Sources/CCurl/
/// curl_loader.c), so a request the cache answers does not map and relocate libcurl and its
/// ~30 libraries. What the dynamic loader did is read from its own trace (LD_DEBUG=files, one
/// file per process with LD_DEBUG_OUTPUT), not from swurl.
final class CurlLoadingTests: XCTestCase {
    private var origin: CacheOrigin!
    private var work = ""

    override func setUpWithError() throws {
        origin = try CacheOrigin()
        work = TestPaths.temporaryDirectory()
    }

    override func tearDown() { origin = nil }

    /// Runs swurl under the loader's trace; returns the result and whether libcurl was loaded.
    private func traced(_ name: String, _ args: [String], environment: [String: String] = [:]) throws -> (SwurlResult, loadedCurl: Bool) {
        let prefix = work + "/ld-" + name
        var env = environment
        env["LD_DEBUG"] = "files"
        env["LD_DEBUG_OUTPUT"] = prefix
        let r = try runSwurl(args, environment: env)
        let traces = ((try? FileManager.default.contentsOfDirectory(atPath: work)) ?? [])
            .filter { $0.hasPrefix("ld-" + name + ".") }
        XCTAssertEqual(traces.count, 1, "one trace of the loader per run of \(name)")
        let text = traces.map { (try? String(contentsOfFile: work + "/" + $0, encoding: .utf8)) ?? "" }.joined()
        XCTAssertTrue(text.contains("file=libc.so.6"), "the trace of \(name) shows the loader's work: \(text.prefix(300))")
        return (r, text.contains("libcurl.so.4"))
    }

    func testAFreshCacheHitDoesNotLoadLibcurlAndAMissDoes() throws {
        let cache = work + "/cache"
        let url = origin.url("/fresh?cc=max-age%3D600")
        let miss = try traced("miss", ["--cache=\(cache)", "--print=hb", url])
        XCTAssertEqual(miss.0.status, 0, miss.0.stderr)
        XCTAssertTrue(miss.loadedCurl, "a request that goes to the network loads libcurl")
        // The second run loads libcurl once more to learn which codings it decodes for the
        // Accept-Encoding header (a key of the cache under Vary), and keeps the answer beside
        // the entries; from the third on, a hit needs nothing of libcurl.
        _ = try traced("second", ["--cache=\(cache)", url])
        let hit = try traced("hit", ["--cache=\(cache)", "--print=hb", url])
        XCTAssertEqual(hit.0.status, 0, hit.0.stderr)
        XCTAssertFalse(hit.loadedCurl, "a fresh hit loaded libcurl")
        XCTAssertEqual(origin.count("/fresh"), 1)
        // The same response as from the network, plus Age (heads keep the wire's CRLF in a pipe).
        func lines(_ r: SwurlResult) -> [String] { r.text.split(whereSeparator: \.isNewline).map(String.init) }
        XCTAssertEqual(lines(hit.0).filter { !$0.hasPrefix("Age: ") }, lines(miss.0))
        XCTAssertEqual(lines(hit.0).filter { $0.hasPrefix("Age: ") }.count, 1, hit.0.text)
        // The Accept-Encoding a hit is keyed with comes from the memo, not libcurl: a response
        // that varies on it is served only when the memo gave libcurl's own value.
        let varying = origin.url("/vary?cc=max-age%3D600&vary=Accept-Encoding")
        let stored = try runSwurl(["--cache=\(cache)", varying])
        XCTAssertTrue(stored.text.contains("deflate"), stored.text)
        let varyingHit = try traced("vary", ["--cache=\(cache)", varying])
        XCTAssertFalse(varyingHit.loadedCurl, "a hit varying on Accept-Encoding loaded libcurl")
        XCTAssertEqual(varyingHit.0.text, stored.text)
        XCTAssertEqual(origin.count("/vary"), 1)
    }

    func testAMemoOfAnotherLibcurlIsNotBelieved() throws {
        let cache = work + "/cache"
        let url = origin.url("/fresh?cc=max-age%3D600")
        _ = try runSwurl(["--cache=\(cache)", url])
        _ = try runSwurl(["--cache=\(cache)", url])
        let memo = cache + "/.libcurl-codings"
        let text = try String(contentsOfFile: memo, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("swurl libcurl codings 1\n"), text)
        var attributes = try FileManager.default.attributesOfItem(atPath: memo)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        // The memo names the libcurl file by identity; one that no longer matches (as after an
        // upgrade of libcurl) is not used: libcurl is loaded and the memo written again.
        let forged = text.replacingOccurrences(of: "deflate", with: "forged")
        let lines = forged.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines.count, 6, forged)
        var changed = lines
        changed[3] = "1 2 3.4 5"
        try changed.joined(separator: "\n").write(toFile: memo, atomically: true, encoding: .utf8)
        let hit = try traced("stale-memo", ["--cache=\(cache)", "-v", url])
        XCTAssertTrue(hit.loadedCurl, "a memo of another libcurl file was believed")
        XCTAssertFalse(hit.0.stderr.contains("forged"), hit.0.stderr)
        attributes = try FileManager.default.attributesOfItem(atPath: memo)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        XCTAssertEqual(try String(contentsOfFile: memo, encoding: .utf8), text)
        // `swurl cache list` shows entries only, not the memo.
        let list = try runSwurl(["cache", "list", "--cache=\(cache)"])
        XCTAssertEqual(list.status, 0, list.stderr)
        XCTAssertFalse(list.text.contains("libcurl"), list.text)
    }

    func testAMissingLibcurlIsAClearErrorNotACrash() throws {
        // A directory on LD_LIBRARY_PATH whose libcurl.so.4 is not a library: dlopen fails.
        let lib = work + "/lib"
        try FileManager.default.createDirectory(atPath: lib, withIntermediateDirectories: true)
        try Data("not a library".utf8).write(to: URL(fileURLWithPath: lib + "/libcurl.so.4"))
        let r = try runSwurl([origin.url("/fresh?cc=max-age%3D600")], environment: ["LD_LIBRARY_PATH": lib])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("cannot load libcurl"), r.stderr)
        XCTAssertTrue(r.stderr.contains("apt install libcurl4"), r.stderr)
        XCTAssertEqual(origin.count("/fresh"), 0)
        // What needs no network still works without it.
        let help = try runSwurl(["--help"], environment: ["LD_LIBRARY_PATH": lib])
        XCTAssertEqual(help.status, 0, help.stderr)
        let version = try runSwurl(["--version"], environment: ["LD_LIBRARY_PATH": lib])
        XCTAssertEqual(version.status, 0, version.stderr)
        XCTAssertTrue(version.text.contains("\nlibcurl not loaded: " + lib + "/libcurl.so.4: "), version.text)
        // A batch says the same, once, rather than failing each line.
        try Data((origin.url("/a") + "\n" + origin.url("/b") + "\n").utf8).write(to: URL(fileURLWithPath: work + "/urls"))
        let batch = try runSwurl(["batch", work + "/urls"], environment: ["LD_LIBRARY_PATH": lib])
        XCTAssertEqual(batch.status, 1, batch.stderr)
        XCTAssertTrue(batch.stderr.hasPrefix("swurl: error: cannot load libcurl: "), batch.stderr)
    }
}
