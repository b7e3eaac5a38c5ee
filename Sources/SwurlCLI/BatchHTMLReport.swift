#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlOutput
import SwurlCore
import SwurlSecurity

/// `swurl batch --report FILE.html`: one self-contained HTML page (inline style and script, no
/// external URL of any kind) with the batch's summary, a status histogram and a waterfall.
///
/// Memory stays bounded whatever the number of lines: the page keeps fixed-size aggregates
/// (`PageTally`: counts, a status histogram, at most `maxReasons` failure reasons, a
/// `LatencySketch` for the percentiles, per-phase sums, completions per time slot). The rows of
/// the first `drawnLines` lines (in input order) are written to the page's file as each line
/// ends, in the order they
/// end (`ReportBody`): a row places its bar in seconds (`--s`, `--d`) and its place in input
/// order (`order`), and the page's style turns them into positions on the time axis set once
/// the batch is over (`--axis`, written into a gap left in the waterfall's start tag). Beside a
/// `--har` log the lines are counted and the rows written from records of the lines' results
/// (`BatchResultRecord.swift`) on the batch's formatter thread once a block of them fills
/// (`RecordFormatterThread`); without one, as each line ends. Later lines are counted, not
/// drawn. What is known only at the end (the summary, failures, status codes, the axis) follows
/// the rows in the file; the page's style shows it above them (`order`), and its script moves it
/// there in the document too. The file is written through `OutputFile` (atomic, a symbolic link
/// followed) and renamed into place when the batch ends.
final class BatchHTMLReport: BatchResultObserving {
    /// Lines drawn as bars; the page says how many more were aggregated.
    static let drawnLines = 2000
    /// Distinct failure reasons listed; the others are counted together.
    static let maxReasons = 50
    /// Longest URL or message kept for a drawn row (characters), so rows stay small.
    static let maxText = 400

    private let file: OutputFile
    private let inputName: String
    /// What the page sums up: counted where the rows are written (as lines end, or on the
    /// formatter thread from the records).
    private let tally: PageTally
    private let rows: ReportBodyWriter
    /// The records the rows are written from and the lines counted from on the formatter thread
    /// (beside a `--har` log).
    private let records: ResultRecords?

    /// Opens FILE (refusing a directory) and writes the page's head before the batch starts, so
    /// a report that cannot be written fails at once rather than after the lines ran.
    /// - Parameter records: the records to write the rows from on the formatter thread (nil:
    ///   written as lines end).
    init(path: String, inputName: String, environment: Environment, records: ResultRecords?) throws(SwurlError) {
        // 0600, as the HAR: the page holds the lines' URLs with their queries.
        file = try OutputFile(path: path, option: "--report", mode: 0o600)
        self.inputName = inputName
        self.records = records
        let tally = PageTally()
        self.tally = tally
        var head = HTMLPage(capacity: 1 << 13)
        BatchHTMLReport.writeHead(&head, inputName: inputName)
        head.raw("<div id=\"waterfall\"")
        // Room for the waterfall's counts and axis at their longest.
        let room = BatchHTMLReport.waterfallAttributes(drawn: Int.max, lines: Int.max, axis: nil).count
        do throws(SwurlError) {
            let body = try ReportBody(file: file, before: head.array, room: room, after: Array(">\n".utf8),
                                      option: "--report", environment: environment)
            // From records: each line counted, the first ones drawn.
            rows = ReportBodyWriter(body) { out, ordinal, r, timeline in
                let tl = timeline ?? BatchTimeline(start: 0, end: 0)
                if tally.add(ordinal: ordinal, r, tl) { BatchHTMLReport.writeRow(&out, ordinal: ordinal, r, tl) }
            }
        } catch {
            file.discard()
            throw error
        }
        records?.add(rows)
    }

    /// Written on the driving thread without records; with them the formatter thread tells
    /// (`RecordFormatterThread.anOutputFailed`).
    var outputFailed: Bool { records == nil && rows.body.failed }

