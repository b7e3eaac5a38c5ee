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

    func testPrintLettersAreChecked() {
        XCTAssertThrowsError(try options(["-p", "Hx", "x"])) { error in
            XCTAssertTrue((error as? SwurlError)?.message.contains("'x'") ?? false)
        }
    }
}
