import SwurlResponseSerialization
import SwurlOutput
import SwurlEngine
import SwurlCore
/// `swurl [METHOD] URL [ITEMS…]`: one exchange, the response printed. `perform` is the unit
/// every command that sends requests calls: typed options and an environment in, a status out,
/// no process-wide effects beyond re-arming the Ctrl-C flag.
enum RequestCommand: SwurlCommand {
    static let name = CommandName.request
    static let word: String? = nil
    static let invocation = "swurl URL"
    static let usage = "swurl [METHOD] URL [REQUEST_ITEM ...] [OPTIONS]"
    package static let summary = "send a request and print the response"

    static func run(_ args: ParsedArguments, environment: Environment) throws(SwurlError) -> ExitStatus {
        try RequestPipeline.performOneShot(CommandOptions(args, environment: environment), environment: environment)
    }

    /// Performs one exchange (a download with `-d`) and reports a failure on stderr.
    /// - Returns: the exit status of the exchange, never throws.
    /// - Parameters:
    ///   - har: the REPL's `--har` log (nil: the request's own `--har`, if any).
    ///   - otherHAR: the REPL's `--har` file when the line has its own (`RequestPipeline.perform`).
    package static func perform(_ options: CommandOptions, environment: Environment, har: HARLog? = nil,
                                otherHAR: String? = nil, jar: SharedState? = nil) -> ExitStatus {
        do {
            return try RequestPipeline.perform(options, environment: environment, har: har, otherHAR: otherHAR, jar: jar)
        } catch {
            Swurl.report(error, environment: environment)
            return ExitStatus(for: error)
        }
    }

