import XCTest
import SwurlTestSupport
@testable import SwurlCLI
@testable import SwurlOutput
@testable import SwurlResponseSerialization
@testable import SwurlCore

/// The committed man page and completions must be what the option table generates today.
final class DocumentationGeneratorTests: XCTestCase {
    private func committed(_ path: String) throws -> String {
        try String(contentsOfFile: TestPaths.packageRoot + "/" + path, encoding: .utf8)
    }

    func testCommittedFilesMatchTheOptionTable() throws {
        let files = ["man": "man/swurl.1", "bash": "completions/swurl.bash", "zsh": "completions/_swurl",
                     "fish": "completions/swurl.fish"]
        for (what, path) in files {
            XCTAssertEqual(try committed(path), DocumentationGenerator.generate(what),
                           "\(path) is stale: run 'make man completions' and commit the result")
        }
    }

    /// README, man page and --help take their exit-status tables from `ExitStatus.documentation`.
    func testExitStatusTablesComeFromExitStatus() throws {
        XCTAssertTrue(try committed("README.md").contains(DocumentationGenerator.exitStatusMarkdown()),
                      "README.md's exit-status table is stale: run 'make man completions' and commit the result")
        let help = HelpGenerator.help()
        for status in ExitStatus.allCases {
            XCTAssertTrue(ExitStatus.documentation.contains { $0.codes.contains(status) }, "\(status) is not documented")
            XCTAssertTrue(DocumentationGenerator.manPage().contains(".B \(status.rawValue)") || status.rawValue >= 3 && status.rawValue <= 5,
                          "\(status) is not in the man page")
            XCTAssertTrue(help.contains("  \(status.rawValue)") || status.rawValue >= 3 && status.rawValue <= 5, "\(status) is not in --help")
        }
    }

    func testEveryDocumentedOptionAppearsEverywhere() throws {
        let help = HelpGenerator.help()
        let man = DocumentationGenerator.generate("man")
        let fish = DocumentationGenerator.generate("fish")
        let bash = DocumentationGenerator.generate("bash")
        let zsh = DocumentationGenerator.generate("zsh")
        for spec in OptionTable.documented {
            XCTAssertTrue(help.contains("--\(spec.name)"), spec.name)
            XCTAssertTrue(man.contains("\\-\\-\(spec.name.replacingOccurrences(of: "-", with: "\\-"))"), spec.name)
            XCTAssertTrue(fish.contains("-l \(spec.name) "), spec.name)
            XCTAssertTrue(bash.contains("--\(spec.name)"), spec.name)
            XCTAssertTrue(zsh.contains("--\(spec.name)"), spec.name)
        }
        XCTAssertFalse(help.contains("--generate"))
    }
}
