import XCTest
import SwurlTestSupport
@testable import SwurlCLI
@testable import SwurlOutput
@testable import SwurlResponseSerialization
@testable import SwurlCore

final class RequestItemParserTests: XCTestCase {
    private var dir = ""

    override func setUp() {
        dir = TestPaths.temporaryDirectory()
        FileManager.default.createFile(atPath: dir + "/text.txt", contents: Data("hello\n".utf8))
        FileManager.default.createFile(atPath: dir + "/doc.json", contents: Data("{\"k\": [1, 2.50]}".utf8))
    }

    private func parse(_ raw: String) throws -> RequestItem.Kind {
        try RequestItemParser(environment: TestEnvironment(directory: dir).environment).parse(raw).kind
    }

    func testEachSeparator() throws {
        XCTAssertEqual(try parse("X-Trace:1"), .header(name: "X-Trace", value: "1"))
        XCTAssertEqual(try parse("Accept:"), .removeHeader(name: "Accept"))
        XCTAssertEqual(try parse("X-Empty;"), .emptyHeader(name: "X-Empty"))
        XCTAssertEqual(try parse("q==a b"), .query(name: "q", value: "a b"))
        XCTAssertEqual(try parse("name=Ann"), .field(key: "name", value: .string("Ann")))
        XCTAssertEqual(try parse("age:=30"), .field(key: "age", value: .number("30")))
        XCTAssertEqual(try parse("f@text.txt"), .file(key: "f", path: "text.txt", mimeType: nil, filename: nil))
    }

    func testFileForms() throws {
        XCTAssertEqual(try parse("t=@text.txt"), .field(key: "t", value: .string("hello\n")))
        XCTAssertEqual(try parse("j:=@doc.json"),
                       .field(key: "j", value: .object([.init("k", .array([.number("1"), .number("2.50")]))])))
        XCTAssertEqual(try parse("q==@text.txt"), .query(name: "q", value: "hello"))
        XCTAssertEqual(try parse("X-H:@text.txt"), .header(name: "X-H", value: "hello"))
        XCTAssertEqual(try parse("f@text.txt;type=text/x-a;filename=b.txt"),
                       .file(key: "f", path: "text.txt", mimeType: "text/x-a", filename: "b.txt"))
        // The whole body takes ;type= (its Content-Type); a ;filename= went nowhere, unsaid.
        XCTAssertEqual(try parse("@text.txt;type=text/x-a"), .file(key: "", path: "text.txt", mimeType: "text/x-a", filename: nil))
        XCTAssertThrowsError(try parse("@text.txt;filename=z")) { error in
            XCTAssertTrue((error as? SwurlError)?.message.contains(";filename= names a multipart part's file") == true, "\(error)")
        }
    }

    func testTheEarliestSeparatorWinsAndValuesKeepLaterOnes() throws {
        XCTAssertEqual(try parse("url=http://x/?a=b"), .field(key: "url", value: .string("http://x/?a=b")))
        XCTAssertEqual(try parse("X-A:b=c"), .header(name: "X-A", value: "b=c"))
    }

    func testBackslashEscapesSeparators() throws {
        XCTAssertEqual(try parse("a\\:b=c"), .field(key: "a:b", value: .string("c")))
        XCTAssertEqual(try parse("a\\=b==c"), .query(name: "a=b", value: "c"))
        XCTAssertEqual(try parse("k=v\\=w"), .field(key: "k", value: .string("v=w")))
        // Brackets stay escaped for the nested-key parser.
        XCTAssertEqual(try parse("a\\[b]=c"), .field(key: "a\\[b]", value: .string("c")))
    }

    func testErrorsHaveTheRightKind() {
        func status(_ raw: String) -> ExitStatus? {
            do { _ = try parse(raw); return nil } catch { return ExitStatus(for: error as! SwurlError) }
        }
        XCTAssertEqual(status("a:=[1,"), .badData)
        XCTAssertEqual(status("a=@missing"), .inputFile)
        XCTAssertEqual(status("f@missing"), .inputFile)
        XCTAssertEqual(status("f@."), .inputFile)
        XCTAssertEqual(status(":value"), .usage)
        XCTAssertEqual(status("bad name:v"), .usage)
        XCTAssertEqual(status("noseparator"), .usage)
    }