    /// The response half of an exchange, after `RequestPipeline` prepared it: sends the request (or
    /// prints it with `--offline`), prints the response, and reports its verdict.
    /// - Throws: every stage's `SwurlError`.
    static func respond(_ prepared: RequestPipeline.Prepared, options: CommandOptions, environment: Environment) throws(SwurlError) -> ExitStatus {
        let request = prepared.request, stored = prepared.stored
        var transferOptions = prepared.transferOptions
        // Where the output goes and how it looks.
        let outputFile = try options.outputPath.map { p throws(SwurlError) in try OutputFile(path: environment.resolvePath(p)) }
        let sink: ByteSink = outputFile ?? environment.stdout
        let terminal = outputFile == nil && environment.stdoutIsTerminal
        var style = RequestCommand.style(options, terminal: terminal, environment: environment)
        // `-o` naming a terminal (`/dev/tty`, `/dev/stdout` on one) gets what stdout's would: a
        // server's control characters made visible and binary held back, so no escape sequence
        // reaches it. What it shows and its colours stay a file's, as -o asked.
        if outputFile?.isTerminal == true { style.terminal = true }
        let selection = options.selection
            ?? (options.verbose ? PrintSelection(requestHeaders: true, requestBody: true, responseHeaders: true, responseBody: true, meta: options.verboseMeta)
                : options.offline ? PrintSelection(requestHeaders: true, requestBody: true)
                : terminal ? PrintSelection(responseHeaders: true, responseBody: true)
                : PrintSelection(responseBody: true))
        transferOptions.captureRequest = selection.printsRequest
        // Stdout closed by the shell (`>&-`) with something to show there: the request would go
        // and its answer be lost (a POST's effect with it). Refused before anything is sent, as
        // an -o that cannot be written is.
        if outputFile == nil, !options.offline, environment.stdout is ClosedSink,
           selection.responseBody || selection.responseHeaders || selection.printsRequest || selection.meta {
            throw .output("stdout is closed (>&-): the response would be lost; give -o FILE for the body (-o /dev/null to discard it)")
        }
        // A JSON body is read whole for these before it is shown: -S cannot show it as it comes
        // (an endless stream of JSON lines would show nothing), which is said, not left silent.
        if options.decoding.stream && selection.responseBody && !options.offline {
            Swurl.noteUnused([(options.decoding.sortKeys, "--sort-keys"), (options.decoding.dropNulls, "--drop-nulls")], verb: ("holds", "hold"),
                             "a JSON body whole before showing it: with --stream such a body shows when the response ends", options, environment)
        }
        // Formatting a large body into a pipe or file: write on a second thread meanwhile
        // (not with --stream, whose chunks must go out as they come).
        let background = style.format && !terminal && !options.decoding.stream ? BackgroundWriter(target: sink) : nil
        // Output to the terminal erases the upload bar first (it never shares a row with it).
        let clearing = ProgressClearingSink(target: background ?? sink)
        let clearingDiagnostics = ProgressClearingSink(target: environment.stderr)
        let out: ByteSink = clearing
        let makePrinter = { () -> Printer in
            let p = Printer(sink: out, selection: selection, style: style,
                            decoding: options.decoding, validator: options.validator)
            p.prepare(for: request)
            if options.verbose { p.diagnostics = clearingDiagnostics }
            return p
        }
        var printer = makePrinter()
        let session = try Exchange(request: request, options: transferOptions) { printer = makePrinter(); return printer }
        session.recorder = prepared.recorder
        if let shared = prepared.shared { session.share(with: shared) }

        var timing: ExchangeTiming?
        var verdict: ResponseVerdict?
        var uploadBar: ProgressBar?
        /// Saves `--session` (a failure reported on stderr, and returned).
        func saveSession() -> SwurlError? {
            guard let stored else { return nil }
            do { try stored.save(options: options, transfer: transferOptions, session: session, environment: environment) } catch {
                Swurl.report(error, environment: environment)
                return error
            }
            return nil
        }
        do {
            if options.offline {
                // The first hop's host's cookies: what the engine is handed for it (never a Host header's).
                let first = try session.firstHop()
                if let cache = first.answeredByCache, !options.quiet {
                    try? environment.stderr.write("swurl: note: the cache would answer this request (\(cache)); it would not be sent\n")
                }
                try OfflineRequest.emit(first.request, cookies: try prepared.storedCookies(), to: printer)
                try printer.finishRequest()
                try background?.finish()
                try outputFile?.commit()
                return .success
            }
            Swurl.warnBeforeSending(request, options, prepared.transferOptions, environment)
            session.delegatePerHop = options.showAllHops
            let reporter = PrintedExchangeReporter(options, environment, out: out, separated: style.format || style.terminal)
            session.observer = reporter
            // Uploads of a few hundred KB or more get a progress bar on a terminal.
            // Not while the request body itself is printed to the terminal (-v): they would interleave.
            if environment.stderrIsTerminal && !options.quiet, let length = request.body?.length, length >= 256 * 1024,
               !(selection.requestBody && terminal) {
                let bar = ProgressBar(sink: environment.stderr, label: "upload", columns: Swurl.columns(environment),
                                      dumb: environment.isDumbTerminal)
                uploadBar = bar
                if terminal { clearing.bar = bar }
                clearingDiagnostics.bar = bar
                reporter.upload = (bar, length)
            }
            environment.willSend?()
            let result = try session.perform()
            PasswordPrompt.forgetIfRefused(result.head?.status, finalURL: result.url, options: options, url: request.url)
            uploadBar?.finish(done: result.timing.final.uploadedBytes, total: length(of: request))
            uploadBar = nil
            timing = result.timing
            try printer.finish()
            Swurl.noteCache(result, options, environment)
            if let coding = result.undecodedEncoding, environment.stderrIsTerminal, !options.quiet {
                try? environment.stderr.write("swurl: note: the body is as received, still encoded ('\(TerminalSanitizer.excerpt(coding))'): libcurl does not decode all of it\n")
            }
            if selection.meta {
                // A blank line before the meta part, piped or not (HTTPie's separator too), after
                // ending the line a body left open: its own bytes stay as sent.
                if selection.responseBody || selection.responseHeaders, let last = clearing.lastByte {
                    try out.write(last == 0x0A ? "\n" : "\n\n")
                }
                try out.write(TimingFormatter.text(result.timing))
            }
            try background?.finish()
            // A body whose type or decoding the verdict rejects is not kept as the -o file (one
            // with a rejected status is: it is the body that explains the error, as on stdout).
            verdict = RequestCommand.verdict(printer, options: options)
            if verdict?.error(validator: options.validator) != nil { outputFile?.discard() } else { try outputFile?.commit() }
        } catch let error as SwurlError {
            uploadBar?.interrupt()
            try? printer.finishAfterFailure(failedHead: session.failedHopHead)
            try? background?.finish()
            outputFile?.discard()
            // The server answered: the session keeps what it set (cookies), whatever stopped the
            // body afterwards (a reader that went away, Ctrl-C), as a download's does; so does a
            // redirect's response when a later hop fails.
            if printer.responseHead != nil || session.answered || session.cookiesSetBeforeFailure { _ = saveSession() }
            // --timing for a transfer that failed (a timeout, a body cut short) too, as curl's
            // -w writes its line whatever happened: what it measured until then.
            if let failed = session.failedHopTiming { Swurl.printTiming(failed, options, environment) }
            throw error
        } catch {
            uploadBar?.interrupt()
            try? background?.finish()
            outputFile?.discard()
            throw .output("\(error)")
        }
        if let timing { Swurl.printTiming(timing, options, environment) }
        // Formatting asked for off a terminal (--pretty=format): a body that could not be
        // formatted says so on stderr, as the terminal's note does in the output; a strict
        // --decode reports it as an error instead.
        if !terminal, style.format, !options.decoding.isStrict, let failure = printer.decodingFailure {
            try? environment.stderr.write("swurl: note: \(TerminalSanitizer.clean(failure))\n")
        }
        if let error = saveSession() { return ExitStatus(for: error) }

        return try report(verdict, options: options, terminal: terminal, selection: selection,
                          saving: outputFile?.canRewrite == true, asSent: !style.terminal && !style.format,
                          printed: selection.responseBody, environment: environment)
    }

