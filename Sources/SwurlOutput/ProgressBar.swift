import SwurlCore
/// A one-line progress display on stderr: bytes, percentage, rate and ETA with a bar when the
/// size is known, a spinner with bytes and rate when it is not. It redraws at most ten times a
/// second and only where it was asked to (the caller checks that stderr is a terminal).
package final class ProgressBar {
    private let sink: ByteSink
    private let label: String
    private let width: Int
    private let clock: () -> Double
    private let start: Double
    private var lastDraw = -1.0
    private var spinner = 0
    private var drawn = false
    private var redrawn: RedrawnLine
    /// Set once other output took the terminal: the bar is gone for good.
    private var retired = false
    /// Bytes that were already there when this run started (a resumed download); they count
    /// toward the percentage but not toward the rate.
    package var initialBytes: Int64 = 0

    /// - Parameters:
    ///   - label: what moves (a file name), shown first.
    ///   - columns: the terminal width (default 80).
    ///   - clock: monotonic seconds (default: the system's monotonic clock; replaceable in tests).
    ///   - dumb: the terminal is `TERM=dumb` (no control to erase a line: spaces do).
    package init(sink: ByteSink, label: String, columns: Int = 80, dumb: Bool = false, clock: (() -> Double)? = nil) {
        self.sink = sink
        self.redrawn = RedrawnLine(dumb: dumb)
        self.label = TerminalSanitizer.clean(label)
        self.width = max(2, columns)
        let clock = clock ?? { MonotonicClock.now() }
        self.clock = clock
        self.start = clock()
    }

    /// Redraws when at least 0.1 s passed since the last drawing.
    package func update(done: Int64, total: Int64?) {
        guard !retired else { return }
        let now = clock()
        guard now - lastDraw >= 0.1 else { return }
        lastDraw = now
        draw(line(done: done, total: total, now: now, final: false))
    }

    /// Draws the final state and ends the line.
    package func finish(done: Int64, total: Int64?) {
        guard !retired else { return }
        draw(line(done: done, total: total ?? done, now: clock(), final: true))
        try? sink.write("\n")
        drawn = false
    }

    /// Ends the line where it stands (an error or Ctrl-C), so the next output starts cleanly.
    package func interrupt() {
        guard drawn else { return }
        try? sink.write("\n")
        drawn = false
    }

    /// Erases the bar and draws it no more: the response (or `-v` output) comes next, on its
    /// own rows, never after the bar on the same row.
    package func retire() {
        guard !retired else { return }
        retired = true
        if drawn { try? sink.write(redrawn.erasing()) }
        drawn = false
    }

    private func draw(_ text: String) {
        drawn = true
        try? sink.write(redrawn.drawing(text))
    }

    /// The text of one drawing (without the carriage return).
    func line(done: Int64, total: Int64?, now: Double, final: Bool) -> String {
        let elapsed = max(now - start, 0.001)
        let rate = Double(max(0, done - initialBytes)) / elapsed
        // Bytes per second as an integer for display; clamped so no value converts with a trap.
        let shownRate = rate < 9e18 ? Int64(rate) : Int64.max
        var right = ProgressBar.bytes(done)
        if let total, total > 0 {
            right += " / " + ProgressBar.bytes(total) + "  " + ProgressBar.bytes(shownRate) + "/s"
            if final {
                right += "  " + ProgressBar.duration(elapsed)
            } else if rate > 0 {
                right += "  ETA " + ProgressBar.duration(Double(max(0, total - done)) / rate)
            }
            let fraction = min(1, Double(done) / Double(total))
            let percent = String(Int(fraction * 100)) + "%"
            let name = DisplayWidth.prefix(label, columns: max(10, width / 4))
            // The line never reaches the last column (a terminal wraps it there, and the next
            // redraw's carriage return leaves the wrapped part behind): the bar takes what is
            // left, and is left out below a few columns.
            let barWidth = width - 1 - DisplayWidth.columns(name) - right.count - percent.count - 8
            let padded = "\(String(repeating: " ", count: max(0, 4 - percent.count)))\(percent)"
            guard barWidth >= 5 else { return fitted("\(name) \(padded) \(right)") }
            let filled = Int(fraction * Double(barWidth))
            let bar = String(repeating: "=", count: filled) + (filled < barWidth ? ">" : "")
                + String(repeating: " ", count: max(0, barWidth - filled - 1))
            return fitted("\(name) \(padded) [\(bar)] \(right)")
        }
        let frames: [Character] = ["|", "/", "-", "\\"]
        spinner = (spinner + 1) % frames.count
        let mark = final ? "done" : String(frames[spinner])
        return fitted("\(DisplayWidth.prefix(label, columns: max(10, width / 3))) \(mark) \(right)  \(ProgressBar.bytes(shownRate))/s")
    }

    /// `text` cut to one column less than the terminal's width.
    private func fitted(_ text: String) -> String {
        DisplayWidth.columns(text) < width ? text : DisplayWidth.prefix(text, columns: width - 1)
    }

    /// `512 B`, `1.5 KiB`, `12.3 MiB`, `1.02 GiB`.
    package static func bytes(_ n: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(n)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        if unit == 0 { return "\(n) B" }
        let digits = value < 10 ? 100.0 : 10.0
        let rounded = (value * digits).rounded() / digits
        return "\(rounded) \(units[unit])"
    }

    /// `0:05`, `12:34`, `1:02:03`; `--:--` for a negative, infinite or absurd value (a
    /// thousand hours or more, as a huge Content-Length at a tiny rate gives).
    package static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0, seconds < 3_600_000 else { return "--:--" }
        let s = Int(seconds.rounded())
        let two = { (v: Int) in v < 10 ? "0\(v)" : "\(v)" }
        if s >= 3600 { return "\(s / 3600):\(two(s / 60 % 60)):\(two(s % 60))" }
        return "\(s / 60):\(two(s % 60))"
    }
}

