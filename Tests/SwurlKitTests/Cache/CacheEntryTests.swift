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
}
