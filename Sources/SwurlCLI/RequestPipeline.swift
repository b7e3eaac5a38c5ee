import SwurlOutput
import SwurlEngine
import SwurlCore

/// The stages every request-sending door shares, in one direction: build the request (once),
/// bind the session, work out the transfer options; then either print it as a curl command or
/// wait for the network and hand it to its half — `DownloadCommand.download` for `-d`,
/// `RequestCommand.respond` otherwise. One-shot requests, `-d`, and REPL lines come through here
/// (batch lines build theirs the same way, for the multi handle).
enum RequestPipeline {
    /// A request ready to send, with what goes along with it.
    struct Prepared {
        var request: HTTPRequest
        /// The `--session` file, bound to the request's host.
        var stored: SessionBinding?
        var transferOptions: TransferOptions
        /// Records the exchange's hops (`--har`); nil without it.
        var recorder: HopRecording?
        /// The files this exchange writes besides its response (its own `--har`, the REPL's, the
        /// session it saves): no name from the response may land on one.
        var reservedPaths: [String] = []
        /// The cookies the exchange shares with the REPL's other lines; nil for
        /// a one-shot request, a `--session` (its file is the jar) or a line of its own route.
        var shared: SharedState? = nil

        /// The stored cookies for the request's host — the session's, or the REPL's jar's — for a
        /// line that sends nothing (`--offline`, `--curl`) to show what the engine would add.
        func storedCookies() throws(SwurlError) -> [SessionCookie] {
            try RequestPipeline.storedCookies(request.url, stored: stored, shared: shared)
        }
    }

    /// The session's cookies for `url`'s host, else those of the REPL's jar for it.
    static func storedCookies(_ url: String, stored: SessionBinding?, shared: SharedState?) throws(SwurlError) -> [SessionCookie] {
        if let stored { return stored.cookiesSent }
        guard let shared else { return [] }
        let host = try Origin(url: url).bareHost
        return try shared.cookies().filter { $0.applies(toHost: host) }
    }

    /// A one-shot request or download (`swurl URL`, `swurl -d URL`): `perform`, and SIGTERM
    /// (`timeout`, a cancelled CI job) stops the exchange as Ctrl-C does, so that its files end
    /// as they do then (the `--har` file written with how far the exchange got, no temporary file
    /// of `-o` or `--har` left, an `-o` target as it was); the process then ends by the signal
    /// (143 in a shell). (A REPL line arms it around itself, `ReplContext`: between lines the
    /// REPL ends at once.)
    static func performOneShot(_ options: CommandOptions, environment: Environment) throws(SwurlError) -> ExitStatus {
        // The exchange's files are done either way; a SIGTERM ends the process from here on.
        defer { Interrupt.settleTermination() }
        return try perform(options, environment: environment, stopsOnTermination: true)
    }

