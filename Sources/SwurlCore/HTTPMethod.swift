/// A request method, as sent (`GET`, `PROPFIND`): the one home of what swurl knows about
/// methods — which are known by name, which are safe or idempotent, which carry their
/// parameters in the URL, which may take piped stdin as their body.
package struct HTTPMethod: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The method word exactly as sent.
    package let rawValue: String

    package init(rawValue: String) { self.rawValue = rawValue }
    package init(_ word: String) { rawValue = word }
    package init(stringLiteral value: String) { rawValue = value }

    package var description: String { rawValue }

    package static let get: HTTPMethod = "GET"
    package static let head: HTTPMethod = "HEAD"
    package static let post: HTTPMethod = "POST"
    package static let put: HTTPMethod = "PUT"
    package static let patch: HTTPMethod = "PATCH"
    package static let delete: HTTPMethod = "DELETE"
    package static let options: HTTPMethod = "OPTIONS"
    package static let trace: HTTPMethod = "TRACE"
    package static let connect: HTTPMethod = "CONNECT"

    /// The methods RFC 9110 defines, which swurl also accepts in lower case (`swurl post URL`)
    /// and the REPL completes; any other method is written in capitals.
    package static let known: [HTTPMethod] = [.get, .head, .post, .put, .patch, .delete, .options, .trace, .connect]

    /// The same method in capitals (`post` → `POST`), ASCII letters only.
    package var uppercased: HTTPMethod { HTTPMethod(rawValue.asciiUppercased) }

    /// The first letter that is no ASCII letter in a word Unicode case mapping would read as a
    /// known method (`poſt`, `optıons`): swurl reads methods in ASCII alone, as HTTPie does, so
    /// such a word is no method; nil for any other word.
    package static func lookAlike(_ word: String) -> Unicode.Scalar? {
        guard word.unicodeScalars.contains(where: { !$0.isASCII }), HTTPMethod(word.uppercased()).isKnown else { return nil }
        return word.unicodeScalars.first { !$0.isASCII }
    }

    /// Refuses a `lookAlike` word where a method goes, naming the letter; `example` writes the
    /// line with the method it reads as (`swurl POST URL`, a REPL's `POST`).
    /// - Throws: `SwurlError.usage` for such a word.
    package static func refuseLookAlike(_ word: String, example: (String) -> String) throws(SwurlError) {
        guard let odd = lookAlike(word) else { return }
        throw .usage("'\(TerminalSanitizer.clean(word))' is no method: '\(odd)' (\(odd.codePoint)) is no ASCII letter",
                     hint: "write the method in ASCII letters: " + example(TerminalSanitizer.clean(word.uppercased())))
    }

    /// Whether the method is known by name (any case).
    package var isKnown: Bool { HTTPMethod.known.contains(uppercased) }

    /// RFC 9110 §9.2.2: repeating the request has the same effect (what `--retry` may resend).
    package var isIdempotent: Bool {
        switch uppercased.rawValue {
        case "GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE": return true
        default: return false
        }
    }

    /// Sent without a body with `Content-Length: 0` (RFC 9110 §8.6: a client should send it when
    /// the method gives content a meaning): POST, PUT and PATCH, as HTTPie sends them. Without
    /// it some servers answer 411, nginx's WebDAV PUT a 500.
    /// (A switch, not an array's `contains`: asked a few times for every line of a batch.)
    package var sendsEmptyLength: Bool {
        switch rawValue {
        case "POST", "PUT", "PATCH": return true
        default: return false
        }
    }

    /// RFC 9110 §9.2.1: read-only (GET, HEAD, OPTIONS, TRACE).
    package var isSafe: Bool {
        switch rawValue {
        case "GET", "HEAD", "OPTIONS", "TRACE": return true
        default: return false
        }
    }

    /// Form parameters go into the query instead of a body (AFNetworking's
    /// `HTTPMethodsEncodingParametersInURI`: GET, HEAD, DELETE).
    package var encodesParametersInURI: Bool {
        switch uppercased.rawValue {
        case "GET", "HEAD", "DELETE": return true
        default: return false
        }
    }

    /// Whether piped stdin may become the body: any method but the safe ones (so a bare
    /// `swurl URL` in a `while read` loop never eats the loop's input).
    package var mayTakeStdinBody: Bool { !uppercased.isSafe }

    /// A body never goes with it (GET and HEAD: a file field cannot make them multipart).
    package var sendsNoBody: Bool { self == .get || self == .head }
}