    /// A header name is ASCII token bytes: U+212A (KELVIN SIGN) and U+1FEF passed as `K` and
    /// '`' (a Set of Characters matches by canonical equivalence); libcurl sent their bytes.
    func testHeaderNamesLookAlikesAreRefusedByScalar() {
        for (raw, shown) in [("X-\u{212A}:1", "U+212A"), ("Coo\u{212A}ie:a=1", "U+212A"), ("X\u{1FEF}:1", "U+1FEF"), ("X-\u{17F}:1", "U+017F")] {
            XCTAssertThrowsError(try parse(raw), raw) { error in
                XCTAssertTrue((error as? SwurlError)?.message.contains("(\(shown)), which a header name cannot hold") ?? false, "\(error)")
            }
        }
        XCTAssertNoThrow(try parse("X-K`:1"))
    }

    /// Regression: a credential header's name mistyped was refused with the whole item quoted,
    /// its value too (a batch line's error goes to stdout, --jsonl and the reports).
    func testAMistypedCredentialNameIsQuotedWithoutItsValue() {
        for raw in ["Proxy\\-Authorization:Basic c2VjcmV0", " Authorization:Bearer s3cret", "Coo\u{212A}ie:sid=s3cret",
                    "Authorization Bearer s3cret:en", "Autho rization:s3cret"] {
            XCTAssertThrowsError(try parse(raw), raw) { error in
                let message = (error as? SwurlError)?.message ?? ""
                XCTAssertFalse(message.contains("c2VjcmV0") || message.contains("s3cret"), message)
                XCTAssertTrue(message.contains("****'"), message)
            }
        }
        XCTAssertEqual(Redactor.mistypedCredential("Proxy\\-Authorization:Basic x"), "Proxy\\-Authorization****")
        XCTAssertNil(Redactor.mistypedCredential("X Token:abc"))
    }

    func testInvalidJSONNamesLineAndColumn() {
        XCTAssertThrowsError(try parse("a:={\"x\":\n tru}")) { error in
            XCTAssertTrue((error as? SwurlError)?.message.contains("line 2, column 2") ?? false, "\(error)")
        }
    }

    /// A word that starts no JSON value after `:=` was meant as text: the hint says `=`, not to quote it.
    func testInvalidJSONHintFitsTheValue() {
        func hint(_ raw: String) -> String? {
            do { _ = try parse(raw); return nil } catch { return (error as? SwurlError)?.hint }
        }
        XCTAssertEqual(hint("email:=ann@example.org")?.hasPrefix("a text value is the item email=VALUE"), true)
        XCTAssertEqual(hint("a:=foo")?.hasPrefix("a text value is the item a=VALUE"), true)
        XCTAssertEqual(hint("a:=[1,")?.hasPrefix("quote the value for the shell"), true)
        XCTAssertEqual(hint("a:=tru")?.hasPrefix("quote the value for the shell"), true)
        XCTAssertEqual(hint("a:= [1, 2")?.hasPrefix("quote the value for the shell"), true, "JSON's blanks before the value")
        XCTAssertEqual(hint("a:={b:1}")?.hasPrefix("quote the value for the shell"), true, "the quotes the shell ate")
        // The JSON's own faults, which quoting would not mend, get no shell hint.
        for item in [#"a:={"b":1,}"#, "a:=[1,]", "a:=01", #"a:="\ud800x"#] {
            XCTAssertThrowsError(try parse(item), item) { error in XCTAssertNil((error as? SwurlError)?.hint, item) }
        }
    }

    func testCRLFFilesAndCombiningMarksAfterSeparators() throws {
        FileManager.default.createFile(atPath: dir + "/crlf.txt", contents: Data("v1 \r\n\r\n".utf8))
        XCTAssertEqual(try parse("X-H:@crlf.txt"), .header(name: "X-H", value: "v1"))
        XCTAssertEqual(try parse("q==@crlf.txt"), .query(name: "q", value: "v1 "))
        // '=' or ':' followed by a combining mark is one Character; the separator must still count.
        XCTAssertEqual(try parse("name=\u{301}x"), .field(key: "name", value: .string("\u{301}x")))
        XCTAssertEqual(try parse("X-A:\u{301}v"), .header(name: "X-A", value: "\u{301}v"))
        XCTAssertEqual(try parse("X-A:v \u{301}"), .header(name: "X-A", value: "v \u{301}"))
        XCTAssertEqual(try parse("a\\=\u{301}b=c"), .field(key: "a=\u{301}b", value: .string("c")))
    }
}
