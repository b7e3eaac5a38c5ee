#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlOutput
import SwurlResponseSerialization
import SwurlEngine
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
    static let summary = "run a file's requests, one per line, many at once"

    static func run(_ args: ParsedArguments, environment: Environment) throws(SwurlError) -> ExitStatus {
        guard args.positionals.count <= 1 else {
            // `swurl batch urls X-Token:abc`: items for every line, which a batch does not take.
            if let item = args.positionals.dropFirst().first(where: { word in
                ReplContext.itemKey(word) != nil && !word.containsText("://") && !word.hasPrefix(":")
            }) {
                throw .usage("'swurl batch' takes one input file, got \(args.positionals.count) arguments: '\(item)' is a request item, and a batch takes none of its own",
                             hint: "put it on the lines that need it (options given to batch apply to every line; items do not)")
            }
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
        // An empty value (an unset `$OUT`) is no directory: it was the working directory.
        if args.value(.outputDir)?.isEmpty == true { throw .usage("--output-dir needs a directory name") }
        let outputDir = args.value(.outputDir).map { environment.resolvePath($0) }
        if let dir = outputDir {
            var st = stat()
            if stat(ArgumentBytes.path(dir), &st) != 0 {
                let shown = TerminalSanitizer.clean(dir)
                guard errno == ENOENT else {
                    throw .inputFile("--output-dir '\(shown)': \(systemErrorMessage(errno))")
                }
                // The command only for a name that reads the same in a shell (`--` for one
                // starting with `-`); one with control characters is not spelled out.
                let given = args.value(.outputDir) ?? dir
                let spelled = TerminalSanitizer.clean(given) == given
                throw .inputFile("--output-dir '\(shown)' does not exist",
                                 hint: spelled ? "create it first: mkdir -p -- " + FileTrust.quoted(given) : "create the directory first")
            }
            guard (st.st_mode & S_IFMT) == S_IFDIR else {
                throw .inputFile("--output-dir '\(TerminalSanitizer.clean(dir))' is not a directory")
            }
            // A body's file is made when its head comes: a directory that takes no new file
            // (permissions, a read-only or immutable one) fails now, before any line is sent,
            // as -o, -d, --har and --report do. A trial file is made and removed.
            guard let trial = AtomicFile.makeTemporary("\(dir)/.swurl-batch.XXXXXX") else {
                throw .output("cannot create a file in --output-dir '\(TerminalSanitizer.clean(dir))': \(systemErrorMessage(errno)); nothing was sent")
            }
            close(trial.fd)
            unlink(ArgumentBytes.path(trial.path))
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
        // One log for the whole batch, written here (a line's own --har is refused).
        for option in BatchCommand.batchWideOptions { defaults.options[option] = nil }
        // A default no line could take is the batch's usage error, said once before any line
        // runs (not once per line, after the reports were replaced).
        try CommandOptions.checkDefaults(defaults, items: [], context: "a batch default", environment: environment)

        // The results go to stdout: closed by the shell (`>&-`), every line would be sent and
        // its result lost (a POST's effect with it), as a one-shot request's answer would be.
        if environment.stdout is ClosedSink {
            throw .output("stdout is closed (>&-): the batch's results would be lost; redirect them (> results.txt, or > /dev/null)")
        }
        let reader: LineReader
        if path == "-" {
            // Stdin redirected from a directory fails at its first read too (below).
            var st = stat()
            if fstat(STDIN_FILENO, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
                throw .inputFile("stdin is a directory, not a file of request lines")
            }
            // `swurl batch` alone at a prompt waited in silence for lines typed.
            if environment.stdinIsTerminal, !defaults.has(.quiet) {
                try? environment.stderr.write("swurl: note: reading request lines from the terminal, one a line; end with Ctrl-D (swurl batch FILE reads a file)\n")
            }
            reader = LineReader(source: environment.stdin, name: "stdin")
        } else {
            // The name's bytes as given (a name that is not UTF-8 is carried escaped in the String).
            let fd = open(ArgumentBytes.path(environment.resolvePath(path)), O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                throw .inputFile("cannot read '\(TerminalSanitizer.clean(ArgumentBytes.shown(path)))': \(systemErrorMessage(errno))")
            }
            // A directory opens, and fails only at the first read: after the reports were opened,
            // which would then replace the last run's with empty ones.
            var st = stat()
            if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
                close(fd)
                throw .inputFile("'\(TerminalSanitizer.clean(ArgumentBytes.shown(path)))' is a directory, not a file of request lines")
            }
            reader = LineReader(owning: fd, name: ArgumentBytes.shown(path))
        }
        let harOption = try CommandOptions.har(args)
        let harFile = harOption.map { environment.resolvePath($0.path) }
        let reportFile = try CommandOptions.outputFile(args, .report).map(environment.resolvePath)
        let junitFile = try CommandOptions.outputFile(args, .junit).map(environment.resolvePath)
        // The HAR is streamed as the lines end: on stdout it would mix with the results (the
        // reports are written after them).
        if let harFile, OutputTarget.sameFile(harFile, "/dev/stdout") {
            throw .usage("--har cannot share stdout with the results", hint: "give --har a file name")
        }
        // The reports may go to stdout itself (`-`, /dev/stdout: written after the results), but
        // not to the file stdout was sent to by another name: their rename would replace the results.
        for (option, file) in [(Option.report, reportFile), (.junit, junitFile)] {
            guard let file, OutputTarget.ownDescriptor(file) == nil, OutputTarget.leadsToRegularFile("/dev/stdout"),
                  OutputTarget.sameFile(file, "/dev/stdout") else { continue }
            throw .usage("--\(option.rawValue) '\(TerminalSanitizer.clean(file))' is the file the results go to (stdout); it would replace them",
                         hint: "give --\(option.rawValue) another file, or '-' to append it to the results")
        }
        // Two outputs in one file: the last would replace the others without a word. The input
        // counts as one (a file, or stdin redirected from one): an output's rename would replace
        // the list of URLs with it.
        // Only a regular file: a pipe or a socket read and written (inetd) loses nothing.
        let inputPath = path == "-" ? "/dev/stdin" : environment.resolvePath(path)
        let inputFile = OutputTarget.leadsToRegularFile(inputPath) ? inputPath : nil
        try OutputTarget.refuseShared((inputFile.map { [("the input \(path == "-" ? "(stdin)" : "file")", $0)] } ?? [])
            + [(Option.har, harFile), (.report, reportFile), (.junit, junitFile)]
            .compactMap { option, path in path.map { ("--" + option.rawValue, $0) } })
        // Before the outputs' temporary files exist: SIGTERM stops the batch as Ctrl-C does, and
        // the outputs are written with the lines that ran (none left behind half made).
        Interrupt.arm()
        Interrupt.armTermination()
        // An output refused or stopped before the lines run (opening a FIFO cut short by
        // SIGTERM): a SIGTERM that came still ends the process by it, as it does after the lines.
        var linesRun = false
        defer { if !linesRun { Interrupt.settleTermination() } }
        // With --har, the outputs' text (HAR entries, report rows, JUnit cases) is written on one
        // second thread from records of bytes, started when a block of records fills. The
        // reports alone are too little work for it: on it they cost a 1000-line batch 3 points
        // more than written as lines end (docs/performance.md, "Sixth round").
        let formatter = RecordFormatterThread()
        defer { formatter.end() }
        // Streamed: each entry goes to the file as its hop ends; nothing is replaced until the end.
        let har = try harOption.map { h throws(SwurlError) in
            try HARLog(path: environment.resolvePath(h.path), settings: h.settings, mode: .stream, formatter: formatter)
        }
        let report = BatchReport(sink: environment.stdout, jsonl: args.has(.jsonl), inputOrder: args.value(.order) == "input")
        // The report files are opened before any line runs: one that cannot be written fails now.
        // Shown as messages show a name: a bidirectional control in it (`‮txt.exe`) would turn
        // the page's title and the JUnit suite's name around, as a server's text would.
        let inputName = path == "-" ? "stdin" : TerminalSanitizer.clean(ArgumentBytes.shown(path))
        var observers: [BatchResultObserving] = []
        // Beside the log, one stream of records for both reports: a line is recorded once.
        let records = har != nil ? ResultRecords(formatter: formatter) : nil
        if let file = reportFile {
            observers.append(try BatchHTMLReport(path: file, inputName: inputName, environment: environment,
                                                 records: records))
        }
        if let file = junitFile {
            observers.append(try BatchJUnitReport(path: file, inputName: inputName,
                                                  environment: environment, records: records))
        }
        // Not while the lines are typed on the terminal: its redraws would wipe the line being typed.
        let typed = reader.descriptor.map { isatty($0) == 1 } ?? false
        let progress = environment.stderrIsTerminal && !args.has(.quiet) && !typed
            ? BatchProgress(sink: environment.stderr, dumb: environment.isDumbTerminal) : nil
        let runner = BatchRunner(defaults: defaults, environment: environment, outputDir: outputDir,
                                 nameTemplate: nameTemplate, failFast: args.has(.failFast), report: report,
                                 observers: observers, progress: progress, har: har,
                                 // The records so far go to the formatter thread while the last
                                 // lines run, so that the outputs' ends have only those lines' left.
                                 inputEnded: { har?.handOverEarly(); records?.handOverEarly() },
                                 outputs: [inputFile, harFile, reportFile, junitFile].compactMap { $0 }, formatter: formatter)
        // Held here alone, so that its connections close when it is let go (below, beside the
        // outputs' ends).
        if let short = BatchCommand.raiseOpenFileLimit(for: parallel) {
            try? environment.stderr.write("swurl: warning: \(short)\n")
        }
        var transfers: MultiDriver? = try MultiDriver(parallel: parallel)
        linesRun = true
        // Lines are taken as they arrive: a line not written yet (a slow pipe, a terminal) never
        // holds up the lines already read; the driver waits for more input beside the transfers.
        reader.waits = false
        let input = reader.descriptor.map { fd in
            MultiDriver.Input(fd: fd, ended: { reader.ended || runner.stopped || Interrupt.requested })
        }
        var ending = MultiDriver.Ending.completed
        if let driver = transfers {
            ending = driver.run(next: { runner.next(reader, ahead: $0, othersRunning: $1) },
                                finished: { runner.finished($0, $1, failedHop: $2.failedHopTiming, failedHopRequest: $2.failedHopRequest) },
                                // Results on the progress line's terminal go on a line of their own.
                                tick: {
                                    let shared = environment.stdoutIsTerminal ? progress : nil
                                    let wrote = report.flush(before: shared.map { p in { p.clear() } })
                                    progress?.draw(force: wrote && shared != nil)
                                },
                                input: input,
                                // The next line is prepared while the running ones wait on the network,
                                // unless a failure must stop the reading (--fail-fast) or preparing a
                                // line may wait for the network itself (--wait-for-network).
                                prefetch: !args.has(.failFast) && !args.has(.waitForNetwork),
                                holding: { runner.holdsLineForQuiet })
        }
        // (Ctrl-C inside `next` may end the run as completed with a line still held.)
        runner.endHeldBack(interrupted: ending == .interrupted || Interrupt.requested)
        progress?.finish()
        if let error = reader.error { Swurl.report(error, environment: environment) }
        // The lines --fail-fast did not run appear in no output: said, so that "2 tests" in a
        // JUnit file is not taken for the whole input.
        if args.has(.failFast), !args.has(.quiet), let first = runner.firstFailure, !reader.ended, !Interrupt.requested {
            try? environment.stderr.write("swurl: note: --fail-fast: line \(first.line) failed, so the input was read no further; lines after line \(reader.lineNumber), if any, were not run\n")
        } else if runner.outputFailed, !args.has(.quiet), !reader.ended, !Interrupt.requested {
            // The same when an output file could no longer be written (the error follows).
            try? environment.stderr.write("swurl: note: an output could not be written, so the input was read no further; lines after line \(reader.lineNumber), if any, were not run\n")
        }
        report.flush()
        // The HAR log is written also after failures and Ctrl-C (the entries say what happened),
        // and the reports hold every line that ran, also after Ctrl-C or --fail-fast. Their ends
        // (the last text, the rename) run side by side when the formatter thread runs: the log's
        // and the JUnit file's there, the page's here after the connections are closed (the
        // driver let go); else one after another here. They are the thread's last work.
        let failures = OutputFailures(count: observers.count + 1)
        var ends: [() -> Void] = []
        if let har {
            let work = har.committing()
            ends.append { failures.set(0, work()) }
        }
        for (i, observer) in observers.enumerated().reversed() {
            let work = observer.finishing()
            ends.append { failures.set(i + 1, work()) }
        }
        formatter.runEnds(ends, closing: true, meanwhile: { transfers = nil })
        let harError = failures.get(0)
        if let harError { Swurl.report(harError, environment: environment) }
        // Results that could not be written (stdout full or closed) fail the batch, as they
        // fail any other command.
        if let error = report.writeError { Swurl.report(error, environment: environment) }
        var reportError: SwurlError?
        // A report appended to the results (`-`) fails with them: their error said it once.
        let onStdout = [reportFile, junitFile].compactMap { $0 }.map { $0 == "/dev/stdout" }
        for i in observers.indices {
            guard let error = failures.get(i + 1) else { continue }
            if !(report.writeError != nil && onStdout.indices.contains(i) && onStdout[i]) { Swurl.report(error, environment: environment) }
            reportError = reportError ?? error
        }
        // The outputs are written: a SIGTERM that came ends the process by the signal, as it would
        // have without them, and so does one from here on.
        Interrupt.settleTermination()
        if ending == .interrupted || Interrupt.requested { return .interrupted }
        if let error = reader.error ?? report.writeError { return ExitStatus(for: error) }
        // A HAR log or report that could not be written fails a batch whose lines all succeeded
        // (1); else the lines' status stands, as a request's does beside its HAR file.
        return runner.firstFailure?.status ?? (harError ?? reportError).map { ExitStatus(for: $0) } ?? .success
    }

    /// The batch's own options that a line may not give: they describe the whole batch's output.
    static let batchWideOptions: [Option] = [.har, .harBodies, .harSecrets]

    /// Options that change how a response is shown: refused on a batch line (and, by the option
    /// table, on `swurl batch` itself), since a batch shows results, not responses.
    static let displayOptions: [Option] = [.verbose, .print, .headers, .body, .timing, .all, .pretty, .style,
                                           .sortKeys, .dropNulls, .stream, .plistAs]
}

