import XCTest
@testable import SwurlCLI
import SwurlCore

/// `--help` fits a screen; everything is one step away (`--help all`, `swurl help COMMAND`).
final class HelpGeneratorTests: XCTestCase {
    private func help(_ arguments: [String]) throws -> String? {
        try Swurl.helpText(ArgumentParser.parse(arguments))
    }

    func testTheShortHelpFitsAScreenAndSaysWhereTheRestIs() throws {
        let short = try XCTUnwrap(help(["--help"]))
        XCTAssertLessThanOrEqual(short.split(separator: "\n", omittingEmptySubsequences: false).count, 60, short)
        XCTAssertTrue(short.contains("swurl --help all"))
        XCTAssertTrue(short.contains("swurl help COMMAND"))
        for word in CommandTable.words { XCTAssertTrue(short.contains("  \(word) "), word) }
        XCTAssertEqual(try help(["help"]), short)
        XCTAssertEqual(try help(["-h"]), nil, "-h is --headers")
    }

    func testHelpAllHasEveryOptionAndCommandHelpOnlyItsOwn() throws {
        let all = try XCTUnwrap(help(["--help", "all"]))
        XCTAssertEqual(try help(["help", "all"]), all)
        for spec in OptionTable.documented { XCTAssertTrue(all.contains("--\(spec.name)"), spec.name) }
        let reach = try XCTUnwrap(help(["help", "reach"]))
        XCTAssertEqual(try help(["reach", "--help"]), reach)
        XCTAssertTrue(reach.hasPrefix(ReachCommand.usage))
        for spec in OptionTable.documented {
            XCTAssertEqual(reach.contains("  --\(spec.name) ") || reach.contains("  --\(spec.name)\n") || reach.contains(", --\(spec.name)"),
                           spec.commands.contains(.reach), spec.name)
        }
        // A command's help heads its groups with their names alone: "Request body (request,
        // download, batch, repl)" over certs' --json read as if certs took the body options.
        // Its --json is the report's format, shown as such among the output options.
        let certs = try XCTUnwrap(help(["help", "certs"]))
        XCTAssertTrue(certs.contains("\nOutput:\n  -j, --json              Print the report as JSON (when none can be made:") && certs.contains("\nTLS and pinning:\n"), certs)
        XCTAssertFalse(certs.contains("\nRequest body:\n"), certs)
        XCTAssertFalse(certs.contains("(request,") || certs.contains("Commands:"), certs)
        for spec in OptionTable.documented {
            XCTAssertEqual(certs.contains("  --\(spec.name) ") || certs.contains("  --\(spec.name)\n") || certs.contains(", --\(spec.name)"),
                           spec.commands.contains(.certs), spec.name)
        }
        let cache = try XCTUnwrap(help(["cache", "--help"]))
        XCTAssertTrue(cache.contains("\nActions:\n  list ") && cache.contains("--no-config"), cache)
        XCTAssertEqual(try help(["-d", "--help"]), HelpGenerator.help(for: DownloadCommand.self))
        XCTAssertThrowsError(try help(["help", "nope"])) { error in
            XCTAssertEqual(ExitStatus(for: error as? SwurlError ?? .output("")), .usage)
        }
        XCTAssertNil(try help(["http://help/x"]))
    }
}
