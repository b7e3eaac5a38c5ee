import Foundation

/// A raw-socket server (Python, no HTTP library: `Tests/Servers/hostile.py`) that breaks HTTP on
/// purpose, one behaviour per path. Every connection gets one answer and is closed (or dropped
/// mid-way, or kept dripping).
///
/// - `/short` Content-Length 100, 10 bytes, close (`/short-json` the same with the start of a JSON document; `/gz-multi` two gzip members). `/cut-head` a 500's status line and one field,
///   then close (no blank line). `/png-lie` an error text served as image/png.
///   `/trailer` a chunked body with a trailer field. `/bad-chunk` an invalid chunk size.
/// - `/endless` a chunked body that never ends; `/drip` one byte a second of a 1 MB body.
/// - `/many-headers` 100,000 header fields; `/long-header` a 1 MB header line; `/nul-header`;
///   `/cookie-then-nul?v=V` a Set-Cookie `early=V` (default 1), then a field with a NUL.
/// - `/latin1-name` a Content-Disposition `filename` and an `X-Latin` value in ISO-8859-1.
/// - `/evil-reason` a reason phrase with terminal escapes; `/evil-location` a 302 whose Location
///   holds escapes.
/// - `/bomb/gzip`, `/bomb/deflate` (1 GiB of zeros, ~1 MB sent), `/bomb/br`, `/bomb/zstd`
///   (1 GiB, from Tests/Fixtures/bombs).
/// - `/deep-json?n=N` N `[` then N `]`; `/big-string?mb=N`; `/big-number?digits=N`;
///   `/laughs` XML billion laughs; `/deep-xml?n=N` N `<a>` then N `</a>`; `/flat-xml?mb=N` about N MB
///   of `<item>` elements in one `<list>`; `/plist-bomb`, `/plist-cycle`; `/huge-png` absurd dimensions.
/// - `/http09` no status line; `/http10` HTTP/1.0 with no length; `/informational` 100 and
///   102 before the answer; `/204-body`, `/304-body`; `/two-codings` gzip and x-foo named on two
///   `Content-Encoding` lines; `/gzip-stall` a gzip body's head (sent whatever was asked), then nothing for 10 s; `/loop` a redirect to itself;
///   `/to?scheme=file|ftp|gopher|dict` a redirect to another scheme.
package final class HostileServer {
    package let server: ServerProcess
    package var port: Int { server.port }

    package init() throws {
        server = try ServerProcess(executable: "/usr/bin/python3",
                                   arguments: [TestPaths.server("hostile.py"), "{PORT}", TestPaths.packageRoot + "/Tests/Fixtures/bombs"])
    }

    deinit { server.stop() }

    package func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }
}
