/// A request method, as sent (`GET`, `PROPFIND`): the one home of what swurl knows about
/// methods — which are known by name, which are safe or idempotent, which carry their
/// parameters in the URL, which may take piped stdin as their body.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The method word exactly as sent.
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ word: String) { rawValue = word }
    public init(stringLiteral value: String) { rawValue = value }

    public var description: String { rawValue }

    public static let get: HTTPMethod = "GET"
    public static let head: HTTPMethod = "HEAD"
    public static let post: HTTPMethod = "POST"
    public static let put: HTTPMethod = "PUT"
    public static let patch: HTTPMethod = "PATCH"
    public static let delete: HTTPMethod = "DELETE"
    public static let options: HTTPMethod = "OPTIONS"
    public static let trace: HTTPMethod = "TRACE"
    public static let connect: HTTPMethod = "CONNECT"

    /// The methods RFC 9110 defines, which swurl also accepts in lower case (`swurl post URL`)
    /// and the REPL completes; any other method is written in capitals.
    public static let known: [HTTPMethod] = [.get, .head, .post, .put, .patch, .delete, .options, .trace, .connect]

    /// The same method in capitals (`post` → `POST`).
    public var uppercased: HTTPMethod { HTTPMethod(rawValue.uppercased()) }

    /// Whether the method is known by name (any case).
    public var isKnown: Bool { HTTPMethod.known.contains(uppercased) }

    /// RFC 9110 §9.2.2: repeating the request has the same effect (what `--retry` may resend).
    public var isIdempotent: Bool { [.get, .head, .put, .delete, .options, .trace].contains(uppercased) }

    /// RFC 9110 §9.2.1: read-only (GET, HEAD, OPTIONS, TRACE).
    public var isSafe: Bool { [.get, .head, .options, .trace].contains(self) }

    /// Form parameters go into the query instead of a body (AFNetworking's
    /// `HTTPMethodsEncodingParametersInURI`: GET, HEAD, DELETE).
    public var encodesParametersInURI: Bool { [.get, .head, .delete].contains(uppercased) }

    /// Whether piped stdin may become the body: any method but the safe ones (so a bare
    /// `swurl URL` in a `while read` loop never eats the loop's input).
    public var mayTakeStdinBody: Bool { !uppercased.isSafe }

    /// A body never goes with it (GET and HEAD: a file field cannot make them multipart).
    public var sendsNoBody: Bool { self == .get || self == .head }
}