    /// Runs the whole exchange for `options`.
    /// - Parameters:
    ///   - har: the log this exchange's hops go to (the REPL's, which writes it); nil: the
    ///     exchange's own `--har` file, if any, written here when the exchange is over.
    ///   - otherHAR: a HAR file rewritten beside this exchange that is not its own (the REPL's,
    ///     for a line with its own `--har`): no output of the exchange may land on it either.
    ///   - stopsOnTermination: SIGTERM stops the exchange as Ctrl-C does (`performOneShot`).
    /// - Throws: every stage's `SwurlError`.
    ///   - jar: the REPL's cookie jar (none for a line with a route of its own), which a line joins
    ///     unless it has a Host header of its own or a `--session`.
    static func perform(_ options: CommandOptions, environment: Environment, har: HARLog? = nil, otherHAR: String? = nil,
                        stopsOnTermination: Bool = false, jar: SharedState? = nil) throws(SwurlError) -> ExitStatus {
        let built = try RequestBuilder(options: options, environment: environment).buildWithParts()
        var request = built.request
        let stored = try SessionBinding.open(options, request: request, environment: environment)
        stored?.apply(to: &request, options: options)
        // Ctrl-C from here on stops transfers cleanly (exit 130) and restores the terminal. One
        // pressed since the REPL read the line counts (the REPL armed before reading it).
        Interrupt.install()
        if stopsOnTermination { Interrupt.armTermination() }
        var transferOptions = try Swurl.transferOptions(options, url: request.url, environment: environment)
        stored?.apply(to: &transferOptions, options: options, url: request.url)
        // A line with a Host header of its own has a jar of its own (libcurl matches cookies on
        // it; the REPL gives no jar to a line with a route of its own, `BatchDefaults.changesRoute`);
        // a --session's file is its jar.
        let shared = stored == nil && !request.headers.contains("Host") ? jar : nil
        // Nothing is sent, so a --har of the line's own would record nothing: said, not silent.
        if options.curl || options.offline, options.har != nil, !options.quiet {
            try? environment.stderr.write("swurl: warning: --har writes no file with \(options.curl ? "--curl" : "--offline"): nothing is sent\n")
        }
        if options.offline {
            Swurl.noteUnused([(options.checkStatus, "--check-status"), (options.timing != nil, "--timing")],
                             verb: ("looks", "look"), "at a response, and --offline sends nothing", options, environment)
        }
        if options.curl {
            let export = try CurlCommandExport(request: request, options: options, transfer: transferOptions,
                                               cookies: try storedCookies(request.url, stored: stored, shared: shared),
                                               parts: built.parts,
                                               streamedFile: built.streamedFile).render()
            for warning in export.warnings { try? environment.stderr.write("swurl: warning: curl cannot \(warning)\n") }
            do { try environment.stdout.write(export.command) } catch { throw (error as? SwurlError) ?? .output("\(error)") }
            return .success
        }
        if let limit = options.waitForNetwork, !options.offline {
            try Reachability.waitForNetwork(request.url, options: options.transfer, limit: limit)
        }
        // One file for two: a HAR's rename would replace the response without a word (the REPL's
        // rewrites its file after each request), or one HAR the other.
        let harPath = har?.path ?? options.har.map { environment.resolvePath($0.path) }
        // The session a save writes, too: the response or a HAR saved there was read back as the session.
        let sessionPath = stored.flatMap { $0.readOnly ? nil : $0.store.target }
        var outputs: [(option: String, path: String)] = []
        if let o = options.outputPath { outputs.append(("-o", environment.resolvePath(o))) }
        if let harPath { outputs.append(("--har", harPath)) }
        if let otherHAR { outputs.append(("the REPL's --har", otherHAR)) }
        if let sessionPath { outputs.append(("--session", sessionPath)) }
        if outputs.count > 1 { try OutputTarget.refuseShared(outputs) }
        if let harPath, har == nil, options.outputPath == nil, !options.download, OutputTarget.sameFile(harPath, "/dev/stdout") {
            // The HAR is streamed as hops end: on stdout it would mix with the response.
            throw .usage("--har cannot share stdout with the response", hint: "give --har a file name, or the response -o FILE")
        }
        // Nothing is sent with --offline, so there is nothing to record.
        let ownHAR = har == nil && !options.offline
            ? try options.har.map { h throws(SwurlError) in try HARLog(path: environment.resolvePath(h.path), settings: h.settings, mode: .stream) }
            : nil
        let log = options.offline ? nil : har ?? ownHAR
        let prepared = Prepared(request: request, stored: stored, transferOptions: transferOptions, recorder: log?.recorder(),
                                reservedPaths: [log?.path, otherHAR, sessionPath].compactMap { $0 },
                                shared: shared)
        let status: ExitStatus
        do {
            status = options.download
                ? try DownloadCommand.download(prepared, options: options, environment: environment)
                : try RequestCommand.respond(prepared, options: options, environment: environment)
        } catch {
            // A failed exchange is recorded too, its entries saying how far it got; one that sent
            // nothing (refused before the transfer) leaves the file as it was.
            if let ownHAR {
                if ownHAR.count > 0 { saveHAR(ownHAR, environment: environment) } else { ownHAR.discard() }
            }
            throw error
        }
        if let ownHAR, let error = saveHAR(ownHAR, environment: environment), status == .success {
            return ExitStatus(for: error)
        }
        return status
    }

    /// Writes a `--har` log, reporting a failure on stderr (the file is then left as it was).
    /// - Returns: the failure, nil when the file was written.
    @discardableResult
    static func saveHAR(_ log: HARLog, environment: Environment) -> SwurlError? {
        do { try log.commit() } catch {
            Swurl.report(error, environment: environment)
            return error
        }
        return nil
    }
}
