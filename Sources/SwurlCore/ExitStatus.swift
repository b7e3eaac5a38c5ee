/// Process exit statuses; the first seven follow HTTPie so existing scripts keep working.
package enum ExitStatus: Int32, Sendable, CaseIterable {
    case success = 0
    case transportError = 1
    case timedOut = 2
    case redirection = 3
    case clientError = 4
    case serverError = 5
    case tooManyRedirects = 6
    case trustFailure = 7
    case responseRejected = 8
    case usage = 64
    case badData = 65
    case inputFile = 66
    case interrupted = 130

    /// The one mapping from an error to a status.
    package init(for error: SwurlError) {
        switch error {
        case .usage: self = .usage
        case .badData: self = .badData
        case .inputFile: self = .inputFile
        case .transport, .output: self = .transportError
        case .timedOut: self = .timedOut
        case .tooManyRedirects: self = .tooManyRedirects
        case .trust: self = .trustFailure
        case .responseRejected: self = .responseRejected
        case .interrupted: self = .interrupted
        }
    }

    /// The status for an HTTP status code under `--check-status`, or nil when it passes.
    ///
    /// - Parameter followed: whether redirects were being followed (a 3xx then still fails).
    package init?(httpStatus code: Int) {
        switch code {
        case 300..<400: self = .redirection
        case 400..<500: self = .clientError
        case 500..<600: self = .serverError
        default: return nil
        }
    }

    /// The one status rule for a response that validation refused: 3xx, 4xx and 5xx exit by
    /// class (3, 4, 5); any other code (a 1xx or 2xx outside `--accept-status`) is rejected (8).
    package init(rejectedHTTPStatus code: Int) {
        self = ExitStatus(httpStatus: code) ?? .responseRejected
    }

    /// What each status means, for `--help`, the man page and the README (all generated from
    /// this table, so they cannot drift): the codes (3, 4 and 5 share a row), then the meaning.
    package static let documentation: [(codes: [ExitStatus], meaning: String)] = [
        ([.success], "success (any HTTP status, unless checked)"),
        ([.transportError], "transport error: DNS, connection refused/reset, protocol error, output write failure"),
        ([.timedOut], "timed out"),
        ([.redirection, .clientError, .serverError], "3xx / 4xx / 5xx with --check-status, or outside --accept-status"),
        ([.tooManyRedirects], "too many redirects"),
        ([.trustFailure], "TLS trust failure: untrusted chain, host mismatch, pin mismatch, a pin on a plain http URL or redirect"),
        ([.responseRejected], "response rejected: unacceptable Content-Type (--accept-type), a 1xx/2xx or 600-999 outside --accept-status (for -d, a final 1xx or 600-999 unless it lists it), a strict --decode could not decode the body, or the body (a resumed download: the whole file) passed --max-filesize"),
        ([.usage], "usage error (bad option, bad request item, contradictory flags)"),
        ([.badData], "bad input data (invalid := JSON, a value the serializer cannot encode, a config or session file others could change)"),
        ([.inputFile], "input file missing or unreadable"),
        ([.interrupted], "interrupted (Ctrl-C)"),
    ]
}
