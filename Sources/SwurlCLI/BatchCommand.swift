#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlOutput
import SwurlResponseSerialization
import SwurlSession
import SwurlCore
import SwurlCurl

/// `swurl batch [FILE|-] [OPTIONS]`: one request per line in the one-shot grammar
/// (`[METHOD] URL [ITEMS…] [OPTIONS…]`), many at once on one libcurl multi handle
/// (`MultiDriver`). Each line goes through the same parser, `CommandOptions`, `RequestBuilder`,
/// `Exchange` and validation rules as `swurl URL`; the batch's own options are every
/// line's defaults. Lines are read as slots free up, results are written as lines finish.
enum BatchCommand: SwurlCommand {
    static let name = CommandName.batch
    static let word: String? = "batch"
    static let invocation = "swurl batch FILE"
    static let usage = "swurl batch [FILE|-] [OPTIONS]"
    static let summary = "run the requests of a file, one per line, many at once"

    static func run(_ args: ParsedArguments, environment: Environment) throws(SwurlError) -> ExitStatus {
        guard args.positionals.count <= 1 else {
            throw .usage("'swurl batch' takes one input file, got \(args.positionals.count) arguments",
                         hint: "put the requests in the file, one per line: [METHOD] URL [ITEMS…] [OPTIONS…]")
        }
        let path = args.positionals.first ?? "-"
        var parallel = 16
        if let v = args.value(.parallel) {
            guard let n = Int(v), n >= 1, n <= 1024 else {
                throw .usage("--parallel needs a number from 1 to 1024, not '\(TerminalSanitizer.clean(v))'")
            }
            parallel = n
        }
        let outputDir = args.value(.outputDir).map { environment.resolvePath($0) }
        if let dir = outputDir {
            var st = stat()
            guard stat(dir, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
                throw .inputFile("--output-dir '\(TerminalSanitizer.clean(dir))' is not a directory")
            }
        }
        var nameTemplate: BatchNameTemplate?
        if let t = args.value(.nameTemplate) {
            guard outputDir != nil else {
                throw .usage("--name-template names the files of --output-dir", hint: "add --output-dir DIR")
            }
            nameTemplate = try BatchNameTemplate(t)
        }
        // The batch's options, without its own, are every line's defaults.
        var defaults = args
        defaults.positionals = []
        for spec in OptionTable.all where !spec.commands.contains(.request) { defaults.options[spec.option] = nil }

        let reader: LineReader
        if path == "-" {
            reader = LineReader(source: environment.stdin, name: "stdin")
        } else {
            let fd = open(environment.resolvePath(path), O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                throw .inputFile("cannot read '\(TerminalSanitizer.clean(path))': \(systemErrorMessage(errno))")
            }
            reader = LineReader(owning: fd, name: path)
        }
        let report = BatchReport(sink: environment.stdout, jsonl: args.has(.jsonl), inputOrder: args.value(.order) == "input")
        let progress = environment.stderrIsTerminal && !args.has(.quiet) ? BatchProgress(sink: environment.stderr) : nil
        let runner = BatchRunner(defaults: defaults, environment: environment, outputDir: outputDir,
                                 nameTemplate: nameTemplate, failFast: args.has(.failFast), report: report, progress: progress)
        Interrupt.arm()
        let driver = try MultiDriver(parallel: parallel)
        // Lines are taken as they arrive: a line not written yet (a slow pipe, a terminal) never
        // holds up the lines already read; the driver waits for more input beside the transfers.
        reader.waits = false
        let input = reader.descriptor.map { fd in
            MultiDriver.Input(fd: fd, ended: { reader.ended || runner.stopped || Interrupt.requested })
        }
        let ending = driver.run(next: { runner.next(reader, ahead: $0) },
                                finished: { runner.finished($0, $1) },
                                tick: { report.flush(); progress?.draw(force: false) },
                                input: input,
                                // The next line is prepared while the running ones wait on the network,
                                // unless a failure must stop the reading (--fail-fast) or preparing a
                                // line may wait for the network itself (--wait-for-network).
                                prefetch: !args.has(.failFast) && !args.has(.waitForNetwork))
        progress?.finish()
        if let error = reader.error { Swurl.report(error, environment: environment) }
        report.flush()
        // Results that could not be written (stdout full or closed) fail the batch, as they
        // fail any other command.
        if let error = report.writeError { Swurl.report(error, environment: environment) }
        if ending == .interrupted || Interrupt.requested { return .interrupted }
        if let error = reader.error ?? report.writeError { return ExitStatus(for: error) }
        return runner.firstFailure?.status ?? .success
    }

