import SwurlCore

/// The session file format, version 1: readable JSON, one header or cookie per line.
///
/// ```
/// {
///   "swurl": "session",
///   "version": 1,
///   "headers": [
///     {"name": "X-Team", "value": "blue"}
///   ],
///   "auth": {"type": "basic", "origin": "https://api.example.org:443", "username": "ann", "password": "s3cret"},
///   "cookies": [
///     {"domain": "api.example.org", "includeSubdomains": false, "path": "/", "secure": true, "httpOnly": true, "expires": 0, "name": "sid", "value": "abc"}
///   ]
/// }
/// ```
/// `auth.type` is basic, digest or bearer (then `token` instead of username and password);
/// `expires` is seconds since the epoch, 0 for a session cookie. Unknown keys are ignored (with a
/// warning: a save does not keep them), but a
/// file without `"swurl": "session"` may hold no top-level key of its own: it is another
/// program's JSON (a package.json with a "version": 1), refused rather than rewritten.
/// Cookies are listed in the order they were created, oldest first.
enum SessionFormat {
    /// Parses and checks a session file; every header value goes through `HeaderValue.check`.
    /// - Throws: `SwurlError.badData` naming `file` and what is wrong.
    static func decode(_ bytes: [UInt8], file: String) throws(SwurlError) -> SessionData {
        var warnings: [String] = []
        return try decode(bytes, file: file, warnings: &warnings)
    }