    func observe(ordinal: Int, _ r: BatchResult) {
        if let records {
            // Counted, and drawn when among the first lines, on the formatter thread (`rows`).
            records.record(ordinal: ordinal, r)
            return
        }
        let timeline = BatchTimeline.of(r, after: tally.lastEnd)
        if tally.add(ordinal: ordinal, r, timeline) {
            BatchHTMLReport.writeRow(&rows.body.pending, ordinal: ordinal, r, timeline)
            rows.body.flushIfFull()
        }
    }

    func finishing() -> () -> SwurlError? {
        let last = records?.remaining()
        let (file, rows, tally) = (self.file, self.rows, self.tally)
        return {
            // The last records first: the counts are complete after them.
            if let last { rows.writeRecords(of: last) }
            let fill = BatchHTMLReport.waterfallAttributes(drawn: tally.drawn, lines: tally.lines, axis: max(tally.lastEnd, 0.001))
            var tail = HTMLPage(capacity: 1 << 16)
            tally.writeTail(&tail)
            let end = tail.array
            do throws(SwurlError) {
                try rows.body.finish(fill: fill, tail: end)
                try file.commit()
            } catch {
                file.discard()
                return error
            }
            return nil
        }
    }

    // MARK: the page

    /// Everything before the rows: known before the first line runs.
    private static func writeHead(_ p: inout HTMLPage, inputName: String) {
        p.raw("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n")
        // A phone or a narrow window lays the page out at its own width, not a desktop's.
        p.raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
        // Nothing outside this file may load, even if something slipped into the markup.
        // Scripts: the page's two, by their SHA-256, so that markup slipped in could not run one.
        p.raw("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src ")
        p.raw(BatchHTMLReport.scriptSources)
        p.raw("\">\n")
        p.raw("<title>swurl batch report: "); p.text(inputName); p.raw("</title>\n")
        p.raw("<script>"); p.raw(BatchHTMLReport.errorCounter); p.raw("</script>\n")
        p.raw(BatchHTMLReport.style)
        p.raw("</head><body>\n<h1>swurl batch: "); p.text(inputName); p.raw("</h1>\n")
        p.raw("<section id=\"waterfall-section\"><h2>Waterfall</h2><p class=\"legend\">")
        for name in BatchTimeline.Phases.names { p.raw("<span class=\"key \(name)\"></span>\(name) ") }
        p.raw("<span class=\"key failed-key\"></span>failed (no transfer timing) ")
        p.raw("<label><input type=\"checkbox\" id=\"only-failed\"> only failed lines</label></p>\n")
    }

    /// The waterfall's attributes known at the end, which go into the gap in its start tag:
    /// the lines drawn and run, and the time axis (nil: as long as it can be written).
    private static func waterfallAttributes(drawn: Int, lines: Int, axis: Double?) -> [UInt8] {
        var p = HTMLPage(capacity: 128)
        p.raw(" data-drawn=\"\(drawn)\" data-lines=\"\(lines)\" style=\"--axis:")
        if let axis { p.fixed(axis, 6) } else { p.raw(String(repeating: "9", count: MarkupCursor.fixedRoom(6))) }
        p.raw("\"")
        return p.array
    }

