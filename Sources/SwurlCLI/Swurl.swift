#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlCurl
import SwurlCore
/// The program: parse the command line, build the request, send it (or print it with
/// `--offline`), print the response, and return the exit status.
package enum Swurl {
    /// Runs swurl with `arguments` (without the program name) in `environment`.
    /// - Returns: the process exit status (see `ExitStatus`).
    package static func main(arguments: [String], environment: Environment) -> Int32 {
        // A reader that goes away (`swurl URL | head -c 10`) makes a write fail with EPIPE rather
        // than end the process: the HAR, the reports and the session are still written.
        _ = signal(SIGPIPE, SIG_IGN)
        // A file-size limit (`ulimit -f`) makes a write fail with EFBIG rather than end the
        // process by SIGXFSZ: the error is said, the output file and its temporary dealt with.
        _ = signal(SIGXFSZ, SIG_IGN)
        // Ctrl-\ ends swurl by SIGQUIT, as curl (the Swift runtime's crash report took it).
        Interrupt.quitEndsTheProcess()
        do {
            return try run(arguments: arguments, environment: environment).rawValue
        } catch {
            report(error, environment: environment)
            return ExitStatus(for: error).rawValue
        }
    }

    /// Prints `swurl: error: …` and a hint line to stderr.
    static func report(_ error: SwurlError, environment: Environment) {
        // Messages may quote what a server sent (a Location, a plist element): made visible, line by line.
        func safe(_ s: String) -> String {
            s.split(separator: "\n", omittingEmptySubsequences: false).map { TerminalSanitizer.clean(String($0)) }
                .joined(separator: "\n")
        }
        var text = "swurl: error: " + (environment.errorPlace.map { "\($0): " } ?? "") + "\(safe(error.message))\n"
        if let hint = error.hint {
            text += hint.contains("\n") ? safe(hint) + "\n" : "swurl: hint: \(safe(hint))\n"
        }
        try? environment.stderr.write(text)
    }

    /// `--version`'s lines: swurl's, libcurl's, OpenSSL's.
    static var versionText: String { "\(BuildInfo.versionLine)\n\(CurlVersion.line)\n\(CurlVersion.openSSL)\n" }

    static func run(arguments: [String], environment: Environment) throws(SwurlError) -> ExitStatus {
        var args = try ArgumentParser.parse(arguments)
        if let text = try helpText(args) {
            try write(text, to: environment.stdout)
            return .success
        }
        if args.has(.version) {
            try write(versionText, to: environment.stdout)
            return .success
        }
        if let what = args.value(.generate) {
            try write(DocumentationGenerator.generate(what), to: environment.stdout)
            return .success
        }
        let given = args
        let places: [Option: String]
        (args, places) = try ConfigFile.load(under: args, environment: environment)
        let command = CommandTable.select(&args)
        // A default from the config that this command does not take is left out, not an error,
        // except one that says what may be sent: dropped, it would let a command send what the
        // user's config says to send nowhere (--offline), or without the session they chose.
        for spec in OptionTable.all where !given.has(spec.option)
            && (!spec.commands.contains(command.name) || ConfigFile.otherMeaning[spec.option]?[command.name] != nil) {
            if args.has(spec.option), let refusal = ConfigFile.refusalWhenDropped(spec.option, command: command.name) {
                throw ConfigFile.placed(refusal, config: args, places: places, given: given)
            }
            args.options[spec.option] = nil
        }
        // A config default that qualifies an option this run does not have waits for it. For
        // a batch or the REPL, only those whose partner no line brings to them (--har and
        // --output-dir are the batch's, and a REPL line's own log takes no defaults): a pinned line keeps the
        // config's --pin-scope, each line drops what waits in vain (`dropWaitingQualifiers`).
        // (Every other command, `certs` and `reach` too, is one run of its own options.)
        if command.name == .batch || command.name == .repl {
            var runLevel = args
            OptionTable.dropWaitingQualifiers(&runLevel, own: given)
            for option in [Option.harBodies, .harSecrets, .nameTemplate] where !runLevel.has(option) { args.options[option] = nil }
        } else {
            OptionTable.dropWaitingQualifiers(&args, own: given)
        }
        // -qq (HTTPie's): warnings and notes are silenced too; errors still show.
        var environment = environment
        if (args.options[.quiet]?.count ?? 0) >= 2 { environment.stderr = QuietMessagesSink(environment.stderr) }
        do {
            try CommandTable.check(args, for: command)
            return try command.run(args, environment: environment)
        } catch {
            // A bad value from the config file is reported at its line.
            throw ConfigFile.placed(error, config: args, places: places, given: given)
        }
    }

    /// The help a command line asks for, nil when it asks for none: `--help` (one screen),
    /// `--help all` or `swurl help all` (everything), `swurl help COMMAND` and `swurl COMMAND
    /// --help` (that command's options). `swurl help` alone is the short help.
    /// - Throws: `.usage` for `swurl help WORD` with a word that is no command.
    static func helpText(_ args: ParsedArguments) throws(SwurlError) -> String? {
        var words = args.positionals
        let asked = args.has(.help) || words.first == "help" && words.count <= 2
        // `swurl help a b`: no request to a host named `help` (a typo went out as one).
        if !asked, words.first == "help", words.count > 2 {
            throw .usage("'swurl help' takes one word (a command or 'all'), got \(words.count - 1)",
                         hint: "swurl help COMMAND; to send a request to a host named help, write http://help/")
        }
        guard asked else { return nil }
        if words.first == "help" { words.removeFirst() }
        guard let word = words.first else {
            return args.has(.download) ? HelpGenerator.help(for: DownloadCommand.self) : HelpGenerator.short()
        }
        if word == "all" { return HelpGenerator.help() }
        let commands: [any SwurlCommand.Type] = CommandTable.all
        if let command = commands.first(where: { $0.word == word || $0.name.rawValue == word }) {
            return HelpGenerator.help(for: command)
        }
        if args.has(.help) { return HelpGenerator.short() }
        throw .usage("'\(TerminalSanitizer.clean(word))' is not a command",
                     hint: "swurl help takes " + DocumentationGenerator.helpTopics.joined(separator: ", "))
    }

    static func write(_ text: String, to sink: ByteSink) throws(SwurlError) {
        do { try sink.write(text) } catch { throw (error as? SwurlError) ?? .output("\(error)") }
    }
}

/// Stderr under `-qq`: warnings and notes (and the hints that follow them) are dropped, every
/// other message passes. Each message is one write that starts with its kind.
final class QuietMessagesSink: ByteSink {
    private let inner: ByteSink
    private static let silenced = [Array("swurl: warning: ".utf8), Array("swurl: note: ".utf8)]
    private static let hint = Array("swurl: hint: ".utf8)
    /// Whether the last message was dropped (its hint goes with it).
    private var dropping = false

    init(_ inner: ByteSink) { self.inner = inner }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        if bytes.starts(with: QuietMessagesSink.hint) {
            if dropping { return }
        } else {
            dropping = QuietMessagesSink.silenced.contains { bytes.starts(with: $0) }
            if dropping { return }
        }
        try inner.write(bytes)
    }
}
