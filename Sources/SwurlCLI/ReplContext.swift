import SwurlOutput
import SwurlEngine
import SwurlCurl
import SwurlCore
/// The state of one REPL: the base URL, the default options and items, the last status, the paths seen.
final class ReplContext {
    /// The process's environment; in script mode its `errorPlace` names the line being run.
    private(set) var environment: Environment
    /// The base as given on the command line (`cd` without an argument returns to it).
    let initialBase: String?
    /// The current base, normalized (a non-empty path ends in `/`).
    private(set) var base: String?
    /// Default options, merged under every line's.
    private(set) var defaults = ParsedArguments()
    /// Default request items as typed (`X-Token:abc`, `q==1`).
    private(set) var defaultItems: [String] = []
    private(set) var lastStatus: ExitStatus = .success
    /// Relative paths used in this REPL, for completion.
    private(set) var seenPaths: [String] = []
    /// What `unset` can remove, for completion: the default items' names, then the default
    /// options (`--form`).
    var defaultNames: [String] {
        defaultItems.compactMap { ReplContext.itemKey($0)?.name }
            + OptionTable.all.filter { defaults.has($0.option) }.map { "--" + $0.name }
    }
    /// `--har FILE` given to `swurl repl`: every line's hops, the file rewritten after each line.
    private(set) var har: HARLog?
    /// Whether the session is on a terminal (Ctrl-D exits 0; `exit` then exits 0 too).
    var interactive = false
    /// The origin each default credential goes to, by key (`auth` for `-a`, or a lower-cased
    /// credential header name): the base's origin when it was given, else the origin of the
    /// first request that used it. A line to any other origin does not get it, as a redirect
    /// to another origin does not (`cd` to another origin does not move it either).
    private var credentialOrigins: [String: Origin] = [:]
    /// The session's cookie jar, kept for its life as a batch's lines share theirs: a cookie one
    /// line receives goes with later lines to the host that set it, as in an AFHTTPSessionManager's
    /// session. Cookies only: no connection outlives its line (a line's TLS policy runs in its own
    /// handshakes). A `--session` keeps its cookies in its file instead.
    /// One jar for each route the REPL's defaults have had (`--resolve`, `--unix-socket`,
    /// `--proxy`, from its command line, the config or `set`/`unset`): a server reached another
    /// way after a `set` (a local build under the real name) gets none of the cookies the first
    /// one set, and going back finds them again.
    private var jars: [[String]: SharedState] = [:]

    /// The jar of the route the defaults give now.
    private func defaultRouteJar() -> SharedState? {
        let route = [Option.resolve, .unixSocket, .proxy].map { defaults.values($0).joined(separator: "\n") }
        if let jar = jars[route] { return jar }
        let jar = try? SharedState(cookiesOnly: true)
        jars[route] = jar
        return jar
    }

    static let builtins = ["cd", "set", "unset", "env", "help", "exit", "quit"]
    static let methods = HTTPMethod.known.map(\.rawValue)
    /// Options that only the REPL itself takes: never merged into a line.
    /// (`--no-config` too: the config file gave the REPL's defaults when it started.)
    static let replOnly: [Option] = [.stopOnError, .noConfig]
    /// What `set` refuses beside `replOnly`: what acts once and sends nothing, and the REPL's
    /// log (given when it starts).
    static let notDefaults: [Option] = [.help, .version, .generate, .har]
    /// The exclusive sets whose options a request refuses together: all but the print set
    /// (`-h` and `-b` combine).
    static let conflictingSets: [[Option]] = OptionTable.exclusiveSets.filter { !$0.contains(.print) }

    init(_ args: ParsedArguments, environment: Environment) throws(SwurlError) {
        self.environment = environment
        var positionals = args.positionals[...]
        var startBase: String?
        // A base a slash short (`https:TOKEN@api.example`) would be a default header `https`
        // sent with every line: refused as on a line.
        if let first = positionals.first, URLBuilder.isSlashesShort(first) { try URLBuilder.refuseMissingSlashes(first, given: first) }
        // (`@data.json` first is the body item, with no base yet.)
        if let first = positionals.first, !ReplContext.isItem(first), !first.hasPrefix("@") {
            // What the one-shot request refuses as its URL (`/v1` went to the host `v1`, `5` to
            // 0.0.0.5), the base is refused too.
            try CommandOptions.checkURLWord(first)
            // Encoded as `cd` and a one-shot URL are (`/s p` as `/s%20p`, a Latin-1 byte as `%E9`).
            startBase = try ReplContext.absoluteBase(URLText.percentEncodingUnsafeBytes(first), defaultScheme: args.value(.defaultScheme) ?? "http",
                                                     pathAsIs: args.has(.pathAsIs))
            positionals = positionals.dropFirst()
        }
        initialBase = startBase
        base = startBase
        let parser = RequestItemParser(environment: environment)
        for raw in positionals {
            _ = try parser.parse(raw)
            defaultItems.append(raw)
        }
        // `swurl repl api:8080`: a host without a dot is not taken for a URL (`X-Version:2` is a
        // header too), so the start's first word became a header and every path line fails.
        if startBase == nil, let first = positionals.first, ReplContext.looksLikeDotlessHostPort(first) {
            try? environment.stderr.write("swurl: note: '\(TerminalSanitizer.clean(first))' is read as a header item, not a base URL; "
                                          + "a host without a dot is a base URL with its scheme: http://\(TerminalSanitizer.clean(first))\n")
        }
        try ReplContext.refuseConflicts(args, in: "swurl repl")
        defaults.options = args.options
        for o in ReplContext.replOnly { defaults.options[o] = nil }
        try CommandOptions.checkDefaults(defaults, items: defaultItems, context: "a REPL default", environment: environment)
        if let h = try CommandOptions.har(args) {
            har = try HARLog(path: environment.resolvePath(h.path), settings: h.settings, mode: .rewrite)
        }
        // The REPL's log takes every line; a line's own --har writes a file of its own.
        // --har-bodies and --har-secrets stay defaults: `set`, `unset` and a line's own (or
        // --no-) change what the log keeps of the next lines (and qualify a line's own --har).
        defaults.options[.har] = nil
        bindCredentials(args, items: defaultItems)
    }