    /// One row of the waterfall, written as its line ends: the bar's start and length in
    /// seconds (the style divides them by the page's `--axis`), the phases as shares of the bar,
    /// `order` its place in input order.
    private static func writeRow(_ p: inout HTMLPage, ordinal: Int, _ r: BatchResult, _ tl: BatchTimeline) {
        let failed = r.exit != .success
        let method = r.method ?? "-"
        let url = clip(r.shownURL ?? "-", maxText)
        // The markup and numbers between the texts from outside go through a few reservations
        // (`MarkupCursor`), the room each asks for counted from its longest numbers.
        p.markup(upTo: 64) { c in
            c.lit(failed ? "<div class=\"row failed\" title=\"line " : "<div class=\"row\" title=\"line ")
            c.int(r.line)
            c.lit(": ")
        }
        // `METHOD URL` escaped once; the label copies these bytes.
        let shownFrom = p.count
        p.text(method)
        p.lit(" ")
        p.text(url)
        let shownTo = p.count
        p.markup(upTo: 64) { c in
            c.lit("&#10;status: ")
            if let status = r.status { c.int(status) } else { c.lit("none") }
            if failed {
                c.lit(", exit ")
                c.int(Int(r.exit.rawValue))
                c.lit(": ")
            }
        }
        if failed { p.text(clip(r.error ?? "failed", maxText)) }
        // Eight phases of at most 42 bytes, and under 300 for the rest.
        p.markup(upTo: 704) { c in
            if let size = r.size { c.lit("&#10;size: "); c.int(Int(size)); c.lit(" bytes") }
            c.lit("&#10;start ")
            c.duration(tl.start)
            c.lit(", total ")
            c.duration(tl.duration)
            tl.phases?.forEach { name, v in
                guard v > 0 else { return }
                c.lit("&#10;"); c.lit(name); c.lit(" "); c.duration(v)
            }
            c.lit("\" style=\"order:")
            c.int(ordinal)
            c.lit("\"><span class=\"label\">")
            c.int(r.line)
            if failed {
                c.lit(" <b class=\"mark\">✕ exit "); c.int(Int(r.exit.rawValue)); c.lit("</b> ")
            } else if let status = r.status {
                c.lit(" <b>"); c.int(status); c.lit("</b> ")
            } else {
                c.lit(" <b>-</b> ")
            }
        }
        p.appendCopy(of: shownFrom..<shownTo)
        // Eight phases of at most 70 bytes, and under 200 for the rest.
        p.markup(upTo: 832) { c in
            c.lit("</span><span class=\"track\"><span class=\"bar\" style=\"--s:")
            c.fixed(tl.start, 6)
            c.lit(";--d:")
            c.fixed(tl.duration, 6)
            c.lit("\">")
            let total = tl.duration
            if let ph = tl.phases, total > 0 {
                ph.forEach { name, v in
                    guard v > 0 else { return }
                    c.lit("<i class=\""); c.lit(name); c.lit("\" style=\"width:"); c.percent(v, of: total); c.lit("%\"></i>")
                }
            } else if tl.phases == nil {
                c.lit("<i class=\"failed-key\" style=\"width:100%\"></i>")
            }
            c.lit("</span></span></div>\n")
        }
    }

    /// A failure's message as one reason of many: libcurl's elapsed time in it (`Failed to
    /// connect to H port P after 3 ms`) left out, so that the same failure is counted once.
    static func reason(_ message: String) -> String {
        guard let after = message.rangeOfText(" after ") else { return message }
        let rest = message[after.upperBound...]
        let digits = rest.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, rest[digits.endIndex...].hasPrefix(" ms") else { return message }
        return String(message[..<after.lowerBound]) + String(rest[rest.index(digits.endIndex, offsetBy: 3)...])
    }

    // MARK: numbers as text

    static func clip(_ s: String, _ limit: Int) -> String {
        // No more bytes than `limit`, no more scalars: not counted (each row asks, for its URL).
        guard s.utf8.count > limit, s.unicodeScalars.count > limit else { return s }
        var out = String.UnicodeScalarView()
        out.append(contentsOf: s.unicodeScalars.prefix(limit))
        return String(out) + "…"
    }

    /// `d` with `places` decimals (no Foundation formatter); the row writer's `fixed`, as text.
    static func fixed(_ d: Double, _ places: Int) -> String {
        var b = ByteBuffer(capacity: 32)
        b.fixed(d, places)
        return String(decoding: b.array, as: UTF8.self)
    }

    static func percent(_ v: Double, of total: Double) -> String {
        var b = ByteBuffer(capacity: 32)
        b.percent(v, of: total)
        return String(decoding: b.array, as: UTF8.self)
    }

    static func duration(_ s: Double) -> String {
        var b = ByteBuffer(capacity: 32)
        b.duration(s)
        return String(decoding: b.array, as: UTF8.self)
    }

