@preconcurrency import CShims
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
        let echoOff = sw_set_echo(0, 0) == 0
        defer {
            if echoOff { _ = sw_set_echo(0, 1) }
            try? environment.stderr.write("\n")
        }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let n = read(0, &byte, 1)
            if n < 0 && errno == EINTR {
                if sw_interrupted() != 0 { throw .interrupted }
                continue
            }
            if n <= 0 || byte == 0x0A { break }
            if byte != 0x0D { bytes.append(byte) }
        }
        if sw_interrupted() != 0 { throw .interrupted }
        return String(decoding: bytes, as: UTF8.self)
    }
}
