#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlCore

/// Default options: `$XDG_CONFIG_HOME/swurl/config` (default `~/.config/swurl/config`), or the
/// file named by `SWURL_CONFIG` (`SWURL_CONFIG=` or `SWURL_CONFIG=/dev/null` turns it off, as
/// `--no-config` does).
///
/// The file holds options in command-line syntax, one or more per line, with `#` comments and
/// shell-like quoting (`'…'`, `"…"`, backslash). It is read byte by byte, without Foundation:
/// when there is none, it costs one `open` that fails.
enum ConfigFile {
    /// The most bytes a config file may have.
    static let maxSize = 64 * 1024
    /// Options that make no sense as defaults (they replace the run itself).
    static let refused: Set<Option> = [.help, .version, .generate, .noConfig]

    /// Options that mean something else to these commands (`--json` is a body format for a
    /// request, the report's format for `certs` and `reach`), with the help each command gives
    /// them there: a config default is never theirs. (`--timeout` bounds a request's silence; to
    /// `swurl reach` it is the connect timeout, and ends `--watch`: the config's `--timeout 30`
    /// made every watch stop after 30 s.)
    static let otherMeaning: [Option: [CommandName: String]] = [
        // certs prints an object on failure too (reach's report is one either way).
        .json: [.certs: "Print the report as JSON (when none can be made: {\"url\", \"error\", \"exit\"}).",
                .reach: "Print the report as JSON.", .cache: "Print the report as JSON."],
        .timeout: [.reach: "Give up connecting after SECONDS (exit 2); with --watch, stop watching after SECONDS. A --timeout in the config file (a request's) does not apply."],
    ]


    /// The error for a config default that `command` cannot honour and must not drop: those
    /// that decide whether, and as whom, requests go out (`--offline`, `--curl`, `--session`)
    /// on a command that sends requests without taking them (`swurl batch`). Nil for any other
    /// default, which is left out quietly (`--timeout` means nothing to `swurl certs`' report).
    static func refusalWhenDropped(_ option: Option, command: CommandName) -> SwurlError? {
        guard command == .batch, [.offline, .curl, .session, .sessionReadOnly].contains(option) else { return nil }
        let what = option == .offline || option == .curl ? "a batch always sends its requests" : "a batch's lines share a cookie jar of their own, not a session's"
        return .usage("--\(option.rawValue) does not apply to 'swurl batch' (\(what))",
                      hint: "run the batch with --no-config, or move --\(option.rawValue) out of the config file")
    }

    /// The config file's path and whether the user named it; nil when turned off.
    static func location(_ environment: Environment) -> (path: String, explicit: Bool)? {
        if let named = environment.variables["SWURL_CONFIG"] {
            // `/dev/null` is the usual way to say "none" (WGETRC, GIT_CONFIG_GLOBAL): as empty.
            return named.isEmpty || named == "/dev/null" ? nil : (environment.resolvePath(named), true)
        }
        guard let config = Environment.baseDirectory(environment.variables, "XDG_CONFIG_HOME", fallback: ".config") else { return nil }
        return (config + "/swurl/config", false)
    }

    /// The command line's options over the config's: the config's come first, so the last
    /// value (the command line's) wins, and an option on the command line drops the config's
    /// options that exclude it. Nothing changes with `--no-config` or without a file.
    /// - Throws: `SwurlError.usage` naming `file:line` for anything wrong in the file, and
    ///   `.inputFile` when a file named by `SWURL_CONFIG` cannot be read, `.badData` when
    ///   another user could have changed it.
    static func apply(to args: ParsedArguments, environment: Environment) throws(SwurlError) -> ParsedArguments {
        try load(under: args, environment: environment).arguments
    }

    /// `apply`, and where each option the config gave (and the command line did not) came from
    /// (`FILE:LINE`), for `placed(_:places:)`.
    static func load(under args: ParsedArguments,
                     environment: Environment) throws(SwurlError) -> (arguments: ParsedArguments, places: [Option: String]) {
        guard !args.has(.noConfig), let (path, explicit) = location(environment),
              let bytes = try readFile(path, explicit: explicit) else { return (args, [:]) }
        var places: [Option: String] = [:]
        let config = try parse(bytes, file: path, places: &places)
        for option in args.options.keys { places[option] = nil }
        var merged = args.dropResetDefaults(config)
        merged.resets = args.resets
        for (option, _) in args.options {
            // One of a set on the command line drops the others the config gave (a later
            // `--json` beats a config `--form`).
            for group in OptionTable.exclusiveSets where group.contains(option) {
                for other in group where other != option { merged.options[other] = nil }
            }
            // A typed pin replaces the config's pins, of either kind (`replacingGroups`).
            for group in OptionTable.replacingGroups where group.contains(option) {
                for member in group { merged.options[member] = nil }
            }
        }
        for (option, values) in args.options { merged.options[option, default: []] += values }
        // A typed -a is not of the config -a's type (`-A bearer`), as a REPL or batch line's is not.
        OptionTable.dropReplacedQualifiers(&merged, defaults: config, own: args)
        merged.positionals = args.positionals
        for option in places.keys where !merged.has(option) { places[option] = nil }
        return (merged, places)
    }