/// A sink that erases a progress bar before the first bytes go to the same terminal.
package final class ProgressClearingSink: ByteSink {
    private let target: ByteSink
    /// The bar to erase, if one is showing.
    package var bar: ProgressBar?
    /// The last byte written, nil before any: whether the output so far ends a line.
    package private(set) var lastByte: UInt8?

    package init(target: ByteSink) { self.target = target }

    package func write(_ bytes: UnsafeRawBufferPointer) throws {
        if bytes.count > 0, let bar {
            bar.retire()
            self.bar = nil
        }
        if let last = bytes.last { lastByte = last }
        try target.write(bytes)
    }

    /// Passes a buffer on to the target whole (a background writer then keeps it as a block
    /// instead of copying it).
    package func write(handingOver bytes: inout [UInt8]) throws {
        if !bytes.isEmpty, let bar {
            bar.retire()
            self.bar = nil
        }
        if let last = bytes.last { lastByte = last }
        try target.write(handingOver: &bytes)
    }
}

/// A line drawn over and over on a terminal (a progress display): a carriage return, the text,
/// and what erases the rest of the last drawing: `ESC[K`, or spaces on a terminal that has no
/// such control (`TERM=dumb`: Emacs' shell, some CI consoles show `^[[K`).
package struct RedrawnLine {
    private let dumb: Bool
    private var width = 0

    package init(dumb: Bool) { self.dumb = dumb }

    /// The bytes that draw `text` over the last drawing.
    package mutating func drawing(_ text: String) -> String {
        let n = DisplayWidth.columns(text)
        defer { width = n }
        return dumb ? "\r" + text + String(repeating: " ", count: max(0, width - n)) : "\r" + text + "\u{1B}[K"
    }

    /// The bytes that take the last drawing off its line, leaving the cursor at its start.
    package mutating func erasing() -> String {
        defer { width = 0 }
        return dumb ? "\r" + String(repeating: " ", count: width) + "\r" : "\r\u{1B}[K"
    }
}
