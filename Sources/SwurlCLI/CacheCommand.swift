#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlCache
import SwurlOutput
import SwurlEngine
import SwurlCore

/// `swurl cache list [--json] | clear [URL-PREFIX] [--json] | prune [--cache-max SIZE] [--json]`
/// (each with `--cache=DIR`): shows and tidies the HTTP cache; sends no request.
enum CacheCommand: SwurlCommand {
    static let name = CommandName.cache
    static let word: String? = "cache"
    static let invocation = "swurl cache list"
    static let usage = "swurl cache list | clear [URL-PREFIX] | prune [--cache-max SIZE] [--json]"
    package static let summary = "list, clear or prune the HTTP cache (--cache)"
    /// The actions, offered by the completions after `swurl cache`.
    static let actions = [(word: "list", summary: "show the stored responses"),
                          (word: "clear", summary: "remove every entry, or those whose URL starts with a prefix"),
                          (word: "prune", summary: "remove stale or no-cache entries without validators, then down to --cache-max")]

    /// - Throws: `.usage` for a missing or unknown action, the store's errors.
    static func run(_ args: ParsedArguments, environment: Environment) throws(SwurlError) -> ExitStatus {
        guard let action = args.positionals.first else {
            throw .usage("swurl cache needs an action: list, clear or prune", hint: "e.g. swurl cache list")
        }
        let rest = Array(args.positionals.dropFirst())
        // `--cache DIR` (a space where `=` belongs) made DIR a prefix to clear, or an argument:
        // clear found nothing in the default cache and said so as a success. Only a word that
        // names a cache (a directory holding entries) is taken for one: a host's mirror
        // directory named like a prefix (`localhost`) is a prefix, as typed.
        if ["list", "clear", "prune"].contains(action), args.has(.cache), args.value(.cache) == nil, let word = rest.first, !word.isEmpty {
            var st = stat()
            if stat(ArgumentBytes.path(word), &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR,
               let named = try? CacheStore(directory: word, maxSize: CacheSettings(directory: word).maxSize, create: false), !named.list(lastUsed: false).isEmpty {
                throw .usage("'\(TerminalSanitizer.clean(word))' is a cache directory, not a URL prefix: name it with --cache=\(FileTrust.quoted(word))",
                             hint: "swurl cache \(action) --cache=\(FileTrust.quoted(word))")
            }
        }
        // `--cache=DIR` names the directory; `--cache-max` the bound prune evicts down to.
        var settings: CacheSettings
        if let given = try CommandOptions.cacheSettings(args, environment: environment) {
            settings = given
        } else {
            settings = CacheSettings(directory: try CommandOptions.defaultCacheDirectory(environment))
        }
        if let v = args.value(.cacheMax) {
            settings.maxSize = try CommandOptions.size(v, option: "cache-max", example: "500M")
        }
        let maxSize = settings.maxSize
        // Listing, clearing or pruning a cache that is not there makes none (a mistyped
        // --cache=DIR would otherwise leave a directory behind): it is empty.
        let store = try CacheStore(directory: settings.directory, maxSize: maxSize, create: false)
        // One that cannot be reached is no empty cache here: nothing was listed or removed.
        if let unavailable = store.unavailable { throw .output(unavailable) }
        // A directory given that is not there may be a typo: said, as a note (still empty, 0).
        var st = stat()
        if args.values(.cache).contains(where: { !$0.isEmpty }), stat(ArgumentBytes.path(settings.directory), &st) != 0, errno == ENOENT {
            try? environment.stderr.write("swurl: note: there is no cache at '\(TerminalSanitizer.clean(settings.directory))' (nothing to \(action == "list" ? "list" : "remove"))\n")
        }
        let now = Exchange.wallClock()
        var out: [UInt8]
        switch action {
        case "list":
            guard rest.isEmpty else { throw .usage("swurl cache list takes no argument (got '\(rest.joined(separator: " "))')") }
            // The table shows no last use: without it, a small entry is read without an fstat.
            var listings = store.list(lastUsed: args.has(.json))
            listings.sort { CacheEntry.Summary.urlPrecedes($0.summary, $1.summary) }
            out = args.has(.json) ? json(listings, now: now) : table(listings, now: now)
        case "clear":
            guard rest.count <= 1 else { throw .usage("swurl cache clear takes at most one URL prefix") }
            // `swurl cache clear "$HOST"` with HOST unset must not clear everything.
            if rest.first?.isEmpty == true {
                throw .usage("swurl cache clear: the URL prefix is empty", hint: "to remove every entry, give no prefix: swurl cache clear")
            }
            // Spelled as entries keep their URLs (`prefix`).
            let prefix = rest.first.map { CacheCommand.prefix($0, defaultScheme: args.value(.defaultScheme) ?? "http") }
            out = CacheCommand.removed(store.clear(urlPrefix: prefix), json: args.has(.json))
        case "prune":
            guard rest.isEmpty else { throw .usage("swurl cache prune takes no argument") }
            out = CacheCommand.removed(store.prune(now: now), json: args.has(.json))
        default:
            throw .usage("unknown cache action '\(TerminalSanitizer.clean(action))'", hint: "use list, clear or prune")
        }
        do { try environment.stdout.write(handingOver: &out) } catch { throw (error as? SwurlError) ?? .output("\(error)") }
        // Entries it could not remove (a read-only directory, another user's): said, and a failure.
        if let failure = store.removalFailure {
            throw .output("some entries of '\(TerminalSanitizer.clean(store.directory))' could not be removed: \(systemErrorMessage(failure))")
        }
        return .success
    }

    /// What `clear` and `prune` report: `removed N entries`, or `{"removed":N}` with `--json`.
    static func removed(_ n: Int, json: Bool) -> [UInt8] {
        Array((json ? "{\"removed\":\(n)}\n" : "removed \(n) \(n == 1 ? "entry" : "entries")\n").utf8)
    }

    /// A `clear` prefix spelled as entries keep their URLs: one that reads as a URL (a scheme
    /// added as a request's would be) made absolute and normalized as a request's URL is
    /// (`CacheURL.of`), without the `/` a bare host gains (`https://api` stays a prefix of every
    /// `https://api…` host) and keeping a trailing `?` (entries with a query); text that reads as
    /// no URL, or a scheme or the start of one (`HTTPS`, `http:/`), by its text
    /// (`CacheKey.spelling`).
    static func prefix(_ p: String, defaultScheme: String) -> String {
        // A scheme (`https`, `http:`, `https://`) clears that scheme's entries (`http` not
        // https's); a shorter start such as `h` is a host, as in a request's URL.
        let lower = p.lowercased()
        if lower == "http" || lower == "https" { return lower + "://" }
        if lower.contains(":"), ["http://", "https://"].contains(where: { $0.hasPrefix(lower) }) { return lower }
        // Bytes a URL cannot hold (a space, `é`) percent-encoded, as a request's URL has them.
        guard let resolved = try? URLBuilder.resolvedURL(URLText.percentEncodingUnsafeBytes(p), defaultScheme: defaultScheme) else {
            return CacheKey.spelling(p)
        }
        var spelled = CacheURL.of(resolved)
        // The given text's part after the host: none means a host prefix.
        let afterScheme = p.rangeOfText("://").map { p[$0.upperBound...] } ?? Substring(p)
        // A host with a port names one authority: its `/` stays, so that `h:80` (spelled `h`, the
        // default port) does not clear every port of h, nor `h:8080` the port 80801.
        let hostPort = afterScheme.split(separator: "@").last ?? afterScheme
        let hasPort = hostPort.lastIndex(of: ":").map { !hostPort[$0...].contains("]") } ?? false
        if !hasPort, !afterScheme.contains(where: { $0 == "/" || $0 == "?" || $0 == "#" }), spelled.hasSuffix("/") { spelled.removeLast() }
        if p.hasSuffix("?") && !spelled.hasSuffix("?") { spelled += "?" }
        return spelled
    }

    /// Age and freshness of a listed entry.
    private static func state(_ l: CacheStore.Listing, now: Double) -> (age: Int, fresh: Bool) {
        let s = l.summary
        let age = CacheRules.currentAge(s.freshness, requestTime: s.requestTime, responseTime: s.responseTime, now: now)
        let lifetime = CacheRules.freshnessLifetime(s.freshness, responseTime: s.responseTime)
        let noCache = s.freshness.cacheControl.has("no-cache")
        return (CacheRules.shownSeconds(age), !noCache && lifetime > age)
    }

    /// `STATUS  SIZE  AGE  fresh|stale  URL`, one line per entry (URLs redacted and made safe).
    /// Written as bytes into one buffer: a line per entry of 10,000.
    static func table(_ listings: [CacheStore.Listing], now: Double) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(listings.count * 80)
        for l in listings {
            let (age, fresh) = state(l, now: now)
            append(decimal: l.summary.status, to: &out)
            append("  ", to: &out)
            append(ProgressBar.bytes(l.bodyLength), to: &out)
            append("  ", to: &out)
            append(decimal: age, to: &out)
            append(fresh ? " s  fresh  " : " s  stale  ", to: &out)
            append(TerminalSanitizer.clean(Redactor.url(l.summary.url)), to: &out)
            out.append(0x0A)
        }
        return out
    }

