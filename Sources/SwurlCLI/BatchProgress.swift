#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlOutput
import SwurlResponseSerialization
import SwurlEngine
import SwurlCore
import SwurlCurl

/// The batch progress line on stderr: done/started, failures, requests/s, bytes; at most 10
/// redraws a second.
final class BatchProgress {
    private let sink: ByteSink
    private let startTime = MonotonicClock.now()
    private var lastDraw = 0.0
    private var started_ = 0, done = 0, failures = 0
    private var bytes: Int64 = 0

    private var redrawn: RedrawnLine

    init(sink: ByteSink, dumb: Bool) {
        self.sink = sink
        redrawn = RedrawnLine(dumb: dumb)
    }

    func started() { started_ += 1 }
    func finished(failed: Bool, bytes b: Int64) {
        done += 1
        if failed { failures += 1 }
        bytes += b
    }

    func draw(force: Bool) {
        let now = MonotonicClock.now()
        guard force || now - lastDraw >= 0.1 else { return }
        lastDraw = now
        let rate = Double(done) / max(0.001, now - startTime)
        try? sink.write(redrawn.drawing("\(done)/\(started_) done, \(failures) failed, \(Int(rate)) req/s, \(ProgressBar.bytes(bytes))"))
    }

    /// Takes the line off the terminal (results are about to be written to it; `draw` puts it
    /// back).
    func clear() {
        guard lastDraw > 0 else { return }
        try? sink.write(redrawn.erasing())
    }

    func finish() {
        draw(force: true)
        try? sink.write("\n")
    }
}