    /// An error about a value the config file gave — it names the option (`--timeout: 'abc' …`)
    /// or quotes the value (`cannot read 'ca.pem'`) — starting with the `FILE:LINE` it came from,
    /// as the file's own syntax errors do; any other error as it is.
    /// - Parameters:
    ///   - config: the config's arguments as merged, for the values.
    ///   - places: from `load`.
    static func placed(_ error: SwurlError, config: ParsedArguments, places: [Option: String],
                       given: ParsedArguments = ParsedArguments()) -> SwurlError {
        guard !places.isEmpty else { return error }
        let message = error.message
        // A value the command line holds too (`--session work` in the config, `@work` typed: a
        // word that is the value, or names it as a file) is no sign that the config's line is meant.
        func typed(_ value: String) -> Bool {
            given.positionals.contains { $0 == value || $0.hasSuffix("@" + value) }
                || given.options.values.contains { $0.contains { $0 == value } }
        }
        func mentioned(_ option: Option) -> Bool {
            config.has(option) && ConfigFile.names(option, in: message)
                || config.values(option).contains { !$0.isEmpty && message.containsText("'\($0)'") && !typed($0) }
        }
        // The earliest line when several are named (`FILE:LINE`, compared by LINE).
        func line(_ place: String) -> Int { place.split(separator: ":").last.flatMap { Int($0) } ?? .max }
        let named = places.filter({ mentioned($0.key) }).sorted { line($0.value) < line($1.value) }
        guard let (option, place) = named.first.map({ ($0.key, $0.value) }) else { return error }
        switch error {
        case .usage(let m, let hint) where message.containsText(" cannot be combined"):
            // Two of the config's own lines clash (typed options are not in `places`): the later
            // line made the clash, and no run mends it for good. Only the options the message
            // names as options (a value both lines hold is no clash).
            let clashing = named.filter { ConfigFile.names($0.key, in: message) }
            guard clashing.count > 1, let last = clashing.last, let first = clashing.first else { fallthrough }
            return .usage("\(last.value): \(m) (with \(first.value))",
                          hint: "two lines of the config file clash\(hint.map { " (\($0))" } ?? ""): remove one, or drop one for this run with --no-\(last.key.rawValue)")
        case .usage(let m, let hint):
            // A default that clashes with this run's options can be dropped for the run alone.
            let drop = "drop the config's --\(option.rawValue) for this run with --no-\(option.rawValue)"
            return .usage("\(place): \(m)", hint: hint.map { "\($0); or \(drop)" } ?? drop)
        case .inputFile(let m, let hint): return .inputFile("\(place): \(m)", hint: hint)
        case .badData(let m, let hint): return .badData("\(place): \(m)", hint: hint)
        default: return error
        }
    }

    /// Whether `message` names `--OPTION` as a word (`--curl cannot…`, `…with --offline`), not as
    /// the start of a longer option (`--form` in `--form-string`).
    static func names(_ option: Option, in message: String) -> Bool {
        var rest = Substring(message)
        let name = "--" + option.rawValue
        while let r = rest.rangeOfText(name) {
            let next = rest[r.upperBound...].unicodeScalars.first
            if next.map({ !($0.properties.isAlphabetic || $0 == "-") }) ?? true { return true }
            rest = rest[r.upperBound...]
        }
        return false
    }

    /// Whether `path` (links followed) is the running user's own file.
    static func ownedByUser(_ path: String) -> Bool {
        // The file, or when it cannot be looked at (a directory on the way the user cannot
        // search: their own config directory at mode 000), the nearest directory above it that
        // can: the user's own directory holds their config, another user's $HOME does not.
        var place = path
        while true {
            var st = stat()
            if stat(ArgumentBytes.path(place), &st) == 0 { return st.st_uid == geteuid() }
            guard errno == EACCES || errno == EPERM, let slash = place.lastIndex(of: "/"), slash != place.startIndex else { return false }
            place = String(place[..<slash])
        }
    }

