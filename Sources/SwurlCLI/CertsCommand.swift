import SwurlOutput
import SwurlEngine
import SwurlCore
/// `swurl certs URL [TLS options] [--json | --pem]`: show a server's certificates and pins; sends no request.
enum CertsCommand: SwurlCommand {
    static let name = CommandName.certs
    static let word: String? = "certs"
    static let invocation = "swurl certs URL"
    static let usage = "swurl certs URL [TLS OPTIONS] [--json | --pem]"
    package static let summary = "show the server's certificates and pins; send no request"

    /// - Returns: `.success` when the report was printed (whatever the verification result).
    /// - Throws: `.usage` for a missing or non-HTTPS URL, the policy's errors, transport errors.
    static func run(_ args: ParsedArguments, environment: Environment) throws(SwurlError) -> ExitStatus {
        let rest = args.positionals[...]
        guard let target = rest.first else {
            throw .usage("swurl certs needs a URL", hint: "e.g. swurl certs https://example.org")
        }
        if rest.count > 1 {
            throw .usage("swurl certs takes one URL (got also '\(rest.dropFirst().joined(separator: " "))')")
        }
        // The URL as far as it was understood, for --json's failure object.
        var shownURL: String?
        var report: CertificateReport
        do throws(SwurlError) {
            let url = try URLBuilder.resolve(target, defaultScheme: "https")
            shownURL = url.url
            if args.has(.json), args.has(.pem) {
                throw SwurlError.usage("--json and --pem both choose what swurl certs prints", hint: "give one of them")
            }
            var policy = try SecurityArguments.policy(from: args, environment: environment)
            policy.hostVerification = policy.hostVerification ?? true
            var connection = TransferOptions()
            if let v = args.value(.timeout) { connection.timeout = try CommandOptions.seconds(v, "timeout") }
            try CommandOptions.parseConnectionArguments(args, into: &connection, environment: environment)
            report = try CertificateProbe.inspect(url: url, policy: policy, connection: connection)
            // The pin offered "ready to paste" passes as pasted only with the trust it verified
            // under; a --pin-cert none of whose certificates is in the path is no part of that
            // trust, and pasted beside a key pin it would be a second check that fails.
            let path = report.verifiedPath ?? report.presented
            let pinnedInPath = path.contains { policy.pinnedCertificates.contains($0.der) }
            let trustedBy: [Option] = [.cacert, .capath, .cacertAdd] + (pinnedInPath ? [.pinCert] : [])
            report.trustOptions = trustedBy.flatMap { option in
                (args.options[option] ?? []).compactMap { $0 }.map { "--\(option.rawValue) \(FileTrust.quoted($0)) " }
            }.joined()
            report.leafPinnedAsCertificate = report.presented.first.map { policy.pinnedCertificates.contains($0.der) } ?? false
        } catch {
            var failure = error
            // A port that speaks plain HTTP (the handshake read an HTTP answer as a TLS record):
            // certs reads TLS ports only, so the request's hint "try http://" would lead to its
            // own refusal.
            if case .transport(let message, _) = error, message.containsText("wrong version number") {
                failure = .transport(message, hint: "the port does not speak TLS (it may speak plain HTTP): swurl certs needs a TLS port")
            }
            // A script reading --json gets an object either way (the message goes to stderr too),
            // a URL or an option refused before any connection included.
            if args.has(.json), failure != .interrupted {
                let text = CertificateReportFormatter.failureJSON(url: shownURL ?? Redactor.givenURL(target), message: failure.message,
                                                                  exit: ExitStatus(for: failure).rawValue)
                try? environment.stdout.write(text)
            }
            throw failure
        }
        let text = args.has(.json) ? CertificateReportFormatter.json(report)
            : args.has(.pem) ? CertificateReportFormatter.pem(report) : CertificateReportFormatter.text(report)
        do { try environment.stdout.write(text) } catch { throw (error as? SwurlError) ?? .output("\(error)") }
        return .success
    }
}