    /// Options that change how a response is shown: refused on a batch line (and, by the option
    /// table, on `swurl batch` itself), since a batch shows results, not responses.
    static let displayOptions: [Option] = [.verbose, .print, .headers, .body, .timing, .all, .pretty, .style,
                                           .sortKeys, .dropNulls, .stream, .plistAs]
}

/// One request of the batch: its line number and, once built, the method and URL.
struct BatchLine {
    let number: Int
    let ordinal: Int
    let method: String
    let url: String
    /// Receives the response; its judge holds the line's status, content and `--decode` rules
    /// (not all its options: copying CommandOptions for every line is measurable; docs/performance.md).
    let body: BatchBody
}

/// Reads input a line at a time (a 64 KiB buffer; a line longer than 1 MiB is that line's error):
/// batch files and the REPL's script mode.
final class LineReader {
    private let source: ByteSource
    private let name: String
    /// A descriptor to close at the end (a file the caller opened for the reader).
    private let owned: Int32?
    private var buffer = [UInt8](repeating: 0, count: 65536)
    private var start = 0, end = 0
    private var atEOF = false
    /// The start of a line whose end has not been read yet (kept across `next` calls).
    private var partial: [UInt8] = []
    private var partialTooLong = false
    private(set) var lineNumber = 0
    private(set) var error: SwurlError?
    /// Whether `next` waits for input (the default). When false, `next` returns nil as soon as
    /// no whole line is ready and the descriptor has nothing to read; `ended` tells that apart
    /// from the end of the input.
    var waits = true
    /// Whether the input has ended (after `next` returned nil).
    private(set) var ended = false
    static let maxLine = 1 << 20

    init(source: ByteSource, name: String, owning fd: Int32? = nil) {
        self.source = source
        self.name = name
        owned = fd
    }

    /// Lines of the file open on `fd`, which the reader closes at its end.
    convenience init(owning fd: Int32, name: String) {
        self.init(source: FileDescriptorSource(fd: fd), name: name, owning: fd)
    }

    deinit { if let owned { close(owned) } }

    /// The descriptor the input comes from, when it is one (not memory in tests).
    var descriptor: Int32? { (source as? FileDescriptorSource)?.fd }

    /// The next line without its line ending (nil at the end, or with `waits` false when none
    /// is ready); `tooLong` when it was cut.
    func next() -> (text: String, tooLong: Bool)? {
        while true {
            if let nl = buffer[start..<end].firstIndex(of: 0x0A) {
                if !partialTooLong { partial += buffer[start..<nl] }
                start = nl + 1
                return take()
            }
            if !partialTooLong { partial += buffer[start..<end] }
            if partial.count > LineReader.maxLine { partialTooLong = true; partial = [] }
            start = 0; end = 0
            if atEOF {
                guard !partial.isEmpty || partialTooLong else { ended = true; return nil }
                return take()
            }
            if !waits, let fd = descriptor, !LineReader.readable(fd) { return nil }
            let n: Int
            do {
                n = try buffer.withUnsafeMutableBytes { try source.read(into: $0) }
            } catch let failure {
                if error == nil && !Interrupt.requested {
                    let why = (failure as? SwurlError)?.message ?? "\(failure)"
                    error = .inputFile("reading '\(TerminalSanitizer.clean(name))' failed: \(why)")
                }
                atEOF = true
                continue
            }
            if n == 0 {
                atEOF = true
            } else {
                end = n
            }
        }
    }

    /// The line collected in `partial`, which starts over.
    private func take() -> (text: String, tooLong: Bool) {
        let tooLong = partialTooLong || partial.count > LineReader.maxLine
        if partial.last == 0x0D { partial.removeLast() }
        // Decoded as argv is: a byte that is not UTF-8 stays that byte (ArgumentBytes).
        let text = tooLong ? "" : ArgumentBytes.decode(partial)
        partial.removeAll(keepingCapacity: partial.capacity <= 65536)
        partialTooLong = false
        lineNumber += 1
        return (text, tooLong)
    }

