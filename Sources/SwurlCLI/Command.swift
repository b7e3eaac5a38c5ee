import SwurlCore
/// The commands swurl runs. Each option in `OptionTable` names the commands that take it; the
/// help, the man page and the completions list the commands from `CommandTable`.
package enum CommandName: String, CaseIterable, Sendable, Hashable {
    /// `swurl [METHOD] URL [ITEMS…]`: one exchange, the response printed.
    case request
    /// `swurl -d URL`: one exchange, the body saved to a file.
    case download
    /// `swurl certs URL`: the server's certificates and pins; no request is sent.
    case certs
    /// `swurl reach HOST|URL`: name, route, interface, TCP and TLS checks; sends no request.
    case reach
    /// `swurl batch FILE`: one request per line, many at once.
    case batch
    /// `swurl repl [BASE_URL]`: an interactive client bound to a base URL.
    case repl
    /// `swurl cache list|clear|prune`: the HTTP cache's entries; sends no request.
    case cache
}

/// One command: how it is invoked and what it does. Commands are values of the table, one file each.
protocol SwurlCommand {
    /// The name options refer to.
    static var name: CommandName { get }
    /// The word that selects the command (`certs`), or nil for a command chosen by an option or by default.
    static var word: String? { get }
    /// The shortest way to call it (`swurl certs URL`), for hints and help.
    static var invocation: String { get }
    /// The usage line for `--help` and the man page.
    static var usage: String { get }
    /// One line on what the command does.
    static var summary: String { get }
    /// The words the command takes as its first argument (`swurl cache list`), each with one line
    /// on what it does, for completions and the message for an unknown one; empty for most commands.
    static var actions: [(word: String, summary: String)] { get }
    /// Runs the command on parsed arguments (the command word already removed from the positionals).
    /// - Returns: the exit status; errors are thrown and reported by `Swurl.main`.
    static func run(_ args: ParsedArguments, environment: Environment) throws(SwurlError) -> ExitStatus
}

/// Every command, in the order help lists them, and the choice of one for a command line.
enum CommandTable {
    static let all: [any SwurlCommand.Type] = [RequestCommand.self, DownloadCommand.self, CertsCommand.self,
                                           ReplCommand.self, ReachCommand.self, BatchCommand.self,
                                           CacheCommand.self]

    /// The command words (`certs`…), for completions.
    static var words: [String] { all.compactMap { $0.word } }

    /// The command a command line asks for: a command word first, else `-d` (download), else a request.
    /// The word is removed from the positionals.
    static func select(_ args: inout ParsedArguments) -> any SwurlCommand.Type {
        if let first = args.positionals.first, let command = all.first(where: { $0.word == first }) {
            args.positionals.removeFirst()
            return command
        }
        return args.has(.download) ? DownloadCommand.self : RequestCommand.self
    }

    /// Refuses an option the command does not take (exit 64), naming the commands that do.
    static func check(_ args: ParsedArguments, for command: any SwurlCommand.Type) throws(SwurlError) {
        for spec in OptionTable.all where args.has(spec.option) && !spec.commands.contains(command.name) {
            if command.name == .request && spec.commands.subtracting([.repl]) == [.download] {
                throw .usage("--\(spec.name) works with --download",
                             hint: "add -d" + (spec.option == .continue ? "; curl's -c (cookie jar) is --session NAME here" : ""))
            }
            let takers = all.filter { spec.commands.contains($0.name) }.map { $0.invocation }
            throw .usage("--\(spec.name) does not apply to \(command.summaryNoun)",
                         hint: takers.isEmpty ? nil : "it works with: " + takers.joined(separator: ", "))
        }
    }
}

extension SwurlCommand {
    /// No actions: the first argument is a URL, a host or a file.
    static var actions: [(word: String, summary: String)] { [] }

    /// How error messages name the command: "a request", "a download", "swurl certs".
    static var summaryNoun: String {
        switch name {
        case .request: return "a request"
        case .download: return "a download (-d)"
        case .certs: return "'swurl certs'"
        case .reach: return "'swurl reach'"
        case .batch: return "'swurl batch'"
        case .repl: return "'swurl repl'"
        case .cache: return "'swurl cache'"
        }
    }
}
