#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlCurl
import SwurlEngine
import SwurlCore
/// `swurl reach HOST|URL [--watch] [--json] [--timeout S] [TLS OPTIONS]`: whether a host is
/// reachable and over what (AFNetworkReachabilityManager for the shell); sends no request.
enum ReachCommand: SwurlCommand {
    static let name = CommandName.reach
    static let word: String? = "reach"
    static let invocation = "swurl reach HOST"
    static let usage = "swurl reach HOST|URL [--watch] [--json] [--timeout SECONDS] [OPTIONS]"
    package static let summary = "check name, route, interface, TCP and TLS to a host; --watch for changes"

    /// Connects when no --connect-timeout or --timeout says otherwise.
    static let defaultConnectTimeout = 10.0

    /// - Returns: 0 reachable, 1 not reachable, 2 connect timed out (or the --watch time ran out),
    ///   7 TLS trust or pin failure (a TLS protocol failure is 1, as for a request).
    static func run(_ args: ParsedArguments, environment: Environment) throws(SwurlError) -> ExitStatus {
        let printed = Printed()
        do {
            return try check(args, environment: environment, printed: printed)
        } catch {
            // A script reading --json gets an object either way (the message goes to stderr too),
            // a target or an option refused before any check included, as `certs --json` does.
            if args.has(.json), !printed.any, error != .interrupted {
                let exit = JSONValue.number(String(ExitStatus(for: error).rawValue))
                let text = JSONValue.object([
                    .init("target", args.positionals.first.map { .string(Redactor.givenURL($0)) } ?? .null),
                    .init("reachable", .bool(false)), .init("error", .string(error.message)),
                    .init("status", exit), .init("exit", exit),
                ]).serialized + "\n"
                try? environment.stdout.write(text)
            }
            throw error
        }
    }

    /// Whether a report went to stdout (after one, a failure prints no object of its own).
    private final class Printed { var any = false }

    private static func check(_ args: ParsedArguments, environment: Environment, printed: Printed) throws(SwurlError) -> ExitStatus {
        let rest = args.positionals[...]
        guard let raw = rest.first else {
            throw .usage("swurl reach needs a host or URL", hint: "e.g. swurl reach example.org, swurl reach https://example.org, swurl reach :8080")
        }
        if rest.count > 1 {
            throw .usage("swurl reach takes one host or URL (got also '\(rest.dropFirst().joined(separator: " "))')")
        }
        let url = try URLBuilder.resolve(raw, defaultScheme: args.value(.defaultScheme) ?? "http")
        guard url.scheme == "http" || url.scheme == "https" else {
            throw .usage("swurl reach checks http and https targets (got '\(url.scheme)')")
        }
        let policy = try SecurityArguments.policy(from: args, environment: environment)
        // A pin on plain http is refused here as in every door: reported reachable, it would
        // read as a pin that held.
        try Exchange.refusePinOverPlainHTTP(url.url, policy)
        if url.scheme == "https", let warning = policy.weakeningWarning {
            try? environment.stderr.write("swurl: warning: \(warning)\n")
        }
        var timeout: Double?
        if let v = args.value(.timeout) { timeout = try CommandOptions.seconds(v, "timeout") }
        var connectTimeout: Double?
        if let v = args.value(.connectTimeout) { connectTimeout = try CommandOptions.seconds(v, "connect-timeout") }
        if args.has(.ipv4) && args.has(.ipv6) { throw .usage("-4 and -6 cannot be combined") }
        let family: Int32? = args.has(.ipv4) ? AF_INET : args.has(.ipv6) ? AF_INET6 : nil
        let watch = args.has(.watch)
        var target = ReachabilityTarget(url: url, family: family, policy: policy,
                                        connectTimeout: connectTimeout ?? (watch ? nil : timeout) ?? defaultConnectTimeout,
                                        sysfsRoot: "/sys/class/net")
        // --resolve as a request takes it (and checks its entries).
        var connection = TransferOptions()
        try CommandOptions.parseConnectionArguments(args, into: &connection, environment: environment)
        target.resolve = connection.resolve
        // An address of the other family can be reached by nothing, as a request refuses it
        // (reach connects straight, never through a proxy).
        try Exchange.refuseOtherAddressFamily(url.url, connection.ipVersion, resolve: connection.resolve)
        let json = args.has(.json)
        Interrupt.arm()
        if watch {
            try Reachability.watch(target, timeout: timeout) { report throws(SwurlError) in
                let stamp = timestamp()
                let line = json ? jsonObject(report, time: stamp).serialized : "\(stamp) \(report.verdictText)"
                printed.any = true
                try Swurl.write(TerminalSanitizer.clean(line) + "\n", to: environment.stdout)
            }
            return .timedOut
        }
        let monitor = try RouteMonitor(events: false)
        let report = try Reachability.evaluate(target, monitor: monitor)
        printed.any = true
        try Swurl.write(json ? jsonObject(report, time: nil).serialized + "\n" : text(report), to: environment.stdout)
        return report.status
    }

