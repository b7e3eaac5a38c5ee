import XCTest
@testable import SwurlCache
import SwurlCore

final class CacheEntryTests: XCTestCase {
    private let entry = CacheEntry(url: "http://h/x?a=1", method: "GET", requestTime: 1.5, responseTime: 2.25,
                                   varyRequest: HTTPHeaders([.init(name: "accept", value: "text/plain")]),
                                   head: HTTPResponseHead(version: "HTTP/1.1", status: 200, reason: "OK",
                                                          headers: HTTPHeaders([.init(name: "ETag", value: "\"v: 1\""),
                                                                                .init(name: "X-Empty", value: "")])))

    func testHeadRoundTrips() throws {
        let decoded = try XCTUnwrap(CacheEntry.decode(head: entry.encodedHead()))
        XCTAssertEqual(decoded, entry)
    }

    func testFooterStatesVersionLengthsAndDigest() throws {
        let head = entry.encodedHead()
        let footer = CacheEntry.footer(bodyLength: 42, head: head)
        XCTAssertEqual(footer.count, CacheEntry.footerSize)
        let parsed = try XCTUnwrap(CacheEntry.parseFooter(footer))
        XCTAssertEqual(parsed.body, 42)
        XCTAssertEqual(parsed.head, head.count)
        var other = footer
        other[11] = UInt8(ascii: "7")
        XCTAssertNil(CacheEntry.parseFooter(other), "another version")
        XCTAssertNil(CacheEntry.parseFooter(Array(footer.dropLast())))
    }

    func testMalformedHeadsAreRejected() {
        XCTAssertNil(CacheEntry.decode(head: Array("url x\n".utf8)))
        XCTAssertNil(CacheEntry.decode(head: [0xFF, 0xFE]))
        XCTAssertNil(CacheEntry.decode(head: Array("url x\nmethod GET\nrequest-time 1\nresponse-time 1\nstatus HTTP/1.1 abc\n".utf8)))
        XCTAssertNil(CacheEntry.decode(head: Array("bogus line\n".utf8)))
    }

    /// Times no clock of this entry's read (edited by hand: -1e19) are no entry: the age made of
    /// them was too large for an Int, and its message trapped (exit 132) on every door.
    func testTimesOutOfRangeAreRejectedAndAgesShownBounded() {
        for (request, response) in [(-1e19, 2.25), (1.5, 1.7e308), (1.5, -1)] {
            var edited = entry
            edited.requestTime = request
            edited.responseTime = response
            XCTAssertNil(CacheEntry.decode(head: edited.encodedHead()), "\(request) \(response)")
        }
        XCTAssertEqual(CacheRules.shownSeconds(1e300), 1_000_000_000_000_000)
        XCTAssertEqual(CacheRules.shownSeconds(.infinity), 1_000_000_000_000_000)
        XCTAssertEqual(CacheRules.shownSeconds(.nan), 0)
        XCTAssertEqual(CacheRules.shownSeconds(-5), 0)
        XCTAssertEqual(CacheRules.shownSeconds(42.9), 42)
    }

    func testStoreReplacesACorruptEntryAndKeysKeepIdentitiesApart() throws {
        let dir = NSTemporaryDirectory() + "swurl-cache-unit-" + String(UInt64.random(in: 0...UInt64.max))
        let store = try CacheStore(directory: dir, maxSize: 1 << 20)
        let key = CacheKey(method: "GET", url: entry.url, identity: [("Authorization", "a")])
        XCTAssertNotEqual(key, CacheKey(method: "GET", url: entry.url, identity: [("Authorization", "b")]))
        XCTAssertEqual(key.urlDigest, CacheKey(method: "GET", url: entry.url, identity: []).urlDigest)
        let w = try store.writer(for: key)
        try Array("hello".utf8).withUnsafeBytes { try w.write($0) }
        try w.commit(entry)
        let opened = try XCTUnwrap(store.open(key))
        XCTAssertEqual(opened.entry, entry)
        var body: [UInt8] = []
        try opened.streamBody { body += $0 }
        XCTAssertEqual(body, Array("hello".utf8))
        // One byte cut off the file: no entry, and the file is gone.
        let path = dir + "/" + key.fileName
        truncate(path, off_t(opened.bodyLength + 10))
        XCTAssertNil(store.open(key))
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// `swurl cache list` reads summaries, not decoded entries: it still lists only whole
    /// entries whose head matches its digest, and removes the rest as serving would.
    func testListShowsValidEntriesAndRemovesTruncatedCorruptAndOtherVersionFiles() throws {
        let dir = NSTemporaryDirectory() + "swurl-cache-list-" + String(UInt64.random(in: 0...UInt64.max))
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try CacheStore(directory: dir, maxSize: 1 << 30)
        func put(_ name: String, body: Int, headerBytes: Int = 0) throws -> String {
            var e = entry
            e.url = "http://h/" + name
            if headerBytes > 0 { e.head.headers.add("X-Pad", String(repeating: "p", count: headerBytes)) }
            let key = CacheKey(method: "GET", url: e.url, identity: [])
            let w = try store.writer(for: key)
            try [UInt8](repeating: 0x61, count: body).withUnsafeBytes { try w.write($0) }
            try w.commit(e)
            return dir + "/" + key.fileName
        }
        _ = try put("small", body: 5)
        _ = try put("big-body", body: 100_000)
        _ = try put("big-head", body: 10, headerBytes: 6000)
        let flipped = try put("flipped", body: 5), truncated = try put("truncated", body: 5)
        let version = try put("version", body: 5)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: flipped))
        bytes[bytes.count - 140] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: flipped))
        bytes = try Data(contentsOf: URL(fileURLWithPath: truncated))
        try bytes.dropLast().write(to: URL(fileURLWithPath: truncated))
        bytes = try Data(contentsOf: URL(fileURLWithPath: version))
        bytes[bytes.count - 128 + 11] = UInt8(ascii: "9")
        try bytes.write(to: URL(fileURLWithPath: version))
        try Data("not an entry".utf8).write(to: URL(fileURLWithPath: dir + "/" + String(repeating: "0", count: 32) + "." + String(repeating: "1", count: 32)))

        // Without last use, entries under 4 KiB are read whole without an fstat; with it, all take one.
        for lastUsed in [false, true] {
            let listed = store.list(lastUsed: lastUsed).sorted { $0.summary.url < $1.summary.url }
            XCTAssertEqual(listed.map(\.summary.url), ["http://h/big-body", "http://h/big-head", "http://h/small"])
            XCTAssertEqual(listed.map(\.bodyLength), [100_000, 10, 5])
            XCTAssertEqual(listed.map(\.summary.status), [200, 200, 200])
            XCTAssertEqual(listed.map { $0.lastUsed != nil }, [lastUsed, lastUsed, lastUsed])
            for l in listed {
                XCTAssertEqual(Int(l.size), try XCTUnwrap(FileManager.default.attributesOfItem(atPath: dir + "/" + l.name)[.size] as? Int))
            }
            XCTAssertEqual(store.names().count, 3, "the broken files are removed")
        }
    }
}
