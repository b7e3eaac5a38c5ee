#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Asks for the `--auth` password on the terminal without echoing it.
enum PasswordPrompt {
    /// - Throws: `SwurlError.usage` when stdin is not a terminal (a script must pass
    ///   USER:PASS), `.interrupted` on Ctrl-C.
    static func ask(user: String, url: String, environment: Environment) throws(SwurlError) -> String {
        guard environment.stdinIsTerminal else {
            throw .usage("--auth \(user) has no password and stdin is not a terminal to ask for one",
                         hint: "pass it as --auth USER:PASSWORD, or use ~/.netrc")
        }
        let host = (try? CurlURL(parsing: url))?.hostHeader ?? url
        try? environment.stderr.write("swurl: password for \(user)@\(host): ")
        // Echo goes back on whatever happens, so Ctrl-C never leaves a silent terminal.
        let echoOff = setEcho(fd: 0, on: false)
        defer {
            if echoOff { _ = setEcho(fd: 0, on: true) }
            try? environment.stderr.write("\n")
        }
        // One byte at a time from the Environment's stdin, so nothing after the line is consumed.
        var bytes: [UInt8] = []
        var byte: [UInt8] = [0]
        while !Interruption.requested {
            var n: Int
            if let source = environment.stdin as? FileDescriptorSource {
                // A raw read, so Ctrl-C (EINTR) ends the prompt at once.
                n = read(source.fd, &byte, 1)
                if n < 0 && errno == EINTR { continue }
            } else {
                do { n = try byte.withUnsafeMutableBytes { try environment.stdin.read(into: $0) } } catch { break }
            }
            if n <= 0 || byte[0] == 0x0A { break }
            if byte[0] != 0x0D { bytes.append(byte[0]) }
        }
        if Interruption.requested { throw .interrupted }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Switches terminal echo on `fd` off or on (termios(3)); whether it worked.
    private static func setEcho(fd: Int32, on: Bool) -> Bool {
        var t = termios()
        guard tcgetattr(fd, &t) == 0 else { return false }
        if on { t.c_lflag |= tcflag_t(ECHO) } else { t.c_lflag &= ~tcflag_t(ECHO) }
        return tcsetattr(fd, TCSAFLUSH, &t) == 0
    }
}