    /// Binds the credentials among new defaults to the current base's origin (with no base: to
    /// the first request's).
    private func bindCredentials(_ parsed: ParsedArguments, items: [String]) {
        let origin = base.flatMap { try? Origin(url: $0) }
        var keys: [String] = parsed.has(.auth) ? ["auth"] : []
        // A client certificate is a credential too: presented to its origin only, as a one-shot
        // request presents it to the first URL's origin.
        if parsed.has(.cert) || parsed.has(.key) { keys.append("cert") }
        for item in items {
            if let key = ReplContext.itemKey(item), key.kind == .header, Redactor.isCredentialHeader(key.name) {
                keys.append(key.name.lowercased())
            }
        }
        for key in keys { credentialOrigins[key] = origin }
    }

    /// Whether the default credential `key` may go to a request for `origin` (binding it there
    /// when it has no origin yet).
    /// A credential not bound yet goes, and is bound in `binding`, which the caller keeps only
    /// once the line is a request (a line refused before sending binds nothing).
    private func credentialGoes(_ key: String, to origin: Origin?, binding: inout [String: Origin]) -> Bool {
        guard let origin else { return false }
        if let bound = credentialOrigins[key] ?? binding[key] { return bound == origin }
        binding[key] = origin
        return true
    }

    /// Whether a line's target or `cd` argument replaces the base instead of resolving against
    /// it: `scheme://…`, the `:PORT/path` shorthand, or `[user:pw@]host:port[/path]`
    /// (`URLText.isHostPortWithUserinfo`: credentials in it are a URL's, as in a one-shot request,
    /// not a header `user` sent to the base).
    static func isAbsolute(_ target: String) -> Bool {
        URLText.schemeOf(target) != nil || target.hasPrefix(":") || URLText.isHostPortWithUserinfo(target)
    }

    /// Whether a word reads as `name:PORT[/path]` with a one-label name in lower case
    /// (`api:8080`): a header item to the grammar, and likely meant as a host.
    static func looksLikeDotlessHostPort(_ word: String) -> Bool {
        let u = Array(word.utf8)
        guard let colon = u.firstIndex(of: UInt8(ascii: ":")), colon > 0 else { return false }
        let name = u[..<colon]
        // In lower case, as host names are typed (`X-Version:20` is a header's spelling).
        let isLabel = name.allSatisfy { b in
            (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: "-")
        }
        guard isLabel, name.first != UInt8(ascii: "-") else { return false }
        let rest = u[(colon + 1)...]
        let digits = rest.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        guard (2...5).contains(digits.count), let port = Int(String(decoding: digits, as: UTF8.self)), port <= 65535 else { return false }
        let after = rest.dropFirst(digits.count)
        return after.isEmpty || after.first == UInt8(ascii: "/")
    }

    /// A base URL from the command line or `cd URL`: one-shot shorthands, then AFHTTPSessionManager's
    /// slash; with `pathAsIs` (`--path-as-is`) its dot segments stay, as a request's do.
    static func absoluteBase(_ raw: String, defaultScheme: String, pathAsIs: Bool = false) throws(SwurlError) -> String {
        URLReference.normalizedBase(try URLBuilder.resolve(raw, defaultScheme: defaultScheme, pathAsIs: pathAsIs).url)
    }

    // MARK: Lines

    /// Runs one line and records its status.
    func execute(_ line: String) -> ReplOutcome {
        let outcome: ReplOutcome
        do {
            outcome = try run(line)
        } catch {
            Swurl.report(error, environment: environment)
            outcome = .ran(ExitStatus(for: error))
        }
        if case .ran(let status) = outcome { lastStatus = status }
        return outcome
    }

    private func run(_ line: String) throws(SwurlError) -> ReplOutcome {
        // A comment (`#` starting a word) is gone here already; a quoted `'#x'` is a word.
        let split = try ShellWords.wordsWithBarePrefixes(line)
        // An operator is one only where a shell would see one: bare (`--raw '<x/>'` is data).
        if let op = split.first(where: { ReplContext.isShellOperator($0.bare) }) {
            throw .usage("'\(TerminalSanitizer.clean(op.word))': redirection and pipes are not REPL syntax",
                         hint: "save the body with -o FILE or --download; to pipe a response, run 'swurl …' in the shell")
        }
        let words = try ReplContext.pastedRequest(split.map(\.word))
        guard let first = words.first else { return .nothing }
        let rest = Array(words.dropFirst())
        switch first {
        case let word where ["exit", "quit", "cd"].contains(word) && rest.count > 1:
            // A second word was dropped without a word (`cd a b` went to a, `exit 3 4` exited 3).
            throw .usage("\(first) takes one \(first == "cd" ? "path or URL" : "status"), got \(rest.count) words")
        case let word where (word == "help" || word == "env") && !rest.isEmpty:
            throw .usage("\(first) takes no arguments")
        case "exit", "quit":
            if let n = rest.first {
                guard let v = Int32(n), let status = ExitStatus(rawValue: v) ?? (v == 0 ? .success : nil) else {
                    let error = SwurlError.usage("exit takes a status swurl uses (0, 1-8, 64-66, 130), got '\(n)'")
                    // A script meant to stop here: it stops (64) rather than run the lines after it.
                    guard interactive else {
                        Swurl.report(error, environment: environment)
                        return .exit(.usage)
                    }
                    throw error
                }
                return .exit(status)
            }
            return .exit(interactive ? .success : lastStatus)
        case "help":
            try write(ReplContext.helpText)
            return .ran(.success)
        case "env":
            try write(environmentText())
            return .ran(.success)
        case "cd":
            try changeBase(rest.first)
            return .ran(.success)
        case "set":
            try set(rest)
            return .ran(.success)
        case "unset":
            try unset(rest)
            return .ran(.success)
        default:
            return .ran(try request(words))
        }
    }

    private func write(_ text: String) throws(SwurlError) {
        do { try environment.stdout.write(text) } catch { throw (error as? SwurlError) ?? .output("\(error)") }
    }

    /// `cd [PATH_OR_URL]`: the base resolved like a request path; no argument returns to the first base.
    func changeBase(_ target: String?) throws(SwurlError) {
        guard let target else { base = initialBase; return }
        let scheme = defaults.value(.defaultScheme) ?? "http"
        // Spaces, non-ASCII and bytes that are not UTF-8 percent-encoded, as a request line's
        // path is (`cd "a b"` was refused where `"a b"` as a line was sent as a%20b).
        if ReplContext.isAbsolute(target) {
            try URLBuilder.refuseBackslashInAuthority(target, given: target)
            base = try ReplContext.absoluteBase(URLText.percentEncodingUnsafeBytes(target), defaultScheme: scheme,
                                                pathAsIs: defaults.has(.pathAsIs))
        } else if let base {
            let dots = defaults.has(.pathAsIs)
            self.base = try ReplContext.absoluteBase(URLText.percentEncodingUnsafeBytes(URLReference.resolve(target, against: base, pathAsIs: dots)),
                                                     defaultScheme: scheme, pathAsIs: dots)
        } else {
            throw .usage("cd \(target): there is no base URL to resolve it against",
                         hint: "give an absolute URL, e.g. cd http://127.0.0.1:8080/api")
        }
        remember(path: target)
    }

