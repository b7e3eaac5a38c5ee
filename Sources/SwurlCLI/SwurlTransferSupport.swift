#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlOutput
import SwurlEngine
import SwurlCore
extension Swurl {
    /// The engine's options with `--auth` resolved (asking for a missing password).
    /// - Parameter askPassword: asks for `user`'s password at `url` (default: on the terminal,
    ///   once for each user and host in the process, so a REPL asks once; a batch clears its
    ///   progress line first).
    static func transferOptions(_ options: CommandOptions, url: String, environment: Environment,
                                askPassword: ((_ user: String, _ url: String) throws(SwurlError) -> String)? = nil) throws(SwurlError) -> TransferOptions {
        var t = options.transfer
        if let user = options.authUser {
            if t.authType == .bearer {
                t.bearerToken = user + (options.authPassword.map { ":" + $0 } ?? "")
            } else {
                var password = options.authPassword
                // --curl prints `--user USER` for a password not given, and curl asks for it: one
                // typed here (or remembered from an earlier REPL line) would be printed in clear.
                if password == nil && !options.curl {
                    let typed: String
                    if let askPassword { typed = try askPassword(user, url) } else {
                        typed = try PasswordPrompt.ask(user: user, url: url, environment: environment)
                    }
                    do {
                        try HeaderValue.check(typed, "the password typed for --auth")
                    } catch {
                        PasswordPrompt.forgetTypedAuth(user: user, url: url)
                        throw error
                    }
                    password = typed
                }
                t.credentials = Credentials(user: user, password: password ?? "")
            }
        }
        return t
    }

    /// Warnings about the exchange about to start, on stderr: settings that weaken the TLS
    /// checks (when TLS can be spoken: an https URL, or a redirect to one), and a `--retry`
    /// that cannot apply to the method.
    /// - Parameter say: where each line goes (default: stderr; a batch gives each once).
    static func warnBeforeSending(_ request: HTTPRequest, _ options: CommandOptions, _ transfer: TransferOptions,
                                  _ environment: Environment, say: ((String) -> Void)? = nil) {
        let say = say ?? { line in try? environment.stderr.write(line + "\n") }
        // The warning first: most requests have none, and a batch asks for every line.
        if let warning = transfer.security.weakeningWarning,
           transfer.followRedirects || URLText.schemeOf(request.url)?.lowercased() == "https" {
            say("swurl: warning: \(warning)")
        }
        if transfer.retry.maxRetries > 0, !options.quiet {
            if !transfer.retry.allows(method: request.method) {
                say("swurl: note: --retry does not resend a \(request.method.rawValue), which is not idempotent; --retry-all-methods does")
            } else if let body = request.body, !body.isRewindable {
                say("swurl: note: --retry cannot resend a body read from stdin or a pipe; send a file with @FILE to retry")
            }
        }
    }

    /// Notes the options given (`given`'s true ones) that have nothing to act on here:
    /// "swurl: note: --a and --b VERB REST", VERB in the singular for one option (`looks`) or the
    /// plural for more (`look`). Not with `--quiet`.
    static func noteUnused(_ given: [(Bool, String)], verb: (one: String, many: String), _ rest: String,
                           _ options: CommandOptions, _ environment: Environment) {
        let names = given.filter { $0.0 }.map { $0.1 }
        guard !names.isEmpty else { return }
        reporter(options, environment)("swurl: note: \(names.joined(separator: names.count > 2 ? ", " : " and ")) \(names.count > 1 ? verb.many : verb.one) \(rest)")
    }

    /// Where notices go: stderr, unless `--quiet`.
    static func reporter(_ options: CommandOptions, _ environment: Environment) -> (String) -> Void {
        { line in if !options.quiet { try? environment.stderr.write(line + "\n") } }
    }

    /// `swurl: HTTP 503 Service Unavailable; retrying in 1.0 s (retry 1 of 3)`.
    static func retryLine(_ notice: RetryNotice) -> String {
        let shown = RetryPolicy.describe(seconds: notice.delay)
        return "swurl: \(retryReason(notice)); retrying in \(shown) s (retry \(notice.retry) of \(notice.maxRetries))"
    }

