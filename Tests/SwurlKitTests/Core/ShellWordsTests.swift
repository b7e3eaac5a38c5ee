import XCTest
import SwurlTestSupport
@testable import SwurlCore

/// The one splitter of config files, batch lines and REPL lines: what `sh` would make of the
/// line, on bytes.
final class ShellWordsTests: XCTestCase {
    /// Each line's words as /bin/sh itself splits them (`printf '%s\n'` of the words), so the
    /// table is the shell's, not ours.
    func testWordsAreWhatTheShellMakesOfTheLine() throws {
        let lines = [
            "GET  http://x/a\tname=Ann",
            #"POST http://x 'msg=two words' "q=say \"hi\"" a\ b ''"#,
            #"x a\:b=1 'c\:d=2' "e\:f=3" g\\h"#,
            #"x "a\$b" "c\`d" "e\zf" 'g\"h'"#,
            #"x name=Ann # a comment 'with quote"#,
            ##"x a#b "#c" '#d'"##,
            #"x a"b"'c'd"#,
        ]
        for line in lines {
            let out = try shellWords(line)
            XCTAssertEqual(try ShellWords.words(line), out, line)
        }
    }

    /// The words `/bin/sh` makes of `line` as a command line (`eval set --`, globbing off; the
    /// table holds nothing the shell would expand).
    private func shellWords(_ line: String) throws -> [String] {
        // `eval set -- LINE` splits LINE as the shell splits a command line; HOME is set to
        // '$HOME' so the one expansion in the table comes out as written.
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "set -f; eval \"set -- $1\"; for w in \"$@\"; do printf '%s\\0' \"$w\"; done", "sh", line]
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        waitForExit(p)
        var words = data.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        if words.last == "" { words.removeLast() }
        return words
    }

    func testBytesThatAreNotUTF8StayThoseBytes() throws {
        let lines = try ShellWords.lines([0x78, 0x20, 0x2F, 0x62, 0xE9, 0x20, 0x27, 0xFF, 0x27, 0x0A])
        XCTAssertEqual(lines.count, 1)
        XCTAssertEqual(lines.first?.words.map(ArgumentBytes.bytes), [[0x78], [0x2F, 0x62, 0xE9], [0xFF]])
        // Text already decoded as argv is (with escapes) splits to the same words.
        let decoded = ArgumentBytes.decode([0x78, 0x20, 0x2F, 0x62, 0xE9])
        XCTAssertEqual(try ShellWords.words(decoded).map(ArgumentBytes.bytes), [[0x78], [0x2F, 0x62, 0xE9]])
        // Also through the splitter (a quote), and with a real U+10FFFF beside the byte: each
        // word's bytes are the line's (the escapes were escaped again, E9 sent as F4 8F BF A9).
        let raw: [UInt8] = [0x27, 0x61, 0x27, 0x20, 0x2F, 0xE9, 0xF4, 0x8F, 0xBF, 0xBF]
        XCTAssertEqual(try ShellWords.words(ArgumentBytes.decode(raw)).map(ArgumentBytes.bytes), [[0x61], [0x2F, 0xE9, 0xF4, 0x8F, 0xBF, 0xBF]])
        XCTAssertEqual(try ShellWords.wordsWithBarePrefixes(ArgumentBytes.decode(raw)).map { ArgumentBytes.bytes($0.bare) },
                       [[], [0x2F, 0xE9, 0xF4, 0x8F, 0xBF, 0xBF]])
    }

    func testLinesNumbersContinuationsAndErrors() throws {
        let lines = try ShellWords.lines(Array("# c\n\n--a\n--b 'x\ny'\n--c \\\n d\n".utf8))
        XCTAssertEqual(lines.map(\.number), [3, 4, 6])
        XCTAssertEqual(lines.last?.words, ["--c", "d"])
        XCTAssertThrowsError(try ShellWords.lines(Array("--a\n--b 'oops\n".utf8))) { error in
            XCTAssertEqual(error as? ShellWords.SyntaxError, ShellWords.SyntaxError(line: 2, message: "unterminated ' quote"))
        }
        // A `"` is reported where it opened too (it said the file's last line).
        XCTAssertThrowsError(try ShellWords.lines(Array("--a\n--b \"oops\n--c\n\n".utf8))) { error in
            XCTAssertEqual(error as? ShellWords.SyntaxError, ShellWords.SyntaxError(line: 2, message: "unterminated \" quote"))
        }
        XCTAssertThrowsError(try ShellWords.lines([0x61, 0x00, 0x62]))
        XCTAssertThrowsError(try ShellWords.words("x \"open"))
        XCTAssertEqual(try ShellWords.words("a\\"), ["a\\"])
        // Nothing is expanded.
        XCTAssertEqual(try ShellWords.words("x $HOME ~ *.txt `id`"), ["x", "$HOME", "~", "*.txt", "`id`"])
        XCTAssertEqual(try ShellWords.words(""), [])
    }

    func testPlainLinesTakeTheFastPathWithTheSameWords() throws {
        XCTAssertEqual(ShellWords.plainWords("  GET\thttp://x/a  b=1 \t"), ["GET", "http://x/a", "b=1"])
        for line in ["a 'b c'", "a \"b\"", "a\\ b", "a \u{301}b", "caf\u{E9} x", "a\rb", "a #b"] {
            XCTAssertNil(ShellWords.plainWords(line), line)
        }
        // A blank before a combining mark is a blank to the shell: bytes decide.
        XCTAssertEqual(try ShellWords.words("a \u{301}b"), ["a", "\u{301}b"])
        XCTAssertEqual(try ShellWords.words("caf\u{E9} x"), ["caf\u{E9}", "x"])
    }

    /// A byte order mark before a line's first word is skipped (a REPL script or config file
    /// saved by Notepad); one inside a word or quoted stays.
    func testAByteOrderMarkBeforeALineIsSkipped() throws {
        XCTAssertEqual(try ShellWords.words("\u{FEFF}anything -v"), ["anything", "-v"])
        XCTAssertEqual(try ShellWords.lines(Array("\u{FEFF}--offline\n  \u{FEFF}-v\n".utf8)).map(\.words), [["--offline"], ["-v"]])
        XCTAssertEqual(try ShellWords.words("a \u{FEFF}b"), ["a", "\u{FEFF}b"])
        XCTAssertEqual(try ShellWords.words("'\u{FEFF}x'"), ["\u{FEFF}x"])
    }
}
