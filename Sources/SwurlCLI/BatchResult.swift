#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlOutput
import SwurlResponseSerialization
import SwurlEngine
import SwurlCore
import SwurlCurl

/// What one line ended with.
struct BatchResult {
    var line: Int
    var method: String?
    var url: String?
    var status: Int?
    var httpVersion: String?
    var timeTotal: Double?
    var timeFirstByte: Double?
    var size: Int64?
    /// The failure's message, as `BatchRunner.record` made it safe for every output.
    var error: String?
    /// What the one-shot request's hint says beside a TLS failure (the presented and pinned
    /// pins), one item a line, without `swurl: hint:`; nil for other failures.
    var hint: String?
    var exit: ExitStatus = .success
    /// The body's file name in `--output-dir` (nil when none was written).
    var file: String?
    /// What the cache did for the line (`--cache`: `hit, age 3 s`, `miss, stored`), as `-v` says it.
    var cache: String?
    /// When the line ran on the batch's clock and its phases (for `--report` and `--junit`).
    var timeline: BatchTimeline?
    /// The line's own method and URL when its result shows another hop's (a followed redirect);
    /// nil when they are `method` and `url`. JUnit names a case by them: a name that changed
    /// with a redirect's target would be a new test in every run.
    var requested: (method: String, url: String)?

    /// The URL as results show it: a password in it masked, and a user name given alone (a token).
    var shownURL: String? { BatchResult.shown(url) }

    /// The line's own method and URL, as `shownURL` shows a URL.
    var requestedShown: (method: String?, url: String?) {
        guard let requested else { return (method, shownURL) }
        return (requested.method, BatchResult.shown(requested.url))
    }

    private static func shown(_ url: String?) -> String? {
        // memchr: `utf8.contains` costs about 1,000 instructions for a URL, and every report asks.
        guard let url, url.containsByte(UInt8(ascii: "@")) else { return url }
        return Redactor.url(url, userAlone: true)
    }

