import XCTest
@testable import SwurlOutput
@testable import SwurlResponseSerialization
@testable import SwurlCore

/// No input crashes a decoder: random bytes, random mutations of valid documents, deep nesting.
final class DecoderRobustnessTests: XCTestCase {
    private let seeds: [String] = [
        #"{"a":[1,2.5e-3,"x\"y\u00e9",true,false,null,{"b":{}}]}"#,
        #"<?xml version="1.0"?><r a="1"><!-- c --><b>t&amp;</b><![CDATA[x]]></r>"#,
        #"<plist version="1.0"><dict><key>k</key><array><integer>1</integer><date>2024-01-01T00:00:00Z</date><data>AAE=</data></array></dict></plist>"#,
        ")]}',\n[1]",
    ]

    func testRandomAndMutatedInputsNeverCrash() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let random = (0..<Int.random(in: 0..<300, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            for choice in DecoderChoice.allCases {
                _ = runDecoder(random, choice: choice, chunk: Int.random(in: 1...64, using: &rng))
            }
        }
        for seed in seeds {
            let bytes = Array(seed.utf8)
            for _ in 0..<150 {
                var b = bytes
                for _ in 0..<3 {
                    switch Int.random(in: 0..<3, using: &rng) {
                    case 0: b[Int.random(in: 0..<b.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                    case 1: b.remove(at: Int.random(in: 0..<b.count, using: &rng))
                    default: b.insert(UInt8.random(in: 0...255, using: &rng), at: Int.random(in: 0..<b.count, using: &rng))
                    }
                    if b.isEmpty { b = [0x7B] }
                }
                for choice in DecoderChoice.allCases {
                    _ = runDecoder(b, choice: choice, chunk: Int.random(in: 1...16, using: &rng)) { $0.sortKeys = Bool.random() }
                }
            }
        }
    }

    func testDeepNestingIsFormattedOrRejectedWithoutCrashing() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let r = runDecoder(deep, choice: .json, terminal: false, chunk: 4096)
        XCTAssertEqual(r.outcome, .decoded)
        let deepXML = String(repeating: "<a>", count: 5000) + String(repeating: "</a>", count: 5000)
        XCTAssertEqual(runDecoder(deepXML, choice: .xml, terminal: false, chunk: 4096).outcome, .decoded)
        let deepPlist = "<plist>" + String(repeating: "<array>", count: 2000) + String(repeating: "</array>", count: 2000) + "</plist>"
        XCTAssertTrue(runDecoder(deepPlist, choice: .plist, terminal: false).outcome.isFailure)
    }

    func testNumberAndKeywordChecks() {
        for bad in ["01", "1.", "-", "1e", "tru", "nulls", "+1", ".5", "[1,]", "{\"a\" 1}", "{\"a\":}", "{,}"] {
            XCTAssertTrue(runDecoder(bad, choice: .json, terminal: false).outcome.isFailure, bad)
        }
        for good in ["0", "-0.5e+10", "1E3", "true", "[null]", "\"\\ud83d\\ude00\""] {
            XCTAssertEqual(runDecoder(good, choice: .json, terminal: false).outcome, .decoded, good)
        }
    }
}
