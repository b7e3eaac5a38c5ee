import SwurlEngine
import SwurlCurl
import SwurlCore
/// `swurl repl [BASE_URL] [ITEMS…] [OPTIONS]`: an interactive client bound to a base URL, as
/// AFHTTPSessionManager is. Every line goes through the one-shot grammar, `CommandOptions` and
/// `RequestCommand.perform`, with the REPL's defaults merged before the line's own words.
/// On a terminal it reads lines with readline (see ReplReadline.swift); otherwise it runs stdin as
/// a script.
enum ReplCommand: SwurlCommand {
    static let name = CommandName.repl
    static let word: String? = "repl"
    static let invocation = "swurl repl [BASE_URL]"
    static let usage = "swurl repl [BASE_URL] [REQUEST_ITEM ...] [OPTIONS]"
    static let summary = "an interactive client bound to a base URL (a script unless on a terminal)"

    static func run(_ args: ParsedArguments, environment: Environment) throws(SwurlError) -> ExitStatus {
        let session = try ReplContext(args, environment: environment)
        if environment.stdinIsTerminal {
            return try ReplReadline.interactive(session)
        }
        return session.runScript(stopOnError: args.has(.stopOnError))
    }
}

/// What a line asks the REPL to do next.
enum ReplOutcome: Equatable {
    /// Nothing was run (empty line, comment): the last status stays.
    case nothing
    /// A command ran with this status.
    case ran(ExitStatus)
    /// `exit`/`quit`, with the status to exit with.
    case exit(ExitStatus)
}
