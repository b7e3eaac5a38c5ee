import SwurlResponseSerialization
import SwurlOutput
import SwurlEngine
import SwurlCore
/// `--download`: the body goes to a file (see `DownloadFile`), response heads to stderr when
/// asked for, a progress bar to stderr on a terminal.
enum DownloadCommand: SwurlCommand {
    static let name = CommandName.download
    static let word: String? = nil
    static let invocation = "swurl -d URL"
    static let usage = "swurl -d [METHOD] URL [REQUEST_ITEM ...] [OPTIONS]"
    package static let summary = "send a request and save the response body to a file"

    static func run(_ args: ParsedArguments, environment: Environment) throws(SwurlError) -> ExitStatus {
        try RequestPipeline.performOneShot(CommandOptions(args, environment: environment), environment: environment)
    }

    /// Says where a partial download stays, and the command that resumes it: with `-o NAME`,
    /// which finds NAME.part whatever named it (a Content-Disposition name, a `-1` suffix).
    /// When the command had more than the hint can write (a pin, a header, a proxy), it says to
    /// run the same command with `--continue`: a printed one without them would resume from
    /// whichever server answers.
    /// - Parameter overLimit: the download stopped at `--max-filesize`: the same command would
    ///   stop at the same limit, so the note says to resume with a larger one.
    static func noteKept(_ part: String, file: DownloadFile, request: HTTPRequest, options: CommandOptions, environment: Environment,
                         overLimit: Bool = false) {
        guard DownloadFile.size(of: part).map({ $0 > 0 }) == true, !file.partHeldElsewhere else { return }
        // A `.part` that could never be renamed over another user's file in a sticky directory:
        // resuming it would be refused. (Their file resumed in place needs no rename.)
        if let name = file.path, part != name, DownloadFile.replaceRefusal(name) != nil { return }
        let kept = "swurl: the partial download was kept in '\(TerminalSanitizer.clean(ArgumentBytes.shown(part)))'; "
        if overLimit {
            try? environment.stderr.write(kept + "resume it with the same command, --continue (-c) and a larger --max-filesize\n")
            return
        }
        // A GET without a body: a DELETE's or a POST's printed as `swurl -d -c URL` would be a GET.
        guard options.shortResumeRepeats, request.method == .get, request.body == nil else {
            try? environment.stderr.write(kept + "resume it with the same command and --continue (-c)\n")
            return
        }
        let credentials = options.authUser != nil
        let name = file.path ?? ""
        let output = name.isEmpty ? "" : " -o " + CurlCommandExport.quotedText(ArgumentBytes.bytes(name))
        let shown = Redactor.url(request.url, userAlone: true)
        let url = String(decoding: CurlCommandExport.quote(Array(shown.utf8)), as: UTF8.self)
        // A password (or a user name given alone, a token) is never printed: the command needs
        // it given again.
        let masked = credentials || shown != request.url
        let userAlone = !credentials && Redactor.url(request.url) == request.url
        try? environment.stderr.write(kept + "resume it with --continue: " + TerminalSanitizer.clean("swurl -d -c\(output) \(url)")
                                      + (masked ? " (with your credentials: the \(userAlone ? "user name" : "password") is not shown)" : "") + "\n")
    }