    /// Whether a read from `fd` would not block: input, its end, or an error waiting.
    private static func readable(_ fd: Int32) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            let rc = poll(&p, 1, 0)
            if rc >= 0 { return rc == 1 }
            if errno != EINTR || Interrupt.requested { return true }
        }
    }
}

/// Receives one line's response: counts the body, runs a strict `--decode` over it and, with
/// `--output-dir`, writes it to `DIR/.LINE.body.part`, renamed to its final name (`DIR/LINE.body`
/// or the `--name-template` name) when the line succeeds.
final class BatchBody: TransferDelegate {
    /// The facts the line's verdict is drawn from (head, size, strict decoding).
    let judge: ResponseJudge
    var bytes: Int64 { judge.bytes }
    private let partPath: String?
    private var fd: Int32 = -1

    init(outputDir: String?, line: Int, validator: ResponseValidator, decoding: DecodingOptions) {
        partPath = outputDir.map { "\($0)/.\(line).body.part" }
        judge = ResponseJudge(validator: validator, decoding: decoding)
    }

    deinit { if fd >= 0 { close(fd) } }

    func transferDidSendRequestHead(_ bytes: [UInt8]) throws {}
    func transferDidSendRequestBody(_ bytes: UnsafeRawBufferPointer) throws {}

    func transferDidReceiveHead(_ head: HTTPResponseHead) throws {
        judge.received(head: head)
        guard head.status >= 200 else { return }
        // A new response (a retry after a cut): start the file again.
        if let partPath {
            if fd >= 0 { close(fd) }
            // Never through a planted link in a shared directory: a fresh file or nothing.
            unlink(partPath)
            fd = open(partPath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                throw SwurlError.output("cannot write '\(TerminalSanitizer.clean(partPath))': \(systemErrorMessage(errno))")
            }
        }
    }

    func transferDidReceiveBody(_ b: UnsafeRawBufferPointer) throws {
        judge.received(body: b)
        if fd >= 0, let partPath { try writeAll(fd, b, describing: partPath) }
    }

    /// Keeps the body (renamed to `finalPath`) or removes it.
    func settle(keep: Bool, to finalPath: String?) -> SwurlError? {
        if fd >= 0 { close(fd); fd = -1 }
        guard let partPath else { return nil }
        if keep, let finalPath {
            if judge.head == nil || access(partPath, F_OK) != 0 {
                // No body arrived (HEAD, 204): an empty file.
                unlink(partPath)
                let f = open(partPath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
                if f >= 0 { close(f) }
            }
            if rename(partPath, finalPath) != 0 {
                let e = errno
                unlink(partPath)
                return .output("cannot write '\(TerminalSanitizer.clean(finalPath))': \(systemErrorMessage(e))")
            }
        } else {
            unlink(partPath)
        }
        return nil
    }
}

/// Turns lines into exchanges for the driver and their outcomes into results.
final class BatchRunner {
    private let defaults: BatchDefaults
    /// `--wait-for-network`: the origins (scheme, host, port) already found reachable, so each is
    /// waited for once, before its first line starts.
    private var reachedOrigins: Set<String> = []
    private let environment: Environment
    private let outputDir: String?
    private let nameTemplate: BatchNameTemplate?
    /// The `--name-template` names this batch wrote, so that no line replaces another's body.
    private var writtenNames: Set<String> = []
    private let failFast: Bool
    private let report: BatchReport
    private let progress: BatchProgress?
    private var ordinal = 0
    private var stop = false
    /// Whether no new line may start (`--fail-fast` after a failure, or results that cannot be written).
    var stopped: Bool { stop || report.writeError != nil }
    /// The first failing line in input order and its status.
    private(set) var firstFailure: (line: Int, status: ExitStatus)?

    init(defaults: ParsedArguments, environment: Environment, outputDir: String?, nameTemplate: BatchNameTemplate?,
         failFast: Bool, report: BatchReport, progress: BatchProgress?) {
        self.defaults = BatchDefaults(defaults, environment: environment)
        self.environment = environment
        self.outputDir = outputDir
        self.nameTemplate = nameTemplate
        self.failFast = failFast
        self.report = report
        self.progress = progress
    }

    private func failed(_ line: Int, _ status: ExitStatus) {
        if firstFailure.map({ line < $0.line }) ?? true { firstFailure = (line, status) }
        if failFast { stop = true }
    }