    static func byteCount(_ n: Int64) -> String {
        let units = ["bytes", "KiB", "MiB", "GiB", "TiB"]
        var v = Double(n), i = 0
        while v >= 1024 && i < units.count - 1 { v /= 1024; i += 1 }
        return i == 0 ? "\(n) bytes" : fixed(v, 1) + " " + units[i] + " (\(n) bytes)"
    }

    /// A tick distance of 1, 2 or 5 times a power of ten giving at most about 10 ticks.
    static func tickStep(_ axis: Double) -> Double {
        let raw = axis / 10
        var p = 1e-6
        while p * 10 <= raw { p *= 10 }
        for m in [1.0, 2.0, 5.0, 10.0] where p * m >= raw { return p * m }
        return p * 10
    }

    private static let style = """
    <style>
    body{font:13px/1.4 system-ui,sans-serif;margin:16px;color:#222;background:#fff;display:flex;flex-direction:column}
    h1{font-size:18px;margin:0}h2{font-size:15px;margin:18px 0 6px}
    #summary{order:1}#failures{order:2}#statuses{order:3}#waterfall-section{order:4;display:flex;flex-direction:column}#rest{order:5}
    #waterfall-section>.note{order:1;margin-top:0}#waterfall-section>.axis{order:2}#waterfall{order:3}
    body>section>:last-child{margin-bottom:0}#waterfall-section>.legend{margin-top:0}
    dl{display:flex;flex-wrap:wrap;gap:6px 18px;margin:0}dl div{min-width:110px}dt{color:#666;font-size:11px}dd{margin:0;font-size:16px;font-weight:600}
    table{border-collapse:collapse}td,th{padding:2px 8px;text-align:left;vertical-align:top}tr.failed td{color:#b00020}
    #failures td:last-child{overflow-wrap:anywhere}#statuses td:first-child{white-space:nowrap}
    .hist{width:min(320px,40vw)}.hist span{display:block;height:12px}
    .s1xx{background:#9e9e9e}.s2xx{background:#2e7d32}.s3xx{background:#1565c0}.s4xx{background:#ef6c00}.s5xx,.none{background:#c62828}.s6xx,.s7xx,.s8xx,.s9xx{background:#6a1b9a}
    .note{color:#555}
    .key{display:inline-block;width:10px;height:10px;margin:0 3px 0 6px;vertical-align:-1px}
    .row,.axis{display:flex;height:14px;align-items:center;border-bottom:1px solid #f0f0f0}
    .axis{height:18px;border-bottom:1px solid #999}
    .row:hover{background:#eef}
    .row{content-visibility:auto;contain-intrinsic-size:auto 14px}
    .label{flex:0 0 360px;max-width:40%;overflow:hidden;white-space:nowrap;text-overflow:ellipsis;font:11px monospace;padding-right:6px}
    .track{position:relative;flex:1;height:100%}
    .cols{height:60px}.axis:has(.cols){height:64px}
    .tick{position:absolute;top:2px;font-size:10px;color:#666;border-left:1px solid #bbb;padding-left:2px;white-space:nowrap}
    .tick.end{transform:translateX(-100%);border-left:0;border-right:1px solid #bbb;padding:0 2px 0 0}
    #waterfall{display:flex;flex-direction:column}
    .bar{position:absolute;top:2px;height:10px;display:flex;min-width:1px;left:calc(var(--s) * 100% / var(--axis));width:calc(var(--d) * 100% / var(--axis))}
    .bar i{display:block;height:100%}
    .col{position:absolute;bottom:0;background:#8d6e63;display:flex;flex-direction:column;justify-content:flex-end;min-width:1px}
    .col span{display:block;width:100%}
    .queued{background:#bdbdbd}.retries{background:#f06292}.redirects{background:#9575cd}.dns{background:#26a69a}.connect{background:#ffa726}
    .tls{background:#ab47bc}.waiting{background:#42a5f5}.receiving{background:#1e3a8a}.failed-key{background:#d50000}
    .row.failed{background:#fff0f0}.row.failed .bar{outline:2px solid #d50000}.mark{color:#d50000}
    body.only-failed .row:not(.failed){display:none}
    </style>

    """

