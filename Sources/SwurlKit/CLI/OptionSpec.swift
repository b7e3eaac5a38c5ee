/// The groups `--help` and the man page list options under, in this order.
public enum OptionGroup: String, CaseIterable, Sendable {
    case body = "Request body"
    case output = "Output"
    case response = "Response"
    case download = "Downloads"
    case auth = "Authentication"
    case network = "Network"
    case tls = "TLS and pinning"
    case other = "Other"
}

/// One command-line option, declared once in `OptionTable`; the parser, `--help`, the man
/// page and the shell completions all read it.
public struct OptionSpec: Sendable {
    /// Whether and how an option takes a value.
    public enum Argument: Sendable, Equatable {
        case none
        /// `--name VALUE` or `--name=VALUE`.
        case required(String)
        /// Only `--name=VALUE`; the bare `--name` means the default.
        case optional(String)
    }

    /// What shells should offer as the option's value.
    public enum Completion: Sendable {
        case none, file, directory
    }

    /// The long name without the leading dashes.
    public let name: String
    /// One-letter forms (`-f`), the first is the main one.
    public let shorts: [Character]
    /// Other long names accepted for the same option.
    public let aliases: [String]
    public let argument: Argument
    /// The allowed values, when the value is one of a few words.
    public let choices: [String]
    public let completion: Completion
    public let group: OptionGroup
    /// One or more sentences for `--help` and the man page.
    public let help: String
    /// Hidden options work but appear in no documentation (generators for the build).
    public let hidden: Bool

    public init(_ name: String, short: [Character] = [], aliases: [String] = [],
                argument: Argument = .none, choices: [String] = [], completion: Completion = .none,
                group: OptionGroup, hidden: Bool = false, help: String) {
        self.name = name
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
    public var metavar: String? {
        switch argument {
        case .none: return nil
        case .required(let m), .optional(let m): return m
        }
    }

    /// `-f, --form` or `--timeout SECONDS` as shown in help.
    public var signature: String {
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