    /// A line read ahead (`next(ahead: true)`) but left for its turn, since preparing it may wait.
    private var heldBack: (number: Int, arguments: ParsedArguments)?

    /// The next request from the input; malformed lines are reported here and skipped.
    /// - Parameter ahead: asked while every slot is busy (the driver's prefetch). A line whose
    ///   preparation may wait — its own `--wait-for-network`, or its own `--key`/`--cert`, whose
    ///   password may be asked for — is then held back and nil returned; the next call takes it.
    func next(_ reader: LineReader, ahead: Bool = false) -> (BatchLine, Exchange)? {
        while !stopped, !Interrupt.requested {
            let number: Int, parsed: Result<ParsedArguments, SwurlError>
            if let held = heldBack {
                if ahead { return nil }
                heldBack = nil
                (number, parsed) = (held.number, .success(held.arguments))
            } else {
                guard let (text, tooLong) = reader.next() else { return nil }
                number = reader.lineNumber
                let trimmed = text.trimmingSpaces()
                // A line cut for its length comes back empty: it is reported, never skipped.
                if !tooLong && (trimmed.isEmpty || trimmed.hasPrefix("#")) { continue }
                parsed = tooLong
                    ? .failure(.usage("the line is longer than \(LineReader.maxLine / 1024) KiB"))
                    : Result { () throws(SwurlError) in try ArgumentParser.parse(try ShellWords.words(trimmed)) }
                if ahead, case .success(let arguments) = parsed,
                   arguments.has(.waitForNetwork) || arguments.has(.key) || arguments.has(.cert) {
                    heldBack = (number, arguments)
                    return nil
                }
            }
            let index = ordinal
            ordinal += 1
            progress?.started()
            // The method and URL once the request is built: a later failure (the network wait,
            // the transfer options) is reported with them.
            var request: HTTPRequest?
            do throws(SwurlError) {
                let (line, session) = try build(parsed.get(), number: number, ordinal: index, request: &request)
                return (line, session)
            } catch {
                let status = ExitStatus(for: error)
                report.add(ordinal: index, BatchResult(line: number, method: request?.method.rawValue, url: request?.url,
                                                       status: nil, httpVersion: nil,
                                                       timeTotal: nil, timeFirstByte: nil, size: nil,
                                                       error: error.message, exit: status))
                progress?.finished(failed: true, bytes: 0)
                failed(number, status)
            }
        }
        return nil
    }

    /// One parsed line through the one-shot rules: options (the batch's as defaults), request builder.
    /// - Parameter built: set to the request as soon as it is built.
    private func build(_ arguments: ParsedArguments, number: Int, ordinal: Int,
                       request built: inout HTTPRequest?) throws(SwurlError) -> (BatchLine, Exchange) {
        var options = try defaults.options(for: arguments)
        options.ignoreStdin = true
        // Stdin is the batch's input (or the terminal), never a line's body.
        try options.refuseStdinItems("a batch line")
        let request = try RequestBuilder(options: options, environment: environment).build()
        built = request
        if let limit = options.waitForNetwork {
            let origin = (try? CurlURL(parsing: request.url)).map { "\($0.scheme)://\($0.hostHeader)" } ?? request.url
            if !reachedOrigins.contains(origin) {
                try Reachability.waitForNetwork(request.url, options: options.transfer, limit: limit)
                reachedOrigins.insert(origin)
            }
        }
        var transferOptions = try Swurl.transferOptions(options, url: request.url, environment: environment)
        transferOptions.rateLimitedByLibcurl = true
        // A line with TLS options of its own (pins above all) never shares a connection: a reused
        // one was checked under another line's policy, and libcurl cannot see pins to tell.
        transferOptions.ownConnection = arguments.options.keys.contains { OptionTable.spec(long: $0.rawValue)?.group == .tls }
        // Over HTTP/1.1: FORBID_REUSE is applied only when the last transfer leaves a connection,
        // so other lines could join an HTTP/2 connection this line's trust (--cacert-add,
        // --pin-cert) let in, and keep it after; an HTTP/1.1 connection carries one transfer.
        if transferOptions.ownConnection { transferOptions.httpVersion = .http1_1 }
        transferOptions.ownSharedState = BatchDefaults.needsOwnSharedState(transferOptions, request: request)
        BatchDefaults.sizeReceiveBuffer(&transferOptions)
        let body = BatchBody(outputDir: outputDir, line: number, validator: options.validator, decoding: options.decoding)
        let session = try Exchange(request: request, options: transferOptions) { body }
        session.delegateCanRestart = true
        session.observer = TransferReporter(options, environment, context: "line \(number): ")
        return (BatchLine(number: number, ordinal: ordinal, method: request.method.rawValue, url: request.url, body: body),
                session)
    }

