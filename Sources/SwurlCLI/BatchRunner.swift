#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlOutput
import SwurlResponseSerialization
import SwurlEngine
import SwurlCore
import SwurlCurl

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
    /// The names in `outputDir` of the batch's own outputs (`--har`, `--report`, `--junit`) and
    /// of its input file: no body takes one (the outputs' renames at the end would replace it; a
    /// body would replace the lines still to be read).
    private var reservedNames: Set<String> = []
    private let failFast: Bool
    private let report: BatchReport
    /// Everything else that reads each result (`--report`, `--junit`).
    private let observers: [BatchResultObserving]
    /// The batch's clock starts when the first line is taken (MonotonicClock seconds).
    private var clockStart: Double?
    private let progress: BatchProgress?
    /// `--har`: every line's hops, one log.
    private let har: HARLog?
    /// Called once, when the input has no more lines (the last lines may still run).
    private var inputEnded: (() -> Void)?
    private var ordinal = 0
    private var stop = false
    /// The batch's formatter thread, which tells whether an output it writes failed.
    private let formatter: RecordFormatterThread?
    /// Whether no new line may start (`--fail-fast` after a failure, or results or an output
    /// file, `--har`, `--report`, `--junit`, that cannot be written: the lines' requests would
    /// go with nothing to keep what they did).
    var stopped: Bool { stop || report.outputFailed || outputFailed }
    /// Whether `--har`, `--report` or `--junit` can no longer be written.
    var outputFailed: Bool { observers.contains { $0.outputFailed } || formatter?.anOutputFailed == true }
    /// The first failing line in input order and its status.
    private(set) var firstFailure: (line: Int, status: ExitStatus)?

    init(defaults: ParsedArguments, environment: Environment, outputDir: String?, nameTemplate: BatchNameTemplate?,
         failFast: Bool, report: BatchReport, observers: [BatchResultObserving] = [], progress: BatchProgress?, har: HARLog? = nil,
         inputEnded: (() -> Void)? = nil, outputs: [String] = [], formatter: RecordFormatterThread? = nil) {
        self.har = har
        self.formatter = formatter
        self.inputEnded = inputEnded
        if let outputDir { reservedNames = OutputTarget.names(in: outputDir, of: outputs) }
        self.defaults = BatchDefaults(defaults, environment: environment)
        self.environment = environment
        self.outputDir = outputDir
        self.nameTemplate = nameTemplate
        self.failFast = failFast
        self.report = report
        self.observers = observers
        self.progress = progress
    }

    /// Seconds since the batch started.
    private var clock: Double {
        let now = MonotonicClock.now()
        guard let clockStart else { clockStart = now; return 0 }
        return now - clockStart
    }

    /// Hands a result to the results on stdout and to every other observer.
    private func record(ordinal: Int, _ result: BatchResult) {
        var result = result
        // One form of the message for every output (the results, --jsonl, the page, JUnit): it
        // can quote a server (a Location, a certificate's name), and a bidi control in it would
        // reorder the page's words as it would the terminal's.
        if let e = result.error { result.error = TerminalSanitizer.clean(e) }
        report.observe(ordinal: ordinal, result)
        for observer in observers { observer.observe(ordinal: ordinal, result) }
    }

    private func failed(_ line: Int, _ status: ExitStatus) {
        if firstFailure.map({ line < $0.line }) ?? true { firstFailure = (line, status) }
        if failFast { stop = true }
    }

    /// A line read ahead (`next(ahead: true)`) but left for its turn, since preparing it may
    /// wait; `quiet`: until no other line runs (it reads a pipe, a FIFO or a terminal).
    private var heldBack: (number: Int, arguments: ParsedArguments, quiet: Bool)?

    /// Whether the line held back waits until no other line runs.
    var holdsLineForQuiet: Bool { heldBack?.quiet == true }

    /// A line still held back when the batch stopped taking lines (`--fail-fast`, an output
    /// that failed) or was interrupted: reported as a prepared line is then (not run, or
    /// interrupted), never left out of the results, the report and the JUnit file.
    func endHeldBack(interrupted: Bool) {
        guard let held = heldBack else { return }
        heldBack = nil
        let error: SwurlError = interrupted ? .interrupted : MultiDriver.notRun
        let status = ExitStatus(for: error)
        let index = ordinal
        ordinal += 1
        progress?.started()
        record(ordinal: index, BatchResult(line: held.number, method: nil, url: nil, status: nil, httpVersion: nil,
                                           timeTotal: nil, timeFirstByte: nil, size: nil, error: error.message, exit: status,
                                           timeline: BatchTimeline(start: clock, end: clock)))
        progress?.finished(failed: true, bytes: 0)
        failed(held.number, status)
    }

    /// The next request from the input; malformed lines are reported here and skipped.
    /// - Parameters:
    ///   - ahead: asked while every slot is busy (the driver's prefetch). A line whose
    ///     preparation may wait — its own `--wait-for-network`, or its own `--key`/`--cert`,
    ///     whose password may be asked for — is then held back and nil returned; the next call
    ///     takes it.
    ///   - othersRunning: other lines run. A line that reads a body or a value ahead from a
    ///     pipe, a FIFO or a terminal (`@/dev/fd/3`, `a=@fifo`) is held back until none does:
    ///     reading it blocks the thread that drives them (a running line timed out meanwhile).
    func next(_ reader: LineReader, ahead: Bool = false, othersRunning: Bool = false) -> (BatchLine, Exchange)? {
        while !stopped, !Interrupt.requested {
            let number: Int, parsed: Result<ParsedArguments, SwurlError>
            if let held = heldBack {
                if ahead || (held.quiet && othersRunning) { return nil }
                heldBack = nil
                (number, parsed) = (held.number, .success(held.arguments))
            } else {
                guard let (text, tooLong) = reader.next() else {
                    if reader.ended, let ended = inputEnded {
                        inputEnded = nil
                        ended()
                    }
                    return nil
                }
                number = reader.lineNumber
                var trimmed = text.trimmingSpaces()
                // A byte order mark before a line (a file saved by Notepad, or several such files
                // joined with cat) is no part of it.
                if trimmed.unicodeScalars.first == "\u{FEFF}" {
                    trimmed = String(String.UnicodeScalarView(trimmed.unicodeScalars.dropFirst())).trimmingSpaces()
                }
                // NUL bytes between the characters: a file saved as UTF-16 (Notepad's "Unicode"),
                // whose every line failed with "a NUL byte cannot be part of an argument".
                let utf16 = !tooLong && trimmed.utf8.contains(0)
                // A carriage return inside a line (its end's is trimmed): a file whose lines end in
                // CR alone (classic Mac OS, some exporters) read as one line, its CRs as blanks, so
                // the next line's URL or item joined this request; and when it began with a
                // comment, the whole file was one and nothing ran (exit 0).
                let loneCR = !tooLong && !utf16 && trimmed.utf8.contains(0x0D)
                // A line cut for its length comes back empty: it is reported, never skipped.
                if !tooLong && !loneCR && (trimmed.isEmpty || trimmed.hasPrefix("#")) { continue }
                parsed = tooLong
                    ? .failure(.usage("the line is longer than \(LineReader.maxLine / 1024) KiB"))
                    : utf16 ? .failure(.usage("the line holds NUL bytes: the file looks like UTF-16 (Notepad's \"Unicode\"); save it as UTF-8 (iconv -f UTF-16 -t UTF-8)"))
                    : loneCR ? .failure(.usage("the line holds a carriage return before its end: the file's lines look like they end in CR alone; end them in LF (tr '\\r' '\\n')"))
                    : Result { () throws(SwurlError) in try ArgumentParser.parse(try ReplContext.pastedRequest(try ShellWords.words(trimmed))) }
                // Lines that may ask on the terminal (a key's password, `-a USER`'s until it is
                // typed) or wait are prepared in their turn, not while others run.
                if case .success(let arguments) = parsed {
                    let quiet = BatchRunner.readsAStream(arguments, environment: environment)
                    if (quiet && othersRunning) || ahead && (quiet || arguments.has(.waitForNetwork) || arguments.has(.key) || arguments.has(.cert)
                        || BatchRunner.mayAskPassword(arguments.has(.auth) ? arguments : defaults.arguments, authType: arguments.value(.authType))) {
                        heldBack = (number, arguments, quiet)
                        return nil
                    }
                }
            }
            let index = ordinal
            ordinal += 1
            let taken = clock
            progress?.started()
            // The method and URL once the request is built: a later failure (the network wait,
            // the transfer options) is reported with them.
            var request: HTTPRequest?
            do throws(SwurlError) {
                let (line, session) = try build(parsed.get(), number: number, ordinal: index, taken: taken, request: &request)
                return (line, session)
            } catch {
                let status = ExitStatus(for: error)
                record(ordinal: index, BatchResult(line: number, method: request?.method.rawValue, url: request?.url,
                                                   status: nil, httpVersion: nil,
                                                   timeTotal: nil, timeFirstByte: nil, size: nil,
                                                   error: error.message, exit: status,
                                                   timeline: BatchTimeline(start: taken, end: clock)))
                progress?.finished(failed: true, bytes: 0)
                failed(number, status)
            }
        }
        return nil
    }

    /// Whether preparing a line reads a file that may keep it waiting: an item that reads its
    /// file as it is parsed (`a=@FILE`, `a:=@FILE`, `H:@FILE`, `q==@FILE`), a whole body read
    /// ahead (`@FILE`) or a file an option of the line names (`--cacert FIFO`), naming stdin
    /// (`-`) or anything but a regular file or a directory.
    static func readsAStream(_ arguments: ParsedArguments, environment: Environment) -> Bool {
        func waits(_ path: String) -> Bool {
            if path == "-" { return true }
            var st = stat()
            // (`~/fifo` as the item parser reads it.)
            guard stat(ArgumentBytes.path(environment.resolvePath(path)), &st) == 0 else { return false }
            let type = st.st_mode & S_IFMT
            return type != S_IFREG && type != S_IFDIR
        }
        return arguments.positionals.contains { RequestItemParser.readsAhead($0).map(waits) ?? false }
            || BatchRunner.optionsReadingFiles.contains { arguments.values($0).contains(where: waits) }
    }

    /// The options whose file a line reads as it is prepared.
    static let optionsReadingFiles: [Option] = [.pinPubkey, .pinCert, .cacert, .cacertAdd, .cert, .key, .session, .sessionReadOnly]

    /// Whether `-a` in `args` names a user without a password, so that preparing the line may
    /// ask on the terminal (a bearer token never asks).
    static func mayAskPassword(_ args: ParsedArguments, authType lineType: String?) -> Bool {
        guard let auth = args.value(.auth), (lineType ?? args.value(.authType)) != "bearer" else { return false }
        return !auth.contains(":")
    }

    /// `-a USER` without a password is asked for once for each user and host (the prompt names
    /// both; `PasswordPrompt` remembers it), not once per line: the prompt would also stall the
    /// transfers running beside a line prepared ahead (which `next` avoids for a line that may
    /// still ask). The progress line is cleared before the prompt shows.
    private lazy var askOnce: (String, String) throws(SwurlError) -> String = { [unowned self] (user: String, url: String) throws(SwurlError) -> String in
        try PasswordPrompt.ask(user: user, url: url, environment: environment, before: { progress?.clear() })
    }
    /// The warnings given so far (each is given once).
    private var warned: Set<String> = []
    /// Gives a warning the first time only (made once, not per line).
    private lazy var sayOnce: (String) -> Void = { [unowned self] warning in
        guard warned.insert(warning).inserted else { return }
        progress?.clear()
        try? environment.stderr.write(warning + "\n")
    }

    /// One parsed line through the one-shot rules: options (the batch's as defaults), request builder.
    /// - Parameter built: set to the request as soon as it is built.
    private func build(_ arguments: ParsedArguments, number: Int, ordinal: Int, taken: Double,
                       request built: inout HTTPRequest?) throws(SwurlError) -> (BatchLine, Exchange) {
        // Nor may a line drop one (--no-har, --no-parallel): it would read as keeping the line out.
        for option in BatchCommand.batchWideOptions where arguments.has(option) || arguments.resets.contains(option) {
            throw .usage("--\(option.rawValue) is an option of the whole batch, not of a line", hint: "give it to swurl batch")
        }
        // Stdin is the batch's input (or the terminal), never a line's body.
        try CommandOptions.refuseStdinFiles(arguments, "a batch line")
        try CommandOptions.refuseStdinWords(arguments.positionals, "a batch line")
        var options = try defaults.options(for: arguments)
        options.ignoreStdin = true
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
        var transferOptions = try Swurl.transferOptions(options, url: request.url, environment: environment, askPassword: askOnce)
        // The one-shot request's warnings (-k, --no-verify-host, --retry on a POST), each once.
        Swurl.warnBeforeSending(request, options, transferOptions, environment, say: sayOnce)
        transferOptions.rateLimitedByLibcurl = true
        // A line with TLS options of its own (pins above all), or that drops one of the batch's,
        // never shares a connection: a reused one was checked under another line's policy, and
        // libcurl cannot see pins to tell.
        transferOptions.ownConnection = BatchDefaults.changesTLS(arguments)
        let ownVersion = !transferOptions.ownConnection && BatchDefaults.changesHTTPVersion(arguments)
        // Over HTTP/1.1: FORBID_REUSE is applied only when the last transfer leaves a connection,
        // so other lines could join an HTTP/2 connection this line's trust (--cacert-add,
        // --pin-cert) let in, and keep it after; an HTTP/1.1 connection carries one transfer.
        if transferOptions.ownConnection {
            if let asked = [Option.http2, .http2PriorKnowledge].first(where: { arguments.has($0) }) {
                throw .usage("--\(asked.rawValue) cannot be used on a batch line with TLS options of its own: such a line "
                             + "gets a connection of its own, over HTTP/1.1",
                             hint: "give the TLS options to swurl batch (every line then shares them), or send this request alone")
            }
            transferOptions.httpVersion = .http1_1
        }
        // (After the refusal above: a line's own --http2 beside TLS options of its own is refused.)
        if ownVersion { transferOptions.ownConnection = true }
        transferOptions.ownSharedState = BatchDefaults.needsOwnSharedState(arguments, request: request)
        BatchDefaults.sizeReceiveBuffer(&transferOptions)
        try refuseUnreplaceableBody(number: number, request: request)
        let body = BatchBody(outputDir: outputDir, line: number, validator: options.validator, decoding: options.decoding)
        let session = try Exchange(request: request, options: transferOptions) { body }
        session.delegateCanRestart = true
        session.observer = TransferReporter(options, environment, context: "line \(number): ", beforeNotice: progress.map { p in { p.clear() } })
        session.recorder = har?.recorder(line: number)
        return (BatchLine(number: number, ordinal: ordinal, taken: taken, method: request.method.rawValue, url: request.url, body: body),
                session)
    }

    /// Whether `--output-dir` has the sticky bit and another owner (decided once): there another
    /// user's body file, or its `.part`, cannot be replaced.
    private lazy var outputDirIsShared: Bool = outputDir.map(AtomicFile.othersShare) ?? false

    /// Refuses a line before it is sent whose body could not be saved in a shared `--output-dir`
    /// (its final name, when that is known before the response, is another user's): a POST's
    /// effect would otherwise be lost with its body.
    private func refuseUnreplaceableBody(number: Int, request: HTTPRequest) throws(SwurlError) {
        guard outputDirIsShared, let outputDir else { return }
        var names: [String] = []
        if let template = nameTemplate {
            if !template.usesStatus {
                names.append(template.name(line: number, method: request.method.rawValue, url: request.url, status: nil) ?? "\(number).body")
            }
        } else {
            names.append("\(number).body")
        }
        for name in names {
            if let refusal = AtomicFile.replaceRefusal(outputDir + "/" + name) { throw refusal }
        }
    }

    /// Where a successful line's body goes: `DIR/LINE.body`, or the `--name-template` name (one
    /// no other line of this batch wrote; a name left empty by sanitizing falls back to LINE.body).
    private func finalPath(_ line: BatchLine, status: Int?) -> String? {
        guard let outputDir else { return nil }
        let wanted = nameTemplate?.name(line: line.number, method: line.method, url: line.url, status: status)
            ?? "\(line.number).body"
        guard nameTemplate != nil || reservedNames.contains(wanted) else { return "\(outputDir)/\(wanted)" }
        let name = BatchNameTemplate.unclaimed(wanted, line: line.number) { writtenNames.contains($0) || reservedNames.contains($0) }
        writtenNames.insert(name)
        return "\(outputDir)/\(name)"
    }

    /// A line ended: validate it as a one-shot request would, write its body, report it.
    /// - Returns: whether new lines may start.
    /// - Parameters:
    ///   - failedHop: libcurl's counters for the last hop when it failed after it ran.
    ///   - failedHopRequest: that hop's method and URL when it got a response.
    func finished(_ line: BatchLine, _ outcome: Swift.Result<Exchange.Result, SwurlError>, failedHop: ExchangeTiming? = nil,
                  failedHopRequest: (method: String, url: String)? = nil) -> Bool {
        var result = BatchResult(line: line.number, method: line.method, url: line.url)
        var status = ExitStatus.success
        let end = clock
        switch outcome {
        case .failure(let error):
            result.timeline = BatchTimeline(start: line.taken, end: end)
            status = ExitStatus(for: error)
            result.error = error.message
            // A TLS failure's hint lists the pins presented and pinned, a transport failure's
            // names the proxy that failed and the setting it came from (lines may have proxies
            // of their own): what the results can say of it.
            let hint: String?
            switch error {
            case .trust(_, let h), .transport(_, let h): hint = h
            default: hint = nil
            }
            if let hint {
                // Line by line as a terminal would see them: certificate names are the server's
                // (a bidi control in one turned the JUnit failure's text around).
                result.hint = hint.split(separator: "\n").map { TerminalSanitizer.clean(String($0.hasPrefix("swurl: hint: ") ? $0.dropFirst(13) : $0)) }
                    .joined(separator: "\n")
            }
            // A transfer stopped after the response began (--max-filesize, a cut) still has its
            // status, version and timings, as its HAR entry has (no size: the body is not whole).
            // (A redirect's head is the judge's too late: a redirect not followed, too many or to
            // a target refused, keeps the last one's.)
            result.status = line.body.judge.head?.status ?? failedHop?.status
            // The status is that hop's: its method and URL with it, as a line that succeeded
            // shows its final hop's (a redirect not followed answered the last hop, not the first).
            if result.status != nil, let hop = failedHopRequest, hop.url != line.url || hop.method != line.method {
                result.requested = (line.method, line.url)
                result.method = hop.method
                result.url = hop.url
            }
            if result.status != nil, let t = failedHop {
                result.httpVersion = t.final.httpVersion
                result.timeTotal = t.final.total + t.redirectTime
                result.timeFirstByte = t.final.startTransfer + t.redirectTime
                result.timeline = BatchTimeline(start: line.taken, end: end, timing: t)
            }
            _ = line.body.settle(keep: false, to: nil)
        case .success(let r):
            // The final hop's URL with its method (a POST redirected by a 303 was a GET there).
            if r.url != line.url || r.method != line.method { result.requested = (line.method, line.url) }
            result.url = r.url
            result.method = r.method
            result.status = r.head?.status
            // A response the cache gave whole went over no connection: its stored head's version
            // (not --cache-only's made-up 504, which had none).
            result.httpVersion = r.timing.final.httpVersion
                ?? (r.cache?.hasPrefix("hit") == true ? r.head.flatMap { $0.version.hasPrefix("HTTP/") ? String($0.version.dropFirst(5)) : nil } : nil)
            result.cache = r.cache
            result.timeTotal = r.timing.final.total + r.timing.redirectTime
            // From the line's start, as time_total and curl's time_starttransfer with -L count.
            result.timeFirstByte = r.timing.final.startTransfer + r.timing.redirectTime
            result.size = line.body.bytes
            result.timeline = BatchTimeline(start: line.taken, end: end, timing: r.timing)
            if let verdict = line.body.judge.verdict() {
                // The one-shot request's verdict, on the same facts.
                status = verdict.exitStatus
                // A batch shows no body: nothing of a terminal's display ("shown as sent").
                result.error = verdict.undisplayedMessage
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
        record(ordinal: line.ordinal, result)
        progress?.finished(failed: status != .success, bytes: result.size ?? 0)
        if status != .success && status != .interrupted { failed(line.number, status) }
        return !stopped
    }
}