    /// `set ITEM|OPTION…`: adds defaults; an item replaces a default item of the same name.
    func set(_ words: [String]) throws(SwurlError) {
        guard !words.isEmpty else { throw .usage("set needs request items or options", hint: "e.g. set X-Token:abc, set --form") }
        let parsed = try ArgumentParser.parse(words)
        for o in ReplContext.replOnly where parsed.has(o) {
            throw .usage("--\(o.rawValue) is an option of 'swurl repl' itself, not a default for requests")
        }
        // What acts once and sends nothing is no default (it was kept, and did nothing).
        for o in ReplContext.notDefaults where o != .har && parsed.has(o) {
            throw .usage("set --\(o.rawValue): it is no default for requests", hint: o == .generate ? nil : "give it on a line of its own")
        }
        // The REPL's log is given when it starts: a default --har would take every later line
        // from it, each line rewriting that file with its own entry alone.
        if parsed.has(.har) {
            throw .usage("set --har: the REPL's --har is given when it starts (swurl repl --har FILE)",
                         hint: "a line's own --har writes a file of its own")
        }
        try ReplContext.refuseConflicts(parsed, in: "set")
        try CommandTable.check(parsed, for: ReplCommand.self)
        let parser = RequestItemParser(environment: environment)
        for raw in parsed.positionals {
            // Items of no name too (`@data.json`, the body; `==b`): a `set` line has no URL, and
            // `swurl repl BASE @data.json` and a line take them.
            guard ReplContext.isItem(raw) || ReplContext.itemKey(raw)?.name.isEmpty == true else {
                throw .usage("set: '\(raw)' is not a request item or an option", hint: "use cd to change the base URL")
            }
            _ = try parser.parse(raw)
        }
        let merged = ReplContext.merge(defaults, parsed)
        let mergedItems = ReplContext.merge(items: defaultItems, parsed.positionals)
        try CommandOptions.checkDefaults(merged, items: mergedItems, context: "a REPL default", environment: environment)
        defaults = merged
        defaultItems = mergedItems
        // `set -a USER` asks for the password again (one typed before, wrong perhaps, is dropped).
        if parsed.has(.auth) { PasswordPrompt.forgetTypedAuth() }
        bindCredentials(parsed, items: parsed.positionals)
    }

    /// `unset NAME…`: a default option (`--form`, `-a`) or every default item named NAME.
    func unset(_ names: [String]) throws(SwurlError) {
        guard !names.isEmpty else { throw .usage("unset needs a header, item or option name", hint: "e.g. unset X-Token, unset --form") }
        // All or nothing, as `set` is: a name refused leaves every default as it was.
        var defaults = self.defaults, defaultItems = self.defaultItems
        for name in names {
            if name.hasPrefix("-") && name.count > 1 {
                // `unset -vq` is `unset -v -q`, as `set -vq` sets both.
                let spelled = name.hasPrefix("--") ? [name] : name.dropFirst().map { "-\($0)" }
                var specs: [OptionSpec] = []
                for option in spelled {
                    let spec = option.hasPrefix("--") ? OptionTable.spec(long: String(option.dropFirst(2)))
                        : option.last.flatMap(OptionTable.spec(short:))
                    guard let spec else { throw .usage("unset: unknown option '\(option)'" + (spelled.count > 1 ? " in '\(name)'" : "")) }
                    guard defaults.has(spec.option) else { throw .usage("unset: --\(spec.name) is not set") }
                    specs.append(spec)
                }
                for spec in specs { defaults.options[spec.option] = nil }
            } else {
                let before = defaultItems.count
                // A header's name in any case; a query or data item's as written (`q` is not `Q`),
                // as `merge(items:)` tells them apart.
                defaultItems.removeAll { item in
                    guard let k = ReplContext.itemKey(item) else { return false }
                    return k.kind == .header ? k.name.lowercased() == name.lowercased() : k.name == name
                }
                if before == defaultItems.count { throw .usage("unset: no default item named '\(name)'", hint: "'env' lists them") }
            }
        }
        self.defaults = defaults
        self.defaultItems = defaultItems
    }

