import Foundation
import SwurlTestSupport
import XCTest

/// The Debian package `make deb` builds: its metadata, its files (paths, modes, owners, contents),
/// and the packaged binary run from a scratch root. `make test` builds the package after the
/// release binary and runs this test with SWURL_DEB set to it; without SWURL_DEB the test fails
/// and says how to run it (building a release binary from inside `swift test` would wait on the
/// build directory that `swift test` holds).
final class PackageTests: XCTestCase {
    /// The package under test; fails (never skips) when it is not there.
    static func debPath() throws -> String {
        guard let path = ProcessInfo.processInfo.environment["SWURL_DEB"], !path.isEmpty else {
            throw TestServerError("SWURL_DEB is not set: run `make test`, or `make deb` and then "
                + "SWURL_DEB=$PWD/swurl_$(scripts/package-version)_$(dpkg --print-architecture).deb swift test --skip-build --filter swurlTests.PackageTests")
        }
        guard FileManager.default.fileExists(atPath: path) else {
            throw TestServerError("SWURL_DEB=\(path): no such package (make deb builds it)")
        }
        return path
    }

    static func run(_ tool: String, _ arguments: [String]) throws -> String {
        let r = try runProcess(tool, arguments)
        return String(decoding: r.stdout, as: UTF8.self)
    }

