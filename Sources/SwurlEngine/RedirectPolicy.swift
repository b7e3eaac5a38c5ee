import SwurlSecurity
import SwurlCurl
import SwurlCore
/// An origin as RFC 6454 defines it: scheme, host and port. Credentials are bound to one; a
/// change of any part (an https→http downgrade too) is a different origin.
package struct Origin: Sendable, Equatable, CustomStringConvertible {
    package var scheme: String
    package var host: String
    package var port: Int

    /// - Throws: `SwurlError.usage` when `url` is not a valid URL.
    package init(url: String) throws(SwurlError) {
        let u = try CurlURL.origin(parsing: url)
        scheme = u.scheme.lowercased()
        host = u.host.lowercased()
        port = u.port ?? (scheme == "https" ? 443 : 80)
    }

    package var description: String { "\(scheme)://\(host):\(port)" }

    /// The host without an IPv6 literal's brackets (`::1`), as cookies and file names take it.
    package var bareHost: String { HostName.bare(host) }
}

/// How a request changes when a redirect is followed (RFC 9110 §15.4, as browsers, HTTPie
/// and curl's `--follow` do it).
package enum RedirectPolicy {
    /// The statuses that carry a Location swurl follows.
    package static let redirectStatuses = HTTPResponseHead.redirectStatuses

    /// Header fields that carry credentials: sent only to the origin they were given for.
    package static let credentialHeaders = ["Authorization", "Proxy-Authorization", "Cookie", "Cookie2"]

    /// Whether `head` is a redirect swurl would follow.
    package static func isRedirect(_ head: HTTPResponseHead) -> Bool { head.isRedirect }

    /// The request for the next hop: 303 becomes GET without a body (HEAD stays HEAD), 301 and
    /// 302 turn a POST into a GET without a body, 307 and 308 keep method and body.
    /// - Throws: `SwurlError.usage` for a target that is not http or https, and
    ///   `SwurlError.inputFile` when the body must be sent again but came from stdin.
    package static func follow(_ request: HTTPRequest, status: Int, to location: String) throws(SwurlError) -> HTTPRequest {
        func refused(_ why: String) -> SwurlError {
            .transport("the server redirected to '\(TerminalSanitizer.excerpt(Redactor.url(location, userAlone: true)))', which \(why)")
        }
        // libcurl makes a relative Location absolute; one it could not read stays as sent
        // (`data:,x` and `mailto:a` have a scheme and no `//`).
        guard URLText.hasSchemePrefix(location) else { throw refused("could not be read as a URL") }
        guard let scheme = URLText.schemeOf(location), URLText.httpSchemes.contains(scheme.lowercased()) else {
            // `http:host/x`: http's scheme without the `//` an authority needs (refused all the same).
            let lower = location.prefix(6).lowercased()
            if lower.hasPrefix("http:") || lower.hasPrefix("https:") { throw refused("has no '//' after its scheme") }
            throw refused("is not an http or https URL")
        }
        let target: CurlURL
        do { target = try CurlURL(parsing: location, pathAsIs: request.pathAsIs) } catch {
            throw .transport("the server redirected to an invalid URL: \(error.message)")
        }
        var next = request
        // A user name or password in the Location is not the user's: never sent (HTTPie sends
        // none; curl 7.88 only to the same host), so a server cannot have swurl log in elsewhere with
        // credentials it chose, or look up another host's netrc password by naming its login.
        // The first URL's user info still serves hops to its own origin (`Exchange.prepared`).
        next.url = URLText.withoutUserInfo(target.url)
        let becomesGet = (status == 303 && request.method != .head)
            || ((status == 301 || status == 302) && request.method == .post)
        if becomesGet {
            next.method = .get
            next.body = nil
            for name in ["Content-Type", "Content-Length", "Transfer-Encoding", "Content-Encoding"] {
                next.headers.remove(name)
            }
        } else if let body = request.body, !body.isRewindable {
            // Named by where it streamed from (stdin, a pipe or FIFO named with @, a /proc file).
            let source = body.segments.lazy.compactMap { if case .stream(_, let label, _) = $0 { return label } else { return nil } }.first ?? "stdin"
            throw .inputFile("the server answered \(status) and wants the request body sent again to \(TerminalSanitizer.excerpt(Redactor.url(location, userAlone: true))), but it streamed from \(TerminalSanitizer.clean(source)) and cannot be read twice",
                             hint: request.headers["Content-Type"]?.lowercased().hasPrefix("multipart/") == true
                                 ? "save what it streamed to a regular file and give it as the file field NAME@FILE (a file is read again)"
                                 : "save the body to a regular file and send it with @FILE (a file is read again)")
        }
        return next
    }
}
