import SwurlOutput
import SwurlEngine
import SwurlResponseSerialization
import SwurlCore
/// `--pretty`: what to do to the output.
package enum PrettyMode: String, CaseIterable, Sendable {
    case all, colors, format, none
}

/// `--timing`: how the timing breakdown is printed.
package enum TimingFormat: String, CaseIterable, Sendable {
    case text, json
}

/// The typed, validated form of the command line.
package struct CommandOptions {
    /// How data items become a body.
    package enum BodyFormat: Equatable, Sendable {
        case json, form, multipart, plist(binary: Bool)
    }

    package var method: String?
    package var url: String
    package var items: [RequestItem] = []
    package var bodyFormat: BodyFormat = .json
    package var explicitJSON = false
    package var boundary: String?
    package var rawBody: String?
    package var chunked = false
    package var ignoreStdin = false
    package var selection: PrintSelection?
    package var verbose = false
    /// `-vv`: `-v` with `m`.
    package var verboseMeta = false
    /// `--pretty`; nil means by the sink (all on a terminal, none otherwise).
    package var pretty: PrettyMode?
    package var outputPath: String?
    package var offline = false
    package var checkStatus = false
    /// `--decode`, `--sort-keys`, `--drop-nulls`, `--stream`, `--plist-as`.
    package var decoding = DecodingOptions()
    /// `--check-status`, `--accept-status`, `--accept-type`.
    package var validator = ResponseValidator()
    /// `--style`.
    package var style: ThemeStyle = .auto
    package var transfer = TransferOptions()
    package var defaultScheme = "http"
    /// `--path-as-is`: dot segments stay in the URL's path.
    package var pathAsIs = false
    /// `--download`, `--continue`, `--overwrite`, `--quiet`, `--all`, `--timing`, `--auth`
    /// (see TransferArguments.swift).
    package var download = false
    package var resume = false
    package var overwrite = false
    package var quiet = false
    package var showAllHops = false
    /// `--timing[=text|json]`.
    package var timing: TimingFormat?
    /// `--har FILE` (as given), `--har-bodies`, `--har-secrets`.
    package var har: (path: String, settings: HARLog.Settings)?
    /// `--auth USER[:PASS]` as typed; the password may still have to be asked for.
    package var authUser: String?
    package var authPassword: String?
    /// `--wait-for-network[=SECONDS]`: how long to wait for the target to become reachable.
    package var waitForNetwork: Double?
    /// `--session` and `--session-read-only` as given (a name or a path).
    package var session: String?
    package var sessionReadOnly: String?
    /// `--curl`: print the curl command instead of sending.
    package var curl = false
    /// Whether `swurl -d -c [-o NAME] URL` repeats this request (no items, and no option but
    /// those the resume hint writes or that change nothing on the wire): else the hint says to
    /// run the same command with `--continue`, instead of printing one without a pin or header.
    package var shortResumeRepeats = true

    /// Validates option values and splits the positionals into method, URL and items.
    /// - Throws: `SwurlError.usage` for a missing URL or a bad value, and the item parser's errors.
    package init(_ args: ParsedArguments, environment: Environment) throws(SwurlError) {
        url = ""
        explicitJSON = args.has(.json)   // (for the words' messages; parseOptions sets it again)
        if args.positionals.isEmpty { throw CommandOptions.noURL(args) }
        try takePositionals(args.positionals, environment: environment)
        try parseOptions(args, environment: environment)
        // Only a download prints the hint: other requests (every batch line) skip the look.
        if args.has(.download) {
            shortResumeRepeats = items.isEmpty && args.options.keys.allSatisfy { CommandOptions.resumeHarmless.contains($0) }
        }
    }

    /// Options that change what is shown or how long it waits, not what is asked for (a config
    /// file's count too: it applies to the printed command as well, but is not told apart).
    /// (Not --max-filesize: a resume printed without it would download past the limit.)
    private static let resumeHarmless: Set<Option> = [
        .download, .continue, .output, .quiet, .overwrite, .verbose, .print, .headers, .body, .timing, .noConfig, .pretty,
        .style, .sortKeys, .stream, .checkStatus, .timeout, .connectTimeout, .retry, .retryDelay, .retryMaxTime,
        .limitRate, .ignoreStdin,
    ]

    /// No URL among the words: said with what likely took its place (an option that took the
    /// URL as its value, `-h` meant as curl's help, `download` meant as a command).
    static func noURL(_ args: ParsedArguments) -> SwurlError {
        let usage = "usage: swurl [METHOD] URL [REQUEST_ITEM ...] [OPTIONS]; see 'swurl --help'"
        for spec in OptionTable.all {
            // An option whose value is a URL (`--proxy`) took none by mistake.
            if case .required(let metavar) = spec.argument, metavar.hasPrefix("URL") { continue }
            guard let value = args.options[spec.option]?.compactMap({ $0 }).first(where: { CommandOptions.looksLikeURL($0) }) else { continue }
            return .usage("no URL given: --\(spec.name) took '\(Redactor.givenURL(value))' as its value",
                          hint: "give --\(spec.name) its own value before the URL; " + usage)
        }
        if args.has(.headers) {
            return .usage("no URL given", hint: "-h is --headers here (print the response headers); help is --help. " + usage)
        }
        return .usage("no URL given", hint: usage)
    }

    /// Method, URL and request items from the positionals.
    /// - Throws: `SwurlError.usage` for a missing URL, and the item parser's errors.
    mutating func takePositionals(_ words: [String], environment: Environment) throws(SwurlError) {
        var positionals = words[...]
        guard let first = positionals.first else {
            throw .usage("no URL given", hint: "usage: swurl [METHOD] URL [REQUEST_ITEM ...] [OPTIONS]; see 'swurl --help'")
        }
        if CommandOptions.looksLikeMethod(first, urlFollows: positionals.count > 1) {
            method = first.asciiUppercased
            positionals = positionals.dropFirst()
            guard positionals.first != nil else {
                throw .usage("the method \(first) needs a URL after it", hint: "e.g. swurl \(first) example.org/path")
            }
        }
        let word = positionals.first ?? ""
        if positionals.count == 1, word == "download" {
            // The man page's COMMANDS name it, but no word selects it (with a URL after it, below).
            throw .usage("'download' is no command word: a download is swurl -d URL", hint: "e.g. swurl -d https://example.org/file.zip")
        }
        try CommandOptions.checkURLWord(word, afterJSON: explicitJSON)
        // Spaces, non-ASCII and bytes that are not UTF-8 in the path and query are
        // percent-encoded here, once, so --offline shows what is sent.
        url = URLText.percentEncodingUnsafeBytes(word)
        let parser = RequestItemParser(environment: environment)
        let lowerWord = method == nil && CommandOptions.isLowerCaseWord(url)
        for raw in positionals.dropFirst() {
            if CommandOptions.looksLikeURL(raw, amongItems: true) || lowerWord && CommandOptions.isBareHostPort(raw) {
                try HTTPMethod.refuseLookAlike(url) { "swurl \($0) \(Redactor.givenURL(raw))" }
                // `swurl purge URL`: a method in lower case is read as one only when it is a known one.
                if url == "download" || url == "request" {
                    // The man page's COMMANDS name them, but no word selects them.
                    throw .usage("'\(url)' is no command word: a \(url) is \(url == "download" ? "swurl -d URL" : "swurl URL")",
                                 hint: url == "download" ? "swurl -d \(Redactor.givenURL(raw)) saves the body to a file" : "swurl \(Redactor.givenURL(raw))")
                }
                if lowerWord { throw CommandOptions.lowerCaseWordError(raw, word: url) }
                throw .usage("'\(Redactor.givenURL(raw))' looks like a URL, but the URL was '\(Redactor.givenURL(url))'",
                             hint: "the order is swurl [METHOD] URL [REQUEST_ITEM ...]; a word before it was taken as the URL (swurl's -d is --download, -F --follow, -b --body; curl's data, form fields and cookies are items like name=value, file@path, 'Cookie:a=1')")
            }
            do {
                items.append(try parser.parse(raw))
            } catch {
                // A whole JSON document as one word is no item (its `"a":1` reads as a header).
                if CommandOptions.looksLikeJSONDocument(raw) { throw CommandOptions.jsonWordError(raw, place: "is not a request item", afterJSON: explicitJSON) }
                throw error
            }
        }
    }

    /// A JSON object or array typed as one word (`{"a":1}`, `[{"a":1}]`, `["x"]`): what a curl
    /// user passes to `--json`. Not `[]:=1` or `[0]=x` (nested-key items) or `[::1]` (a host).
    static func looksLikeJSONDocument(_ word: String) -> Bool {
        func blank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
        let bytes = word.utf8.filter { !blank($0) }
        guard let first = bytes.first, let last = bytes.last else { return false }
        if first == UInt8(ascii: "{") { return last == UInt8(ascii: "}") }
        guard first == UInt8(ascii: "["), bytes.count > 1, last == UInt8(ascii: "]") else { return false }
        return "{[\"".utf8.contains(bytes[1])
    }

    /// The error for a JSON document given as a word: swurl's `--json` takes no value, and the
    /// body is built from items or read from a file or stdin.
    static func jsonWordError(_ word: String, place: String, afterJSON: Bool) -> SwurlError {
        // "--json takes no value" only to someone who typed --json before it (`-d '{…}'` is
        // curl's --data, and a lone document after the URL no option's value).
        .usage("'\(TerminalSanitizer.excerpt(word))' \(place): it looks like a JSON body",
               hint: (afterJSON ? "--json takes no value: " : "") + "give the fields as items after the URL (name=text, name:=1, name:='[1,2]'), or the whole body as @file, on stdin or as --raw TEXT")
    }

    /// Everything but the positionals (after `takePositionals`: a few rules look at the items).
    private mutating func parseOptions(_ args: ParsedArguments, environment: Environment) throws(SwurlError) {
        let formats = [Option.json, .form, .multipart, .plist].filter { args.has($0) }.map(\.rawValue)
        if formats.count > 1 {
            throw .usage("--\(formats[0]) and --\(formats[1]) cannot be combined", hint: "choose one body format")
        }
        explicitJSON = args.has(.json)
        if args.has(.form) { bodyFormat = CommandOptions.formFormat(items) }
        if args.has(.multipart) { bodyFormat = .multipart }
        if args.has(.plist) { bodyFormat = .plist(binary: args.value(.plist) == "binary") }
        boundary = args.value(.boundary)
        if let b = boundary {
            guard !b.isEmpty, b.count <= 70, b.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "'()+_,-./:=?".contains($0)) }) else {
                throw .usage("invalid --boundary '\(b)'", hint: "use 1 to 70 letters, digits or '()+_,-./:=? (RFC 2046)")
            }
        }
        rawBody = args.value(.raw)
        chunked = args.has(.chunked)
        ignoreStdin = args.has(.ignoreStdin)
        try checkRawAgainstItems()
        if let letters = args.value(.print) { selection = try PrintSelection(letters: letters) }
        verbose = args.has(.verbose)
        // -vv (HTTPie's): -v and the timing after the response (`m`).
        verboseMeta = (args.options[.verbose]?.count ?? 0) >= 2
        if args.has(.headers) || args.has(.body) {
            if selection == nil { selection = PrintSelection() }
            if args.has(.headers) { selection?.responseHeaders = true }
            if args.has(.body) { selection?.responseBody = true }
        }
        pretty = args.value(.pretty).flatMap(PrettyMode.init(rawValue:))
        outputPath = args.value(.output)
        if outputPath?.isEmpty == true { throw .usage("--output needs a file name") }
        if outputPath == "-" {
            // `-o -` is stdout, as in curl.
            if args.has(.download) { throw .usage("--download saves to a file; '-o -' (stdout) needs no -d") }
            outputPath = nil
        }
        // With --form a boundary waits for a file field (which makes the body multipart), as a
        // default's does: the config's `--boundary` refused every -f request without one.
        if boundary != nil, bodyFormat != .multipart, !args.has(.form) {
            throw .usage("--boundary applies to multipart bodies only", hint: "add --multipart, or --form with a file field")
        }
        offline = args.has(.offline)
        har = try CommandOptions.har(args)
        checkStatus = args.has(.checkStatus)
        validator.checkStatus = checkStatus
        if let v = args.value(.acceptStatus) { validator.acceptableStatus = try ResponseValidator.parseStatusList(v) }
        if let v = args.value(.acceptType) { validator.acceptableTypes = try ResponseValidator.parseTypeList(v) }
        if let v = args.value(.decode) { decoding.choice = DecoderChoice(rawValue: v) ?? .auto }
        decoding.sortKeys = args.has(.sortKeys)
        decoding.dropNulls = args.has(.dropNulls)
        decoding.stream = args.has(.stream)
        decoding.plistAsJSON = args.value(.plistAs) == "json"
        if let v = args.value(.style) { style = ThemeStyle(rawValue: v) ?? .auto }
        transfer.followRedirects = args.has(.follow)
        if let v = args.value(.maxRedirects) {
            guard let n = Int(v), n >= 0 else {
                throw .usage("--max-redirects: '\(v)' is not a whole number", hint: "e.g. --max-redirects 5")
            }
            transfer.maxRedirects = n
        }
        if let v = args.value(.timeout) { transfer.timeout = try CommandOptions.seconds(v, "timeout") }
        if let s = args.value(.defaultScheme) { defaultScheme = s }
        pathAsIs = args.has(.pathAsIs)
        if args.has(.waitForNetwork) {
            waitForNetwork = try args.value(.waitForNetwork).map { v throws(SwurlError) in try CommandOptions.seconds(v, "wait-for-network") } ?? 60
        }
        transfer.security = try SecurityArguments.policy(from: args, environment: environment)
        try parseTransferArguments(args, environment: environment)
        transfer.cache = try CommandOptions.cacheSettings(args, environment: environment)
        curl = args.has(.curl)
        if download && method == "HEAD" {
            throw .usage("--download saves a response body, and a HEAD request gets none", hint: "swurl HEAD URL shows the response headers")
        }
        if curl && (offline || download) {
            throw .usage("--curl cannot be combined with --\(offline ? "offline" : "download")", hint: "--curl prints the request as a curl command")
        }
        session = args.value(.session)
        sessionReadOnly = args.value(.sessionReadOnly)
        if session != nil && sessionReadOnly != nil {
            throw .usage("--session and --session-read-only cannot be combined", hint: "use one of them")
        }
        // -v shows every hop of a followed chain, as HTTPie's -v and curl's -v do: the first
        // request beside the last response read as if that request got that answer. So does
        // any selection that shows the request (`-p Hh`, `-p HBhb`, which -v stands for). (A
        // download shows the request and the final head on stderr: --all is not its.)
        let showsRequest = selection.map { $0.requestHeaders || $0.requestBody } ?? false
        if (verbose || showsRequest) && transfer.followRedirects && !download { showAllHops = true }
        if showAllHops && !transfer.followRedirects {
            throw .usage("--all shows the responses of followed redirects", hint: "add -F to follow them")
        }
    }

    /// The options alone, for many requests that share them (a batch's defaults): each
    /// request's copy then takes its positionals with `with(positionals:form:environment:)`.
    /// - Throws: as `init`, for the options.
    init(optionsOnly args: ParsedArguments, environment: Environment) throws(SwurlError) {
        url = ""
        try parseOptions(args, environment: environment)
    }

    /// These options (from `init(optionsOnly:)`) for a request with `words` as its positionals:
    /// what `init` makes of the same options and those positionals. `form` is whether the
    /// options hold `--form`; without `--boundary` (which `init(optionsOnly:)` refuses with
    /// `--form`) the items can change only the body format and the `--raw` rule.
    func with(positionals words: [String], form: Bool, environment: Environment) throws(SwurlError) -> CommandOptions {
        var o = self
        try o.takePositionals(words, environment: environment)
        if form { o.bodyFormat = CommandOptions.formFormat(o.items) }
        try o.checkRawAgainstItems()
        return o
    }

    /// `--form` sends multipart when a file field is among the items, else urlencoded.
    private static func formFormat(_ items: [RequestItem]) -> BodyFormat {
        let hasFile = items.contains { if case .file(let k, _, _, _) = $0.kind { return !k.isEmpty } else { return false } }
        return hasFile ? .multipart : .form
    }

    private func checkRawAgainstItems() throws(SwurlError) {
        if rawBody != nil, let item = items.first(where: \.isData) {
            throw .usage("--raw cannot be combined with data items (got '\(item.raw)')", hint: "send either --raw TEXT or field items")
        }
    }

    /// A lower-case word in the URL's place (`swurl propfind localhost:8080`): a bare
    /// `host:PORT` after it is the URL too, not a header named after the host (with -a, the
    /// credentials went to a host named `propfind`); so is it in a REPL line, where the word
    /// would be a path under the base. Not `localhost`, a host (`swurl localhost X.Version:3`
    /// sends the header).
    static func isLowerCaseWord(_ word: String) -> Bool {
        (1...24).contains(word.utf8.count) && word != "localhost" && word.utf8.allSatisfy { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") }
    }

    /// `host:PORT` alone whose host is surely one: `localhost`, an IPv4 address or a bracketed
    /// IPv6 one (a dotted name with a number, `Api.Key:123`, may be a header).
    static func isBareHostPort(_ word: String) -> Bool {
        guard URLText.isHostPort(word), !word.utf8.contains(where: { "/?#".utf8.contains($0) }),
              let colon = word.lastIndex(of: ":") else { return false }
        let host = word[..<colon]
        if host.lowercased() == "localhost" || host.hasPrefix("[") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { p in (1...3).contains(p.count) && p.allSatisfy(\.isASCII) && Int(p).map { $0 <= 255 } == true }
    }

    /// The error for `raw`, a URL after `word`, a lower-case word taken for the URL (or a path).
    static func lowerCaseWordError(_ raw: String, word: String) -> SwurlError {
        .usage("'\(Redactor.givenURL(raw))' looks like a URL, but the URL was '\(word)'",
               hint: "a method is read in lower case only when it is one of " + HTTPMethod.known.map(\.rawValue).joined(separator: ", ")
                   + "; write another in capitals: swurl \(word.asciiUppercased) URL")
    }

    /// `http://…`, `https://…`, the `:PORT/path` shorthand or `host:PORT[/path]`: not a request item.
    /// - Parameter amongItems: a word after the URL: `host:PORT` there needs a path, query or
    ///   fragment after it (`Api.Key:123` is a header, as HTTPie reads it).
    static func looksLikeURL(_ word: String, amongItems: Bool = false) -> Bool {
        if word.hasPrefix("http://") || word.hasPrefix("https://") { return true }
        if word.hasPrefix(":") {
            guard let second = word.dropFirst().first else { return false }
            return second.isNumber || second == "/"
        }
        // `host:PORT[/path]` where the host has a dot or is localhost (`URLText.isHostPort`, as the
        // REPL reads a target): no header looks like that (`X-Count:5`, `X-Date:2024/01/01`).
        guard URLText.isHostPort(word) else { return false }
        return !amongItems || word.utf8.contains { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
    }

    /// Refuses a word in the URL's place that is no URL: a body file (`@file`, curl's `-d @file`
    /// habit), a JSON document, a path or a bare number without a host, a request item. The
    /// one-shot request's rule, and the REPL's for its base.
    static func checkURLWord(_ word: String, afterJSON: Bool = false) throws(SwurlError) {
        // curl habits: `-d @file URL` (swurl's -d is --download) and `--json '{…}' URL` (swurl's
        // --json takes no value) leave a body where the URL goes; no URL starts with either.
        if word.hasPrefix("@") {
            throw .usage("'\(TerminalSanitizer.clean(word))' is not a URL: a body file is the item \(TerminalSanitizer.clean(word)) after the URL",
                         hint: "e.g. swurl POST URL \(TerminalSanitizer.clean(word)) (swurl's -d is --download, not curl's --data)")
        }
        if CommandOptions.looksLikeJSONDocument(word) {
            throw CommandOptions.jsonWordError(word, place: "is not a URL", afterJSON: afterJSON)
        }
        // A path or a bare number has no host (`/tmp/c` went to the host `tmp`, `5` to 0.0.0.5):
        // most likely the value of an option before it that takes one only after `=`.
        if CommandOptions.isHostless(word) {
            throw .usage("'\(TerminalSanitizer.clean(word))' is not a URL: it has no host",
                         hint: "a local server's path is :PORT/path or localhost/path; --cache and --wait-for-network take a value only after '=' (--cache=DIR)")
        }
        if CommandOptions.looksLikeItemNotURL(word) {
            throw .usage("'\(TerminalSanitizer.clean(Redactor.item(word)))' is not a URL: it reads as a request item (name=value), which goes after the URL",
                         hint: "the order is swurl [METHOD] URL [REQUEST_ITEM ...]; curl's -F and -d are items here: swurl POST URL name=value file@path")
        }
        try URLBuilder.refuseBackslashInAuthority(word, given: word)
    }

    /// A file path (`/x`, `./x`, `../x`, `~/x`; not `//host/x`) or a bare whole number below
    /// 2^24, which as an IPv4 address would be in 0.0.0.0/8, where nothing answers (`127.1` and
    /// `2130706433`, 127.0.0.1 written short, stay hosts).
    static func isHostless(_ word: String) -> Bool {
        // Decided on the first bytes: every batch line's URL passes here.
        let bytes = word.utf8
        guard let first = bytes.first else { return false }
        switch first {
        case UInt8(ascii: "/"): return !word.hasPrefix("//")
        case UInt8(ascii: "."), UInt8(ascii: "~"):
            return ["./", "../", "~/"].contains(where: { word.hasPrefix($0) }) || word == "." || word == ".." || word == "~"
        case UInt8(ascii: "0")...UInt8(ascii: "9"):
            guard bytes.count <= 8, bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let n = Int(word) else { return false }
            return n < 1 << 24
        default: return false
        }
    }

    /// A URL word that reads as a request item, `name=value@…` without a scheme (curl's
    /// `-F name=@file` or `-d email=a@b` before the URL): its user name would be `name=…`.
    static func looksLikeItemNotURL(_ word: String) -> Bool {
        // Only where a URL's authority would be: before any `/`, `?` or `#` (a query may hold
        // `email=a@b.com`), with no `:` before the `=` (`user:pa=ss@host` is a password), nor a
        // scheme's `:`. On bytes: every batch line's URL passes here.
        var word = word
        return word.withUTF8 { CommandOptions.itemBeforeAt($0) }
    }

    /// `looksLikeItemNotURL` on the word's bytes.
    private static func itemBeforeAt(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var firstEquals = false, itemName = false, sawColon = false, length = 0
        for b in bytes {
            switch b {
            case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"): return false
            case UInt8(ascii: ":"): if !firstEquals { sawColon = true }
            case UInt8(ascii: "="):
                if !firstEquals {
                    firstEquals = true
                    itemName = length > 0 && !sawColon
                }
            case UInt8(ascii: "@"): return itemName
            default: break
            }
            length += 1
        }
        return false
    }

    /// Whether a word is a method: all capital letters (HTTPie accepts any such word), or a
    /// known method in any case when a URL follows (`swurl post URL`; a lone `swurl head` is a host).
    static func looksLikeMethod(_ word: String, urlFollows: Bool = true) -> Bool {
        // Neither rule takes a word with an ASCII byte other than a letter, `-` or `_` (a URL
        // has `:`, `/` or `.`): decided by bytes, before uppercasing and counting Characters.
        for b in word.utf8 where b < 0x80 {
            guard (b | 0x20 >= UInt8(ascii: "a") && b | 0x20 <= UInt8(ascii: "z")) || b == UInt8(ascii: "-") || b == UInt8(ascii: "_")
            else { return false }
        }
        if urlFollows && HTTPMethod(word).isKnown { return true }
        return !word.isEmpty && word.count <= 32 && word.allSatisfy { $0.isASCII && $0.isUppercase || $0 == "-" || $0 == "_" }
            && word.first?.isLetter == true
    }

    /// Defaults whose values or combination no request could take (`--timeout abc`,
    /// `--download` with `--offline`, a missing `--cacert` file) are refused when they are set
    /// (a REPL's start and `set`, a batch's options, before any line runs): kept, they would
    /// fail every later line. Options that need a partner a line may bring
    /// (`OptionTable.qualifiers`: `--all` and `-F`, `--continue` and `-d`, `--pin-scope` and a
    /// pin, `-A` and `-a`) are not judged alone, and a client key is checked when a line uses it
    /// (its password is asked for then). `context` names the defaults in the refusal of an item
    /// that reads stdin.
    static func checkDefaults(_ options: ParsedArguments, items: [String], context: String, environment: Environment) throws(SwurlError) {
        var checked = options
        // The client files are judged without the key's password (asked when a line needs it).
        try SecurityArguments.checkClientFiles(options, environment: environment)
        // A session is opened per line, where a name that is none failed every one.
        for option in [Option.session, .sessionReadOnly] {
            if let value = options.value(option) { try SessionStore.checkName(value, option: "--" + option.rawValue) }
        }
        for o in [Option.key, .cert] + OptionTable.qualifiers.keys {
            checked.options[o] = nil
        }
        // The netrc is not judged (it never fails a request), so its warnings are said once, by the requests.
        checked.options[.ignoreNetrc] = [nil]
        // With the default items too: `--raw` beside a default data item fails every line, and
        // so does an item that reads stdin (`f@-`), or an option's file (`--cacert /dev/stdin`).
        try CommandOptions.refuseStdinFiles(options, context)
        try CommandOptions.refuseStdinWords(items, context)
        try CommandOptions(optionsOnly: checked, environment: environment)
            .with(positionals: ["http://localhost/"] + items, form: checked.has(.form), environment: environment)
            .refuseStdinItems(context)
    }

    /// `refuseStdinItems` for the items that read their file as they are parsed
    /// (`a=@/dev/stdin`), before they are: refused after, the item had taken the rest of the
    /// input (the lines after it, their tokens too) and they were gone.
    /// - Throws: `SwurlError.usage` naming the item and `context`.
    static func refuseStdinWords(_ words: [String], _ context: String) throws(SwurlError) {
        for word in words where RequestItemParser.readsAtParse(word).map(RequestItem.namesStdin) == true {
            throw CommandOptions.stdinRefusal(Redactor.item(word), context)
        }
    }

    /// Where stdin carries the command's own input (batch lines, a REPL's script), an `@-` or
    /// `name@-` item cannot read a body from it.
    /// - Throws: `SwurlError.usage` naming the item and `context`.
    func refuseStdinItems(_ context: String) throws(SwurlError) {
        // (After `refuseStdinWords`: for `@-`, `name@-`, read only when sent.)
        for item in items {
            if item.readsStdin { throw CommandOptions.stdinRefusal(item.raw, context) }
        }
    }

    /// Where stdin carries the command's own input, no option may read a file from it either
    /// (`--cacert /dev/stdin` took the batch's next lines as its certificates: they were never
    /// run nor reported).
    /// - Throws: `SwurlError.usage` naming the option and `context`.
    static func refuseStdinFiles(_ args: ParsedArguments, _ context: String) throws(SwurlError) {
        for option in [Option.cacert, .cacertAdd, .pinCert, .pinPubkey, .cert, .key, .session, .sessionReadOnly] {
            for case let value? in args.options[option] ?? [] where RequestItem.namesStdin(value) {
                throw .usage("--\(option.rawValue) '\(TerminalSanitizer.clean(value))' reads stdin, which \(context) cannot (give the file itself)")
            }
        }
    }

    /// The refusal of an item that reads stdin where stdin is the command's input.
    static func stdinRefusal(_ raw: String, _ context: String) -> SwurlError {
        .usage("'\(TerminalSanitizer.clean(raw))' reads stdin, which \(context) cannot (send a file with @FILE or name@FILE)")
    }
}

extension CommandOptions {
    /// The file an output option (`--har`, `--report`, `--junit`) names: `-` is stdout, as in curl.
    static func outputFile(_ value: String) -> String { value == "-" ? "/dev/stdout" : value }

    /// The file an output option (`--har`, `--report`, `--junit`) names (`-`: stdout); nil
    /// without the option.
    /// - Throws: `SwurlError.usage` for an empty name.
    static func outputFile(_ args: ParsedArguments, _ option: Option) throws(SwurlError) -> String? {
        guard let value = args.value(option) else { return nil }
        guard !value.isEmpty else { throw .usage("--\(option.rawValue) needs a file name") }
        return outputFile(value)
    }

    /// `--har FILE` with `--har-bodies` and `--har-secrets`; nil without `--har`.
    /// - Throws: `SwurlError.usage` for an empty name, or `--har-bodies`/`--har-secrets` alone.
    static func har(_ args: ParsedArguments) throws(SwurlError) -> (path: String, settings: HARLog.Settings)? {
        guard let path = try outputFile(args, .har) else {
            for option in [Option.harBodies, .harSecrets] where args.has(option) {
                throw .usage("--\(option.rawValue) says what --har records", hint: "add --har FILE")
            }
            return nil
        }
        return (path, HARLog.Settings(bodies: args.has(.harBodies), secrets: args.has(.harSecrets),
                                      creatorVersion: BuildInfo.version))
    }
}
