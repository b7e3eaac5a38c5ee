@preconcurrency import CSupport
#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlCurl
import SwurlEngine
import SwurlCore

/// Asks for the `--auth` password on the terminal without echoing it: on stdin when it is the
/// terminal, else on the controlling terminal (`/dev/tty`), as curl and HTTPie do, so a body can
/// still come from a pipe (`echo {} | swurl -a ann POST …`).
enum PasswordPrompt {
    /// Passwords typed in this process, by what they open (`auth USER@ORIGIN`, `key PATH`): a
    /// REPL or a batch asks once for each, not once per line.
    nonisolated(unsafe) private static var typed: [String: String] = [:]

    /// `--auth USER`'s password for `url`'s origin, asked once.
    /// - Parameter before: runs just before the prompt shows (a batch clears its progress line).
    /// - Throws: `SwurlError.usage` when there is no terminal to ask on (a script must pass
    ///   USER:PASS), `.interrupted` on Ctrl-C.
    static func ask(user: String, url: String, environment: Environment, before: () -> Void = {}) throws(SwurlError) -> String {
        let host = (try? CurlURL(parsing: url))?.hostHeader ?? url
        let key = authKey(user: user, url: url)
        if let known = typed[key] { return known }
        before()
        let password = try askHidden("swurl: password for \(user)@\(host): ", environment: environment, orTTY: true,
                                     noTerminal: .usage("--auth '\(user)' has no password and there is no terminal to ask for one",
                                                        hint: "pass it as --auth USER:PASSWORD, or use ~/.netrc"))
        typed[key] = password
        return password
    }

    /// The password of the encrypted private key `file` (shown as `shown`, as typed), asked once
    /// on the terminal swurl runs on (stdin and stderr); Ctrl-C ends the prompt (130).
    static func askForKey(_ file: String, shown: String, environment: Environment) throws(SwurlError) -> String {
        let key = "key " + file
        if let known = typed[key] { return known }
        let noTerminal = SwurlError.usage("the private key '\(shown)' is encrypted and no password was given",
                                          hint: "give it with --key-password, or run swurl on a terminal to be asked")
        guard environment.stdinIsTerminal && environment.stderrIsTerminal else { throw noTerminal }
        let password = try askHidden("swurl: password for the key \(shown): ", environment: environment, orTTY: false, noTerminal: noTerminal)
        typed[key] = password
        return password
    }

    /// Forgets a key's password that did not open it, so the next request asks again.
    static func forgetKey(_ file: String) { typed["key " + file] = nil }

    /// Forgets the `--auth` passwords typed so far (`set -a` in the REPL asks again), or the
    /// one for `user` at `url` (one that cannot be sent).
    static func forgetTypedAuth(user: String? = nil, url: String? = nil) {
        if let user, let url {
            typed[authKey(user: user, url: url)] = nil
        } else {
            typed = typed.filter { !$0.key.hasPrefix("auth ") }
        }
    }

    /// A typed `--auth` password the server refused (a final 401 from the origin it was sent
    /// to; a redirect's other origin never got it) is forgotten: the REPL's next line asks
    /// again, where it sent the wrong one until `set -a USER`.
    static func forgetIfRefused(_ status: Int?, finalURL: String, options: CommandOptions, url: String) {
        guard status == 401, let user = options.authUser, options.authPassword == nil,
              let first = try? Origin(url: url), (try? Origin(url: finalURL)) == first else { return }
        forgetTypedAuth(user: user, url: url)
    }

    private static func authKey(user: String, url: String) -> String {
        "auth " + user + "@" + ((try? CurlURL(parsing: url)).map { "\($0.scheme)://\($0.hostHeader)" } ?? url)
    }

    /// Reads a line without echo: on stdin when it is the terminal, else (with `orTTY`) on the
    /// controlling terminal, as curl and HTTPie do, so a body can still come from a pipe.
    private static func askHidden(_ prompt: String, environment: Environment, orTTY: Bool, noTerminal: SwurlError) throws(SwurlError) -> String {
        // Ctrl-C ends the prompt with echo back on (130), also before a request installed it
        // (the key's password is asked while the options are read).
        Interrupt.install()
        if environment.stdinIsTerminal {
            return try readHidden(prompt, from: environment.stdin, echoFD: 0, on: environment.stderr)
        }
        let tty = orTTY ? open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC) : -1
        guard tty >= 0 else { throw noTerminal }
        defer { close(tty) }
        let terminal = FileDescriptorSink(fd: tty, name: "/dev/tty")
        return try readHidden(prompt, from: FileDescriptorSource(fd: tty), echoFD: tty, on: terminal)
    }

    /// Shows `prompt` on `terminal` and reads one line from `source` with echo off on `echoFD`;
    /// a newline goes to `terminal` after it. Echo goes off before the prompt shows, as getpass
    /// does: turning it off flushes what was typed, and a password typed as soon as the prompt
    /// showed would otherwise be lost.
    private static func readHidden(_ prompt: String, from source: ByteSource, echoFD: Int32, on terminal: ByteSink) throws(SwurlError) -> String {
        // A signal that ends the process (SIGTERM before a request armed the orderly stop,
        // SIGQUIT, SIGHUP...) ends it once echo is back on (the defers run in reverse order).
        sw_hidden_prompt_signals(1)
        defer { sw_hidden_prompt_signals(0) }
        // Echo goes back on whatever happens, so Ctrl-C never leaves a silent terminal.
        let echoOff = sw_set_echo(echoFD, 0) == 0
        defer {
            if echoOff { _ = sw_set_echo(echoFD, 1) }
            try? terminal.write("\n")
        }
        try? terminal.write(prompt)
        // One byte at a time, so nothing after the line is consumed.
        var bytes: [UInt8] = []
        var byte: [UInt8] = [0]
        while !Interrupt.requested {
            var n: Int
            if let source = source as? FileDescriptorSource {
                // A raw read, so Ctrl-C (EINTR) ends the prompt at once.
                n = read(source.fd, &byte, 1)
                if n < 0 && errno == EINTR {
                    if sw_prompt_signal_came() != 0 { break }
                    continue
                }
            } else {
                do { n = try byte.withUnsafeMutableBytes { try source.read(into: $0) } } catch { break }
            }
            if n <= 0 || byte[0] == 0x0A { break }
            if byte[0] != 0x0D { bytes.append(byte[0]) }
        }
        if Interrupt.requested || sw_prompt_signal_came() != 0 { throw .interrupted }
        // A password typed in another charset than UTF-8 (a Latin-1 terminal's é) is refused, as
        // such an --auth is, not sent with U+FFFD in it.
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw .usage("the password typed is not valid UTF-8 text", hint: "swurl sends credentials as UTF-8 text: set the terminal to UTF-8")
        }
        return text
    }
}
