import Foundation
import XCTest
import SwurlTestSupport

/// The user docs stay readable and self-contained: README.md is short, every relative link in
/// README.md, CONTRIBUTING.md and docs/*.md points at a file of this repository, and nothing
/// links outside it.
final class DocsLinksTests: XCTestCase {
    private let root = (TestPaths.packageRoot as NSString).standardizingPath

    private func documents() throws -> [String] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: root + "/docs")
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        return ["README.md", "CONTRIBUTING.md"] + docs
    }

    private func text(_ path: String) throws -> String {
        try String(contentsOfFile: root + "/" + path, encoding: .utf8)
    }

    /// The targets of inline markdown links `[text](target)` and reference definitions
    /// `[label]: target`, outside code spans and fenced code blocks.
    static func linkTargets(in markdown: String) -> [String] {
        var targets: [String] = []
        var inFence = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") { inFence.toggle(); continue }
            if inFence { continue }
            // Drop code spans: a link inside backticks is an example, not a link.
            var plain = ""
            var inCode = false
            for character in line {
                if character == "`" { inCode.toggle(); continue }
                if !inCode { plain.append(character) }
            }
            let chars = Array(plain)
            var i = 0
            while i + 1 < chars.count {
                if chars[i] == "]" && chars[i + 1] == "(" {
                    var j = i + 2
                    var target = ""
                    while j < chars.count && chars[j] != ")" && chars[j] != " " { target.append(chars[j]); j += 1 }
                    targets.append(target)
                    i = j
                } else {
                    i += 1
                }
            }
            let trimmed = plain.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("["), let close = trimmed.range(of: "]: ") {
                targets.append(String(trimmed[close.upperBound...]).split(separator: " ").first.map(String.init) ?? "")
            }
        }
        return targets
    }

    func testLinkTargetsAreFound() {
        XCTAssertEqual(Self.linkTargets(in: "see [a](docs/a.md) and [b](b.md#x \"t\")\n`[c](no.md)`\n```\n[d](no.md)\n```\n[e]: e.md"),
                       ["docs/a.md", "b.md#x", "e.md"])
    }

    func testReadmeIsShort() throws {
        let lines = try text("README.md").split(separator: "\n", omittingEmptySubsequences: false).count - 1
        XCTAssertLessThanOrEqual(lines, 250, "README.md has \(lines) lines; the reference belongs in docs/")
    }

    func testEveryRelativeLinkResolves() throws {
        let documents = try documents()
        XCTAssertTrue(documents.contains("docs/ARCHITECTURE.md"))
        for document in documents {
            let directory = (document as NSString).deletingLastPathComponent
            for target in Self.linkTargets(in: try text(document)) {
                if target.isEmpty || target.hasPrefix("#") || target.contains("://") || target.hasPrefix("mailto:") { continue }
                let path = String(target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0])
                XCTAssertFalse(path.hasPrefix("/"), "\(document): \(target) is an absolute path")
                let resolved = ((root + "/" + (directory.isEmpty ? "" : directory + "/") + path) as NSString).standardizingPath
                XCTAssertTrue(resolved.hasPrefix(root + "/") || resolved == root,
                              "\(document): \(target) points outside the repository")
                XCTAssertTrue(FileManager.default.fileExists(atPath: resolved), "\(document): \(target) does not exist")
            }
        }
    }

    func testReadmeLinksEveryDocument() throws {
        let readme = try text("README.md")
        for document in try documents() where document != "README.md" {
            XCTAssertTrue(readme.contains("](\(document))"), "README.md does not link \(document)")
        }
        for file in ["LICENSE", "CHANGELOG.md"] {
            XCTAssertTrue(readme.contains("](\(file))"), "README.md does not link \(file)")
        }
    }
}
