/// The groups `--help` and the man page list options under, in this order.
package enum OptionGroup: String, CaseIterable, Sendable {
    case body = "Request body"
    case output = "Output"
    case response = "Response"
    case download = "Downloads"
    case auth = "Authentication"
    case network = "Network"
    case tls = "TLS and pinning"
    case batch = "Batch"
    case cache = "Cache"
    case other = "Other"

    /// The heading: the group's name and its commands (`Network (request, download, certs)`).
    package var heading: String {
        rawValue + " (" + CommandName.allCases.filter(defaultCommands.contains).map(\.rawValue).joined(separator: ", ") + ")"
    }

    /// The commands an option of this group applies to, unless the option says otherwise.
    var defaultCommands: Set<CommandName> {
        switch self {
        case .body, .response, .auth: return [.request, .download, .batch, .repl]
        case .output: return [.request, .download, .repl]
        case .batch: return [.batch]
        case .download: return [.download, .repl]
        case .cache: return [.request, .download, .batch, .repl]
        case .network, .tls: return Set(CommandName.allCases).subtracting([.cache])
        // --no-config, --help, --version: every command reads the config file, the cache's too.
        case .other: return Set(CommandName.allCases)
        }
    }
}

/// One command-line option, declared once in `OptionTable`; the parser, `--help`, the man
/// page and the shell completions all read it.
package struct OptionSpec: Sendable {
    /// Whether and how an option takes a value.
    package enum Argument: Sendable, Equatable {
        case none
        /// `--name VALUE` or `--name=VALUE`.
        case required(String)
        /// `--name=VALUE`, or `--name WORD` for one of its `choices`; the bare `--name` means
        /// the default.
        case optional(String)
    }

    /// What shells should offer as the option's value.
    package enum Completion: Sendable {
        case none, file, directory
    }

    /// Which option this is; its raw value is the long name.
    package let option: Option
    /// The long name without the leading dashes.
    package var name: String { option.rawValue }
    /// One-letter forms (`-f`), the first is the main one.
    package let shorts: [Character]
    /// Other long names accepted for the same option.
    package let aliases: [String]
    package let argument: Argument
    /// The allowed values, when the value is one of a few words.
    package let choices: [String]
    package let completion: Completion
    package let group: OptionGroup
    /// One or more sentences for `--help` and the man page.
    package let help: String
    /// Hidden options work but appear in no documentation (generators for the build).
    package let hidden: Bool
    /// The commands that take this option; any other command refuses it (exit 64).
    package let commands: Set<CommandName>

    /// - Parameter commands: the commands that accept the option; by default those of its group.
    package init(_ option: Option, short: [Character] = [], aliases: [String] = [],
                argument: Argument = .none, choices: [String] = [], completion: Completion = .none,
                group: OptionGroup, commands: Set<CommandName>? = nil, hidden: Bool = false, help: String) {
        self.option = option
        // Whatever a request or download takes, the REPL takes as a default for its requests.
        var taking = commands ?? group.defaultCommands
        if !taking.isDisjoint(with: [.request, .download]) { taking.insert(.repl) }
        self.commands = taking
        self.shorts = short
        self.aliases = aliases
        self.argument = argument
        self.choices = choices
        self.completion = completion
        self.group = group
        self.help = help
        self.hidden = hidden
    }

    /// The metavariable shown in help (`SECONDS`), or nil for flags.
    package var metavar: String? {
        switch argument {
        case .none: return nil
        case .required(let m), .optional(let m): return m
        }
    }

    /// Where the option's commands differ from its group's: "Commands: request, download, certs.";
    /// nil otherwise (the group's heading names them).
    package var commandNote: String? {
        guard commands != group.defaultCommands else { return nil }
        return "Commands: " + CommandName.allCases.filter(commands.contains).map(\.rawValue).joined(separator: ", ") + "."
    }

    /// The text for help and the man page: the help and, where it differs from the group, the commands.
    package var documentation: String { commandNote.map { help + " " + $0 } ?? help }

    /// The option with `value` as a user would type it: `--timeout 2.5`, but `--wait-for-network=2.5`
    /// for an optional value (after a space it would be the next argument, the URL).
    package func example(_ value: String) -> String {
        if case .optional = argument { return "--\(name)=\(value)" }
        return "--\(name) \(value)"
    }

    /// `-f, --form` or `--timeout SECONDS` as shown in help.
    package var signature: String {
        var parts = shorts.map { "-\($0)" }
        parts += ([name] + aliases).map { "--\($0)" }
        var s = parts.joined(separator: ", ")
        switch argument {
        case .none: break
        case .required(let m): s += " \(m)"
        case .optional(let m): s += "[=\(m)]"
        }
        return s
    }
}
