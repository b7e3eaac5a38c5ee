import XCTest
import Foundation
import SwurlTestSupport
@testable import SwurlCLI
@testable import SwurlCore

/// The built binary against real servers on 127.0.0.1: piped bodies stay byte-exact, formatted
/// JSON re-parses to the original, validation options exit as documented, and terminal output
/// (run under `script`, a real pseudo-terminal) is decoded and safe.
final class DecodersEndToEndTests: XCTestCase {
    nonisolated(unsafe) private static var fixtures: FixtureServer?

    private func server() throws -> FixtureServer {
        if let s = DecodersEndToEndTests.fixtures { return s }
        let s = try FixtureServer()
        DecodersEndToEndTests.fixtures = s
        return s
    }

    private func sha256(_ data: Data) throws -> String {
        let dir = TestPaths.temporaryDirectory()
        try data.write(to: URL(fileURLWithPath: dir + "/d"))
        return try runPython("import hashlib,sys; print(hashlib.sha256(open(sys.argv[1],'rb').read()).hexdigest())",
                             arguments: [dir + "/d"])
    }

    /// Runs swurl on a pseudo-terminal (util-linux `script`); returns what the terminal got.
    private func runOnTerminal(_ arguments: [String], environment: [String: String] = ["TERM": "xterm"]) throws -> (String, Int32) {
        let (data, status) = try runOnTerminalBytes(arguments, environment: environment)
        return (String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n"), status)
    }

    /// The same, as the bytes the terminal received (no UTF-8 decoding that would hide stray bytes).
    private func runOnTerminalBytes(_ arguments: [String], environment: [String: String] = ["TERM": "xterm"]) throws -> (Data, Int32) {
        let quoted = ([TestPaths.binary] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        p.arguments = ["-qec", quoted.joined(separator: " "), "/dev/null"]
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "NO_COLOR")
        for (k, v) in environment { env[k] = v }
        p.environment = env
        let out = Pipe()
        p.standardOutput = out
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        waitForExit(p)
        return (data, p.terminationStatus)
    }

    /// A multipart request shown on a terminal (`-v`): each binary part's note stands where its
    /// bytes go. The text before it was held back by the writer and came out after every note
    /// (`[…b.png'][…c.bin']--Q`), each binary part's place left empty.
    func testMultipartNotesStandWhereTheirPartsGo() throws {
        let dir = TestPaths.temporaryDirectory()
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x01]).write(to: URL(fileURLWithPath: dir + "/b.png"))
        try Data([0x00, 0xFF, 0x00, 0xFE]).write(to: URL(fileURLWithPath: dir + "/c.bin"))
        let (text, status) = try runOnTerminal(["-v", "--offline", "--multipart", "--boundary", "Q", "--pretty=none", "POST", "http://127.0.0.1:9/p",
                                                "a=1", "f@" + dir + "/b.png", "g@" + dir + "/c.bin", "z=2"])
        XCTAssertEqual(status, 0, text)
        let lines = text.replacingOccurrences(of: "\r", with: "").split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let png = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("[swurl: binary data not shown: 10 bytes from '") }, text)
        XCTAssertEqual(lines[png - 2], "Content-Type: image/png", text)
        XCTAssertEqual(lines[png + 1], "--Q", text)
        let bin = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("[swurl: binary data not shown: 4 bytes from '") }, text)
        XCTAssertGreaterThan(bin, png + 2, text)
        XCTAssertTrue(lines.contains("--Q--"), text)
        let value = try XCTUnwrap(lines.firstIndex(where: { $0 == "1" }), text)
        XCTAssertLessThan(value, png, text)
    }

    /// Regression (issue 14): a lone 0x9B (8-bit CSI) in a body that is not valid UTF-8 reached
    /// the terminal raw, in text and inside JSON strings. The terminal must never receive it.
    func testTerminalNeverReceivesBytesThatAreNotUTF8() throws {
        let s = try server()
        let csi: [UInt8] = [0x9B] + Array("31mRED".utf8)
        try s.put("c1.txt", Data(Array("text ".utf8) + csi + [0xE2, 0x9B] + Array(" end\n".utf8)))
        try s.put("c1.json", Data(Array(#"{"k":"a"#.utf8) + csi + Array(#"","é":"€"}"#.utf8)))
        try s.put("c1.xml", Data(Array("<a>x".utf8) + csi + Array("</a>".utf8)))
        for (name, type) in [("c1.txt", "text/plain"), ("c1.json", "application/json"), ("c1.xml", "application/xml")] {
            for args in [["-b"], ["-b", "--pretty=none"], ["-b", "-S"], ["--print=hb"]] {
                let (out, status) = try runOnTerminalBytes(args + [s.url(name, type: type, headers: ["X-Evil: a\u{9B}31mb"])])
                XCTAssertEqual(status, 0, "\(name) \(args)")
                // Valid UTF-8 throughout: a 0x9B left in it can only be a continuation byte.
                XCTAssertNotNil(String(validating: out, as: UTF8.self), "\(name) \(args): \(Array(out))")
                XCTAssertTrue(String(decoding: out, as: UTF8.self).contains("\\x9b31m"),
                              "\(name) \(args): \(String(decoding: out, as: UTF8.self))")
            }
        }
        let (json, _) = try runOnTerminal(["-b", "--pretty=format", s.url("c1.json", type: "application/json")])
        // Formatted, and noted: a byte that is not UTF-8 makes it not JSON (a strict --decode json exits 8).
        XCTAssertEqual(json, "{\n    \"k\": \"a\\x9b31mRED\",\n    \"é\": \"€\"\n}\n"
                       + "[swurl: the body is not valid JSON: a string holds bytes that are not UTF-8 or half a \\u surrogate pair]\n")
        let strict = try runSwurl(["--decode", "json", s.url("c1.json", type: "application/json")])
        XCTAssertEqual(strict.status, 8, strict.stderr)
    }

    /// `--pretty=format` and `--pretty=all` to a pipe or file format what they can; a binary
    /// body passed through as sent keeps its bytes (`swurl --pretty=format URL > logo.png` was a
    /// byte longer: a final newline), whatever its label. Text still ends its line.
    func testFormattingOffATerminalLeavesBinaryBodiesByteExact() throws {
        let s = try server()
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D] + Array("IHDR".utf8)
                       + [0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1F, 0x15, 0xC4, 0x89] + [UInt8](repeating: 7, count: 100))
        let binary = Data((0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try s.put("logo.png", png)
        try s.put("blob.bin", binary)
        for pretty in ["--pretty=format", "--pretty=all"] {
            for (name, data, type) in [("logo.png", png, "image/png"), ("logo.png", png, "application/octet-stream"),
                                       ("logo.png", png, "application/json"), ("blob.bin", binary, "application/octet-stream"),
                                       ("blob.bin", binary, "application/zip")] {
                let r = try runSwurl([pretty, s.url(name, type: type)])
                XCTAssertEqual(r.status, 0, r.stderr)
                XCTAssertEqual(r.stdout, data, "\(pretty) \(name) as \(type): \(r.stdout.count) bytes for \(data.count)")
            }
        }
        try s.put("t.txt", "plain text")
        XCTAssertEqual(try runSwurl(["--pretty=format", s.url("t.txt", type: "text/plain")]).text, "plain text\n")
    }

    func testPipedBodiesAreByteExactForJSONBinaryAndGzip() throws {
        for path in ["/json", "/bytes/65536?seed=3", "/image/png", "/xml", "/encoding/utf8"] {
            let url = try HTTPBin.url(path)
            let r = try runSwurl([url])
            XCTAssertEqual(r.status, 0, path)
            XCTAssertEqual(try sha256(r.stdout), try sha256(try fetchWithCurl(url)), path)
        }
        // gzip-encoded JSON and binary: the decoded body, byte for byte.
        let s = try server()
        let json = Data(#"{"k": [1, 2.50, "\u00e9"], "z": null}"#.utf8)
        let binary = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 7) })
        try s.put("g.json", json)
        try s.put("g.bin", binary)
        for (name, data, type) in [("g.json", json, "application/json"), ("g.bin", binary, "application/octet-stream")] {
            let r = try runSwurl([s.url(name, type: type, gzip: true)])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(try sha256(r.stdout), try sha256(data), name)
        }
        // --max-filesize counts the decoded bytes of a request's body, and says so.
        let limited = try runSwurl(["--max-filesize", "100K", s.url("g.bin", type: "application/octet-stream", gzip: true)])
        XCTAssertEqual(limited.status, 8, limited.stderr)
        XCTAssertTrue(limited.stderr.contains("larger than --max-filesize 102400 bytes (after decoding)"), limited.stderr)
        // Nothing decoded (identity, or a coding passed through as received): not said.
        for coding in ["identity", "x-unknown"] {
            // The server does send it (else this would pass without testing anything).
            let head = try runSwurl(["-h", s.url("g.bin", type: "application/octet-stream", headers: ["Content-Encoding: \(coding)"])])
            XCTAssertTrue(head.text.contains("Content-Encoding: \(coding)"), head.text)
            let plain = try runSwurl(["--max-filesize", "100K", s.url("g.bin", type: "application/octet-stream",
                                                                      headers: ["Content-Encoding: \(coding)"])])
            XCTAssertEqual(plain.status, 8, plain.stderr)
            XCTAssertTrue(plain.stderr.contains("larger than --max-filesize 102400 bytes"), plain.stderr)
            XCTAssertFalse(plain.stderr.contains("after decoding"), "\(coding): \(plain.stderr)")
        }
    }

    func testFormattedJSONReparsesToTheOriginal() throws {
        let url = try HTTPBin.url("/json")
        let r = try runSwurl(["--pretty=format", url])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertNotEqual(r.stdout, try fetchWithCurl(url))
        XCTAssertEqual(try JSONParser.parse(Array(r.stdout)), try JSONParser.parse(Array(try fetchWithCurl(url))))
    }

    func testLargeFormattedBodyGoesThroughTheBackgroundWriter() throws {
        let s = try server()
        var doc = "["
        for i in 0..<60_000 { doc += (i > 0 ? "," : "") + #"{"i":\#(i),"s":"x\ty","n":null}"# }
        doc += "]"
        try s.put("big.json", doc)
        let dir = TestPaths.temporaryDirectory()
        let r = try runSwurl(["--pretty=all", "-o", dir + "/out", s.url("big.json", type: "application/json")])
        XCTAssertEqual(r.status, 0, r.stderr)
        let out = try Data(contentsOf: URL(fileURLWithPath: dir + "/out"))
        let plain = String(decoding: out, as: UTF8.self).replacingOccurrences(of: "\u{1B}[", with: "\u{0}")
            .split(separator: "\u{0}").map { part -> Substring in
                guard let m = part.firstIndex(of: "m") else { return part }
                return part[part.index(after: m)...]
            }.joined()
        XCTAssertEqual(try JSONParser.parse(String(plain.dropFirst(0))), try JSONParser.parse(doc))
    }

    func testAcceptStatusAndCheckStatusStillShowTheBody() throws {
        let url = try HTTPBin.url("/status/418")
        let r = try runSwurl(["--accept-status", "200-299,304", url])
        XCTAssertEqual(r.status, 4)
        XCTAssertTrue(r.text.contains("teapot"), r.text)
        XCTAssertEqual(try runSwurl(["--accept-status", "200-299,304", try HTTPBin.url("/status/304")]).status, 0)
        XCTAssertEqual(try runSwurl(["--accept-status", "418", url]).status, 0)
        XCTAssertEqual(try runSwurl(["--accept-status", "200", try HTTPBin.url("/status/204")]).status, 8)
        XCTAssertEqual(try runSwurl(["--accept-status", "2xx", url]).status, 64)
    }

    func testAcceptTypeRejectsAndDoesNotDecode() throws {
        let r = try runSwurl(["--accept-type", "application/xml", "--pretty=format", try HTTPBin.url("/json")])
        XCTAssertEqual(r.status, 8)
        XCTAssertTrue(r.stderr.contains("Content-Type application/json is not acceptable"), r.stderr)
        XCTAssertEqual(r.stdout, try fetchWithCurl(try HTTPBin.url("/json")))   // shown, not formatted
        XCTAssertEqual(try runSwurl(["--accept-type", "application/*,text/*", try HTTPBin.url("/json")]).status, 0)
        // An empty body is never rejected for its type.
        XCTAssertEqual(try runSwurl(["--accept-type", "application/json", try HTTPBin.url("/status/204")]).status, 0)
        XCTAssertEqual(try runSwurl(["-h", "--accept-type", "application/json", "HEAD", try HTTPBin.url("/html")]).status, 0)
    }

    func testExplicitDecoderIsStrict() throws {
        let s = try server()
        try s.put("notplist", "{\"a\": 1}")
        let r = try runSwurl(["--decode", "plist", s.url("notplist", type: "application/json")])
        XCTAssertEqual(r.status, 8)
        XCTAssertTrue(r.stderr.contains("not a property list"), r.stderr)
        XCTAssertEqual(r.text, "{\"a\": 1}")   // piped: still the bytes
        // Piped as sent: the error says so, and nothing of a terminal's display (it said
        // "formatted all the same" of a body that was not formatted, and an image's "15 bytes
        // not shown; use -o FILE or a pipe to save it" of a pipe).
        try s.put("badjson", "{\"a\": 1,}")
        try s.put("badpng", Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49]))
        for (choice, name, type) in [("json", "badjson", "application/json"), ("image", "badpng", "image/png")] {
            let piped = try runSwurl(["--decode", choice, s.url(name, type: type)])
            XCTAssertEqual(piped.status, 8, piped.stderr)
            XCTAssertTrue(piped.stderr.contains("(the body was written as sent)"), piped.stderr)
            for said in ["formatted", "not shown", "shown as sent", "-o FILE"] { XCTAssertFalse(piped.stderr.contains(said), piped.stderr) }
            // Not printed at all (`-p h`): nothing was written, nor shown.
            let headOnly = try runSwurl(["--decode", choice, "-p", "h", s.url(name, type: type)])
            XCTAssertEqual(headOnly.status, 8, headOnly.stderr)
            for said in ["written as sent", "formatted", "not shown", "shown as sent"] { XCTAssertFalse(headOnly.stderr.contains(said), headOnly.stderr) }
            // A batch shows no body either.
            let lines = TestPaths.temporaryDirectory() + "/lines"
            try Data((s.url(name, type: type) + " --decode " + choice + "\n").utf8).write(to: URL(fileURLWithPath: lines))
            let batch = try runSwurl(["batch", lines])
            XCTAssertEqual(batch.status, 8, batch.stderr)
            XCTAssertTrue(batch.text.contains("--decode \(choice): the body is not"), batch.text)
            for said in ["written as sent", "formatted", "not shown", "shown as sent"] { XCTAssertFalse(batch.text.contains(said), batch.text) }
        }
        XCTAssertEqual(try runSwurl(["--decode", "json", s.url("notplist")]).status, 0)
        // Saving to a file: nothing was shown and nothing saved, so neither is said to be.
        let file = TestPaths.temporaryDirectory() + "/f"
        for args in [["-o", file], ["-d", "-o", file]] {
            let saved = try runSwurl(["--decode", "xml"] + args + [try HTTPBin.url("/json")])
            XCTAssertEqual(saved.status, 8, saved.stderr)
            XCTAssertFalse(saved.stderr.contains("shown as sent") || saved.stderr.contains("-o FILE"), saved.stderr)
            XCTAssertTrue(saved.stderr.contains("use --decode auto to save any body"), saved.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: file))
        }
        XCTAssertEqual(try runSwurl(["--decode", "xml", try HTTPBin.url("/xml")]).status, 0)
        XCTAssertEqual(try runSwurl(["--decode", "xml", try HTTPBin.url("/json")]).status, 8)
        XCTAssertEqual(try runSwurl(["--decode", "json", "HEAD", try HTTPBin.url("/json")]).status, 0)
        XCTAssertEqual(try runSwurl(["--decode", "bogus", try HTTPBin.url("/json")]).status, 64)
    }

    /// Binary data labelled XML or JSON is never dumped on a terminal: zeros past the 1 MiB window
    /// (XML now fails at the first byte outside the root element, or at a control character),
    /// and with --stream (no window: the first chunk is looked at).
    func testBinaryBodiesLabelledXMLOrJSONAreANoteOnATerminal() throws {
        let s = try server()
        try s.put("zeros.bin", Data(count: 1_100_000))
        try s.put("ctl.xml", Data("<r>\u{0}\u{1}\u{2}</r>".utf8))
        for (type, extra) in [("application/xml", [String]()), ("application/xml", ["-S"]), ("application/json", ["-S"])] {
            let (out, status) = try runOnTerminalBytes(["-b"] + extra + [s.url("zeros.bin", type: type)])
            XCTAssertEqual(status, 0, "\(type) \(extra)")
            XCTAssertLessThan(out.count, 1000, "\(type) \(extra): \(String(decoding: out.prefix(300), as: UTF8.self))")
            XCTAssertTrue(String(decoding: out, as: UTF8.self).contains("but binary data not shown: 1 100 000 bytes"),
                          "\(type) \(extra): \(String(decoding: out.prefix(300), as: UTF8.self))")
        }
        // XML in its charset: UTF-16 by the Content-Type or by its byte order mark alone, Latin-1.
        try s.put("u16.xml", Data([0xFF, 0xFE]) + (try XCTUnwrap("<a>café</a>".data(using: .utf16LittleEndian))))
        try s.put("l1.xml", Data([0x3C, 0x61, 0x3E, 0x63, 0x61, 0x66, 0xE9, 0x3C, 0x2F, 0x61, 0x3E]))
        for (name, type) in [("u16.xml", "application/xml; charset=utf-16"), ("u16.xml", "application/xml"), ("l1.xml", "text/xml; charset=iso-8859-1"),
                             // The byte order mark wins over a UTF-8 label (RFC 7303 §3.2).
                             ("u16.xml", "application/xml; charset=utf-8")] {
            let (shown, status) = try runOnTerminal(["-b", "--pretty=format", s.url(name, type: type)])
            XCTAssertEqual(status, 0, "\(name) \(type)")
            XCTAssertEqual(shown, "<a>café</a>\n", "\(name) \(type)")
        }
        // Without a charset, the declaration's encoding (an RSS feed in Latin-1), shown in UTF-8
        // and declared so; a charset in the Content-Type wins over it, and a declaration read
        // as ASCII is no UTF-16 whatever it says.
        try s.put("feed.xml", Data("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<rss>caf".utf8) + Data([0xE9]) + Data("</rss>".utf8))
        let (feed, feedStatus) = try runOnTerminal(["-b", "--pretty=format", s.url("feed.xml", type: "application/rss+xml")])
        XCTAssertEqual(feedStatus, 0)
        XCTAssertEqual(feed, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss>café</rss>\n")
        XCTAssertEqual(try runSwurl(["-b", "--pretty=format", s.url("feed.xml", type: "text/xml")]).text,
                       "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss>café</rss>\n")
        let labelled = try runSwurl(["-b", "--pretty=format", s.url("feed.xml", type: "text/xml; charset=windows-1252")])
        XCTAssertEqual(labelled.text, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss>café</rss>\n")
        for declared in ["UTF-16", "UCS2", "UNICODE", "IBM037"] {
            try s.put("says.xml", "<?xml version=\"1.0\" encoding=\"\(declared)\"?><a>x</a>")
            XCTAssertEqual(try runSwurl(["-b", "--pretty=format", s.url("says.xml", type: "application/xml")]).text,
                           "<?xml version=\"1.0\" encoding=\"\(declared)\"?>\n<a>x</a>\n", declared)
        }
        // An empty charset or an iconv option is no charset: it was the locale's (ASCII), and
        // every other byte became U+FFFD.
        try s.put("utf8.txt", "grüße 日本\n")
        for type in ["text/plain; charset=", "text/plain; charset=\"\"", "text/plain; charset=//TRANSLIT", "text/plain; charset=utf-8//IGNORE"] {
            let (shown, status) = try runOnTerminal(["-b", s.url("utf8.txt", type: type)])
            XCTAssertEqual(status, 0, type)
            XCTAssertEqual(shown, "grüße 日本\n", type)
        }
        try s.put("empty-enc.xml", "<?xml version=\"1.0\" encoding=\"\"?><r>grüße</r>")
        XCTAssertFalse(try runSwurl(["-b", "--pretty=format", s.url("empty-enc.xml", type: "application/xml")]).text.contains("\u{FFFD}"))
        // A UTF-8 byte order mark wins over the declaration; a UTF-16 one over any label.
        try s.put("bom8.xml", Data([0xEF, 0xBB, 0xBF]) + Data("<?xml version=\"1.0\" encoding=\"windows-1252\"?><a>café</a>".utf8))
        let (bom8, bom8Status) = try runOnTerminal(["-b", "--pretty=format", s.url("bom8.xml", type: "application/xml")])
        XCTAssertEqual(bom8Status, 0, bom8)
        XCTAssertTrue(bom8.hasSuffix("<a>café</a>\n"), bom8)
        let (u16, u16Status) = try runOnTerminal(["-b", "--pretty=format", s.url("u16.xml", type: "application/xml; charset=iso-8859-1")])
        XCTAssertEqual(u16Status, 0, u16)
        XCTAssertEqual(u16, "<a>café</a>\n")
        // Binary data that starts with a UTF-16 byte order mark is still binary data.
        try s.put("bom.bin", Data([0xFF, 0xFE, 0x01, 0x02]) + Data(count: 3000))
        let (bom, _) = try runOnTerminal(["-b", s.url("bom.bin", type: "application/xml")])
        XCTAssertTrue(bom.contains("the body is not XML but binary data not shown: 3 004 bytes"), bom)
        // To a pipe: unformatted, the bytes as sent; formatted, UTF-8 with a declaration saying so;
        // a strict --decode xml judges the converted document.
        let raw = try runSwurl(["-b", s.url("l1.xml", type: "text/xml; charset=iso-8859-1")])
        XCTAssertEqual(raw.stdout, Data([0x3C, 0x61, 0x3E, 0x63, 0x61, 0x66, 0xE9, 0x3C, 0x2F, 0x61, 0x3E]))
        try s.put("decl.xml", Data([0xFE, 0xFF]) + (try XCTUnwrap("<?xml version=\"1.0\" encoding=\"UTF-16\"?><a>é</a>".data(using: .utf16BigEndian))))
        let formatted = try runSwurl(["-b", "--pretty=format", s.url("decl.xml", type: "application/xml")])
        XCTAssertEqual(formatted.text, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<a>é</a>\n")
        XCTAssertEqual(try runSwurl(["--decode", "xml", s.url("decl.xml", type: "application/xml")]).status, 0)
        let strict = try runSwurl(["--decode", "xml", s.url("ctl.xml", type: "application/xml")])
        XCTAssertEqual(strict.status, 8, strict.stderr)
        XCTAssertTrue(strict.stderr.contains("a control character XML does not allow (0x0) at byte 3"), strict.stderr)
        // Without a charset (or under a UTF-8 label) Latin-1 bytes are no UTF-8: not well-formed
        // (it was formatted, and passed --decode xml), as an XML parser says.
        for type in ["application/xml", "application/xml; charset=utf-8"] {
            let latin = try runSwurl(["--decode", "xml", s.url("l1.xml", type: type)])
            XCTAssertEqual(latin.status, 8, latin.stderr)
            XCTAssertTrue(latin.stderr.contains("the body is not well-formed XML (a byte that is not UTF-8 (0xE9) at byte 6)"), latin.stderr)
            XCTAssertEqual(latin.stdout, Data([0x3C, 0x61, 0x3E, 0x63, 0x61, 0x66, 0xE9, 0x3C, 0x2F, 0x61, 0x3E]))
        }
    }

    func testTerminalShowsDecodedBodiesSafely() throws {
        let s = try server()
        try s.put("esc.txt", "hi \u{1B}]0;pwned\u{07}\u{1B}[2J there\n")
        let (text, status) = try runOnTerminal(["-b", s.url("esc.txt", type: "text/plain")])
        XCTAssertEqual(status, 0)
        XCTAssertEqual(text, "hi \\x1b]0;pwned\\x07\\x1b[2J there\n")

        try s.put("latin1.txt", Data([0x63, 0x61, 0x66, 0xE9, 0x0A]))
        XCTAssertEqual(try runOnTerminal(["-b", s.url("latin1.txt", type: "text/plain; charset=ISO-8859-1")]).0, "café\n")

        let (png, _) = try runOnTerminal(["-b", try HTTPBin.url("/image/png")])
        XCTAssertTrue(png.contains("[swurl: PNG image, 100×100, 8-bit RGB, 1 frame, 8 090 bytes; use -o FILE or a pipe to save it]"), png)

        // A stream (-S) whose first chunk is 4 bytes of a PNG: summed up as the image, not shown
        // as escaped text (its kind was chosen on those 4 bytes, which hold no NUL).
        let small = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D] + Array("IHDR".utf8)
                         + [0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1F, 0x15, 0xC4, 0x89])
        try s.put("chunked.png", small)
        let (streamed, _) = try runOnTerminal(["-b", "-S", s.url("chunked.png", type: "image/png", chunk: 4)])
        XCTAssertTrue(streamed.contains("[swurl: PNG image, 1×1"), streamed)
        XCTAssertFalse(streamed.contains("\\x89PNG"), streamed)

        let (bin, _) = try runOnTerminal(["-b", try HTTPBin.url("/bytes/300?seed=1")])
        XCTAssertTrue(bin.contains("[swurl: binary data not shown: 300 bytes of application/octet-stream; use -o FILE or a pipe to save it]"), bin)
        XCTAssertEqual(bin.filter { $0 == "\n" }.count, 1, bin)

        let (xml, _) = try runOnTerminal(["-b", "--pretty=format", try HTTPBin.url("/xml")])
        XCTAssertTrue(xml.contains("<slideshow title=\"Sample Slide Show\" date=\"Date of publication\" author=\"Yours Truly\">\n  <!-- TITLE SLIDE -->\n  <slide type=\"all\">\n    <title>Wake up to WonderWidgets!</title>"), xml)

        let (headers, _) = try runOnTerminal(["-h", "--pretty=none", s.url("esc.txt", headers: ["X-Evil: a\u{1B}[31mb\u{07}c"])])
        XCTAssertTrue(headers.contains("X-Evil: a\\x1b[31mb\\x07c"), headers)
    }

    func testATruncatedBodyIsStillShown() throws {
        let s = try server()
        try s.put("cut.json", #"{"first": [1, 2, 3], "second": "never arrives"}"#)
        let (text, status) = try runOnTerminal(["-b", s.url("cut.json", type: "application/json", truncate: 20)])
        XCTAssertEqual(status, 1, text)
        XCTAssertTrue(text.contains(#"{"first": [1, 2, 3],"#), text)
        // The transfer's error says what happened; no note blames the server's document.
        XCTAssertTrue(text.contains("bytes remaining to read"), text)
        XCTAssertFalse(text.contains("not valid JSON"), text)
    }

    func testPlistOverTheWireAsXMLAndJSON() throws {
        let s = try server()
        let b64 = try runPython("import plistlib,base64,sys; sys.stdout.write(base64.b64encode(plistlib.dumps({'a':[1,True],'d':b'hi'}, fmt=plistlib.FMT_BINARY)).decode())")
        try s.put("p.bplist", try XCTUnwrap(Data(base64Encoded: b64)))
        let (xml, status) = try runOnTerminal(["-b", "--pretty=format", s.url("p.bplist", type: "application/octet-stream")])
        XCTAssertEqual(status, 0)
        XCTAssertTrue(xml.contains("<plist version=\"1.0\">\n  <dict>\n    <key>a</key>\n    <array>\n      <integer>1</integer>\n      <true/>\n    </array>"), xml)
        let r = try runSwurl(["--pretty=format", "--plist-as", "json", s.url("p.bplist")])
        XCTAssertEqual(try JSONParser.parse(Array(r.stdout)), try JSONParser.parse(#"{"a":[1,true],"d":"aGk="}"#))
    }

    /// Regression: an XML property list rebuilt for the terminal decoded `&#x202e;` and wrote the
    /// override raw (`user&#x202e;gpj.exe` read as `userexe.jpg`); a C1 control came out as
    /// `\u{9b}`, not XML. Both stay references, as the server escaped them.
    func testPlistKeepsBidiAndC1ControlsAsReferences() throws {
        let s = try server()
        try s.put("bidi.plist", #"<?xml version="1.0"?><plist version="1.0"><dict><key>k&#x61c;</key><string>user&#x202e;gpj.exe &#x9b;</string></dict></plist>"#)
        let (data, status) = try runOnTerminalBytes(["-b", "--pretty=format", s.url("bidi.plist", type: "application/x-plist")])
        let text = String(decoding: data, as: UTF8.self)
        XCTAssertEqual(status, 0, text)
        XCTAssertTrue(text.contains("<string>user&#x202E;gpj.exe &#x9B;</string>"), text)
        XCTAssertTrue(text.contains("<key>k&#x61C;</key>"), text)
        XCTAssertFalse(text.unicodeScalars.contains { $0 == "\u{202E}" || $0 == "\u{061C}" }, text)
    }

    /// Each decoded value takes some 200 bytes: a plist of more than a million values is not
    /// decoded however small (a 4 MB file of references to one shared array took 3.3 GB), and
    /// under a memory limit the whole-document bounds shrink (`--sort-keys` ended in exit 134).
    func testDecodedDocumentsStayWithinMemoryBounds() throws {
        let s = try server()
        let b64 = try runPython("""
        import plistlib, base64, sys
        inner = [True, True, True]
        sys.stdout.write(base64.b64encode(plistlib.dumps([inner] * 300000, fmt=plistlib.FMT_BINARY)).decode())
        """)
        try s.put("shared.plist", try XCTUnwrap(Data(base64Encoded: b64)))
        let strict = try runSwurl(["--decode", "plist", "--plist-as", "json", s.url("shared.plist", type: "application/x-plist")])
        XCTAssertEqual(strict.status, 8, strict.stderr)
        XCTAssertTrue(strict.stderr.contains("more than 1000000 values"), strict.stderr)
        // 4 MB of JSON sorts without a limit; under `ulimit -v 400000` it is shown as sent.
        let rows = (0..<60_000).map { "{\"b\":\($0),\"a\":null,\"c\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}" }
        try s.put("rows.json", "[" + rows.joined(separator: ",") + "]")
        let url = s.url("rows.json", type: "application/json")
        let sorted = try runSwurl(["--pretty=format", "--sort-keys", url])
        XCTAssertEqual(sorted.status, 0, sorted.stderr)
        XCTAssertFalse(sorted.stderr.contains("too large"), sorted.stderr)
        let limited = try runProcess("/bin/sh", ["-c", "ulimit -v 400000; exec \"$0\" --pretty=format --sort-keys \"$1\" > /dev/null", TestPaths.binary, url], check: false)
        XCTAssertEqual(limited.status, 0, limited.stderr)
        XCTAssertTrue(limited.stderr.contains("the body is too large for --sort-keys/--drop-nulls; shown as sent"), limited.stderr)
    }

    /// Regression: the image summary kept 64 MiB of the body whatever the memory limit (and on a
    /// pipe, where only the type is checked): a 40 MB image under `ulimit -d 100000` ended in an
    /// allocation failure, exit 134. Its bound shrinks with the limit now, as the others do.
    func testALargeImageUnderAMemoryLimitIsChecked() throws {
        let s = try server()
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52,
                            0, 0, 0, 64, 0, 0, 0, 32, 8, 6, 0, 0, 0, 0, 0, 0, 0]
        try s.put("big.png", Data(png) + Data(count: 40 << 20))
        let url = s.url("big.png", type: "image/png")
        let limited = try runProcess("/bin/sh", ["-c", "ulimit -d 100000; exec \"$0\" --decode image \"$1\" > /dev/null", TestPaths.binary, url], check: false)
        XCTAssertEqual(limited.status, 0, limited.stderr)
        XCTAssertFalse(limited.stderr.contains("Fatal error"), limited.stderr)
    }

    /// An XML property list in UTF-16 (as Python's plistlib writes one re-encoded, with its byte
    /// order mark) is read as the XML decoder reads UTF-16; it was "text outside the root element".
    func testAUTF16XMLPropertyListIsDecoded() throws {
        let s = try server()
        let text = "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<plist version=\"1.0\"><dict><key>a</key><string>caf\u{E9}</string></dict></plist>\n"
        for encoding in [String.Encoding.utf16LittleEndian, .utf16BigEndian] {
            let bom: [UInt8] = encoding == .utf16LittleEndian ? [0xFF, 0xFE] : [0xFE, 0xFF]
            try s.put("u16.plist", Data(bom) + (text.data(using: encoding) ?? Data()))
            let r = try runSwurl(["--pretty=format", "--decode", "plist", "--plist-as", "json", s.url("u16.plist", type: "application/x-plist")])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(r.text.filter { !$0.isWhitespace }, "{\"a\":\"caf\u{E9}\"}", r.text)
        }
    }

    /// Regression: a few hundred bytes of binary plist whose 61 nested arrays each hold the next
    /// one twice expanded to 2^61 objects and hung swurl (auto-decoded by Content-Type).
    func testSharedReferencePlistBombIsNotDecoded() throws {
        let s = try server()
        let b64 = try runPython("""
        import plistlib, base64, sys
        a = False
        for _ in range(61): a = [a, a]
        sys.stdout.write(base64.b64encode(plistlib.dumps(a, fmt=plistlib.FMT_BINARY)).decode())
        """)
        let bomb = try XCTUnwrap(Data(base64Encoded: b64))
        XCTAssertLessThan(bomb.count, 400)
        try s.put("bomb.plist", bomb)
        let url = s.url("bomb.plist", type: "application/x-plist")
        let auto = try runSwurl(["--pretty=format", url])
        XCTAssertEqual(auto.status, 0, auto.stderr)
        XCTAssertEqual(auto.stdout.prefix(bomb.count), bomb)   // shown as sent (plus a final newline)
        let strict = try runSwurl(["--decode", "plist", "--plist-as", "json", url])
        XCTAssertEqual(strict.status, 8, strict.stderr)
        XCTAssertTrue(strict.stderr.contains("more than 10000 values (the budget for \(bomb.count) input bytes); refusing"), strict.stderr)
        let (terminal, status) = try runOnTerminal(["-b", url])
        XCTAssertEqual(status, 0, terminal)
    }

    /// Regression: C1 controls (U+009B is CSI) and DEL inside valid JSON strings reached the terminal raw.
    func testTerminalEscapesC1ControlsInJSONStrings() throws {
        let s = try server()
        try s.put("c1.json", Data([0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xC2, 0x9B, 0x33, 0x31, 0x6D, 0x7F, 0x22, 0x7D]))
        let url = s.url("c1.json", type: "application/json")
        for extra in [[], ["--sort-keys"], ["--drop-nulls"]] {
            let (text, status) = try runOnTerminal(["-b"] + extra + [url], environment: ["TERM": "xterm", "NO_COLOR": "1"])
            XCTAssertEqual(status, 0, text)
            XCTAssertEqual(text, "{\n    \"a\": \"\\u009b31m\\u007f\"\n}\n", "\(extra)")
        }
        // Piped: byte for byte.
        XCTAssertEqual(try runSwurl(["-b", url]).stdout, Data([0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xC2, 0x9B, 0x33, 0x31, 0x6D, 0x7F, 0x22, 0x7D]))
    }

    func testColoursFollowStyleAndEnvironment() throws {
        let url = try HTTPBin.url("/json")
        let (basic, _) = try runOnTerminal(["-b", url], environment: ["TERM": "xterm"])
        XCTAssertTrue(basic.contains("\u{1B}[34;1m\"slideshow\""), basic)
        let (truecolor, _) = try runOnTerminal(["-b", url], environment: ["TERM": "xterm", "COLORTERM": "truecolor"])
        XCTAssertTrue(truecolor.contains("\u{1B}[38;2;"), truecolor)
        let (c256, _) = try runOnTerminal(["-b", "--style", "light", url], environment: ["TERM": "xterm-256color"])
        XCTAssertTrue(c256.contains("\u{1B}[38;5;"), c256)
        let (none, _) = try runOnTerminal(["-b", url], environment: ["TERM": "xterm", "NO_COLOR": "1"])
        XCTAssertFalse(none.contains("\u{1B}["), none)
        let (asked, _) = try runOnTerminal(["-b", "--pretty=all", url], environment: ["TERM": "xterm", "NO_COLOR": "1"])
        XCTAssertTrue(asked.contains("\u{1B}[34;1m\"slideshow\""), asked)
        let (dumb, _) = try runOnTerminal(["-b", url], environment: ["TERM": "dumb"])
        XCTAssertFalse(dumb.contains("\u{1B}["), dumb)
    }
}
