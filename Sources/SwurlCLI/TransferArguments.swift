import Synchronization
#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlEngine
import SwurlCurl
import SwurlCore

extension CommandOptions {
    /// Validates the download, auth, retry, timing and connection options.
    /// - Throws: `SwurlError.usage` for a bad value or a contradictory combination.
    mutating func parseTransferArguments(_ args: ParsedArguments, environment: Environment) throws(SwurlError) {
        download = args.has(.download)
        resume = args.has(.continue)
        overwrite = args.has(.overwrite)
        quiet = args.has(.quiet)
        showAllHops = args.has(.all)
        if args.has(.timing) { timing = args.value(.timing).flatMap(TimingFormat.init(rawValue:)) ?? .text }
        if resume && !download {
            throw .usage("--continue works with --download", hint: "add -d; curl's -c (cookie jar) is --session NAME here")
        }
        if resume && overwrite { throw .usage("--continue and --overwrite cannot be combined") }
        if download && offline { throw .usage("--download and --offline cannot be combined") }
        if download { transfer.followRedirects = true }

        // 0 (any spelling of it: 0K, 0B/s) is no limit, as in curl: a config default can be
        // lifted for one run.
        if let v = args.value(.limitRate), !CommandOptions.isZeroRate(v) {
            guard let rate = CommandOptions.parseRate(v) else {
                throw .usage("--limit-rate: '\(v)' is not a rate", hint: "e.g. --limit-rate 100K (bytes per second; K, M, G)")
            }
            transfer.maxReceiveRate = rate
            transfer.maxSendRate = rate
        }
        if let v = args.value(.retry) {
            guard let n = Int(v), n >= 0, n <= 1000 else {
                throw .usage("--retry: '\(v)' is not a whole number from 0 to 1000", hint: "e.g. --retry 3")
            }
            transfer.retry.maxRetries = n
        }
        if let v = args.value(.retryDelay) {
            transfer.retry.baseDelay = try CommandOptions.seconds(v, "retry-delay", allowZero: true)
            // The backoff's cap (120 s) never cuts the wait the user asked for.
            transfer.retry.maxDelay = max(transfer.retry.maxDelay, transfer.retry.baseDelay)
        }
        if let v = args.value(.retryMaxTime) { transfer.retry.maxTime = try CommandOptions.seconds(v, "retry-max-time") }
        transfer.retry.allMethods = args.has(.retryAllMethods)

        let versions = [Option.http1_1, .http2, .http2PriorKnowledge].filter { args.has($0) }
        if versions.count > 1 { throw .usage("--\(versions[0].rawValue) and --\(versions[1].rawValue) cannot be combined") }
        switch versions.first {
        case .http1_1: transfer.httpVersion = .http1_1
        case .http2: transfer.httpVersion = .http2
        case .http2PriorKnowledge: transfer.httpVersion = .http2PriorKnowledge
        default: break
        }
        if transfer.httpVersion == .http2 || transfer.httpVersion == .http2PriorKnowledge, !CurlVersion.hasHTTP2 {
            throw .usage("this libcurl (\(CurlVersion.libcurl)) has no HTTP/2 support", hint: "leave out --\(versions[0].rawValue)")
        }

        try CommandOptions.parseConnectionArguments(args, into: &transfer, environment: environment)
        if let v = args.value(.maxFilesize) {
            transfer.maxFileSize = try CommandOptions.size(v, option: "max-filesize", example: "100M")
        }
        if let v = args.value(.maxHeaders) {
            guard let n = Int(v), n >= 0 else { throw .usage("--max-headers: '\(v)' is not a whole number") }
            transfer.maxHeaders = n
        }

        if let a = args.value(.auth) {
            // By scalar: ':' before a combining mark is one Character.
            if let colon = a.unicodeScalars.firstIndex(of: ":") {
                authUser = String(a.unicodeScalars[..<colon])
                authPassword = String(a.unicodeScalars[a.unicodeScalars.index(after: colon)...])
            } else {
                authUser = a
            }
        }
        if let t = args.value(.authType) { transfer.authType = AuthType(rawValue: t) ?? .basic }
        // Digest takes its user and password from the URL or netrc too, as curl's --digest does
        // (with none, the request goes without); a bearer token only from --auth.
        if transfer.authType == .bearer && authUser == nil && args.has(.authType) {
            throw .usage("--auth-type bearer needs --auth", hint: "e.g. -A bearer -a TOKEN")
        }
        if let user = authUser {
            // The token or user name goes into a header (bearer, basic) or to libcurl raw (digest):
            // refused here, before a password prompt, rather than sent with a line break inside.
            if transfer.authType == .bearer {
                try HeaderValue.check(user + (authPassword.map { ":" + $0 } ?? ""), "--auth (the bearer token)")
            } else {
                try HeaderValue.check(user, "--auth (the user name)")
                if let p = authPassword { try HeaderValue.check(p, "--auth (the password)") }
            }
        }
        if !args.has(.ignoreNetrc) { transfer.netrc = CommandOptions.loadNetrc(environment) }
    }