    /// Parses and checks a session file. A cookie entry that is not valid (servers write
    /// cookies, so one bad response must not lock the user out of the session) is skipped
    /// with a warning in `warnings` naming the file and the entry; anything else wrong refuses
    /// the file.
    /// - Throws: `SwurlError.badData` naming `file` and what is wrong.
    static func decode(_ bytes: [UInt8], file: String, warnings: inout [String]) throws(SwurlError) -> SessionData {
        let shown = TerminalSanitizer.clean(file)
        func bad(_ what: String) -> SwurlError {
            .badData("the session file \(shown) is not valid: \(what)", hint: "it was left as it is; fix or remove it")
        }
        let root: JSONValue
        // A byte order mark (an editor's, as the config file may start with one) is skipped.
        let json = bytes.withoutUTF8ByteOrderMark
        do { root = try JSONParser.parse(json) } catch { throw bad(error.description) }
        guard case .object(let members) = root else { throw bad("it is not a JSON object") }
        func member(_ m: [JSONValue.Member], _ key: String) -> JSONValue? { m.last { $0.key == key }?.value }
        func string(_ m: [JSONValue.Member], _ key: String, in what: String) throws(SwurlError) -> String {
            guard case .string(let s)? = member(m, key) else { throw bad("\(what) needs a string \"\(key)\"") }
            return s
        }
        func bool(_ m: [JSONValue.Member], _ key: String, in what: String) throws(SwurlError) -> Bool {
            switch member(m, key) {
            case .bool(let b)?: return b
            case nil: return false
            default: throw bad("\(what): \"\(key)\" must be true or false")
            }
        }
        // Another program's JSON (a package.json, with or without "version": 1) is not a
        // session: rewritten, its own keys would be lost. swurl writes "swurl": "session"; a
        // file without it (hand-made) may hold a session's keys only.
        let sessionKeys: Set<String> = ["swurl", "version", "headers", "auth", "cookies"]
        func foreign() -> SwurlError? {
            guard member(members, "swurl") == nil, let other = members.first(where: { !sessionKeys.contains($0.key) }) else { return nil }
            return .badData("the session file \(shown) is not a swurl session: it has no \"swurl\": \"session\" and holds \"\(TerminalSanitizer.clean(other.key))\"",
                            hint: "it was left as it is; give swurl a session name or path of its own (--session NAME)")
        }
        guard case .number(let v)? = member(members, "version"), Int(v) == SessionStore.version else {
            // HTTPie's session files carry "__meta__" and no version: another program's file.
            if member(members, "__meta__") != nil {
                throw .badData("the session file \(shown) is an HTTPie session file; swurl's sessions have a format of their own",
                               hint: "it was left as it is; give swurl a session name or path of its own (--session NAME)")
            }
            if let refusal = foreign() { throw refusal }
            throw bad("\"version\" must be \(SessionStore.version)")
        }
        if let marker = member(members, "swurl") {
            guard case .string("session") = marker else { throw bad("\"swurl\" must be \"session\"") }
            // A key of the user's own (a note written into the file) is not written back: said,
            // rather than lost without a word at the next save.
            var warned: Set<String> = []
            for other in members where !sessionKeys.contains(other.key) && warned.insert(other.key).inserted {
                warnings.append("the session file \(shown) holds \"\(TerminalSanitizer.clean(other.key))\", which is not a session key: "
                                + "it is read as nothing, and a save would not keep it")
            }
        } else if let refusal = foreign() {
            throw refusal
        }
        var data = SessionData()
        switch member(members, "headers") {
        case nil: break
        case .array(let items)?:
            for (i, item) in items.enumerated() {
                let what = "headers[\(i)]"
                guard case .object(let m) = item else { throw bad("\(what) must be an object") }
                let name = try string(m, "name", in: what)
                let value = try string(m, "value", in: what)
                guard !name.isEmpty, name.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 32 && $0.value < 127 && $0 != ":" }) else {
                    throw bad("\(what): '\(TerminalSanitizer.clean(name))' is not a header name")
                }
                do { try HeaderValue.check(value, "header \(name)") } catch { throw bad("\(what): \(error.message)") }
                data.headers.append(HTTPHeaders.Field(name: name, value: value))
            }
        default: throw bad("\"headers\" must be an array")
        }
        switch member(members, "auth") {
        case nil, .null?: break
        case .object(let m)?:
            guard let type = AuthType(rawValue: try string(m, "type", in: "auth")) else {
                throw bad("auth: \"type\" must be basic, digest or bearer")
            }
            // Compared with the request's origin as `Origin` reads both (`SessionAuth.applies`):
            // a hand-written one in another form (`HTTP://h:80`, `http://h/`) means the same.
            let origin = try string(m, "origin", in: "auth")
            guard (try? Origin(url: origin)) != nil else { throw bad("auth: \"origin\" is not a URL: e.g. https://api.example.org:443") }
            let auth: SessionAuth
            if type == .bearer {
                auth = SessionAuth(type: type, origin: origin, user: try string(m, "token", in: "auth"), password: "")
            } else {
                auth = SessionAuth(type: type, origin: origin, user: try string(m, "username", in: "auth"),
                                   password: try string(m, "password", in: "auth"))
            }
            for v in [auth.origin, auth.user, auth.password] {
                do { try HeaderValue.check(v, "auth") } catch { throw bad(error.message) }
            }
            data.auth = auth
        default: throw bad("\"auth\" must be an object")
        }
        switch member(members, "cookies") {
        case nil: break
        case .array(let items)?:
            for (i, item) in items.enumerated() {
                do {
                    data.cookies.append(try cookie(item, "cookies[\(i)]"))
                } catch {
                    warnings.append("the session file \(shown): \(error.message); the entry is skipped "
                                    + "(and dropped when the session is next saved)")
                }
            }
        default: throw bad("\"cookies\" must be an array")
        }
        return data
    }

    /// One entry of "cookies", checked.
    /// - Parameter what: the entry as messages name it (`cookies[3]`).
    /// - Throws: `SwurlError.badData` saying what is wrong with the entry.
    private static func cookie(_ item: JSONValue, _ what: String) throws(SwurlError) -> SessionCookie {
        guard case .object(let m) = item else { throw .badData("\(what) is not an object") }
        func member(_ key: String) -> JSONValue? { m.last { $0.key == key }?.value }
        func string(_ key: String) throws(SwurlError) -> String {
            guard case .string(let s)? = member(key) else { throw .badData("\(what) has no string \"\(key)\"") }
            return s
        }
        func bool(_ key: String) throws(SwurlError) -> Bool {
            switch member(key) {
            case .bool(let b)?: return b
            case nil: return false
            default: throw .badData("\(what): \"\(key)\" is not true or false")
            }
        }
        guard case .number(let e)? = member("expires") ?? .number("0"), let expires = Int64(e), expires >= 0 else {
            throw .badData("\(what): \"expires\" is not a time in whole seconds since 1970 (0: a session cookie)")
        }
        // `.example.org`, as HTTPie's sessions and Netscape jars write a domain cookie: the
        // domain and its subdomains (the dot kept, the cookie applied to no host and was kept).
        var domain = try string("domain")
        let dotted = domain.hasPrefix(".")
        if dotted { domain.removeFirst() }
        let subdomains = try bool("includeSubdomains")
        let cookie = SessionCookie(domain: domain, includeSubdomains: dotted || subdomains,
                                   path: try string("path"), secure: try bool("secure"), httpOnly: try bool("httpOnly"),
                                   expires: expires, name: try string("name"), value: try string("value"))
        let named = "\(what) (\(TerminalSanitizer.clean(cookie.name)) for \(TerminalSanitizer.clean(cookie.domain)))"
        // A tab or line break would split the Netscape line handed to libcurl.
        for field in [cookie.domain, cookie.path, cookie.name, cookie.value]
        where field.unicodeScalars.contains(where: { $0 == "\t" || HeaderValue.isForbidden($0) }) {
            throw .badData("\(named) contains a tab or a control character")
        }
        guard !cookie.domain.isEmpty else { throw .badData("\(what) has an empty domain") }
        // A `;` would end the cookie in the Cookie header and start another one.
        guard !cookie.name.isEmpty, !cookie.name.contains(";"), !cookie.name.contains("="), !cookie.value.contains(";") else {
            throw .badData("\(named) has an empty name, or a ';' or '=' where a cookie cannot hold one")
        }
        guard cookie.hasValidPath else {
            throw .badData("\(named) has the path '\(TerminalSanitizer.clean(cookie.path))', which does not start with /")
        }
        return cookie
    }

    /// The file's text, ending in a newline.
    static func encode(_ data: SessionData) -> [UInt8] {
        var out: [UInt8] = []
        func put(_ s: String) { out += Array(s.utf8) }
        func str(_ s: String) { JSONValue.string(s).write(to: &out) }
        put("{\n  \"swurl\": \"session\",\n  \"version\": \(SessionStore.version),\n  \"headers\": [")
        for (i, h) in data.headers.enumerated() {
            put(i == 0 ? "\n    {\"name\": " : ",\n    {\"name\": ")
            str(h.name)
            put(", \"value\": ")
            str(h.value)
            put("}")
        }
        put(data.headers.isEmpty ? "],\n" : "\n  ],\n")
        put("  \"auth\": ")
        if let a = data.auth {
            put("{\"type\": ")
            str(a.type.rawValue)
            put(", \"origin\": ")
            str(a.origin)
            if a.type == .bearer {
                put(", \"token\": ")
                str(a.user)
            } else {
                put(", \"username\": ")
                str(a.user)
                put(", \"password\": ")
                str(a.password)
            }
            put("},\n")
        } else {
            put("null,\n")
        }
        put("  \"cookies\": [")
        for (i, c) in data.cookies.enumerated() {
            put(i == 0 ? "\n    " : ",\n    ")
            out += encode(c)
        }
        put(data.cookies.isEmpty ? "]\n}\n" : "\n  ]\n}\n")
        return out
    }

    /// One cookie's entry: `{"domain": …}`. In the file each also takes 6 bytes (`,\n    `).
    static func encode(_ c: SessionCookie) -> [UInt8] {
        var out: [UInt8] = []
        func put(_ s: String) { out += Array(s.utf8) }
        func str(_ s: String) { JSONValue.string(s).write(to: &out) }
        put("{\"domain\": ")
        str(c.domain)
        put(", \"includeSubdomains\": \(c.includeSubdomains), \"path\": ")
        str(c.path)
        put(", \"secure\": \(c.secure), \"httpOnly\": \(c.httpOnly), \"expires\": \(c.expires), \"name\": ")
        str(c.name)
        put(", \"value\": ")
        str(c.value)
        put("}")
        return out
    }
}
