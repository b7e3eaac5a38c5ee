#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlEngine
import SwurlSecurity
import SwurlCore
import SwurlRequestSerialization

/// `--curl`: the curl command that sends the same request, one long option per line with
/// ` \` continuations, every value quoted for a POSIX shell. What curl cannot express the same
/// way is listed as warnings; the command keeps the closest form. A multipart part curl's `-F`
/// would read as something else (another file, part headers, another name) is refused instead
/// (CurlFormExport.swift).
struct CurlCommandExport {
    let request: HTTPRequest
    let options: CommandOptions
    let transfer: TransferOptions
    /// The session's cookies for the request's host (a `Cookie` header), when a session is used.
    let cookies: [SessionCookie]
    /// The multipart parts, in order (empty unless the body is multipart).
    let parts: [MultipartRequestSerializer.Part]
    /// The file a streamed body comes from (`@FILE` naming a pipe or a device), nil for stdin.
    var streamedFile: String? = nil

    /// The command's bytes and the warnings, each a sentence after `curl cannot`.
    /// - Throws: `SwurlError.usage` when a multipart part cannot be written for curl's `-F`
    ///   so that curl sends the same part (`formArguments`).
    func render() throws(SwurlError) -> (command: [UInt8], warnings: [String]) {
        // The printed command must not send in clear what swurl itself refuses to, nor user info
        // swurl refuses to send (a line feed, bytes that are not UTF-8).
        try Exchange.refusePinOverPlainHTTP(request.url, transfer.security)
        _ = try Exchange.userInfo(of: request.url)
        // Nor a head swurl refuses to send (over libcurl's 1 MiB).
        try Exchange.refuseOversizedHead(request)
        var lines: [[UInt8]] = []
        var warnings: [String] = []
        if options.outputPath != nil || options.download {
            // The command is the request; where its response goes is the caller's (curl -o FILE).
            warnings.append("save the response as -o or --download asked: the printed command leaves them out and writes to stdout (add curl's -o FILE)")
        }
        var prefix: [UInt8] = []
        // A value is written as the bytes it stands for: a path or file name from argv that is
        // not UTF-8 holds escapes (`ArgumentBytes`) that become the original bytes again.
        // The first value too long to be one argument of curl's (a header or URL of 128 KiB or
        // more: Linux's exec refuses it, "Argument list too long"); bodies and form fields go
        // through a pipe from 100 KiB on (below).
        var tooLong: (option: String, size: Int)?
        func add(_ option: String, _ value: String? = nil) {
            let bytes = value.map { ArgumentBytes.bytes($0) }
            if let bytes, bytes.count > CurlCommandExport.longestArgument, tooLong == nil { tooLong = (option, bytes.count) }
            lines.append(Array(option.utf8) + (bytes.map { [UInt8(ascii: " ")] + CurlCommandExport.quote($0) } ?? []))
        }

        // Method: curl's own choice when it is the same, else --request (--head for HEAD).
        let hasBody = request.body != nil || options.bodyFormat == .multipart && options.items.contains(where: \.isData)
        // swurl sends a POST, PUT or PATCH without a body with `Content-Length: 0`; curl's
        // --request POST sends no length (servers may answer 411), its empty --data-binary does.
        let bodylessPost = !hasBody && request.method.sendsEmptyLength
        if request.method == .head {
            add("--head")
        } else if request.method != (hasBody || bodylessPost ? "POST" : "GET") {
            add("--request", request.method.rawValue)
        }
        // curl reads `[1-2]` and `{a,b}` in a URL as a glob (several requests, or "bad range").
        if CurlCommandExport.globs(request.url) { add("--globoff") }
        add("--url", request.url)
        if request.pathAsIs { add("--path-as-is") }

        // Headers as swurl sends them (curl's defaults replaced), removals and empty values.
        // Multipart with --boundary: the very bytes, piped in (`cat` for the files); so too when a
        // field's value cannot be an argument (over 100 KiB, or a NUL byte); else curl's -F
        // sends the same parts with its own boundary.
        let exactMultipart = options.bodyFormat == .multipart && request.body != nil
            && (options.boundary != nil || CurlCommandExport.hasFieldNoArgumentHolds(parts))
        let multipart = options.bodyFormat == .multipart && !exactMultipart
        // One Cookie line, as swurl sends it: the session's cookies, then the Cookie items (an
        // empty `Cookie;` beside them left out). The stored cookies are those the engine would
        // send on the first hop (by host, path, scheme and expiry, in its order and within its
        // size), as --offline shows them.
        let cookieItems = Transfer.cookieItemValues(request.headers)
        let engineCookies = try EngineCookieHeader.value(for: request, cookies: cookies)
        let oneCookieLine = engineCookies != nil || !cookieItems.isEmpty
        for field in request.headers {
            let key = field.name.lowercased()
            // curl writes these itself: the length of a body, and --compressed's list. A user's
            // own (`Accept-Encoding:identity`, `Content-Length:0` without a body) is printed:
            // curl sends a --header over its own.
            if key == "content-length" && hasBody { continue }
            if key == "accept-encoding" && field.value == ContentCoding.decodable { continue }
            if multipart && key == "content-type" {
                // curl's -F sends multipart/form-data with its own boundary, and adds that
                // boundary to a multipart type of the user's (multipart/mixed) given as a header.
                let type = HeaderParameters.removing("boundary", from: field.value)
                if type.trimmingSpaces().lowercased() != "multipart/form-data" { add("--header", "Content-Type: " + type.trimmingSpaces()) }
                continue
            }
            if key == "cookie" && oneCookieLine { continue }
            // A body of a length not known yet (stdin, a pipe) was marked chunked; swurl reads a
            // small one ahead and sends its length, as curl's --data-binary @- does: only
            // --chunked, or a Transfer-Encoding item, asks curl for chunks.
            if key == "transfer-encoding" && !options.chunked && !CurlCommandExport.itemNames(options.items, "transfer-encoding") { continue }
            // curl sends --proxy-header lines to a proxy only, and keeps --header ones on every hop
            // of a redirect, to any host: swurl drops Proxy-Authorization at another origin.
            // Through no proxy or SOCKS the item is the server's: a --header, as swurl sends it.
            let flag = key == "proxy-authorization" && transfer.proxy.httpProxy(forURL: request.url) != nil ? "--proxy-header" : "--header"
            if key == "proxy-authorization" && flag == "--header" && transfer.followRedirects {
                warnings.append("follow redirects only to this origin: curl sends the Proxy-Authorization header to every host a redirect leads to, swurl drops it at another origin")
            }
            add(flag, field.value.isEmpty ? "\(field.name);" : "\(field.name): \(field.value)")
        }
        for name in request.removedHeaders where !(name.lowercased() == "cookie" && oneCookieLine) { add("--header", "\(name):") }
        // swurl never sends `Expect: 100-continue`; curl does for a large body (over 1 MiB; 1 KiB
        // before 8.0) or one sent in chunks, and then waits up to a second for the go-ahead.
        if hasBody, request.isChunked || (request.body?.length).map({ $0 > 1024 }) ?? true, !request.headers.contains("Expect"), !request.isRemoved("Expect") {
            add("--header", "Expect:")
        }
        // swurl asks for compressed bodies and decodes them; curl does with --compressed.
        if request.headers.contains("Accept-Encoding") { add("--compressed") }

        // The body.
        if exactMultipart, let body = request.body {
            var group = Array("{ ".utf8)
            for segment in body.segments {
                switch segment {
                case .bytes(let b): group += Array("printf '".utf8) + CurlCommandExport.printfFormat(b) + Array("'; ".utf8)
                case .file(let path, _): group += Array("cat -- ".utf8) + CurlCommandExport.quote(ArgumentBytes.bytes(path)) + Array("; ".utf8)
                case .stream: group += Array("cat; ".utf8)
                }
            }
            prefix = group + Array("} | ".utf8)
            add("--data-binary", "@-")
        } else if multipart && !parts.isEmpty {
            // (No part, no body: a POST goes as bodyless, below; curl's -F-less command was a GET.)
            let form = try CurlCommandExport.formArguments(parts)
            for argument in form.arguments { add(argument.option, argument.value) }
            warnings += form.warnings
        } else if let body = request.body {
            if body.segments.count == 1, case .file(let path, _) = body.segments[0] {
                add("--data-binary", "@" + path)
            } else if let bytes = body.inMemoryBytes {
                if bytes.contains(0) || bytes.count > CurlCommandExport.largestArgument {
                    // No argument can hold a NUL byte, nor more than 128 KiB (Linux's
                    // MAX_ARG_STRLEN): the body comes through a pipe from the shell's own printf,
                    // which no exec limits.
                    prefix = Array("printf '".utf8) + CurlCommandExport.printfFormat(bytes) + Array("' | ".utf8)
                    add("--data-binary", "@-")
                } else {
                    // A leading @ would make curl read a file of that name: --data-raw sends it as is.
                    let flag = bytes.first == UInt8(ascii: "@") ? "--data-raw " : "--data-binary "
                    lines.append(Array(flag.utf8) + CurlCommandExport.quote(bytes))
                }
            } else if let streamedFile {
                // A pipe or device given as @FILE, too long to print: curl reads it by its name.
                warnings.append("read '\(streamedFile)' again if it is a pipe: swurl read it to print this command")
                add("--data-binary", "@" + streamedFile)
            } else {
                warnings.append("read this body from the command (it is read from stdin or a stream); it reads stdin")
                add("--data-binary", "@-")
            }
        } else if bodylessPost {
            add("--data-binary", "")
            // Without it curl adds application/x-www-form-urlencoded; swurl sends none.
            if !request.headers.contains("Content-Type") { add("--header", "Content-Type:") }
        }

        // Credentials.
        if let token = transfer.bearerToken {
            add("--oauth2-bearer", token)
        } else if let c = transfer.credentials {
            if transfer.authType == .digest { add("--digest") }
            // A password not given (-a USER) is curl's to ask for, as swurl would have.
            add("--user", options.authUser != nil && options.authPassword == nil ? c.user : "\(c.user):\(c.password)")
        } else {
            // The user and password then come from the URL or netrc, for curl as for swurl.
            if transfer.authType == .digest { add("--digest") }
            // With a password in the URL or an Authorization item, netrc has nothing to give
            // the first hop, and swurl takes no other host's entry after a redirect; curl with
            // --netrc-optional would.
            let userInfo = (try? Exchange.userInfo(of: request.url)) ?? nil
            // A user in the URL with no entry of that login for the host: swurl sends the user
            // with an empty password; curl 7.88 with --netrc would take the host's (or the
            // `default`) entry's password of another login.
            let host = (try? Origin(url: request.url))?.host ?? ""
            let userHasNoEntry = userInfo.map { transfer.netrc?.credentials(forHost: host, allowDefault: true, user: $0.user) == nil } ?? false
            if let netrc = transfer.netrc, userInfo?.password == nil, !request.headers.contains("Authorization"), !userHasNoEntry {
                add("--netrc-optional")
                // curl 7.88 reads ~/.netrc whatever $NETRC says: the file swurl read is named.
                if let file = netrc.namedFile { add("--netrc-file", file) }
                if userInfo != nil, transfer.followRedirects {
                    warnings.append("follow redirects only to this host: after a redirect to another host curl sends that host's netrc "
                                    + "password, swurl none (the URL names a user)")
                } else if netrc.fallback != nil, transfer.followRedirects {
                    // curl 7.88 looks the `default` entry up for a redirect's host too.
                    warnings.append("keep netrc's default login to the first host: after a redirect to a host without a machine entry "
                                    + "curl 7.88 sends the default login and password there, swurl none")
                }
            }
        }
        if oneCookieLine {
            // A header, not `--cookie NAME=VALUE`: curl sends that string to every host a redirect
            // leads to, and it drops a `Cookie` header at a redirect to another host, as swurl
            // keeps a session's cookies to their host. (curl drops it at another port of the same
            // host too, where swurl's cookies, which know no ports, still go.)
            add("--header", "Cookie: " + ((engineCookies.map { [$0] } ?? []) + cookieItems).joined(separator: "; "))
        }

        // Redirects, time limits, connections.
        if transfer.followRedirects || transfer.authType == .digest {
            // swurl's cookie engine is always on: cookies set along the redirects, or by a
            // Digest challenge's 401, go with the next request. curl's is on with --cookie (an
            // empty file name reads nothing).
            add("--cookie", "")
            // The fixed header goes with every later hop to the host: a stored cookie to paths it
            // does not match, and next to the engine's line with a value the redirect replaced.
            if engineCookies != nil || !cookieItems.isEmpty {
                let given = [engineCookies != nil ? "the stored cookies" : nil, cookieItems.isEmpty ? nil : "the Cookie item"]
                    .compactMap { $0 }.joined(separator: " and ")
                let after = transfer.followRedirects ? "a redirect" : "the Digest challenge"
                warnings.append("send one Cookie header after \(after): curl sends \(given) as a fixed header on every hop to the same host, whatever a cookie's path, and beside it one with the cookies set along the way")
            }
        }
        if transfer.followRedirects {
            add("--location")
            add("--max-redirs", String(transfer.maxRedirects))
            // swurl never leaves https for plain http under a policy that checks anything: that hop
            // could not be checked (and would carry the headers in clear).
            // Nor for anything but http and https (curl 7.88 follows to ftp and ftps, and logs in).
            if URLText.schemeOf(request.url)?.lowercased() == "https", transfer.security.checksChain || transfer.security.hasPins {
                add("--proto-redir", "=https")
            } else {
                add("--proto-redir", "=http,https")
            }
            if (hasBody || bodylessPost) && request.method != .post {
                // swurl keeps any method but POST, and its body, at a 301 or 302; curl keeps the
                // --request method but drops the body (an empty one's length too) unless told to keep it.
                add("--post301")
                add("--post302")
            }
            if hasBody, request.headers.contains("Content-Type") {
                // A redirect that turns the request into a GET drops its body; swurl drops the
                // body's Content-Type with it, curl keeps every --header on every hop.
                warnings.append("drop the body's Content-Type when a redirect turns the request into a GET, as swurl does: it keeps the --header on every hop")
            }
            if request.headers.contains("Host") {
                // swurl drops a Host item at another origin; curl 7.88 drops a custom Host only
                // when the host name changes, not the scheme or port.
                warnings.append("drop the Host header at a redirect to another origin as swurl does: it keeps it when only the port or scheme changes")
            }
            if ![HTTPMethod.get, .head, .post].contains(request.method) {
                // At a 303 swurl sends GET; curl keeps a --request method on every hop.
                warnings.append("turn \(request.method.rawValue) into a GET at a 303 redirect as swurl does: it keeps --request \(request.method.rawValue)"
                                + (hasBody ? " and drops the body" : ""))
            }
        }
        if let t = transfer.connectTimeout ?? transfer.timeout { add("--connect-timeout", CurlCommandExport.number(t)) }
        if let t = transfer.timeout {
            add("--speed-limit", "1")
            add("--speed-time", String(Int(t.rounded(.up))))
        }
        switch transfer.httpVersion {
        case .http1_1: add("--http1.1")
        case .http2: add("--http2")
        case .http2PriorKnowledge: add("--http2-prior-knowledge")
        default: break
        }
        if let p = transfer.proxy.explicit { add("--proxy", p) }
        // An https hop through an HTTP proxy opens with CONNECT, which curl gives its own
        // User-Agent (a --header is not applied there); swurl's CONNECT carries none.
        if let proxy = transfer.proxy.proxy(forScheme: "https"), !proxy.isEmpty,
           ["http", "https"].contains(URLText.schemeOf(ProxySettings.absolute(proxy))?.lowercased() ?? ""),
           URLText.schemeOf(request.url)?.lowercased() == "https" || transfer.followRedirects {
            add("--proxy-header", "User-Agent:")
        }
        for r in transfer.resolve { add("--resolve", r) }
        if let s = transfer.unixSocket { add("--unix-socket", s) }
        switch transfer.ipVersion {
        case .v4: add("--ipv4")
        case .v6: add("--ipv6")
        default: break
        }
        if let r = transfer.maxReceiveRate { add("--limit-rate", String(r)) }

        // Retries, limits and the status verdict: curl's nearest options, and what differs.
        let retry = transfer.retry
        if retry.maxRetries > 0 {
            if retry.allows(method: request.method) {
                add("--retry", String(retry.maxRetries))
                // swurl retries refused connections too; curl only with --retry-connrefused.
                add("--retry-connrefused")
                if let t = retry.maxTime { add("--retry-max-time", String(Int(t.rounded(.up)))) }
                // curl's own waits start at 1 s and double, as swurl's do; its --retry-delay fixes every wait.
                if retry.baseDelay != RetryPolicy().baseDelay {
                    warnings.append("start the doubling waits at --retry-delay; its --retry-delay would fix every wait, so it is left out")
                }
            } else {
                warnings.append("retry only idempotent methods; --retry would retry this \(request.method.rawValue) too, so it is left out (swurl retries it with --retry-all-methods)")
            }
        }
        if let size = transfer.maxFileSize {
            add("--max-filesize", String(size))
            if request.headers.contains("Accept-Encoding") {
                warnings.append("limit the body after decoding its Content-Encoding (--max-filesize); curl counts the bytes as received")
            }
        }
        // Limits curl has no option for: said, not dropped without a word.
        if transfer.maxHeaders > 0 {
            warnings.append("refuse a response with more than \(transfer.maxHeaders) header fields (--max-headers); it has no such limit, so it is left out")
        }
        if options.waitForNetwork != nil {
            warnings.append("wait for a route to the host before sending (--wait-for-network); it is left out")
        }
        // curl has no cache: the printed command always asks the server, which is what a plain
        // --cache or --refresh comes to; these two promise more.
        if let cache = transfer.cache, cache.only {
            warnings.append("answer from swurl's cache without touching the network (--cache-only); the printed command asks the server")
        } else if let cache = transfer.cache, cache.staleOK {
            warnings.append("answer from swurl's cache when the network fails (--stale-ok); the printed command fails")
        }
        if options.checkStatus {
            add("--fail-with-body")
            warnings.append("exit 3, 4 or 5 by status class (--check-status); --fail-with-body exits 22 for 4xx and 5xx and passes 3xx")
        }
        // What swurl judges in the response and curl has no option for: the command exits 0 where swurl exits 3, 4, 5 or 8.
        if options.validator.acceptableStatus != nil {
            warnings.append("exit by status class for a status outside --accept-status; the printed command exits 0 for any status")
        }
        if options.validator.acceptableTypes != nil {
            warnings.append("exit 8 for a Content-Type outside --accept-type; the printed command accepts any type")
        }
        if options.decoding.isStrict {
            warnings.append("exit 8 when the body is not \(options.decoding.choice.rawValue) (--decode \(options.decoding.choice.rawValue)); the printed command does not look at the body")
        }

        // TLS.
        let security = transfer.security
        if security.allowsInvalidCertificates { add("--insecure") }
        if security.checksChain && !security.checksHost {
            warnings.append("skip only the host name check (--no-verify-host); --insecure would skip the chain check too, so it is left out")
        } else if !security.checksChain && security.checksHost {
            warnings.append("check the host name while skipping the chain check (-k with a pin); --insecure skips both")
        }
        // curl keeps its compiled-in CA directory (Debian: /etc/ssl/certs) beside --cacert, and
        // its CA bundle beside --capath; swurl trusts only what was given. A CA "directory" that
        // holds nothing (/dev/null) switches the first off; the bundle cannot be.
        if let f = security.caFile {
            add("--cacert", f)
            if security.caPath == nil { add("--capath", "/dev/null") }
        } else if security.caPath == nil {
            for (option, value) in CurlCommandExport.trustCurlMisses(security.defaultStore, &warnings) { add(option, value) }
        }
        if let p = security.caPath {
            add("--capath", p)
            if security.caFile == nil {
                warnings.append("trust only the certificates in --capath; it also trusts its own CA bundle")
            }
        }
        if let c = security.clientCertificate { add("--cert", CurlCommandExport.certificateName(c)) }
        if let k = security.clientKey { add("--key", k) }
        if let p = security.keyPassword { add("--pass", p) }
        if let v = security.minimumVersion { add("--tlsv" + v.rawValue) }
        if let v = security.maximumVersion { add("--tls-max", v.rawValue) }
        if let c = security.ciphers {
            // swurl sends TLS 1.3 suite names to the 1.3 list, as curl's --tls13-ciphers does.
            let names = c.split(separator: ":").map(String.init)
            let v12 = names.filter { !$0.hasPrefix("TLS_") }, v13 = names.filter { $0.hasPrefix("TLS_") }
            if !v12.isEmpty { add("--ciphers", v12.joined(separator: ":")) }
            if !v13.isEmpty { add("--tls13-ciphers", v13.joined(separator: ":")) }
        }
        // curl pins keys only: a pinned certificate goes as its key, so the command takes no
        // server key swurl would not (a pinned intermediate or root makes it fail, never pass).
        let keyPins = security.keyPins + security.pinnedCertificateKeyPins
        if !keyPins.isEmpty {
            add("--pinnedpubkey", keyPins.joined(separator: ";"))
            // With -k swurl matches the leaf's key only, as curl does.
            if security.scope == .chain {
                warnings.append("match every certificate of the chain against the pins (--pin-scope chain); --pinnedpubkey checks the server's own key only, the rest of the chain need not match")
            } else if security.scope == .any && security.checksChain {
                warnings.append("match a pin beyond the leaf certificate (--pin-scope any); --pinnedpubkey checks the server's own key only, so a pinned intermediate or root fails there")
            }
        }
        if !security.pinnedCertificates.isEmpty {
            warnings.append("pin certificates (--pin-cert) themselves; curl pins their keys (--pinnedpubkey), which another certificate for the same key also passes")
            // swurl's pinned certificates are trust anchors too; curl's chain check knows none.
            if security.checksChain {
                warnings.append("trust a pinned certificate as an anchor (--pin-cert): curl checks the chain against its CAs alone, so a self-signed or private-CA server fails there (exit 60) unless --cacert names its CA")
            }
        }
        if !security.addedCertificates.isEmpty {
            warnings.append("add certificates to the system store (--cacert-add); --cacert would replace it, so they are left out")
        }
        if security.clientCertificate != nil, transfer.followRedirects {
            warnings.append("follow redirects without the client certificate: curl presents --cert to every host a redirect leads to, swurl only to this origin")
        }

        if let tooLong {
            throw .usage("--curl cannot write the \(tooLong.option) argument for curl: it is \(tooLong.size) bytes, and Linux refuses an argument of 128 KiB or more",
                         hint: "send the request with swurl itself")
        }
        // --disable first: curl reads no ~/.curlrc, whose options swurl never sent (a proxy,
        // headers, -L).
        var out = prefix + Array("curl \\\n  --disable".utf8)
        for line in lines { out += Array(" \\\n  ".utf8) + line }
        out.append(UInt8(ascii: "\n"))
        return (out, warnings)
    }

