import XCTest
import Foundation
import SwurlTestSupport

/// `--har FILE` (with `--har-bodies`, `--har-secrets`) through every door: one-shot requests,
/// `-d`, `batch` and `repl`, against httpbin on 127.0.0.1. Every file is checked by
/// `Tests/Servers/har_check.py`: valid against `Tests/Fixtures/har-1.2.schema.json` (written from
/// the HAR 1.2 spec), loaded by haralyzer, and each entry's timings adding up to its time.
final class HARTests: XCTestCase {
    private var dir = ""

    override func setUpWithError() throws {
        dir = TestPaths.temporaryDirectory()
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// Checks `path` with the schema and haralyzer (a failure fails the test, never skips it)
    /// and returns its entries.
    @discardableResult
    private func checkedEntries(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
        let r = try runProcess(TestPaths.venv + "/bin/python3",
                               [TestPaths.server("har_check.py"), path, TestPaths.packageRoot + "/Tests/Fixtures/har-1.2.schema.json"],
                               check: false)
        let said = String(decoding: r.stdout, as: UTF8.self) + r.stderr
        XCTAssertEqual(r.status, 0, "har_check.py: " + said, file: file, line: line)
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        let log = try XCTUnwrap(document["log"] as? [String: Any])
        XCTAssertEqual(log["version"] as? String, "1.2")
        let entries = try XCTUnwrap(log["entries"] as? [[String: Any]])
        XCTAssertTrue(said.hasPrefix("ok \(entries.count)"), said, file: file, line: line)
        return entries
    }

    private func request(_ e: [String: Any]) -> [String: Any] { e["request"] as? [String: Any] ?? [:] }
    private func response(_ e: [String: Any]) -> [String: Any] { e["response"] as? [String: Any] ?? [:] }
    private func headers(_ m: [String: Any]) -> [(String, String)] {
        (m["headers"] as? [[String: Any]] ?? []).map { ($0["name"] as? String ?? "", $0["value"] as? String ?? "") }
    }
    private func header(_ m: [String: Any], _ name: String) -> String? {
        headers(m).first { $0.0.lowercased() == name.lowercased() }?.1
    }

    // MARK: - One-shot requests

    func testEachRedirectHopIsAnEntryWithTimingsThatAddUp() throws {
        let har = dir + "/hops.har"
        let r = try runSwurl(["--follow", "--har", har, try HTTPBin.url("/redirect/2")])
        XCTAssertEqual(r.status, 0, r.stderr)
        let entries = try checkedEntries(har)
        XCTAssertEqual(entries.map { response($0)["status"] as? Int }, [302, 302, 200])
        XCTAssertEqual(entries.map { request($0)["url"] as? String },
                       [try HTTPBin.url("/redirect/2"), try HTTPBin.url("/relative-redirect/1"), try HTTPBin.url("/get")])
        // Each hop's redirectURL is where the next one went.
        for (a, b) in zip(entries, entries.dropFirst()) {
            XCTAssertEqual(response(a)["redirectURL"] as? String, request(b)["url"] as? String)
        }
        XCTAssertEqual(response(entries[2])["redirectURL"] as? String, "")
        let starts = entries.compactMap { $0["startedDateTime"] as? String }
        XCTAssertEqual(starts, starts.sorted(), "hops start one after the other")
        for e in entries {
            XCTAssertEqual(e["serverIPAddress"] as? String, "127.0.0.1")
            XCTAssertNotNil(Int(e["connection"] as? String ?? ""), "the connection's number")
            XCTAssertEqual(request(e)["httpVersion"] as? String, "HTTP/1.1")
            XCTAssertEqual(response(e)["httpVersion"] as? String, "HTTP/1.1")
            XCTAssertEqual(header(request(e), "Host"), "127.0.0.1:\(try HTTPBin.shared().port)", "the head as sent")
            let timings = try XCTUnwrap(e["timings"] as? [String: Double])
            XCTAssertEqual(timings["ssl"], -1, "plain http has no TLS")
        }
        // The body of the final response is what stdout got; its size is recorded.
        let content = try XCTUnwrap(response(entries[2])["content"] as? [String: Any])
        XCTAssertEqual(content["size"] as? Int, r.stdout.count)
        XCTAssertEqual(content["mimeType"] as? String, "application/json")
        XCTAssertNil(content["text"], "bodies only with --har-bodies")
    }

    /// The request head in the HAR is the one the server received, field by field and byte
    /// count, whether swurl rebuilt it (a plain http GET: no debug callback) or libcurl's debug
    /// callback showed it (a body, cookies, user info, a URL libcurl normalizes, a Host header).
    func testTheRecordedHeadIsWhatTheServerReceived() throws {
        let cases: [[String]] = [
            ["{URL}/plain"],
            ["{URL}/q/a?b=1&c=%20d", "e==f g"],
            ["GET", "{URL}/g", "Accept:", "X-E;", "X-A:1"],
            ["{URL}/i", "Accept-Encoding:identity", "User-Agent:agent/1"],
            ["HEAD", "{URL}/h"],
            ["DELETE", "{URL}/d", "Authorization:Bearer t"],
            ["--http1.1", "{URL}/v"],
            ["POST", "{URL}/p", "a=1"],
            ["POST", "{URL}/empty"],
            ["{URL}/a/../b/./c"],
            ["{URL}/x", "Host:example.test"],
            ["{USERINFO}/u"],
            ["--session-read-only", "{SESSION}", "{URL}/s"],
        ]
        let session = dir + "/cookies.json"
        try Data(#"{"version": 1, "cookies": [{"domain": "127.0.0.1", "includeSubdomains": false, "path": "/", "secure": false, "httpOnly": false, "expires": 0, "name": "k", "value": "v"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: session))
        for (n, args) in cases.enumerated() {
            let capture = try CaptureServer()
            let filled = args.map {
                $0.replacingOccurrences(of: "{URL}", with: capture.base)
                    .replacingOccurrences(of: "{USERINFO}", with: "http://ann:pw@127.0.0.1:\(capture.server.port)")
                    .replacingOccurrences(of: "{SESSION}", with: session)
            }
            let har = dir + "/head\(n).har"
            let r = try runSwurl(["--har", har, "--har-secrets"] + filled)
            XCTAssertEqual(r.status, 0, r.stderr)
            let received = capture.captured
            let headEnd = try XCTUnwrap(received.range(of: Data("\r\n\r\n".utf8)), "\(args)").upperBound
            let lines = String(decoding: received[..<headEnd], as: UTF8.self).components(separatedBy: "\r\n").filter { !$0.isEmpty }
            let fields = lines.dropFirst().map { line -> (String, String) in
                let colon = line.firstIndex(of: ":") ?? line.endIndex
                return (String(line[..<colon]), line[colon...].dropFirst().trimmingCharacters(in: .whitespaces))
            }
            let entry = try XCTUnwrap(try checkedEntries(har).first)
            let recorded = headers(request(entry))
            XCTAssertEqual(recorded.map { $0.0 + ": " + $0.1 }, fields.map { $0.0 + ": " + $0.1 }, "\(args)")
            XCTAssertEqual(request(entry)["headersSize"] as? Int, headEnd, "\(args)")
            XCTAssertEqual(request(entry)["httpVersion"] as? String, "HTTP/1.1", "\(args)")
            XCTAssertEqual(lines.first?.components(separatedBy: " ").first, request(entry)["method"] as? String, "\(args)")
        }
    }

    /// A response whose announced size is over --max-filesize is recorded with its head by a
    /// download as by a request (the download refused it before its file was touched, and its
    /// entry had status 0 and no headers).
    func testAResponseOverMaxFileSizeIsRecordedWithItsHeadByEveryDoor() throws {
        let url = try HTTPBin.url("/bytes/5000")
        for (name, args) in [("request", [url]), ("download", ["-d", "-o", dir + "/f", url])] {
            let har = dir + "/\(name).har"
            let r = try runSwurl(args + ["--max-filesize", "1K", "--har", har])
            XCTAssertEqual(r.status, 8, name + ": " + r.stderr)
            let entry = try XCTUnwrap(try checkedEntries(har).first, name)
            XCTAssertEqual(response(entry)["status"] as? Int, 200, name)
            XCTAssertEqual(header(response(entry), "Content-Length"), "5000", name)
            XCTAssertTrue((entry["_error"] as? String)?.contains("--max-filesize") == true, name)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/f"))
    }

    func testQueryStringIsRecordedDecoded() throws {
        let har = dir + "/q.har"
        let r = try runSwurl(["--har", har, try HTTPBin.url("/get"), "q==a b", "n==1"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let entry = try XCTUnwrap(try checkedEntries(har).first)
        let query = (request(entry)["queryString"] as? [[String: String]] ?? []).map { [$0["name"] ?? "", $0["value"] ?? ""] }
        XCTAssertEqual(query, [["q", "a b"], ["n", "1"]])
    }

    /// A HAR holds heads, URLs with their queries and, with --har-secrets, credentials: 0600,
    /// whatever the umask, also when it replaces an existing file.
    func testTheFileIsPrivate() throws {
        let har = dir + "/private.har"
        XCTAssertTrue(FileManager.default.createFile(atPath: har, contents: Data("old".utf8), attributes: [.posixPermissions: 0o644]))
        let r = try runSwurl(["--har", har, "--har-secrets", try HTTPBin.url("/get"), "Authorization:Bearer t0ken"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: har)[.posixPermissions] as? NSNumber)
        XCTAssertEqual(mode.intValue & 0o777, 0o600)
        XCTAssertTrue(try String(contentsOfFile: har, encoding: .utf8).contains("t0ken"))
    }

    func testSecretsAreMaskedByDefault() throws {
        let har = dir + "/secret.har"
        let url = try HTTPBin.url("/response-headers").replacingOccurrences(of: "http://", with: "http://ann:hunter2@")
        // A URL with a password in a response's Location and in the request's Referer is masked
        // as the entry's own URL is.
        let r = try runSwurl(["--har", har, url + "?Set-Cookie=sid%3Dsetcookiesecret%3B%20Path%3D%2F%3B%20HttpOnly"
                                + "&Location=http%3A%2F%2Fzed%3Alocsecret%40127.0.0.1%2Fok&Set-Cookie2=old%3Dsc2secret"
                                + "&Set-Cookie=baresetsecret",
                              "Cookie:jar=jarsecret; baretokensecret", "Proxy-Authorization:Basic proxysecret", "Cookie2:c2=cookietwosecret",
                              "Referer:http://rex:refsecret@127.0.0.1/from"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let text = try String(contentsOfFile: har, encoding: .utf8)
        // A cookie without `=` is a value (RFC 6265bis), masked too: it was kept as the name.
        XCTAssertEqual(text.components(separatedBy: "baresetsecret").count - 1, 2, "the url and its queryString: " + text)
        for secret in ["hunter2", "jarsecret", "baretokensecret", "proxysecret", "refsecret", "cookietwosecret", Data("ann:hunter2".utf8).base64EncodedString()] {
            XCTAssertFalse(text.contains(secret), secret)
        }
        // The Set-Cookie and Location values are in the URL's query too (httpbin echoes them): only there.
        XCTAssertEqual(text.components(separatedBy: "setcookiesecret").count - 1, 2, "the url and its queryString: " + text)
        XCTAssertEqual(text.components(separatedBy: "locsecret").count - 1, 2, "the url and its queryString: " + text)
        let entry = try XCTUnwrap(try checkedEntries(har).first)
        XCTAssertTrue((request(entry)["url"] as? String ?? "").hasPrefix("http://ann:****@127.0.0.1:"))
        XCTAssertEqual(header(request(entry), "Authorization"), "****")
        XCTAssertEqual(header(request(entry), "Cookie"), "****")
        XCTAssertEqual(header(request(entry), "Proxy-Authorization"), "****")
        XCTAssertEqual(header(response(entry), "Set-Cookie"), "****")
        XCTAssertEqual(header(response(entry), "Set-Cookie2"), "****")
        XCTAssertEqual(text.components(separatedBy: "sc2secret").count - 1, 2, "the url and its queryString: " + text)
        XCTAssertEqual(header(response(entry), "Location"), "http://zed:****@127.0.0.1/ok")
        XCTAssertEqual(header(request(entry), "Referer"), "http://rex:****@127.0.0.1/from")
        let sent = try XCTUnwrap((request(entry)["cookies"] as? [[String: Any]])?.first)
        XCTAssertEqual(sent["name"] as? String, "jar")
        XCTAssertEqual(sent["value"] as? String, "****")
        let set = try XCTUnwrap((response(entry)["cookies"] as? [[String: Any]])?.first)
        XCTAssertEqual(set["name"] as? String, "sid")
        XCTAssertEqual(set["value"] as? String, "****")
        XCTAssertEqual(set["path"] as? String, "/")
        XCTAssertEqual(set["httpOnly"] as? Bool, true)
    }

    /// A cookie's lifetime was left out (browsers' HAR files have `expires`): from Max-Age after
    /// the response (it wins over Expires), or from Expires (read as RFC 6265 reads a cookie's
    /// date); none for a session cookie.
    func testSetCookieExpiresFromMaxAgeOrExpires() throws {
        let har = dir + "/expires.har"
        let cookies = ["a=1; Max-Age=3600; Expires=Thu, 01 Jan 2037 00:00:00 GMT", "b=2; Expires=Thu, 01 Jan 2037 00:00:00 GMT",
                       "c=3", "d=4; Max-Age=0", "e=5; Max-Age=12x", "f=6; Expires=Wed, 01-Jan-2031 00:00:00 GMT",
                       "g=7; Max-Age=99999999999", "j=10; Max-Age=999999999999", "h=8; Expires=Fri, 31 Dec 9999 23:59:59 GMT", "i=9; Expires=Sat, 01 Jan 2033 10:00:00 UTC"]
        let query = cookies.map { "Set-Cookie=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "") }.joined(separator: "&")
        let r = try runSwurl(["--har", har, try HTTPBin.url("/response-headers?" + query), "-o", "/dev/null"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let entry = try XCTUnwrap(try checkedEntries(har).first)
        let set = try XCTUnwrap(response(entry)["cookies"] as? [[String: Any]])
        var byName: [String: String] = [:]
        for c in set { if let n = c["name"] as? String { byName[n] = c["expires"] as? String ?? "-" } }
        let started = try XCTUnwrap(entry["startedDateTime"] as? String)
        XCTAssertEqual(byName["b"], "2037-01-01T00:00:00.000Z")
        XCTAssertEqual(byName["c"], "-")
        XCTAssertEqual(byName["d"], "1970-01-01T00:00:00.000Z")
        XCTAssertEqual(byName["e"], "-", "a Max-Age that is no number is ignored")
        // RFC 6265's dates, as libcurl's jar reads them (these had no expires, as session cookies).
        XCTAssertEqual(byName["f"], "2031-01-01T00:00:00.000Z")
        XCTAssertEqual(byName["h"], "9999-12-31T23:59:59.000Z")
        XCTAssertEqual(byName["i"], "2033-01-01T10:00:00.000Z")
        XCTAssertTrue(byName["g"]?.hasPrefix("5") == true, byName["g"] ?? "none")
        XCTAssertEqual(byName["j"], "9999-12-31T23:59:59.000Z", "a lifetime past the year 9999 is the latest date")
        // An hour after the response: the same day's hour plus one (or the next day's first).
        let a = try XCTUnwrap(byName["a"])
        XCTAssertTrue(a.hasPrefix("20") && a > started && !a.hasPrefix("2037"), "\(a) after \(started)")
    }

    /// A token given as a URL's user name alone (`https://TOKEN@host/`) goes out as Basic
    /// credentials: the HAR file, the report and the JUnit file mask it as they mask a password.
    func testATokenGivenAsTheUserNameIsMasked() throws {
        let url = try HTTPBin.url("/get").replacingOccurrences(of: "http://", with: "http://usertok3n@")
        let har = dir + "/user.har"
        XCTAssertEqual(try runSwurl(["--har", har, url]).status, 0)
        try Data((url + "\n").utf8).write(to: URL(fileURLWithPath: dir + "/user-lines"))
        let batch = try runSwurl(["batch", dir + "/user-lines", "--har", dir + "/user-b.har", "--report", dir + "/user.html",
                                  "--junit", dir + "/user.xml", "--jsonl"])
        XCTAssertEqual(batch.status, 0, batch.stderr)
        XCTAssertFalse(batch.text.contains("usertok3n"), batch.text)
        for name in ["user.har", "user-b.har", "user.html", "user.xml"] {
            let text = try String(contentsOfFile: dir + "/" + name, encoding: .utf8)
            XCTAssertFalse(text.contains("usertok3n"), name + ": " + text)
            XCTAssertTrue(text.contains("****@127.0.0.1"), name)
        }
        let entry = try XCTUnwrap(try checkedEntries(har).first)
        XCTAssertTrue((request(entry)["url"] as? String ?? "").hasPrefix("http://****@127.0.0.1:"))
        XCTAssertEqual(header(request(entry), "Authorization"), "****")
    }

    func testHarSecretsKeepsThem() throws {
        let har = dir + "/kept.har"
        let url = try HTTPBin.url("/response-headers").replacingOccurrences(of: "http://", with: "http://ann:hunter2@")
        let r = try runSwurl(["--har", har, "--har-secrets",
                              url + "?Set-Cookie=sid%3Dsetcookiesecret&Location=http%3A%2F%2Fzed%3Alocsecret%40127.0.0.1%2Fok",
                              "Cookie:jar=cookiesecret"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let entry = try XCTUnwrap(try checkedEntries(har).first)
        XCTAssertEqual(header(response(entry), "Location"), "http://zed:locsecret@127.0.0.1/ok")
        XCTAssertTrue((request(entry)["url"] as? String ?? "").hasPrefix("http://ann:hunter2@"))
        XCTAssertEqual(header(request(entry), "Authorization"), "Basic " + Data("ann:hunter2".utf8).base64EncodedString())
        XCTAssertEqual(header(request(entry), "Cookie"), "jar=cookiesecret")
        XCTAssertEqual(header(response(entry), "Set-Cookie"), "sid=setcookiesecret")
        XCTAssertEqual((response(entry)["cookies"] as? [[String: Any]])?.first?["value"] as? String, "setcookiesecret")
    }

    func testPostDataForJSONFormMultipartAndBinaryBodies() throws {
        let upload = dir + "/blob.bin"
        let blob = Data((0..<3000).map { UInt8($0 % 256) })
        try blob.write(to: URL(fileURLWithPath: upload))
        let cases: [(name: String, args: [String])] = [
            ("json", ["name=Ann", "age:=7"]),
            ("form", ["--form", "name=Ann Lee", "tag=a&b"]),
            ("multipart", ["--multipart", "name=Ann", "file@" + upload]),
            ("binary", ["@" + upload, "Content-Type:application/octet-stream"]),
            ("chunked", ["--raw", "hello", "--chunked"]),
        ]
        var recorded: [String: [String: Any]] = [:]
        for c in cases {
            let har = dir + "/\(c.name).har"
            let r = try runSwurl(["--har", har, try HTTPBin.url("/post")] + c.args)
            XCTAssertEqual(r.status, 0, c.name + ": " + r.stderr)
            let entry = try XCTUnwrap(try checkedEntries(har).first, c.name)
            XCTAssertEqual(request(entry)["method"] as? String, "POST", c.name)
            recorded[c.name] = request(entry)
        }
        let json = try XCTUnwrap(recorded["json"]?["postData"] as? [String: Any])
        XCTAssertEqual(json["mimeType"] as? String, "application/json")
        XCTAssertEqual(json["text"] as? String, #"{"name":"Ann","age":7}"#)
        XCTAssertEqual(recorded["json"]?["bodySize"] as? Int, 22)

        let form = try XCTUnwrap(recorded["form"]?["postData"] as? [String: Any])
        XCTAssertTrue((form["mimeType"] as? String ?? "").hasPrefix("application/x-www-form-urlencoded"))
        XCTAssertEqual(form["text"] as? String, "name=Ann%20Lee&tag=a%26b")
        let params = (form["params"] as? [[String: String]] ?? []).map { [$0["name"] ?? "", $0["value"] ?? ""] }
        XCTAssertEqual(params, [["name", "Ann Lee"], ["tag", "a&b"]])

        let multipart = try XCTUnwrap(recorded["multipart"]?["postData"] as? [String: Any])
        XCTAssertTrue((multipart["mimeType"] as? String ?? "").hasPrefix("multipart/form-data; boundary="))
        XCTAssertNil(multipart["text"], "multipart bodies by size")
        let size = try XCTUnwrap(recorded["multipart"]?["bodySize"] as? Int)
        XCTAssertGreaterThan(size, blob.count)
        XCTAssertTrue((multipart["comment"] as? String ?? "").contains("multipart body of \(size) bytes"), "\(multipart)")

        let binary = try XCTUnwrap(recorded["binary"]?["postData"] as? [String: Any])
        XCTAssertEqual(binary["mimeType"] as? String, "application/octet-stream")
        XCTAssertNil(binary["text"])
        XCTAssertEqual(recorded["binary"]?["bodySize"] as? Int, blob.count)
        // The payload's size, not libcurl's count with the chunks' framing.
        XCTAssertEqual(recorded["chunked"]?["bodySize"] as? Int, 5)
        XCTAssertEqual((recorded["chunked"]?["postData"] as? [String: Any])?["text"] as? String, "hello")
    }

    /// A body from stdin has no length before it is read (sent chunked): its size is the bytes
    /// read for it, not -1.
    func testAStdinBodyIsRecordedByTheBytesSent() throws {
        let har = dir + "/stdin.har"
        let r = try runSwurl(["--har", har, "POST", try HTTPBin.url("/post")], stdin: Data("stdin body".utf8))
        XCTAssertEqual(r.status, 0, r.stderr)
        let entry = try XCTUnwrap(try checkedEntries(har).first)
        XCTAssertEqual(request(entry)["bodySize"] as? Int, 10)
        XCTAssertTrue(r.text.contains("\"data\": \"stdin body\""), r.text)
    }

    func testHarBodiesRecordsTextBodiesOnly() throws {
        let har = dir + "/bodies.har"
        let r = try runSwurl(["--har", har, "--har-bodies", try HTTPBin.url("/json")])
        XCTAssertEqual(r.status, 0, r.stderr)
        let content = try XCTUnwrap(response(try XCTUnwrap(try checkedEntries(har).first))["content"] as? [String: Any])
        XCTAssertEqual(content["text"] as? String, r.text)

        let png = dir + "/png.har"
        let image = try runSwurl(["--har", png, "--har-bodies", try HTTPBin.url("/image/png")])
        XCTAssertEqual(image.status, 0, image.stderr)
        let imageContent = try XCTUnwrap(response(try XCTUnwrap(try checkedEntries(png).first))["content"] as? [String: Any])
        XCTAssertNil(imageContent["text"], "binary bodies by size")
        XCTAssertEqual(imageContent["size"] as? Int, image.stdout.count)
        XCTAssertTrue((imageContent["comment"] as? String ?? "").contains("not a text type"), "\(imageContent)")

        // Text in another charset is recorded decoded (it was left out as "not valid UTF-8"); a
        // download keeps a coded body as sent, and says that is why it has no text.
        let server = try RecordingServer()
        defer { server.stop() }
        let latin = dir + "/latin.har"
        XCTAssertEqual(try runSwurl(["--har", latin, "--har-bodies", server.base + "/latin1"]).status, 0)
        let latinContent = try XCTUnwrap(response(try XCTUnwrap(try checkedEntries(latin).first))["content"] as? [String: Any])
        XCTAssertEqual(latinContent["text"] as? String, "café!", "\(latinContent)")
        let coded = dir + "/coded.har"
        let download = try runSwurl(["-d", "-o", dir + "/coded.bin", "--har", coded, "--har-bodies", server.base + "/gzip"])
        XCTAssertEqual(download.status, 0, download.stderr)
        let codedContent = try XCTUnwrap(response(try XCTUnwrap(try checkedEntries(coded).first))["content"] as? [String: Any])
        XCTAssertNil(codedContent["text"])
        XCTAssertEqual(codedContent["comment"] as? String, "body of 34 bytes not recorded: kept as sent, in its Content-Encoding (gzip)")
    }

    // MARK: - Failures and the file

    func testAFailedRequestIsRecordedAndARefusedOneLeavesTheFileAlone() throws {
        let har = dir + "/fail.har"
        let port = try ServerProcess.refusedPort()
        let r = try runSwurl(["--har", har, "http://127.0.0.1:\(port)/nothing"])
        XCTAssertEqual(r.status, 1, r.stderr)
        let entry = try XCTUnwrap(try checkedEntries(har).first)
        XCTAssertEqual(response(entry)["status"] as? Int, 0)
        XCTAssertTrue((entry["_error"] as? String ?? "").contains("onnect"), "\(entry)")
        // Where Chromium's export puts it too (tools read `response._error`).
        XCTAssertEqual(response(entry)["_error"] as? String, entry["_error"] as? String, "\(entry)")
        // Nothing was sent or waited for: the time after the look-up went to connecting.
        let timings = try XCTUnwrap(entry["timings"] as? [String: Double])
        XCTAssertEqual([timings["send"], timings["wait"], timings["receive"], timings["ssl"]], [0, 0, 0, -1], "\(timings)")
        XCTAssertGreaterThanOrEqual(timings["connect"] ?? -1, 0, "\(timings)")

        // A request refused before anything was sent (a bad item: 64) leaves the file as it was.
        let before = try Data(contentsOf: URL(fileURLWithPath: har))
        let bad = try runSwurl(["--har", har, try HTTPBin.url("/get"), "n:=not-json"])
        XCTAssertEqual(bad.status, 65, bad.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: har)), before)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix(".") }
        XCTAssertEqual(leftovers, [], "no temporary file stays behind")
    }

    /// Over `--unix-socket` libcurl names the socket's path as the address: it went into
    /// `serverIPAddress` (an IP address, HAR 1.2) with a `dns` time, though no name was looked up.
    func testAUnixSocketHopHasNoServerIPAddressAndNoLookUp() throws {
        let capture = try CaptureServer(unixSocket: true)
        let socket = try XCTUnwrap(capture.unixSocket)
        let har = dir + "/socket.har"
        let r = try runSwurl(["--har", har, "--unix-socket", socket, "http://local.test/x"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let entry = try XCTUnwrap(try checkedEntries(har).first)
        XCTAssertNil(entry["serverIPAddress"], "\(entry)")
        let timings = try XCTUnwrap(entry["timings"] as? [String: Double])
        XCTAssertEqual(timings["dns"], -1, "\(timings)")
        XCTAssertGreaterThanOrEqual(timings["connect"] ?? -1, 0, "\(timings)")
        // A relative socket path is no address either.
        let socketDir = URL(fileURLWithPath: socket).deletingLastPathComponent().path
        let relative = try runSwurl(["--har", har, "--unix-socket", URL(fileURLWithPath: socket).lastPathComponent, "http://local.test/x"],
                                    directory: socketDir)
        XCTAssertEqual(relative.status, 0, relative.stderr)
        let again = try XCTUnwrap(try checkedEntries(har).first)
        XCTAssertNil(again["serverIPAddress"], "\(again)")
        XCTAssertEqual((again["timings"] as? [String: Double])?["dns"], -1, "\(again)")
    }

    func testAnErrorStatusIsRecordedWithTheRunsStatus() throws {
        let har = dir + "/500.har"
        let r = try runSwurl(["--har", har, "--check-status", try HTTPBin.url("/status/500")])
        XCTAssertEqual(r.status, 5, r.stderr)
        XCTAssertEqual(try checkedEntries(har).map { response($0)["status"] as? Int }, [500])
    }

    func testALinkIsFollowedAndNeverReplaced() throws {
        let target = dir + "/real.har", link = dir + "/link.har"
        try Data("old".utf8).write(to: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "real.har")
        let r = try runSwurl(["--har", link, try HTTPBin.url("/get")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link), "real.har")
        XCTAssertEqual(try checkedEntries(target).count, 1)
    }

    /// `-o` and `--har` naming one file (here through `./`) are refused before sending: the
    /// HAR's rename would replace the response without a word.
    func testOutputAndHarInOneFileAreRefusedBeforeSending() throws {
        let capture = try CaptureServer()
        for door in [[String](), ["-d"]] {
            let r = try runSwurl(door + ["http://127.0.0.1:\(capture.server.port)/x", "-o", dir + "/one", "--har", dir + "/./one"])
            XCTAssertEqual(r.status, 64, r.stderr)
            XCTAssertTrue(r.stderr.contains("-o and --har name the same file"), r.stderr)
        }
        // Nor on stdout with the response: the entries would mix with it.
        let mixed = try runSwurl(["http://127.0.0.1:\(capture.server.port)/x", "--har", "-"])
        XCTAssertEqual(mixed.status, 64, mixed.stderr)
        XCTAssertTrue(mixed.stderr.contains("--har cannot share stdout with the response"), mixed.stderr)
        XCTAssertTrue(capture.capturedAll.isEmpty, "nothing was sent")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/one"))
        // Files of their own: sent, and the server saw it.
        let fine = try runSwurl(["http://127.0.0.1:\(capture.server.port)/x", "-o", dir + "/one", "--har", dir + "/one.har"])
        XCTAssertEqual(fine.status, 0, fine.stderr)
        XCTAssertFalse(capture.capturedAll.isEmpty, "the capture server counts what is sent")
    }

    /// The REPL's `--har` file is rewritten after each request: a line's `-o` naming it is
    /// refused (64) before sending, and a line's download never takes its name.
    func testAReplLineNeverWritesOverTheReplsHar() throws {
        let nginx = try NginxServer()
        func repl(_ line: String) throws -> SwurlResult {
            let lines = dir + "/lines.repl"
            try (line + "\n").write(toFile: lines, atomically: true, encoding: .utf8)
            return try runSwurl(["repl", "--har", "small.txt"], stdinFile: lines, directory: dir)
        }
        // The download's name from the URL is the HAR's: it takes the next one.
        let download = try repl("-d \(nginx.url("/small.txt"))")
        XCTAssertEqual(download.status, 0, download.stderr)
        XCTAssertEqual(try String(contentsOfFile: dir + "/small.txt-1", encoding: .utf8), "hello from nginx\n")
        XCTAssertEqual(try checkedEntries(dir + "/small.txt").count, 1)
        // -o naming the HAR file: refused before sending, the HAR file as it was; also from a
        // line with a --har of its own, and a line's --har naming the REPL's.
        let before = try Data(contentsOf: URL(fileURLWithPath: dir + "/small.txt"))
        for (line, said) in [("-o small.txt", "-o and --har name the same file"),
                             ("-o small.txt --har own.har", "-o and the REPL's --har name the same file"),
                             ("--har ./small.txt", "--har and the REPL's --har name the same file")] {
            let output = try repl("\(nginx.url("/small.txt")) " + line)
            XCTAssertEqual(output.status, 64, output.stderr)
            XCTAssertTrue(output.stderr.contains(said), output.stderr)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/small.txt")), before)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/own.har"), "the refused line sent nothing")
    }

    /// A batch's line bodies (`--output-dir`) never take the name of the batch's own outputs in
    /// that directory: their renames at the end would replace the body.
    func testBatchBodiesNeverLandOnTheBatchsOutputs() throws {
        let nginx = try NginxServer()
        let out = dir + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let input = dir + "/lines.txt"
        try (nginx.url("/small.txt") + "\n" + nginx.url("/small.txt") + "\n").write(toFile: input, atomically: true, encoding: .utf8)
        let r = try runSwurl(["batch", input, "--output-dir", out, "--har", out + "/1.body", "--junit", dir + "/./out/2.body"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try checkedEntries(out + "/1.body").count, 2)
        XCTAssertTrue(try String(contentsOfFile: out + "/2.body", encoding: .utf8).hasPrefix("<?xml"))
        for line in [1, 2] {
            XCTAssertEqual(try String(contentsOfFile: out + "/\(line)-\(line).body", encoding: .utf8), "hello from nginx\n")
        }
    }

    /// A download's name taken from the response skips the HAR file's (the HAR's rename would
    /// replace the download).
    func testADownloadNameNeverLandsOnTheHarFile() throws {
        let nginx = try NginxServer()
        let r = try runSwurl(["-d", nginx.url("/small.txt"), "--har", "small.txt"], directory: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try checkedEntries(dir + "/small.txt").count, 1)
        XCTAssertEqual(try String(contentsOfFile: dir + "/small.txt-1", encoding: .utf8), "hello from nginx\n")
    }

    func testADirectoryIsRefusedBeforeSending() throws {
        let capture = try CaptureServer()
        let r = try runSwurl(["--har", dir, "http://127.0.0.1:\(capture.server.port)/x"])
        XCTAssertNotEqual(r.status, 0)
        XCTAssertTrue(r.stderr.contains("give --har a file name"), r.stderr)
        XCTAssertTrue(capture.capturedAll.isEmpty, "nothing was sent")
    }

    /// `runSwurlUntilSignalled` in the test's directory, with SIGTERM.
    private func terminated(_ args: [String], stdoutUnread: Bool = false, holdingLock: String? = nil, readyFile: String? = nil) throws -> String {
        try runSwurlUntilSignalled(args, in: dir, stdoutUnread: stdoutUnread, holdingLock: holdingLock, readyFile: readyFile)
    }

    /// SIGTERM (`timeout`, a cancelled CI job) stops a one-shot request or a download as Ctrl-C
    /// does: the HAR file is written with the interrupted exchange, `-o`'s target keeps what it
    /// held, no temporary file stays, and the process ends by the signal.
    func testSIGTERMWritesTheHarLeavesNoTemporaryFileAndEndsByTheSignal() throws {
        let slow = try HTTPBin.url("/delay/10")
        try Data("old".utf8).write(to: URL(fileURLWithPath: dir + "/out.json"))
        let request = try terminated(["--har", "r.har", "-o", "out.json", slow])
        XCTAssertEqual(request, "-15")
        let entry = try XCTUnwrap(try checkedEntries(dir + "/r.har").first)
        XCTAssertEqual(entry["_error"] as? String, "interrupted", "\(entry)")
        XCTAssertEqual(try String(contentsOfFile: dir + "/out.json", encoding: .utf8), "old")

        let download = try terminated(["-d", try HTTPBin.url("/drip?duration=10&numbytes=10"), "-o", "dl.bin", "--har", "d.har"], readyFile: "dl.bin.part")
        XCTAssertEqual(download, "-15")
        XCTAssertEqual(try checkedEntries(dir + "/d.har").count, 1)
        // A download keeps its .part to resume, as after Ctrl-C.
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/dl.bin.part"))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix(".") }, [],
                       "no temporary file left")
    }

    /// SIGTERM (a CI job's timeout) during a batch: the lines still running were left out of its
    /// --har, while the results, the report and JUnit had them as interrupted, and a one-shot
    /// request's HAR has its interrupted exchange. They are entries, "interrupted".
    func testSIGTERMRecordsABatchsRunningLinesInItsHar() throws {
        let input = dir + "/slow-lines.txt"
        try [try HTTPBin.url("/get"), try HTTPBin.url("/delay/10?a"), try HTTPBin.url("/delay/10?b")]
            .joined(separator: "\n").write(toFile: input, atomically: true, encoding: .utf8)
        let status = try terminated(["batch", input, "--parallel", "4", "--har", "b.har", "--junit", "b.xml"])
        XCTAssertEqual(status, "-15")
        let entries = try checkedEntries(dir + "/b.har")
        XCTAssertEqual(entries.count, 3, "\(entries)")
        // The two slow lines at least (a loaded server may not have answered /get yet either).
        let interrupted = entries.filter { $0["_error"] as? String == "interrupted" }
        let lines = Set(interrupted.compactMap { (($0["request"] as? [String: Any])?["url"] as? String)?.suffix(1) })
        XCTAssertTrue(lines.isSuperset(of: ["a", "b"]), "\(entries)")
        XCTAssertEqual(try String(contentsOfFile: dir + "/b.xml", encoding: .utf8).components(separatedBy: "<failure").count - 1, interrupted.count)
    }

    /// SIGTERM while the session waits for another process's lock on its file stops the wait: the
    /// exchange ends as interrupted, its HAR file written, nothing left behind.
    func testSIGTERMStopsASessionsWaitForItsLock() throws {
        try FileManager.default.createDirectory(atPath: dir + "/sess", withIntermediateDirectories: true)
        let errors = dir + "/sess/stderr"
        let status = try runSwurlUntilSignalled(["--session", dir + "/sess/work.json", "--har", "r.har", "-o", "out.json", try HTTPBin.url("/get")],
                                                in: dir, holdingLock: dir + "/sess/.work.json.lock", stderrFile: errors)
        XCTAssertEqual(status, "-15")
        // The response was whole (and -o written): what was stopped is said.
        let said = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        XCTAssertTrue(said.contains("the session was not saved: stopped while waiting for another run's lock"), said)
        let entry = try XCTUnwrap(try checkedEntries(dir + "/r.har").first)
        XCTAssertEqual(response(entry)["status"] as? Int, 200)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix(".") }, [],
                       "no temporary file left")
    }

    /// An orderly stop that cannot finish (the response's write blocked on a pipe nobody reads)
    /// never keeps SIGTERM from ending the process: it ends by the signal a few seconds later,
    /// also when its parent started it with SIGALRM blocked.
    func testSIGTERMEndsTheProcessEvenWhenStdoutIsStuck() throws {
        let big = try HTTPBin.url("/stream-bytes/50000000?chunk_size=65536")
        XCTAssertEqual(try terminated(["--har", "s.har", big], stdoutUnread: true), "-15")
    }

    /// --offline and --curl send nothing: --har writes no file, and a warning says so (it was
    /// silent, and the user looked for the file).
    func testOfflineAndCurlSayThatHarWritesNothing() throws {
        let dir = TestPaths.temporaryDirectory()
        for mode in ["--offline", "--curl"] {
            let r = try runSwurl([mode, "--har", dir + "/x.har", "http://127.0.0.1:9/x"])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(r.stderr.contains("swurl: warning: --har writes no file with \(mode): nothing is sent"), r.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/x.har"))
        }
    }

    func testHarBodiesAloneIsAUsageError() throws {
        let r = try runSwurl(["--har-bodies", try HTTPBin.url("/get")])
        XCTAssertEqual(r.status, 64, r.stderr)
        XCTAssertTrue(r.stderr.contains("add --har FILE"), r.stderr)
    }

    // MARK: - The other doors

    func testDownloadRecordsItsHops() throws {
        let har = dir + "/dl.har", out = dir + "/file.bin"
        let r = try runSwurl(["-d", "-o", out, "--har", har, try HTTPBin.url("/redirect-to?url=/bytes/2048")])
        XCTAssertEqual(r.status, 0, r.stderr)
        let entries = try checkedEntries(har)
        XCTAssertEqual(entries.map { response($0)["status"] as? Int }, [302, 200])
        XCTAssertEqual((response(entries[1])["content"] as? [String: Any])?["size"] as? Int, 2048)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: out)).count, 2048)
    }

    func testBatchWritesEveryLineIntoOneFile() throws {
        let closed = try ServerProcess.refusedPort()
        var lines: [String] = []
        for i in 1...30 { lines.append(try HTTPBin.url("/anything/\(i)")) }
        lines.append(try HTTPBin.url("/redirect/1") + " --follow")
        lines.append("http://127.0.0.1:\(closed)/refused")
        lines.append("POST " + (try HTTPBin.url("/post")) + " n:=1")
        let input = dir + "/lines.txt"
        try (lines.joined(separator: "\n") + "\n").write(toFile: input, atomically: true, encoding: .utf8)
        let har = dir + "/batch.har"
        let r = try runSwurl(["batch", input, "--har", har, "--parallel", "8"])
        XCTAssertEqual(r.status, 1, "the refused line fails the batch: " + r.stderr)
        let entries = try checkedEntries(har)
        XCTAssertEqual(entries.count, lines.count + 1, "the redirect line has two hops")
        let comments = entries.compactMap { $0["comment"] as? String }
        XCTAssertEqual(Set(comments), Set((1...lines.count).map { "line \($0)" }))
        XCTAssertEqual(comments.filter { $0 == "line 31" }.count, 2)
        let refused = try XCTUnwrap(entries.first { $0["comment"] as? String == "line 32" })
        XCTAssertEqual(response(refused)["status"] as? Int, 0)
        XCTAssertNotNil(refused["_error"])
        let post = try XCTUnwrap(entries.first { $0["comment"] as? String == "line 33" })
        XCTAssertEqual((request(post)["postData"] as? [String: Any])?["text"] as? String, #"{"n":1}"#)
    }

    /// A batch line's head is the one the server received when libcurl changed it after the
    /// line was set up: lines on a connection whose last answer was HTTP/1.0 (libcurl then asks
    /// in HTTP/1.0, whatever the line's own answer), and a line prepared ahead while the jar was
    /// empty, sent after the line before it got a cookie (libcurl's engine adds a `Cookie`
    /// line). The entries said `HTTP/1.1`, and had no head at all (no `Host`, no `Cookie`,
    /// `httpVersion` "").
    func testABatchLinesHeadIsWhatWentOutAfterACookieOrAnHTTP10Answer() throws {
        let server = try RecordingServer()
        defer { server.stop() }
        let input = dir + "/lines.txt"
        try ["/http10", "/http10", "/set-cookie?sid=S1&b=2", "/api", "/api?x=1"].map { server.base + $0 }.joined(separator: "\n")
            .write(toFile: input, atomically: true, encoding: .utf8)
        let har = dir + "/batch.har"
        let r = try runSwurl(["batch", input, "--parallel", "1", "--har", har, "--har-secrets"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let received = server.requests.map { raw -> String in
            let head = raw.range(of: Data("\r\n\r\n".utf8)).map { raw[..<$0.upperBound] } ?? raw
            return String(decoding: head, as: UTF8.self)
        }
        XCTAssertEqual(received.count, 5)
        XCTAssertTrue(received[1].hasPrefix("GET /http10 HTTP/1.0\r\n"), received[1])
        XCTAssertTrue(received[2].hasPrefix("GET /set-cookie?sid=S1&b=2 HTTP/1.0\r\n"), received[2])
        XCTAssertTrue(received[3].hasPrefix("GET /api HTTP/1.1\r\n"), received[3])
        XCTAssertTrue(received[3].contains("\r\nCookie: "), received[3])
        let entries = try checkedEntries(har)
        XCTAssertEqual(entries.count, 5)
        for (n, (entry, head)) in zip(entries, received).enumerated() {
            let lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty }
            XCTAssertEqual(request(entry)["httpVersion"] as? String, lines.first?.components(separatedBy: " ").last, "line \(n + 1)")
            XCTAssertEqual(headers(request(entry)).map { $0.0 + ": " + $0.1 }, Array(lines.dropFirst()), "line \(n + 1)")
            XCTAssertEqual(request(entry)["headersSize"] as? Int, head.utf8.count, "line \(n + 1)")
        }
    }

    /// Past the first 64 KiB of records the entries are written on the log's second thread: a
    /// longer batch has every line's entry, each whole, and the same entries as a short one.
    func testALongBatchWritesEveryEntryFromTheFormatterThread() throws {
        // A text type, so that --har-bodies keeps each body's text in its record.
        let nginx = try NginxServer(serverConfig: "default_type text/plain;")
        let count = 600
        let input = dir + "/long.txt"
        try (0..<count).map { nginx.url("/small.txt?i=\($0)") + "\n" }.joined().write(toFile: input, atomically: true, encoding: .utf8)
        let har = dir + "/long.har"
        let r = try runSwurl(["batch", input, "--har", har, "--har-bodies", "--parallel", "16", "-q"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let entries = try checkedEntries(har)
        XCTAssertEqual(entries.count, count)
        XCTAssertEqual(Set(entries.compactMap { $0["comment"] as? String }), Set((1...count).map { "line \($0)" }))
        for entry in entries {
            let line = try XCTUnwrap((entry["comment"] as? String)?.split(separator: " ").last.flatMap { Int($0) })
            let query = try XCTUnwrap(request(entry)["queryString"] as? [[String: Any]])
            XCTAssertEqual(query.first?["value"] as? String, String(line - 1))
            XCTAssertEqual(response(entry)["status"] as? Int, 200)
            let content = try XCTUnwrap(response(entry)["content"] as? [String: Any])
            XCTAssertEqual(content["text"] as? String, "hello from nginx\n")
        }
    }

    /// Runs `script` in a mount namespace of its own, after a tmpfs of `size` is mounted on a
    /// directory `$1` (`$2` is swurl, `$3` an input of 1,000 GETs of `nginx`, `$4` this test's
    /// directory); its stdout as text, and the server's requests while it ran.
    private func onASmallTmpfs(_ size: String, _ script: String, nginx: NginxServer) throws -> (text: String, stderr: String, full: String, sent: Int) {
        let input = dir + "/lines-\(size).txt"
        try String(repeating: nginx.url("/small.txt") + "\n", count: 1000).write(toFile: input, atomically: true, encoding: .utf8)
        let full = dir + "/full-\(size)"
        try FileManager.default.createDirectory(atPath: full, withIntermediateDirectories: true)
        let before = nginx.logLines().count
        let shell = "mount -t tmpfs -o size=\(size) tmpfs \"$1\" || exit 99\n" + script
        let out = try runProcess("/usr/bin/unshare", ["-m", "sh", "-c", shell, "sh", full, TestPaths.binary, input, dir], check: false)
        let text = String(decoding: out.stdout, as: UTF8.self)
        XCTAssertEqual(out.status, 0, text + out.stderr)
        return (text, out.stderr, full, nginx.logLines().count - before)
    }

    /// A write that fails on the formatter thread (the disk is full) fails the batch with the
    /// file's name and the reason, and leaves the last HAR file as it was.
    func testAWriteFailingOnTheFormatterThreadFailsTheBatchAndKeepsTheOldFile() throws {
        // The entries of 1,000 lines (over 1 MB) cannot fit in 256 KiB; the old file (a few
        // bytes) is there first.
        let (text, stderr, full, _) = try onASmallTmpfs("256k", """
            printf 'old\n' > "$1/x.har"
            "$2" batch "$3" -q --parallel 16 --har "$1/x.har" > /dev/null; echo "batch=$?"
            cat "$1/x.har"; ls -A "$1"
            """, nginx: try NginxServer())
        XCTAssertTrue(text.contains("batch=1"), text)
        XCTAssertTrue(stderr.contains("writing to '\(full)/x.har' failed: No space left on device"), stderr)
        XCTAssertEqual(text.split(separator: "\n").dropFirst().map(String.init), ["old", "x.har"], "the old file, alone")
    }

    /// Regression: a batch whose --har, --report or --junit could no longer be written (a full
    /// disk) sent every line all the same, and said so at the end; it stops taking lines now, as
    /// it does when stdout cannot be written (the lines already running end).
    func testABatchStopsTakingLinesOnceAnOutputCannotBeWritten() throws {
        let nginx = try NginxServer()
        let (text, stderr, _, sent) = try onASmallTmpfs("64k", """
            for o in --har --report --junit; do
              "$2" batch "$3" --jsonl --parallel 4 $o "$1/out" > "$4/results$o"; echo "batch$o=$?"
            done
            """, nginx: nginx)
        // What the server received: each batch stopped well short of its 1,000 lines.
        XCTAssertTrue(sent > 0 && sent < 3000, "\(sent) requests for three batches")
        for option in ["--har", "--report", "--junit"] {
            XCTAssertTrue(text.contains("batch\(option)=1"), text)
            let results = (try? String(contentsOfFile: dir + "/results" + option, encoding: .utf8)) ?? ""
            let lines = results.split(separator: "\n").count
            XCTAssertTrue(lines > 0 && lines < 1000, "\(option): \(lines) lines ran after the output failed")
            // The line prepared ahead and left is "not run", not interrupted (no signal came).
            XCTAssertFalse(results.contains("\"exit\":130"), results)
        }
        XCTAssertTrue(stderr.contains("No space left on device"), stderr)
        // A disk already full: the HAR log's head does not fit, and nothing is sent.
        let filled = try onASmallTmpfs("32k", """
            cat /dev/zero > "$1/fill" 2>/dev/null
            "$2" batch "$3" --jsonl --parallel 4 --har "$1/full.har" > "$4/results-full"; echo "batchfull=$?"
            """, nginx: nginx)
        XCTAssertTrue(filled.text.contains("batchfull=1"), filled.text)
        XCTAssertEqual(filled.sent, 0, "nothing was sent")
        XCTAssertEqual((try? String(contentsOfFile: dir + "/results-full", encoding: .utf8)) ?? "x", "")
    }

    /// A REPL script whose --har log or a line's --session could no longer be saved (a full
    /// disk) sent every later line all the same, each saying it was not saved: it stops after
    /// the line whose log or session failed, as a batch stops taking lines.
    func testAReplScriptStopsOnceItsHarOrSessionCannotBeSaved() throws {
        let nginx = try NginxServer()
        let (text, stderr, _, sent) = try onASmallTmpfs("64k", """
            "$2" repl --har "$1/r.har" < "$3" > /dev/null; echo "har=$?"
            """, nginx: nginx)
        XCTAssertTrue(text.contains("har=1"), text)
        XCTAssertTrue(sent > 0 && sent < 1000, "\(sent) lines were sent")
        XCTAssertTrue(stderr.contains("No space left on device"), stderr)
        XCTAssertTrue(stderr.contains("the script stops after line \(sent)"), stderr)
        let url = nginx.url("/small.txt")
        let session = try onASmallTmpfs("64k", """
            i=0; pad=$(head -c 1500 /dev/zero | tr '\\0' p)
            while [ $i -lt 200 ]; do printf '%s X-P%d:%s\\n' '\(url)' $i "$pad"; i=$((i+1)); done > "$4/padded.txt"
            "$2" repl --session "$1/s.json" < "$4/padded.txt" > /dev/null; echo "session=$?"
            """, nginx: nginx)
        XCTAssertTrue(session.text.contains("session=1"), session.text)
        XCTAssertTrue(session.sent > 0 && session.sent < 200, "\(session.sent) lines were sent")
        XCTAssertTrue(session.stderr.contains("the session was not saved"), session.stderr)
        XCTAssertTrue(session.stderr.contains("the script stops after line \(session.sent)"), session.stderr)
    }

    func testABatchLineCannotHaveItsOwnHar() throws {
        let input = dir + "/lines.txt"
        try ((try HTTPBin.url("/get")) + " --har " + dir + "/line.har\n").write(toFile: input, atomically: true, encoding: .utf8)
        let r = try runSwurl(["batch", input])
        XCTAssertEqual(r.status, 64, r.stderr + r.text)
        XCTAssertTrue(r.text.contains("an option of the whole batch"), r.text)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/line.har"))
    }

    /// The REPL's --har in a directory that takes no new file fails at the start (1), before any
    /// line is sent, as one-shot requests and batches do.
    func testReplRefusesAnUnwritableHarBeforeSending() throws {
        let capture = try CaptureServer()
        // Input from a file: the REPL ends before it reads, and a pipe's writer would get SIGPIPE.
        let script = dir + "/script.txt"
        try Data("get http://127.0.0.1:\(capture.server.port)/x\n".utf8).write(to: URL(fileURLWithPath: script))
        let r = try runSwurl(["repl", "--har", dir + "/missing/r.har"], stdinFile: script)
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("missing' does not exist"), r.stderr)
        XCTAssertTrue(capture.capturedAll.isEmpty, "nothing was sent")
    }

    func testReplRewritesTheFileAfterEachRequest() throws {
        let har = dir + "/repl.har"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: TestPaths.binary)
        p.arguments = ["repl", try HTTPBin.url("/"), "--har", har]
        let input = Pipe()
        p.standardInput = input
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        try input.fileHandleForWriting.write(contentsOf: Data("anything/one\n".utf8))
        // The file appears once the first request is over; then the REPL is killed mid-session.
        var appeared = false
        for _ in 0..<400 {
            if FileManager.default.fileExists(atPath: har) { appeared = true; break }
            usleep(50_000)
        }
        XCTAssertTrue(appeared, "written after the first request, before the REPL ends")
        kill(p.processIdentifier, SIGKILL)
        waitForExit(p)
        let entries = try checkedEntries(har)
        XCTAssertEqual(entries.map { request($0)["url"] as? String }, [try HTTPBin.url("/anything/one")])

        // A script of two requests leaves both.
        let script = try runSwurl(["repl", try HTTPBin.url("/"), "--har", har], stdin: Data("anything/one\nanything/x\n".utf8))
        XCTAssertEqual(script.status, 0, script.stderr)
        XCTAssertEqual(try checkedEntries(har).map { request($0)["url"] as? String },
                       [try HTTPBin.url("/anything/one"), try HTTPBin.url("/anything/x")])
    }

    /// `send` runs until the body's last byte left, also when a 100 Continue came back first
    /// (it was cut at the 100, and the upload counted as `receive`). --limit-rate makes the
    /// upload take at least its size over the rate (200 KB at 400 KB/s: half a second).
    func testAHundredContinueLeavesTheUploadInSend() throws {
        let dir = TestPaths.temporaryDirectory()
        FileManager.default.createFile(atPath: dir + "/up.bin", contents: Data(repeating: 0x61, count: 200_000))
        let har = dir + "/c.har"
        // gunicorn answers the Expect with a 100 Continue (before the fix: send 0.6 ms).
        let r = try runSwurl(["--har", har, "--limit-rate", "400K", "-o", dir + "/out", "PUT", try HTTPBin.url("/anything"),
                              "@" + dir + "/up.bin", "Expect:100-continue"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let entry = try XCTUnwrap(try checkedEntries(har).first)
        let timings = entry["timings"] as? [String: Double] ?? [:]
        XCTAssertGreaterThan(timings["send"] ?? 0, 400, "\(timings)")
        // headersSize is the 200's head alone (gunicorn writes `Name: value` lines): libcurl's
        // count had the 100 Continue's 25 bytes in it.
        let response = try XCTUnwrap(entry["response"] as? [String: Any])
        let fields = try XCTUnwrap(response["headers"] as? [[String: Any]])
        let head = "HTTP/1.1 200 OK\r\n".utf8.count + 2
            + fields.map { ($0["name"] as? String ?? "").utf8.count + 2 + ($0["value"] as? String ?? "").utf8.count + 2 }.reduce(0, +)
        XCTAssertEqual(response["headersSize"] as? Int, head, "\(fields)")
    }

    /// Through a proxy's tunnel, `headersSize` is the origin's head alone, as without the proxy:
    /// libcurl's count had the proxy's `HTTP/1.1 200 Connection established` (39 bytes) in it.
    func testHeadersSizeLeavesOutTheProxysAnswerToConnect() throws {
        let (proxy, _) = try ServerProcess.connectProxy()
        defer { proxy.stop() }
        let pki = try CertificateFactory.shared()
        let origin = try CaptureServer(tls: (pki.path("leaf-chain.pem"), pki.path("leaf.key")))
        var sizes: [Int] = []
        for (name, extra) in [("direct", [String]()), ("tunnel", ["--proxy", "http://127.0.0.1:\(proxy.port)"])] {
            let har = dir + "/\(name).har"
            let r = try runSwurl(["--har", har, "--cacert", pki.path("root.pem"), origin.base + "/x"] + extra)
            XCTAssertEqual(r.status, 0, r.stderr)
            let entry = try XCTUnwrap(try checkedEntries(har).first)
            sizes.append(try XCTUnwrap(response(entry)["headersSize"] as? Int))
        }
        XCTAssertEqual(sizes.count, 2)
        XCTAssertEqual(sizes.first, sizes.last, "\(sizes)")
        XCTAssertGreaterThan(sizes.first ?? 0, 0)
    }

    /// Digest's 401 and the 200 after it come in one transfer: `headersSize` is the 200's head
    /// alone (libcurl's count had the 401's in it).
    func testHeadersSizeIsTheResponsesOwnHeadAfterADigestRound() throws {
        let har = dir + "/d.har"
        // --har-secrets: the head is summed from the recorded fields, Set-Cookie's values whole.
        let r = try runSwurl(["--har", har, "--har-secrets", "-A", "digest", "-a", "user:passwd", try HTTPBin.url("/digest-auth/auth/user/passwd")])
        XCTAssertEqual(r.status, 0, r.stderr)
        let entry = try XCTUnwrap(try checkedEntries(har).last)
        let response = response(entry)
        XCTAssertEqual(response["status"] as? Int, 200)
        let head = "HTTP/1.1 200 OK\r\n".utf8.count + 2
            + headers(response).map { $0.0.utf8.count + 2 + $0.1.utf8.count + 2 }.reduce(0, +)
        XCTAssertEqual(response["headersSize"] as? Int, head, "\(headers(response))")
    }

    /// A body that never left (the server answered Digest's first round, sent with
    /// `Content-Length: 0`, with a 405) is not recorded as posted text.
    func testABodyThatWasNeverSentIsNotRecordedAsSent() throws {
        let har = dir + "/n.har"
        let r = try runSwurl(["--har", har, "-A", "digest", "-a", "user:passwd", "POST",
                              try HTTPBin.url("/digest-auth/auth/user/passwd"), "a=1"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let entry = try XCTUnwrap(try checkedEntries(har).last)
        XCTAssertEqual(response(entry)["status"] as? Int, 405)
        XCTAssertEqual(request(entry)["bodySize"] as? Int, 0)
        let post = try XCTUnwrap(request(entry)["postData"] as? [String: Any])
        XCTAssertNil(post["text"], "\(post)")
        XCTAssertTrue((post["comment"] as? String ?? "").contains("not sent"), "\(post)")
    }

    /// Every connection has its own `connection`: it was libcurl's local port, which comes
    /// round again (two servers at once, one server later), so unrelated connections shared one.
    /// Two servers that close every connection, lines taking turns: one number per line; a
    /// keep-alive server: lines share numbers, each opened once.
    func testEachConnectionHasItsOwnNumber() throws {
        let a = try SequenceServer([.init("200 OK", ["Content-Length: 1"], body: Data("a".utf8))])
        let b = try SequenceServer([.init("200 OK", ["Content-Length: 1"], body: Data("b".utf8))])
        let lines = (0..<60).map { ($0 % 2 == 0 ? a : b).url("/\($0)") }.joined(separator: "\n") + "\n"
        try lines.write(toFile: dir + "/lines", atomically: true, encoding: .utf8)
        let har = dir + "/closing.har"
        let r = try runSwurl(["batch", dir + "/lines", "--har", har, "-q", "--parallel", "4"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let entries = try checkedEntries(har)
        XCTAssertEqual(entries.count, 60)
        XCTAssertEqual(Set(entries.compactMap { $0["connection"] as? String }).count, 60)
        let nginx = try NginxServer(serverConfig: "location / { return 200 ok; }")
        try ((0..<60).map { nginx.url("/\($0)") }.joined(separator: "\n") + "\n").write(toFile: dir + "/kept", atomically: true, encoding: .utf8)
        let kept = dir + "/kept.har"
        XCTAssertEqual(try runSwurl(["batch", dir + "/kept", "--har", kept, "-q", "--parallel", "4"]).status, 0)
        let reused = try checkedEntries(kept)
        let opened = reused.filter { (($0["timings"] as? [String: Double])?["connect"] ?? -1) >= 0 }
        XCTAssertEqual(Set(reused.compactMap { $0["connection"] as? String }).count, opened.count)
        XCTAssertLessThan(opened.count, 60)
    }

    /// A hop that failed on a connection an earlier hop made (a redirect, then a timeout) made
    /// no connection: `dns`, `connect` and `ssl` are -1, as on any reused connection. (nginx
    /// keeps the connection; its `/stall` waits on a socket that never answers.)
    func testAFailedHopOnAReusedConnectionHasNoConnectPhases() throws {
        let nginx = try NginxServer(serverConfig: """
            location = /go { return 302 /stall; }
            location = /stall { proxy_pass http://127.0.0.1:\(try ServerProcess.silentPort()); }
            """)
        let har = dir + "/t.har"
        let r = try runSwurl(["--har", har, "-F", "--timeout", "1", nginx.url("/go")])
        XCTAssertEqual(r.status, 2, r.stderr)
        let entries = try checkedEntries(har)
        XCTAssertEqual(entries.count, 2)
        XCTAssertEqual(entries.map { $0["connection"] as? String }.count, 2)
        XCTAssertEqual(entries[0]["connection"] as? String, entries[1]["connection"] as? String, "one connection")
        let timings = try XCTUnwrap(entries[1]["timings"] as? [String: Double])
        XCTAssertEqual(timings["dns"], -1, "\(timings)")
        XCTAssertEqual(timings["connect"], -1, "\(timings)")
        XCTAssertEqual(timings["ssl"], -1, "\(timings)")
    }

    /// Over HTTP/2 a batch's lines wait for the one connection the first line is making; libcurl
    /// starts their phase counters over when they stop waiting. A line cannot have its first
    /// byte before that connection was ready: the wait is before sending (`blocked`), not
    /// `receive` (which had the handshake's time for an 11-byte body). The start times are
    /// in whole milliseconds: one of slack.
    func testLinesWaitingForAnHTTP2ConnectionWaitBeforeSending() throws {
        let pki = try CertificateFactory.shared()
        let nginx = try NginxServer(http2: true, tls: (pki.path("leaf-chain.pem"), pki.path("leaf.key")))
        let list = dir + "/urls"
        try (1...6).map { nginx.url("/small.txt?n=\($0)") }.joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let har = dir + "/h2.har"
        let r = try runSwurl(["batch", list, "-q", "--cacert", pki.path("root.pem"), "--har", har])
        XCTAssertEqual(r.status, 0, r.stderr)
        let entries = try checkedEntries(har)
        XCTAssertEqual(entries.count, 6)
        let dates = ISO8601DateFormatter()
        dates.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        func start(_ e: [String: Any]) -> Double { (dates.date(from: e["startedDateTime"] as? String ?? "")?.timeIntervalSince1970 ?? 0) * 1000 }
        func timings(_ e: [String: Any]) -> [String: Double] { e["timings"] as? [String: Double] ?? [:] }
        let makers = entries.filter { (timings($0)["connect"] ?? -1) >= 0 }
        XCTAssertEqual(makers.count, 1, "one connection: \(entries.map(timings))")
        let maker = try XCTUnwrap(makers.first)
        XCTAssertEqual(response(maker)["httpVersion"] as? String, "HTTP/2")
        let ready = start(maker) + (timings(maker)["dns"] ?? 0) + (timings(maker)["connect"] ?? 0)
        let sharing = entries.filter { $0["connection"] as? String == maker["connection"] as? String && (timings($0)["connect"] ?? 0) < 0 }
        XCTAssertEqual(sharing.count, 5)
        for e in sharing {
            let t = timings(e)
            let firstByte = start(e) + (t["blocked"] ?? 0) + (t["send"] ?? 0) + (t["wait"] ?? 0)
            XCTAssertGreaterThanOrEqual(firstByte + 1, ready, "\(t), maker \(timings(maker))")
        }
    }

    /// A URL's fragment is never sent: the entry's URL leaves it out, as browsers' do.
    func testTheEntrysURLHasNoFragment() throws {
        let har = TestPaths.temporaryDirectory() + "/f.har"
        let r = try runSwurl(["--har", har, try HTTPBin.url("/get?a=1#part?b=2")])
        XCTAssertEqual(r.status, 0, r.stderr)
        let entry = try XCTUnwrap(try checkedEntries(har).first)
        XCTAssertEqual(request(entry)["url"] as? String, try HTTPBin.url("/get?a=1"))
        XCTAssertEqual((request(entry)["queryString"] as? [[String: Any]])?.compactMap { $0["name"] as? String }, ["a"])
    }

    /// What the REPL's log keeps follows `set`/`unset` and a line's own --har-bodies,
    /// --har-secrets and their --no- forms, line by line (they were taken once at the start:
    /// `--no-har-secrets` was accepted and the credentials still written).
    func testTheReplsLogKeepsWhatEachLineSays() throws {
        let har = TestPaths.temporaryDirectory() + "/r.har"
        let lines = ["headers Authorization:one", "headers Authorization:two --no-har-secrets", "set --no-har-secrets",
                     "headers Authorization:three", "set --har-secrets", "headers Authorization:four",
                     "encoding/utf8 --no-har-secrets", "set --har-bodies", "encoding/utf8", "encoding/utf8 --no-har-bodies"]
        let r = try runSwurl(["repl", try HTTPBin.url("/"), "--har", har, "--har-secrets"],
                             stdin: Data((lines.joined(separator: "\n") + "\n").utf8))
        XCTAssertEqual(r.status, 0, r.stderr)
        let entries = try checkedEntries(har)
        XCTAssertEqual(entries.count, 7)
        let authorization = entries.prefix(4).map { entry in
            (request(entry)["headers"] as? [[String: Any]] ?? []).first { $0["name"] as? String == "Authorization" }?["value"] as? String
        }
        XCTAssertEqual(authorization, ["one", "****", "****", "four"])
        let texts = entries.suffix(3).map { (response($0)["content"] as? [String: Any])?["text"] as? String }
        XCTAssertNil(texts[0] ?? nil)
        XCTAssertTrue(texts[1]?.contains("UTF-8") == true, "\(texts)")
        XCTAssertNil(texts[2] ?? nil)
    }
}
