import SwurlEngine
import SwurlCore

extension CommandOptions {
    /// The default cache directory: `$XDG_CACHE_HOME/swurl/http`, else `~/.cache/swurl/http`.
    /// - Throws: `SwurlError.usage` when there is no home directory to put it in.
    static func defaultCacheDirectory(_ environment: Environment) throws(SwurlError) -> String {
        guard let base = Environment.baseDirectory(environment.variables, "XDG_CACHE_HOME", fallback: ".cache") else {
            throw .usage("--cache: there is no home directory for the cache (HOME is unset and the password database names none)",
                         hint: "name a directory: --cache=DIR, or set HOME or XDG_CACHE_HOME")
        }
        return base + "/swurl/http"
    }

    /// `--cache=DIR`'s directory, or the default one.
    private static func directory(_ given: String?, _ environment: Environment) throws(SwurlError) -> String {
        if let given { return environment.resolvePath(given) }
        return try defaultCacheDirectory(environment)
    }

    /// `--cache[=DIR]`, `--no-cache`, `--refresh`, `--cache-only`, `--stale-ok`, `--cache-max`;
    /// nil when the cache is off. The policy options imply `--cache`.
    /// - Throws: `SwurlError.usage` for a bad size or contradictory options.
    static func cacheSettings(_ args: ParsedArguments, environment: Environment) throws(SwurlError) -> CacheSettings? {
        let wanted = args.has(.cache) || args.has(.refresh) || args.has(.cacheOnly) || args.has(.staleOK)
        // A value is checked whether or not the cache is on, as every other option's is.
        let maxSize = try args.value(.cacheMax).map { v throws(SwurlError) in try CommandOptions.size(v, option: "cache-max", example: "500M") }
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
        // The last directory given: a bare `--cache` typed over the config's `--cache=DIR` turns
        // the cache on, in DIR (it took the default directory, as `--refresh` does not).
        let given = args.values(.cache).last { !$0.isEmpty }
        var settings = CacheSettings(directory: try directory(given, environment))
        if let maxSize { settings.maxSize = maxSize }
        settings.refresh = args.has(.refresh)
        settings.only = args.has(.cacheOnly)
        settings.staleOK = args.has(.staleOK)
        return settings
    }
}
