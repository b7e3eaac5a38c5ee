import SwurlEngine
import SwurlCore

extension CommandOptions {
    /// The default cache directory: `$XDG_CACHE_HOME/swurl/http`, else `~/.cache/swurl/http`.
    static func defaultCacheDirectory(_ environment: Environment) -> String {
        if let x = environment.variables["XDG_CACHE_HOME"], x.hasPrefix("/") { return x + "/swurl/http" }
        return (environment.variables["HOME"] ?? "") + "/.cache/swurl/http"
    }

    /// `--cache[=DIR]`, `--no-cache`, `--refresh`, `--cache-only`, `--stale-ok`, `--cache-max`;
    /// nil when the cache is off. The policy options imply `--cache`.
    /// - Throws: `SwurlError.usage` for a bad size or contradictory options.
    static func cacheSettings(_ args: ParsedArguments, environment: Environment) throws(SwurlError) -> CacheSettings? {
        let wanted = args.has(.cache) || args.has(.refresh) || args.has(.cacheOnly) || args.has(.staleOK)
        if args.has(.noCache) {
            for o in [Option.refresh, .cacheOnly, .staleOK] where args.has(o) {
                throw .usage("--no-cache and --\(o.rawValue) cannot be combined")
            }
            return nil
        }
        guard wanted else { return nil }
        if args.has(.refresh) && args.has(.cacheOnly) {
            throw .usage("--refresh and --cache-only cannot be combined", hint: "--refresh asks the server; --cache-only never does")
        }
        let given = args.value(.cache).flatMap { $0.isEmpty ? nil : $0 }
        var settings = CacheSettings(directory: given.map { environment.resolvePath($0) } ?? defaultCacheDirectory(environment))
        if let v = args.value(.cacheMax) {
            guard let size = CommandOptions.parseRate(v) else {
                throw .usage("--cache-max: '\(v)' is not a size", hint: "e.g. --cache-max 500M (bytes; K, M, G)")
            }
            settings.maxSize = size
        }
        settings.refresh = args.has(.refresh)
        settings.only = args.has(.cacheOnly)
        settings.staleOK = args.has(.staleOK)
        return settings
    }
}