    /// The verdict on the printed response (`ResponseVerdict`), nil when no response arrived.
    static func verdict(_ printer: Printer, options: CommandOptions) -> ResponseVerdict? {
        guard let head = printer.responseHead else { return nil }
        return ResponseVerdict(status: head.status, reason: head.reason, mediaType: head.mediaType,
                               bodyBytes: printer.responseBodyBytes, decodingFailure: printer.decodingFailure,
                               validator: options.validator, decoding: options.decoding)
    }

    /// Reports the verdict: a rejected status is a warning (its body was shown) and an exit
    /// status; a rejected type or body is an error.
    /// - Parameters:
    ///   - saving: the body went to a file `-o` replaces (not a device or `/dev/stdout`).
    ///   - asSent: the body went out unformatted, to no terminal (`ResponseVerdict.error`).
    ///   - printed: the body was printed (`-p b`).
    static func report(_ verdict: ResponseVerdict?, options: CommandOptions, terminal: Bool, selection: PrintSelection,
                       saving: Bool, asSent: Bool, printed: Bool, environment: Environment) throws(SwurlError) -> ExitStatus {
        guard let verdict else { return .success }
        if let error = verdict.error(validator: options.validator, saving: saving, asSent: asSent, printed: printed) { throw error }
        if let message = verdict.message, !terminal || !selection.responseHeaders {
            try? environment.stderr.write("swurl: warning: \(message)\n")
        }
        return verdict.exitStatus
    }

    /// How output looks on a sink: `--pretty` (default all on a terminal, none otherwise), `--style`,
    /// the colour depth the terminal supports.
    static func style(_ options: CommandOptions, terminal: Bool, environment: Environment) -> Printer.Style {
        let pretty = options.pretty ?? (terminal ? .all : PrettyMode.none)
        return Printer.Style(format: pretty == .all || pretty == .format,
                             // An explicit --pretty (command line or config) wins over NO_COLOR and
                             // TERM=dumb, as no-color.org asks; the default follows them.
                             colors: (pretty == .all || pretty == .colors) && (options.pretty != nil || environment.colorsAllowed),
                             terminal: terminal, themeStyle: options.style,
                             colorDepth: ColorDepth.detect(environment.variables))
    }

    private static func length(of request: HTTPRequest) -> Int64? { request.body?.length }
}

/// What a printed exchange shows as it goes, beside retries: the upload bar, and the end of
/// each intermediate hop's response (`--all`), finished and set apart from the next.
final class PrintedExchangeReporter: TransferReporter {
    private let out: ByteSink
    private let separated: Bool
    /// The upload bar and the body's length, when one is shown.
    var upload: (bar: ProgressBar, length: Int64)?

    init(_ options: CommandOptions, _ environment: Environment, out: ByteSink, separated: Bool) {
        self.out = out
        self.separated = separated
        super.init(options, environment)
    }

    override func transferDidProgress(_ p: TransferProgress) {
        guard let upload, p.downloaded == 0 else { return }
        upload.bar.update(done: p.uploaded, total: p.uploadTotal ?? upload.length)
    }

    override func transferHopDidFinish(_ delegate: TransferDelegate) throws {
        let printer = delegate as? Printer
        try printer?.finish()
        if separated {
            try out.write("\n")
        } else if printer?.printedResponseBody == true {
            // Raw output keeps the body's bytes as they came: the next message starts after a
            // blank line (HTTPie's separator), not on the body's last line.
            try out.write("\n\n")
        }
    }
}
