import SwurlCore

/// `--cache` and its policy options: where the private cache lives and how a request uses it.
/// AFNetworking's NSURLRequest cache policies map onto these (docs/cache.md).
package struct CacheSettings: Sendable, Equatable {
    /// The cache directory (default `$XDG_CACHE_HOME/swurl/http`).
    package var directory: String
    /// `--cache-max`: the most bytes the entries take together (default 200 MiB).
    package var maxSize: Int64 = 200 << 20
    /// `--refresh`: validate a stored response even when it is fresh (ReloadRevalidatingCacheData).
    package var refresh = false
    /// `--cache-only`: serve any stored response, however old, or answer 504 without touching
    /// the network (ReturnCacheDataDontLoad).
    package var only = false
    /// `--stale-ok`: when the network fails, serve a stored response however old
    /// (ReturnCacheDataElseLoad for the offline case), unless it says must-revalidate or no-cache.
    package var staleOK = false

    package init(directory: String) { self.directory = directory }
}
