import SwurlEngine
import SwurlCore

/// A batch's options, the defaults of every line, parsed once: a line without options of its
/// own (the common case) gets a copy of the parsed defaults with its method, URL and items,
/// instead of parsing, checking and merging the option table again (and reading the netrc,
/// pin files and the proxy variables again) for every line. A line with its own options, or
/// defaults that do not parse on their own, take the full path, so every line ends as
/// `CommandOptions(line's options over the defaults)` would.
final class BatchDefaults {
    /// The batch's arguments without its own options and positionals.
    let arguments: ParsedArguments
    private let environment: Environment
    /// The defaults parsed alone, at the first line that needs them (a key password is asked
    /// for then, once); nil when that failed (each line then reports the error the full path
    /// finds, after its own).
    private lazy var parsedBox: ParsedDefaults? = {
        // A line without options of its own brings no partner: the qualifiers waiting for one go.
        var alone = arguments
        OptionTable.dropWaitingQualifiers(&alone, own: ParsedArguments())
        do throws(SwurlError) {
            return ParsedDefaults(try CommandOptions(optionsOnly: alone, environment: environment))
        } catch {
            if case .interrupted = error { defaultsInterrupted = true }
            return nil
        }
    }()
    /// Whether Ctrl-C stopped the key's password prompt of `parsedBox`: the line stops there
    /// (the full path asked again, a second prompt).
    private var defaultsInterrupted = false
    /// `parsedBox`, or the interruption of its prompt.
    private var parsedDefaults: ParsedDefaults? {
        get throws(SwurlError) {
            let parsed = parsedBox
            if parsed == nil && defaultsInterrupted { throw .interrupted }
            return parsed
        }
    }
    /// The parsed defaults in a class, so that reading them copies no CommandOptions.
    private final class ParsedDefaults {
        let options: CommandOptions
        init(_ options: CommandOptions) { self.options = options }
    }
    private let form: Bool

    init(_ arguments: ParsedArguments, environment: Environment) {
        self.arguments = arguments
        self.environment = environment
        form = arguments.has(.form)
    }

    /// A batch line's receive buffer: libcurl's own 16 KiB instead of the one-shot 512 KiB, which
    /// libcurl allocates for every transfer (with `--parallel 1024` half a gigabyte, and for
    /// small responses a heap that grows and shrinks with every line). It is also what lets
    /// lines reuse the easy handles of finished ones: libcurl refuses CURLOPT_BUFFERSIZE on a
    /// handle that still holds the buffer of an HTTP/2 stream.
    static func sizeReceiveBuffer(_ options: inout TransferOptions) {
        if options.receiveBufferSize == nil { options.receiveBufferSize = 0 }
    }

    /// Whether a line needs cookies, a DNS cache and connections of its own
    /// (`TransferOptions.ownSharedState`) rather than the batch's:
    /// - it changes where it connects with options of its own (`--resolve`, `--proxy`,
    ///   `--unix-socket` on the line; given to the batch, they route every line alike): in the shared
    ///   DNS cache its `--resolve` addresses would serve every later line for that host and
    ///   port, and its connections could serve lines that never asked for that route;
    /// - it sets its own `Host` header: libcurl's cookie engine matches and stores cookies on
    ///   that header, not on the URL's host, so the shared jar would hand the line another
    ///   origin's cookies, and take cookies from it for that origin (session fixation).
    ///
    /// - it has trust of its own that libcurl cannot compare (`changesUnseenTrust`: pins,
    ///   `--pin-scope`, `--cacert-add`): on its own connection (FRESH_CONNECT, FORBID_REUSE,
    ///   HTTP/1.1) it still sat in the batch's connection cache, where libcurl 7.88 sent another
    ///   line's request on it while it ran (an HTTP/2 connection to that host gone or full, that
    ///   line asking for HTTP/2: libcurl took the busy HTTP/1.1 connection for one it could
    ///   multiplex on), its pins and CA never checked; and a cookie set under one trust must not
    ///   go out under another. (`-k`, `--cacert`, `--cert`, TLS versions and ciphers libcurl
    ///   compares before it reuses a connection: such a line keeps the batch's jar.)
    ///
    /// - it has a `Proxy-Authorization` item of its own (a value, or `Proxy-Authorization:`
    ///   removing the batch's): it goes on the CONNECT that opens a tunnel, and libcurl, which
    ///   compares a proxy URL's credentials before reusing a connection but not a header's, sent
    ///   later lines without it through that tunnel, authorized as this line.
    ///
    /// Every other line shares the batch's jar, in which cookies are matched on the URL's host.
    static func needsOwnSharedState(_ line: ParsedArguments, request: HTTPRequest) -> Bool {
        changesRoute(line) || changesUnseenTrust(line) || changesHTTPVersion(line) || request.headers.contains("Host")
            || line.positionals.contains { ReplContext.itemKey($0).map { $0.kind == .header && $0.name.lowercased() == "proxy-authorization" } ?? false }
    }