    /// Where a successful line's body goes: `DIR/LINE.body`, or the `--name-template` name (one
    /// no other line of this batch wrote; a name left empty by sanitizing falls back to LINE.body).
    private func finalPath(_ line: BatchLine, status: Int?) -> String? {
        guard let outputDir else { return nil }
        guard let nameTemplate else { return "\(outputDir)/\(line.number).body" }
        let wanted = nameTemplate.name(line: line.number, method: line.method, url: line.url, status: status)
            ?? "\(line.number).body"
        let name = BatchNameTemplate.unclaimed(wanted, line: line.number) { writtenNames.contains($0) }
        writtenNames.insert(name)
        return "\(outputDir)/\(name)"
    }

    /// A line ended: validate it as a one-shot request would, write its body, report it.
    /// - Returns: whether new lines may start.
    func finished(_ line: BatchLine, _ outcome: Swift.Result<Exchange.Result, SwurlError>) -> Bool {
        var result = BatchResult(line: line.number, method: line.method, url: line.url)
        var status = ExitStatus.success
        switch outcome {
        case .failure(let error):
            status = ExitStatus(for: error)
            result.error = error.message
            // A transfer stopped after the response began (--max-filesize, a cut) still has its status.
            result.status = line.body.judge.head?.status
            _ = line.body.settle(keep: false, to: nil)
        case .success(let r):
            result.url = r.url
            result.status = r.head?.status
            result.httpVersion = r.timing.final.httpVersion
            result.timeTotal = r.timing.final.total + r.timing.redirectTime
            result.timeFirstByte = r.timing.final.startTransfer
            result.size = line.body.bytes
            if let verdict = line.body.judge.verdict() {
                // The one-shot request's verdict, on the same facts.
                status = verdict.exitStatus
                result.error = verdict.message
            }
            let path = status == .success ? finalPath(line, status: r.head?.status) : nil
            if let e = line.body.settle(keep: status == .success, to: path) {
                status = ExitStatus(for: e)
                result.error = e.message
            } else if let path, status == .success {
                result.file = String(path.split(separator: "/").last ?? "")
            }
        }
        result.exit = status
        report.add(ordinal: line.ordinal, result)
        progress?.finished(failed: status != .success, bytes: result.size ?? 0)
        if status != .success && status != .interrupted { failed(line.number, status) }
        return !stopped
    }
}

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
    var error: String?
    var exit: ExitStatus = .success
    /// The body's file name in `--output-dir` (nil when none was written).
    var file: String?

    /// The URL as results show it: a password in it masked.
    var shownURL: String? {
        guard let url, url.utf8.contains(UInt8(ascii: "@")) else { return url }
        return Redactor.url(url)
    }

