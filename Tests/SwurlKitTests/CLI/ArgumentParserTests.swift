import XCTest
@testable import SwurlCLI
@testable import SwurlOutput
@testable import SwurlResponseSerialization
@testable import SwurlCore

final class ArgumentParserTests: XCTestCase {
    func testOptionsMayStandAnywhereAndPositionalsKeepOrder() throws {
        let p = try ArgumentParser.parse(["--form", "POST", "-v", "example.org", "a=1", "--timeout", "3", "b=2"])
        XCTAssertEqual(p.positionals, ["POST", "example.org", "a=1", "b=2"])
        XCTAssertTrue(p.has(.form))
        XCTAssertTrue(p.has(.verbose))
        XCTAssertEqual(p.value(.timeout), "3")
    }

    func testDoubleDashEndsOptions() throws {
        let p = try ArgumentParser.parse(["example.org", "--", "--not-an-option=1"])
        XCTAssertEqual(p.positionals, ["example.org", "--not-an-option=1"])
    }

    func testShortFlagsCombineAndTakeAttachedValues() throws {
        let p = try ArgumentParser.parse(["-hv", "-pHh", "-oout.txt", "x"])
        XCTAssertTrue(p.has(.headers))
        XCTAssertTrue(p.has(.verbose))
        XCTAssertEqual(p.value(.print), "Hh")
        XCTAssertEqual(p.value(.output), "out.txt")
    }

    func testLongOptionWithEqualsValue() throws {
        let p = try ArgumentParser.parse(["--pretty=format", "--plist", "x"])
        XCTAssertEqual(p.value(.pretty), "format")
        XCTAssertTrue(p.has(.plist))
        XCTAssertNil(p.value(.plist))
        XCTAssertEqual(try ArgumentParser.parse(["--plist=binary"]).value(.plist), "binary")
    }

    func testUnknownOptionNamesTheClosestOne() {
        XCTAssertThrowsError(try ArgumentParser.parse(["--folow"])) { error in
            guard case .usage(let message, let hint)? = error as? SwurlError else { return XCTFail("\(error)") }
            XCTAssertEqual(message, "unknown option '--folow'")
            XCTAssertEqual(hint, "did you mean '--follow'?")
        }
    }

    /// A swap of two letters (`--jsno`) and the start of a name (`--foll`, `--sess`) are guessed at.
    func testSwappedLettersAndAbbreviationsNameTheOption() {
        for (given, meant) in [("--jsno", "--json"), ("--foll", "--follow"), ("--verb", "--verbose"), ("--sess", "--session"), ("--timeo", "--timeout"),
                               ("--no-foll", "--no-follow"), ("--JSON", "--json")] {
            XCTAssertThrowsError(try ArgumentParser.parse([given])) { error in
                guard case .usage(_, let hint)? = error as? SwurlError else { return XCTFail("\(error)") }
                XCTAssertEqual(hint, "did you mean '\(meant)'?", given)
            }
        }
        XCTAssertEqual(ArgumentParser.editDistance("jsno", "json"), 1)
        XCTAssertEqual(ArgumentParser.editDistance("ab", "ba"), 1)
        XCTAssertEqual(ArgumentParser.editDistance("kitten", "sitting"), 3)
    }