    /// A request line: `[METHOD] [PATH_OR_URL] [ITEMS…] [OPTIONS…]` with the defaults merged in.
    func request(_ words: [String]) throws(SwurlError) -> ExitStatus {
        let line = try ArgumentParser.parse(words)
        if line.has(.help) {
            try write(HelpGenerator.help())
            return .success
        }
        // As on the command line, --version prints and sends nothing (it sent the line's request).
        if line.has(.version) {
            try write(Swurl.versionText)
            return .success
        }
        if line.has(.generate) {
            throw .usage("--generate writes the man page or a completion script: run swurl --generate WHAT, not a REPL line")
        }
        var merged = ReplContext.merge(defaults, line)
        // A line for the REPL's log (no --har of its own, not --no-har): its entry keeps what the
        // REPL's defaults and the line say now; those qualify the REPL's --har, not the line's.
        var logSettings: (bodies: Bool, secrets: Bool)?
        if har != nil, !line.has(.har), !line.resets.contains(.har) {
            logSettings = (merged.has(.harBodies), merged.has(.harSecrets))
            for o in [Option.harBodies, .harSecrets] { merged.options[o] = nil }
        }
        OptionTable.dropWaitingQualifiers(&merged, own: line)
        for o in ReplContext.replOnly where line.has(o) || line.resets.contains(o) {
            throw .usage("--\(o.rawValue) applies to 'swurl repl' itself, not to a line")
        }
        // Stdin is the REPL's input: never a request body.
        merged.options[.ignoreStdin] = [nil]
        var positionals = line.positionals[...]
        var method: String?
        if let m = positionals.first, positionals.count > 1 { try HTTPMethod.refuseLookAlike(m) { $0 } }
        // As in one-shot swurl, a lower-case method counts only with something after it: a line
        // `get` alone is the path /get.
        if let m = positionals.first, CommandOptions.looksLikeMethod(m, urlFollows: positionals.count > 1) {
            // A known method alone requests the base (`DELETE`); another word in capitals alone
            // is refused, as on the command line (`README` went to the base as a method README).
            if positionals.count == 1, !HTTPMethod(m).isKnown {
                throw .usage("the method \(TerminalSanitizer.excerpt(m)) needs a path or URL after it",
                             hint: "a path in capitals is ./\(TerminalSanitizer.excerpt(m)); the method for the base is \(TerminalSanitizer.excerpt(m)) .")
            }
            method = m
            positionals = positionals.dropFirst()
        }
        var target: String?
        var pathToRemember: String?
        // `https:/h/x` or `https:h.example/x` (slashes short) read as a header `https` would go
        // to the base, with the default credentials: refused as the one-shot request refuses it.
        // (`http:=1`, `https:@file` or `http:value` are items, as on any line.)
        if let t = positionals.first, URLBuilder.isSlashesShort(t) { try URLBuilder.refuseMissingSlashes(t, given: t) }
        if let t = positionals.first, ReplContext.headerLooksLikeURLWithCredentials(t) {
            // `ann:pw@api.example.test/v1` first: a header `ann` to the base, its value the
            // password, where the one-shot request reads a URL with credentials. Neither is sent.
            let shown = Redactor.givenURL(t)
            throw .usage("'\(shown)' reads as a header '\(TerminalSanitizer.excerpt(ReplContext.itemKey(t)?.name ?? ""))' sent to the base, but looks like a URL with credentials",
                         hint: "for that URL, write its scheme: http://\(shown); for the header, give the path first: / '\(shown)'")
        }
        if let t = positionals.first, !ReplContext.isItem(t) {
            target = t
            positionals = positionals.dropFirst()
        } else if let path = positionals.first(where: ReplContext.looksLikeMisplacedPath) {
            // No path first, and a path among the items (`X-A:1 /items?id=3`): it would be a
            // field `/items?id` sent to the base. The one-shot request refuses an item where the
            // URL goes; so does a line.
            throw .usage("'\(TerminalSanitizer.excerpt(path))' looks like a path, but it comes after an item, where it is a field of the body",
                         hint: "put the path first: \(TerminalSanitizer.excerpt(path)) and then the items")
        }
        // `propfind localhost:8080` under a base: the one-shot request's refusal (a path
        // `propfind` with a header named `localhost` went to the base).
        if method == nil, let target, !ReplContext.isAbsolute(target), CommandOptions.isLowerCaseWord(target),
           let raw = positionals.first(where: CommandOptions.isBareHostPort) {
            throw CommandOptions.lowerCaseWordError(raw, word: target)
        }
        let url: String
        if let target, ReplContext.isAbsolute(target) {
            url = target
        } else if let base {
            url = URLReference.resolve(target ?? "", against: base, pathAsIs: merged.has(.pathAsIs))
            // Offered by Tab once the line is known to be a request (below).
            pathToRemember = target
        } else if let target {
            // A word the request reads as a method when a URL follows (`get`, `delete`) would
            // make the next item, a default header item (`api:8080`), its URL: it is the host,
            // with its scheme, as any other word is (`foo` → http://foo/).
            url = CommandOptions.looksLikeMethod(target) ? (merged.value(.defaultScheme) ?? "http") + "://" + target : target
        } else {
            throw .usage("no URL: this REPL has no base URL", hint: "give a URL on the line, or set a base with cd URL")
        }
        // Default credentials go only to the origin they were given for: a line's own go anywhere.
        let origin = try? Origin(url: URLBuilder.resolve(url, defaultScheme: merged.value(.defaultScheme) ?? "http").url)
        var withheld: [String] = []
        var binding: [String: Origin] = [:]
        // `merged`: a default the line dropped (--no-auth) neither goes nor binds its origin here.
        if merged.has(.auth) && !line.has(.auth) && !credentialGoes("auth", to: origin, binding: &binding) {
            merged.options[.auth] = nil
            // The type goes with the credentials it describes (alone it is a usage error).
            if !line.has(.authType) { merged.options[.authType] = nil }
            withheld.append("-a")
        }
        // (A line's own -a is not of the default -a's type: `merge`, `OptionTable.dropReplacedQualifiers`.)
        if (merged.has(.cert) || merged.has(.key)) && !line.has(.cert) && !line.has(.key) && !credentialGoes("cert", to: origin, binding: &binding) {
            for o in [Option.cert, .key] { merged.options[o] = nil }
            if !line.has(.keyPassword) { merged.options[.keyPassword] = nil }
            withheld.append("--cert")
        }
        let ownHeaders = Set(positionals.compactMap { ReplContext.itemKey($0) }.filter { $0.kind == .header }.map { $0.name.lowercased() })
        let items = defaultItems.filter { item in
            guard let key = ReplContext.itemKey(item), key.kind == .header,
                  Redactor.isCredentialHeader(key.name),
                  !ownHeaders.contains(key.name.lowercased()) else { return true }
            // A line's own -a is its Authorization: it replaces a default Authorization: item, as
            // a line's own options replace the defaults (the item won, and the line's -a was lost).
            if line.has(.auth), key.name.lowercased() == "authorization" { return false }
            if credentialGoes(key.name.lowercased(), to: origin, binding: &binding) { return true }
            withheld.append(key.name + ":")
            return false
        }
        merged.positionals = (method.map { [$0] } ?? []) + [url]
            + ReplContext.merge(items: items, Array(positionals))
        let command: any SwurlCommand.Type = merged.has(.download) ? DownloadCommand.self : RequestCommand.self
        try CommandTable.check(merged, for: command)
        // -qq on the line (or as a default) silences its warnings and notes, as on the command line.
        let lineStderr = environment.stderr
        if (merged.options[.quiet]?.count ?? 0) >= 2 { environment.stderr = QuietMessagesSink(lineStderr) }
        defer { environment.stderr = lineStderr }
        // Stdin is the REPL's input (its script or the terminal), never a line's body.
        try CommandOptions.refuseStdinFiles(merged, "a REPL line")
        try CommandOptions.refuseStdinWords(merged.positionals, "a REPL line")
        let options = try CommandOptions(merged, environment: environment)
        try options.refuseStdinItems("a REPL line")
        if let path = pathToRemember { remember(path: path) }
        // Said once the line is known to be a request (a line refused for its URL named an
        // origin made up from it).
        if !withheld.isEmpty && !merged.has(.quiet) {
            try? environment.stderr.write("swurl: note: the default credentials (" + withheld.joined(separator: ", ")
                + ") are not sent to " + TerminalSanitizer.clean(origin?.description ?? Redactor.url(url))
                + ": they belong to the origin they were given for (give them on the line to send them here)\n")
        }

        // The default credentials the line sends are bound to its origin once it goes (not by a
        // line that sends nothing: --offline, --curl, one refused by a check before sending).
        environment.willSend = { [unowned self] in self.credentialOrigins.merge(binding) { bound, _ in bound } }
        defer { environment.willSend = nil }
        // SIGTERM or SIGHUP during a line stops it as in a one-shot request (its -o and --har
        // files end as they do then, the REPL's log rewritten with it), then ends the REPL by
        // the signal; between lines (at the prompt, reading a script) they end it at once.
        Interrupt.armTermination()
        defer { Interrupt.settleTermination() }
        // The REPL's jar is every line's that runs on its default route (its own options, a
        // `set` or the config's, are everyone's); a line with a route of its own has its own jar.
        let jar = BatchDefaults.changesRoute(line) ? nil : defaultRouteJar()
        // A line's --no-har keeps it out of the REPL's log; its own --har writes a file of its own.
        guard let har, options.har == nil, !line.resets.contains(.har) else {
            return RequestCommand.perform(options, environment: environment, otherHAR: har?.path, jar: jar)
        }
        let before = har.count
        if let logSettings { har.useSettings(bodies: logSettings.bodies, secrets: logSettings.secrets) }
        let status = RequestCommand.perform(options, environment: environment, har: har, jar: jar)
        // After each request: a crash later loses nothing recorded so far.
        if har.count > before, let error = RequestPipeline.saveHAR(har, environment: environment) {
            environment.stateNotSaved?(error)
            if status == .success { return ExitStatus(for: error) }
        }
        return status
    }