    /// `LINE STATUS TIME SIZE METHOD URL` (with ` (exit EXIT: MESSAGE)` when the response failed
    /// the line's checks), or `LINE error EXIT METHOD URL: MESSAGE`.
    var text: String {
        var bytes: [UInt8] = []
        appendText(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `text` appended as bytes; a successful line's numbers are written digit by digit and a
    /// printable ASCII method and URL copied as they are (what `TerminalSanitizer.clean` keeps).
    func appendText(to out: inout [UInt8]) {
        guard exit == .success, let status, let timeTotal, let size,
              BatchResult.isPrintableASCII(method), BatchResult.isPrintableASCII(shownURL) else {
            out.append(contentsOf: slowText.utf8)
            return
        }
        BatchResult.appendDecimal(Int64(line), to: &out)
        out.append(0x20)
        BatchResult.appendDecimal(Int64(status), to: &out)
        out.append(0x20)
        BatchResult.appendSeconds(timeTotal, to: &out)
        out.append(0x20)
        BatchResult.appendDecimal(size, to: &out)
        out.append(0x20)
        if let method { out.append(contentsOf: method.utf8) } else { out.append(UInt8(ascii: "-")) }
        out.append(0x20)
        if let url = shownURL { out.append(contentsOf: url.utf8) } else { out.append(UInt8(ascii: "-")) }
    }

    private static func isPrintableASCII(_ s: String?) -> Bool {
        guard var s else { return true }
        return s.withUTF8 { $0.allSatisfy { $0 >= 0x20 && $0 < 0x7F } }
    }

    private static func appendDecimal(_ n: Int64, to out: inout [UInt8]) {
        if n < 0 { out.append(contentsOf: String(n).utf8); return }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var v = n
        withUnsafeMutableBytes(of: &digits) { d in
            repeat {
                d[count] = UInt8(truncatingIfNeeded: v % 10) + 0x30
                v /= 10
                count += 1
            } while v > 0
            while count > 0 { count -= 1; out.append(d[count]) }
        }
    }

    /// `seconds(_:)` appended as bytes.
    private static func appendSeconds(_ d: Double, to out: inout [UInt8]) {
        let ms = Int64((max(0, d) * 1_000_000).rounded())
        appendDecimal(ms / 1_000_000, to: &out)
        out.append(UInt8(ascii: "."))
        var frac = ms % 1_000_000, divisor: Int64 = 100_000
        while divisor > 0 {
            out.append(UInt8(truncatingIfNeeded: frac / divisor) + 0x30)
            frac %= divisor
            divisor /= 10
        }
    }

    private var slowText: String {
        let m = method ?? "-", u = shownURL.map { TerminalSanitizer.clean($0) } ?? "-"
        if let status, let timeTotal, let size {
            var s = "\(line) \(status) \(BatchResult.seconds(timeTotal)) \(size) \(m) \(u)"
            if exit != .success { s += " (exit \(exit.rawValue): \(TerminalSanitizer.clean(error ?? "")))" }
            return s
        }
        return "\(line) error \(exit.rawValue) \(m) \(u): \(TerminalSanitizer.clean(error ?? ""))"
    }

    var json: String {
        func num(_ d: Double?) -> JSONValue { d.map { .number(BatchResult.seconds($0)) } ?? .null }
        let v = JSONValue.object([
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
        ] + (file.map { [.init("file", .string($0))] } ?? []))
        return v.serialized
    }

    static func seconds(_ d: Double) -> String {
        let ms = Int((max(0, d) * 1_000_000).rounded())
        let frac = String(ms % 1_000_000)
        return "\(ms / 1_000_000)." + String(repeating: "0", count: 6 - frac.count) + frac
    }
}

/// Writes results as lines finish, or in input order (holding back only results).
final class BatchReport {
    private let sink: ByteSink
    private let jsonl: Bool
    private let inputOrder: Bool
    private var held: [Int: BatchResult] = [:]
    private var nextOrdinal = 0
    private var pending: [UInt8] = []
    /// Why results could not be written (the first failure); nothing more is written after it.
    private(set) var writeError: SwurlError?

    init(sink: ByteSink, jsonl: Bool, inputOrder: Bool) {
        self.sink = sink
        self.jsonl = jsonl
        self.inputOrder = inputOrder
    }

    func add(ordinal: Int, _ result: BatchResult) {
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
        if jsonl { pending.append(contentsOf: r.json.utf8) } else { r.appendText(to: &pending) }
        pending.append(0x0A)
    }

    /// Writes what is waiting (also the held results after an interruption, in input order).
    func flush() {
        if !held.isEmpty && Interrupt.requested {
            for key in held.keys.sorted() { if let r = held.removeValue(forKey: key) { emit(r) } }
        }
        guard !pending.isEmpty, writeError == nil else { pending = []; return }
        do {
            try sink.write(pending)
        } catch {
            writeError = (error as? SwurlError) ?? .output("writing the results failed: \(error)")
        }
        pending = []
    }
}

/// The batch progress line on stderr: done/started, failures, requests/s, bytes; at most 10
/// redraws a second.
final class BatchProgress {
    private let sink: ByteSink
    private let startTime = MonotonicClock.now()
    private var lastDraw = 0.0
    private var started_ = 0, done = 0, failures = 0
    private var bytes: Int64 = 0

    init(sink: ByteSink) { self.sink = sink }

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
        try? sink.write("\r\u{1B}[K\(done)/\(started_) done, \(failures) failed, \(Int(rate)) req/s, \(ProgressBar.bytes(bytes))")
    }

    func finish() {
        draw(force: true)
        try? sink.write("\n")
    }
}
