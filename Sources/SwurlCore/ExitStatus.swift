/// Process exit statuses; the first seven follow HTTPie so existing scripts keep working.
public enum ExitStatus: Int32, Sendable, CaseIterable {
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
    public init(for error: SwurlError) {
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
    public init?(httpStatus code: Int) {
        switch code {
        case 300..<400: self = .redirection
        case 400..<500: self = .clientError
        case 500..<600: self = .serverError
        default: return nil
        }
    }

    /// The one status rule for a response that validation refused: 3xx, 4xx and 5xx exit by
    /// class (3, 4, 5); any other code (a 1xx or 2xx outside `--accept-status`) is rejected (8).
    public init(rejectedHTTPStatus code: Int) {
        self = ExitStatus(httpStatus: code) ?? .responseRejected
    }
}