    /// Whether a line's own options change trust that libcurl cannot see when it matches a
    /// connection for reuse (swurl checks pins and added certificates in its own handshake
    /// callback): `--pin-pubkey`, `--pin-cert`, `--pin-scope`, `--cacert-add`, or a `--no-` of one.
    static func changesUnseenTrust(_ line: ParsedArguments) -> Bool {
        [Option.pinPubkey, .pinCert, .pinScope, .cacertAdd].contains { line.has($0) || line.resets.contains($0) }
    }

    /// Whether a line names an HTTP version of its own (`--http1.1`, `--http2`,
    /// `--http2-prior-knowledge`, or a `--no-` of one): libcurl 7.88 sends a request that asks
    /// for HTTP/2 over an HTTP/1.1 connection to its host (an idle one, or a busy one once the
    /// host's HTTP/2 connection is gone), so the line's HTTP/1.1 connection served the later
    /// lines, and a line's `--http2` under a batch `--http1.1` got the batch's connections. Such
    /// a line's connection is its own (opened for it, closed after), out of the batch's
    /// connection cache (`needsOwnSharedState`).
    static func changesHTTPVersion(_ line: ParsedArguments) -> Bool {
        [Option.http1_1, .http2, .http2PriorKnowledge].contains { line.has($0) || line.resets.contains($0) }
    }

    /// Whether a line's own options give it another route than the other lines' (the defaults
    /// are everyone's): `--resolve`, `--proxy`, `--unix-socket`, or a `--no-` of one of them.
    /// (A REPL line's too: a server reached another way than the others may not set cookies
    /// for them.)
    static func changesRoute(_ line: ParsedArguments) -> Bool {
        [Option.resolve, .unixSocket, .proxy].contains { line.has($0) || line.resets.contains($0) }
    }

    /// Whether a line's own options give it another TLS policy than the other lines': a TLS
    /// option, or a `--no-` of one (`--no-pin-pubkey` under a batch's pin). libcurl cannot tell
    /// pins apart, so such a line's connection must be its own, both ways.
    static func changesTLS(_ line: ParsedArguments) -> Bool {
        func isTLS(_ option: Option) -> Bool { OptionTable.spec(long: option.rawValue)?.group == .tls }
        return line.options.keys.contains(where: isTLS) || line.resets.contains(where: isTLS)
    }

    /// The options batch lines may not carry.
    static let refused: [Option] = [.download, .output, .offline, .curl, .session, .sessionReadOnly, .help, .version, .generate]

    /// One line's options: its own over the defaults.
    /// - Throws: `SwurlError.usage` for an option a batch line cannot carry or one a request
    ///   does not take, and the errors of `CommandOptions.init`.
    func options(for line: ParsedArguments) throws(SwurlError) -> CommandOptions {
        if line.options.isEmpty, line.resets.isEmpty, let parsed = try parsedDefaults {
            return try parsed.options.with(positionals: line.positionals, form: form, environment: environment)
        }
        var args = line
        // The config file gave the batch's defaults once, for every line.
        if line.has(.noConfig) {
            throw .usage("--no-config cannot be used on a batch line: the config file's defaults are the whole batch's", hint: "give it to swurl batch")
        }
        for option in BatchDefaults.refused where args.has(option) {
            throw .usage("--\(option.rawValue) cannot be used on a batch line")
        }
        // A batch prints one result per line, never responses: what would change how a response
        // is shown is refused rather than ignored.
        for option in BatchCommand.displayOptions where args.has(option) {
            throw .usage("--\(option.rawValue) cannot be used on a batch line: a batch prints one result per request, not the response "
                         + "(--jsonl adds timings, --output-dir keeps bodies)")
        }
        try CommandTable.check(args, for: RequestCommand.self)
        // A line's --no-OPTION for an option no line takes (--no-parallel, --no-jsonl) would
        // read as changing the batch for that line.
        for spec in OptionTable.all where line.resets.contains(spec.option) && !spec.commands.contains(.request) {
            // One no batch takes either (--no-download, --no-stop-on-error) is nobody's here.
            guard spec.commands.contains(.batch) else {
                throw .usage("--no-\(spec.name) cannot be used on a batch line: --\(spec.name) is no option of a batch or its lines")
            }
            throw .usage("--no-\(spec.name) cannot be used on a batch line: --\(spec.name) is the batch's, not a line's", hint: "give it to swurl batch")
        }
        // The line's options over the defaults, as a REPL line's over its defaults: a line's
        // --json replaces a batch --form rather than clashing with it.
        args = ReplContext.merge(arguments, line)
        OptionTable.dropWaitingQualifiers(&args, own: line)
        args.positionals = line.positionals
        // The client key's password asked for once, at the first line, serves every line that
        // uses the batch's key (a line with its own key or --key-password is asked anew; its own
        // --cert for the batch's --key keeps it: `OptionTable.replacesKey`). The merged
        // arguments: a line that drops them (--no-cert --no-key) gets no password either.
        if !OptionTable.replacesKey(defaults: arguments, own: line), !line.has(.keyPassword), args.has(.key) || args.has(.cert),
           let password = try parsedDefaults?.options.transfer.security.keyPassword {
            args.options[.keyPassword] = [password]
        }
        return try CommandOptions(args, environment: environment)
    }
}
