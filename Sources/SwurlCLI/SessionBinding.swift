import SwurlSession
import SwurlCore

/// `--session` / `--session-read-only` for one exchange: the stored headers, credentials and
/// cookies go into the request (the command line wins), and the run's changes go back into
/// the file after the response.
struct SessionBinding {
    let store: SessionStore
    let readOnly: Bool
    /// The session as read at the start.
    let loaded: SessionData
    let origin: Origin
    /// The stored cookies handed to the engine: those for the request's host.
    let cookiesSent: [SessionCookie]

    /// Header names a session never keeps: per-request ones and credentials (which a session
    /// keeps bound to their origin instead).
    static func isStorable(_ name: String) -> Bool {
        let n = name.lowercased()
        if n.hasPrefix("content-") || n.hasPrefix("if-") { return false }
        return !["host", "authorization", "proxy-authorization", "cookie", "cookie2", "transfer-encoding",
                 "connection", "keep-alive", "te", "upgrade", "expect", "range", "trailer"].contains(n)
    }

    /// The directory named sessions live under: `$XDG_CONFIG_HOME`, else `~/.config`.
    static func configDirectory(_ environment: Environment) -> String {
        if let x = environment.variables["XDG_CONFIG_HOME"], x.hasPrefix("/") { return x }
        return (environment.variables["HOME"] ?? "") + "/.config"
    }

    /// Reads the session for `request`'s origin; nil without `--session`.
    /// - Throws: `SwurlError.badData` (65) for an invalid file, `.usage` for a bad name.
    static func open(_ options: CommandOptions, request: HTTPRequest, environment: Environment) throws(SwurlError) -> SessionBinding? {
        guard let value = options.session ?? options.sessionReadOnly else { return nil }
        let origin = try Origin(url: request.url)
        let given = value.contains("/") ? environment.resolvePath(value) : value
        let store = try SessionStore.location(given, origin: origin, configDirectory: configDirectory(environment))
        let loaded = try store.load()
        let sent = loaded.cookies.filter { $0.applies(toHost: origin.host.filter { $0 != "[" && $0 != "]" }) }
        return SessionBinding(store: store, readOnly: options.sessionReadOnly != nil, loaded: loaded, origin: origin,
                              cookiesSent: sent)
    }

    /// Header names the command line sets, empties or removes.
    static func commandLineHeaderNames(_ options: CommandOptions) -> Set<String> {
        var names: Set<String> = []
        for item in options.items {
            switch item.kind {
            case .header(let n, _), .emptyHeader(let n), .removeHeader(let n): names.insert(n.lowercased())
            default: break
            }
        }
        return names
    }

    /// Adds the stored headers the command line does not mention (replacing swurl's defaults
    /// of the same name, such as Accept).
    func apply(to request: inout HTTPRequest, options: CommandOptions) {
        let given = SessionBinding.commandLineHeaderNames(options)
        var replaced: Set<String> = []
        for field in loaded.headers where !given.contains(field.name.lowercased()) && SessionBinding.isStorable(field.name) {
            let key = field.name.lowercased()
            if replaced.contains(key) {
                request.headers.add(field.name, field.value)
            } else {
                request.headers.set(field.name, field.value)
                replaced.insert(key)
            }
        }
    }

    /// The stored credentials, when the command line gives none and the request goes to the
    /// origin they were first used with; and the cookies for the request's host.
    func apply(to transfer: inout TransferOptions, options: CommandOptions) {
        transfer.sessionCookies = cookiesSent
        guard options.authUser == nil, let auth = loaded.auth, auth.origin == origin.description else { return }
        transfer.authType = auth.type
        if auth.type == .bearer {
            transfer.bearerToken = auth.user
        } else {
            transfer.credentials = Credentials(user: auth.user, password: auth.password)
        }
    }

    /// The session as this run leaves it: command-line headers replace stored ones of the same
    /// name (`Name:` removes), new credentials replace the stored ones, the engine's cookies
    /// replace those that were handed to it.
    func updated(options: CommandOptions, transfer: TransferOptions, cookies: [SessionCookie]) -> SessionData {
        var after = loaded
        let given = SessionBinding.commandLineHeaderNames(options)
        after.headers.removeAll { given.contains($0.name.lowercased()) }
        for item in options.items {
            switch item.kind {
            case .header(let n, let v) where SessionBinding.isStorable(n): after.headers.append(.init(name: n, value: v))
            case .emptyHeader(let n) where SessionBinding.isStorable(n): after.headers.append(.init(name: n, value: ""))
            default: break
            }
        }
        if options.authUser != nil {
            if transfer.authType == .bearer, let token = transfer.bearerToken {
                after.auth = SessionAuth(type: .bearer, origin: origin.description, user: token, password: "")
            } else if let c = transfer.credentials {
                after.auth = SessionAuth(type: transfer.authType, origin: origin.description, user: c.user, password: c.password)
            }
        }
        let handed = Set(cookiesSent.map(\.key))
        after.cookies = loaded.cookies.filter { !handed.contains($0.key) } + cookies
        return after
    }

    /// Writes the run's changes unless read-only.
    /// - Throws: `SwurlError.output` when the file cannot be written.
    func save(options: CommandOptions, transfer: TransferOptions, cookies: [SessionCookie]) throws(SwurlError) {
        guard !readOnly else { return }
        let after = updated(options: options, transfer: transfer, cookies: cookies)
        try store.save(from: loaded, to: after, now: Int64(TransferSession.wallClock()))
    }
}
