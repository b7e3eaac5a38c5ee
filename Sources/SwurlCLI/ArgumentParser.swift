import SwurlCore
/// The raw result of parsing argv against `OptionTable`: option occurrences and positionals.
package struct ParsedArguments: Sendable {
    /// Each option's occurrences in order; a flag's occurrence has a nil value.
    package var options: [Option: [String?]] = [:]
    /// Everything that is not an option: method, URL, request items.
    package var positionals: [String] = []
    /// Options cancelled by `--no-OPTION`: their values before it are gone from `options`, and
    /// defaults under these arguments (the config file's, a batch's or the REPL's) drop theirs
    /// (`dropResetDefaults`). A later `--OPTION` sets it again.
    package var resets: Set<Option> = []

    /// Whether the option named `name` was given.
    package func has(_ option: Option) -> Bool { options[option] != nil }
    /// The last value given for `name`.
    package func value(_ option: Option) -> String? { options[option]?.last ?? nil }
    /// Every value given for `name`, in order.
    package func values(_ option: Option) -> [String] { (options[option] ?? []).compactMap { $0 } }

    /// `defaults` without the values of the options these arguments cancel with `--no-OPTION`.
    func dropResetDefaults(_ defaults: ParsedArguments) -> ParsedArguments {
        var kept = defaults
        for option in resets { kept.options[option] = nil }
        return kept
    }

    /// Options `--no-OPTION` cannot cancel: they end the run before any default matters.
    static let notResettable: Set<Option> = [.help, .version, .generate]
}

