import SwurlCore

/// The one verdict on a response (AFNetworking's `validateResponse:data:error:`, Alamofire's
/// Validation as one stage): the status first (a rejected status still shows its body), then the
/// content type (a rejected type is not decoded), then a strict decoder's outcome. The one-shot
/// request, `--download`, batch lines and REPL lines all ask it; printers only render.
package struct ResponseVerdict: Equatable, Sendable {
    /// Why a response failed, in the order the rules are applied.
    package enum Failure: Equatable, Sendable {
        /// `--check-status` or `--accept-status` rejected the code.
        case status(code: Int, reason: String)
        /// `--accept-type` rejected the media type (nil: no Content-Type) of a non-empty body.
        case contentType(String?)
        /// A strict `--decode` could not decode the body.
        case decoding(choice: String, reason: String)
    }

    /// Nil when the response passed every rule.
    package let failure: Failure?
    /// The exit status the response gives the command.
    package let exitStatus: ExitStatus
    /// Whether `--accept-status` judged the status (the message then says so).
    private var statusListGiven = false

    /// The response judged by the user's rules.
    /// - Parameters:
    ///   - status, reason: the final response's status line.
    ///   - mediaType: its Content-Type's media type, nil when absent.
    ///   - bodyBytes: how many body bytes arrived (an empty body has no type to reject).
    ///   - decodingFailure: what the decoder chosen by `decoding` said of the body, nil when it decoded.
    package init(status: Int, reason: String, mediaType: String?, bodyBytes: Int64, decodingFailure: String?,
                validator: ResponseValidator, decoding: DecodingOptions) {
        if let exit = validator.statusFailure(status) {
            failure = .status(code: status, reason: reason)
            exitStatus = exit
            statusListGiven = validator.acceptableStatus != nil
        } else if bodyBytes > 0 && !validator.acceptsContentType(mediaType) {
            failure = .contentType(mediaType)
            exitStatus = .responseRejected
        } else if decoding.isStrict, let decodingFailure {
            failure = .decoding(choice: decoding.choice.rawValue, reason: decodingFailure)
            exitStatus = .responseRejected
        } else {
            failure = nil
            exitStatus = .success
        }
    }

    /// One line saying why: `HTTP 404 Not Found`, `Content-Type text/html is not acceptable`,
    /// `--decode json: …`; nil when the response passed.
    package var message: String? {
        switch failure {
        case nil: return nil
        case .status(let code, let reason):
            return "HTTP \(code)\(TerminalSanitizer.reasonSuffix(reason))" + (statusListGiven ? " (outside --accept-status)" : "")
        case .contentType(let type):
            return (type.map { "Content-Type \(TerminalSanitizer.excerpt($0))" } ?? "a response without a Content-Type") + " is not acceptable"
        case .decoding(let choice, let reason): return "--decode \(choice): \(reason)"
        }
    }

    /// `message` for a body that was not displayed (a batch line's, one piped as sent or not
    /// printed): a decoding failure without what the decoder says of the terminal's display.
    package var undisplayedMessage: String? {
        if case .decoding(let choice, let reason) = failure { return "--decode \(choice): \(ResponseVerdict.withoutDisplay(reason))" }
        return message
    }

    /// A decoder's reason without what it says of the terminal's display (`; formatted all the
    /// same`, `; 15 bytes not shown; use -o FILE or a pipe to save it`): for a body that was not
    /// displayed.
    static func withoutDisplay(_ reason: String) -> String {
        var why = reason
        for shown in ["; formatted up to there, the rest is shown as sent", "; formatted all the same", "; the rest is shown as sent",
                      "; shown as sent", "; use -o FILE or a pipe to save it"] where why.hasSuffix(shown) {
            why.removeLast(shown.count)
        }
        // `; 15 bytes not shown`: cut at its `; `, the last in the reason.
        if why.hasSuffix(" not shown"), let cut = why.indices.last(where: { why[$0...].hasPrefix("; ") }) { why = String(why[..<cut]) }
        return why
    }

    /// The error a rejected type or body is reported with (a rejected status is reported as a
    /// warning, the body having been shown), with the hint that helps; nil otherwise.
    /// - Parameters:
    ///   - saving: the body was going to a file (`-o`, `-d`), which a rejected body does not
    ///     become: nothing was "shown as sent", and `-o FILE` is no way out.
    ///   - asSent: the body went to a pipe or device as it came, unformatted: what the decoder
    ///     says it would have shown or held back on a terminal does not apply.
    ///   - printed: the body was printed at all (not with `-p h`).
    package func error(validator: ResponseValidator, saving: Bool = false, asSent: Bool = false, printed: Bool = true) -> SwurlError? {
        guard let message else { return nil }
        switch failure {
        case .contentType:
            return .responseRejected(message, hint: "--accept-type allows \((validator.acceptableTypes ?? []).joined(separator: ", "))")
        case .decoding where saving || asSent || !printed:
            return .responseRejected((undisplayedMessage ?? message) + (asSent && printed && !saving ? " (the body was written as sent)" : ""),
                                     hint: saving ? "use --decode auto to save any body" : "use --decode auto to accept any body")
        case .decoding:
            return .responseRejected(message, hint: "use --decode auto to show (or save) any body")
        case .status, nil:
            return nil
        }
    }
}
