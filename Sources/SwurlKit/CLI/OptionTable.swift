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
        OptionSpec("style", short: ["s"], argument: .required("STYLE"), choices: ThemeStyle.allCases.map(\.rawValue), group: .output,
                   help: "Colour scheme: auto (the default: mid-tones readable on dark and light backgrounds, 256 colours or truecolor when COLORTERM or TERM say so), basic (the 16 ANSI colours), dark, light, or mono (bold and underline only). NO_COLOR and TERM=dumb turn colours off."),
        // Response
        OptionSpec("check-status", group: .response,
                   help: "Exit with 3, 4 or 5 when the response status is 3xx, 4xx or 5xx. The body is still shown."),
        OptionSpec("accept-status", argument: .required("CODES"), group: .response,
                   help: "Acceptable status codes and ranges, e.g. 200-299,304; any other status exits by class (3, 4, 5; 8 for 1xx and 2xx). The body is still shown."),
        OptionSpec("accept-type", argument: .required("TYPES"), group: .response,
                   help: "Acceptable media types, e.g. application/json,text/*; another Content-Type (or none, with a body) exits 8 and the body is shown undecoded."),
        OptionSpec("decode", argument: .required("DECODER"), choices: DecoderChoice.allCases.map(\.rawValue), group: .response,
                   help: "How to show the body: auto (the default: by Content-Type, then by the first bytes), json, xml, plist, image (a one-line summary), text (charset converted on a terminal) or raw. An explicit json, xml, plist or image is strict: a body it cannot decode exits 8. Piped output stays the raw bytes unless --pretty=format is given."),
        OptionSpec("sort-keys", group: .response,
                   help: "Sort JSON object keys. Reads the whole document into memory first (the default formatter streams in constant memory)."),
        OptionSpec("drop-nulls", group: .response,
                   help: "Remove null-valued keys and null array elements from JSON, recursively (AFNetworking's removesKeysWithNullValues; emptied containers are kept). Reads the whole document into memory first."),
        OptionSpec("stream", short: ["S"], group: .response,
                   help: "Show each chunk as soon as it arrives (event streams, long polls, JSON Lines) instead of holding back the first megabyte to check it."),
        OptionSpec("plist-as", argument: .required("FORMAT"), choices: ["xml", "json"], group: .response,
                   help: "Show property lists (XML or binary) as an XML plist (the default) or as JSON; dates become ISO 8601, data base64."),
        // Network
        OptionSpec("follow", short: ["F", "L"], group: .network, help: "Follow redirects."),
        OptionSpec("max-redirects", argument: .required("N"), group: .network,
                   help: "Follow at most N redirects (default 30); exit 6 when there are more."),
        OptionSpec("timeout", argument: .required("SECONDS"), group: .network,
                   help: "Give up when connecting, or when no data moves, for SECONDS (decimals allowed); exit 2."),
        OptionSpec("default-scheme", argument: .required("SCHEME"), choices: ["http", "https"], group: .network,
                   help: "The scheme for URLs given without one (default http)."),
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