    /// One JSON array of `{url, status, size, age, fresh, last_used}`, as `JSONValue` would
    /// serialize it, written straight into bytes.
    static func json(_ listings: [CacheStore.Listing], now: Double) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "[")]
        out.reserveCapacity(listings.count * 128)
        for (i, l) in listings.enumerated() {
            let (age, fresh) = state(l, now: now)
            append(i == 0 ? "{\"url\":" : ",{\"url\":", to: &out)
            JSONValue.writeString(Redactor.url(l.summary.url), to: &out)
            append(",\"status\":", to: &out)
            append(decimal: l.summary.status, to: &out)
            append(",\"size\":", to: &out)
            append(decimal: Int(l.bodyLength), to: &out)
            append(",\"age\":", to: &out)
            append(decimal: age, to: &out)
            append(fresh ? ",\"fresh\":true,\"last_used\":" : ",\"fresh\":false,\"last_used\":", to: &out)
            // A file's access time may be anything (2^63 s on a tmpfs): bounded as an age is.
            append(decimal: CacheRules.shownSeconds(l.lastUsed ?? 0), to: &out)
            out.append(UInt8(ascii: "}"))
        }
        append("]\n", to: &out)
        return out
    }

    private static func append(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { out.append(contentsOf: $0) }
    }

    /// `String(n)`'s bytes (SwurlCore's decimal writer).
    private static func append(decimal n: Int, to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            guard let start = digits.baseAddress else { return }
            out.append(contentsOf: UnsafeBufferPointer(start: start, count: putDecimal(Int64(n), at: start)))
        }
    }
}
