import Foundation
import XCTest
import SwurlTestSupport

/// Feeds every committed fuzz corpus input (Fuzz/corpus/<target>/*) through the same harness the
/// libFuzzer target runs, without the fuzzer sanitizer: the seeds and every regression input a
/// fuzz run found stay checked by `make test`.
final class FuzzCorpusTests: XCTestCase {
    func testEveryTargetHasACorpus() throws {
        for harness in FuzzHarness.allCases {
            let dir = TestPaths.packageRoot + "/Fuzz/corpus/" + harness.rawValue
            let files = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
            XCTAssertFalse(files.isEmpty, "no seed corpus for \(harness.rawValue) in \(dir)")
        }
    }

    func testEveryCorpusInputKeepsItsProperties() throws {
        var count = 0
        for harness in FuzzHarness.allCases {
            let dir = TestPaths.packageRoot + "/Fuzz/corpus/" + harness.rawValue
            for name in ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted() {
                let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir + "/" + name)))
                do { try harness.run(bytes) } catch {
                    XCTFail("\(harness.rawValue)/\(name): \(error)")
                }
                count += 1
            }
        }
        XCTAssertGreaterThan(count, 50)
    }

    /// The harness properties can fail: a broken property is reported, not ignored.
    func testPropertiesCanFail() {
        XCTAssertThrowsError(try FuzzHarness.checkNoControl([0x1B, 0x5B], what: "probe"))
    }
}