    /// Whether a header item (`Name:value`) names `lower` (lower-case).
    static func itemNames(_ items: [RequestItem], _ lower: String) -> Bool {
        items.contains { if case .header(let name, _) = $0.kind { return name.lowercased() == lower } else { return false } }
    }

    /// The system store as swurl reads it from the variables, as curl options when curl by
    /// itself would read another: curl takes `CURL_CA_BUNDLE`, else `SSL_CERT_FILE` and
    /// `SSL_CERT_DIR`, and none of them once given `--cacert` or `--capath`; swurl every file the
    /// three variables name, beside `SSL_CERT_DIR` (else the system's directory, which Debian's
    /// curl has compiled in and which holds the system bundle's CAs). A file beyond the system's
    /// is `--cacert` (one at most: more is a warning), `SSL_CERT_DIR` `--capath`. A named file
    /// that does not exist adds nothing to swurl's store, and would fail curl's every https
    /// request: left out.
    static func trustCurlMisses(_ store: DefaultTrustStore, _ warnings: inout [String]) -> [(String, String)] {
        let system = DefaultTrustStore.systemBundle
        func exists(_ path: String) -> Bool { var st = stat(); return stat(ArgumentBytes.path(path), &st) == 0 }
        let named = store.namedFiles.filter { exists($0.path) }
        let custom = named.filter { !DefaultTrustStore.isSameFile($0.path, system) }
        // An SSL_CERT_DIR naming the system's directory is what curl has compiled in anyway.
        let directory = store.directoryOverride.flatMap { DefaultTrustStore.isSameFile($0, DefaultTrustStore.systemDirectory) ? nil : $0 }
        // curl takes its variable's file whether or not it exists (and then fails with 77).
        let curlsFile = store.namedFiles.first { $0.variable == "CURL_CA_BUNDLE" } ?? store.namedFiles.first { $0.variable == "SSL_CERT_FILE" }
        let curlFails = curlsFile.map { !exists($0.path) } ?? false
        if !curlFails {
            let curlsCustom = curlsFile.flatMap { DefaultTrustStore.isSameFile($0.path, system) ? nil : $0.path }
            let curlsDirectory = named.contains { $0.variable == "CURL_CA_BUNDLE" } ? nil : directory
            if Set(custom.map(\.path)) == Set(curlsCustom.map { [$0] } ?? []) && curlsDirectory == directory { return [] }
        }
        guard custom.count <= 1 else {
            warnings.append("trust the CA files \(custom.map(\.variable).joined(separator: " and ")) name together; --cacert takes one file, so they are left out")
            return curlFails ? [("--cacert", system)] : []
        }
        var out: [(String, String)] = []
        if let file = custom.first?.path ?? (curlFails ? system : nil) { out.append(("--cacert", file)) }
        if let directory { out.append(("--capath", directory)) }
        return out
    }

