import XCTest
@testable import SwurlCLI
@testable import SwurlOutput
@testable import SwurlSession
@testable import SwurlResponseSerialization
@testable import SwurlRequestSerialization
@testable import SwurlSecurity
@testable import SwurlCurl
@testable import SwurlCore

final class DownloadNameTests: XCTestCase {
    func testContentDispositionForms() {
        XCTAssertEqual(DownloadName.filename(fromContentDisposition: "attachment; filename=\"a b.txt\""), "a b.txt")
        XCTAssertEqual(DownloadName.filename(fromContentDisposition: "attachment; filename=plain.txt"), "plain.txt")
        XCTAssertEqual(DownloadName.filename(fromContentDisposition: "attachment; filename=\"x\\\"y;z.txt\""), "x\"y;z.txt")
        XCTAssertEqual(DownloadName.filename(fromContentDisposition: "attachment; filename*=UTF-8''%e2%82%ac%20rates.txt; filename=\"eur.txt\""), "€ rates.txt")
        XCTAssertEqual(DownloadName.filename(fromContentDisposition: "attachment; filename*=iso-8859-1'en'%A3%20rates.txt"), "£ rates.txt")
        XCTAssertNil(DownloadName.filename(fromContentDisposition: "inline"))
    }

    func testSanitizeKeepsABaseNameOnly() {
        XCTAssertEqual(DownloadName.sanitize("../../etc/passwd"), "passwd")
        XCTAssertEqual(DownloadName.sanitize("..\\..\\boot.ini"), "boot.ini")
        XCTAssertEqual(DownloadName.sanitize(".bashrc"), "bashrc")
        XCTAssertEqual(DownloadName.sanitize("a\u{1B}[31mb\u{7}.txt"), "a[31mb.txt")
        XCTAssertNil(DownloadName.sanitize(".."))
        XCTAssertNil(DownloadName.sanitize("."))
        XCTAssertNil(DownloadName.sanitize("dir/"))
        XCTAssertNil(DownloadName.sanitize("   "))
        XCTAssertEqual(DownloadName.sanitize(String(repeating: "x", count: 300))?.utf8.count, 200)
    }

    func testChooseFallsBackToTheInitialURLAndAddsAnExtension() {
        XCTAssertEqual(DownloadName.choose(contentDisposition: nil, initialURL: "http://h/files/report?x=1", mediaType: "application/pdf"), "report.pdf")
        XCTAssertEqual(DownloadName.choose(contentDisposition: nil, initialURL: "http://h/files/report.tar.gz", mediaType: "application/gzip"), "report.tar.gz")
        XCTAssertEqual(DownloadName.choose(contentDisposition: nil, initialURL: "http://h/", mediaType: "text/html"), "index.html")
        XCTAssertEqual(DownloadName.choose(contentDisposition: nil, initialURL: "http://h/a%20b", mediaType: nil), "a b")
        XCTAssertEqual(DownloadName.choose(contentDisposition: nil, initialURL: "http://h/blob", mediaType: "application/octet-stream"), "blob")
        XCTAssertEqual(DownloadName.choose(contentDisposition: "attachment; filename=\"../x.sh\"", initialURL: "http://h/y", mediaType: nil), "x.sh")
        XCTAssertEqual(DownloadName.choose(contentDisposition: "attachment; filename=\"..\"", initialURL: "http://h/y", mediaType: nil), "y")
        XCTAssertEqual(DownloadName.choose(contentDisposition: nil, initialURL: "http://h/%2E%2E", mediaType: nil), "index")
    }

    func testUniqueAddsNumberedSuffixes() {
        let taken: Set<String> = ["/d/f", "/d/f-1.part", "/d/g.part"]
        XCTAssertEqual(DownloadName.unique("/d/f", exists: taken.contains), "/d/f-2")
        XCTAssertEqual(DownloadName.unique("/d/g", exists: taken.contains), "/d/g-1")
        XCTAssertEqual(DownloadName.unique("/d/h", exists: taken.contains), "/d/h")
    }

    func testContentRangeParsing() {
        XCTAssertEqual(DownloadFile.contentRange("bytes 100-199/200")?.start, 100)
        XCTAssertEqual(DownloadFile.contentRange("bytes 100-199/200")?.total, 200)
        XCTAssertNil(DownloadFile.contentRange("bytes 100-199/*")?.total)
        XCTAssertNil(DownloadFile.contentRange("bytes 200-100/300"))
        XCTAssertNil(DownloadFile.contentRange("items 1-2/3"))
        XCTAssertEqual(DownloadFile.contentRangeTotal("bytes */5000"), 5000)
    }
}