    /// Regression: `-follow` was the cluster `-f -o llow` (the body went to a file `llow`,
    /// replacing it), `-offline` sent the request (`-o ffline`), `-all` sent `ll` as credentials.
    /// A word spelling a long option after one dash is refused, also one a typo or the start
    /// of a name away (`-folow` was `-f -o low`, `-Follow` `-F -o llow`); clusters still work.
    func testALongOptionWithOneDashIsRefused() throws {
        for (word, meant) in [("-follow", "--follow"), ("-offline", "--offline"), ("-all", "--all"), ("-output=x", "--output"),
                              ("-no-cache", "--no-cache"), ("-help", "--help"), ("-verbose", "--verbose"), ("-folow", "--follow"),
                              ("-foll", "--follow"), ("-Follow", "--follow")] {
            XCTAssertThrowsError(try ArgumentParser.parse([word, "http://h/"])) { error in
                guard case .usage(let message, let hint)? = error as? SwurlError else { return XCTFail("\(error)") }
                XCTAssertEqual(message, "'\(word)' is not an option: a long option takes two dashes", word)
                XCTAssertEqual(hint, "did you mean '\(meant)'?", word)
            }
        }
        XCTAssertEqual(try ArgumentParser.parse(["-ofile.txt"]).value(.output), "file.txt")
        XCTAssertEqual(try ArgumentParser.parse(["-oout.json"]).value(.output), "out.json")
        // After a letter that takes a value, the rest is its value (curl's `-ojson` too), and a
        // flag before it takes a near miss only one edit away (`-vojson` is -v -o json).
        for (word, file) in [("-ojson", "json"), ("-obody", "body"), ("-ocache", "cache"), ("-vojson", "json"), ("-qobody", "body")] {
            XCTAssertEqual(try ArgumentParser.parse([word]).value(.output), file, word)
        }
        XCTAssertEqual(try ArgumentParser.parse(["-asession:1"]).value(.auth), "session:1")
        XCTAssertEqual(try ArgumentParser.parse(["-pHh"]).value(.print), "Hh")
        // Every cluster of two or three short options that take no value still reads as one.
        let flags = OptionTable.all.filter { if case .none = $0.argument { return true } else { return false } }.flatMap(\.shorts)
        for a in flags { for b in flags { for c in [nil] + flags.map(Optional.some) {
            let word = "-" + String(a) + String(b) + (c.map { String($0) } ?? "")
            do { _ = try ArgumentParser.parse([word]) } catch {
                if case .usage(let message, _) = error, message.contains("is not an option: a long option") { XCTFail("\(word) refused") }
            }
        } } }
    }

    /// HTTPie's output options swurl spells otherwise point to swurl's (-P had only the
    /// generic hint; --meta and -m pointed to different places).
    func testHTTPiesOutputOptionsPointToSwurls() {
        for (option, said) in [("-P", "--all"), ("--history-print", "--all"), ("--unsorted", "sorts nothing"), ("--meta", "-p m"), ("-m", "-p m")] {
            XCTAssertThrowsError(try ArgumentParser.parse([option])) { error in
                guard case .usage(_, let hint)? = error as? SwurlError else { return XCTFail("\(error)") }
                XCTAssertTrue(hint?.contains(said) == true, "\(option): \(hint ?? "")")
            }
        }
    }

    func testMissingValueAndBadChoiceAreUsageErrors() {
        XCTAssertThrowsError(try ArgumentParser.parse(["--timeout"])) { error in
            XCTAssertEqual(ExitStatus(for: error as! SwurlError), .usage)
        }
        XCTAssertThrowsError(try ArgumentParser.parse(["--pretty=loud"])) { error in
            XCTAssertEqual((error as? SwurlError)?.message, "invalid value 'loud' for --pretty")
        }
        XCTAssertThrowsError(try ArgumentParser.parse(["--follow=yes"]))
    }

    func testOptionalValueMayFollowAsItsOwnWordWhenItIsAChoice() throws {
        let p = try ArgumentParser.parse(["--plist", "binary", "x", "--timing", "json"])
        XCTAssertEqual(p.value(.plist), "binary")
        XCTAssertEqual(p.value(.timing), "json")
        XCTAssertEqual(p.positionals, ["x"])
        let q = try ArgumentParser.parse(["--plist", "example.org"])
        XCTAssertNil(q.value(.plist))
        XCTAssertEqual(q.positionals, ["example.org"])
    }

    func testFlagAliases() throws {
        XCTAssertTrue(try ArgumentParser.parse(["-L"]).has(.follow))
        XCTAssertTrue(try ArgumentParser.parse(["-F"]).has(.follow))
    }

    func testEveryOptionNameIsUnique() {
        var seen: Set<String> = []
        for spec in OptionTable.all {
            for name in [spec.name] + spec.aliases + spec.shorts.map({ String($0) }) {
                XCTAssertTrue(seen.insert(name).inserted, "duplicate option name \(name)")
            }
        }
    }
}
