import XCTest
import SwurlTestSupport
@testable import SwurlCLI
@testable import SwurlOutput
@testable import SwurlResponseSerialization
@testable import SwurlCore

final class CommandOptionsTests: XCTestCase {
    private func options(_ args: [String]) throws -> CommandOptions {
        try CommandOptions(try ArgumentParser.parse(args), environment: TestEnvironment().environment)
    }

    func testCapitalWordIsTheMethod() throws {
        let o = try options(["PROPFIND", "example.org"])
        XCTAssertEqual(o.method, "PROPFIND")
        XCTAssertEqual(o.url, "example.org")
        XCTAssertNil(try options(["example.org"]).method)
    }

    /// curl's `-d @file` and `--json '{…}'` leave a body where the URL goes: refused with swurl's spelling.
    func testABodyWhereTheURLGoesIsRefusedWithSwurlsSpelling() {
        for (args, hint) in [(["-d", "@t.txt", "example.org"], "swurl POST URL @t.txt"),
                             (["--json", #"{"a":1}"#, "example.org"], "--json takes no value"),
                             (["example.org", #"["x"]"#], "give the fields as items after the URL")] {
            XCTAssertThrowsError(try options(args)) { error in
                guard case .usage(_, let h)? = error as? SwurlError else { return XCTFail("\(args): \(error)") }
                XCTAssertTrue(h?.contains(hint) == true, "\(args): \(h ?? "no hint")")
            }
        }
        for word in [#"{"a":1}"#, " [ {}] ", #"["x"]"#, "[[1]]", "{}"] {
            XCTAssertTrue(CommandOptions.looksLikeJSONDocument(word), word)
        }
        for word in ["[]:=1", "[0]=x", "[::1]:8080/x", "{a}=b", "example.org", "", "["] {
            XCTAssertFalse(CommandOptions.looksLikeJSONDocument(word), word)
        }
    }

    func testMethodWithoutURLIsAUsageError() {
        XCTAssertThrowsError(try options(["GET"])) { error in
            XCTAssertEqual(ExitStatus(for: error as! SwurlError), .usage)
        }
        XCTAssertThrowsError(try options([]))
    }

    func testNumbersAreValidated() {
        XCTAssertThrowsError(try options(["--timeout", "abc", "x"]))
        XCTAssertThrowsError(try options(["--timeout", "-1", "x"]))
        XCTAssertThrowsError(try options(["--max-redirects", "many", "x"]))
        XCTAssertEqual(try options(["--timeout", "1.5", "x"]).transfer.timeout, 1.5)
    }

    func testFormWithFileFieldBecomesMultipart() throws {
        let dir = TestPaths.temporaryDirectory()
        FileManager.default.createFile(atPath: dir + "/f.txt", contents: Data("x".utf8))
        let o = try CommandOptions(try ArgumentParser.parse(["-f", "x", "a=1", "f@f.txt"]),
                                   environment: TestEnvironment(directory: dir).environment)
        XCTAssertEqual(o.bodyFormat, .multipart)
    }

    func testBodyFormatsCannotBeCombined() {
        XCTAssertThrowsError(try options(["--json", "--form", "x"]))
    }

    /// COLUMNS is taken between 2 and 65535 (the widest a terminal's size can say): a huge value
    /// crashed the progress bar's arithmetic; 0 or less is unset.
    func testColumnsAreKeptToWhatATerminalCanBe() {
        func columns(_ value: String) -> Int {
            Swurl.columns(TestEnvironment(variables: ["COLUMNS": value]).environment)
        }
        XCTAssertEqual(columns("9223372036854775807"), 65535)
        XCTAssertEqual(columns("120"), 120)
        // 0 or less is no width, as ncurses reads it (the progress line was one column wide).
        XCTAssertEqual(columns("-5"), 80)
        XCTAssertEqual(columns("0"), 80)
        XCTAssertEqual(columns("1"), 2)
        XCTAssertEqual(columns(" 60"), 60)
        XCTAssertEqual(columns("wide"), 80)
    }

    func testPrintLettersAreChecked() {
        XCTAssertThrowsError(try options(["-p", "Hx", "x"])) { error in
            XCTAssertTrue((error as? SwurlError)?.message.contains("'x'") ?? false)
        }
    }
}
