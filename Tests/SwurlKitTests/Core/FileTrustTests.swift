import XCTest
import Foundation
@testable import SwurlCore

/// `FileTrust`: which files another user could have changed (run as root here, so ownership is
/// tested with chown to an unused uid).
final class FileTrustTests: XCTestCase {
    private var dir = ""

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "swurl-trust-" + UUID().uuidString
        XCTAssertEqual(mkdir(dir, 0o700), 0)
    }

    private func file(_ name: String, in directory: String? = nil, mode: mode_t = 0o600) -> String {
        let path = (directory ?? dir) + "/" + name
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        XCTAssertGreaterThanOrEqual(fd, 0)
        close(fd)
        XCTAssertEqual(chmod(path, mode), 0)
        return path
    }

    func testTheUsersOwnPrivateFileIsTrusted() {
        XCTAssertNil(FileTrust.doubt(file("a", mode: 0o600)))
        XCTAssertNil(FileTrust.doubt(file("b", mode: 0o644)))
    }

    func testGroupOrWorldWritableFilesAreNot() {
        XCTAssertEqual(FileTrust.doubt(file("g", mode: 0o620))?.reason, "it is writable by its group (mode 0620)")
        XCTAssertEqual(FileTrust.doubt(file("o", mode: 0o602))?.reason, "it is writable by others (mode 0602)")
        let both = file("go", mode: 0o666)
        XCTAssertEqual(FileTrust.doubt(both)?.fix, "chmod go-w \(both)")
    }

    func testAnotherUsersFileIsNot() {
        let path = file("theirs")
        XCTAssertEqual(chown(path, 12345, 12345), 0)
        XCTAssertEqual(FileTrust.doubt(path)?.reason.hasPrefix("it belongs to uid 12345"), true)
    }

    func testADirectoryOthersCanWriteCountsUnlessSticky() {
        let open = dir + "/open"
        XCTAssertEqual(mkdir(open, 0o700), 0)
        let path = file("s", in: open)
        XCTAssertEqual(chmod(open, 0o777), 0)
        XCTAssertEqual(FileTrust.doubt(path)?.reason.hasPrefix("its directory \(open) is writable by its group and others"), true)
        XCTAssertEqual(chmod(open, 0o1777), 0)
        XCTAssertNil(FileTrust.doubt(path))
        // A directory further up counts too.
        XCTAssertEqual(chmod(open, 0o700), 0)
        XCTAssertEqual(chmod(dir, 0o757), 0)
        XCTAssertEqual(FileTrust.doubt(path)?.reason.hasPrefix("its directory \(dir) "), true)
    }

    /// A file not made yet is judged by the directories on its path that exist, and by where a
    /// linked directory leads.
    func testAPlaceForANewFileIsJudgedByTheDirectoriesThatExist() throws {
        let open = dir + "/open"
        XCTAssertEqual(mkdir(open, 0o700), 0)
        XCTAssertNoThrow(try FileTrust.checkPlace(open + "/a/b/new.json", what: "the file"))
        XCTAssertEqual(chmod(open, 0o777), 0)
        for path in [open + "/new.json", open + "/a/b/new.json"] {
            XCTAssertThrowsError(try FileTrust.checkPlace(path, what: "the file")) { error in
                guard case .badData(let message, let hint) = error as? SwurlError else { return XCTFail("\(error)") }
                XCTAssertEqual(message, "the file \(path) is not created there: its directory \(open) is writable by its group and others (mode 0777) without the sticky bit")
                XCTAssertEqual(hint?.hasPrefix("chmod go-w \(open)"), true)
            }
        }
        // Through a link from a private directory to a private directory inside the open one:
        // judged where it leads (the open directory above the link's target).
        let sub = open + "/sub"
        XCTAssertEqual(mkdir(sub, 0o700), 0)
        let link = dir + "/link"
        XCTAssertEqual(symlink(sub, link), 0)
        XCTAssertThrowsError(try FileTrust.checkPlace(link + "/new.json", what: "the file")) { error in
            XCTAssertTrue("\(error)".contains("its directory \(open) is writable"), "\(error)")
        }
        // `..` is resolved as the kernel resolves it: the open directory it climbs out of does
        // not count; climbing out of a directory that is not there yet is refused.
        let safe = dir + "/safe"
        XCTAssertEqual(mkdir(safe, 0o700), 0)
        XCTAssertNoThrow(try FileTrust.checkPlace(open + "/../safe/new.json", what: "the file"))
        XCTAssertThrowsError(try FileTrust.checkPlace(safe + "/missing/../../open/new.json", what: "the file")) { error in
            XCTAssertTrue("\(error)".contains("climbs out of a directory that does not exist yet"), "\(error)")
        }
        XCTAssertEqual(chmod(open, 0o1777), 0)
        XCTAssertNoThrow(try FileTrust.checkPlace(link + "/new.json", what: "the file"))
    }

    /// An existing file reached through `..` is judged by the directories that lead to it, not
    /// by the one `..` climbs out of.
    func testDotDotIsNotADirectoryThatHoldsTheFile() {
        let open = dir + "/open", safe = dir + "/safe"
        XCTAssertEqual(mkdir(open, 0o700), 0)
        XCTAssertEqual(mkdir(safe, 0o700), 0)
        XCTAssertEqual(chmod(open, 0o777), 0)
        let path = file("s", in: safe)
        XCTAssertNil(FileTrust.doubt(open + "/../safe/s"))
        XCTAssertNil(FileTrust.doubt(path))
        // A link in the open directory is looked up there, however the path is spelled around
        // it (`.` and `..` switched the check of the written path off).
        XCTAssertEqual(symlink(safe, open + "/b"), 0)
        for spelled in [open + "/b/s", open + "/./b/s", dir + "/./open/b/s", open + "/b/../safe/s", open + "/b/./s"] {
            XCTAssertEqual(FileTrust.doubt(spelled)?.reason.hasPrefix("its directory \(open) is writable"), true, spelled)
        }
        XCTAssertThrowsError(try FileTrust.checkPlace(dir + "/./open/b/new.json", what: "the file"), "a new file through the link")
        XCTAssertNoThrow(try FileTrust.checkPlace(dir + "/./safe/new.json", what: "the file"))
        // Links are followed as the kernel follows them: a link in the open directory reached
        // through a link in a private one (absolute or relative), and a `..` after a link into it.
        let safe2 = dir + "/safe2", sub = open + "/sub"
        XCTAssertEqual(mkdir(safe2, 0o700), 0)
        XCTAssertEqual(mkdir(sub, 0o700), 0)
        XCTAssertEqual(symlink(safe2, open + "/link2"), 0)
        XCTAssertEqual(symlink(open + "/link2", safe + "/link1"), 0)
        XCTAssertEqual(symlink("../open/link2", safe + "/l4"), 0)
        XCTAssertEqual(symlink(sub, safe + "/l5"), 0)
        _ = file("s", in: safe2)
        for spelled in [safe + "/link1/s", safe + "/l4/s", safe + "/l5/../../safe2/s"] {
            XCTAssertEqual(FileTrust.doubt(spelled)?.reason.hasPrefix("its directory \(open) is writable"), true, spelled)
        }
        XCTAssertThrowsError(try FileTrust.checkPlace(safe + "/link1/new.json", what: "the file"))
        XCTAssertNil(FileTrust.doubt(safe2 + "/s"))
    }

    /// A link in a private directory to a file in a directory others can write is judged by
    /// where it leads.
    func testLinksAreFollowedToTheRealFile() {
        let open = dir + "/open"
        XCTAssertEqual(mkdir(open, 0o777), 0)
        XCTAssertEqual(chmod(open, 0o777), 0)
        let target = file("real", in: open)
        let link = dir + "/link"
        XCTAssertEqual(symlink(target, link), 0)
        XCTAssertEqual(FileTrust.doubt(link)?.reason.hasPrefix("its directory \(open) "), true)
    }

    func testCheckThrowsBadDataNamingTheFileAndTheFix() {
        let path = file("c", mode: 0o666)
        XCTAssertThrowsError(try FileTrust.check(path, what: "the config file")) { error in
            guard let e = error as? SwurlError, case .badData(let message, let hint) = e else { return XCTFail("\(error)") }
            XCTAssertEqual(message, "the config file \(path) is refused: it is writable by its group and others (mode 0666)")
            XCTAssertEqual(hint?.hasPrefix("chmod go-w \(path)"), true)
        }
        XCTAssertNoThrow(try FileTrust.check(dir + "/missing", what: "the config file"))
    }

    /// Another user's link is found by the same walk as the directories above: at the end or on
    /// the way, reached through the user's own relative link, spelled relative to the working
    /// directory, or behind a `..`; the user's own links and root's are followed.
    func testAnotherUsersLinkIsFoundWhereverTheWalkMeetsIt() throws {
        let real = dir + "/real", own = dir + "/own", foreign = dir + "/foreign"
        XCTAssertEqual(mkdir(real, 0o700), 0)
        _ = file("f", in: real)
        XCTAssertEqual(symlink("real", own), 0)
        XCTAssertEqual(symlink(real, foreign), 0)
        XCTAssertEqual(lchown(foreign, 12345, 12345), 0)
        XCTAssertNil(OutputTarget.firstForeignLink(own + "/f"))
        XCTAssertNil(OutputTarget.firstForeignLink(real + "/../own/f"))
        XCTAssertEqual(symlink("foreign/f", dir + "/via"), 0)
        for spelled in [foreign + "/f", foreign, own + "/../foreign/f", dir + "/via", dir + "/./via"] {
            XCTAssertEqual(OutputTarget.firstForeignLink(spelled)?.link, foreign, spelled)
            XCTAssertEqual(OutputTarget.firstForeignLink(spelled)?.uid, 12345, spelled)
        }
        let cwd = FileManager.default.currentDirectoryPath
        defer { _ = FileManager.default.changeCurrentDirectoryPath(cwd) }
        XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(dir))
        XCTAssertEqual(OutputTarget.firstForeignLink("own/../via")?.link, foreign)
        XCTAssertNil(OutputTarget.firstForeignLink("own/f"))
    }

    /// A path through something that is not a directory (`/dev/null/x`) is not judged by that
    /// file's mode: the hint was `chmod go-w /dev/null`.
    func testAFileOnThePathIsNoDirectoryToDoubt() {
        XCTAssertNil(FileTrust.directoryDoubt("/dev/null"))
        XCTAssertNil(FileTrust.doubt("/dev/null/x.json"))
        XCTAssertNoThrow(try FileTrust.checkPlace("/dev/null/x.json", what: "the session file"))
    }

    func testDirectoriesRunUpToTheRoot() {
        XCTAssertEqual(FileTrust.directories(of: "/a/b/c"), ["/a/b", "/a", "/"])
        XCTAssertEqual(FileTrust.directories(of: "/c"), ["/"])
    }
}