    private func remember(path: String) {
        // Never a URL with user info (`http://alice:pw@h/`, `//TOKEN@h/`): Tab would show and
        // insert what the prompt, env and the history mask.
        guard !path.isEmpty, !seenPaths.contains(path), Redactor.url(path, userAlone: true) == path, !path.contains("@") || !path.hasPrefix("//"),
              !ReplContext.slashesOffURLHasUserinfo(path) else { return }
        seenPaths.append(path)
        if seenPaths.count > 500 { seenPaths.removeFirst() }
    }

    // MARK: Script mode

    /// The most lines one command of a script may span.
    static let maxCommandLines = 1000

    /// Runs stdin line by line: `#` lines are comments; the status is the last command's. A line
    /// ending in a backslash, or with a quote left open, goes on to the next, as typed at the
    /// prompt and as in a shell script; at the end of the input a last backslash is dropped
    /// (`ReplReadline.endingAtEOF`). An error names the command's first line.
    func runScript(stopOnError: Bool) -> ExitStatus {
        let reader = LineReader(source: environment.stdin, name: "stdin")
        var status = ExitStatus.success
        /// A command whose lines have not all been read, and the number of its first line.
        var pending: (text: String, line: Int)?
        // Ctrl-C between lines stops the script too (during a request the engine sees it).
        Interrupt.arm()
        let stderr = environment.stderr
        // A line's --session or the REPL's --har that could not be saved: the lines after it
        // would run without the cookies it got, or unrecorded (each said why on its own).
        var notSaved = false
        environment.stateNotSaved = { _ in notSaved = true }
        defer { environment.stateNotSaved = nil }
        /// Runs one command; nil to go on, or the script's status.
        func run(_ command: String, line: Int) -> ExitStatus? {
            // The reader went away while the script waited for this line (`… | head -1`): it
            // stops before the line runs, not after its request changed things nobody sees.
            // (Not a stdout the shell closed, `>&-`: lines that write elsewhere, `-o`, run as before.)
            if let sink = environment.stdout as? FileDescriptorSink, sink.readerGone || sink.writeFailed {
                try? stderr.write("swurl: note: the script stops before line \(line): nobody reads its output any more\n")
                return status == .success ? .transportError : status
            }
            environment.errorPlace = "line \(line)"
            // A command's warnings and notes name its line too (`HTTP 404` of which request?).
            environment.stderr = PlacedMessagesSink(stderr, place: "line \(line)")
            defer { environment.errorPlace = nil; environment.stderr = stderr }
            switch execute(command) {
            case .nothing: return nil
            case .exit(let s): return s
            case .ran(let s):
                status = s
                if s == .interrupted || (stopOnError && s != .success) { return s }
                // Nobody reads the output any more (`swurl repl … | head`), or it cannot be written
                // (a full disk): the script stops, as a batch starts no new lines; its later
                // requests would change things unseen.
                if s != .success, environment.stdoutUnusable { return s }
                if notSaved {
                    try? stderr.write("swurl: note: the script stops after line \(line): what it keeps after a request (its --session, the --har log) could not be saved\n")
                    return s == .success ? .transportError : s
                }
                return nil
            }
        }
        while let (line, tooLong) = reader.next() {
            if Interrupt.requested { return .interrupted }
            if tooLong {
                Swurl.report(.usage("line \(reader.lineNumber) is longer than \(LineReader.maxLine) bytes"), environment: environment)
                status = .usage
                pending = nil
                if stopOnError { return status }
                continue
            }
            let command = pending.map { $0.text + "\n" + line } ?? line
            let first = pending?.line ?? reader.lineNumber
            // Only a backslash or a quote can leave a command open: other lines skip the look.
            if line.utf8.contains(where: { $0 == 0x5C || $0 == 0x27 || $0 == 0x22 }) || pending != nil,
               !ReplReadline.isComplete(command) {
                // Each line looks at the whole command again: a quote never closed (a stray one at
                // the top of a generated script) is reported at a bound, not after the whole input.
                // The script stops there: what follows was meant as quoted text, and run as
                // commands it could send requests nobody wrote (a shell stops at such a fault too).
                if reader.lineNumber - first >= ReplContext.maxCommandLines || command.utf8.count > LineReader.maxLine {
                    Swurl.report(.usage("line \(first): the command is still open after \(reader.lineNumber - first + 1) lines; the script stops here",
                                        hint: "a quote left open? a command may span \(ReplContext.maxCommandLines) lines and \(LineReader.maxLine) bytes"),
                                 environment: environment)
                    return .usage
                }
                pending = (command, first)
                continue
            }
            pending = nil
            if let end = run(command, line: first) { return end }
        }
        if let (command, first) = pending, let end = run(ReplReadline.endingAtEOF(command), line: first) { return end }
        if let error = reader.error {
            Swurl.report(error, environment: environment)
            return ExitStatus(for: error)
        }
        return Interrupt.requested ? .interrupted : status
    }

