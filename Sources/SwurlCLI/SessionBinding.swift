import SwurlEngine
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
    /// The stored cookies for the request's host: those the first hop can send (`--offline`,
    /// `--curl`). The exchange hands each hop's host its own (`Exchange`).
    let cookiesSent: [SessionCookie]

    /// Header names a session never keeps: per-request ones and credentials (which a session
    /// keeps bound to their origin instead).
    static func isStorable(_ name: String) -> Bool {
        let n = name.lowercased()
        if n.hasPrefix("content-") || n.hasPrefix("if-") { return false }
        // Also one request's own: a repeated Idempotency-Key makes a server answer every later
        // POST with the first one's response and do nothing; Last-Event-ID resumes one stream.
        return !["host", "authorization", "proxy-authorization", "cookie", "cookie2", "transfer-encoding",
                 "connection", "keep-alive", "te", "upgrade", "expect", "range", "trailer",
                 "idempotency-key", "last-event-id"].contains(n)
    }

    /// The directory named sessions live under: `$XDG_CONFIG_HOME`, else `~/.config`; nil
    /// without a home directory.
    static func configDirectory(_ environment: Environment) -> String? {
        Environment.baseDirectory(environment.variables, "XDG_CONFIG_HOME", fallback: ".config")
    }

    /// Reads the session for `request`'s origin; nil without `--session`. Entries the session
    /// skips (a bad cookie) or ignores (a header it never sends) are warned about on stderr.
    /// - Throws: `SwurlError.badData` (65) for an invalid file, `.inputFile` (66) for one that
    ///   cannot be read or is not a regular file, `.usage` for a bad name.
    static func open(_ options: CommandOptions, request: HTTPRequest, environment: Environment) throws(SwurlError) -> SessionBinding? {
        guard let value = options.session ?? options.sessionReadOnly else { return nil }
        let origin = try Origin(url: request.url)
        let given = value.contains("/") ? environment.resolvePath(value) : value
        let store = try SessionStore.location(given, origin: origin, configDirectory: configDirectory(environment),
                                              option: options.session != nil ? "--session" : "--session-read-only")
        var warnings: [String] = []
        let loaded = try store.load(warnings: &warnings)
        // A session that will be saved is refused now, before the request, where it could not be.
        // `--offline` and `--curl` send nothing and so save nothing: they read it as
        // `--session-read-only` does.
        if options.sessionReadOnly == nil && !options.offline && !options.curl { try store.checkPlace() }
        warnings += ignoredHeaders(loaded.headers, file: store.path)
        for warning in warnings { try? environment.stderr.write("swurl: warning: \(warning)\n") }
        let sent = loaded.cookies.filter { $0.applies(toHost: origin.bareHost) }
        return SessionBinding(store: store, readOnly: options.sessionReadOnly != nil, loaded: loaded, origin: origin,
                              cookiesSent: sent)
    }

    /// A warning for each stored header a session never sends (added to the file by hand):
    /// credentials, cookies, `Host` and per-request headers. They stay in the file as they are.
    static func ignoredHeaders(_ headers: [HTTPHeaders.Field], file: String) -> [String] {
        headers.enumerated().filter { !isStorable($0.element.name) }.map { i, field in
            let why: String
            switch field.name.lowercased() {
            case "authorization", "proxy-authorization":
                why = "a session sends only the credentials of its \"auth\" entry, and only to their origin (store them with --auth)"
            case "cookie", "cookie2": why = "a session sends the cookies of its \"cookies\" entries, each to its own host"
            case "host": why = "a session never sets Host (the URL's host is sent; give Host: on the command line)"
            default: why = "it belongs to one request, so a session never sends it"
            }
            return "the session file \(TerminalSanitizer.clean(file)): headers[\(i)] (\(TerminalSanitizer.clean(field.name))) is ignored: "
                + "\(why); remove it from the file"
        }
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
        // Only a name the request has already (a default) is replaced; the rest are appended, so
        // that a long list costs one pass, not one pass over the request's headers each.
        let present = Set(request.headers.fields.map { $0.name.lowercased() })
        var replaced: Set<String> = []
        for field in loaded.headers where !given.contains(field.name.lowercased()) && SessionBinding.isStorable(field.name) {
            let key = field.name.lowercased()
            if replaced.insert(key).inserted && present.contains(key) {
                request.headers.set(field.name, field.value)
            } else {
                request.headers.add(field.name, field.value)
            }
        }
    }

    /// The stored credentials, when the command line gives none and the request goes to the
    /// origin they were first used with; and the stored cookies, which the exchange hands to
    /// each hop's host.
    func apply(to transfer: inout TransferOptions, options: CommandOptions, url: String) {
        transfer.sessionCookies = loaded.cookies
        // Credentials given for this run win over the stored ones: --auth, and a URL's user info
        // (`http://u:p@host/`), which the stored ones would otherwise replace without a word.
        guard options.authUser == nil, !Exchange.hasUserInfo(url), let auth = loaded.auth,
              (try? Origin(url: auth.origin))?.description == origin.description else { return }
        // `-A digest` for this run (the command line's or the config's) keeps Digest: a stored
        // password never goes as Basic where Digest was asked for, and a stored token is none.
        if transfer.authType == .digest {
            if auth.type != .bearer { transfer.credentials = Credentials(user: auth.user, password: auth.password) }
            return
        }
        transfer.authType = auth.type
        if auth.type == .bearer {
            transfer.bearerToken = auth.user
        } else {
            transfer.credentials = Credentials(user: auth.user, password: auth.password)
        }
    }

    /// The session as this run leaves it: command-line headers replace stored ones of the same
    /// name (`Name:` removes), new credentials replace the stored ones, the engine's cookies
    /// replace those that were handed to it (`handed`, by key).
    func updated(options: CommandOptions, transfer: TransferOptions, cookies: [SessionCookie],
                 handed: Set<String>) -> SessionData {
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
        after.cookies = SessionBinding.cookies(loaded.cookies, handed: handed, engine: cookies)
        return after
    }

    /// The stored cookies after an exchange, in creation order: a handed cookie the engine still
    /// holds keeps its place with the engine's value, one it no longer holds is gone, one never
    /// handed stays; the engine's new cookies follow (one per key, the last listed winning).
    static func cookies(_ stored: [SessionCookie], handed: Set<String>, engine: [SessionCookie]) -> [SessionCookie] {
        var latest: [String: SessionCookie] = [:]
        for c in engine { latest[c.key] = c }
        var placed: Set<String> = []
        var out: [SessionCookie] = []
        for c in stored where placed.insert(c.key).inserted {
            if !handed.contains(c.key) {
                out.append(c)
            } else if let now = latest[c.key] {
                out.append(now)
            }
        }
        for c in engine where placed.insert(c.key).inserted {
            if let now = latest[c.key] { out.append(now) }
        }
        return out
    }

    /// Writes the run's changes unless read-only; the store's warnings (cookies dropped to keep
    /// the file within its limits) go to stderr.
    /// - Parameter session: the exchange, for the cookies its engine held and which it was handed.
    /// - Throws: `SwurlError.output` when the file cannot be written (`Environment.stateNotSaved`
    ///   is told too).
    func save(options: CommandOptions, transfer: TransferOptions, session: Exchange,
              environment: Environment) throws(SwurlError) {
        guard !readOnly else { return }
        let after = updated(options: options, transfer: transfer, cookies: session.cookiesAfterExchange,
                            handed: session.cookiesHanded)
        let warnings: [String]
        do {
            warnings = try store.save(from: loaded, to: after, now: Int64(Exchange.wallClock()), namesSet: session.cookieNamesSet)
        } catch .interrupted {
            // Stopped while another run held the session's lock: the response was received (and
            // written) whole; what the exit status says was stopped is the session's saving.
            try? environment.stderr.write("swurl: the session was not saved: stopped while waiting for another run's lock on it\n")
            throw .interrupted
        } catch {
            environment.stateNotSaved?(error)
            throw error
        }
        for warning in warnings { try? environment.stderr.write("swurl: warning: \(warning)\n") }
    }
}
