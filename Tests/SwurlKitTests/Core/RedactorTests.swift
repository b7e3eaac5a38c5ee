import XCTest
@testable import SwurlCore

final class RedactorTests: XCTestCase {
    /// Every form of a URL password is masked; what is not a password is left alone.
    func testURLPasswordsAreMaskedInEveryForm() {
        let table: [(String, String)] = [
            ("http://ann:S3CRET@host/x", "http://ann:****@host/x"),
            ("HTTPS://ann:S3CRET@host:8443/x?q=1", "HTTPS://ann:****@host:8443/x?q=1"),
            ("//ann:S3CRET@host:8080/x", "//ann:****@host:8080/x"),
            ("ann:S3CRET@host:8080/x", "ann:****@host:8080/x"),
            ("ftp://ann:S3CRET@proxy.example:21", "ftp://ann:****@proxy.example:21"),
            ("socks5h://ann:p@ss:w@rd@proxy:1080", "socks5h://ann:****@proxy:1080"),
            ("http://ann@host/x", "http://ann@host/x"),
            ("http://host/x?mail=a:b@c", "http://host/x?mail=a:b@c"),
            ("http://host/a:b@c", "http://host/a:b@c"),
            ("localhost:8080/x", "localhost:8080/x"),
            ("", ""),
        ]
        for (input, shown) in table {
            XCTAssertEqual(Redactor.url(input), shown, input)
            XCTAssertEqual(Redactor.hasURLPassword(input), input != shown, input)
        }
        // The files a run writes mask a user name given alone (a token) too; only a userinfo.
        for (input, shown) in [("https://ghp_T0KEN@host/x", "https://****@host/x"), ("http://ann:pw@host/", "http://ann:****@host/"),
                               ("//T@h:1/", "//****@h:1/"), ("http://@host/", "http://@host/"), ("http://host/a@b", "http://host/a@b"),
                               ("http://host/?to=a@b", "http://host/?to=a@b"), ("http://host/x", "http://host/x"),
                               // An empty password: libcurl sends the same Basic credentials as for the name alone.
                               ("http://sk_live_T:@host/", "http://****@host/"), ("T:@h:1/", "****@h:1/"), ("http://:@host/", "http://****@host/")] {
            XCTAssertEqual(Redactor.url(input, userAlone: true), shown, input)
        }
    }

    /// A credential item's value is masked whatever follows its name; a longer name is no
    /// credential; a URL word that is such an item is masked too.
    func testCredentialItemsAreMaskedInEveryForm() {
        for (given, shown) in [("Authorization:Bearer T", "Authorization:****"), ("authorization;x", "authorization;****"),
                               ("Cookie\\:x:T", "Cookie\\****"), ("Proxy-Authorization:@tok.txt", "Proxy-Authorization:****"),
                               ("Authorization\tBearer T", "Authorization\t****"), ("cookies=1", "cookies=1"),
                               ("Authorization", "Authorization"), ("X-Token:T", "X-Token:T")] {
            XCTAssertEqual(Redactor.item(given), shown, given)
        }
        XCTAssertEqual(Redactor.givenURL("http://Authorization:Bearer T"), "http://Authorization:****")
        XCTAssertEqual(Redactor.givenURL("http://example.org/x"), "http://example.org/x")
        // A user name alone is a token (it was shown in "invalid URL" messages and batch results).
        XCTAssertEqual(Redactor.givenURL("http://TOKEN9@[::1/x"), "http://****@[::1/x")
        XCTAssertEqual(Redactor.givenURL("http://TOKEN9:@[::1/x"), "http://****@[::1/x")
        XCTAssertEqual(Redactor.givenURL("http://example.org/?to=a@b"), "http://example.org/?to=a@b")
        // A value holding a URL is masked whole; hosts that share a credential header's name are not.
        XCTAssertEqual(Redactor.givenURL("Cookie:next=https://example.com/;%20sid=S"), "Cookie:****")
        XCTAssertEqual(Redactor.givenURL("http://Authorization:Bearer S https://x"), "http://Authorization:****")
        XCTAssertEqual(Redactor.givenURL("Authorization:123456789"), "Authorization:****")
        XCTAssertEqual(Redactor.givenURL("cookie:99999/"), "cookie:****")
        for url in ["http://cookie:8080/x", "http://cookie:8080", "http://authorization.example.com:abc/x", "ftp://cookie.example.com/f",
                    "authorization.example.com/x"] {
            XCTAssertEqual(Redactor.givenURL(url), url, url)
        }
    }

    func testCredentialsKeepTheUserNameOnly() {
        XCTAssertEqual(Redactor.credentials("ann:S3CRET"), "ann:****")
        XCTAssertEqual(Redactor.credentials("SECRETTOKEN123"), "****")
        XCTAssertEqual(Redactor.credentials("ann", whole: false), "ann")
        // An empty password (`-a sk_live_T:`, curl's API-key habit) leaves a token: masked whole.
        XCTAssertEqual(Redactor.credentials("sk_live_T:", whole: false), "****")
        XCTAssertEqual(Redactor.header(name: "Proxy-Authorization", value: "Basic x"), "Proxy-Authorization: ****")
        XCTAssertEqual(Redactor.header(name: "X-Token", value: "abc"), "X-Token: abc")
        XCTAssertTrue(Redactor.isCredentialHeader("COOKIE"))
    }

    /// A HAR masks a secret field a server sent with white space before its colon
    /// (`Set-Cookie : …`), which libcurl keeps in the name.
    func testARecordedSecretNameWithTrailingWhiteSpaceIsStillSecret() {
        XCTAssertTrue(Redactor.isRecordedSecretHeader("Set-Cookie "))
        XCTAssertTrue(Redactor.isRecordedSecretHeader("authorization\t "))
        XCTAssertTrue(Redactor.isRecordedSecretHeader("Cookie"))
        XCTAssertFalse(Redactor.isRecordedSecretHeader("Set-Cookies "))
        XCTAssertFalse(Redactor.isRecordedSecretHeader(" "))
        "Content-Location  ".withUTF8Bytes { XCTAssertTrue(Redactor.isURLHeader(bytes: $0)) }
        "Location\t".withUTF8Bytes { XCTAssertTrue(Redactor.isURLHeader(bytes: $0)) }
    }
}