    // MARK: env

    /// The base and every default, credentials masked (`Redactor`).
    func environmentText() -> String {
        // A user name given alone is a token, as the prompt shows it.
        var s = "base: " + (base.map { Redactor.url($0, userAlone: true) } ?? "(none)") + "\n"
        let bearer = defaults.value(.authType)?.lowercased() == "bearer"
        for spec in OptionTable.all {
            guard let values = defaults.options[spec.option] else { continue }
            for v in values {
                guard let v else { s += "--\(spec.name)\n"; continue }
                s += "--\(spec.name) \(ReplContext.quote(spec.option.shown(v, bearer: bearer)))\n"
            }
        }
        for item in defaultItems {
            if let key = ReplContext.itemKey(item), key.kind == .header, Redactor.isCredentialHeader(key.name) {
                s += "\(key.name):\(Redactor.mask)\n"
            } else {
                // A password in the value read as a URL (`X-Upstream:http://u:pw@h`,
                // `X-Proxy:u:pw@squid:3128`) is masked; other text with an '@' carries none
                // (`From:ann@example.org`, `X-File:@/etc/hostname`, which were shown masked when
                // the whole item was read as a URL, as if secrets had been set).
                let scalars = Array(item.unicodeScalars)
                let (_, separator, start) = RequestItemParser.split(scalars)
                let value = String(String.UnicodeScalarView(scalars[min(start, scalars.count)...]))
                let shown = separator != nil
                    ? String(String.UnicodeScalarView(scalars[..<min(start, scalars.count)])) + Redactor.url(value) : Redactor.url(item)
                s += ReplContext.quote(shown) + "\n"
            }
        }
        // Typed text, shown back: made visible line by line.
        return s.split(separator: "\n").map { TerminalSanitizer.clean(String($0)) + "\n" }.joined()
    }

    /// `word` as one shell word. Bytes decide (a quote followed by a combining mark is still a
    /// quote to the shell, though not a "'" Character).
    static func quote(_ word: String) -> String {
        guard word.isEmpty || word.utf8.contains(where: { b in
            b == 0x20 || b == 0x09 || b == 0x27 || b == 0x22 || b == 0x5C
        }) else { return word }
        return "'" + word.replacingAll("'", with: "'\\''") + "'"
    }

    // MARK: History

    /// `http:///u:pw@h/` (libcurl takes three slashes) and `http:/u:pw@h/` (refused, but typed),
    /// read with two slashes as the mask reads a URL: whether they hold user info.
    static func slashesOffURLHasUserinfo(_ w: String) -> Bool {
        guard let colon = w.firstIndex(of: ":"), ["http", "https"].contains(w[..<colon].lowercased()),
              !w[w.index(after: colon)...].hasPrefix("//") || w[w.index(after: colon)...].hasPrefix("///") else { return false }
        let normal = "http://" + w[w.index(after: colon)...].drop { $0 == "/" }
        return Redactor.hasURLPassword(normal) || Redactor.url(normal, userAlone: true) != normal
    }

    /// Whether a line carries credentials and must stay out of the history file: `-a`/`--auth`
    /// (also in a cluster such as `-qa`), `--key-password`, an Authorization/Proxy-Authorization/
    /// Cookie header item, a word with a URL password (`http://u:p@h`, `//u:p@h`, `u:p@h:8080`).
    /// When the line does not parse, it is judged conservatively: kept out if it might.
    static func containsCredentials(_ line: String) -> Bool {
        guard var words = (try? ReplContext.words(line)).map(ReplContext.withoutCommandName) else {
            let l = line.lowercased()
            return ["-a", "--auth", "authorization", "--key-password", "cookie"].contains { l.containsText($0) } || l.containsText("@")
        }
        if ["set", "cd", "unset"].contains(words.first ?? "") { words.removeFirst() }
        // A password however it is written (`http://ann:pa/ss@host`, whose '/' libcurl would
        // take for the path's start, is masked in messages as a password all the same).
        if words.contains(where: { Redactor.hasURLPassword($0) || Redactor.holdsPasswordAsWritten($0) }) { return true }
        if words.contains(where: ReplContext.slashesOffURLHasUserinfo) { return true }
        // A URL whose user name is given alone (`https://TOKEN@host/`): a token, sent as Basic
        // credentials (an item's `field@file` is no URL).
        if words.contains(where: { $0.containsText("://") && Redactor.url($0, userAlone: true) != $0 }) { return true }
        guard let parsed = try? ArgumentParser.parse(words, checkText: false) else {
            // Which word is the URL is not known on a line that does not parse: any word with an
            // '@' inside may be one with a user name (`TOKEN@host:8080/x --tiemout 3`).
            if words.contains(where: { $0.utf8.dropFirst().contains(UInt8(ascii: "@")) }) { return true }
            return words.contains { w in
                // A misspelt or cut long option (`--a`, `--au`, `--key-pass`) fails to parse, and
                // what follows it may still be the password.
                let name = w.prefix { $0 != "=" }
                let cut = name.count >= 3 && "--auth".hasPrefix(name) || name.count >= 6 && "--key-password".hasPrefix(name)
                // Or misspelt another way (`--AUTH`, `--atuh`, `--key-passwd`): what the error
                // says it meant.
                let meant = ArgumentParser.meantOption(String(name)).map { $0 == "--auth" || $0 == "--key-password" } ?? false
                // curl's spellings fail to parse here, and carry the secret all the same
                // (`-u ann:pw`, `--oauth2-bearer T`, `--cookie sid=…`, `--header=Authorization:…`).
                // In a cluster too (`-su ann:pw`, `-ku …`).
                let curlShort = w.hasPrefix("-") && !w.hasPrefix("--") && w.dropFirst().contains { "uUE".contains($0) }
                let header = ["--header", "-H", "--proxy-header"].contains(String(name)) ? w.dropFirst(name.count + 1)
                    : w.hasPrefix("-H") && !w.hasPrefix("--") ? w.dropFirst(2) : nil
                return cut || meant || w.hasPrefix("--auth") || w.hasPrefix("--key-password")
                    || w.hasPrefix("-") && !w.hasPrefix("--") && w.dropFirst().contains("a")
                    || name.hasPrefix("--") && OptionTable.mayCarrySecret(unknown: name.dropFirst(2)) || curlShort
                    || itemKey(w).map { $0.kind == .header && Redactor.isCredentialHeader($0.name) } == true
                    || header.flatMap { itemKey(String($0)) }.map { $0.kind == .header && Redactor.isCredentialHeader($0.name) } == true
            }
        }
        if parsed.has(.auth) || parsed.has(.keyPassword) { return true }
        // A proxy whose user name is a token, scheme-less too (`--proxy TOKEN@squid:3128`): what
        // `env` masks (`Option.shown`) is no line for the history.
        if parsed.values(.proxy).contains(where: { Option.proxy.shown($0) != TerminalSanitizer.clean($0) }) { return true }
        // The URL word (after a method) with a user name alone in any form (`//TOKEN@h/`,
        // `TOKEN@h:8080/x`), which goes out as Basic credentials.
        let isMethod = parsed.positionals.first.map { HTTPMethod($0).isKnown } ?? false
        if let url = parsed.positionals.dropFirst(isMethod ? 1 : 0).first, url.containsByte(UInt8(ascii: "@")),
           Redactor.url(url, userAlone: true) != url {
            return true
        }
        return parsed.positionals.contains { w in
            guard let key = itemKey(w), key.kind == .header else { return false }
            return Redactor.isCredentialHeader(key.name)
        }
    }