    /// Counts what the page holds and says so in the DOM (`data-bars`, `data-failed-bars`,
    /// `data-script-ms`: milliseconds from navigation to here, `data-report="ready"` only when
    /// it ran to its end), and wires the failures filter. The first script counts script errors
    /// and blocked loads (Content-Security-Policy violations) in `<html data-errors>`.
    fileprivate static let script = """

    (function(){
    var w=document.getElementById('waterfall'),s=document.getElementById('waterfall-section');
    ['summary','failures','statuses'].forEach(function(id){var e=document.getElementById(id);if(e)s.parentNode.insertBefore(e,s);});
    s.querySelectorAll(':scope>.note,:scope>.axis').forEach(function(e){s.insertBefore(e,w);});
    var bars=w.querySelectorAll('.row .bar').length;
    var failed=w.querySelectorAll('.row.failed .bar').length;
    if(bars!==+w.dataset.drawn)throw new Error('bars '+bars+' != drawn '+w.dataset.drawn);
    var box=document.getElementById('only-failed');
    box.addEventListener('change',function(){document.body.classList.toggle('only-failed',box.checked);});
    var d=document.body.dataset;d.bars=String(bars);d.failedBars=String(failed);d.scriptMs=String(Math.round(performance.now()));d.report='ready';
    })();

    """

    /// Counts script errors and blocked loads in `<html data-errors>` (the head's script).
    fileprivate static let errorCounter = "(function(){var h=document.documentElement.dataset;h.errors='0';function c(){h.errors=String(+h.errors+1);}addEventListener('error',c);addEventListener('securitypolicyviolation',c);})();"

    /// CSP's `script-src`: the hashes of the page's two scripts (CSP 3 hashes an inline
    /// script's text as it stands between its tags).
    fileprivate static let scriptSources = [errorCounter, script].map { "'sha256-" + Base64.encode(Digest.sha256(Array($0.utf8))) + "'" }
        .joined(separator: " ")
}

/// The page as it is written, a row included: bytes, every text from a URL
/// or a server escaped.
private typealias HTMLPage = ByteBuffer

extension ByteBuffer {
    /// Markup of the page's own, as a literal (no String made).
    @inline(__always)
    fileprivate mutating func lit(_ s: StaticString) { append(s) }

    /// Markup of the page's own (never text from outside).
    fileprivate mutating func raw(_ s: String) { append(contentsOf: s) }

    /// Text from outside (URL, message, file name), valid in element content and attributes.
    fileprivate mutating func text(_ s: String) { s.appendMarkupEscaped(to: &self) }

    fileprivate mutating func int(_ n: Int) { appendDecimal(Int64(n)) }

    /// Room for at least `n` bytes of the page's own markup and numbers, which `body` writes.
    fileprivate mutating func markup(upTo n: Int, _ body: (inout MarkupCursor) -> Void) {
        write(upTo: n) { p in
            var c = MarkupCursor(at: p)
            body(&c)
            return p.distance(to: c.at)
        }
    }

    fileprivate mutating func fixed(_ d: Double, _ places: Int) { markup(upTo: MarkupCursor.fixedRoom(places)) { $0.fixed(d, places) } }

    fileprivate mutating func percent(_ v: Double, of total: Double) { markup(upTo: MarkupCursor.fixedRoom(3)) { $0.percent(v, of: total) } }

    fileprivate mutating func duration(_ s: Double) { markup(upTo: MarkupCursor.durationRoom) { $0.duration(s) } }
}

/// Writes the page's own markup and numbers into room a `ByteBuffer.write(upTo:)` reserved: a
/// row is a few reservations, not some sixty appends, each of which is a call into SwurlCore
/// (docs/performance.md, "Third round"). Whoever makes one counts the room it needs.
private struct MarkupCursor {
    var at: UnsafeMutablePointer<UInt8>

