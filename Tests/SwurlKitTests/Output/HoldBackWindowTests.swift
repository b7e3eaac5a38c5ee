import XCTest
@testable import SwurlOutput
@testable import SwurlResponseSerialization

/// `HoldBackWindow` and the two decoders that hold a body's start back with it (JSON, XML):
/// both must close it at the same byte.
final class HoldBackWindowTests: XCTestCase {
    private let context = DecodingContext(options: DecodingOptions(), theme: nil, terminal: false, mediaType: nil, charset: nil)

    /// Runs `body` through a window in `chunks`-sized chunks; returns each piece's end offset and
    /// whether the check was told it ends at a step, and the offset where the window closed.
    private func pieces(_ body: [UInt8], chunk: Int) -> (ends: [Int], atStep: [Bool], closedAt: Int?) {
        var window = HoldBackWindow(open: true)
        var shown: [UInt8] = []
        var ends: [Int] = [], atStep: [Bool] = []
        var offset = 0
        var closedAt: Int?
        while offset < body.count, closedAt == nil {
            let end = min(body.count, offset + chunk)
            let outcome = body[offset..<end].withUnsafeBytes { bytes in
                window.take(bytes, context: context, into: &shown) { piece, step in
                    ends.append((ends.last ?? 0) + piece.count)
                    atStep.append(step)
                    return 0
                }
            }
            if case .closed(let rest) = outcome { closedAt = end - rest.count }
            if case .shownAsText = outcome { XCTFail("invalid at \(ends.last ?? 0)") }
            offset = end
        }
        return (ends, atStep, closedAt)
    }

    func testPiecesEndAtTheSameOffsetsWhateverTheChunking() {
        let body = [UInt8](repeating: 0x20, count: HoldBackWindow.size + 5000)
        let whole = pieces(body, chunk: body.count)
        XCTAssertEqual(whole.closedAt, HoldBackWindow.size)
        XCTAssertEqual(whole.ends, Array(stride(from: HoldBackWindow.step, through: HoldBackWindow.size, by: HoldBackWindow.step)))
        XCTAssertEqual(whole.atStep, Array(repeating: true, count: whole.ends.count))
        for chunk in [4096, 65_537, 100_003] {
            let cut = pieces(body, chunk: chunk)
            XCTAssertEqual(cut.closedAt, HoldBackWindow.size, "chunk \(chunk)")
            // Every step offset is the end of a piece, and only those are told they are steps.
            let stepEnds = zip(cut.ends, cut.atStep).filter { $0.1 }.map { $0.0 }
            XCTAssertEqual(stepEnds, whole.ends, "chunk \(chunk)")
            XCTAssertTrue(cut.ends.allSatisfy { $0 <= HoldBackWindow.size })
        }
    }

    func testTheWindowClosesAtTheFirstStepPastTheOutputBudget() {
        let body = [UInt8](repeating: 0x20, count: HoldBackWindow.size)
        // Each step's bytes stand for a quarter of the budget: the fifth step passes it.
        let perStep = HoldBackWindow.heldOutputBudget / 4
        for chunk in [body.count, 5000] {
            var stepsSeen = 0
            var window = HoldBackWindow(open: true)
            var shown: [UInt8] = []
            var closedAt: Int?
            var offset = 0
            while offset < body.count, closedAt == nil {
                let end = min(body.count, offset + chunk)
                let outcome = body[offset..<end].withUnsafeBytes { bytes in
                    window.take(bytes, context: context, into: &shown) { _, atStep in
                        guard atStep else { return 0 }
                        stepsSeen += 1
                        return perStep
                    }
                }
                if case .closed(let rest) = outcome { closedAt = end - rest.count }
                offset = end
            }
            XCTAssertEqual(closedAt, 5 * HoldBackWindow.step, "chunk \(chunk)")
            XCTAssertFalse(window.isOpen)
            XCTAssertEqual(shown, [], "nothing is shown while the window holds")
        }
    }

    /// JSON's window has no budget: whatever its bytes would print, it closes only when full.
    func testAWindowWithoutABudgetClosesOnlyWhenFull() {
        let body = [UInt8](repeating: 0x20, count: HoldBackWindow.size)
        for chunk in [body.count, 5000] {
            var window = HoldBackWindow(open: true, outputBudget: nil)
            var closedAt: Int?
            var offset = 0
            while offset < body.count, closedAt == nil {
                let end = min(body.count, offset + chunk)
                var shown: [UInt8] = []
                let outcome = body[offset..<end].withUnsafeBytes { bytes in
                    window.take(bytes, context: context, into: &shown) { _, atStep in atStep ? HoldBackWindow.heldOutputBudget : 0 }
                }
                if case .closed(let rest) = outcome { closedAt = end - rest.count }
                offset = end
            }
            XCTAssertEqual(closedAt, HoldBackWindow.size, "chunk \(chunk)")
        }
    }

    /// A body of `open`, then `unit` repeated and spaces up to `badAt`, then `bad` and `close`.
    private func body(open: String, unit: String, badAt: Int, bad: String, close: String) -> [UInt8] {
        var bytes = Array(open.utf8)
        let u = Array(unit.utf8)
        while bytes.count + u.count <= badAt { bytes += u }
        bytes += [UInt8](repeating: 0x20, count: badAt - bytes.count)
        return bytes + Array(bad.utf8) + Array(close.utf8)
    }

    func testJSONAndXMLDecodersHoldBackTheSameWindow() {
        let kinds: [(DecoderChoice, String, String, String, String)] = [
            (.json, "[", "1234567,", "x", "]"),
            (.xml, "<list>", "<i>1</i>", "</y>", "</list>"),
        ]
        for (choice, open, unit, bad, close) in kinds {
            // Invalid near the window's end (64 bytes before it, so the XML formatter has seen
            // what follows the bad tag): the whole body is shown as sent.
            let inside = body(open: open, unit: unit, badAt: HoldBackWindow.size - 64 - bad.utf8.count, bad: bad,
                              close: String(repeating: " ", count: 64) + close)
            // Invalid just past it: the window was shown formatted, the rest as sent.
            let outside = body(open: open, unit: unit, badAt: HoldBackWindow.size, bad: bad, close: close)
            for chunk in [inside.count, 4096, 65_537] {
                let a = runDecoder(inside, choice: choice, terminal: false, chunk: chunk)
                XCTAssertTrue(a.bytes == inside, "\(choice), chunk \(chunk): not shown as sent")
                guard case .failed(let noteA) = a.outcome else { XCTFail("\(choice): \(a.outcome)"); continue }
                XCTAssertTrue(noteA.hasSuffix("; shown as sent"), "\(choice): \(noteA)")
                XCTAssertFalse(noteA.contains("the rest"), "\(choice): \(noteA)")

                let b = runDecoder(outside, choice: choice, terminal: false, chunk: chunk)
                XCTAssertFalse(b.bytes == outside, "\(choice), chunk \(chunk): the window was not formatted")
                guard case .failed(let noteB) = b.outcome else { XCTFail("\(choice): \(b.outcome)"); continue }
                XCTAssertTrue(noteB.hasSuffix("the rest is shown as sent"), "\(choice): \(noteB)")
            }
        }
    }
}