    /// The download half of an exchange, after `RequestPipeline` prepared it.
    /// With `--session`, the cookies the exchange ends with are saved once the transfer is over,
    /// whether the server sent the file or an error status.
    static func download(_ prepared: RequestPipeline.Prepared, options: CommandOptions, environment: Environment) throws(SwurlError) -> ExitStatus {
        let request = prepared.request, transferOptions = prepared.transferOptions, stored = prepared.stored
        // What only shapes a shown body has nothing to shape: the file gets the bytes as received.
        Swurl.noteUnused([(options.decoding.sortKeys, "--sort-keys"), (options.decoding.dropNulls, "--drop-nulls"),
                          (options.decoding.plistAsJSON, "--plist-as json"), (options.decoding.stream, "--stream")],
                         verb: ("shapes", "shape"), "a body shown, not a download: the file gets the body as received", options, environment)
        Swurl.noteUnused([(options.showAllHops, "--all")], verb: ("shows", "show"),
                         "the hops of a response shown, not of a download: -v shows the download's request and final head", options, environment)
        // Heads go to stderr, and only when asked for (-v, -h, --print): stdout stays free.
        var headPrinter: Printer?
        if var selection = options.selection ?? (options.verbose ? PrintSelection(requestHeaders: true, responseHeaders: true) : nil) {
            selection.responseBody = false
            selection.requestBody = false
            headPrinter = Printer(sink: environment.stderr, selection: selection,
                                  style: RequestCommand.style(options, terminal: environment.stderrIsTerminal, environment: environment))
        }
        var plan = DownloadFile.Plan(outputPath: options.outputPath.map { environment.resolvePath($0) },
                                     directory: environment.currentDirectory, initialURL: request.url,
                                     overwrite: options.overwrite, resume: options.resume)
        // A name from the response never lands on the HAR or session file (their renames would
        // replace the download, and a session the server wrote would be read back as the user's).
        plan.reserved = prepared.reservedPaths
        let file = try DownloadFile(plan: plan, headDelegate: headPrinter)
        // --continue found no .part of this URL's (`path` stays nil until the response names one).
        // Another user's, in a sticky directory, is no hint: that command would be refused.
        func resumeCommand(_ path: String) -> String {
            TerminalSanitizer.clean("swurl -d -c -o " + CurlCommandExport.quotedText(ArgumentBytes.bytes(path)) + " URL")
        }
        if options.resume, plan.outputPath == nil, file.path == nil, !options.quiet {
            if let untaken = DownloadFile.partOfURLName(in: plan.directory, for: request.url) {
                if DownloadFile.replaceRefusal(String(untaken.dropLast(5))) == nil {
                    try? environment.stderr.write("swurl: note: '\(TerminalSanitizer.clean(untaken))' was not left by this URL (or carries none: "
                                                  + "swurl 0.9.0, no extended attributes), so it is not resumed; to resume it: "
                                                  + resumeCommand(String(untaken.dropLast(5))) + "\n")
                }
            } else if let whole = DownloadFile.fileOfURLName(in: plan.directory, for: request.url) {
                // A finished download keeps no URL: run again, `-d -c` would pile up copies (NAME-1…).
                try? environment.stderr.write("swurl: note: '\(TerminalSanitizer.clean(whole))' is there but is no partial download of this URL, "
                                              + "so the download gets a new name; to resume it or find it complete: " + resumeCommand(whole) + "\n")
            }
        }
        let judge = ResponseJudge(validator: options.validator, decoding: options.decoding)
        file.judge = judge
        var t = transferOptions
        // Bytes as the server stores them (ranges refer to those), read in large blocks.
        t.contentCoding = .asStored
        t.captureRequest = headPrinter != nil && (options.selection?.requestHeaders ?? options.verbose)
        let session = try Exchange(request: request, options: t) { file }
        if let shared = prepared.shared { session.share(with: shared) }
        session.adapter = ResumeAdapter(file)
        session.recorder = prepared.recorder
        session.delegateCanRestart = true
        let reporter = DownloadReporter(options, environment, file: file)
        session.observer = reporter
        file.notice = Swurl.reporter(options, environment)
        Swurl.warnBeforeSending(request, options, transferOptions, environment)
        // A Range or If-Range item is the download's own business (it asks for the rest of a
        // `.part`, or for the whole file): dropped, and said (the whole file came without a word).
        let ranged = ["Range", "If-Range"].filter { request.headers.contains($0) }
        if !options.quiet, !ranged.isEmpty {
            try? environment.stderr.write("swurl: note: -d sends no \(ranged.joined(separator: " or ")) of yours: a download asks for the whole file, "
                                          + "or with --continue for the rest of its .part (to save a range, leave out -d: swurl URL Range:bytes=0-99 -o FILE)\n")
        }
        // `swurl URL -d name=value`, typed as curl's form post, downloads a JSON POST's answer.
        if !options.quiet, options.items.contains(where: { $0.isData }) {
            try? environment.stderr.write("swurl: note: -d is --download here: the response is saved to a file; the data items are the body"
                                          + " (curl's -d data are items without it: swurl URL name=value)\n")
        }
        let result: Exchange.Result
        do {
            environment.willSend?()
            result = try session.perform()
            PasswordPrompt.forgetIfRefused(result.head?.status, finalURL: result.url, options: options, url: request.url)
            try headPrinter?.finish()
        } catch {
            let error = (error as? SwurlError) ?? .output("\(error)")
            reporter.bar?.interrupt()
            file.abandon()
            // A whole file (a 416 said so) is no partial download to resume; nor is one whose
            // server failed the trust checks (a pin, the chain, the name): resuming cannot fix it.
            if let part = file.keptPath, !options.quiet, !file.isWhole, !error.isTrustFailure, !file.resumeRefused {
                var overLimit = false
                if case .responseRejected(let message, _) = error, message.containsText("--max-filesize") { overLimit = true }
                DownloadCommand.noteKept(part, file: file, request: request, options: options, environment: environment, overLimit: overLimit)
            }
            // A response that began (and was cut, timed out or stopped by Ctrl-C) set its cookies:
            // the session keeps them, as a request's does; so does a redirect's before a later
            // hop failed.
            if file.sawResponse || session.answered || session.cookiesSetBeforeFailure {
                do { try stored?.save(options: options, transfer: transferOptions, session: session, environment: environment) } catch {
                    Swurl.report(error, environment: environment)
                }
            }
            if let failed = session.failedHopTiming { Swurl.printTiming(failed, options, environment) }
            throw error
        }
        // What the cache did, with -v (after the bar is put away), as a request says it.
        func noteCache() { Swurl.noteCache(result, options, environment) }
        // After the file is dealt with: a session that cannot be written never costs the download.
        func saveSession() throws(SwurlError) {
            try stored?.save(options: options, transfer: transferOptions, session: session, environment: environment)
        }
        if let failed = file.failedHead {
            reporter.bar?.interrupt()
            noteCache()
            // A status --accept-status lists that gave nothing to save (a 304, or an error body
            // that would have replaced a partial download's bytes) is no failure: a note says so.
            if options.validator.acceptableStatus?.contains(where: { $0.contains(failed.status) }) == true {
                try? environment.stderr.write("swurl: note: HTTP \(failed.status)\(TerminalSanitizer.reasonSuffix(failed.reason)) (accepted); nothing was saved\n")
                if let part = file.partPath, !options.quiet, file.rangeRefusal == nil {
                    DownloadCommand.noteKept(part, file: file, request: request, options: options, environment: environment)
                }
                Swurl.printTiming(result.timing, options, environment)
                try saveSession()
                return .success
            }
            try? environment.stderr.write("swurl: error: HTTP \(failed.status)\(TerminalSanitizer.reasonSuffix(failed.reason)); nothing was saved\n")
            if let why = file.rangeRefusal {
                try? environment.stderr.write("swurl: hint: \(why)\n")
            } else if failed.status == 416, let part = file.partPath, !options.quiet {
                // Resuming the same way meets the same 416: it was offered as the fix.
                try? environment.stderr.write("swurl: hint: the server cannot send the rest from where '\(TerminalSanitizer.clean(ArgumentBytes.shown(part)))' ends; "
                                              + "remove it to download the file again from the start\n")
            }
            // Bytes of an earlier attempt (or an earlier run) stay in NAME.part; the error page did
            // not go there. Not offered for resuming after a 416: the same resume meets it again.
            if let part = file.partPath, !options.quiet, failed.status != 416 {
                DownloadCommand.noteKept(part, file: file, request: request, options: options, environment: environment)
            }
            Swurl.printTiming(result.timing, options, environment)
            // The HTTP status is the run's status; a session that cannot be saved is still said.
            do { try saveSession() } catch { Swurl.report(error, environment: environment) }
            // A final status of no error class (a 101, 600-999) exits as the one-shot request's
            // outside --accept-status; a 204 to a resumed download, which says nothing of the
            // file, is a failure to resume (1).
            return ExitStatus(httpStatus: failed.status) ?? ((200..<300).contains(failed.status) ? .transportError : .responseRejected)
        }
        // The one-shot request's verdict: a response it would reject is not saved either.
        if let verdict = judge.verdict(), verdict.exitStatus != .success {
            reporter.bar?.interrupt()
            file.discard()
            noteCache()
            Swurl.printTiming(result.timing, options, environment)
            do { try saveSession() } catch { Swurl.report(error, environment: environment) }
            if let error = verdict.error(validator: options.validator, saving: true) {
                Swurl.report(error, environment: environment)
            } else {
                try? environment.stderr.write("swurl: error: \(verdict.message ?? "the response was rejected")\n")
            }
            try? environment.stderr.write("swurl: nothing was saved\n")
            return verdict.exitStatus
        }
        do {
            try file.commit()
        } catch {
            reporter.bar?.interrupt()
            throw error
        }
        if let bar = reporter.bar {
            bar.finish(done: file.written, total: file.expectedSize)
        }
        noteCache()
        if !options.quiet, let path = file.path {
            // A download asks for the bytes as stored (Accept-Encoding: identity); a server that
            // encodes them anyway gets them saved as sent, which the note says.
            let coding = judge.head?.headers.combined("Content-Encoding")?.trimmingSpaces() ?? ""
            let encoded = HTTPHeaders.codings(coding).isEmpty ? ""
                : ", as sent: Content-Encoding \(TerminalSanitizer.clean(coding)), not decoded"
            try? environment.stderr.write("swurl: saved '\(TerminalSanitizer.clean(ArgumentBytes.shown(path)))' (\(counted(Int(file.written), "byte"))\(encoded))\n")
        }
        Swurl.printTiming(result.timing, options, environment)
        try saveSession()
        return .success
    }

    static func baseName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}

/// A download's progress bar on a terminal (named after the file, started once its bytes flow),
/// beside the retries every transfer reports.
final class DownloadReporter: TransferReporter {
    private let file: DownloadFile
    private let shows: Bool
    private let columns: Int
    private(set) var bar: ProgressBar?

    init(_ options: CommandOptions, _ environment: Environment, file: DownloadFile) {
        self.file = file
        shows = environment.stderrIsTerminal && !options.quiet
        columns = Swurl.columns(environment)
        super.init(options, environment)
    }

    override func transferDidProgress(_ p: TransferProgress) {
        guard shows, file.failedHead == nil, let path = file.path, p.downloaded > 0 || file.written > 0 else { return }
        if bar == nil {
            let b = ProgressBar(sink: environment.stderr, label: DownloadCommand.baseName(path), columns: columns,
                                dumb: environment.isDumbTerminal)
            b.initialBytes = file.written - p.downloaded
            bar = b
        }
        bar?.update(done: file.written, total: file.expectedSize)
    }
}