    /// `swurl: HTTP 503 Service Unavailable; not retrying: waiting 120 s for retry 1 of 3 would pass --retry-max-time 10`.
    /// (A transport failure's message follows as the error: it is not repeated here.)
    static func noRetryLine(_ notice: RetryNotice, maxTime: Double) -> String {
        let reason: String
        if case .failure = notice.cause { reason = "" } else { reason = retryReason(notice) + "; " }
        return "swurl: \(reason)not retrying: waiting \(RetryPolicy.describe(seconds: notice.delay)) s for retry "
            + "\(notice.retry) of \(notice.maxRetries) would pass --retry-max-time \(RetryPolicy.describe(seconds: maxTime))"
    }

    private static func retryReason(_ notice: RetryNotice) -> String {
        switch notice.cause {
        case .status(let status, let phrase): return "HTTP \(status)\(TerminalSanitizer.reasonSuffix(phrase))"
        case .failure(let error): return error.message
        }
    }

    /// The terminal's width for stderr's progress line: the terminal's own (TIOCGWINSZ; shells
    /// do not export COLUMNS), else COLUMNS, at most the widest a terminal can say (65535; a
    /// larger one crashed the bar's arithmetic or built lines of gigabytes), else 80.
    static func columns(_ environment: Environment) -> Int {
        if environment.stderrIsTerminal {
            var size = winsize()
            if ioctl(2, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        }
        // 0 or less is no width, as ncurses reads it: the default.
        return environment.variables["COLUMNS"].flatMap { Int($0.trimmingSpaces()) }.flatMap { $0 > 0 ? min(max(2, $0), Int(UInt16.max)) : nil } ?? 80
    }

    /// What the cache did (`swurl: cache: hit, age 3 s`), with -v, on stderr. Without -v (and
    /// without -q) only what the user must not miss: a stored response shown because the network
    /// failed (`--stale-ok`: it may be old), and the 504 the cache made up (`--cache-only`,
    /// only-if-cached), which without --check-status would pass in silence.
    static func noteCache(_ result: Exchange.Result, _ options: CommandOptions, _ environment: Environment) {
        guard let cache = result.cache else { return }
        if options.verbose {
            try? environment.stderr.write("swurl: cache: \(cache)\n")
        } else if !options.quiet, cache.hasPrefix("stale, served because") || cache.containsText("only from the cache: 504")
                    || cache.hasSuffix("only-if-cached: 504") {
            try? environment.stderr.write("swurl: note: cache: \(cache)\n")
        }
    }

    /// `--timing` on stderr.
    static func printTiming(_ timing: ExchangeTiming, _ options: CommandOptions, _ environment: Environment) {
        guard let format = options.timing else { return }
        try? environment.stderr.write(format == .json ? TimingFormatter.json(timing) : TimingFormatter.text(timing))
    }
}

/// Shows a transfer's retries on stderr, unless `--quiet`; the observer (`TransferObserving`) the
/// commands give their sessions, and the base of those that show more as it goes.
class TransferReporter: TransferObserving {
    let environment: Environment
    let quiet: Bool
    /// What a retry line starts with after `swurl: ` (a batch line's `line N: `).
    let context: String

    /// Called before a notice is written (a batch's progress line takes itself off the terminal).
    let beforeNotice: (() -> Void)?

    init(_ options: CommandOptions, _ environment: Environment, context: String = "", beforeNotice: (() -> Void)? = nil) {
        self.environment = environment
        quiet = options.quiet
        self.context = context
        self.beforeNotice = beforeNotice
    }

    func transferWillRetry(_ notice: RetryNotice) {
        guard !quiet else { return }
        beforeNotice?()
        try? environment.stderr.write("swurl: " + context + Swurl.retryLine(notice).dropFirst("swurl: ".count) + "\n")
    }

    func transferWillNotRetry(_ notice: RetryNotice, maxTime: Double) {
        guard !quiet else { return }
        beforeNotice?()
        try? environment.stderr.write("swurl: " + context + Swurl.noRetryLine(notice, maxTime: maxTime).dropFirst("swurl: ".count) + "\n")
    }

    func transferWillNotRetryAfterBody(_ notice: RetryNotice) {
        guard !quiet else { return }
        beforeNotice?()
        try? environment.stderr.write("swurl: " + context + "not retrying: the body had begun, and a printed or -o body is not started again"
                                      + " (-d resumes a download)\n")
    }

    // Shown by subclasses (declared here so that they can override them).
    func transferDidProgress(_ progress: TransferProgress) {}
    func transferHopDidFinish(_ delegate: TransferDelegate) throws {}
}
