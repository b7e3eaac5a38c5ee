import XCTest
import Foundation
import SwurlTestSupport

/// `-o PATH` follows symbolic links at open time: `/dev/stdout` and `/dev/fd/1` are written
/// through (as curl does), a link to a regular file updates its target, and no link is ever
/// replaced. The `/dev` cases run in a private mount namespace with a tmpfs `/dev` of their own,
/// so a regression replaces that throwaway link and never the machine's.
final class OutputThroughLinksTests: XCTestCase {
    static let body = "hello through links"

    private func bodyURL() throws -> String {
        try HTTPBin.url("/base64/" + Data(OutputThroughLinksTests.body.utf8).base64EncodedString())
    }

    /// Runs `script` with `sh -c` in a private mount namespace whose /dev is a fresh tmpfs holding
    /// the usual links (`stdout`, `fd`) and nodes (`null`, `urandom`); `$1` is the binary, `$2`
    /// the URL, `$3` a scratch directory. Returns stdout.
    private func inPrivateDev(_ script: String) throws -> (text: String, dir: String) {
        let dir = TestPaths.temporaryDirectory()
        let setup = """
            mount -t tmpfs -o mode=755 tmpfs /dev || exit 99
            ln -s /proc/self/fd /dev/fd && ln -s /proc/self/fd/0 /dev/stdin
            ln -s /proc/self/fd/1 /dev/stdout && ln -s /proc/self/fd/2 /dev/stderr
            mknod -m 666 /dev/null c 1 3 && mknod -m 666 /dev/urandom c 1 9 && mknod -m 666 /dev/random c 1 8 || exit 98
            cd "$3" || exit 97

            """
        let out = try runProcess("/usr/bin/unshare", ["-m", "sh", "-c", setup + script, "sh", TestPaths.binary, try bodyURL(), dir],
                                 check: false)
        let text = String(decoding: out.stdout, as: UTF8.self)
        XCTAssertEqual(out.status, 0, text + out.stderr)
        return (text, dir)
    }

    private func contents(_ path: String) -> String? {
        (try? Data(contentsOf: URL(fileURLWithPath: path))).map { String(decoding: $0, as: UTF8.self) }
    }

    func testOutputToDevStdoutRedirectedToAFileWritesTheFileAndKeepsTheLink() throws {
        let (text, dir) = try inPrivateDev("""
            "$1" "$2" -o /dev/stdout > out.txt; echo "rc=$?" >&2
            "$1" -d "$2" -o /dev/stdout > down.txt; echo "drc=$?" >&2
            [ -L /dev/stdout ] && echo "link=kept" > result || echo "link=replaced" > result
            ls -A /dev > devlist
            """)
        XCTAssertEqual(text, "")
        XCTAssertEqual(contents(dir + "/result"), "link=kept\n")
        XCTAssertEqual(contents(dir + "/out.txt"), OutputThroughLinksTests.body)
        XCTAssertEqual(contents(dir + "/down.txt"), OutputThroughLinksTests.body)
        // Nothing was left in /dev: no temporary or .part file beside the link.
        XCTAssertEqual(contents(dir + "/devlist")?.split(separator: "\n").sorted(),
                       ["fd", "null", "random", "stderr", "stdin", "stdout", "urandom"])
    }

    func testOutputToDevStdoutAndDevFdIntoAPipe() throws {
        let (text, _) = try inPrivateDev("""
            "$1" "$2" -o /dev/stdout | cat; echo " rc=$?"
            "$1" "$2" -o /dev/fd/1 | cat; echo " rc=$?"
            "$1" -d "$2" -o /dev/fd/1 | cat; echo " rc=$?"
            [ -L /dev/stdout ] && echo "link=kept"
            """)
        let b = OutputThroughLinksTests.body
        XCTAssertEqual(text, "\(b) rc=0\n\(b) rc=0\n\(b) rc=0\nlink=kept\n")
    }

