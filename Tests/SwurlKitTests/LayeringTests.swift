import Foundation
import SwurlTestSupport
import XCTest

/// The layers of shared/DESIGN.md, checked on the sources: C modules are imported only by the
/// code that wraps them. Paths are matched by folder name, so the rules hold both while the
/// layers are folders of SwurlKit (`Sources/SwurlKit/Curl`) and once they are targets of their
/// own (`Sources/SwurlCurl`).
final class LayeringTests: XCTestCase {
    /// One import that breaks a rule.
    struct Violation: Equatable, CustomStringConvertible {
        var path: String
        var line: Int
        var module: String
        var description: String { "\(path):\(line): import \(module) is not allowed here" }
    }

    /// Which files may import a C module; `components` are the path's folders below Sources.
    static func allows(module: String, folders: [String], fileName: String) -> Bool {
        let inCurl = folders.contains("Curl") || folders.contains("SwurlCurl")
        let inSecurity = folders.contains("Security") || folders.contains("SwurlSecurity")
        switch module {
        case "CCurl":
            return inCurl
        case "CShims":
            // The shim holds libcurl's variadic calls and OpenSSL's macros; it splits in two
            // when the targets do, until then Security uses its OpenSSL half.
            return inCurl || inSecurity
        case "COpenSSL":
            // Besides Security, only the wrapper's TLS hook may see OpenSSL.
            return inSecurity || (inCurl && fileName.contains("TLS"))
        case "CReadline":
            return fileName.hasPrefix("Repl") || fileName.hasPrefix("Readline")
        case "CBuildInfo":
            return fileName == "BuildInfo.swift"
        case "CNetlink":
            // rtnetlink stays behind the engine's route monitor.
            return (folders.contains("Session") || folders.contains("SwurlSession")) && fileName.hasPrefix("RouteMonitor")
        default:
            return true
        }
    }

    static let cModules = ["CCurl", "CShims", "COpenSSL", "CReadline", "CNetlink", "CBuildInfo"]

