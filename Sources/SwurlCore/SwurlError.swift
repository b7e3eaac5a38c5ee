/// Every failure swurl reports, grouped by the stage that failed.
///
/// The CLI maps each case to an exit status in one place (`ExitStatus.init(for:)`) and prints
/// `message` plus an optional `hint`.
package enum SwurlError: Error, Equatable, Sendable {
    /// The command line is wrong: bad option, bad request item, contradictory flags (exit 64).
    case usage(String, hint: String? = nil)
    /// Input data cannot be encoded: invalid `:=` JSON, a value the serializer cannot write (exit 65).
    case badData(String, hint: String? = nil)
    /// An input file is missing, unreadable or not a regular file (exit 66).
    case inputFile(String, hint: String? = nil)
    /// DNS, connection, protocol or local I/O failure during the transfer (exit 1).
    case transport(String, hint: String? = nil)
    /// The request timed out (exit 2).
    case timedOut(String)
    /// More redirects than `--max-redirects` allows (exit 6).
    case tooManyRedirects(String)
    /// The TLS peer was not trusted: chain, host name or pin (exit 7).
    case trust(String, hint: String? = nil)
    /// The response was rejected by validation or a strict decoder (exit 8).
    case responseRejected(String, hint: String? = nil)
    /// The user pressed Ctrl-C (exit 130).
    case interrupted
    /// Writing the output failed (exit 1).
    case output(String)

    /// The one-line description printed after `swurl: error: ` (and kept in batch results, HAR
    /// entries and reports), with the passwords of the URLs it quotes masked
    /// (`Redactor.urls(inText:)`): a message may quote a URL or `--proxy` as it was given, or
    /// libcurl's text that does.
    /// A word given as bytes that are not UTF-8 (carried escaped in the String) is shown as
    /// `\xFF`, as the messages that name such a word themselves show it.
    package var message: String {
        switch self {
        case .usage(let m, _), .badData(let m, _), .inputFile(let m, _), .transport(let m, _),
             .trust(let m, _), .responseRejected(let m, _):
            return ArgumentBytes.shown(Redactor.urls(inText: m))
        case .timedOut(let m), .tooManyRedirects(let m), .output(let m):
            return ArgumentBytes.shown(Redactor.urls(inText: m))
        case .interrupted:
            return "interrupted"
        }
    }

    /// Whether the TLS peer was not trusted (exit 7).
    package var isTrustFailure: Bool {
        if case .trust = self { return true }
        return false
    }

    /// An optional second line that tells the user how to fix the problem (URL passwords
    /// masked, as in `message`).
    package var hint: String? {
        switch self {
        case .usage(_, let h), .badData(_, let h), .inputFile(_, let h), .transport(_, let h),
             .trust(_, let h), .responseRejected(_, let h):
            return h.map { ArgumentBytes.shown(Redactor.urls(inText: $0)) }
        default:
            return nil
        }
    }
}
