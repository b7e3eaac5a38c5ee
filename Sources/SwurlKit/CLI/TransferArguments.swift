#if canImport(Glibc)
@preconcurrency import Glibc
#endif

extension CommandOptions {
    /// Validates the download, auth, retry, timing and connection options.
    /// - Throws: `SwurlError.usage` for a bad value or a contradictory combination.
    mutating func parseTransferArguments(_ args: ParsedArguments, environment: Environment) throws(SwurlError) {
        download = args.has("download")
        resume = args.has("continue")
        overwrite = args.has("overwrite")
        quiet = args.has("quiet")
        showAllHops = args.has("all")
        if args.has("timing") { timing = args.value("timing") ?? "text" }
        if resume && !download { throw .usage("--continue works with --download", hint: "add -d") }
        if resume && overwrite { throw .usage("--continue and --overwrite cannot be combined") }
        if download && offline { throw .usage("--download and --offline cannot be combined") }
        if download { transfer.followRedirects = true }

        if let v = args.value("limit-rate") {
            guard let rate = CommandOptions.parseRate(v) else {
                throw .usage("--limit-rate: '\(v)' is not a rate", hint: "e.g. --limit-rate 100K (bytes per second; K, M, G)")
            }
            transfer.maxReceiveRate = rate
            transfer.maxSendRate = rate
        }
        if let v = args.value("connect-timeout") { transfer.connectTimeout = try CommandOptions.seconds(v, "connect-timeout") }
        if let v = args.value("retry") {
            guard let n = Int(v), n >= 0, n <= 1000 else {
                throw .usage("--retry: '\(v)' is not a whole number from 0 to 1000", hint: "e.g. --retry 3")
            }
            transfer.retry.maxRetries = n
        }
        if let v = args.value("retry-delay") { transfer.retry.baseDelay = try CommandOptions.seconds(v, "retry-delay", allowZero: true) }
        if let v = args.value("retry-max-time") { transfer.retry.maxTime = try CommandOptions.seconds(v, "retry-max-time") }
        transfer.retry.allMethods = args.has("retry-all-methods")

        let versions = ["http1.1", "http2", "http2-prior-knowledge"].filter { args.has($0) }
        if versions.count > 1 { throw .usage("--\(versions[0]) and --\(versions[1]) cannot be combined") }
        switch versions.first {
        case "http1.1": transfer.httpVersion = .http1_1
        case "http2": transfer.httpVersion = .http2
        case "http2-prior-knowledge": transfer.httpVersion = .http2PriorKnowledge
        default: break
        }
        if transfer.httpVersion == .http2 || transfer.httpVersion == .http2PriorKnowledge, !CurlVersion.hasHTTP2 {
            throw .usage("this libcurl (\(CurlVersion.libcurl)) has no HTTP/2 support", hint: "leave out --\(versions[0])")
        }

        transfer.proxy = ProxySettings(variables: environment.variables)
        if let p = args.value("proxy") {
            let scheme = URLBuilder.schemeOf(p)?.lowercased()
            guard scheme == nil || ["http", "https", "socks4", "socks4a", "socks5", "socks5h"].contains(scheme ?? "") else {
                throw .usage("--proxy: unsupported proxy scheme in '\(p)'", hint: "use http://, https://, socks5:// or socks5h://")
            }
            transfer.proxy.explicit = p
        }
        transfer.unixSocket = args.value("unix-socket")
        for entry in args.values("resolve") {
            let parts = entry.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3, !parts[0].isEmpty, Int(parts[1]) != nil, !parts[2].isEmpty else {
                throw .usage("--resolve: '\(entry)' is not HOST:PORT:ADDR", hint: "e.g. --resolve example.org:443:127.0.0.1")
            }
            transfer.resolve.append(entry)
        }
        if args.has("ipv4") && args.has("ipv6") { throw .usage("-4 and -6 cannot be combined") }
        if args.has("ipv4") { transfer.ipVersion = .v4 }
        if args.has("ipv6") { transfer.ipVersion = .v6 }
        if let v = args.value("max-headers") {
            guard let n = Int(v), n >= 0 else { throw .usage("--max-headers: '\(v)' is not a whole number") }
            transfer.maxHeaders = n
        }

        if let a = args.value("auth") {
            // By scalar: ':' before a combining mark is one Character.
            if let colon = a.unicodeScalars.firstIndex(of: ":") {
                authUser = String(a.unicodeScalars[..<colon])
                authPassword = String(a.unicodeScalars[a.unicodeScalars.index(after: colon)...])
            } else {
                authUser = a
            }
        }
        if let t = args.value("auth-type") { transfer.authType = AuthType(rawValue: t) ?? .basic }
        if transfer.authType != .basic && authUser == nil && args.has("auth-type") {
            throw .usage("--auth-type \(transfer.authType.rawValue) needs --auth", hint: transfer.authType == .bearer ? "e.g. -A bearer -a TOKEN" : "e.g. -A digest -a user:password")
        }
        if !args.has("ignore-netrc") { transfer.netrc = CommandOptions.loadNetrc(environment) }
    }

    /// `100`, `100K`, `2M`, `1G` (powers of 1024; a trailing `B` or `/s` is allowed).
    static func parseRate(_ text: String) -> Int64? {
        var t = text.uppercased()
        if t.hasSuffix("/S") { t.removeLast(2) }
        if t.hasSuffix("B") { t.removeLast() }
        var multiplier: Double = 1
        if let last = t.last, let m = ["K": 1024.0, "M": 1024.0 * 1024, "G": 1024.0 * 1024 * 1024][String(last)] {
            multiplier = m
            t.removeLast()
        }
        guard let v = Double(t), v > 0, v.isFinite, v * multiplier < 1e15 else { return nil }
        return max(1, Int64(v * multiplier))
    }

    /// The longest duration any option takes (about 11.5 days): beyond it milliseconds overflow
    /// libcurl's options and nobody means it.
    static let maxSeconds: Double = 1_000_000

    static func seconds(_ v: String, _ name: String, allowZero: Bool = false) throws(SwurlError) -> Double {
        guard let t = Double(v), t.isFinite, allowZero ? t >= 0 : t > 0 else {
            throw .usage("--\(name): '\(v)' is not a positive number of seconds", hint: "e.g. --\(name) 2.5")
        }
        guard t <= maxSeconds else {
            throw .usage("--\(name): \(v) seconds is too long", hint: "at most \(Int(maxSeconds)) seconds")
        }
        return t
    }

    /// `$NETRC` or `~/.netrc`, when it exists and is readable.
    static func loadNetrc(_ environment: Environment) -> Netrc? {
        guard let path = environment.variables["NETRC"] ?? environment.variables["HOME"].map({ $0 + "/.netrc" }) else { return nil }
        guard let text = readSmallFile(path) else { return nil }
        return Netrc(parsing: text)
    }

    /// A file's text when it is a regular file under 1 MiB.
    static func readSmallFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_size < 1 << 20 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(st.st_size))
        var got = 0
        while got < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress.map { $0 + got }, $0.count - got) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            got += n
        }
        return String(decoding: bytes.prefix(got), as: UTF8.self)
    }
}
