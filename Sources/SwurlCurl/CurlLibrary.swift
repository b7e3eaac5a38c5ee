import SwurlCore
@preconcurrency import CCurl

/// libcurl itself, which CCurl opens with dlopen on first use (curl_loader.c), so a run that
/// never needs it (a cache hit, `--help`) does not pay for loading it. (`--offline` and `--curl`
/// load it: `Accept-Encoding` names the codings this libcurl decodes.)
package enum CurlLibrary {
    /// Loads libcurl if it is not yet; a missing or too old libcurl is a transport error that
    /// names the library and the package to install.
    package static func load() throws(SwurlError) {
        guard sw_curl_load() != 0 else { return }
        let reason = loadError ?? "unknown reason"
        // Out of file descriptors (`ulimit -n`), the library is there: installing it is no fix.
        throw .transport("cannot load libcurl: \(reason)",
                         hint: reason.containsText("Too many open files") ? "raise the limit of open files (ulimit -n)"
                             : "install the libcurl4 package (apt install libcurl4)")
    }

    /// Whether libcurl is loaded or can be.
    package static var isAvailable: Bool { sw_curl_load() == 0 }

    /// Why libcurl could not be loaded, or nil.
    package static var loadError: String? { sw_curl_load_error().map { String(cString: $0) } }

    /// Whether this process has loaded libcurl so far.
    package static var isLoaded: Bool { sw_curl_is_loaded() != 0 }
}
