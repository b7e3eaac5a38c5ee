@preconcurrency import CSupport
#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlCurl
import SwurlCore

/// Asks for the `--auth` password on the terminal without echoing it: on stdin when it is the
/// terminal, else on the controlling terminal (`/dev/tty`), as curl and HTTPie do, so a body can
/// still come from a pipe (`echo {} | swurl -a ann POST …`).
enum PasswordPrompt {
    /// - Throws: `SwurlError.usage` when there is no terminal to ask on (a script must pass
    ///   USER:PASS), `.interrupted` on Ctrl-C.
    static func ask(user: String, url: String, environment: Environment) throws(SwurlError) -> String {
        let host = (try? CurlURL(parsing: url))?.hostHeader ?? url
        let prompt = "swurl: password for \(user)@\(host): "
        if environment.stdinIsTerminal {
            return try readHidden(prompt, from: environment.stdin, echoFD: 0, on: environment.stderr)
        }
        let tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard tty >= 0 else {
            throw .usage("--auth '\(user)' has no password and there is no terminal to ask for one",
                         hint: "pass it as --auth USER:PASSWORD, or use ~/.netrc")
        }
        defer { close(tty) }
        let terminal = FileDescriptorSink(fd: tty, name: "/dev/tty")
        return try readHidden(prompt, from: FileDescriptorSource(fd: tty), echoFD: tty, on: terminal)
    }

    /// Shows `prompt` on `terminal` and reads one line from `source` with echo off on `echoFD`;
    /// a newline goes to `terminal` after it. Echo goes off before the prompt shows, as getpass
    /// does: turning it off flushes what was typed, and a password typed as soon as the prompt
    /// showed would otherwise be lost.
    private static func readHidden(_ prompt: String, from source: ByteSource, echoFD: Int32, on terminal: ByteSink) throws(SwurlError) -> String {
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
                if n < 0 && errno == EINTR { continue }
            } else {
                do { n = try byte.withUnsafeMutableBytes { try source.read(into: $0) } } catch { break }
            }
            if n <= 0 || byte[0] == 0x0A { break }
            if byte[0] != 0x0D { bytes.append(byte[0]) }
        }
        if Interrupt.requested { throw .interrupted }
        return String(decoding: bytes, as: UTF8.self)
    }
}