    /// The C modules a Swift file imports, with their line numbers: `import CCurl`,
    /// `@preconcurrency import CCurl`, `@_exported import CCurl`, `import struct CCurl.CURL`.
    static func cImports(in text: String) -> [(line: Int, module: String)] {
        var found: [(Int, String)] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var words = raw.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            while let first = words.first, first.hasPrefix("@") { words.removeFirst() }
            guard words.first == "import", words.count >= 2 else { continue }
            let kinds: Set<String> = ["struct", "class", "enum", "protocol", "typealias", "func", "var", "let"]
            let path = kinds.contains(words[1]) && words.count >= 3 ? words[2] : words[1]
            let module = String(path.prefix { $0 != "." && $0 != ";" })
            if cModules.contains(module) { found.append((index + 1, module)) }
        }
        return found
    }

    /// Every rule broken by the Swift files under `sourcesRoot`.
    static func violations(sourcesRoot: String) throws -> [Violation] {
        let fm = FileManager.default
        guard let walker = fm.enumerator(atPath: sourcesRoot) else {
            throw NSError(domain: "LayeringTests", code: 1, userInfo: [NSLocalizedDescriptionKey: "cannot list \(sourcesRoot)"])
        }
        var result: [Violation] = []
        while let relative = walker.nextObject() as? String {
            guard relative.hasSuffix(".swift") else { continue }
            let text = try String(contentsOfFile: sourcesRoot + "/" + relative, encoding: .utf8)
            var components = relative.split(separator: "/").map(String.init)
            let fileName = components.removeLast()
            for (line, module) in cImports(in: text) where !allows(module: module, folders: components, fileName: fileName) {
                result.append(Violation(path: "Sources/" + relative, line: line, module: module))
            }
        }
        return result.sorted { ($0.path, $0.line) < ($1.path, $1.line) }
    }

    func testOnlyTheWrappersImportCModules() throws {
        let root = TestPaths.packageRoot + "/Sources"
        let found = try LayeringTests.violations(sourcesRoot: root)
        XCTAssertEqual(found, [], found.map(\.description).joined(separator: "\n"))
        // The walk really saw the wrapper's imports (a wrong root would pass vacuously).
        let easy = try String(contentsOfFile: root + "/SwurlCurl/EasyHandle.swift", encoding: .utf8)
        XCTAssertEqual(LayeringTests.cImports(in: easy).map(\.module), ["CCurl", "CShims"])
    }

    /// The layer targets and what each may depend on (shared/DESIGN.md "Package layout").
    static let allowedDependencies: [String: Set<String>] = [
        "SwurlCore": ["CSupport"],
        "SwurlCurl": ["SwurlCore", "CCurl", "CShims"],
        "SwurlSecurity": ["SwurlCore", "COpenSSL", "CShims"],
        "SwurlRequestSerialization": ["SwurlCore"],
        "SwurlResponseSerialization": ["SwurlCore"],
        "SwurlSession": ["SwurlCurl", "SwurlSecurity", "SwurlCore", "CNetlink"],
        "SwurlOutput": ["SwurlResponseSerialization", "SwurlCore"],
        "SwurlCLI": ["SwurlOutput", "SwurlSession", "SwurlResponseSerialization", "SwurlRequestSerialization",
                     "SwurlSecurity", "SwurlCurl", "SwurlCore", "CSupport", "CReadline", "CBuildInfo"],
        "swurl": ["SwurlCLI", "CArguments"],
    ]

    /// Each `.target(name: "X", dependencies: [...])` of Package.swift, read as text.
    static func packageTargets(_ manifest: String) -> [String: Set<String>] {
        var result: [String: Set<String>] = [:]
        var rest = Substring(manifest)
        while let start = rest.range(of: "name: \"") {
            rest = rest[start.upperBound...]
            guard let end = rest.firstIndex(of: "\"") else { break }
            let name = String(rest[..<end])
            // The dependency list belongs to this target only if it comes before the next target.
            let next = rest.range(of: "name: \"")?.lowerBound ?? rest.endIndex
            var deps: Set<String> = []
            if let open = rest.range(of: "dependencies: ["), open.lowerBound < next,
               let close = rest[open.upperBound...].firstIndex(of: "]") {
                for part in rest[open.upperBound..<close].split(separator: ",") {
                    let word = part.filter { $0 != "\"" && $0 != " " && $0 != "\n" }
                    if !word.isEmpty { deps.insert(String(word)) }
                }
            }
            result[name] = deps
        }
        return result
    }

    func testPackageTargetsFollowTheDesignGraph() throws {
        let manifest = try String(contentsOfFile: TestPaths.packageRoot + "/Package.swift", encoding: .utf8)
        let targets = LayeringTests.packageTargets(manifest)
        for (target, allowed) in LayeringTests.allowedDependencies {
            guard let deps = targets[target] else { XCTFail("Package.swift has no target \(target)"); continue }
            let wrong = deps.subtracting(allowed)
            XCTAssertTrue(wrong.isEmpty, "\(target) depends on \(wrong.sorted()), which its layer may not use")
        }
        // The reader is not vacuous: a wrong-way dependency is caught.
        let bad = LayeringTests.packageTargets(#".target(name: "SwurlOutput", dependencies: ["SwurlSession"]),"#)
        XCTAssertEqual(bad["SwurlOutput"], ["SwurlSession"])
    }

    func testImportFormsAreRecognised() {
        let text = """
            import Foundation
            @preconcurrency import CCurl
            @_exported import CShims
              import struct COpenSSL.SSL_CTX
            import CReadline.readline
            // import CCurl
            let importCCurl = 1
            """
        XCTAssertEqual(LayeringTests.cImports(in: text).map(\.line), [2, 3, 4, 5])
        XCTAssertEqual(LayeringTests.cImports(in: text).map(\.module), ["CCurl", "CShims", "COpenSSL", "CReadline"])
    }

    func testRulesFollowFoldersAndTheirTargetNames() {
        func ok(_ module: String, _ path: String) -> Bool {
            var parts = path.split(separator: "/").map(String.init)
            let name = parts.removeLast()
            return LayeringTests.allows(module: module, folders: parts, fileName: name)
        }
        XCTAssertTrue(ok("CCurl", "SwurlKit/Curl/EasyHandle.swift"))
        XCTAssertTrue(ok("CCurl", "SwurlCurl/EasyHandle.swift"))
        XCTAssertFalse(ok("CCurl", "SwurlKit/Session/Transfer.swift"))
        XCTAssertFalse(ok("CCurl", "SwurlSession/Transfer.swift"))
        XCTAssertFalse(ok("CShims", "SwurlKit/CLI/Swurl.swift"))
        XCTAssertFalse(ok("CShims", "SwurlKit/Session/RateLimiter.swift"))
        XCTAssertTrue(ok("COpenSSL", "SwurlSecurity/Certificate.swift"))
        XCTAssertTrue(ok("COpenSSL", "SwurlCurl/EasyTLSHook.swift"))
        XCTAssertFalse(ok("COpenSSL", "SwurlCurl/CurlVersion.swift"))
        XCTAssertFalse(ok("COpenSSL", "SwurlKit/Output/Printer.swift"))
        XCTAssertTrue(ok("CReadline", "SwurlCLI/ReplCommand.swift"))
        XCTAssertFalse(ok("CReadline", "SwurlCLI/Swurl.swift"))
        XCTAssertTrue(ok("CNetlink", "SwurlSession/RouteMonitor.swift"))
        XCTAssertFalse(ok("CNetlink", "SwurlSession/Transfer.swift"))
        XCTAssertFalse(ok("CNetlink", "SwurlCLI/ReachCommand.swift"))
    }
}