    /// The package's version for a build of `commit`: VERSION for a commit tagged vVERSION (a
    /// release), else VERSION+gitTIME.COMMIT, TIME the commit's time in UTC (YYYYMMDDhhmmss), so
    /// that apt takes a later build of one VERSION as an upgrade (every build said 0.9.0, and apt
    /// kept the first); VERSION alone outside a git checkout.
    static func packageVersion(commit: String) throws -> String {
        let version = try TestPaths.version()
        func git(_ args: [String]) -> String? {
            guard let r = try? runProcess("/usr/bin/git", ["-C", TestPaths.packageRoot] + args, environment: ProcessInfo.processInfo.environment.merging(["TZ": "UTC"]) { $1 }, check: false),
                  r.status == 0 else { return nil }
            return String(decoding: r.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard commit != "unknown", let time = git(["log", "-1", "--format=%cd", "--date=format-local:%Y%m%d%H%M%S", commit]),
              !time.isEmpty else { return version }
        if git(["tag", "--points-at", commit])?.split(separator: "\n").contains(Substring("v" + version)) == true { return version }
        return "\(version)+git\(time).\(commit)"
    }

    /// The commit the packaged binary says it was built from (`swurl --version`): HEAD may have
    /// moved since the package was made.
    static func packagedCommit(_ deb: String) throws -> String {
        let root = TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        _ = try run("/usr/bin/dpkg-deb", ["-x", deb, root])
        let text = try run(root + "/usr/bin/swurl", ["--version"])
        guard let open = text.range(of: "(commit "), let close = text[open.upperBound...].firstIndex(of: ")") else {
            throw TestServerError("the packaged binary names no commit: \(text)")
        }
        return String(text[open.upperBound..<close])
    }

    static func architecture() throws -> String {
        try run("/usr/bin/dpkg", ["--print-architecture"]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The package names of a relationship field (`libc6 (>= 2.36), libcurl4 (>= 7.80.0) | x`).
    static func packageNames(_ field: String) -> Set<String> {
        var names: Set<String> = []
        for alternative in field.split(whereSeparator: { $0 == "," || $0 == "|" }) {
            if let name = alternative.split(separator: " ").first { names.insert(String(name)) }
        }
        return names
    }

    func testMetadata() throws {
        let deb = try PackageTests.debPath()
        let version = try PackageTests.packageVersion(commit: try PackageTests.packagedCommit(deb))
        let arch = try PackageTests.architecture()
        XCTAssertEqual((deb as NSString).lastPathComponent, "swurl_\(version)_\(arch).deb")
        // Debian orders it after the release of its VERSION.
        XCTAssertEqual(try runProcess("/usr/bin/dpkg", ["--compare-versions", version, "ge", try TestPaths.version()], check: false).status, 0)
        func field(_ name: String) throws -> String {
            try PackageTests.run("/usr/bin/dpkg-deb", ["-f", deb, name]).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        XCTAssertEqual(try field("Package"), "swurl")
        XCTAssertEqual(try field("Version"), version)
        XCTAssertEqual(try field("Architecture"), arch)
        XCTAssertEqual(try field("Section"), "web")
        XCTAssertEqual(try field("Priority"), "optional")
        XCTAssertFalse(try field("Maintainer").isEmpty)
        XCTAssertFalse(try field("Description").isEmpty)
        let size = Int(try field("Installed-Size")) ?? 0
        XCTAssertGreaterThan(size, 1000, "Installed-Size in KiB; the binary alone is several MB")
        // Depends comes from dpkg-shlibdeps, with versions; readline is only recommended (dlopen).
        let depends = try field("Depends")
        XCTAssertTrue(PackageTests.packageNames(depends).isSuperset(of: ["libc6", "libcurl4", "libssl3"]), depends)
        // libcurl 7.85 is the first with CURLOPT_PROTOCOLS_STR, which every transfer sets (the
        // symbols alone said 7.80, where every request would fail).
        XCTAssertTrue(depends.contains("libcurl4 (>= 7.85.0)"), depends)
        XCTAssertTrue(depends.contains("libc6 (>= "), depends)
        XCTAssertFalse(PackageTests.packageNames(depends).contains("libreadline8"), depends)
        XCTAssertEqual(PackageTests.packageNames(try field("Recommends")), ["libreadline8"])
    }

    func testContentsModesAndOwners() throws {
        let deb = try PackageTests.debPath()
        // `drwxr-xr-x root/root 0 2026-12-02 04:40 ./usr/bin/`: mode, owner, size, date, time, path.
        let listing = try PackageTests.run("/usr/bin/dpkg-deb", ["-c", deb])
        var files: [String: String] = [:]
        var directories: Set<String> = []
        for line in listing.split(separator: "\n") {
            let words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard words.count >= 6 else { XCTFail("unexpected listing line: \(line)"); continue }
            XCTAssertEqual(words[1], "root/root", String(line))
            let path = words[5...].joined(separator: " ")
            if words[0].hasPrefix("d") {
                XCTAssertEqual(words[0], "drwxr-xr-x", String(line))
                directories.insert(path)
            } else {
                files[path] = words[0]
            }
        }
        var expected: [String: String] = [
            "./usr/bin/swurl": "-rwxr-xr-x",
            "./usr/share/man/man1/swurl.1.gz": "-rw-r--r--",
            "./usr/share/bash-completion/completions/swurl": "-rw-r--r--",
            "./usr/share/zsh/vendor-completions/_swurl": "-rw-r--r--",
            "./usr/share/fish/vendor_completions.d/swurl.fish": "-rw-r--r--",
            "./usr/share/doc/swurl/copyright": "-rw-r--r--",
            "./usr/share/doc/swurl/changelog.Debian.gz": "-rw-r--r--",
            "./usr/share/doc/swurl/changelog.gz": "-rw-r--r--",
            "./usr/share/lintian/overrides/swurl": "-rw-r--r--",
            "./usr/share/doc/swurl/README.md": "-rw-r--r--",
        ]
        // The user documentation, as in the repository: README.md and every docs/ file.
        let docs = TestPaths.packageRoot + "/docs"
        for name in (try? FileManager.default.subpathsOfDirectory(atPath: docs)) ?? [] {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: docs + "/" + name, isDirectory: &isDirectory), !isDirectory.boolValue {
                expected["./usr/share/doc/swurl/docs/" + name] = "-rw-r--r--"
            }
        }
        XCTAssertEqual(files, expected, listing)
        XCTAssertTrue(directories.contains("./usr/bin/"), listing)
    }

    func testInstalledIntoAScratchRootAndRun() throws {
        let deb = try PackageTests.debPath()
        let version = try TestPaths.version()
        let root = TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        _ = try PackageTests.run("/usr/bin/dpkg-deb", ["-x", deb, root])

        // The documentation files are the repository's, compressed with gzip -9n.
        func gunzip(_ path: String) throws -> Data {
            try runProcess("/bin/gzip", ["-dc", root + path]).stdout
        }
        func repo(_ path: String) throws -> Data {
            try Data(contentsOf: URL(fileURLWithPath: TestPaths.packageRoot + "/" + path))
        }
        func installed(_ path: String) throws -> Data {
            try Data(contentsOf: URL(fileURLWithPath: root + path))
        }
        XCTAssertEqual(try gunzip("/usr/share/man/man1/swurl.1.gz"), try repo("man/swurl.1"))
        XCTAssertEqual(try gunzip("/usr/share/doc/swurl/changelog.gz"), try repo("CHANGELOG.md"))
        XCTAssertEqual(try installed("/usr/share/bash-completion/completions/swurl"), try repo("completions/swurl.bash"))
        XCTAssertEqual(try installed("/usr/share/zsh/vendor-completions/_swurl"), try repo("completions/_swurl"))
        XCTAssertEqual(try installed("/usr/share/fish/vendor_completions.d/swurl.fish"), try repo("completions/swurl.fish"))
        XCTAssertEqual(try installed("/usr/share/doc/swurl/copyright"), try repo("packaging/copyright"))
        // The documents' links to files the package does not install lead to what it installs.
        func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }
        let readme = text(try repo("README.md")).replacingOccurrences(of: "](CHANGELOG.md)", with: "](changelog.gz)")
            .replacingOccurrences(of: "](LICENSE)", with: "](copyright)")
            .replacingOccurrences(of: "[CONTRIBUTING.md](CONTRIBUTING.md)", with: "CONTRIBUTING.md (in the source tree)")
        XCTAssertEqual(text(try installed("/usr/share/doc/swurl/README.md")), readme)
        XCTAssertEqual(text(try installed("/usr/share/doc/swurl/docs/cache.md")),
                       text(try repo("docs/cache.md")).replacingOccurrences(of: "](../man/swurl.1)", with: "](../../../man/man1/swurl.1.gz)"))
        // Every relative link of the installed documents leads to an installed file.
        for document in ["/usr/share/doc/swurl/README.md"] + (try FileManager.default.contentsOfDirectory(atPath: root + "/usr/share/doc/swurl/docs"))
            .filter { $0.hasSuffix(".md") }.map { "/usr/share/doc/swurl/docs/" + $0 } {
            let body = text(try installed(document))
            var rest = body[...]
            while let open = rest.range(of: "](") {
                rest = rest[open.upperBound...]
                guard let close = rest.firstIndex(of: ")") else { break }
                let target = String(rest[..<close]).components(separatedBy: "#")[0]
                rest = rest[close...]
                if target.isEmpty || target.contains("://") || target.hasPrefix("mailto:") { continue }
                let path = ((root + document) as NSString).deletingLastPathComponent + "/" + target
                XCTAssertTrue(FileManager.default.fileExists(atPath: (path as NSString).standardizingPath), "\(document): \(target)")
            }
        }
        let copyright = String(decoding: try installed("/usr/share/doc/swurl/copyright"), as: UTF8.self)
        XCTAssertTrue(copyright.hasPrefix("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"))
        let changelog = String(decoding: try gunzip("/usr/share/doc/swurl/changelog.Debian.gz"), as: UTF8.self)
        XCTAssertTrue(changelog.hasPrefix("swurl (\(try PackageTests.packageVersion(commit: try PackageTests.packagedCommit(deb)))) unstable; urgency=medium\n"), changelog)
        // gzip -n: no name or time stamp in the header (bytes 4-7 are the mtime).
        let man = try installed("/usr/share/man/man1/swurl.1.gz")
        XCTAssertEqual(man.count > 10 ? Array(man[4..<8]) : [], [0, 0, 0, 0])

        // The packaged binary runs: its version, then one request against httpbin.
        let swurl = root + "/usr/bin/swurl"
        let v = try runProcess(swurl, ["--version"], check: false)
        XCTAssertEqual(v.status, 0, v.stderr)
        let text = String(decoding: v.stdout, as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("swurl \(version) (commit "), text)
        XCTAssertTrue(text.contains("\nlibcurl "), text)

        var env = ProcessInfo.processInfo.environment
        for key in ["http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy"] {
            env.removeValue(forKey: key)
        }
        let r = try runProcess(swurl, ["POST", try HTTPBin.url("/anything"), "name=Ann", "X-Trace:package"],
                               environment: env, check: false)
        XCTAssertEqual(r.status, 0, r.stderr)
        let echo = try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any] ?? [:]
        XCTAssertEqual(echo["json"] as? NSDictionary, ["name": "Ann"] as NSDictionary)
        let headers = echo["headers"] as? [String: String] ?? [:]
        XCTAssertEqual(headers["X-Trace"], "package")
        XCTAssertEqual(headers["User-Agent"], "swurl/\(version)")
    }
}
