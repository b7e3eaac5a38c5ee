import XCTest
@testable import SwurlOutput
@testable import SwurlResponseSerialization
@testable import SwurlCore

final class ProgressBarTests: XCTestCase {
    func testKnownSizeShowsPercentRateAndETA() {
        var now = 100.0
        let bar = ProgressBar(sink: MemorySink(), label: "file.bin", columns: 80, clock: { now })
        now = 102
        let line = bar.line(done: 1024 * 1024, total: 4 * 1024 * 1024, now: now, final: false)
        XCTAssertTrue(line.contains(" 25% ["), line)
        XCTAssertTrue(line.contains("1.0 MiB / 4.0 MiB"), line)
        XCTAssertTrue(line.contains("512.0 KiB/s"), line)
        XCTAssertTrue(line.contains("ETA 0:06"), line)
        XCTAssertLessThanOrEqual(line.count, 80)
    }

    /// On TERM=dumb (no cursor controls) the bar is redrawn over with spaces, never `ESC[K`,
    /// which such a terminal shows as `^[[K`.
    func testADumbTerminalGetsNoEraseControl() {
        let sink = MemorySink()
        var now = 0.0
        let bar = ProgressBar(sink: sink, label: "file.bin", columns: 80, dumb: true, clock: { now })
        bar.update(done: 1 << 20, total: 4 << 20)
        now = 1
        bar.update(done: 2 << 20, total: 4 << 20)
        bar.retire()
        XCTAssertFalse(sink.bytes.contains(0x1B), sink.text)
        XCTAssertTrue(sink.text.hasSuffix(" \r"), sink.text)
        var line = RedrawnLine(dumb: true)
        XCTAssertEqual(line.drawing("abcdef"), "\rabcdef")
        XCTAssertEqual(line.drawing("文"), "\r文    ")
        XCTAssertEqual(line.erasing(), "\r  \r")
        var ansi = RedrawnLine(dumb: false)
        XCTAssertEqual(ansi.drawing("ab"), "\rab\u{1B}[K")
        XCTAssertEqual(ansi.erasing(), "\r\u{1B}[K")
    }

    /// Wide characters take two columns: a name in Chinese (or with emoji) is cut by columns, and
    /// the line still ends before the terminal's last column, whatever the width.
    func testWideNamesAreCountedInColumns() {
        XCTAssertEqual(DisplayWidth.columns("文件.bin"), 8)
        XCTAssertEqual(DisplayWidth.columns("e\u{301}😀"), 3)
        XCTAssertEqual(DisplayWidth.prefix("文件文件", columns: 5), "文件")
        XCTAssertEqual(DisplayWidth.prefix("ae\u{301}b", columns: 2), "ae\u{301}")
        let label = String(repeating: "下载的文件", count: 8) + ".bin"
        for columns in [20, 40, 80, 120] {
            let bar = ProgressBar(sink: MemorySink(), label: label, columns: columns, clock: { 0 })
            for total: Int64? in [4 << 20, nil] {
                let line = bar.line(done: 1 << 20, total: total, now: 1, final: false)
                XCTAssertLessThan(DisplayWidth.columns(line), columns, "\(columns): \(line)")
                XCTAssertTrue(line.hasPrefix("下载"), line)
            }
        }
        let wide = ProgressBar(sink: MemorySink(), label: label, columns: 120, clock: { 0 }).line(done: 1 << 20, total: 4 << 20, now: 1, final: false)
        XCTAssertTrue(wide.contains("["), "the bar still fits at 120 columns: \(wide)")
    }

    func testUnknownSizeShowsASpinner() {
        let bar = ProgressBar(sink: MemorySink(), label: "x", clock: { 0 })
        let line = bar.line(done: 2048, total: nil, now: 1, final: false)
        XCTAssertTrue(line.contains("2.0 KiB"), line)
        XCTAssertFalse(line.contains("%"), line)
    }

    func testRedrawsAtMostTenTimesASecond() {
        var now = 0.0
        let sink = MemorySink()
        let bar = ProgressBar(sink: sink, label: "x", clock: { now })
        for i in 0..<100 {
            now = Double(i) * 0.01
            bar.update(done: Int64(i), total: 100)
        }
        let draws = String(decoding: sink.bytes, as: UTF8.self).filter { $0 == "\r" }.count
        XCTAssertLessThanOrEqual(draws, 10)
        XCTAssertGreaterThanOrEqual(draws, 9)
    }

    func testFormats() {
        XCTAssertEqual(ProgressBar.bytes(512), "512 B")
        XCTAssertEqual(ProgressBar.bytes(1536), "1.5 KiB")
        XCTAssertEqual(ProgressBar.bytes(1 << 30), "1.0 GiB")
        XCTAssertEqual(ProgressBar.duration(65), "1:05")
        XCTAssertEqual(ProgressBar.duration(3725), "1:02:05")
    }

    /// Output to the same terminal erases the bar first, and the bar is not drawn again, so
    /// `-v` output and the response never share a row with it.
    func testOutputErasesTheBarForGood() throws {
        let terminal = MemorySink()
        var now = 0.0
        let bar = ProgressBar(sink: terminal, label: "upload", clock: { now })
        let out = ProgressClearingSink(target: terminal)
        out.bar = bar
        bar.update(done: 10, total: 100)
        try out.write("HTTP/1.1 200 OK\n")
        XCTAssertTrue(terminal.text.contains("\r\u{1B}[KHTTP/1.1 200 OK\n"), terminal.text.debugDescription)
        let before = terminal.bytes.count
        now = 5
        bar.update(done: 50, total: 100)
        bar.finish(done: 100, total: 100)
        XCTAssertEqual(terminal.bytes.count, before, "the bar was drawn again after the output")
    }
}