/// Parses `swurl [METHOD] URL [REQUEST_ITEM ...] [OPTIONS]`: options may stand anywhere,
/// `--` ends them, short flags combine (`-hv`, `-pHh`).
package enum ArgumentParser {
    /// - Parameter checkText: refuse an option value that is not UTF-8 (every door does; the
    ///   REPL's history check only asks what the words are).
    /// - Throws: `SwurlError.usage` naming the bad argument and, for a typo, the closest option.
    package static func parse(_ arguments: [String], checkText: Bool = true) throws(SwurlError) -> ParsedArguments {
        var result = ParsedArguments()
        var i = 0
        var optionsEnded = false
        /// - Parameter short: typed as its short option (`-s`), whose curl habit the hint names.
        func record(_ spec: OptionSpec, _ value: String?, short: Bool = false) throws(SwurlError) {
            // Option values are text, except `--output`'s file name, used as the exact bytes given
            // (`ArgumentBytes`): a value that is not UTF-8 is refused, never rewritten, on every
            // door (the command line, the config file, batch and REPL lines; they sent swurl's escapes).
            if checkText, let v = value, spec.option != .output, ArgumentBytes.hasEscapes(v) {
                throw .usage("--\(spec.name) '\(spec.option.shown(ArgumentBytes.shown(v)))' is not valid UTF-8 text",
                             hint: "only URLs, -o file names and @file paths may hold other bytes")
            }
            if let v = value, !spec.choices.isEmpty, !spec.choices.contains(v) {
                // curl's -s (silent) and -A (user agent) read here as -s STYLE and -A TYPE; a
                // style typed in full is HTTPie's habit (a Pygments style name).
                let habit = spec.option == .style ? (short ? "; curl's -s (silent) is -q (--quiet) here" : "; swurl has its own styles, not Pygments'")
                    : spec.option == .authType && short ? "; curl's -A (user agent) is the header item 'User-Agent:NAME' here" : ""
                throw .usage("invalid value '\(v)' for --\(spec.name)",
                             hint: "choose one of: \(spec.choices.joined(separator: ", "))" + habit)
            }
            result.options[spec.option, default: []].append(value)
        }
        while i < arguments.count {
            let arg = arguments[i]
            i += 1
            if optionsEnded || arg == "-" || !arg.hasPrefix("-") {
                result.positionals.append(arg)
                continue
            }
            if arg == "--" {
                optionsEnded = true
                continue
            }
            if arg.hasPrefix("--") {
                let body = arg.dropFirst(2)
                let name: String
                var inline: String?
                if let eq = body.firstIndex(of: "=") {
                    name = String(body[..<eq])
                    inline = String(body[body.index(after: eq)...])
                } else {
                    name = String(body)
                }
                guard let spec = OptionTable.spec(long: name) else {
                    // `--no-OPTION` (HTTPie's): OPTION's values so far, and the defaults', are
                    // dropped. An option named `no-…` itself (`--no-cache`) is taken first.
                    if name.hasPrefix("no-"), let cancelled = OptionTable.spec(long: String(name.dropFirst(3))),
                       !ParsedArguments.notResettable.contains(cancelled.option) {
                        if let inline {
                            // The value as the option's own would be shown (`--no-auth=u:pw` masks pw).
                            throw .usage("option --\(name) takes no value (got '--\(name)=\(cancelled.option.shown(inline))')",
                                         hint: "--\(name) drops --\(cancelled.name)'s values, the config file's included")
                        }
                        result.options[cancelled.option] = nil
                        result.resets.insert(cancelled.option)
                        continue
                    }
                    throw unknown("--" + name)
                }
                switch spec.argument {
                case .none:
                    if let inline {
                        throw .usage("option --\(spec.name) takes no value (got '--\(spec.name)=\(spec.option.shown(inline))')",
                                     hint: spec.option == .json ? "give the fields as items after the URL (name=text, name:=1), or the whole body as @file or on stdin" : nil)
                    }
                    try record(spec, nil)
                case .optional:
                    // `--timing json` as well as `--timing=json`: the next word is taken only when
                    // it is one of the option's words, so a URL (or a batch's file, a REPL path)
                    // after the flag stays what it is.
                    if inline == nil, i < arguments.count, spec.choices.contains(arguments[i]) {
                        try record(spec, arguments[i])
                        i += 1
                    } else {
                        try record(spec, inline)
                    }
                case .required(let metavar):
                    if let v = inline {
                        try record(spec, v)
                    } else if i < arguments.count {
                        try record(spec, arguments[i])
                        i += 1
                    } else {
                        throw .usage("option --\(spec.name) needs a value (\(metavar))")
                    }
                }
                continue
            }
            // `-follow` meant as `--follow` reads as the cluster `-f -o llow`, which writes the
            // body to a file named `llow` (curl and HTTPie read it so too); `-all` as `-a ll`
            // sends credentials. A word whose letters after its one dash spell a long option is
            // refused, not read as a cluster.
            // Also one a letter or the end of a name away, when its first letter is a flag
            // (`-folow`, `-foll`, `-Follow`: `-f -o low`, `-f -o ll`, `-F -o llow`); after a
            // letter that takes a value, what follows is that value (`-ojson` saves to `json`).
            let spelled = String(arg.dropFirst().prefix { $0 != "=" })
            let firstIsFlag = arg.dropFirst().first.flatMap { OptionTable.spec(short: $0) }.map { spec in
                if case .required = spec.argument { return false } else { return true }
            } ?? false
            if spelled.count > 1, let meant = ArgumentParser.longOptionSpelled(spelled, nearMisses: firstIsFlag) {
                throw .usage("'\(TerminalSanitizer.excerpt(arg, limit: 100))' is not an option: a long option takes two dashes",
                             hint: "did you mean '\(meant)'?")
            }
            // A cluster of short options: -hv, -pHh, -o file.
            var rest = Substring(arg.dropFirst())
            while let c = rest.first {
                rest = rest.dropFirst()
                guard let spec = OptionTable.spec(short: c) else {
                    throw unknown("-" + String(c))
                }
                switch spec.argument {
                case .none, .optional:
                    try record(spec, nil)
                case .required(let metavar):
                    if !rest.isEmpty {
                        try record(spec, String(rest.hasPrefix("=") ? rest.dropFirst() : rest), short: true)
                        rest = ""
                    } else if i < arguments.count {
                        try record(spec, arguments[i], short: true)
                        i += 1
                    } else {
                        throw .usage("option -\(c) (--\(spec.name)) needs a value (\(metavar))")
                    }
                }
            }
        }
        return result
    }

    /// What takes the place of curl's --max-time.
    static let noDeadline = "swurl has no limit on the whole transfer: --timeout SECONDS ends it after SECONDS without data, --connect-timeout limits connecting; for a deadline use timeout(1): timeout 5 swurl URL"

    /// curl's options that swurl spells differently: the hint says swurl's grammar instead of
    /// guessing at a similar-looking option.
    static let curlGrammar: [String: String] = [
        "-X": "the method is the first word: swurl POST URL (upper or lower case)",
        "--request": "the method is the first word: swurl POST URL (upper or lower case)",
        "-H": "headers are request items after the URL: swurl URL 'Name:value'",
        "--header": "headers are request items after the URL: swurl URL 'Name:value'",
        "--data": "data are request items after the URL: name=value, name:=json; or --raw TEXT, or @file",
        "--data-raw": "send a literal body with --raw TEXT",
        "--data-binary": "send a file as the body with the item @file (@- for stdin)",
        "--data-urlencode": "form fields are request items with --form: swurl -f URL name=value",
        "--user": "credentials: -a USER[:PASS]",
        "-u": "credentials: -a USER[:PASS]",
        "-i": "response headers: -h prints them alone, -p hb with the body (both are shown on a terminal)",
        "--include": "response headers: -h prints them alone, -p hb with the body (both are shown on a terminal)",
        "--location": "follow redirects with --follow (-F or -L)",
        "-x": "a proxy is --proxy URL",
        "-m": "HTTPie's -m (--meta) is -p m here; curl's -m (--max-time): " + noDeadline,
        "--url": "the URL is a word of its own, after the method: swurl [METHOD] URL [REQUEST_ITEM ...]",
        "--response-mime": "how to show the body whatever its Content-Type: --decode json|xml|plist|image|text|raw",
        "--response-charset": "the body's charset is read from its Content-Type; --decode text shows it converted on a terminal, --decode raw as received",
        "--format-options": "formatting: --pretty all|colors|format|none, --sort-keys, --style STYLE",
        "--max-time": noDeadline,
        "--compressed": "swurl asks for compressed bodies and decodes them without being told",
        "--silent": "no progress bar or summaries: -q (--quiet)",
        "--cookie": "cookies are the header item 'Cookie:name=value', or kept by a --session",
        "--fail": "exit statuses for 4xx and 5xx responses: --check-status (it still prints or saves the error page; -d --overwrite -o FILE leaves FILE as it was)",
        "--fail-with-body": "exit statuses for 4xx and 5xx responses, the body still shown: --check-status",
        "--head": "the method is the first word: swurl HEAD URL",
        "-D": "response headers: -h prints them (-p hb with the body); --har FILE keeps them",
        "--dump-header": "response headers: -h prints them (-p hb with the body); --har FILE keeps them",
        "--oauth2-bearer": "a bearer token: -A bearer -a TOKEN",
        "--form-string": "form fields are request items with --form (or --multipart): swurl -f URL name=value",
        "--connect-to": "send a host's requests to another address: --resolve HOST:PORT:ADDRESS",
        "--noproxy": "no proxy for this request: --proxy '' (an empty value)",
        "-N": "-S (--stream) shows every chunk as it arrives (without it, the start of a JSON or XML body is held back to check it)",
        "--no-buffer": "-S (--stream) shows every chunk as it arrives (without it, the start of a JSON or XML body is held back to check it)",
        "-E": "a client certificate is --cert FILE (--key FILE for its key)",
        "--cookie-jar": "cookies are kept by a --session NAME (or PATH)",
        "-O": "save the body under the URL's name: -d URL",
        "--remote-name": "save the body under the URL's name: -d URL",
        "-C": "resume a download: -d -c URL",
        "--continue-at": "resume a download: -d -c URL",
        "-T": "upload a file as the body: swurl PUT URL @file",
        "--upload-file": "upload a file as the body: swurl PUT URL @file",
        "-w": "timings: --timing (or --timing=json); a batch's results: --jsonl",
        "--write-out": "timings: --timing (or --timing=json); a batch's results: --jsonl",
        "-G": "query parameters are request items: swurl URL name==value",
        "--get": "query parameters are request items: swurl URL name==value",
        "-e": "a referrer is the header item 'Referer:URL'",
        "--referer": "a referrer is the header item 'Referer:URL'",
        "--user-agent": "the header item 'User-Agent:NAME'",
        "--verify": "do not check the certificate: -k (--insecure); trust a CA: --cacert FILE",
        "--cert-key": "the client key is --key FILE",
        "--meta": "HTTPie's --meta is -p m here (the timing after the response; --timing puts it on stderr)",
        "--sorted": "sorted JSON keys: --sort-keys (headers are shown as they came, never sorted)",
        "--unsorted": "swurl sorts nothing unless --sort-keys is given: JSON keys and headers stay as they came",
        "-P": "HTTPie's -P (--history-print) is --all here: with -F every hop is shown, by the same -p letters",
        "--history-print": "HTTPie's --history-print is --all here: with -F every hop is shown, by the same -p letters",
    ]

    /// The long option a word after one dash spells (`follow`, `no-cache`, in any case), or
    /// with `nearMisses` is one edit or the end of a name away from (`folow`, `foll`), as `--NAME`.
    static func longOptionSpelled(_ spelled: String, nearMisses: Bool) -> String? {
        let word = spelled.lowercased()
        if OptionTable.spec(long: word) != nil || (word.hasPrefix("no-") && OptionTable.spec(long: String(word.dropFirst(3))) != nil) {
            return "--" + word
        }
        guard nearMisses, word.count >= 4, word.utf8.count <= 64 else { return nil }
        return guess("--" + word, maxDistance: 1)
    }

    /// The option an unknown `--WORD` was probably meant to be, as `--NAME`: the option a
    /// prefix starts, or the closest by edit distance (up to a third of the word, or `maxDistance`).
    private static func guess(_ given: String, maxDistance: Int = .max) -> String? {
        let longs = OptionTable.documented.flatMap { spec in ([spec.name] + spec.aliases).map { "--" + $0 } }
        func closest(_ word: String) -> String? {
            let best = longs.min { editDistance(word, $0) < editDistance(word, $1) }
            guard let best, editDistance(word, best) <= min(maxDistance, max(1, (word.count - 2) / 3)) else { return nil }
            return best
        }
        // The start of an option's name (`--foll`, `--sess`: the shortest it starts, when the
        // others begin with that one): HTTPie takes such abbreviations, swurl names the option
        // (a later option could make an abbreviation mean another).
        let started = longs.filter { $0.hasPrefix(given) }
        if given.count >= 4, let shortest = started.min(by: { $0.count < $1.count }), started.allSatisfy({ $0.hasPrefix(shortest) }) {
            return shortest
        }
        if let best = closest(given) { return best }
        if given.hasPrefix("--no-"), let best = guess("--" + given.dropFirst(5), maxDistance: maxDistance),
           let spec = OptionTable.spec(long: String(best.dropFirst(2))), !ParsedArguments.notResettable.contains(spec.option) {
            // A misspelt --no-OPTION: the option it would cancel.
            return "--no-" + best.dropFirst(2)
        }
        return nil
    }

    /// The option an unknown `--WORD` was meant to be, as its error's hint names it (nil: none).
    static func meantOption(_ given: String) -> String? {
        guard given.hasPrefix("--"), given.utf8.count <= 64 else { return nil }
        return guess(given.lowercased())
    }

    private static func unknown(_ given: String) -> SwurlError {
        // Shown cut (a 1 MB word is no option), and guessed at only when it is short enough to be
        // a misspelt one: the distance grows with the length, and so did the time (20 s of CPU
        // for a 1 MB batch line).
        let option = TerminalSanitizer.excerpt(given, limit: 100)
        if let grammar = curlGrammar[given] {
            return .usage("unknown option '\(option)'", hint: grammar)
        }
        // No guess for a short option: every letter is one edit from every other.
        guard let meant = meantOption(given) else {
            return .usage("unknown option '\(option)'", hint: "see 'swurl --help' for the list of options")
        }
        return .usage("unknown option '\(option)'", hint: "did you mean '\(meant)'?")
    }

    /// Edit distance between two strings, by characters: insertions, deletions, substitutions
    /// and swaps of two neighbours (`--jsno`), one each (optimal string alignment).
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)
        var prev = Array(0...b.count)
        var cur = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            cur[0] = i
            for j in 1...b.count {
                cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { cur[j] = min(cur[j], before[j - 2] + 1) }
            }
            (before, prev, cur) = (prev, cur, before)
        }
        return prev[b.count]
    }
}