    /// Most bytes `fixed(_, places)` writes: a sign, 19 digits, the point and the decimals.
    static func fixedRoom(_ places: Int) -> Int { 21 + places }
    /// Most bytes `duration` writes: `fixed` with two decimals and ` µs`.
    static let durationRoom = 27

    @inline(__always)
    mutating func lit(_ s: StaticString) { at += putBytes(s, at: at) }

    @inline(__always)
    mutating func int(_ n: Int) { at += putDecimal(Int64(n), at: at) }

    /// `d` with `places` decimals (a half rounds away from zero). The page's own numbers
    /// (`BatchHTMLReport.fixed`) come from here too.
    mutating func fixed(_ d: Double, _ places: Int) {
        guard d.isFinite else { lit("0"); return }
        var scale: Int64 = 1
        for _ in 0..<places { scale *= 10 }
        let n = Int64((abs(d) * Double(scale)).rounded())
        if d < 0 && n != 0 { lit("-") }
        at += putDecimal(n / scale, at: at)
        guard places > 0 else { return }
        at[0] = UInt8(ascii: ".")
        var frac = n % scale
        for i in stride(from: places, to: 0, by: -1) {
            at[i] = UInt8(truncatingIfNeeded: frac % 10) &+ 0x30
            frac /= 10
        }
        at += places + 1
    }

    mutating func percent(_ v: Double, of total: Double) {
        guard total > 0 else { lit("0"); return }
        fixed(min(100, max(0, v / total * 100)), 3)
    }

    /// `s` in µs, ms or s, with as many decimals as its size wants.
    mutating func duration(_ s: Double) {
        if s >= 10 { fixed(s, 1); lit(" s") } else if s >= 1 { fixed(s, 2); lit(" s") } else if s >= 0.001 {
            fixed(s * 1000, s >= 0.1 ? 0 : 1); lit(" ms")
        } else { fixed(s * 1_000_000, 0); lit(" µs") }
    }
}

/// Completions per time slot for the lines that are not drawn: a fixed number of slots whose
/// width doubles (neighbours merged) whenever a line ends past the last one.
private struct CompletionSlots {
    static let count = 200
    private(set) var width = 0.01
    private(set) var counts = [Int](repeating: 0, count: CompletionSlots.count)
    private(set) var failed = [Int](repeating: 0, count: CompletionSlots.count)
    private(set) var total = 0
    private(set) var failedTotal = 0

    mutating func add(at time: Double, failed isFailure: Bool) {
        let t = max(0, time.isFinite ? time : 0)
        while t >= width * Double(CompletionSlots.count) { widen() }
        let i = min(CompletionSlots.count - 1, Int(t / width))
        counts[i] += 1
        total += 1
        if isFailure { failed[i] += 1; failedTotal += 1 }
    }

    private mutating func widen() {
        for i in 0..<CompletionSlots.count {
            let a = 2 * i, b = 2 * i + 1
            counts[i] = (a < counts.count ? counts[a] : 0) + (b < counts.count ? counts[b] : 0)
            failed[i] = (a < failed.count ? failed[a] : 0) + (b < failed.count ? failed[b] : 0)
        }
        width *= 2
    }
}

/// What the page sums up over the lines (everything but the rows): counts, failure reasons,
/// status codes, bytes, the latency sketch, per-phase sums, and the completions of the lines
/// that are not drawn. Fed on one thread at a time: where the rows are written, as lines end or
/// on the formatter thread, then read by the page's end.
private final class PageTally: @unchecked Sendable {
    var lines = 0, failures = 0
    var reasons: [String: Int] = [:]
    var otherReasons = 0
    /// Status code → lines; 0 for lines without a response.
    var statuses: [Int: Int] = [:]
    var bytes: Int64 = 0
    var latency = LatencySketch()
    var phaseSums = [Double](repeating: 0, count: BatchTimeline.Phases.names.count)
    var timedLines = 0
    var lastEnd: Double = 0
    /// Rows drawn.
    var drawn = 0
    var slots = CompletionSlots()