    /// Where and how to connect: `--connect-timeout`, `--proxy` (else the proxy variables),
    /// `--unix-socket`, `--resolve`, `-4`/`-6`. Shared by every command that connects (certs too).
    static func parseConnectionArguments(_ args: ParsedArguments, into transfer: inout TransferOptions,
                                         environment: Environment) throws(SwurlError) {
        if let v = args.value(.connectTimeout) { transfer.connectTimeout = try CommandOptions.seconds(v, "connect-timeout") }
        transfer.proxy = ProxySettings(variables: environment.variables)
        if let p = args.value(.proxy) {
            // HTTPie's PROTOCOL:URL (`--proxy=http:http://host:3128`).
            if let colon = p.firstIndex(of: ":"), p[..<colon].allSatisfy(\.isLetter), !p[colon...].hasPrefix("://"),
               p[p.index(after: colon)...].containsText("://") {
                throw .usage("--proxy: '\(Redactor.givenURL(p))' is HTTPie's PROTOCOL:URL form",
                             hint: "swurl's --proxy takes the proxy's URL alone and uses it for every URL: --proxy \(Redactor.givenURL(String(p[p.index(after: colon)...])))")
            }
            guard ProxySettings.hasKnownScheme(p) else {
                throw .usage("--proxy: unsupported proxy scheme in '\(Redactor.givenURL(p))'", hint: ProxySettings.schemesHint)
            }
            // curl's `--noproxy '*'` habit typed as `--proxy '*'`: libcurl refused it only when sending (exit 1).
            if p == "*" {
                throw .usage("--proxy: '*' is not a proxy", hint: "no proxy for this request is --proxy '' (an empty value)")
            }
            if !p.isEmpty, let why = ProxySettings.fault(p) {
                throw .usage("--proxy: '\(Redactor.givenURL(p))' is not a proxy URL: \(why)", hint: "e.g. --proxy http://127.0.0.1:3128")
            }
            transfer.proxy.explicit = p
        }
        transfer.unixSocket = args.value(.unixSocket)
        if let path = transfer.unixSocket {
            // An empty one is none, as in curl; a path longer than a socket address holds
            // (sun_path, 108 bytes with its NUL) can never be connected to.
            if path.isEmpty { transfer.unixSocket = nil }
            let bytes = ArgumentBytes.bytes(path).count
            guard bytes < 108 else {
                throw .usage("--unix-socket: the path is \(bytes) bytes long; a socket's path holds at most 107",
                             hint: "use a shorter path to the socket (a relative one, or a link to it)")
            }
        }
        // libcurl connects to the socket and drops the proxy without a word (url.c: "do not mix
        // proxy and unix domain sockets"); the proxy variables are left out the same way.
        if transfer.unixSocket != nil, let p = transfer.proxy.explicit, !p.isEmpty {
            throw .usage("--proxy and --unix-socket cannot be combined: the request would go to the socket, never through the proxy",
                         hint: "drop one of them")
        }
        for entry in args.values(.resolve) {
            let parts = entry.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3, !parts[0].isEmpty, Int(parts[1]) != nil, !parts[2].isEmpty else {
                throw .usage("--resolve: '\(entry)' is not HOST:PORT:ADDR", hint: "e.g. --resolve example.org:443:127.0.0.1")
            }
            // libcurl reads a leading '-' as "remove this entry": the host would resolve through
            // DNS, the opposite of what was asked. (A '+', "never times out", is libcurl's too.)
            if parts[0].hasPrefix("-") {
                throw .usage("--resolve: '\(entry)': a host name cannot start with '-' (libcurl reads it as removing the entry)",
                             hint: "e.g. --resolve example.org:443:127.0.0.1")
            }
            guard let port = Int(parts[1]), (1...65535).contains(port) else {
                throw .usage("--resolve: the port '\(parts[1])' in '\(entry)' is not 1 to 65535", hint: "e.g. --resolve example.org:443:127.0.0.1")
            }
            // Each address is an IP address (IPv6 in brackets or not), as libcurl takes them.
            // (An empty element, a trailing comma, is skipped, as libcurl skips it.)
            guard parts[2].contains(where: { $0 != "," }) else {
                throw .usage("--resolve: '\(entry)' names no address", hint: "e.g. --resolve example.org:443:127.0.0.1")
            }
            for address in parts[2].split(separator: ",") {
                var text = String(address)
                if text.hasPrefix("[") && text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
                var buffer = in6_addr()
                guard inet_pton(AF_INET, text, &buffer) == 1 || inet_pton(AF_INET6, text, &buffer) == 1 else {
                    throw .usage("--resolve: '\(address)' in '\(entry)' is not an IP address", hint: "e.g. --resolve example.org:443:127.0.0.1")
                }
            }
            transfer.resolve.append(entry)
        }
        if args.has(.ipv4) && args.has(.ipv6) { throw .usage("-4 and -6 cannot be combined") }
        if args.has(.ipv4) { transfer.ipVersion = .v4 }
        if args.has(.ipv6) { transfer.ipVersion = .v6 }
    }

