import XCTest
@testable import SwurlEngine
@testable import SwurlCore

final class NetrcTests: XCTestCase {
    func testMachineEntriesOnOneOrManyLines() {
        let n = Netrc(parsing: """
        machine a.example login ann password s1
        machine B.example
            login bob
            password "two words"
        """)
        XCTAssertEqual(n.credentials(forHost: "a.example", allowDefault: false), Credentials(user: "ann", password: "s1"))
        XCTAssertEqual(n.credentials(forHost: "b.example", allowDefault: false), Credentials(user: "bob", password: "two words"))
        XCTAssertNil(n.credentials(forHost: "c.example", allowDefault: false))
    }

    /// As curl 7.88 reads them: `\n`, `\r`, `\t` in a quoted word are the control characters
    /// (they were the letters), another escaped byte is itself; and an entry with a password but
    /// no login sends an empty user name (it was ignored, and `--curl`'s command sent it).
    func testQuotedEscapesAndAPasswordWithoutALogin() {
        let n = Netrc(parsing: #"machine a login u password "a\tb\nc\"d\\e"\#nmachine b password onlypw\#nmachine c\#n"#)
        XCTAssertEqual(n.credentials(forHost: "a", allowDefault: false), Credentials(user: "u", password: "a\tb\nc\"d\\e"))
        XCTAssertEqual(n.credentials(forHost: "b", allowDefault: false), Credentials(user: "", password: "onlypw"))
        XCTAssertNil(n.credentials(forHost: "b", allowDefault: false, user: "ann"), "a URL's user picks an entry with that login")
        XCTAssertNil(n.credentials(forHost: "c", allowDefault: false))
        // One without a login does not hide a later one with a login for the machine (curl's u:q).
        let both = Netrc(parsing: "machine m password pw\nmachine m login u password q\n")
        XCTAssertEqual(both.credentials(forHost: "m", allowDefault: false), Credentials(user: "u", password: "q"))
        let loginFirst = Netrc(parsing: "machine m login u\nmachine m login v password q\n")
        XCTAssertEqual(loginFirst.credentials(forHost: "m", allowDefault: false), Credentials(user: "v", password: "q"))
    }

    func testDefaultEntryOnlyWhenAllowed() {
        let n = Netrc(parsing: "machine a login x password y\ndefault login any password all\n")
        XCTAssertEqual(n.credentials(forHost: "other", allowDefault: true), Credentials(user: "any", password: "all"))
        XCTAssertNil(n.credentials(forHost: "other", allowDefault: false))
    }

    func testMacdefBodiesAndCommentsAreSkipped() {
        let n = Netrc(parsing: """
        # a comment machine evil login e password e
        macdef init
        machine fake login f password f

        machine real login r password p
        """)
        XCTAssertNil(n.credentials(forHost: "fake", allowDefault: false))
        XCTAssertNil(n.credentials(forHost: "evil", allowDefault: false))
        XCTAssertEqual(n.credentials(forHost: "real", allowDefault: false), Credentials(user: "r", password: "p"))
    }

    /// `macdef` as a login or password is that value (curl sends it), not the start of a
    /// macro: the parser took the macro's end marker for the password (a NUL byte, exit 64).
    func testMacdefAsAValueIsAValue() {
        let n = Netrc(parsing: "machine localhost login macdef password l\nmachine other login o password macdef\nmachine third login t password p\n")
        XCTAssertEqual(n.credentials(forHost: "localhost", allowDefault: false), Credentials(user: "macdef", password: "l"))
        XCTAssertEqual(n.credentials(forHost: "other", allowDefault: false), Credentials(user: "o", password: "macdef"))
        XCTAssertEqual(n.credentials(forHost: "third", allowDefault: false), Credentials(user: "t", password: "p"))
        let quoted = Netrc(parsing: "machine a login \"macdef\" password x\nmachine b login b password y\n")
        XCTAssertEqual(quoted.credentials(forHost: "b", allowDefault: false), Credentials(user: "b", password: "y"))
    }

    func testCRLFLineEndings() {
        // "\r\n" is one Character in Swift; a Character-wise tokenizer never split these lines.
        let n = Netrc(parsing: "machine example.com\r\nlogin user\r\npassword pw\r\n")
        XCTAssertEqual(n.credentials(forHost: "example.com", allowDefault: false), Credentials(user: "user", password: "pw"))

        let m = Netrc(parsing: "# comment\r\nmacdef init\r\nmachine fake login f password f\r\n\r\n"
                              + "machine real login r password \"p w\"\r\ndefault login d password e\r\n")
        XCTAssertNil(m.credentials(forHost: "fake", allowDefault: false))
        XCTAssertEqual(m.credentials(forHost: "real", allowDefault: false), Credentials(user: "r", password: "p w"))
        XCTAssertEqual(m.credentials(forHost: "other", allowDefault: true), Credentials(user: "d", password: "e"))
    }

    func testACombiningMarkDoesNotSwallowTheSeparatorBeforeIt() {
        // A space or quote followed by a combining mark is one Character, but still a separator.
        let n = Netrc(parsing: "machine a login \"x\"\u{301} password y")
        XCTAssertEqual(n.credentials(forHost: "a", allowDefault: false), Credentials(user: "x", password: "y"))
    }

    func testAnIPv6MachineMatchesTheURLHostInBrackets() {
        for machine in ["::1", "[::1]"] {
            let n = Netrc(parsing: "machine \(machine) login six password p6\n")
            XCTAssertEqual(n.credentials(forHost: "[::1]", allowDefault: false), Credentials(user: "six", password: "p6"), machine)
        }
    }

    func testAURLUserPicksTheEntryWithThatLogin() {
        let n = Netrc(parsing: "machine a login x password one\nmachine a login y password two\ndefault login d password dp\n")
        XCTAssertEqual(n.credentials(forHost: "a", allowDefault: true, user: "y"), Credentials(user: "y", password: "two"))
        XCTAssertEqual(n.credentials(forHost: "a", allowDefault: true), Credentials(user: "x", password: "one"))
        XCTAssertNil(n.credentials(forHost: "a", allowDefault: true, user: "z"))
        XCTAssertEqual(n.credentials(forHost: "b", allowDefault: true, user: "d"), Credentials(user: "d", password: "dp"))
        XCTAssertNil(n.credentials(forHost: "b", allowDefault: false, user: "d"))
    }

    func testBase64() {
        XCTAssertEqual(Base64.encode(Array("u:p".utf8)), "dTpw")
        XCTAssertEqual(Base64.encode(Array("second:two".utf8)), "c2Vjb25kOnR3bw==")
        XCTAssertEqual(Base64.encode(Array("ab".utf8)), "YWI=")
        XCTAssertEqual(Base64.encode([]), "")
    }
}
