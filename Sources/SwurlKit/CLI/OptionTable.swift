/// Every option swurl understands, declared once. Parsing, `--help`, `man/swurl.1` and the
/// completions in `completions/` are all generated from this table.
public enum OptionTable {
    public static let all: [OptionSpec] = [
        // Request body
        OptionSpec("json", short: ["j"], group: .body,
                   help: "Serialize data items as a JSON object (the default). Sets Content-Type: application/json and Accept: application/json, */*;q=0.5. With 'swurl certs': print the report as JSON."),
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
                   help: "What to print: H request headers, B request body, h response headers, b response body. Default: hb on a terminal, b otherwise; HB with --offline."),
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
        // Network
        OptionSpec("follow", short: ["F", "L"], group: .network, help: "Follow redirects."),
        OptionSpec("max-redirects", argument: .required("N"), group: .network,
                   help: "Follow at most N redirects (default 30); exit 6 when there are more."),
        OptionSpec("timeout", argument: .required("SECONDS"), group: .network,
                   help: "Give up when connecting, or when no data moves, for SECONDS (decimals allowed); exit 2."),
        OptionSpec("default-scheme", argument: .required("SCHEME"), choices: ["http", "https"], group: .network,
                   help: "The scheme for URLs given without one (default http)."),
        // TLS and pinning (enforced inside the TLS handshake; see SecurityPolicy)
        OptionSpec("pin-pubkey", argument: .required("PIN"), completion: .file, group: .tls,
                   help: "Trust the server only if a key of its verified certificate path matches PIN: sha256//BASE64 (several joined by ';') or a PEM/DER public-key or certificate file. Repeatable. With -k only the leaf's key counts. 'swurl certs URL' prints the pins."),
        OptionSpec("pin-cert", argument: .required("FILE"), completion: .file, group: .tls,
                   help: "Trust the certificates in FILE (PEM or DER, several allowed) as anchors and require one in the verified path; a pinned self-signed certificate works without -k. Repeatable."),
        OptionSpec("pin-scope", argument: .required("SCOPE"), choices: ["any", "leaf", "chain"], group: .tls,
                   help: "Which certificates of the verified path must match a pin: any (the default), leaf, or chain (every one)."),
        OptionSpec("insecure", short: ["k"], group: .tls,
                   help: "Do not verify the certificate chain. Without pins the host name is not checked either (a warning says so); pins are still enforced, against the leaf only."),
        OptionSpec("verify-host", group: .tls,
                   help: "Check the host name (DNS name or IP address) against the certificate inside the handshake (the default, also with -k and pins). -k --verify-host without a pin is refused."),
        OptionSpec("no-verify-host", group: .tls,
                   help: "Do not check the host name against the certificate."),
        OptionSpec("cacert", argument: .required("FILE"), completion: .file, group: .tls,
                   help: "Also trust the CA certificates in FILE (PEM)."),
        OptionSpec("capath", argument: .required("DIR"), completion: .directory, group: .tls,
                   help: "Also trust the CA certificates in DIR (OpenSSL hashed directory, see c_rehash)."),
        OptionSpec("cert", argument: .required("FILE"), completion: .file, group: .tls,
                   help: "Client certificate for mutual TLS (PEM; add its intermediates after it; may hold the key too)."),
        OptionSpec("key", argument: .required("FILE"), completion: .file, group: .tls,
                   help: "Private key for --cert (PEM). An encrypted key asks for its password on a terminal."),
        OptionSpec("key-password", argument: .required("PASSWORD"), group: .tls,
                   help: "Password of an encrypted --key (visible to other local users in the process list; prefer the prompt)."),
        OptionSpec("tls-min", argument: .required("VERSION"), choices: ["1.2", "1.3"], group: .tls,
                   help: "Lowest TLS version to accept: 1.2 (the default) or 1.3."),
        OptionSpec("tls-max", argument: .required("VERSION"), choices: ["1.2", "1.3"], group: .tls,
                   help: "Highest TLS version to offer: 1.2 or 1.3 (the default)."),
        OptionSpec("ciphers", argument: .required("LIST"), group: .tls,
                   help: "OpenSSL cipher list, ':'-separated; TLS 1.3 suite names (TLS_AES_128_GCM_SHA256, ...) set the TLS 1.3 suites."),
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