    // MARK: Words and items

    /// Splits a line into words as a POSIX shell would (`ShellWords`, the splitter every door
    /// shares): a line means what it means typed after `swurl`.
    static func words(_ line: String) throws(SwurlError) -> [String] {
        try ShellWords.words(line)
    }

    enum ItemKind { case header, query, field }

    /// The name and kind of a request item (`X-Token:abc` → header X-Token), by its first
    /// unescaped separator; nil when the word has none.
    /// - Parameter upToArrayPart: a field's or query's name only up to its first array part,
    ///   `[]` or `[digits]` (`a` of `a[1]=x`; `user[name]` of `user[name]=ann`; brackets a
    ///   backslash escapes are the name's): the key by which a line's item replaces default
    ///   items (`merge(items:)`), since the items of one array make one value (a line's `a[0]=y`
    ///   beside a default `a[]=1` clashed, "index 0 is already set", where its `a[]=3` replaced
    ///   it), and other names stay (`filter[type]==x` beside a default `filter[status]==open`).
    static func itemKey(_ word: String, upToArrayPart: Bool = false) -> (name: String, kind: ItemKind)? {
        let scalars = Array(word.unicodeScalars)
        var name = String.UnicodeScalarView()
        // The name where its first array part begins, when asked for and there is one.
        var beforeArray: String?
        var i = 0
        while i < scalars.count {
            let c = scalars[i]
            if c == "\\", i + 1 < scalars.count {
                name.append(scalars[i + 1])
                i += 2
                continue
            }
            if ItemSeparator.leadCharacters.contains(c) {
                let rest = String(String.UnicodeScalarView(scalars[i...]))
                let kind: ItemKind = rest.hasPrefix(":=") ? .field : rest.hasPrefix(":") || rest.hasPrefix(";") ? .header
                    : rest.hasPrefix("==") ? .query : .field
                return (kind == .header ? String(name) : beforeArray ?? String(name), kind)
            }
            if upToArrayPart, beforeArray == nil, c == "[" {
                var k = i + 1
                while k < scalars.count, scalars[k].properties.numericType == .decimal, scalars[k].isASCII { k += 1 }
                if k < scalars.count, scalars[k] == "]" { beforeArray = String(name) }
            }
            name.append(c)
            i += 1
        }
        return nil
    }

