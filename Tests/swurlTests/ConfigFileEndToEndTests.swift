import XCTest
import Foundation
import SwurlTestSupport

/// The config file of default options, end to end: what httpbin received.
final class ConfigFileEndToEndTests: XCTestCase {
    private func config(_ text: String) throws -> [String: String] {
        let home = TestPaths.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: home + "/swurl", withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: home + "/swurl/config"))
        return ["XDG_CONFIG_HOME": home]
    }

    func testConfigOptionsApplyAndTheCommandLineOverrides() throws {
        let env = try config("# defaults\n--form   # send forms\n--print=b\n")
        let form = try runSwurl([try HTTPBin.url("/post"), "a=1"], environment: env)
        XCTAssertEqual(form.status, 0, form.stderr)
        XCTAssertEqual(try form.json()["form"] as? [String: String], ["a": "1"])
        let json = try runSwurl(["--json", try HTTPBin.url("/post"), "a=1"], environment: env)
        XCTAssertEqual(json.status, 0, json.stderr)
        XCTAssertEqual(try json.json()["json"] as? [String: String], ["a": "1"])
        let off = try runSwurl([try HTTPBin.url("/post"), "a=1", "--no-config"], environment: env)
        XCTAssertEqual(try off.json()["json"] as? [String: String], ["a": "1"])
    }

    func testQuotedValuesReachTheServer() throws {
        let env = try config("--resolve 'swurl.test:\(try HTTPBin.shared().port):127.0.0.1'\n")
        let r = try runSwurl(["http://swurl.test:\(try HTTPBin.shared().port)/get"], environment: env)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual((try r.json()["headers"] as? [String: String])?["Host"], "swurl.test:\(try HTTPBin.shared().port)")
    }

    func testErrorsNameTheFileAndLineAndNothingIsSent() throws {
        let env = try config("--form\n\n--pretty sparkly\n")
        let r = try runSwurl([try HTTPBin.url("/get")], environment: env)
        XCTAssertEqual(r.status, 64)
        XCTAssertTrue(r.stderr.contains("swurl/config:3:"), r.stderr)
        let items = try runSwurl([try HTTPBin.url("/get")], environment: try config("--form a=1\n"))
        XCTAssertEqual(items.status, 64)
        XCTAssertTrue(items.stderr.contains("swurl/config:1: 'a=1'"), items.stderr)
        XCTAssertEqual(items.stdout, Data())
    }

    func testOptionsTheCommandDoesNotTakeAreLeftOut() throws {
        // --overwrite is a download option; as a default it must not break a plain request.
        let env = try config("--overwrite\n")
        let r = try runSwurl([try HTTPBin.url("/get")], environment: env)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try runSwurl([try HTTPBin.url("/get"), "--overwrite"], environment: env).status, 64)
    }
}