    /// Counts line `ordinal` (its bar at `timeline`); true when it is one of the lines drawn.
    func add(ordinal: Int, _ r: BatchResult, _ timeline: BatchTimeline) -> Bool {
        lines += 1
        let failed = r.exit != .success
        if failed {
            failures += 1
            let reason = "exit \(r.exit.rawValue): " + BatchHTMLReport.clip(BatchHTMLReport.reason(r.error ?? "failed"), 200)
            if reasons[reason] != nil || reasons.count < BatchHTMLReport.maxReasons {
                reasons[reason, default: 0] += 1
            } else {
                otherReasons += 1
            }
        }
        let statusKey = r.status.map { (100...999).contains($0) ? $0 : 0 } ?? 0
        statuses[statusKey, default: 0] += 1
        bytes += r.size ?? 0
        if let t = r.timeTotal { latency.add(t) }
        if let p = timeline.phases {
            timedLines += 1
            // Per line, so without the array `values` would build.
            phaseSums[0] += p.queued; phaseSums[1] += p.retries; phaseSums[2] += p.redirects; phaseSums[3] += p.dns
            phaseSums[4] += p.connect; phaseSums[5] += p.tls; phaseSums[6] += p.waiting; phaseSums[7] += p.receiving
        }
        lastEnd = max(lastEnd, timeline.end)
        guard ordinal < BatchHTMLReport.drawnLines else {
            slots.add(at: timeline.end, failed: failed)
            return false
        }
        drawn += 1
        return true
    }

    /// What follows the rows: the end of the waterfall (its note and axis), then the summary,
    /// failures and status codes, which the style and the script put above it.
    fileprivate func writeTail(_ p: inout HTMLPage) {
        let axis = max(lastEnd, 0.001)
        p.raw("</div>\n")
        writeAxis(&p, axis: axis)
        p.raw("</section>\n")
        writeSummary(&p, axis: axis)
        writeReasons(&p)
        writeStatuses(&p)
        writeRest(&p, axis: axis)
        p.raw("<script>"); p.raw(BatchHTMLReport.script); p.raw("</script>\n")
        p.raw("</body></html>\n")
    }

    fileprivate func writeSummary(_ p: inout HTMLPage, axis: Double) {
        p.raw("<section id=\"summary\"><h2>Summary</h2><dl>")
        func item(_ name: String, _ value: String, id: String) {
            p.raw("<div><dt>"); p.text(name); p.raw("</dt><dd id=\"\(id)\">"); p.text(value); p.raw("</dd></div>")
        }
        item("lines", String(lines), id: "lines")
        item("succeeded", String(lines - failures), id: "succeeded")
        item("failed", String(failures), id: "failed")
        item("wall time", BatchHTMLReport.duration(lastEnd), id: "wall")
        item("requests/s", lastEnd > 0 ? BatchHTMLReport.fixed(Double(lines) / lastEnd, 1) : "-", id: "rps")
        for (name, f) in [("p50", 0.5), ("p90", 0.9), ("p99", 0.99)] {
            item("latency " + name, latency.percentile(f).map(BatchHTMLReport.duration) ?? "-", id: name)
        }
        item("latency max", latency.count > 0 ? BatchHTMLReport.duration(latency.max) : "-", id: "max")
        item("bytes received", BatchHTMLReport.byteCount(bytes), id: "bytes")
        p.raw("</dl>")
        if timedLines > 0 {
            p.raw("<p class=\"note\">Mean time per phase over the \(timedLines == 1 ? "1 line" : "\(timedLines) lines") with transfer timing: ")
            let names = BatchTimeline.Phases.names
            for (i, sum) in phaseSums.enumerated() {
                p.raw("<span class=\"key \(names[i])\"></span>\(names[i]) ")
                p.text(BatchHTMLReport.duration(sum / Double(timedLines)))
                p.raw(i == names.count - 1 ? "" : " · ")
            }
            p.raw(". Latency percentiles are of the \(latency.count) lines that got a response (within 1%: a log-scale histogram).</p>")
        }
        p.raw("</section>\n")
    }