    /// The report, one step a line, the verdict last.
    static func text(_ r: ReachabilityReport) -> String {
        func ms(_ s: Double) -> String { formatMilliseconds(s) }
        let t = r.target
        var lines = ["target   \(t.url.scheme)://\(t.endpoint)"]
        if let e = r.resolveError {
            lines.append("name     \(t.host): \(e) (\(ms(r.resolveSeconds)))")
        } else {
            lines.append("name     \(t.host) → \(r.addresses.map(\.text).joined(separator: ", ")) (\(ms(r.resolveSeconds)))")
        }
        for step in r.routes {
            if let route = step.route {
                var line = "route    \(step.address.text)"
                if let g = route.gateway { line += " via \(g)" }
                line += " dev \(route.interface)"
                if let s = route.source { line += " src \(s)" }
                if let i = step.interface { line += " — \(i.label) (\(i.evidence))" }
                if let e = step.error { line += ": \(e)" }
                lines.append(line)
            } else {
                lines.append("route    \(step.address.text): \(step.error ?? "no route")")
            }
        }
        for c in r.connects {
            lines.append("connect  \(Reachability.endpoint(c.address, t.port)) \(c.error ?? "accepted") (\(ms(c.seconds)))")
        }
        if let tls = r.tls {
            if let e = tls.error {
                lines.append("tls      \(e)")
            } else {
                var line = "tls      "
                if let s = tls.summary { line += "\(s.version), \(s.cipher); \(s.verification)" } else { line += "ok" }
                if let secs = tls.seconds { line += " (\(ms(secs)))" }
                lines.append(line)
            }
        }
        lines.append(r.verdictText)
        return lines.map { TerminalSanitizer.clean($0) }.joined(separator: "\n") + "\n"
    }

    static func formatMilliseconds(_ s: Double) -> String {
        let ms = (s * 10000).rounded() / 10
        return "\(ms) ms"
    }

    /// Every field of the report as one JSON object (seconds as numbers, absent steps null).
    static func jsonObject(_ r: ReachabilityReport, time: String?) -> JSONValue {
        typealias M = JSONValue.Member
        func num(_ d: Double) -> JSONValue { .number(String((d * 1_000_000).rounded() / 1_000_000)) }
        func str(_ s: String?) -> JSONValue { s.map { .string($0) } ?? .null }
        let t = r.target
        var members: [M] = []
        if let time { members.append(M("time", .string(time))) }
        let (reachable, kind, interface, reason): (Bool, String?, String?, String?) = {
            switch r.verdict {
            case .reachable(let k, let i): return (true, k.rawValue, i, nil)
            case .notReachable(let why): return (false, nil, nil, why)
            }
        }()
        members += [
            M("target", .string("\(t.url.scheme)://\(t.endpoint)")),
            M("host", .string(t.host)),
            M("port", .number(String(t.port))),
            M("scheme", .string(t.url.scheme)),
            M("reachable", .bool(reachable)),
            M("verdict", .string(r.verdictText)),
            M("kind", str(kind)),
            M("interface", str(interface)),
            M("virtual", r.path?.interface.map { .bool($0.virtual) } ?? .null),
            M("reason", str(reason)),
            M("status", .number(String(r.status.rawValue))),
            // The name batch --jsonl and certs --json give the exit status.
            M("exit", .number(String(r.status.rawValue))),
            M("resolution", .object([
                M("addresses", .array(r.addresses.map { .string($0.text) })),
                M("seconds", num(r.resolveSeconds)),
                M("error", str(r.resolveError)),
            ])),
            M("routes", .array(r.routes.map { step in
                .object([
                    M("address", .string(step.address.text)),
                    M("interface", str(step.route?.interface)),
                    M("index", step.route.map { .number(String($0.interfaceIndex)) } ?? .null),
                    M("gateway", str(step.route?.gateway)),
                    M("source", str(step.route?.source)),
                    M("local", step.route.map { .bool($0.local) } ?? .null),
                    M("kind", str(step.interface?.kind.rawValue)),
                    M("virtual", step.interface.map { .bool($0.virtual) } ?? .null),
                    M("evidence", str(step.interface?.evidence)),
                    M("error", str(step.error)),
                ])
            })),
            M("connects", .array(r.connects.map { c in
                .object([
                    M("address", .string(c.address.text)),
                    M("port", .number(String(t.port))),
                    M("seconds", num(c.seconds)),
                    M("error", str(c.error)),
                ])
            })),
            M("tls", r.tls.map { tls in
                .object([
                    M("seconds", tls.seconds.map(num) ?? .null),
                    M("version", str(tls.summary?.version)),
                    M("cipher", str(tls.summary?.cipher)),
                    M("certificate", str(tls.summary?.certificate)),
                    M("verification", str(tls.summary?.verification)),
                    M("error", str(tls.error)),
                ])
            } ?? .null),
        ]
        return .object(members)
    }

    /// `2026-11-30T22:10:01.123Z` (UTC, milliseconds).
    static func timestamp() -> String { Timestamp.iso8601(Timestamp.now()) }
}
