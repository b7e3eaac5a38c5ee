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

    /// In a zsh `_arguments` spec an unescaped colon ends the value's message: `HOST:PORT:ADDR`
    /// unescaped made zsh run `PORT` as the action. After the description, each option's spec
    /// holds only its own separators: `:MESSAGE:ACTION`, or `::MESSAGE:ACTION` for an optional value.
    func testZshValueMessagesEscapeTheirColons() {
        let zsh = DocumentationGenerator.generate("zsh")
        var checked = 0
        for line in zsh.split(separator: "\n") where line.hasPrefix("    ") && line.contains("]") && line.contains("'[") {
            // The spec after the option's description: its first unescaped "]".
            guard let open = line.range(of: "'[") else { continue }
            var separators = 0, escaped = false, inDescription = true, rest = ""
            for c in line[open.upperBound...].dropLast(line.hasSuffix("' \\") ? 3 : 0) {
                if !inDescription { rest.append(c) }
                if escaped { escaped = false; continue }
                if c == "\\" { escaped = true } else if inDescription { inDescription = c != "]" } else if c == ":" { separators += 1 }
            }
            XCTAssertTrue(separators == 0 || separators == 2 || rest.hasPrefix("::") && separators == 3, String(line))
            checked += 1
        }
        XCTAssertGreaterThan(checked, 100)
        XCTAssertTrue(zsh.contains(":HOST\\:PORT\\:ADDR:'"))
        XCTAssertTrue(zsh.contains(":USER[\\:PASS]:'"))
    }

    /// Fish takes the next word as the value only for a required value: an optional one is
    /// attached (`--cache=DIR`), as the parser reads it and as bash and zsh complete it.
    func testFishTakesTheNextWordOnlyForRequiredValues() {
        let fish = DocumentationGenerator.generate("fish").split(separator: "\n")
        var optional = 0
        for spec in OptionTable.documented {
            guard let line = fish.first(where: { $0.contains(" -l \(spec.name) ") }) else { return XCTFail(spec.name) }
            switch spec.argument {
            case .required: XCTAssertTrue(line.contains(" -r"), String(line))
            case .optional: XCTAssertFalse(line.contains(" -r"), String(line)); optional += 1
            case .none: XCTAssertFalse(line.contains(" -r"), String(line))
            }
        }
        XCTAssertEqual(optional, 4, "--plist, --timing, --wait-for-network, --cache")
        // A directory value is completed with directories, also when attached (--cache=DIR):
        // from the value alone (`--cache=sub` offered `--cache=--cache=sub/`).
        for spec in OptionTable.documented where spec.completion == .directory {
            let line = fish.first { $0.contains(" -l \(spec.name) ") }
            XCTAssertEqual(line?.contains(" -f -a '(__fish_complete_directories (string replace --regex -- \"^--?[^=]*=\" \"\" (commandline -ct)))'"),
                           true, spec.name)
        }
    }

    /// `--json` after certs, reach and cache prints their report: zsh and fish said it serialized
    /// data items there, as for a request; `--help` of those commands already said otherwise.
    func testCompletionsDescribeAnOptionByItsMeaningForTheCommand() {
        let zsh = DocumentationGenerator.generate("zsh")
        let reach = zsh.components(separatedBy: "_swurl_reach() {").last?.components(separatedBy: "}\n").first ?? ""
        XCTAssertTrue(reach.contains("{-j,--json}'[Print the report as JSON]'"), reach)
        XCTAssertFalse(reach.contains("Serialize data items"), reach)
        let fish = DocumentationGenerator.generate("fish")
        XCTAssertTrue(fish.contains("complete -c swurl -n '__swurl_seen_command reach' -s j -l json -d 'Print the report as JSON'"), fish)
        XCTAssertTrue(fish.contains("complete -c swurl -n 'not __swurl_seen_command certs reach cache' -s j -l json -d 'Serialize data items"), fish)
    }

    /// After `swurl cache` every shell offers its actions.
    func testCompletionsOfferTheCacheActions() {
        let bash = DocumentationGenerator.generate("bash")
        XCTAssertTrue(bash.contains("[[ \"$cmd\" == cache && $args -eq 0 ]]; then\n        COMPREPLY=($(compgen -W \"list clear prune\""), bash)
        let zsh = DocumentationGenerator.generate("zsh")
        XCTAssertTrue(zsh.contains("'1:action:((list\\:\"show the stored responses\" clear\\:"), zsh)
        let fish = DocumentationGenerator.generate("fish")
        for action in ["list", "clear", "prune"] {
            XCTAssertTrue(fish.contains("-n '__swurl_seen_command cache; and not __fish_seen_subcommand_from list clear prune' -f -a \(action) -d '"), action)
        }
    }

    /// zsh offers no option after `--` (`_arguments -S`; `-- --ti` completed `--timing`), and
    /// offers again an option whose every occurrence counts (`--resolve`), not one given once.
    /// bash gives a value that is no file (a number, a password, a choice that matches nothing)
    /// no file names from readline's fallback.
    func testCompletionsAfterDashDashRepeatsAndNonFileValues() {
        let zsh = DocumentationGenerator.generate("zsh")
        XCTAssertFalse(zsh.contains("_arguments -s \\\n"), "every _arguments call takes -S")
        XCTAssertTrue(zsh.contains("_arguments -s -S \\\n"), zsh)
        XCTAssertTrue(zsh.contains("'*'--resolve='["), zsh)
        XCTAssertTrue(zsh.contains("'*'{-v,--verbose}'["), zsh)
        XCTAssertTrue(zsh.contains("'(-o --output)'{-o,--output=}'["), zsh)
        let bash = DocumentationGenerator.generate("bash")
        let timeout = bash.components(separatedBy: "\n").first { $0.contains("--timeout") && $0.contains(")") && $0.contains("return 0") } ?? ""
        XCTAssertTrue(timeout.contains("compopt +o default"), timeout)
        let pretty = bash.components(separatedBy: "\n").first { $0.contains("--pretty") && $0.contains("compgen -W") } ?? ""
        XCTAssertTrue(pretty.contains("compopt +o default"), pretty)
        let cacert = bash.components(separatedBy: "\n").first { $0.contains("--cacert|") || $0.contains("--cacert)") } ?? ""
        XCTAssertFalse(cacert.contains("compopt +o default"), cacert)
    }
}
