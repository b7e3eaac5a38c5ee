import XCTest
@testable import SwurlOutput
@testable import SwurlResponseSerialization
@testable import SwurlRequestSerialization
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
        // Characters that show as nothing make two names look alike; the joiners stay.
        XCTAssertEqual(DownloadName.sanitize("re\u{200B}port\u{FEFF}.p\u{034F}df\u{E0041}\u{AD}"), "report.pdf")
        // ...but not what a script shows, nor a subdivision flag's tags.
        let scotland = "\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}.png"
        XCTAssertEqual(DownloadName.sanitize(scotland), scotland)
        XCTAssertEqual(DownloadName.sanitize("a\u{06DD}1.txt"), "a\u{06DD}1.txt")
        XCTAssertEqual(DownloadName.sanitize("ᠮ\u{180E}ᠠ.txt"), "ᠮ\u{180E}ᠠ.txt")
        XCTAssertEqual(DownloadName.sanitize("in\u{206A}vo\u{1D173}ice\u{FFF9}.txt"), "invoice.txt")
        XCTAssertEqual(DownloadName.sanitize("❤\u{FE0F}.txt"), "❤\u{FE0F}.txt")
        // Joiners and selectors alone, first or after ASCII hide in a name: they go.
        XCTAssertEqual(DownloadName.sanitize("\u{FE0F}.bashrc"), "bashrc")
        XCTAssertEqual(DownloadName.sanitize("invoice\u{FE0F}.pdf"), "invoice.pdf")
        XCTAssertEqual(DownloadName.sanitize("\u{200D}.bashrc"), "bashrc")
        XCTAssertEqual(DownloadName.sanitize("\u{180E}.profile"), "profile")
        XCTAssertEqual(DownloadName.sanitize("\u{1F3F4}\u{E0041}\u{E0020}\u{E007F}.png"), "\u{1F3F4}.png")
        // Tags after a flag spell it up to its cancel tag; text hidden in tags goes.
        XCTAssertEqual(DownloadName.sanitize("report\u{1F3F4}\u{E0065}\u{E0078}\u{E0065}.pdf"), "report\u{1F3F4}.pdf")
        XCTAssertEqual(DownloadName.sanitize(scotland.replacingOccurrences(of: ".png", with: "\u{E0065}\u{E0076}\u{E0069}\u{E006C}.png")), scotland)
        XCTAssertEqual(DownloadName.sanitize("a\u{1F3F4}" + String(repeating: "\u{E0061}", count: 12) + "\u{E007F}.png"), "a\u{1F3F4}.png")
        XCTAssertEqual(DownloadName.sanitize("می\u{200C}خواهم.txt"), "می\u{200C}خواهم.txt")
        XCTAssertEqual(DownloadName.sanitize("👨\u{200D}👩.png"), "👨\u{200D}👩.png")
        // A separator or dot followed by a combining mark is one Character, but still that byte.
        XCTAssertFalse(DownloadName.sanitize("a/\u{301}b")?.unicodeScalars.contains("/") ?? true)
        XCTAssertEqual(DownloadName.sanitize("a/\u{301}b"), "\u{301}b")
        XCTAssertFalse(DownloadName.sanitize(".\u{301}bashrc")?.hasPrefix(".") ?? true)
        XCTAssertFalse(DownloadName.sanitize(".\u{301}bashrc")?.utf8.first == UInt8(ascii: "."))
        XCTAssertNil(DownloadName.sanitize(".."))
        XCTAssertNil(DownloadName.sanitize("."))
        XCTAssertNil(DownloadName.sanitize("dir/"))
        XCTAssertNil(DownloadName.sanitize("   "))
        XCTAssertEqual(DownloadName.sanitize(String(repeating: "x", count: 300))?.utf8.count, 200)
        // A long name keeps its extension; the stem is cut.
        let report = DownloadName.sanitize(String(repeating: "r", count: 300) + ".pdf")
        XCTAssertEqual(report?.utf8.count, 200)
        XCTAssertEqual(report?.hasSuffix("rrr.pdf"), true, report ?? "nil")
        XCTAssertEqual(DownloadName.sanitize(String(repeating: "é", count: 150) + ".tar.gz")?.hasSuffix("é.tar.gz"), false, "only the last extension is kept")
        XCTAssertEqual(DownloadName.sanitize(String(repeating: "é", count: 150) + ".tar.gz")?.hasSuffix(".gz"), true)
    }

    /// Regression (issue 17): leading dots were stripped before spaces were trimmed, so a space
    /// between dots survived and the name became a dotfile, `.` or `..`.
    func testNoDotfileDotOrDotDotSurvivesAnyOrderOfSteps() {
        XCTAssertEqual(DownloadName.sanitize(". .bashrc"), "bashrc")
        XCTAssertNil(DownloadName.sanitize(". .."))
        XCTAssertNil(DownloadName.sanitize(" . . "))
        XCTAssertEqual(DownloadName.sanitize(" .\t. \u{1B}.profile"), "profile")
        XCTAssertEqual(DownloadName.sanitize(".\u{202E}.bashrc"), "bashrc")
        XCTAssertEqual(DownloadName.sanitize("\u{A0}.\u{3000}.x"), "x")
        XCTAssertEqual(DownloadName.choose(contentDisposition: "attachment; filename=\". .bashrc\"", initialURL: "http://h/y", mediaType: nil), "bashrc")
        XCTAssertEqual(DownloadName.choose(contentDisposition: "attachment; filename*=UTF-8''.%20.gitconfig", initialURL: "http://h/y", mediaType: nil), "gitconfig")
        XCTAssertEqual(DownloadName.choose(contentDisposition: "attachment; filename=\". ..\"", initialURL: "http://h/y", mediaType: nil), "y")
        XCTAssertEqual(DownloadName.choose(contentDisposition: "attachment; filename=\" . . \"", initialURL: "http://h/y", mediaType: nil), "y")
        XCTAssertEqual(DownloadName.choose(contentDisposition: nil, initialURL: "http://h/.%20.ssh%20", mediaType: nil), "ssh")
        XCTAssertEqual(DownloadName.choose(contentDisposition: nil, initialURL: "http://h/%20.%20", mediaType: "text/html"), "index.html")
        // Truncation to 200 bytes cannot leave a dot or space in front either.
        let long = ". " + String(repeating: "é", count: 150)
        XCTAssertEqual(DownloadName.sanitize(long)?.first, "é")
        XCTAssertLessThanOrEqual(DownloadName.sanitize(long)?.utf8.count ?? 999, 200)
        // Every name chosen from hostile input is a plain, visible, non-hidden base name.
        for hostile in [". .bashrc", " ..  ..", ".\u{200F}.x", "./.", ". / ..", "\u{2066}.a\u{2069}", "..\u{0}..x"] {
            let name = DownloadName.choose(contentDisposition: "attachment; filename=\"\(hostile)\"", initialURL: "http://h/%2E%20%2Ez", mediaType: nil)
            XCTAssertFalse(name.hasPrefix(".") || name.hasPrefix(" ") || name.contains("/") || name.isEmpty, "\(hostile.debugDescription) → \(name.debugDescription)")
        }
    }

    /// Bidirectional controls can make `invoice‮fdp.exe` look like `invoiceexe.pdf`: dropped.
    /// Line separators are dropped and characters drawn as slashes become `_`: a server's
    /// `x y z／.txt` looked like a path in the "saved" line.
    func testLineSeparatorsAndSlashLookAlikesAreNotKept() {
        XCTAssertEqual(DownloadName.sanitize("a\u{2028}b\u{2029}c.txt"), "abc.txt")
        XCTAssertEqual(DownloadName.sanitize("etc\u{FF0F}passwd\u{2215}x\u{2044}y\u{FF3C}z.txt"), "etc_passwd_x_y_z.txt")
    }

    func testBidirectionalControlsAreDropped() {
        for scalar in [0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069, 0x200E, 0x200F, 0x061C] {
            let raw = "invoice" + String(Character(Unicode.Scalar(UInt32(scalar)) ?? "x")) + "fdp.exe"
            XCTAssertEqual(DownloadName.sanitize(raw), "invoicefdp.exe", String(scalar, radix: 16))
        }
        XCTAssertEqual(DownloadName.choose(contentDisposition: "attachment; filename*=UTF-8''a%E2%80%AEgpj.exe", initialURL: "http://h/y", mediaType: nil), "agpj.exe")
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
        XCTAssertEqual(ContentRange.parse("bytes 100-199/200")?.start, 100)
        XCTAssertEqual(ContentRange.parse("bytes 100-199/200")?.total, 200)
        XCTAssertNil(ContentRange.parse("bytes 100-199/*")?.total)
        XCTAssertNil(ContentRange.parse("bytes 200-100/300"))
        XCTAssertNil(ContentRange.parse("items 1-2/3"))
        XCTAssertEqual(ContentRange.unsatisfiedTotal("bytes */5000"), 5000)
    }
}
