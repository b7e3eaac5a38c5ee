import Foundation
import SwurlTestSupport
import XCTest

/// The layers of docs/ARCHITECTURE.md, checked on Package.swift and the sources: the target
/// graph is the one that document's `targets` block draws (read from there, the one place it
/// is written), and C modules are imported only by the code that wraps them.
final class LayeringTests: XCTestCase {
    /// One import that breaks a rule.
    struct Violation: Equatable, CustomStringConvertible {
        var path: String
        var line: Int
        var module: String
        var description: String { "\(path):\(line): import \(module) is not allowed here" }
    }

    /// Which files may import a C module; `folders` are the path's folders below Sources (the
    /// first is the target).
    static func allows(module: String, folders: [String], fileName: String) -> Bool {
        let target = folders.first ?? ""
        let inCurl = target == "SwurlCurl"
        let inSecurity = target == "SwurlSecurity"
        switch module {
        case "CCurl":
            return inCurl
        case "CShims":
            // The shim holds libcurl's variadic calls and OpenSSL's macros: Security uses its
            // OpenSSL half.
            return inCurl || inSecurity
        case "COpenSSL":
            // Besides Security, only the wrapper's TLS hook may see OpenSSL.
            return inSecurity || (inCurl && fileName.contains("TLS"))
        case "CReadline":
            return target == "SwurlCLI" && (fileName.hasPrefix("Repl") || fileName.hasPrefix("Readline"))
        case "CBuildInfo":
            return target == "SwurlCLI" && fileName == "BuildInfo.swift"
        case "CNetlink":
            // rtnetlink stays behind the engine's route monitor.
            return target == "SwurlEngine" && fileName.hasPrefix("RouteMonitor")
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

    /// The map: docs/ARCHITECTURE.md, whose fenced `targets` block is the target graph.
    static let mapPath = TestPaths.packageRoot + "/docs/ARCHITECTURE.md"

    /// The graph of the map's `targets` block: one `TARGET -> DEP, DEP` line per target (a target
    /// alone on its line depends on nothing).
    /// - Throws: when the document has no such block, or a line or target is given twice.
    static func mapGraph(_ markdown: String) throws -> [String: Set<String>] {
        let lines = markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let open = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "```targets" }),
              let close = lines[(open + 1)...].firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "```" }) else {
            throw TestServerError("no ```targets block in the map")
        }
        var graph: [String: Set<String>] = [:]
        for line in lines[(open + 1)..<close] where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            let sides = line.components(separatedBy: "->")
            let name = sides[0].trimmingCharacters(in: .whitespaces)
            guard sides.count <= 2, !name.isEmpty, !name.contains(" "), graph[name] == nil else {
                throw TestServerError("bad or repeated line in the map's targets block: \(line)")
            }
            let deps = sides.count == 2
                ? sides[1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } : []
            graph[name] = Set(deps)
        }
        return graph
    }

    /// Each target of Package.swift (`.target`, `.executableTarget`, `.testTarget`,
    /// `.systemLibrary`) with the names in its `dependencies` list, read as text.
    static func packageTargets(_ manifest: String) -> [String: Set<String>] {
        var result: [String: Set<String>] = [:]
        let kinds = [".target(", ".executableTarget(", ".testTarget(", ".systemLibrary("]
        // Where each target declaration starts, in order.
        var starts: [String.Index] = []
        for kind in kinds {
            var from = manifest.startIndex
            while let r = manifest.range(of: kind, range: from..<manifest.endIndex) {
                starts.append(r.lowerBound)
                from = r.upperBound
            }
        }
        starts.sort()
        for (i, start) in starts.enumerated() {
            let end = i + 1 < starts.count ? starts[i + 1] : manifest.endIndex
            let text = manifest[start..<end]
            guard let n = text.range(of: "name: \""), let q = text[n.upperBound...].firstIndex(of: "\"") else { continue }
            let name = String(text[n.upperBound..<q])
            var deps: Set<String> = []
            if let open = text.range(of: "dependencies: ["), let close = text[open.upperBound...].firstIndex(of: "]") {
                // Every quoted name in the list (`"X"`, `.target(name: "X")`, `.product(name: "X", …)`).
                let parts = text[open.upperBound..<close].split(separator: "\"", omittingEmptySubsequences: false)
                for (k, part) in parts.enumerated() where k % 2 == 1 { deps.insert(String(part)) }
            }
            result[name] = deps
        }
        return result
    }

    func testPackageTargetsFollowTheMap() throws {
        let manifest = try String(contentsOfFile: TestPaths.packageRoot + "/Package.swift", encoding: .utf8)
        let targets = LayeringTests.packageTargets(manifest)
        let allowed = try LayeringTests.mapGraph(String(contentsOfFile: LayeringTests.mapPath, encoding: .utf8))
        for (target, deps) in targets {
            guard let ok = allowed[target] else { XCTFail("\(target) of Package.swift is not in the map"); continue }
            let wrong = deps.subtracting(ok)
            XCTAssertTrue(wrong.isEmpty, "\(target) depends on \(wrong.sorted()), which its layer may not use")
        }
        // The reader is not vacuous: the layers and a wrong-way dependency are seen.
        XCTAssertEqual(targets["SwurlCore"], ["CSupport"])
        XCTAssertEqual(targets["SwurlTestSupport"], ["SwurlCLI", "SwurlCore"])
        XCTAssertEqual(targets["CCurl"], [])
        let bad = LayeringTests.packageTargets(#".target(name: "SwurlOutput", dependencies: ["SwurlEngine"]),"#)
        XCTAssertEqual(bad["SwurlOutput"], ["SwurlEngine"])
    }

    /// The map draws exactly Package.swift's graph: every edge in it exists, and every edge
    /// between the package's targets is in it.
    func testPackageGraphMatchesTheMap() throws {
        let manifest = try String(contentsOfFile: TestPaths.packageRoot + "/Package.swift", encoding: .utf8)
        let package = LayeringTests.packageTargets(manifest)
        let map = try LayeringTests.mapGraph(String(contentsOfFile: LayeringTests.mapPath, encoding: .utf8))
        XCTAssertEqual(Set(map.keys), Set(package.keys), "the map and Package.swift name different targets")
        for (target, deps) in package {
            let edges = deps.filter { package[$0] != nil }
            XCTAssertEqual(map[target] ?? [], edges, "\(target): the map's edges differ from Package.swift's")
        }
        XCTAssertGreaterThanOrEqual(package.count, 19)
    }

    func testMapBlockIsRead() throws {
        let graph = try LayeringTests.mapGraph("""
            text
            ```targets
            A -> B, C
            B -> C

            C
            ```
            D -> A
            """)
        XCTAssertEqual(graph, ["A": ["B", "C"], "B": ["C"], "C": []])
        XCTAssertThrowsError(try LayeringTests.mapGraph("```targets\nA -> B\nA -> C\n```\n"))
        XCTAssertThrowsError(try LayeringTests.mapGraph("no block"))
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

    func testRulesFollowTargets() {
        func ok(_ module: String, _ path: String) -> Bool {
            var parts = path.split(separator: "/").map(String.init)
            let name = parts.removeLast()
            return LayeringTests.allows(module: module, folders: parts, fileName: name)
        }
        XCTAssertTrue(ok("CCurl", "SwurlCurl/EasyHandle.swift"))
        XCTAssertFalse(ok("CCurl", "SwurlEngine/Transfer.swift"))
        XCTAssertFalse(ok("CShims", "SwurlCLI/Swurl.swift"))
        XCTAssertFalse(ok("CShims", "SwurlEngine/RateLimiter.swift"))
        XCTAssertTrue(ok("CShims", "SwurlSecurity/Certificate.swift"))
        XCTAssertTrue(ok("COpenSSL", "SwurlSecurity/Certificate.swift"))
        XCTAssertTrue(ok("COpenSSL", "SwurlCurl/EasyTLSHook.swift"))
        XCTAssertFalse(ok("COpenSSL", "SwurlCurl/CurlVersion.swift"))
        XCTAssertFalse(ok("COpenSSL", "SwurlOutput/Printer.swift"))
        XCTAssertFalse(ok("CReadline", "SwurlOutput/ReplPrinter.swift"))
        XCTAssertTrue(ok("CReadline", "SwurlCLI/ReplCommand.swift"))
        XCTAssertFalse(ok("CReadline", "SwurlCLI/Swurl.swift"))
        XCTAssertTrue(ok("CNetlink", "SwurlEngine/RouteMonitor.swift"))
        XCTAssertFalse(ok("CNetlink", "SwurlEngine/Transfer.swift"))
        XCTAssertFalse(ok("CNetlink", "SwurlCLI/ReachCommand.swift"))
    }
}