    fileprivate func writeReasons(_ p: inout HTMLPage) {
        guard failures > 0 else { return }
        p.raw("<section id=\"failures\"><h2>Failures</h2><table><tr><th>lines</th><th>reason</th></tr>")
        for (reason, n) in reasons.sorted(by: { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }) {
            p.raw("<tr class=\"failed\"><td>\(n)</td><td>"); p.text(reason); p.raw("</td></tr>")
        }
        if otherReasons > 0 { p.raw("<tr class=\"failed\"><td>\(otherReasons)</td><td>other reasons</td></tr>") }
        p.raw("</table></section>\n")
    }

    fileprivate func writeStatuses(_ p: inout HTMLPage) {
        guard !statuses.isEmpty else {
            p.raw("<section id=\"statuses\"><h2>Status codes</h2><p class=\"note\">No line ran.</p></section>\n")
            return
        }
        p.raw("<section id=\"statuses\"><h2>Status codes</h2><table>")
        let most = max(1, statuses.values.max() ?? 1)
        for (status, n) in statuses.sorted(by: { $0.key < $1.key }) {
            let cls = status == 0 ? "none" : "s\(status / 100)xx"
            p.raw("<tr><td>\(status == 0 ? "no response" : String(status))</td><td>\(n)</td>")
            p.raw("<td class=\"hist\"><span class=\"\(cls)\" style=\"width:\(BatchHTMLReport.percent(Double(n), of: Double(most)))%\"></span></td></tr>")
        }
        p.raw("</table></section>\n")
    }

    fileprivate func writeAxis(_ p: inout HTMLPage, axis: Double) {
        if lines > drawn {
            let other = lines - drawn == 1 ? "the other line is" : "the other \(lines - drawn) are"
            p.raw("<p class=\"note\">The first \(drawn) lines are drawn; \(other) counted in the summary and shown below as completions over time.</p>\n")
        }
        p.raw("<div class=\"axis\"><span class=\"label\">0 → \(BatchHTMLReport.duration(axis))</span><span class=\"track\">")
        let step = BatchHTMLReport.tickStep(axis)
        var t = 0.0
        while t <= axis + step / 1000 {
            // A tick near the right end is labelled to the left of its line, so its label is not cut or wrapped.
            p.raw("<span class=\"\(t > axis * 0.9 ? "tick end" : "tick")\" style=\"left:\(BatchHTMLReport.percent(t, of: axis))%\">\(BatchHTMLReport.duration(t))</span>")
            t += step
        }
        p.raw("</span></div>\n")
    }

    fileprivate func writeRest(_ p: inout HTMLPage, axis: Double) {
        guard slots.total > 0 else { return }
        p.raw("<section id=\"rest\"><h2>Lines after the first \(BatchHTMLReport.drawnLines)</h2>")
        p.raw("<p class=\"note\">\(counted(slots.total, "line")) (\(slots.failedTotal) failed), completions per \(BatchHTMLReport.duration(slots.width)) on the same time axis.</p>")
        p.raw("<div class=\"axis\"><span class=\"label\"></span><span class=\"track cols\">")
        let most = Double(max(1, slots.counts.max() ?? 1))
        for (i, n) in slots.counts.enumerated() where n > 0 {
            let failedHere = slots.failed[i]
            p.raw("<span class=\"col\" title=\"\(n) lines ended, \(failedHere) failed\" style=\"left:\(BatchHTMLReport.percent(Double(i) * slots.width, of: axis))%;width:\(BatchHTMLReport.percent(slots.width, of: axis))%;height:\(BatchHTMLReport.percent(Double(n), of: most))%\">")
            if failedHere > 0 { p.raw("<span class=\"failed-key\" style=\"height:\(BatchHTMLReport.percent(Double(failedHere), of: Double(n)))%\"></span>") }
            p.raw("</span>")
        }
        p.raw("</span></div></section>\n")
    }
}
