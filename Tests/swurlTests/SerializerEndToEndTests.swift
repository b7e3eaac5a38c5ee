import XCTest
import Foundation
import SwurlTestSupport

/// Every serializer against real parsers: httpbin (Werkzeug), Python's plistlib and email parser.
final class SerializerEndToEndTests: XCTestCase {
    private var dir = ""

    override func setUp() {
        dir = TestPaths.temporaryDirectory()
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: dir)
    }

    // MARK: JSON and form matrix

    func testJSONMatrix() throws {
        let cases: [([String], String)] = [
            (["a=1"], #"{"a":"1"}"#),
            (["n:=1.5", "b:=true", "z:=null"], #"{"n":1.5,"b":true,"z":null}"#),
            (["user[name]=Ann", "user[tags][]=x", "user[tags][]=y"], #"{"user":{"name":"Ann","tags":["x","y"]}}"#),
            (["items[0][id]:=1", "items[1][id]:=2"], #"{"items":[{"id":1},{"id":2}]}"#),
            (["a[2]=c"], #"{"a":[null,null,"c"]}"#),
            (["[]:=1", "[]=two"], #"[1,"two"]"#),
            (["k\\[x\\]=v"], #"{"k[x]":"v"}"#),
            (["a=1", "a=2"], #"{"a":["1","2"]}"#),
        ]
        for (items, expected) in cases {
            let r = try runSwurl(["POST", try HTTPBin.url("/anything")] + items)
            XCTAssertEqual(r.status, 0, r.stderr)
            let echo = try r.json()
            let got = try JSONSerialization.data(withJSONObject: echo["json"] ?? NSNull(), options: [.fragmentsAllowed])
            let want = try JSONSerialization.jsonObject(with: Data(expected.utf8), options: [.fragmentsAllowed])
            XCTAssertEqual(try JSONSerialization.jsonObject(with: got, options: [.fragmentsAllowed]) as? NSObject, want as? NSObject, "\(items)")
            XCTAssertEqual(echo["data"] as? String, expected, "key order and literals as given: \(items)")
        }
    }

    func testFormMatrixAsWerkzeugReadsIt() throws {
        let cases: [([String], [String: [String]])] = [
            (["a=1", "b=x y"], ["a": ["1"], "b": ["x y"]]),
            (["user[name]=Ann", "user[age]:=30"], ["user[name]": ["Ann"], "user[age]": ["30"]]),
            (["tags[]=a", "tags[]=b"], ["tags[]": ["a", "b"]]),
            (["q=50% & more+=", "é=☃"], ["q": ["50% & more+="], "é": ["☃"]]),
            (["deep[a][b][]=1", "deep[a][c]=2"], ["deep[a][b][]": ["1"], "deep[a][c]": ["2"]]),
            (["t:=true", "n:=null", "e:=[]"], ["t": ["true"], "n": [""]]),
            // A name given twice is sent twice, as curl and HTTPie send it (not `tag[]`).
            (["tag=a", "tag=b", "u[n]=1", "u[n]=2"], ["tag": ["a", "b"], "u[n]": ["1", "2"]]),
        ]
        for (items, expected) in cases {
            let r = try runSwurl(["-f", "POST", try HTTPBin.url("/anything")] + items)
            XCTAssertEqual(r.status, 0, r.stderr)
            // httpbin collapses single values; ask Python for the full multi-dict instead.
            let raw = try r.json()["data"] as? String ?? ""
            let form = (try r.json()["form"] as? [String: Any]) ?? [:]
            let parsed = try runPython("import sys, json, urllib.parse; print(json.dumps(urllib.parse.parse_qs(sys.argv[1], keep_blank_values=True)))", arguments: [raw.isEmpty ? formBody(r) : raw])
            let dict = try JSONSerialization.jsonObject(with: Data(parsed.utf8)) as? [String: [String]]
            XCTAssertEqual(dict, expected, "\(items)")
            XCTAssertEqual(Set(form.keys), Set(expected.keys), "\(items)")
        }
    }

    private func formBody(_ r: SwurlResult) -> String {
        // httpbin moves urlencoded bodies into "form"; rebuild the multi-dict text from it.
        guard let form = try? r.json()["form"] as? [String: Any] else { return "" }
        var pairs: [String] = []
        for (k, v) in form {
            let values = (v as? [String]) ?? [(v as? String) ?? ""]
            for value in values {
                pairs.append("\(k.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? k)=\(value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value)")
            }
        }
        return pairs.joined(separator: "&")
    }

    /// A name given twice, with a file between: every part at its own place, as curl's -F.
    func testMultipartRepeatedNamesKeepTheirPlaces() throws {
        try Data("file\n".utf8).write(to: URL(fileURLWithPath: dir + "/f.txt"))
        let r = try runSwurl(["--offline", "--multipart", "--boundary", "B", "POST", "example.org",
                              "tag=a", "tag@f.txt", "tag=b", "u[n]=1", "up@f.txt", "u[m]=2"], directory: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        let names = r.text.components(separatedBy: "\r\n").filter { $0.hasPrefix("Content-Disposition") }
        XCTAssertEqual(names, ["Content-Disposition: form-data; name=\"tag\"", "Content-Disposition: form-data; name=\"tag\"; filename=\"f.txt\"",
                               "Content-Disposition: form-data; name=\"tag\"", "Content-Disposition: form-data; name=\"u[n]\"",
                               "Content-Disposition: form-data; name=\"u[m]\"", "Content-Disposition: form-data; name=\"up\"; filename=\"f.txt\""],
                       r.text)
    }

    /// A `Content-Type:multipart/…` item keeps the body's boundary (before, it replaced the
    /// serializer's type and no server could find the parts); one naming another is refused;
    /// the printed curl command gives curl the type, to which curl adds its own boundary.
    /// A boundary with a character that ends a header token (`:` `=` `/` `(` `,` `?`, allowed in a
    /// boundary) is quoted in Content-Type: unquoted, Werkzeug read `boundary=a:b` as `a` and
    /// found no parts. A plain one stays unquoted; a GET with a file field says why it is multipart.
    func testABoundaryWithSeparatorsIsQuoted() throws {
        for boundary in ["a:b", "x=y", "p/q(r),s?t"] {
            let r = try runSwurl(["--multipart", "--boundary", boundary, "POST", try HTTPBin.url("/anything"), "a=1"])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(try r.json()["form"] as? [String: String], ["a": "1"], boundary)
            let item = try runSwurl(["--multipart", "--boundary", boundary, "POST", try HTTPBin.url("/anything"), "a=1", "Content-Type:multipart/form-data"])
            XCTAssertEqual(try item.json()["form"] as? [String: String], ["a": "1"], boundary)
        }
        let plain = try runSwurl(["--offline", "--multipart", "--boundary", "B-1", "POST", ":9/x", "a=1"])
        XCTAssertTrue(plain.text.contains("Content-Type: multipart/form-data; boundary=B-1\r\n"), plain.text)
        try "{}".write(toFile: dir + "/d.json", atomically: true, encoding: .utf8)
        let get = try runSwurl(["--offline", "-f", "GET", ":9/g", "f@d.json"], directory: dir)
        XCTAssertEqual(get.status, 64, get.stderr)
        XCTAssertTrue(get.stderr.contains("(a file field, name@path, or --multipart makes a body"), get.stderr)
    }

    /// A field whose value holds CRLF "--" and the chosen boundary (or starts with "--"
    /// boundary, after the blank line) split the body: httpbin read a field named "evil" that was
    /// never sent. Refused, naming the field; a value without the line break is sent.
    func testAValueHoldingTheBoundaryIsRefused() throws {
        let evil = "line1\r\n--B\r\nContent-Disposition: form-data; name=\"evil\"\r\n\r\npwn"
        // A bare LF splits it too (Werkzeug reads a field there).
        for value in [evil, "--B--", "x\n--B\nContent-Disposition: form-data; name=\"evil\"\n\nE"] {
            let r = try runSwurl(["--multipart", "--boundary", "B", "POST", try HTTPBin.url("/anything"), "a=" + value])
            XCTAssertEqual(r.status, 64, r.stderr)
            XCTAssertTrue(r.stderr.hasPrefix("swurl: error: the value of 'a' holds the multipart boundary"), r.stderr)
        }
        let fine = try runSwurl(["--multipart", "--boundary", "B", "POST", try HTTPBin.url("/anything"), "a=x--B"])
        XCTAssertEqual(fine.status, 0, fine.stderr)
        XCTAssertEqual(try fine.json()["form"] as? [String: String], ["a": "x--B"])
    }

    func testAMultipartContentTypeItemKeepsTheBoundary() throws {
        try Data("file\n".utf8).write(to: URL(fileURLWithPath: dir + "/f.txt"))
        let parsed = try runSwurl(["-b", "-f", "POST", try HTTPBin.url("/anything"), "f@f.txt", "a=1", "Content-Type:multipart/form-data"], directory: dir)
        XCTAssertEqual(parsed.status, 0, parsed.stderr)
        let echo = try XCTUnwrap(try JSONSerialization.jsonObject(with: parsed.stdout) as? [String: Any])
        XCTAssertEqual(echo["form"] as? [String: String], ["a": "1"], parsed.text)
        XCTAssertEqual(echo["files"] as? [String: String], ["f": "file\n"], parsed.text)
        for method in ["--offline", "--curl"] {
            let capture = try CaptureServer()
            let args = ["-f", "POST", capture.base + "/m", "f@f.txt", "Content-Type:multipart/mixed"]
            if method == "--offline" {
                XCTAssertEqual(try runSwurl(args, directory: dir).status, 0)
            } else {
                let printed = try runSwurl([method] + args, directory: dir)
                XCTAssertTrue(printed.text.contains("--header 'Content-Type: multipart/mixed'"), printed.text)
                XCTAssertEqual(try runProcess("/bin/sh", ["-c", printed.text], directory: dir, check: false).status, 0)
            }
            let text = String(decoding: capture.captured, as: UTF8.self)
            let halves = text.components(separatedBy: "\r\n\r\n")
            let head = halves.first ?? ""
            let type = head.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix("content-type:") } ?? ""
            let delimiter = halves.dropFirst().first?.components(separatedBy: "\r\n").first ?? ""
            XCTAssertTrue(type.hasPrefix("Content-Type: multipart/mixed; boundary="), "\(method): \(head)")
            XCTAssertEqual("--" + (type.components(separatedBy: "boundary=").last ?? ""), delimiter, "\(method): \(text)")
        }
        let other = try runSwurl(["--offline", "-f", "POST", "127.0.0.1:9/m", "f@f.txt", "Content-Type:multipart/mixed; boundary=zz"], directory: dir)
        XCTAssertEqual(other.status, 64, other.stderr)
        XCTAssertTrue(other.stderr.contains("names the boundary 'zz'"), other.stderr)
        let same = try runSwurl(["--offline", "--boundary", "zz", "-f", "POST", "127.0.0.1:9/m", "f@f.txt", "Content-Type:multipart/mixed; boundary=zz"], directory: dir)
        XCTAssertEqual(same.status, 0, same.stderr)
        XCTAssertTrue(same.text.contains("Content-Type: multipart/mixed; boundary=zz\r\n"), same.text)
    }

    /// A file saved with a UTF-8 byte order mark (Windows editors) gives its text without it to
    /// every `@file` value: `:@file` and `==@file` sent the three bytes in the header and query.
    func testAByteOrderMarkIsNoPartOfAFilesValue() throws {
        try (Data([0xEF, 0xBB, 0xBF]) + Data("tok\r\n".utf8)).write(to: URL(fileURLWithPath: dir + "/bom.txt"))
        try (Data([0xEF, 0xBB, 0xBF]) + Data("5".utf8)).write(to: URL(fileURLWithPath: dir + "/num.json"))
        let sent = try runSwurl(["--offline", "POST", "127.0.0.1:9/x", "X-Token:@bom.txt", "q==@bom.txt", "f=@bom.txt", "j:=@num.json"], directory: dir)
        XCTAssertEqual(sent.status, 0, sent.stderr)
        XCTAssertFalse(sent.stdout.contains(0xEF), sent.text)
        XCTAssertTrue(sent.text.hasPrefix("POST /x?q=tok HTTP/1.1\r\n"), sent.text)
        XCTAssertTrue(sent.text.contains("\r\nX-Token: tok\r\n"), sent.text)
        XCTAssertTrue(sent.text.hasSuffix(#"{"f":"tok\r\n","j":5}"#), sent.text)
    }

    /// Item mixes HTTPie users write: a form's plain name after the same name with [] is its
    /// own pair (it was sent as o[]); nested keys under a := container, two body files, --raw
    /// with items and a length with --chunked are refused, naming what clashes.
    func testItemClashesAreSentAsWrittenOrNamed() throws {
        let form = try runSwurl(["-b", "-f", "POST", try HTTPBin.url("/anything"), "o[]=1", "o=2"])
        XCTAssertEqual(form.status, 0, form.stderr)
        let echo = try XCTUnwrap(try JSONSerialization.jsonObject(with: form.stdout) as? [String: Any])
        XCTAssertEqual(echo["form"] as? [String: String], ["o[]": "1", "o": "2"], form.text)
        let json = try runSwurl(["--offline", "POST", "127.0.0.1:9/x", "o:=[1]", "o[]=3"])
        XCTAssertEqual(json.status, 64, json.stderr)
        XCTAssertTrue(json.stderr.contains("JSON given whole with :="), json.stderr)
        try Data("x".utf8).write(to: URL(fileURLWithPath: dir + "/t.txt"))
        let twice = try runSwurl(["--offline", "POST", "127.0.0.1:9/x", "@t.txt", "@t.txt"], directory: dir)
        XCTAssertEqual(twice.status, 64, twice.stderr)
        XCTAssertTrue(twice.stderr.contains("'@t.txt' and '@t.txt' each send a file as the whole body"), twice.stderr)
        let raw = try runSwurl(["--offline", "POST", "127.0.0.1:9/x", "--raw", "x", "a=1"])
        XCTAssertTrue(raw.stderr.contains("--raw cannot be combined with data items (got 'a=1')"), raw.stderr)
        let chunked = try runSwurl(["--offline", "--chunked", "POST", "127.0.0.1:9/x", "a=1", "Content-Length:9"])
        XCTAssertEqual(chunked.status, 64, chunked.stderr)
        XCTAssertTrue(chunked.stderr.contains("Content-Length:9 cannot go with chunked transfer encoding"), chunked.stderr)
        // Chunks that come from stdin past 1 MiB, not from an option: the message said to drop
        // --chunked, which was never given.
        let piped = try runProcess("/bin/sh", ["-c", "head -c 1200000 /dev/zero | exec \"$0\" --offline PUT 127.0.0.1:9/x Content-Length:1200000",
                                               TestPaths.binary], check: false)
        XCTAssertEqual(piped.status, 64, piped.stderr)
        XCTAssertTrue(piped.stderr.contains("Content-Length:1200000 cannot go with this body: read from a pipe as it is sent, past the first 1 MiB, it goes chunked"),
                      piped.stderr)
        XCTAssertFalse(piped.stderr.contains("--chunked"), piped.stderr)
    }

    /// Bodies a request cannot carry are refused before anything is sent, naming what made them.
    func testAHeadRequestWithABodyIsRefusedAndFramingMessagesSayWhatIsSent() throws {
        let url = try HTTPBin.url("/anything")
        let head = try runSwurl(["HEAD", url, "a=1"])
        XCTAssertEqual(head.status, 64, head.stderr)
        XCTAssertTrue(head.stderr.contains("a HEAD request sends no body, and 'a=1' would be one"), head.stderr)
        let raw = try runSwurl(["HEAD", url, "--raw", "x"])
        XCTAssertEqual(raw.status, 64, raw.stderr)
        XCTAssertTrue(raw.stderr.contains("'--raw' would be one"), raw.stderr)
        // Nor may a TRACE (RFC 9110 §9.3.8): it was sent with its body.
        let trace = try runSwurl(["TRACE", url, "a=1"])
        XCTAssertEqual(trace.status, 64, trace.stderr)
        XCTAssertTrue(trace.stderr.contains("a TRACE request sends no body, and 'a=1' would be one"), trace.stderr)
        let plain = try runSwurl(["-h", "HEAD", url, "x==1"])
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertTrue(plain.text.hasPrefix("HTTP/1.1 200"), plain.text)

        let length = try runSwurl(["GET", url, "Content-Length:5"])
        XCTAssertEqual(length.status, 64, length.stderr)
        XCTAssertTrue(length.stderr.contains("does not match the body swurl sends (no body)"), length.stderr)
    }

    /// A JSON file item: a UTF-8 byte order mark is skipped; invalid JSON names the item.
    func testJSONFileItemsSkipAByteOrderMarkAndNameTheItemWhenInvalid() throws {
        try Data([0xEF, 0xBB, 0xBF] + Array(#"{"a":1}"#.utf8)).write(to: URL(fileURLWithPath: dir + "/bom.json"))
        try Data(#"{"a":"#.utf8).write(to: URL(fileURLWithPath: dir + "/bad.json"))
        let r = try runSwurl(["POST", try HTTPBin.url("/anything"), "b:=@bom.json"], directory: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try r.json()["json"] as? NSDictionary, ["b": ["a": 1]] as NSDictionary)
        let bad = try runSwurl(["POST", try HTTPBin.url("/anything"), "b:=@bad.json"], directory: dir)
        XCTAssertEqual(bad.status, 65, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("invalid JSON in file 'bad.json' (from 'b:=@bad.json')"), bad.stderr)
    }

    func testFormBytesAreAFNetworkingsEncoding() throws {
        let r = try runSwurl(["--offline", "-f", "POST", "example.org/x", "user[name]=A B", "tags[]=x/y?z", "k=%41"])
        XCTAssertTrue(r.text.hasSuffix("\r\n\r\nuser%5Bname%5D=A%20B&tags%5B%5D=x/y?z&k=%2541"), r.text)
    }

    func testFormWithGETGoesToTheQueryString() throws {
        let r = try runSwurl(["-f", "GET", try HTTPBin.url("/anything?x=1"), "a[b]=c", "d==e"])
        let echo = try r.json()
        XCTAssertEqual(echo["args"] as? [String: String], ["x": "1", "a[b]": "c", "d": "e"])
        XCTAssertEqual(echo["data"] as? String, "")
    }

    // MARK: property lists

    func testPlistXMLAndBinaryReadBackByPlistlib() throws {
        let items = ["name=Ann", "age:=30", "ratio:=0.25", "ok:=true", "tags[]=a", "tags[]:=2", "nested[k]=é☃", "empty:={}", "list:=[]",
                     "neg:=-70000", "big:=4294967296"]
        let expected = #"{"name": "Ann", "age": 30, "ratio": 0.25, "ok": true, "tags": ["a", 2], "nested": {"k": "\u00e9\u2603"}, "empty": {}, "list": [], "neg": -70000, "big": 4294967296}"#
        for format in ["xml", "binary"] {
            let capture = try SinkServer(saveBodiesTo: dir)
            let r = try runSwurl(["--plist=\(format)", "POST", capture.url + "/p"] + items)
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual((try r.json()["headers"] as? [String: String])?["Content-Type"], "application/x-plist")
            let decoded = try runPython("""
            import plistlib, json, sys
            data = open(sys.argv[1], 'rb').read()
            assert data.startswith(b'bplist00') == (sys.argv[2] == 'binary'), data[:40]
            print(json.dumps(plistlib.loads(data)))
            """, arguments: [dir + "/body.bin", format])
            XCTAssertEqual(decoded.trimmingCharacters(in: .whitespacesAndNewlines), expected, format)
        }
    }

    func testPlistNullIsBadData() throws {
        let r = try runSwurl(["--plist", "--offline", "POST", "example.org", "a[b]:=null"])
        XCTAssertEqual(r.status, 65)
        XCTAssertTrue(r.stderr.contains("a[b]"), r.stderr)
    }

    /// Regression: 1e400 went out as +inf in binary plists, and XML took integers binary refused.
    func testPlistUnencodableNumbersAreBadDataInBothFormats() throws {
        for format in ["xml", "binary"] {
            for value in ["1e400", "18446744073709551616", "-9223372036854775809"] {
                let r = try runSwurl(["--plist=\(format)", "--offline", "POST", "example.org", "a[f]:=\(value)"])
                XCTAssertEqual(r.status, 65, "\(format) \(value): \(r.stderr)")
                XCTAssertTrue(r.stderr.contains("'a[f]'"), r.stderr)
            }
        }
        // The whole 64-bit range goes through, and plistlib reads it back.
        let r = try runSwurl(["--plist=binary", "--offline", "--print=B", "POST", "example.org",
                              "u:=18446744073709551615", "s:=-9223372036854775808"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let tmp = TestPaths.temporaryDirectory()
        try r.stdout.write(to: URL(fileURLWithPath: tmp + "/b.plist"))
        let decoded = try runPython("import plistlib,sys; d = plistlib.load(open(sys.argv[1], 'rb')); print(d['u'], d['s'])",
                                    arguments: [tmp + "/b.plist"])
        XCTAssertEqual(decoded.trimmingCharacters(in: .whitespacesAndNewlines), "18446744073709551615 -9223372036854775808")
    }

    func testLargePlistWithManyObjectsReadsBack() throws {
        let items = (0..<300).map { "k\($0)[]:=\($0)" }
        let capture = try SinkServer(saveBodiesTo: dir)
        let r = try runSwurl(["--plist=binary", "POST", capture.url] + items)
        XCTAssertEqual(r.status, 0, r.stderr)
        let count = try runPython("import plistlib, sys; d = plistlib.loads(open(sys.argv[1], 'rb').read()); print(len(d), d['k299'])",
                                  arguments: [dir + "/body.bin"])
        XCTAssertEqual(count.trimmingCharacters(in: .whitespacesAndNewlines), "300 [299]")
    }

    // MARK: multipart

    private func makeFiles() throws -> [String: Data] {
        var files: [String: Data] = [
            "text.txt": Data("hello\r\nworld\n--not-a-boundary\n".utf8),
            "binary.bin": Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }),
            "empty.dat": Data(),
        ]
        files["we\"ird na;me é.txt"] = Data("odd name".utf8)
        for (name, data) in files {
            FileManager.default.createFile(atPath: dir + "/" + name, contents: data)
        }
        return files
    }

    func testMultipartAsHttpbinReadsIt() throws {
        let files = try makeFiles()
        let r = try runSwurl(["-f", "POST", try HTTPBin.url("/anything"), "title=Trip", "user[name]=Ann",
                              "doc@text.txt", "bin@binary.bin", "none@empty.dat", "odd@we\"ird na;me é.txt;type=text/x-odd",
                              "tags[]=a", "tags[]=b", "rep=1", "rep=2"], directory: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        let echo = try r.json()
        XCTAssertEqual(echo["form"] as? NSDictionary, ["title": "Trip", "user[name]": "Ann", "tags[]": ["a", "b"], "rep": ["1", "2"]] as NSDictionary)
        let got = echo["files"] as? [String: String] ?? [:]
        XCTAssertEqual(got["doc"], String(decoding: files["text.txt"]!, as: UTF8.self))
        XCTAssertEqual(got["none"], "")
        XCTAssertEqual(got["odd"], "odd name")
        let b64 = files["binary.bin"]!.base64EncodedString()
        XCTAssertEqual(got["bin"], "data:application/octet-stream;base64," + b64)
        let ct = (echo["headers"] as? [String: String])?["Content-Type"] ?? ""
        XCTAssertTrue(ct.hasPrefix("multipart/form-data; boundary=swurl-"), ct)
    }

    func testMultipartAsPythonsEmailParserReadsItAndOfflineEqualsSent() throws {
        let files = try makeFiles()
        let sink = try SinkServer(saveBodiesTo: dir)
        let args = ["--multipart", "--boundary", "XyZ-123", "POST", sink.url + "/up", "title=Tr\"ip", "we\"ird key=v",
                    "doc@text.txt", "bin@binary.bin;filename=renamed.bin", "none@empty.dat",
                    "odd@we\"ird na;me é.txt;type=text/x-odd", "cert@text.txt;filename=c.crt"]
        let sent = try runSwurl(args, directory: dir)
        XCTAssertEqual(sent.status, 0, sent.stderr)
        let received = try sent.json()
        let offline = try runSwurl(["--offline", "-p", "B"] + args, directory: dir)
        XCTAssertEqual(offline.status, 0, offline.stderr)
        let offlineSHA = try runPython("import hashlib,sys; print(hashlib.sha256(open(sys.argv[1],'rb').read()).hexdigest())",
                                       arguments: [dir + "/body.bin"])
        XCTAssertEqual(received["sha256"] as? String, offlineSHA.trimmingCharacters(in: .whitespacesAndNewlines))
        XCTAssertEqual(offline.stdout, try Data(contentsOf: URL(fileURLWithPath: dir + "/body.bin")))
        let headers = received["headers"] as? [String: String] ?? [:]
        XCTAssertEqual(headers["Content-Type"], "multipart/form-data; boundary=XyZ-123")
        XCTAssertEqual(headers["Content-Length"], String(offline.stdout.count), "exact Content-Length, no chunking")
        XCTAssertNil(headers["Transfer-Encoding"])
        XCTAssertTrue(offline.stdout.starts(with: Data("--XyZ-123\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nTr\"ip\r\n--XyZ-123\r\n".utf8)))
        XCTAssertTrue(offline.stdout.suffix(13) == Data("\r\n--XyZ-123--\r\n".utf8).suffix(13))
        // `"` in a name or filename goes as `%22`, as browsers, curl and HTTPie send it (a
        // backslash before it failed the whole body in parsers that follow browsers).
        XCTAssertTrue(offline.text.contains("Content-Disposition: form-data; name=\"we%22ird key\"\r\n"), offline.text)
        XCTAssertTrue(offline.text.contains("name=\"odd\"; filename=\"we%22ird na;me é.txt\"\r\n"), offline.text)

        // Werkzeug (Flask's, httpbin's) reads the body as a browser's.
        let parsed = try runPython(#"""
        import sys, json, base64, io
        from werkzeug.formparser import parse_form_data
        body = open(sys.argv[1], 'rb').read()
        _, form, files = parse_form_data({'REQUEST_METHOD': 'POST', 'CONTENT_TYPE': 'multipart/form-data; boundary=XyZ-123',
                                          'CONTENT_LENGTH': str(len(body)), 'wsgi.input': io.BytesIO(body)})
        out = [{'name': k, 'filename': None, 'type': None, 'data': base64.b64encode(v.encode()).decode()} for k, v in form.items(multi=True)]
        out += [{'name': k, 'filename': f.filename, 'type': f.content_type, 'data': base64.b64encode(f.read()).decode()}
                for k, f in files.items(multi=True)]
        print(json.dumps(out))
        """#, arguments: [dir + "/body.bin"])
        let parts = try JSONSerialization.jsonObject(with: Data(parsed.utf8)) as? [[String: Any]] ?? []
        func b64(_ d: Data) -> String { d.base64EncodedString() }
        let expected: [(String, String?, String?, Data)] = [
            ("title", nil, nil, Data("Tr\"ip".utf8)),
            ("we\"ird key", nil, nil, Data("v".utf8)),
            ("doc", "text.txt", "text/plain", files["text.txt"]!),
            ("bin", "renamed.bin", "application/octet-stream", files["binary.bin"]!),
            ("none", "empty.dat", "application/octet-stream", Data()),
            ("odd", "we\"ird na;me é.txt", "text/x-odd", files["we\"ird na;me é.txt"]!),
            ("cert", "c.crt", "application/x-x509-ca-cert", files["text.txt"]!),
        ]
        XCTAssertEqual(parts.count, expected.count, parsed)
        for (part, want) in zip(parts, expected) {
            XCTAssertEqual(part["name"] as? String, want.0)
            XCTAssertEqual(part["filename"] as? String, want.1)
            XCTAssertEqual(part["type"] as? String, want.2, want.0)
            XCTAssertEqual(part["data"] as? String, b64(want.3), want.0)
        }
    }

    /// Stdin longer than the read-ahead (1 MiB) streams in chunks (a shorter one is held and
    /// sent with its length: RedirectTests).
    func testMultipartFilePartFromStdinIsStreamedChunked() throws {
        let sink = try SinkServer(saveBodiesTo: dir)
        let payload = Data((0..<1_200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let r = try runSwurl(["--multipart", "--boundary", "B0", "POST", sink.url, "a=1", "f@-;filename=from-stdin.bin"], stdin: payload)
        XCTAssertEqual(r.status, 0, r.stderr)
        let received = try r.json()
        XCTAssertEqual((received["headers"] as? [String: String])?["Transfer-Encoding"], "chunked")
        let body = try Data(contentsOf: URL(fileURLWithPath: dir + "/body.bin"))
        let head = Data("--B0\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--B0\r\nContent-Disposition: form-data; name=\"f\"; filename=\"from-stdin.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n".utf8)
        XCTAssertEqual(body, head + payload + Data("\r\n--B0--\r\n".utf8))
        // `;filename=` names the part's type for stdin as it does for a file (it was octet-stream).
        let csv = try runSwurl(["--multipart", "--boundary", "B1", "POST", sink.url, "f@-;filename=x.csv"], stdin: Data("a,b\n".utf8))
        XCTAssertEqual(csv.status, 0, csv.stderr)
        let csvBody = String(decoding: try Data(contentsOf: URL(fileURLWithPath: dir + "/body.bin")), as: UTF8.self)
        XCTAssertTrue(csvBody.contains("filename=\"x.csv\"\r\nContent-Type: text/csv\r\n"), csvBody)
    }

    func testMultipartErrors() throws {
        FileManager.default.createFile(atPath: dir + "/f", contents: Data("x".utf8))
        let get = try runSwurl(["--multipart", "GET", "example.org", "f@f"], directory: dir)
        XCTAssertEqual(get.status, 64)
        XCTAssertTrue(get.stderr.contains("cannot be sent with GET"), get.stderr)
        let missing = try runSwurl(["--multipart", "POST", "example.org", "f@nope"], directory: dir)
        XCTAssertEqual(missing.status, 66)
        let directory = try runSwurl(["--multipart", "POST", "example.org", "f@."], directory: dir)
        XCTAssertEqual(directory.status, 66)
        let json = try runSwurl(["POST", "example.org", "f@f"], directory: dir)
        XCTAssertEqual(json.status, 64)
        XCTAssertTrue(json.stderr.contains("--form"), json.stderr)
        let unreadable = dir + "/secret"
        FileManager.default.createFile(atPath: unreadable, contents: Data("x".utf8), attributes: [.posixPermissions: 0])
        if getuid() != 0 {
            XCTAssertEqual(try runSwurl(["--multipart", "POST", "example.org", "f@secret"], directory: dir).status, 66)
        }
    }

    /// A 1 GiB sparse file uploads streamed: the server receives exactly the offline body.
    func testOneGibibyteSparseFileUpload() throws {
        let path = dir + "/big.img"
        FileManager.default.createFile(atPath: path, contents: nil)
        let h = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try h.truncate(atOffset: 1 << 30)
        try h.close()
        let sink = try SinkServer()
        let r = try runSwurl(["--multipart", "--boundary", "BIG", "POST", sink.url, "name=big", "file@big.img"], directory: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        let received = try r.json()
        let head = "--BIG\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nbig\r\n--BIG\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.img\"\r\nContent-Type: application/octet-stream\r\n\r\n"
        let expected = try runPython("""
        import hashlib, sys
        h = hashlib.sha256(sys.argv[1].encode()); z = bytes(1 << 20)
        for _ in range(1024): h.update(z)
        h.update(b'\\r\\n--BIG--\\r\\n'); print(h.hexdigest())
        """, arguments: [head])
        XCTAssertEqual(received["length"] as? Int, head.utf8.count + (1 << 30) + 11)
        XCTAssertEqual(received["sha256"] as? String, expected.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    // MARK: raw bodies

    func testFileAsWholeBodyGetsTypeFromExtension() throws {
        try #"{"from":"file"}"#.write(toFile: dir + "/b.json", atomically: true, encoding: .utf8)
        let r = try runSwurl(["PUT", try HTTPBin.url("/anything"), "@b.json"], directory: dir)
        let echo = try r.json()
        XCTAssertEqual(echo["json"] as? [String: String], ["from": "file"])
        XCTAssertEqual((echo["headers"] as? [String: String])?["Content-Type"], "application/json")
        XCTAssertEqual((echo["headers"] as? [String: String])?["Content-Length"], "15")
    }

    func testChunkedForcesChunkedEncoding() throws {
        let sink = try SinkServer()
        let r = try runSwurl(["--chunked", "POST", sink.url, "a=1"])
        let received = try r.json()
        XCTAssertEqual((received["headers"] as? [String: String])?["Transfer-Encoding"], "chunked")
        XCTAssertNil((received["headers"] as? [String: String])?["Content-Length"])
        XCTAssertEqual(received["length"] as? Int, 9)
    }
}