/// One request of the batch: its line number and, once built, the method and URL.
struct BatchLine {
    let number: Int
    let ordinal: Int
    /// When the line was taken from the input, on the batch's clock (seconds).
    let taken: Double
    let method: String
    let url: String
    /// Receives the response; its judge holds the line's status, content and `--decode` rules
    /// (not all its options: copying CommandOptions for every line is measurable; docs/performance.md).
    let body: BatchBody
}

/// Each output's error from its end (`RecordFormatterThread.runEnds`), in a slot of its own: the
/// ends may run on two threads at once, and `runEnds` returns only after all ran.
private final class OutputFailures: @unchecked Sendable {
    private var slots: UnsafeMutableBufferPointer<SwurlError?>

    init(count: Int) {
        slots = .allocate(capacity: count)
        slots.initialize(repeating: nil)
    }

    deinit {
        _ = slots.deinitialize()
        slots.deallocate()
    }

    func set(_ i: Int, _ error: SwurlError?) { slots[i] = error }
    func get(_ i: Int) -> SwurlError? { slots[i] }
}

extension BatchCommand {
    /// Raises the soft limit on open files toward the hard one when `--parallel` needs more than
    /// it allows (each line holds a socket, and with --output-dir a file; the usual soft limit
    /// is 1024 for `--parallel 1024`): lines failed with "Couldn't connect" or "Too many open
    /// files". Never above the hard limit, and never lowered.
    /// - Returns: a warning when even the hard limit is short of it.
    static func raiseOpenFileLimit(for parallel: Int) -> String? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        let wanted = rlim_t(parallel * 3 + 64)
        guard limit.rlim_cur < wanted else { return nil }
        limit.rlim_cur = min(wanted, limit.rlim_max)   // RLIM_INFINITY is the largest value
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        guard limit.rlim_max < wanted else { return nil }
        return "--parallel \(parallel) needs about \(wanted) open files, and the limit is \(limit.rlim_max) (ulimit -Hn): "
            + "lines may fail with \"too many open files\"; lower --parallel or raise the limit"
    }
}
