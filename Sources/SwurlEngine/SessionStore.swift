#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlCore

/// One cookie as libcurl's cookie engine lists it (CURLINFO_COOKIELIST, Netscape format) and
/// takes it back (CURLOPT_COOKIELIST). swurl never parses a `Set-Cookie` header itself: the
/// engine does, and this type only carries its seven tab-separated fields between runs.
package struct SessionCookie: Equatable, Sendable {
    /// The names of the cookies a response head sets (`Set-Cookie: NAME=…`).
    static func names(setBy headers: HTTPHeaders) -> Set<String> {
        Set(headers.values("Set-Cookie").map { String($0.prefix { $0 != "=" && $0 != ";" }).trimmingSpaces() })
    }

    /// The host (host-only cookie) or domain (with `includeSubdomains`) it belongs to.
    package var domain: String
    package var includeSubdomains: Bool
    package var path: String
    package var secure: Bool
    package var httpOnly: Bool
    /// Expiry as seconds since the epoch; 0 for a session cookie.
    package var expires: Int64
    package var name: String
    package var value: String

    /// The cookie's identity: a later cookie with the same domain, path and name replaces it.
    package var key: String { "\(domain.lowercased())\t\(path)\t\(name)" }

    /// Reads one line of CURLINFO_COOKIELIST; nil for a line that is not seven fields or holds a
    /// tab or control character in a field.
    package init?(netscapeLine line: String) {
        var text = Substring(line)
        httpOnly = text.hasPrefix("#HttpOnly_")
        if httpOnly { text = text.dropFirst(10) }
        let f = text.split(separator: "\t", maxSplits: 6, omittingEmptySubsequences: false)
        guard f.count == 7, let expiry = Int64(f[4]) else { return nil }
        includeSubdomains = f[1] == "TRUE"
        // libcurl writes a domain cookie's domain with a leading dot; keep the bare domain.
        domain = includeSubdomains && f[0].hasPrefix(".") ? String(f[0].dropFirst()) : String(f[0])
        path = String(f[2])
        secure = f[3] == "TRUE"
        expires = expiry
        name = String(f[5])
        value = String(f[6])
        // What the session reader refuses is never kept: a tab or control character (libcurl's
        // parser lets a tab through in a value) would make the saved file unreadable for good.
        for field in [domain, path, name, value]
        where field.unicodeScalars.contains(where: { $0 == "\t" || HeaderValue.isForbidden($0) }) {
            return nil
        }
    }

    package init(domain: String, includeSubdomains: Bool, path: String, secure: Bool, httpOnly: Bool,
                expires: Int64, name: String, value: String) {
        self.domain = domain
        self.includeSubdomains = includeSubdomains
        self.path = path
        self.secure = secure
        self.httpOnly = httpOnly
        self.expires = expires
        self.name = name
        self.value = value
    }

    /// The line CURLOPT_COOKIELIST takes.
    package var netscapeLine: String {
        let d = includeSubdomains ? "." + domain : domain
        return "\(httpOnly ? "#HttpOnly_" : "")\(d)\t\(includeSubdomains ? "TRUE" : "FALSE")\t\(path)\t"
            + "\(secure ? "TRUE" : "FALSE")\t\(expires)\t\(name)\t\(value)"
    }

    /// Whether the cookie may be sent to `host`: a host-only cookie to its exact host, a domain
    /// cookie to the domain and its subdomains. Only such cookies are handed to the engine, so a
    /// session shared by two hosts never leaks one host's cookies to the other.
    package func applies(toHost host: String) -> Bool {
        let h = host.lowercased()
        let d = domain.lowercased()
        if h == d { return true }
        return includeSubdomains && !d.isEmpty && h.hasSuffix("." + d)
    }

    /// Whether the cookie had expired at `now` (seconds since the epoch).
    package func isExpired(now: Int64) -> Bool { expires != 0 && expires <= now }

    /// Whether the path is one RFC 6265 §5.2.4 keeps: it starts with `/`. An empty, relative or
    /// quoted `Path` attribute (which libcurl's engine lists as given) means the default path.
    package var hasValidPath: Bool { path.hasPrefix("/") }

    /// The default path of RFC 6265 §5.1.4 for a cookie set by a response to `requestPath`
    /// (the URL's path, without the query): up to, not including, its right-most `/`; `/` when
    /// that leaves nothing or the path does not start with `/`.
    package static func defaultPath(_ requestPath: String) -> String {
        let path = requestPath.prefix { $0 != "?" && $0 != "#" }
        guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// The bytes browsers count against their per-cookie limit: name and value.
    package var size: Int { name.utf8.count + value.utf8.count }
}

/// Credentials a session remembers, with the origin they were first used with: they are
/// sent to that origin only.
package struct SessionAuth: Equatable, Sendable {
    package var type: AuthType
    /// `scheme://host:port`, as `Origin.description` writes it.
    package var origin: String
    /// The user name, or the token for bearer.
    package var user: String
    package var password: String

    package init(type: AuthType, origin: String, user: String, password: String) {
        self.type = type
        self.origin = origin
        self.user = user
        self.password = password
    }
}

/// What a session holds: request headers, credentials, cookies.
package struct SessionData: Equatable, Sendable {
    package var headers: [HTTPHeaders.Field] = []
    package var auth: SessionAuth?
    package var cookies: [SessionCookie] = []

    package init(headers: [HTTPHeaders.Field] = [], auth: SessionAuth? = nil, cookies: [SessionCookie] = []) {
        self.headers = headers
        self.auth = auth
        self.cookies = cookies
    }

    /// This run's changes from `before` to `after`, applied to `self` (the file as it is on
    /// disk now, perhaps written by another process meanwhile): per header name and per
    /// cookie, the last writer wins; what another process changed and this run did not stays.
    package func merging(from before: SessionData, to after: SessionData) -> SessionData {
        var result = self
        // Headers, by lower-cased name.
        func grouped(_ fields: [HTTPHeaders.Field]) -> [String: [HTTPHeaders.Field]] {
            Dictionary(grouping: fields) { $0.name.lowercased() }
        }
        let old = grouped(before.headers), new = grouped(after.headers)
        // In the order the names appear (never a `Set`'s): the file's order is stable.
        let names = SessionData.unique((before.headers + after.headers).map { $0.name.lowercased() })
        for name in names where old[name] != new[name] {
            let at = result.headers.firstIndex { $0.name.lowercased() == name } ?? result.headers.endIndex
            result.headers.removeAll { $0.name.lowercased() == name }
            result.headers.insert(contentsOf: new[name] ?? [], at: min(at, result.headers.endIndex))
        }
        if before.auth != after.auth { result.auth = after.auth }
        // Cookies, by domain, path and name. A changed cookie keeps its place and a new one is
        // appended, so the file lists cookies in the order they were created (RFC 6265 §5.4's
        // tie-break when they are sent).
        let oldCookies = Dictionary(before.cookies.map { ($0.key, $0) }, uniquingKeysWith: { $1 })
        let newCookies = Dictionary(after.cookies.map { ($0.key, $0) }, uniquingKeysWith: { $1 })
        for key in SessionData.unique((before.cookies + after.cookies).map(\.key)) where oldCookies[key] != newCookies[key] {
            if let c = newCookies[key] {
                if let i = result.cookies.firstIndex(where: { $0.key == key }) { result.cookies[i] = c } else { result.cookies.append(c) }
            } else {
                result.cookies.removeAll { $0.key == key }
            }
        }
        return result
    }

    /// `keys` without repeats, in the order of their first appearance.
    static func unique(_ keys: [String]) -> [String] {
        var seen: Set<String> = []
        return keys.filter { seen.insert($0).inserted }
    }
}

/// A session file: `--session NAME|PATH`. Read at the start of a run, written (locked,
/// re-read, merged, written to a temporary file and renamed) after the response.
///
/// Files are 0600 and the directories swurl creates for them 0700, both created with those
/// modes. A file that is not a valid session (bad JSON, wrong types, more than 1 MiB) is an
/// error naming it (exit 65) and is never rewritten, and so is a file another user could have
/// changed (`FileTrust`: not the user's or root's, writable by others, or in a directory others
/// can write without the sticky bit). A cookie entry that is not valid is skipped with a
/// warning instead. A path that is not a regular file (a FIFO, a device) is refused (exit 66)
/// without opening it for good. Saving keeps the cookies within `SessionLimits`, so the file
/// never grows past what a later run reads, and writes through a symbolic link that is the
/// user's own to its target.
package struct SessionStore: Sendable {
    /// The file's path.
    package let path: String
    /// Session files larger than this are refused.
    package static let maxSize = 1 << 20
    /// The format version this swurl writes and reads.
    package static let version = 1
    /// How long a save waits for another writer's lock, in seconds.
    package static let lockWait = 10.0

    package init(path: String) { self.path = path }

    /// Refuses a value that names no session (a value with a `/` is a path, not a name).
    /// - Throws: `SwurlError.usage` naming `option`.
    package static func checkName(_ value: String, option: String) throws(SwurlError) {
        guard !value.contains("/") else { return }
        // A line break or other control character would make a file name no listing shows
        // as typed (HTTPie refuses them too).
        let control = value.unicodeScalars.contains { $0.value < 0x20 || ($0.value >= 0x7F && $0.value < 0xA0) }
        guard !value.isEmpty, value != ".", value != "..", !control else {
            throw .usage("\(option): '\(TerminalSanitizer.clean(value))' is not a session name"
                         + (control ? " (it holds a control character)" : ""),
                         hint: "use a name such as 'work', or a path with a /")
        }
        // NAME.json must fit a file name (255 bytes): a longer name was found out when the
        // response had come and the session could not be saved (exit 1), or read (66).
        guard value.utf8.count <= 250 else {
            throw .usage("\(option): the session name '\(TerminalSanitizer.excerpt(value, limit: 40))' is too long: "
                         + "a session file's name (NAME.json) holds at most 250 bytes of it",
                         hint: "use a shorter name, or a path with a /")
        }
    }

    /// Where `--session VALUE` lives: a VALUE with a `/` is a path used as is; a NAME is
    /// `CONFIG/swurl/sessions/HOST_PORT/NAME.json`, so one name on two hosts is two sessions.
    /// - Parameter configDirectory: `$XDG_CONFIG_HOME`, else `~/.config`; nil without a home
    ///   directory.
    /// - Throws: `SwurlError.usage` for an empty or unusable name, or a name without a home
    ///   directory to keep it in.
    /// - Parameter option: the option named in messages (`--session` or `--session-read-only`).
    package static func location(_ value: String, origin: Origin, configDirectory: String?,
                                 option: String = "--session") throws(SwurlError) -> SessionStore {
        if value.contains("/") { return SessionStore(path: value) }
        try checkName(value, option: option)
        guard let configDirectory else {
            throw .usage("\(option) \(TerminalSanitizer.clean(value)): there is no home directory to keep sessions in (HOME is unset and the password database names none)",
                         hint: "set HOME or XDG_CONFIG_HOME, or give the session a path: --session ./\(TerminalSanitizer.clean(value)).json")
        }
        return SessionStore(path: "\(configDirectory)/swurl/sessions/\(origin.bareHost)_\(origin.port)/\(value).json")
    }

    /// The session as stored; an empty one when the file does not exist.
    /// - Throws: `SwurlError.badData` naming the file when it is not a valid session or others
    ///   could have changed it (`FileTrust`), and `SwurlError.inputFile` when it exists but
    ///   cannot be read.
    package func load() throws(SwurlError) -> SessionData {
        var warnings: [String] = []
        return try load(warnings: &warnings)
    }

    /// The session as stored, with a warning in `warnings` for each entry skipped.
    /// - Throws: as `load()`.
    package func load(warnings: inout [String]) throws(SwurlError) -> SessionData {
        guard let bytes = try readBytes() else { return SessionData() }
        return try SessionFormat.decode(bytes, file: path, warnings: &warnings)
    }

    /// Reads the file; nil when it does not exist.
    private func readBytes() throws(SwurlError) -> [UInt8]? {
        // Another user's link would choose which file's headers and credentials go out (and
        // where the save writes): refused before anything is sent, read-only too, as for writes.
        // A link in a directory on the way as well as the file's own.
        do { try OutputTarget.refuseForeignLinks(path) } catch {
            throw .badData("the session file \(TerminalSanitizer.clean(path)) cannot be used: " + error.message)
        }
        let fd: Int32
        switch RegularFile.open(path) {
        case .missing: return nil
        case .opened(let opened): fd = opened
        case .failed(let e):
            throw .inputFile("cannot read the session file \(TerminalSanitizer.clean(path)): \(String(cString: strerror(e)))")
        case .notRegular(let kind):
            throw .inputFile("the session file \(TerminalSanitizer.clean(path)) is \(kind), not a regular file",
                             hint: "a session is a regular file; give another name or path")
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            throw .inputFile("cannot read the session file \(TerminalSanitizer.clean(path)): \(String(cString: strerror(errno)))")
        }
        // Its headers and credentials go out with the request: only if nobody else could plant them.
        try FileTrust.check(path, what: "the session file", fd: fd)
        guard st.st_size <= SessionStore.maxSize else {
            throw .badData("the session file \(TerminalSanitizer.clean(path)) is too big (\(st.st_size) bytes; at most 1 MiB)",
                           hint: "it was left as it is; remove it or use another session")
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw .inputFile("cannot read the session file \(TerminalSanitizer.clean(path)): \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            bytes += buffer[0..<n]
            if bytes.count > SessionStore.maxSize {
                throw .badData("the session file \(TerminalSanitizer.clean(path)) is too big (more than 1 MiB)",
                               hint: "it was left as it is; remove it or use another session")
            }
        }
        return bytes
    }

    /// Writes this run's changes: takes the session's lock, re-reads the file, merges
    /// (`SessionData.merging`), drops expired cookies, applies `SessionLimits`, writes a
    /// temporary 0600 file and renames it. Through a symbolic link (the user's own) all of
    /// this happens at the link's target, and the link stays.
    /// - Parameters:
    ///   - before: the session as this run loaded it.
    ///   - after: the session as this run leaves it.
    ///   - now: seconds since the epoch, for expiry.
    ///   - namesSet: the names of the cookies this run's responses set (`Set-Cookie`), also
    ///     again with the same value: the limits drop them last, beside those this run changed.
    /// - Returns: warnings about cookies the limits dropped.
    /// - Throws: `SwurlError.output` when the file cannot be written (the message says the
    ///   session was not saved), `SwurlError.badData` when the file turned invalid meanwhile.
    @discardableResult
    package func save(from before: SessionData, to after: SessionData, now: Int64, namesSet: Set<String> = []) throws(SwurlError) -> [String] {
        let shown = TerminalSanitizer.clean(self.path)
        func failure(_ what: String) -> SwurlError {
            .output("the session was not saved: \(what) \(shown): \(String(cString: strerror(errno)))")
        }
        let path = try writtenPath()
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let base = slash.map { String(path[path.index(after: $0)...]) } ?? path
        try SessionStore.checkPlace(of: path)
        // A link's target goes where the link says, into a directory that is there: a dangling
        // link's missing directories (`/nonexistent/x.json`) are not made anywhere it points.
        if path == self.path { try SessionStore.makeDirectories(directory) }
        // Writers of this session serialise on its own lock file (`.NAME.lock`, 0600, never
        // through a symbolic link), not on the directory: in a shared directory such as /tmp
        // anybody can hold a directory's lock. A lock held past `lockWait` (another user's file,
        // a stuck run) fails the save instead of hanging the run. Released on close.
        // A name near the file system's longest (255 bytes) takes a shorter start of it: the
        // lock's name is 6 bytes longer, and failed only after the request went. (Two names
        // with one start then take turns on one lock: nothing worse.)
        let lockBase = OutputTarget.start(of: base, fitting: ".", ".lock", in: directory)
        let lockPath = "\(directory)/.\(lockBase).lock"
        // Another user's lock file (made first in a shared directory such as /tmp) can keep the
        // session from being saved: the messages name the owner and the way out.
        let othersLock = " (.\(lockBase).lock belongs to another user; keep the session in a directory only you can write)"
        func foreign(_ st: stat) -> Bool { st.st_uid != geteuid() }
        let lockFD = open(ArgumentBytes.path(lockPath), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard lockFD >= 0 else {
            let openError = errno
            var st = stat()
            if lstat(ArgumentBytes.path(lockPath), &st) == 0, foreign(st) {
                errno = openError
                throw .output("the session was not saved: cannot open the lock file of \(shown): \(String(cString: strerror(errno)))" + othersLock)
            }
            errno = openError
            throw failure("cannot open the lock file of")
        }
        defer { close(lockFD) }
        let deadline = MonotonicClock.now() + SessionStore.lockWait
        while flock(lockFD, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EINTR || errno == EWOULDBLOCK else { throw failure("cannot lock") }
            // Ctrl-C or SIGTERM stops the wait: the exchange ends as interrupted (its --har written).
            if Interrupt.requested { throw .interrupted }
            guard MonotonicClock.now() < deadline else {
                var st = stat()
                let owned = fstat(lockFD, &st) == 0 && foreign(st)
                // (No system error: "Resource temporarily unavailable" said nothing more.)
                let message = "the session was not saved: another process held the lock (.\(lockBase).lock) for \(Int(SessionStore.lockWait)) s on \(shown)"
                throw .output(message + (owned ? othersLock : ""))
            }
            usleep(5_000)
        }
        // Read again under the lock: a read that fails now (no file descriptor left, an I/O
        // error; a file made invalid, or writable by others, meanwhile) fails the saving, after
        // the request went: not "cannot read" with 66 or "not valid" with 65, which say nothing
        // was sent.
        let current: SessionData
        do { current = try SessionStore(path: path).load() } catch {
            switch error {
            case .inputFile(let message, let hint), .badData(let message, let hint):
                throw .output("the session was not saved: " + message + (hint.map { " (\($0))" } ?? ""))
            default: throw error
            }
        }
        removeStaleTemporaries(in: directory, base: base)
        var merged = current.merging(from: before, to: after)
        merged.cookies.removeAll { $0.isExpired(now: now) }
        // The cookies this run's responses set or changed: the limits drop them last.
        let loaded = Dictionary(before.cookies.map { ($0.key, $0) }, uniquingKeysWith: { $1 })
        let setNow = Set(after.cookies.filter { loaded[$0.key] != $0 || namesSet.contains($0.name) }.map(\.key))
        let warnings = try SessionLimits.enforce(&merged, shown: shown, maxSize: SessionStore.maxSize, setNow: setNow)
        let text = SessionFormat.encode(merged)

        do {
            let file = try AtomicFile(replacing: path, mode: 0o600)
            try text.withUnsafeBufferPointer { buf throws(SwurlError) in
                try file.write(UnsafeRawBufferPointer(buf), describing: "'\(shown)'")
            }
            try file.commit(durable: true)
        } catch {
            throw .output("the session was not saved: \(error.message)")
        }
        return warnings
    }

    /// Removes what a save killed before its rename left (`kill -9`, the OOM killer): the
    /// temporary file (`.NAME.swurl-XXXXXX`, `AtomicFile`), which holds the session, its
    /// credentials too, and which nothing else would ever remove. A save makes one only while
    /// it holds the lock, as the caller does: one found now is no other save's. Only the
    /// user's own regular files of that name that hold a session are removed (none for a name
    /// the temporary one had to cut short).
    private func removeStaleTemporaries(in directory: String, base: String) {
        // A name cut short to fit (over 241 bytes) may be another session's, under another lock.
        let fitting = OutputTarget.start(of: base, fitting: ".", ".swurl-XXXXXX", in: directory)
        guard fitting == base else { return }
        let start = "." + fitting + ".swurl-"
        let head = Array("{\n  \"swurl\": \"session\"".utf8)
        guard let dir = opendir(ArgumentBytes.path(directory)) else { return }
        defer { closedir(dir) }
        let dfd = dirfd(dir)
        while let e = readdir(dir) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            guard name.count == start.utf8.count + 6, name.starts(with: start.utf8) else { continue }
            let fd = name.withUnsafeBufferPointer { b in
                openat(dfd, ArgumentBytes.path(ArgumentBytes.decode(Array(b))), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
            }
            guard fd >= 0 else { continue }
            var st = stat()
            var first = [UInt8](repeating: 0, count: head.count)
            let isSession = fstat(fd, &st) == 0 && st.st_mode & S_IFMT == S_IFREG && st.st_uid == geteuid()
                && read(fd, &first, head.count) == head.count && first == head
            close(fd)
            if isSession { _ = unlinkat(dfd, ArgumentBytes.path(ArgumentBytes.decode(name)), 0) }
        }
    }

    /// Refuses a session file that does not exist yet where swurl would refuse to read it back
    /// (`FileTrust.checkPlace`): asked before the request by a session that will be saved, so
    /// that nothing is sent for a session that cannot be kept, and again by `save`. Judged where
    /// the save writes: through the user's own link, at its target.
    /// - Throws: `SwurlError.badData` (65) naming the file, the directory and the fix.
    package func checkPlace() throws(SwurlError) {
        try SessionStore.checkPlace(of: target)
    }

    /// Where a save writes, as far as can be told before it (`writtenPath`): the path, or the
    /// target of the user's own links; the path itself when a link is refused (the save says why).
    package var target: String { (try? OutputTarget.ownFile(path)) ?? path }

    private static func checkPlace(of written: String) throws(SwurlError) {
        var st = stat()
        // An existing file is judged as it is read (`FileTrust.check`).
        guard lstat(ArgumentBytes.path(written), &st) != 0 else { return }
        try FileTrust.checkPlace(written, what: "the session file")
    }

    /// The file a save writes: the path itself, or the target its symbolic links (the user's
    /// own) lead to (`OutputTarget.ownFile`), so that the link is never replaced.
    /// - Throws: `SwurlError.output` saying the session was not saved, and why.
    private func writtenPath() throws(SwurlError) -> String {
        do {
            return try OutputTarget.ownFile(path)
        } catch {
            throw .output("the session was not saved: " + error.message)
        }
    }

    /// Creates the missing directories of `directory`, each 0700 from the start.
    static func makeDirectories(_ directory: String) throws(SwurlError) {
        if let failure = PrivateDirectory.make(directory) {
            throw .output("the session was not saved: cannot create the directory \(TerminalSanitizer.clean(directory)): \(systemErrorMessage(failure))")
        }
    }
}