    /// Whether `text` is a rate of zero (`0`, `0K`, `0.0M`, `0B/s`): no limit.
    static func isZeroRate(_ text: String) -> Bool { decimal(rateNumber(text).number) == 0 }

    /// A size option's value (`--max-filesize`, `--cache-max`), or the usage error that says what
    /// is wrong with it: no size at all, or one past the largest swurl takes (10^15 bytes).
    static func size(_ text: String, option: String, example: String) throws(SwurlError) -> Int64 {
        if let size = parseRate(text) { return size }
        let (t, multiplier) = rateNumber(text)
        if let v = decimal(t), v.isFinite, v * multiplier >= 1e15 {
            throw .usage("--\(option): '\(text)' is not below 10^15 bytes, the largest size swurl takes",
                         hint: "e.g. --\(option) \(example) (bytes; K, M, G)")
        }
        throw .usage("--\(option): '\(text)' is not a size", hint: "e.g. --\(option) \(example) (bytes; K, M, G)")
    }

    /// `100`, `100K`, `2M`, `1G` (powers of 1024; a trailing `B` or `/s` is allowed).
    static func parseRate(_ text: String) -> Int64? {
        let (t, multiplier) = rateNumber(text)
        // Whole bytes: `1.5` alone is no size (`1.5K` is).
        guard let v = decimal(t), v > 0, v.isFinite, v * multiplier < 1e15, multiplier > 1 || v == v.rounded() else { return nil }
        return max(1, Int64(v * multiplier))
    }

    /// A rate's number without its unit (`/s`, `B`) and the power of 1024 its K, M or G stands for.
    private static func rateNumber(_ text: String) -> (number: String, multiplier: Double) {
        var t = text.asciiUppercased
        if t.hasSuffix("/S") { t.removeLast(2) }
        if t.hasSuffix("B") { t.removeLast() }
        var multiplier: Double = 1
        if let last = t.last, let m = ["K": 1024.0, "M": 1024.0 * 1024, "G": 1024.0 * 1024 * 1024][String(last)] {
            multiplier = m
            t.removeLast()
        }
        return (t, multiplier)
    }

    /// A decimal number (`2`, `2.5`, `1e3`), never hexadecimal (`0x10`, which Double reads), nil
    /// for anything else.
    static func decimal(_ text: String) -> Double? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) || ".eE+-".utf8.contains($0) }) else { return nil }
        return Double(text)
    }

    /// The longest duration any option takes (about 11.5 days): beyond it milliseconds overflow
    /// libcurl's options and nobody means it.
    static let maxSeconds: Double = 1_000_000

    static func seconds(_ v: String, _ name: String, allowZero: Bool = false) throws(SwurlError) -> Double {
        guard let t = decimal(v), t.isFinite, allowZero ? t >= 0 : t > 0 else {
            throw .usage("--\(name): '\(v)' is not \(allowZero ? "a number of seconds, 0 or more" : "a positive number of seconds")",
                         hint: "e.g. " + (OptionTable.spec(long: name)?.example("2.5") ?? "--\(name) 2.5"))
        }
        guard t <= maxSeconds else {
            throw .usage("--\(name): \(v) seconds is too long", hint: "at most \(Int(maxSeconds)) seconds")
        }
        return t
    }

    /// The netrc files a warning was given for in this run.
    private static let netrcWarned = Mutex<Set<String>>([])

    /// `$NETRC` or `~/.netrc`, when it exists and is readable.
    /// One that another user could have changed (the rule of config and session files) is not
    /// used: its `machine` and `default` entries would send them passwords of their choosing, or
    /// send yours to hosts of theirs. A warning says so, once a run.
    static func loadNetrc(_ environment: Environment) -> Netrc? {
        guard let path = environment.variables["NETRC"] ?? environment.homeDirectory.map({ $0 + "/.netrc" }) else { return nil }
        guard let text = readSmallFile(path) else { return nil }
        if let doubt = FileTrust.doubt(path) {
            // Once a run: a batch's lines and the REPL's read it again each (it may be mended meanwhile).
            // (Not spent on a line whose -qq silences it.)
            if !(environment.stderr is QuietMessagesSink), netrcWarned.withLock({ $0.insert(path).inserted }) {
                try? environment.stderr.write("swurl: warning: \(TerminalSanitizer.clean(path)) is not used: \(doubt.reason); \(doubt.fix)\n")
            }
            return nil
        }
        var netrc = Netrc(parsing: text)
        if environment.variables["NETRC"] != nil { netrc.namedFile = path }
        return netrc
    }

    /// A file's text when it is a regular file under 1 MiB.
    static func readSmallFile(_ path: String) -> String? {
        guard let bytes = try? SmallFile.read(path, maxSize: (1 << 20) - 1, regularOnly: true) else { return nil }
        // Bytes that are not UTF-8 stay themselves (`ArgumentBytes` escapes), not U+FFFD.
        return ArgumentBytes.decode(bytes)
    }
}