    /// The file's bytes; nil when it does not exist (and was not named by the user).
    /// - Throws: `SwurlError.badData` (65) when another user could have changed it (`FileTrust`).
    static func readFile(_ path: String, explicit: Bool) throws(SwurlError) -> [UInt8]? {
        let hint = explicit ? "fix SWURL_CONFIG, or set SWURL_CONFIG= (empty) or use --no-config to run without it"
            : "fix or remove it, or use --no-config (or SWURL_CONFIG=) to run without it"
        // Another user's link (to the file or to a directory on the way) would choose which of
        // the user's files is read as their options: refused, as for a session file.
        do { try OutputTarget.refuseForeignLinks(path) } catch {
            throw .badData("the config file \(TerminalSanitizer.clean(path)) cannot be used: " + error.message, hint: hint)
        }
        let fd: Int32
        // Never blocks on a FIFO: anything but a regular file is refused.
        switch RegularFile.open(path) {
        case .opened(let opened): fd = opened
        case .missing where !explicit: return nil
        // A default path the user cannot read (another user's $HOME after su or sudo -u) is
        // no config of theirs: as if there were none. The user's own file is theirs: its
        // options (a proxy, pins) are not dropped without a word.
        case .failed(let e) where !explicit && (e == EACCES || e == EPERM) && !ConfigFile.ownedByUser(path): return nil
        case .missing:
            throw .inputFile("cannot read the config file \(TerminalSanitizer.clean(path)): \(String(cString: strerror(ENOENT)))",
                             hint: hint)
        case .failed(let e):
            throw .inputFile("cannot read the config file \(TerminalSanitizer.clean(path)): \(String(cString: strerror(e)))",
                             hint: hint)
        case .notRegular(let kind):
            throw .inputFile("the config file \(TerminalSanitizer.clean(path)) is \(kind), not a regular file", hint: hint)
        }
        defer { close(fd) }
        // Its options shape every request (a --proxy sees every Authorization): only if nobody
        // else could have written them.
        try FileTrust.check(path, what: "the config file", fd: fd)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 {
                throw .inputFile("cannot read the config file \(TerminalSanitizer.clean(path)): \(String(cString: strerror(errno)))")
            }
            if n == 0 { return bytes }
            bytes += buffer[0..<n]
            if bytes.count > maxSize {
                throw .usage("the config file \(TerminalSanitizer.clean(path)) is larger than 64 KiB", hint: "it should hold a few options")
            }
        }
    }

    /// Parses the file's options, line by line.
    /// - Throws: `SwurlError.usage` naming `file:line`.
    static func parse(_ bytes: [UInt8], file: String) throws(SwurlError) -> ParsedArguments {
        var places: [Option: String] = [:]
        return try parse(bytes, file: file, places: &places)
    }

    /// `parse`, noting the `FILE:LINE` of each option's last occurrence in `places`.
    static func parse(_ bytes: [UInt8], file: String, places: inout [Option: String]) throws(SwurlError) -> ParsedArguments {
        var result = ParsedArguments()
        for (line, words) in try lines(bytes, file: file) {
            let place = "\(TerminalSanitizer.clean(file)):\(line)"
            let parsed: ParsedArguments
            do { parsed = try ArgumentParser.parse(words) } catch {
                throw .usage("\(place): \(error.message)", hint: error.hint)
            }
            if let word = parsed.positionals.first {
                // curl's config form (`auth=u:pw`, `auth u:pw`): an option's name without its
                // dashes, its value shown as the option's own is (a password masked).
                let name = String(word.prefix { $0 != "=" })
                let value = String(word.dropFirst(name.count + 1))
                if let spec = OptionTable.spec(long: name) ?? OptionTable.spec(long: name.lowercased()) {
                    let shown = name + (word.count > name.count ? "=" + spec.option.shown(value) : "")
                    throw .usage("\(place): '\(TerminalSanitizer.clean(shown))' is not an option: a long option takes two dashes",
                                 hint: "write --\(spec.name)")
                }
                // curl's spelling of a credential (`user=bob:pw`, `oauth2-bearer=T`): its value masked.
                // (Not an item: `Cookie:a=1` is one, named so below.)
                if word.count > name.count, !name.utf8.contains(where: { ":;@\\".utf8.contains($0) }),
                   OptionTable.mayCarrySecret(unknown: name) {
                    throw .usage("\(place): '\(TerminalSanitizer.clean(name))=\(Redactor.mask)' is not an option of swurl's",
                                 hint: "the config file holds swurl's options, with their two dashes (credentials: --auth USER:PASSWORD, or --auth TOKEN --auth-type bearer)")
                }
                throw .usage("\(place): '\(TerminalSanitizer.clean(Redactor.item(word)))' is not an option; request items and URLs are not allowed in the config file",
                             hint: "the config file holds options only")
            }
            // A later line's --no-OPTION drops what the lines above gave, as on a command line.
            result = parsed.dropResetDefaults(result)
            for option in parsed.resets where !parsed.has(option) { places[option] = nil }
            for (option, values) in parsed.options {
                if refused.contains(option) { throw .usage("\(place): --\(option.rawValue) is not allowed in the config file") }
                result.options[option, default: []] += values
                places[option] = place
            }
        }
        return result
    }

    /// The file's lines of words (`ShellWords`, the splitter every door shares).
    /// - Returns: each line that has words, with its number (the line it starts on).
    /// - Throws: `SwurlError.usage` naming `file:line`.
    static func lines(_ bytes: [UInt8], file: String) throws(SwurlError) -> [(Int, [String])] {
        do {
            return try ShellWords.lines(bytes).map { ($0.number, $0.words) }
        } catch {
            throw .usage("\(TerminalSanitizer.clean(file)):\(error.line): \(error.message)")
        }
    }
}
