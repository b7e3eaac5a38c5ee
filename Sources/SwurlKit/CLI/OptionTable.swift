/// Every option swurl understands, declared once. Parsing, `--help`, `man/swurl.1` and the
/// completions in `completions/` are all generated from this table.
public enum OptionTable {
    public static let all: [OptionSpec] = [
        // Request body
        OptionSpec("json", short: ["j"], group: .body,
                   help: "Serialize data items as a JSON object (the default). Sets Content-Type: application/json and Accept: application/json, */*;q=0.5."),
        OptionSpec("form", short: ["f"], group: .body,
                   help: "Serialize data items as an urlencoded form (AFNetworking nesting: user[name]=Ann, tags[]=a). With GET, HEAD or DELETE the form goes into the query string. A file field (name@path) makes it multipart."),
        OptionSpec("multipart", group: .body,
                   help: "Send data items and file fields as multipart/form-data, streamed from disk."),
        OptionSpec("boundary", argument: .required("BOUNDARY"), group: .body,
                   help: "Use BOUNDARY as the multipart boundary instead of a random one."),
        OptionSpec("plist", argument: .optional("FORMAT"), choices: ["xml", "binary"], group: .body,
                   help: "Serialize data items as a property list: xml (the default) or binary. Sets Content-Type: application/x-plist."),
        OptionSpec("raw", argument: .required("TEXT"), group: .body,
                   help: "Send TEXT as the request body, as is."),
        OptionSpec("chunked", group: .body,
                   help: "Send the body with chunked transfer encoding instead of a Content-Length."),
        OptionSpec("ignore-stdin", short: ["I"], group: .body,
                   help: "Never read the body from stdin (stdin is only read when it is not a terminal and no data items are given)."),
        // Output
        OptionSpec("print", short: ["p"], argument: .required("WHAT"), group: .output,
                   help: "What to print: H request headers, B request body, h response headers, b response body, m meta (timing, sizes, remote address). Default: hb on a terminal, b otherwise; HB with --offline."),
        OptionSpec("headers", short: ["h"], group: .output, help: "Print only the response headers (--print=h)."),
        OptionSpec("body", short: ["b"], group: .output, help: "Print only the response body (--print=b)."),
        OptionSpec("verbose", short: ["v"], group: .output,
                   help: "Print the request as it was sent and the response (--print=HBhb)."),
        OptionSpec("pretty", argument: .required("STYLE"), choices: ["all", "colors", "format", "none"], group: .output,
                   help: "all (colours and formatting, the default on a terminal), colors, format, or none (the default otherwise)."),
        OptionSpec("output", short: ["o"], argument: .required("FILE"), completion: .file, group: .output,
                   help: "Write the output to FILE instead of stdout. FILE is replaced only when the transfer succeeds."),
        OptionSpec("offline", group: .output,
                   help: "Build the request and print the exact bytes it would send; send nothing."),
        OptionSpec("check-status", group: .output,
                   help: "Exit with 3, 4 or 5 when the response status is 3xx, 4xx or 5xx."),
        OptionSpec("all", group: .output,
                   help: "With --follow, print every hop (intermediate requests and responses), not just the final one."),
        OptionSpec("timing", argument: .optional("FORMAT"), choices: ["text", "json"], group: .output,
                   help: "Print the timing breakdown on stderr after the response: DNS, connect, TLS, time to first byte, transfer, redirects, total, sizes, speeds and the remote address, from libcurl's counters. --timing=json prints one JSON object (times in seconds)."),
        OptionSpec("quiet", short: ["q"], group: .output,
                   help: "No progress bar, no download summary and no retry notices on stderr (errors are still shown)."),
        // Downloads
        OptionSpec("download", short: ["d"], group: .download,
                   help: "Save the body to a file: -o FILE, else the name from Content-Disposition, else the URL's last path segment (plus an extension for the Content-Type); never the name of a redirect target. Data goes to NAME.part, renamed when complete; an existing file gets a -1, -2 suffix. Shows a progress bar on a terminal. Implies --follow; a 4xx or 5xx status exits 4 or 5 and writes nothing."),
        OptionSpec("continue", short: ["c"], group: .download,
                   help: "With --download, resume a partial download (NAME.part, or the -o file) with a Range request; starts over when the server ignores the range."),
        OptionSpec("overwrite", group: .download,
                   help: "With --download, replace an existing file instead of choosing a new name."),
        OptionSpec("limit-rate", argument: .required("RATE"), group: .download,
                   help: "Limit the transfer speed in each direction to RATE bytes per second; K, M and G suffixes (100K, 2M) are powers of 1024."),
        // Authentication
        OptionSpec("auth", short: ["a"], argument: .required("USER[:PASS]"), group: .auth,
                   help: "Credentials for the first URL's origin only (never sent to another origin on a redirect). Without :PASS, swurl asks for the password without echo on a terminal. With --auth-type bearer, the token."),
        OptionSpec("auth-type", short: ["A"], argument: .required("TYPE"), choices: ["basic", "digest", "bearer"], group: .auth,
                   help: "How --auth is sent: basic (the default), digest, or bearer (Authorization: Bearer TOKEN)."),
        OptionSpec("ignore-netrc", group: .auth,
                   help: "Do not read credentials from ~/.netrc (or $NETRC). By default swurl looks up each hop's host there when no --auth is given; a default entry is used for the first URL's host only."),
        // Network
        OptionSpec("follow", short: ["F", "L"], group: .network, help: "Follow redirects."),
        OptionSpec("max-redirects", argument: .required("N"), group: .network,
                   help: "Follow at most N redirects (default 30); exit 6 when there are more."),
        OptionSpec("timeout", argument: .required("SECONDS"), group: .network,
                   help: "Give up when connecting, or when no data moves, for SECONDS (decimals allowed); exit 2."),
        OptionSpec("default-scheme", argument: .required("SCHEME"), choices: ["http", "https"], group: .network,
                   help: "The scheme for URLs given without one (default http)."),
        OptionSpec("connect-timeout", argument: .required("SECONDS"), group: .network,
                   help: "Give up connecting after SECONDS (decimals allowed; default: --timeout); exit 2."),
        OptionSpec("retry", argument: .required("N"), group: .network,
                   help: "Try again up to N times on connection failures, timeouts and 408, 429, 500, 502, 503 and 504 responses, waiting with exponential backoff and jitter, or as long as Retry-After says. Only idempotent methods unless --retry-all-methods. Each retry is reported on stderr."),
        OptionSpec("retry-delay", argument: .required("SECONDS"), group: .network,
                   help: "The first wait before a retry (default 1); each further wait doubles."),
        OptionSpec("retry-max-time", argument: .required("SECONDS"), group: .network,
                   help: "Stop retrying once SECONDS have passed since the first attempt."),
        OptionSpec("retry-all-methods", group: .network,
                   help: "Retry POST, PATCH and other methods that are not idempotent too."),
        OptionSpec("http1.1", group: .network, help: "Speak HTTP/1.1 only."),
        OptionSpec("http2", group: .network,
                   help: "Ask for HTTP/2 (ALPN on https, an upgrade on http). By default swurl offers HTTP/2 on https where libcurl supports it."),
        OptionSpec("http2-prior-knowledge", group: .network,
                   help: "Speak HTTP/2 straight away, without ALPN or upgrade."),
        OptionSpec("proxy", argument: .required("URL"), group: .network,
                   help: "Send requests through this proxy (http://, https://, socks5://, socks5h://). Without it swurl uses http_proxy, HTTPS_PROXY and ALL_PROXY, except for hosts in NO_PROXY."),
        OptionSpec("unix-socket", argument: .required("PATH"), completion: .file, group: .network,
                   help: "Connect to the Unix domain socket PATH instead of the URL's host."),
        OptionSpec("resolve", argument: .required("HOST:PORT:ADDR"), group: .network,
                   help: "Connect to ADDR for HOST:PORT instead of resolving it (repeatable)."),
        OptionSpec("ipv4", short: ["4"], group: .network, help: "Connect over IPv4 only."),
        OptionSpec("ipv6", short: ["6"], group: .network, help: "Connect over IPv6 only."),
        OptionSpec("max-headers", argument: .required("N"), group: .network,
                   help: "Fail when a response has more than N header fields (default 100; 0 means no limit). A response head is also limited to 256 KiB."),
        // Other
        OptionSpec("help", group: .other, help: "Show this help and exit."),
        OptionSpec("version", group: .other, help: "Show the versions of swurl, libcurl and OpenSSL and exit."),
        OptionSpec("generate", argument: .required("WHAT"), choices: ["man", "bash", "zsh", "fish"], group: .other,
                   hidden: true, help: "Print the man page or a completion script generated from this table."),
    ]

    /// The spec for a long name or alias (without dashes).
    public static func spec(long: String) -> OptionSpec? {
        all.first { $0.name == long || $0.aliases.contains(long) }
    }

    /// The spec for a one-letter option.
    public static func spec(short: Character) -> OptionSpec? {
        all.first { $0.shorts.contains(short) }
    }

    /// The options that appear in documentation.
    public static var documented: [OptionSpec] { all.filter { !$0.hidden } }
}