    func testOutputToDevFd1RedirectedToAFile() throws {
        let (_, dir) = try inPrivateDev("""
            "$1" "$2" -o /dev/fd/1 > out.txt
            echo "rc=$?" > rc
            printf 'kept ' > appended.txt
            "$1" "$2" -o /dev/stdout >> appended.txt
            """)
        XCTAssertEqual(contents(dir + "/rc"), "rc=0\n")
        XCTAssertEqual(contents(dir + "/out.txt"), OutputThroughLinksTests.body)
        XCTAssertEqual(contents(dir + "/appended.txt"), "kept " + OutputThroughLinksTests.body, "a redirection's file is appended to, not overwritten")
    }

    /// `-o link.txt`: the target gets the body (its temporary file was beside it, in its own
    /// directory), the link stays a link, and a file's mode survives the replacement.
    func testOutputToALinkUpdatesItsTargetAndKeepsTheLink() throws {
        let dir = TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/elsewhere", withIntermediateDirectories: true)
        try Data("old".utf8).write(to: URL(fileURLWithPath: dir + "/elsewhere/target.txt"))
        chmod(dir + "/elsewhere/target.txt", 0o600)
        XCTAssertEqual(symlink("elsewhere/target.txt", dir + "/link.txt"), 0)
        XCTAssertEqual(symlink("link.txt", dir + "/link2.txt"), 0)

        let r = try runSwurl([try bodyURL(), "-o", "link2.txt"], directory: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(contents(dir + "/elsewhere/target.txt"), OutputThroughLinksTests.body)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: dir + "/link.txt"), "elsewhere/target.txt")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: dir + "/link2.txt"), "link.txt")
        let mode = try FileManager.default.attributesOfItem(atPath: dir + "/elsewhere/target.txt")[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir + "/elsewhere"), ["target.txt"])

        // A dangling link creates its target; a loop of links is refused, naming the path.
        XCTAssertEqual(symlink("elsewhere/new.txt", dir + "/dangling"), 0)
        let created = try runSwurl([try bodyURL(), "-o", "dangling"], directory: dir)
        XCTAssertEqual(created.status, 0, created.stderr)
        XCTAssertEqual(contents(dir + "/elsewhere/new.txt"), OutputThroughLinksTests.body)
        XCTAssertEqual(symlink("loop-b", dir + "/loop-a"), 0)
        XCTAssertEqual(symlink("loop-a", dir + "/loop-b"), 0)
        let loop = try runSwurl([try bodyURL(), "-o", "loop-a"], directory: dir)
        XCTAssertNotEqual(loop.status, 0)
        XCTAssertTrue(loop.stderr.contains("loop-a"), loop.stderr)
        XCTAssertTrue(loop.stderr.contains("symbolic links"), loop.stderr)
    }

    /// A link another user planted in a sticky directory anyone can write (/tmp) is not followed
    /// by any output (the kernel's protected_symlinks would refuse it to an open; swurl reads
    /// links itself and replaces their target by a rename): the target stays as it was.
    func testAnotherUsersLinkInASharedDirectoryIsNotFollowed() throws {
        let dir = TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let shared = dir + "/shared"
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        XCTAssertEqual(chmod(shared, 0o1777), 0)
        try Data("victim".utf8).write(to: URL(fileURLWithPath: dir + "/victim.txt"))
        for name in ["o.txt", "h.har", "r.html"] {
            XCTAssertEqual(symlink(dir + "/victim.txt", shared + "/" + name), 0)
            XCTAssertEqual(lchown(shared + "/" + name, 65534, 65534), 0)
        }
        let lines = dir + "/urls"
        try (try bodyURL() + "\n").write(toFile: lines, atomically: true, encoding: .utf8)
        for args in [[try bodyURL(), "-o", shared + "/o.txt"], [try bodyURL(), "--har", shared + "/h.har"],
                     ["batch", lines, "--report", shared + "/r.html"]] {
            let r = try runSwurl(args)
            XCTAssertEqual(r.status, 1, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("protected_symlinks"), r.stderr)
            XCTAssertEqual(contents(dir + "/victim.txt"), "victim")
        }
        // One's own link there is followed as before.
        XCTAssertEqual(symlink(dir + "/victim.txt", shared + "/mine.txt"), 0)
        XCTAssertEqual(try runSwurl([try bodyURL(), "-o", shared + "/mine.txt"]).status, 0)
        XCTAssertEqual(contents(dir + "/victim.txt"), OutputThroughLinksTests.body)
    }
}