    /// Whether a header item's word reads as a URL with credentials and a path, query or
    /// fragment (`ann:pw@api.example.test/v1`, `ann:pa/ss@h.example:8443/x`, `ann:pw@[::1]?q`,
    /// `ann:pw@intranet/x`): `user:password@`, a host name (any label, IDN too) or an IP
    /// literal and an optional port, then a `/`, `?` or `#`. Without one it stays an item
    /// (`From:ann@example.org` is a header people send), and so does a
    /// header read from a file (`X-Data:@conf.d/token`, `:@`), one separated by `;`, a
    /// credential header's (`Cookie:sid=a@b.c/d` is no user `Cookie`) and a value with a
    /// character no URL holds (`Link:<a@b.c/>`).
    static func headerLooksLikeURLWithCredentials(_ word: String) -> Bool {
        guard itemKey(word)?.kind == .header, isItem(word), !word.containsText("://"), Redactor.item(word) == word else { return false }
        let u = Array(word.utf8)
        guard let colon = u.firstIndex(where: { $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ";") }), u[colon] == UInt8(ascii: ":"),
              colon + 1 < u.count, u[colon + 1] != UInt8(ascii: "@"),
              !u[(colon + 1)...].contains(where: { $0 <= 0x20 || $0 == 0x7F || "<>\"{}|\\^`".utf8.contains($0) }),
              let firstAt = u.firstIndex(of: UInt8(ascii: "@")),
              let stop = u[firstAt...].firstIndex(where: { "/?#".utf8.contains($0) }),
              let at = u[..<stop].lastIndex(of: UInt8(ascii: "@")) else { return false }
        let authority = String(decoding: u[(at + 1)..<stop], as: UTF8.self)
        if URLText.isHostPort(authority) { return true }
        var host = Substring(authority)
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
            // An IPv6 literal (a zone too), then an optional port.
            let rest = host[host.index(after: close)...]
            return rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy { ("0"..."9").contains($0) })
        }
        if let colon = host.lastIndex(of: ":"), host[host.index(after: colon)...].allSatisfy({ ("0"..."9").contains($0) }) { host = host[..<colon] }
        return !host.isEmpty && host.first != "." && host.first != "-"
            && host.utf8.allSatisfy { b in
                (b | 0x20 >= UInt8(ascii: "a") && b | 0x20 <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9"))
                    || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") || b == UInt8(ascii: "_") || b == UInt8(ascii: "%") || b >= 0x80
            }
    }

    /// Whether a word is a shell redirection, pipe or list operator (`>`, `>file`, `2>&1`, `<`,
    /// `|`, `&&`, `;`): the REPL runs no shell, so a line with one cannot mean what it would
    /// in one.
    static func isShellOperator(_ word: String) -> Bool {
        if ["|", "||", "&", "&&", ";"].contains(word) { return true }
        return [">", "<", "|", "1>", "2>", "&>"].contains { word.hasPrefix($0) }
    }

    /// Whether an item's word is a path typed after the items: its name starts as a path does
    /// (`/`, `./`, `../`) or holds a query's `?` (`users?id=3`). Not `@file` (a body), a name
    /// with a `/` inside (`content/type=x`, `a[b/c]=1`), nor a URL (the one-shot check names it).
    static func looksLikeMisplacedPath(_ word: String) -> Bool {
        guard !CommandOptions.looksLikeURL(word), let key = itemKey(word), !key.name.isEmpty else { return false }
        return key.name.hasPrefix("/") || key.name.hasPrefix("./") || key.name.hasPrefix("../") || key.name.contains(Character("?"))
    }

    /// Whether a word is a request item rather than a path or URL: it has a separator, and the
    /// text before it is a non-empty name without `/`, `?`, `#` (`foo?x=1` and `a/b:c` are paths).
    static func isItem(_ word: String) -> Bool {
        if URLText.schemeOf(word) != nil || URLText.isHostPortWithUserinfo(word) { return false }
        guard let key = itemKey(word), !key.name.isEmpty else { return false }
        return !key.name.contains(where: { "/?#".contains($0) }) && !key.name.hasPrefix(".")
    }

    /// Defaults that exclude each other (`set --json --form`) are refused when they are set:
    /// kept, they would fail every later request.
    /// - Throws: `SwurlError.usage` naming both options.
    static func refuseConflicts(_ parsed: ParsedArguments, in context: String) throws(SwurlError) {
        for set in conflictingSets {
            let given = set.filter { parsed.has($0) }
            guard given.count > 1 else { continue }
            throw .usage("\(context): --\(given[0].rawValue) and --\(given[1].rawValue) cannot both be defaults",
                         hint: "choose one; a later 'set --\(given[1].rawValue)' replaces --\(given[0].rawValue)")
        }
    }

    /// A line pasted from a shell (`swurl GET …`), in the REPL or a batch file: its words
    /// without the command's name.
    static func withoutCommandName(_ words: [String]) -> [String] {
        words.first == "swurl" ? Array(words.dropFirst()) : words
    }

    /// `withoutCommandName` for a line about to run as a request: a pasted `swurl certs …` (or
    /// another command's word) is refused by name, not read as a request to the host `certs`.
    /// - Throws: `SwurlError.usage`.
    static func pastedRequest(_ words: [String]) throws(SwurlError) -> [String] {
        let rest = withoutCommandName(words)
        if words.first == "swurl", let word = rest.first, CommandTable.words.contains(word) || word == "help" {
            throw .usage("'swurl \(word)' is a command of its own; a line here is a request", hint: "run 'swurl \(word) …' in the shell")
        }
        return rest
    }

    /// Options: a line's option replaces the defaults' values of the same option, of its
    /// exclusive set and of its replacing group (a line's pin, the defaults' pins of both kinds).
    static func merge(_ defaults: ParsedArguments, _ line: ParsedArguments) -> ParsedArguments {
        var merged = line.dropResetDefaults(defaults)
        for option in line.options.keys {
            for set in OptionTable.exclusiveSets + OptionTable.replacingGroups where set.contains(option) { for o in set { merged.options[o] = nil } }
        }
        for (option, values) in line.options { merged.options[option] = values }
        OptionTable.dropReplacedQualifiers(&merged, defaults: defaults, own: line)
        return merged
    }

    /// Items: a line's item replaces default items of the same kind and name (headers by any
    /// case; fields and queries by their name up to its first array part, `itemKey`).
    static func merge(items defaults: [String], _ line: [String]) -> [String] {
        let keys = line.compactMap { itemKey($0, upToArrayPart: true) }
        let kept = defaults.filter { d in
            guard let k = itemKey(d, upToArrayPart: true) else { return true }
            return !keys.contains { $0.kind == k.kind && (k.kind == .header ? $0.name.lowercased() == k.name.lowercased() : $0.name == k.name) }
        }
        return kept + line
    }

    static let helpText = """
    A line is [METHOD] [PATH_OR_URL] [REQUEST_ITEM ...] [OPTIONS], as for one-shot swurl.
    PATH resolves against the base URL (a base path gets a trailing /; then RFC 3986):
      foo -> BASE/foo    /foo -> the host's /foo    ../x, foo?x=1, foo/    http://other/ replaces the base
      (so do :8080/x and host:port/x, e.g. localhost:8080/x or api.example.org:443)
    A line with only items or options requests the base. A leading 'swurl ' is dropped.
    Built-ins:
      cd [PATH_OR_URL]      change the base URL (cd .. goes up; cd alone returns to the first base)
      set ITEM|OPTION ...   add defaults for every request (set X-Token:abc, set --form, set -a user:pass)
      unset NAME ...        remove a default header or item (unset X-Token) or option (unset --form)
                            (a line's --no-OPTION drops a default option for that line: GET /x --no-follow)
      env                   show the base URL and the defaults, credentials masked
      help                  this text; 'GET --help' shows swurl's options
      exit [STATUS], quit   leave the REPL (with STATUS: exit 3; else 0 on a terminal, a
                            script's last status); Ctrl-D too
    Ctrl-C cancels a running request (status 130) or clears the line being typed.

    """
}

/// Stderr while a REPL script runs a command: every message the command writes names the
/// script's line, after its kind when it has one (`swurl: warning: line 4: HTTP 404 NOT FOUND`,
/// `swurl: line 4: saved 'f' (220 bytes)`), as its errors do (`Environment.errorPlace`, which
/// this leaves as placed). Each message is one write that starts with `swurl: `; a hint belongs
/// to the message before it, and anything else (a progress bar, `-v`'s lines) passes as written.
final class PlacedMessagesSink: ByteSink {
    private let inner: ByteSink
    private let place: [UInt8]
    private static let prefix = Array("swurl: ".utf8)
    private static let kinds = ["warning: ", "note: ", "error: "].map { Array($0.utf8) }
    private static let hint = Array("hint: ".utf8)

    init(_ inner: ByteSink, place: String) {
        self.inner = inner
        self.place = Array((place + ": ").utf8)
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard bytes.starts(with: PlacedMessagesSink.prefix) else { return try inner.write(bytes) }
        var at = PlacedMessagesSink.prefix.count
        if bytes.dropFirst(at).starts(with: PlacedMessagesSink.hint) { return try inner.write(bytes) }
        if let kind = PlacedMessagesSink.kinds.first(where: { bytes.dropFirst(at).starts(with: $0) }) { at += kind.count }
        if bytes.dropFirst(at).starts(with: place) { return try inner.write(bytes) }
        try (Array(bytes.prefix(at)) + place + bytes.dropFirst(at)).withUnsafeBytes { try inner.write($0) }
    }
}