    /// `LINE STATUS TIME SIZE METHOD URL` (with ` (exit EXIT: MESSAGE)` when the response failed
    /// the line's checks), or `LINE error EXIT METHOD URL: MESSAGE`.
    var text: String {
        var bytes = ByteBuffer()
        appendText(to: &bytes)
        return bytes.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// `text` appended as bytes; a successful line's numbers are written digit by digit and a
    /// printable ASCII method and URL copied as they are (what `TerminalSanitizer.clean` keeps).
    func appendText(to out: inout ByteBuffer) {
        guard exit == .success, let status, let timeTotal, let size,
              BatchResult.isPrintableASCII(method), BatchResult.isPrintableASCII(shownURL) else {
            out.append(contentsOf: slowText)
            return
        }
        out.appendDecimal(Int64(line))
        out.append(0x20)
        out.appendDecimal(Int64(status))
        out.append(0x20)
        BatchResult.appendSeconds(timeTotal, to: &out)
        out.append(0x20)
        out.appendDecimal(size)
        out.append(0x20)
        if let method { out.append(contentsOf: method) } else { out.append(UInt8(ascii: "-")) }
        out.append(0x20)
        if let url = shownURL { out.append(contentsOf: url) } else { out.append(UInt8(ascii: "-")) }
    }

    private static func isPrintableASCII(_ s: String?) -> Bool {
        guard var s else { return true }
        return s.withUTF8 { $0.allSatisfy { $0 >= 0x20 && $0 < 0x7F } }
    }

    /// `seconds(_:)` appended as bytes.
    static func appendSeconds(_ d: Double, to out: inout ByteBuffer) {
        let ms = Int64((max(0, d) * 1_000_000).rounded())
        out.appendDecimal(ms / 1_000_000)
        out.write(upTo: 7) { p in
            p[0] = UInt8(ascii: ".")
            var frac = ms % 1_000_000
            for i in stride(from: 6, to: 0, by: -1) {
                p[i] = UInt8(truncatingIfNeeded: frac % 10) &+ 0x30
                frac /= 10
            }
            return 7
        }
    }

    private var slowText: String {
        let m = method ?? "-", u = shownURL.map { TerminalSanitizer.clean($0) } ?? "-"
        if let status, let timeTotal, let size {
            var s = "\(line) \(status) \(BatchResult.seconds(timeTotal)) \(size) \(m) \(u)"
            if exit != .success { s += " (exit \(exit.rawValue): \(error ?? ""))" }
            return s
        }
        return "\(line) error \(exit.rawValue) \(m) \(u): \(error ?? "")"
    }

    var json: String {
        func num(_ d: Double?) -> JSONValue { d.map { .number(BatchResult.seconds($0)) } ?? .null }
        var members: [JSONValue.Member] = [
            .init("line", .number(String(line))),
            .init("method", method.map { .string($0) } ?? .null),
            .init("url", shownURL.map { .string($0) } ?? .null),
            .init("status", status.map { .number(String($0)) } ?? .null),
            .init("http_version", httpVersion.map { .string($0) } ?? .null),
            .init("time_total", num(timeTotal)),
            .init("time_first_byte", num(timeFirstByte)),
            .init("size", size.map { .number(String($0)) } ?? .null),
            .init("error", error.map { .string($0) } ?? .null),
            .init("exit", .number(String(exit.rawValue))),
        ]
        if let hint { members.append(.init("hint", .string(hint))) }
        if let file { members.append(.init("file", .string(file))) }
        if let cache { members.append(.init("cache", .string(cache))) }
        return JSONValue.object(members).serialized
    }

    static func seconds(_ d: Double) -> String {
        let ms = Int((max(0, d) * 1_000_000).rounded())
        let frac = String(ms % 1_000_000)
        return "\(ms / 1_000_000)." + String(repeating: "0", count: 6 - frac.count) + frac
    }
}

/// Writes results as lines finish, or in input order (holding back only results).
final class BatchReport: BatchResultObserving {
    private let sink: ByteSink
    private let jsonl: Bool
    private let inputOrder: Bool
    private var held: [Int: BatchResult] = [:]
    private var nextOrdinal = 0
    private var pending = ByteBuffer(capacity: 16384 + 4096)
    /// Why results could not be written (the first failure); nothing more is written after it.
    private(set) var writeError: SwurlError?
    var outputFailed: Bool { writeError != nil }

    init(sink: ByteSink, jsonl: Bool, inputOrder: Bool) {
        self.sink = sink
        self.jsonl = jsonl
        self.inputOrder = inputOrder
    }

    func observe(ordinal: Int, _ result: BatchResult) {
        if !inputOrder {
            emit(result)
        } else {
            held[ordinal] = result
            while let r = held.removeValue(forKey: nextOrdinal) {
                emit(r)
                nextOrdinal += 1
            }
        }
        if pending.count >= 16384 { flush() }
    }

    private func emit(_ r: BatchResult) {
        if jsonl { pending.append(contentsOf: r.json) } else { r.appendText(to: &pending) }
        pending.append(0x0A)
    }

    func finishing() -> () -> SwurlError? {
        flush()
        return { nil }
    }

    /// Writes what is waiting (also the held results after an interruption, in input order).
    /// - Parameter before: called first when there are any (the progress line clears itself).
    /// - Returns: whether any were written.
    @discardableResult
    func flush(before: (() -> Void)? = nil) -> Bool {
        if !held.isEmpty && Interrupt.requested {
            for key in held.keys.sorted() { if let r = held.removeValue(forKey: key) { emit(r) } }
        }
        guard !pending.isEmpty, writeError == nil else { pending.removeAll(); return false }
        before?()
        defer { pending.removeAll() }
        do {
            try pending.withUnsafeBytes { try sink.write($0) }
        } catch {
            writeError = (error as? SwurlError) ?? .output("writing the results failed: \(error)")
        }
        return true
    }
}
