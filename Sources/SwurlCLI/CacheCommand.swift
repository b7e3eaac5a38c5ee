import SwurlCache
import SwurlOutput
import SwurlEngine
import SwurlCore

/// `swurl cache list [--json] | clear [URL-PREFIX] | prune [--cache=DIR] [--cache-max SIZE]`:
/// shows and tidies the HTTP cache; sends no request.
enum CacheCommand: SwurlCommand {
    static let name = CommandName.cache
    static let word: String? = "cache"
    static let invocation = "swurl cache list"
    static let usage = "swurl cache list [--json] | clear [URL-PREFIX] | prune [--cache=DIR] [--cache-max SIZE]"
    package static let summary = "list, clear or prune the HTTP cache (--cache)"

    /// - Throws: `.usage` for a missing or unknown action, the store's errors.
    static func run(_ args: ParsedArguments, environment: Environment) throws(SwurlError) -> ExitStatus {
        guard let action = args.positionals.first else {
            throw .usage("swurl cache needs an action: list, clear or prune", hint: "e.g. swurl cache list")
        }
        let rest = Array(args.positionals.dropFirst())
        // `--cache=DIR` names the directory; `--cache-max` the bound prune evicts down to.
        var settings = try CommandOptions.cacheSettings(args, environment: environment)
            ?? CacheSettings(directory: CommandOptions.defaultCacheDirectory(environment))
        if let v = args.value(.cacheMax) {
            guard let size = CommandOptions.parseRate(v) else {
                throw .usage("--cache-max: '\(v)' is not a size", hint: "e.g. --cache-max 500M (bytes; K, M, G)")
            }
            settings.maxSize = size
        }
        let maxSize = settings.maxSize
        let store = try CacheStore(directory: settings.directory, maxSize: maxSize)
        let now = Exchange.wallClock()
        let text: String
        switch action {
        case "list":
            guard rest.isEmpty else { throw .usage("swurl cache list takes no argument (got '\(rest.joined(separator: " "))')") }
            let listings = store.list().sorted { $0.entry.url < $1.entry.url }
            text = args.has(.json) ? json(listings, now: now) : table(listings, now: now)
        case "clear":
            guard rest.count <= 1 else { throw .usage("swurl cache clear takes at most one URL prefix") }
            let n = store.clear(urlPrefix: rest.first)
            text = "removed \(n) \(n == 1 ? "entry" : "entries")\n"
        case "prune":
            guard rest.isEmpty else { throw .usage("swurl cache prune takes no argument") }
            let n = store.prune(now: now)
            text = "removed \(n) \(n == 1 ? "entry" : "entries")\n"
        default:
            throw .usage("swurl cache: unknown action '\(TerminalSanitizer.clean(action))'", hint: "use list, clear or prune")
        }
        do { try environment.stdout.write(text) } catch { throw (error as? SwurlError) ?? .output("\(error)") }
        return .success
    }

    /// Age and freshness of a listed entry.
    private static func state(_ l: CacheStore.Listing, now: Double) -> (age: Int, fresh: Bool) {
        let e = l.entry
        let age = CacheRules.currentAge(e.head, requestTime: e.requestTime, responseTime: e.responseTime, now: now)
        let lifetime = CacheRules.freshnessLifetime(e.head, responseTime: e.responseTime)
        let noCache = CacheControl(e.head.headers).has("no-cache")
        return (Int(max(0, min(age, 1e15))), !noCache && lifetime > age)
    }

    /// `STATUS  SIZE  AGE  fresh|stale  URL`, one line per entry (URLs redacted and made safe).
    static func table(_ listings: [CacheStore.Listing], now: Double) -> String {
        var out = ""
        for l in listings {
            let (age, fresh) = state(l, now: now)
            out += "\(l.entry.head.status)  \(ProgressBar.bytes(l.bodyLength))  \(age) s  \(fresh ? "fresh" : "stale")  "
            out += TerminalSanitizer.clean(Redactor.url(l.entry.url)) + "\n"
        }
        return out
    }

    /// One JSON array of `{url, status, size, age, fresh, last_used}`.
    static func json(_ listings: [CacheStore.Listing], now: Double) -> String {
        let items: [JSONValue] = listings.map { l in
            let (age, fresh) = state(l, now: now)
            return .object([
                .init("url", .string(Redactor.url(l.entry.url))), .init("status", .number(String(l.entry.head.status))),
                .init("size", .number(String(l.bodyLength))), .init("age", .number(String(age))),
                .init("fresh", .bool(fresh)), .init("last_used", .number(String(Int(l.lastUsed)))),
            ])
        }
        return JSONValue.array(items).serialized + "\n"
    }
}
