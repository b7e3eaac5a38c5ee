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
/// `expires` is seconds since the epoch, 0 for a session cookie. Unknown keys are ignored.
enum SessionFormat {
    /// Parses and checks a session file; every header value goes through `HeaderValue.check`.
    /// - Throws: `SwurlError.badData` naming `file` and what is wrong.
    static func decode(_ bytes: [UInt8], file: String) throws(SwurlError) -> SessionData {
        let shown = TerminalSanitizer.clean(file)
        func bad(_ what: String) -> SwurlError {
            .badData("the session file \(shown) is not valid: \(what)", hint: "it was left as it is; fix or remove it")
        }
        let root: JSONValue
        do { root = try JSONParser.parse(bytes) } catch { throw bad(error.description) }
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
        guard case .number(let v)? = member(members, "version"), Int(v) == SessionStore.version else {
            throw bad("\"version\" must be \(SessionStore.version)")
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
            let origin = try string(m, "origin", in: "auth")
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
                let what = "cookies[\(i)]"
                guard case .object(let m) = item else { throw bad("\(what) must be an object") }
                guard case .number(let e)? = member(m, "expires") ?? .number("0"), let expires = Int64(e), expires >= 0 else {
                    throw bad("\(what): \"expires\" must be a whole number of seconds")
                }
                let cookie = SessionCookie(domain: try string(m, "domain", in: what),
                                           includeSubdomains: try bool(m, "includeSubdomains", in: what),
                                           path: try string(m, "path", in: what), secure: try bool(m, "secure", in: what),
                                           httpOnly: try bool(m, "httpOnly", in: what), expires: expires,
                                           name: try string(m, "name", in: what), value: try string(m, "value", in: what))
                // A tab or line break would split the Netscape line handed to libcurl.
                for field in [cookie.domain, cookie.path, cookie.name, cookie.value]
                where field.unicodeScalars.contains(where: { $0 == "\t" || HeaderValue.isForbidden($0) }) {
                    throw bad("\(what) contains a tab or a control character")
                }
                guard !cookie.domain.isEmpty, cookie.path.hasPrefix("/") else {
                    throw bad("\(what) needs a domain and a path starting with /")
                }
                data.cookies.append(cookie)
            }
        default: throw bad("\"cookies\" must be an array")
        }
        return data
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
            put(i == 0 ? "\n    {\"domain\": " : ",\n    {\"domain\": ")
            str(c.domain)
            put(", \"includeSubdomains\": \(c.includeSubdomains), \"path\": ")
            str(c.path)
            put(", \"secure\": \(c.secure), \"httpOnly\": \(c.httpOnly), \"expires\": \(c.expires), \"name\": ")
            str(c.name)
            put(", \"value\": ")
            str(c.value)
            put("}")
        }
        put(data.cookies.isEmpty ? "]\n}\n" : "\n  ]\n}\n")
        return out
    }
}
