import SwurlSession
import SwurlCore

/// The stages every request-sending door shares, in one direction: build the request (once),
/// bind the session, work out the transfer options; then either print it as a curl command or
/// wait for the network and hand it to its half — `DownloadCommand.download` for `-d`,
/// `RequestCommand.respond` otherwise. One-shot requests, `-d`, and REPL lines come through here
/// (batch lines build theirs the same way, for the multi handle).
enum RequestPipeline {
    /// A request ready to send, with what goes along with it.
    struct Prepared {
        var request: HTTPRequest
        /// The `--session` file, bound to the request's host.
        var stored: SessionBinding?
        var transferOptions: TransferOptions
    }

    /// Runs the whole exchange for `options`.
    /// - Throws: every stage's `SwurlError`.
    static func perform(_ options: CommandOptions, environment: Environment) throws(SwurlError) -> ExitStatus {
        let built = try RequestBuilder(options: options, environment: environment).buildWithParts()
        var request = built.request
        let stored = try SessionBinding.open(options, request: request, environment: environment)
        stored?.apply(to: &request, options: options)
        // Ctrl-C from here on stops transfers cleanly (exit 130) and restores the terminal.
        Interrupt.arm()
        var transferOptions = try Swurl.transferOptions(options, url: request.url, environment: environment)
        stored?.apply(to: &transferOptions, options: options)
        if options.curl {
            let export = try CurlCommandExport(request: request, options: options, transfer: transferOptions,
                                               cookies: stored?.cookiesSent ?? [], parts: built.parts).render()
            for warning in export.warnings { try? environment.stderr.write("swurl: warning: curl cannot \(warning)\n") }
            do { try environment.stdout.write(export.command) } catch { throw (error as? SwurlError) ?? .output("\(error)") }
            return .success
        }
        if let limit = options.waitForNetwork, !options.offline {
            try Reachability.waitForNetwork(request.url, options: options.transfer, limit: limit)
        }
        let prepared = Prepared(request: request, stored: stored, transferOptions: transferOptions)
        return options.download
            ? try DownloadCommand.download(prepared, options: options, environment: environment)
            : try RequestCommand.respond(prepared, options: options, environment: environment)
    }
}
