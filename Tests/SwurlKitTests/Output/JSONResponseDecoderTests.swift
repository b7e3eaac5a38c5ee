import XCTest
@testable import SwurlOutput
@testable import SwurlResponseSerialization
@testable import SwurlCore

final class JSONResponseDecoderTests: XCTestCase {
    func testValidJSONIsFormattedAtAnyChunkSize() {
        for chunk in [1, 3, 64, 100_000] {
            let r = runDecoder(#"{"b":[1.50,true,null],"a":"x\u00e9"}"#, mediaType: "application/json", chunk: chunk)
            XCTAssertEqual(r.text, "{\n    \"b\": [\n        1.50,\n        true,\n        null\n    ],\n    \"a\": \"x\\u00e9\"\n}")
            XCTAssertEqual(r.outcome, .decoded)
        }
    }

    func testInvalidJSONIsShownAsTextWithoutLosingBytes() {
        let input = "{\"a\": oops, \u{1B}[31m}"
        let r = runDecoder(input, mediaType: "application/json")
        XCTAssertEqual(r.text, "{\"a\": oops, \\x1b[31m}")
        XCTAssertTrue(r.outcome.isFailure)
        let piped = runDecoder(input, mediaType: "application/json", terminal: false)
        XCTAssertEqual(piped.text, input)
    }

    func testTruncatedJSONFailsAndKeepsEveryByte() {
        let input = #"{"a": [1, 2, {"b": "unfinished"#
        let r = runDecoder(input, choice: .json, terminal: false)
        XCTAssertEqual(r.text, input)
        XCTAssertTrue(r.outcome.isFailure)
    }

    func testEmptyAndBlankBodiesAreFine() {
        for body in ["", " ", "\n\n"] {
            let r = runDecoder(body, choice: .json)
            XCTAssertEqual(r.outcome, .decoded, "\(body.debugDescription)")
            XCTAssertEqual(r.text, "")
        }
    }

    func testXSSIGuardIsShownAndTheRestFormatted() {
        let r = runDecoder(")]}',\n{\"a\":1}", mediaType: "application/json")
        XCTAssertEqual(r.text, ")]}',\n{\n    \"a\": 1\n}")
        XCTAssertEqual(r.outcome, .decoded)
        XCTAssertEqual(runDecoder("while(1);[1]", mediaType: "application/json").text, "while(1);\n[\n    1\n]")
    }

    func testJSONLinesAreFormattedOneByOne() {
        let r = runDecoder("{\"a\":1}\n{\"b\":[]}\n", mediaType: "application/x-ndjson")
        XCTAssertEqual(r.text, "{\n    \"a\": 1\n}\n{\n    \"b\": []\n}")
    }

    func testDropNullsFollowsAFNetworking() {
        // removesKeysWithNullValues: null keys and null array elements go, emptied containers stay.
        let r = runDecoder(#"{"a":null,"b":[null,1,{"c":null}],"d":{"e":null},"f":[null]}"#, mediaType: "application/json") {
            $0.dropNulls = true
        }
        XCTAssertEqual(try JSONParser.parse(r.text), try JSONParser.parse(#"{"b":[1,{}],"d":{},"f":[]}"#))
        XCTAssertEqual(JSONTransform.droppingNulls(.null), .null)
    }

    func testSortKeysSortsRecursivelyAndKeepsNumbers() {
        let r = runDecoder(#"{"b":1.10,"a":{"z":1,"y":[{"d":1,"c":2}]}}"#, mediaType: "application/json") { $0.sortKeys = true }
        XCTAssertEqual(r.text, "{\n    \"a\": {\n        \"y\": [\n            {\n                \"c\": 2,\n                \"d\": 1\n            }\n        ],\n        \"z\": 1\n    },\n    \"b\": 1.10\n}")
    }

    /// --sort-keys and --drop-nulls take the runs of documents the streaming formatter takes:
    /// pretty-printed JSON Lines and concatenated documents were "not valid JSON" there (exit 8
    /// under --decode json) and formatted without them.
    func testTreeModeTakesTheRunsOfDocumentsTheStreamingFormatterTakes() {
        for body in ["{\"b\":1,\"a\":null}{\"d\":2}", "{\n  \"b\": 1,\n  \"a\": null\n}\n{\n  \"d\": 2\n}\n", "{\"b\":1,\"a\":null} \r\n {\"d\":2}"] {
            let plain = runDecoder(body, mediaType: "application/json")
            XCTAssertFalse(plain.outcome.isFailure, body)
            let r = runDecoder(body, mediaType: "application/json") { $0.sortKeys = true; $0.dropNulls = true }
            XCTAssertFalse(r.outcome.isFailure, body)
            XCTAssertEqual(r.text, "{\n    \"b\": 1\n}\n{\n    \"d\": 2\n}", body)
        }
        let bad = runDecoder("{\"a\":1}{nope", mediaType: "application/json") { $0.sortKeys = true }
        XCTAssertTrue(bad.outcome.isFailure)
        XCTAssertEqual(bad.text, "{\"a\":1}{nope")
        // Numbers and literals need something between them (as without the options).
        for body in ["00", "1-2", "truefalse", "nullnull", "1true"] {
            XCTAssertTrue(runDecoder(body, mediaType: "application/json").outcome.isFailure, body)
            XCTAssertTrue(runDecoder(body, mediaType: "application/json") { $0.sortKeys = true }.outcome.isFailure, body)
        }
        for body in ["1 2\n\"a\"[]", "1\"a\""] {
            XCTAssertFalse(runDecoder(body, mediaType: "application/json").outcome.isFailure, body)
            XCTAssertFalse(runDecoder(body, mediaType: "application/json") { $0.sortKeys = true }.outcome.isFailure, body)
        }
    }

    func testSortKeysOnInvalidJSONShowsText() {
        let r = runDecoder("{nope", mediaType: "application/json") { $0.sortKeys = true }
        XCTAssertEqual(r.text, "{nope")
        XCTAssertTrue(r.outcome.isFailure)
    }

    func testStreamModeEmitsBeforeTheEnd() {
        var options = DecodingOptions()
        options.stream = true
        let decoder = CompoundResponseDecoder(context: DecodingContext(options: options, theme: nil, terminal: true,
                                                                       mediaType: "application/json", charset: nil))
        var out: [UInt8] = []
        Array("{\"a\":1}\n".utf8).withUnsafeBytes { decoder.decode($0, into: &out) }
        // The line ends with the document, not when the next one starts: a reader of JSON Lines
        // (`while read`) gets each event as it arrives, not one behind.
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "{\n    \"a\": 1\n}\n")
        out = []
        Array("{\"b\":2}".utf8).withUnsafeBytes { decoder.decode($0, into: &out) }
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "{\n    \"b\": 2\n}\n")
        out = []
        _ = decoder.finish(into: &out)
        XCTAssertEqual(out, [])
    }

    func testVeryLargeDocumentReparsesToTheSame() throws {
        var doc = "["
        for i in 0..<50_000 {
            if i > 0 { doc += "," }
            doc += #"{"id":\#(i),"s":"a\"b\\c é","f":-1.5e+3,"n":null,"t":[true,false]}"#
        }
        doc += "]"
        let r = runDecoder(doc, mediaType: "application/json", terminal: false, chunk: 16_384)
        XCTAssertEqual(r.outcome, .decoded)
        XCTAssertEqual(try JSONParser.parse(r.text), try JSONParser.parse(doc))
    }

    /// Regression: the tree path (--sort-keys, --drop-nulls) decoded `\u009b` and wrote raw C2 9B.
    func testTreePathEscapesC1AndDEL() {
        for configure in [{ (o: inout DecodingOptions) in o.sortKeys = true }, { (o: inout DecodingOptions) in o.dropNulls = true }] {
            for terminal in [true, false] {
                let r = runDecoder(#"{"b":"\u009b31m","a":"x\u007f\u0085\u00a0"}"#, mediaType: "application/json",
                                   terminal: terminal, configure: configure)
                XCTAssertEqual(r.outcome, .decoded)
                XCTAssertFalse(zip(r.bytes, r.bytes.dropFirst()).contains { $0 == 0xC2 && (0x80...0x9F).contains($1) }, r.text)
                XCTAssertFalse(r.bytes.contains(0x7F), r.text)
                XCTAssertTrue(r.text.contains(#""\u009b31m""#), r.text)
                XCTAssertTrue(r.text.contains("\"x\\u007f\\u0085\u{A0}\""), r.text)
            }
        }
        var out: [UInt8] = []
        JSONValue.writeString("\u{80}\u{9F}\u{A0}é\u{7F}", to: &out)
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "\"\\u0080\\u009f\u{A0}é\\u007f\"")
    }

    /// A binary body labelled JSON is called binary (and not shown), not "invalid JSON; shown as sent".
    func testBinaryBodyLabelledJSONSaysBinary() {
        let bytes: [UInt8] = [0x00, 0x01, 0x02, 0xFF] + Array(repeating: 0, count: 2000)
        let r = runDecoder(bytes, mediaType: "application/json", terminal: true)
        guard case .failed(let message) = r.outcome else { return XCTFail("\(r.outcome)") }
        XCTAssertTrue(message.contains("binary data not shown"), message)
        XCTAssertFalse(message.contains("shown as sent"), message)
        XCTAssertTrue(r.bytes.isEmpty)
        // No Content-Type: no type named (it said "2 004 bytes of ;").
        for type in [nil, ""] as [String?] {
            let untyped = runDecoder(bytes, mediaType: type, terminal: true)
            guard case .note(let note) = untyped.outcome else { return XCTFail("\(untyped.outcome)") }
            XCTAssertTrue(note.hasPrefix("binary data not shown: 2 004 bytes; use -o FILE"), note)
        }
    }

    /// UTF-16 JSON (by its charset) is converted and formatted, not called invalid.
    func testUTF16JSONIsFormatted() {
        var bytes: [UInt8] = [0xFF, 0xFE]
        for unit in "{\"a\": \"é\"}".utf16 { bytes += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        let r = runDecoder(bytes, mediaType: "application/json", charset: "utf-16", terminal: true)
        XCTAssertEqual(r.outcome, .decoded, "\(r.outcome)")
        XCTAssertTrue(r.text.contains("\"é\""), r.text)
    }

    /// Unclosed deep nesting under the 1 MiB window is invalid JSON shown as sent (its own size),
    /// at any chunk size; closed, the held window is formatted through `endOfBody` and `drain` in
    /// pieces, and `finish` then adds only the end.
    func testUnclosedDeepNestingIsShownAsSentAndClosedIsDrainedInPieces() {
        let open = String(repeating: "[", count: 100_000)
        for chunk in [7, 16 << 10, 1 << 20] {
            let r = runDecoder(open, mediaType: "application/json", terminal: true, chunk: chunk)
            XCTAssertEqual(r.text, open, "chunk \(chunk)")
            guard case .failed(let why) = r.outcome else { return XCTFail("\(r.outcome)") }
            XCTAssertEqual(why, "the body is not valid JSON; shown as sent")
        }
        let depth = 20_000 // 40 KB of input: three of the backlog's 16 KiB steps
        let closed = Array((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8)
        let decoder = CompoundResponseDecoder(context: DecodingContext(options: DecodingOptions(), theme: nil, terminal: true,
                                                                     mediaType: "application/json", charset: nil))
        var out: [UInt8] = []
        closed.withUnsafeBytes { decoder.decode($0, into: &out) }
        XCTAssertEqual(out, [], "held back until the end")
        decoder.endOfBody()
        var pieces = 0, drained: [UInt8] = []
        while decoder.drain(into: &out, upTo: 64 << 10) {
            pieces += 1
            drained += out
            out.removeAll()
        }
        drained += out
        out.removeAll()
        XCTAssertGreaterThanOrEqual(pieces, 2, "a large backlog comes out in pieces")
        XCTAssertEqual(decoder.finish(into: &out), .decoded)
        XCTAssertLessThan(out.count, 16 << 10, "finish only ends what drain formatted")
        let whole = runDecoder(closed, mediaType: "application/json", terminal: true, chunk: 4096)
        XCTAssertEqual(drained + out, whole.bytes)
    }

    /// Valid JSON deeper than the tree's limit is not called invalid.
    func testDeepValidJSONIsNotCalledInvalid() {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        let r = runDecoder(deep, mediaType: "application/json", terminal: true) { $0.sortKeys = true }
        guard case .failed(let message) = r.outcome else { return XCTFail("\(r.outcome)") }
        XCTAssertFalse(message.contains("not valid JSON"), message)
        XCTAssertTrue(message.contains("nests too deeply"), message)
        let plain = runDecoder(deep, mediaType: "application/json", terminal: true)
        XCTAssertEqual(plain.outcome, .decoded)
    }
}