    /// A word for a POSIX shell, in text a terminal shows as it is: as is when it is made of
    /// safe characters, else in single quotes (a quote inside becomes `'\''`). A word holding a byte a terminal would not show as it is (a control
    /// character but a line break or tab, DEL, a byte that is not UTF-8, a C1 or bidirectional
    /// control: `TerminalSanitizer`'s rule) is written as one
    /// `"$(printf '…')"` of `printfFormat` (printable ASCII and `\ooo`), its trailing line
    /// breaks (which a command substitution drops) after it in quotes: a carriage return that
    /// would hide the rest of the line, or an escape sequence, is never printed raw, so what the
    /// terminal shows, and a copy of it, is the command. One substitution a word, whatever it
    /// holds (one a byte made dash overflow its stack at some 1,500 of them, and bash take
    /// seconds). Any byte but NUL survives.
    static func quote(_ bytes: [UInt8]) -> [UInt8] {
        let safe = !bytes.isEmpty && bytes.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || Array("_./:=@%+,-".utf8).contains(b)
        }
        if safe { return bytes }
        // The terminal's rule (`TerminalSanitizer`), a line break and a tab aside: in quotes
        // they show as what they are.
        if !shownAsIs(bytes.filter { $0 != 0x0A && $0 != 0x09 }) {
            var body = bytes[...]
            while body.last == 0x0A { body = body.dropLast() }
            let newlines = bytes[body.endIndex...]
            return Array("\"$(printf '".utf8) + printfFormat(Array(body)) + Array("')\"".utf8)
                + (newlines.isEmpty ? [] : [UInt8(ascii: "'")] + newlines + [UInt8(ascii: "'")])
        }
        var out: [UInt8] = [UInt8(ascii: "'")]
        for b in bytes {
            if b == UInt8(ascii: "'") { out += Array("'\\''".utf8) } else { out.append(b) }
        }
        out.append(UInt8(ascii: "'"))
        return out
    }

    /// Whether `bytes` are UTF-8 text a terminal shows as it is (`TerminalSanitizer`).
    private static func shownAsIs(_ bytes: [UInt8]) -> Bool {
        guard let text = String(validating: bytes, as: UTF8.self) else { return false }
        return TerminalSanitizer.clean(text) == text
    }

    /// `bytes` as one shell word in text a terminal shows as it is (a hint to copy): `quote`'s
    /// form for UTF-8 text the terminal's sanitizing leaves as it is, else bash's `$'…'` with
    /// `\xHH` for every byte that is not printable ASCII, so a file name that is not UTF-8, or
    /// holds a line break or another control character, is pasted back as the same bytes (a hint
    /// is one line: `quote` keeps line breaks in its quotes, where a command may hold them).
    static func quotedText(_ bytes: [UInt8]) -> String {
        if shownAsIs(bytes) { return String(decoding: quote(bytes), as: UTF8.self) }
        var out = "$'"
        for b in bytes {
            switch b {
            case UInt8(ascii: "\\"): out += "\\\\"
            case UInt8(ascii: "'"): out += "\\'"
            case 0x20...0x7E: out.unicodeScalars.append(Unicode.Scalar(b))
            default: out += (b < 0x10 ? "\\x0" : "\\x") + String(b, radix: 16)
            }
        }
        return out + "'"
    }

    /// The longest body written as an argument: larger ones are piped in, well before Linux's
    /// limit (`longestArgument`), which the quoting and the shell's own words come close to.
    static let largestArgument = 100 * 1024
    /// The longest argument Linux's exec takes (MAX_ARG_STRLEN, 128 KiB with its NUL; over it,
    /// "Argument list too long"): a header field, URL or token longer has no way into curl.
    static let longestArgument = 128 * 1024 - 1

    /// Whether the fields' `--form-string NAME=VALUE` arguments could not all be given to curl:
    /// one over `largestArgument` or holding a NUL byte, or all of them over 1 MiB together
    /// (exec's limit for all arguments and the environment is 2 MiB here).
    static func hasFieldNoArgumentHolds(_ parts: [MultipartRequestSerializer.Part]) -> Bool {
        var total = 0
        for part in parts {
            guard case .field(let name, let value) = part, let value else { continue }
            let size = name.utf8.count + value.utf8.count + 1
            if size > largestArgument || value.utf8.contains(0) { return true }
            total += size
        }
        return total > 1 << 20
    }

    /// Bytes as a printf format inside single quotes: printable ASCII as is, anything else
    /// (and `\`, `%`, `'`, a leading `-`) as an octal escape (`\000`), so printf writes exactly `bytes`.
    static func printfFormat(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        for (i, b) in bytes.enumerated() {
            // A leading `-` would read as an option of printf.
            if b >= 0x20 && b < 0x7F && b != UInt8(ascii: "\\") && b != UInt8(ascii: "%") && b != UInt8(ascii: "'")
                && !(i == 0 && b == UInt8(ascii: "-")) {
                out.append(b)
            } else {
                out += [UInt8(ascii: "\\")] + [b >> 6, (b >> 3) & 7, b & 7].map { UInt8(ascii: "0") + $0 }
            }
        }
        return out
    }

    /// A file name for curl's `--cert`, which reads `FILE:PASSWORD`: `\\` and `:` escaped.
    static func certificateName(_ path: String) -> String {
        // By scalars: a `:` followed by a combining mark is one Character unequal to ":".
        var out = String.UnicodeScalarView()
        for c in path.unicodeScalars {
            if c == "\\" || c == ":" { out.append("\\") }
            out.append(c)
        }
        return String(out)
    }

    /// Seconds as curl reads them (`5`, `0.5`).
    static func number(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
