#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlSecurity
import SwurlCore

/// Turns the "TLS and pinning" options into a `SecurityPolicy`, reading pin files and checking
/// every named file up front, so a mistake fails before any connection (curl only notices a bad
/// pin file after the handshake).
enum SecurityArguments {
    /// - Throws: `.usage` for malformed or contradictory values, `.inputFile` for missing files,
    ///   `.badData` for files without a certificate or key.
    package static func policy(from args: ParsedArguments, environment: Environment) throws(SwurlError) -> SecurityPolicy {
        var policy = SecurityPolicy()
        // A file read for an option: its failure names the option (a URL taken as
        // --pin-pubkey's value read as "cannot read 'https://…'" alone).
        func reader(_ option: String) -> (String) throws(SwurlError) -> [UInt8] {
            { (path: String) throws(SwurlError) -> [UInt8] in try readInput(path, option, environment: environment) }
        }
        for value in args.values(.pinPubkey) { try policy.addKeyPins(value, readFile: reader("--pin-pubkey")) }
        for file in args.values(.pinCert) { try policy.addPinnedCertificates(file: file, readFile: reader("--pin-cert")) }
        if let s = args.value(.pinScope) { policy.scope = SecurityPolicy.PinScope(rawValue: s) ?? .any }
        policy.allowsInvalidCertificates = args.has(.insecure)
        if policy.allowsInvalidCertificates && policy.scope == .chain {
            // With -k no chain is verified: only the leaf is known, so "the whole chain" would
            // quietly mean the leaf alone.
            throw .usage("--pin-scope chain needs a verified chain, and --insecure (-k) skips it: only the leaf could be pinned",
                         hint: "drop -k and trust the CA with --cacert FILE, or use --pin-scope leaf")
        }
        if args.has(.verifyHost) && args.has(.noVerifyHost) {
            throw .usage("--verify-host and --no-verify-host cannot be combined")
        }
        if args.has(.verifyHost) { policy.hostVerification = true }
        if args.has(.noVerifyHost) { policy.hostVerification = false }
        if let f = args.value(.cacert) {
            try policy.setCAFile(checkedPath(f, "--cacert", environment: environment), shown: f, readFile: reader("--cacert"))
        }
        if let d = args.value(.capath) { policy.caPath = try checkedPath(d, "--capath", directory: true, environment: environment) }
        for file in args.values(.cacertAdd) {
            try policy.addTrustedCertificates(file: checkedPath(file, "--cacert-add", environment: environment), shown: file,
                                              readFile: reader("--cacert-add"))
        }
        policy.defaultStore = DefaultTrustStore(variables: environment.variables)
        if let c = args.value(.cert) { policy.clientCertificate = try checkedPath(c, "--cert", environment: environment) }
        if let k = args.value(.key) { policy.clientKey = try checkedPath(k, "--key", environment: environment) }
        policy.keyPassword = args.value(.keyPassword)
        if policy.keyPassword != nil && policy.clientKey == nil && policy.clientCertificate == nil {
            throw .usage("--key-password decrypts the key of --key or --cert, and neither is given",
                         hint: "add --cert FILE (and --key FILE), or drop --key-password")
        }
        policy.minimumVersion = args.value(.tlsMin).flatMap(SecurityPolicy.TLSVersion.init(rawValue:))
        policy.maximumVersion = args.value(.tlsMax).flatMap(SecurityPolicy.TLSVersion.init(rawValue:))
        if let c = args.value(.ciphers) {
            guard !c.isEmpty, c.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
                throw .usage("--ciphers: '\(c)' is not a cipher list", hint: "e.g. --ciphers ECDHE-ECDSA-AES128-GCM-SHA256:TLS_AES_128_GCM_SHA256")
            }
            if let name = CipherNames.unknown(in: c) {
                throw .usage("--ciphers: OpenSSL knows no cipher '\(name)'", hint: "'openssl ciphers -v' lists the TLS 1.2 names, 'openssl ciphers -s -tls1_3' the TLS 1.3 suites")
            }
            policy.ciphers = c
        }
        if args.has(.pinScope) && !policy.hasPins {
            throw .usage("--pin-scope needs --pin-pubkey or --pin-cert")
        }
        try policy.validate()
        if policy.keyPassword == nil, let keyFile = policy.clientKey ?? policy.clientCertificate,
           try isEncryptedKey(keyFile) {
            // --curl and --offline send nothing: no password is asked for (a typed one would end
            // up in the printed command; curl asks for it when the command runs).
            guard !args.has(.curl) && !args.has(.offline) else { return policy }
            // Named as typed, as the other messages about the key name it; asked once in a
            // REPL or batch, and again after a password that did not open the key.
            policy.keyPassword = try PasswordPrompt.askForKey(keyFile, shown: args.value(.key) ?? args.value(.cert) ?? keyFile, environment: environment)
            do {
                try checkClientIdentity(policy, args: args)
            } catch {
                PasswordPrompt.forgetKey(keyFile)
                throw error
            }
            return policy
        }
        try checkClientIdentity(policy, args: args)
        return policy
    }

    /// The most bytes a pin, CA, certificate or key file may hold: far above any real bundle,
    /// and a bound on what `/dev/zero` or a runaway FIFO can take (curl caps pin files at 1 MB).
    static let maxFileSize = 16 << 20

    /// A pin, CA, certificate or key file's bytes, up to `maxFileSize`.
    private static func readFile(_ path: String) throws(SwurlError) -> [UInt8] {
        try SmallFile.read(path, maxSize: maxFileSize)
    }

    private static func readInput(_ path: String, _ option: String, environment: Environment) throws(SwurlError) -> [UInt8] {
        // An empty value (an unset variable) is no file: it resolved to the working directory.
        if path.isEmpty { throw .usage("\(option) needs a file name") }
        do {
            return try readFile(environment.resolvePath(path))
        } catch {
            throw .inputFile("\(option): cannot read '\(path)': \(error.message)")
        }
    }

    /// What a default `--cert`/`--key` (`swurl repl --cert`, `set --cert`) can be judged by
    /// without asking for a key's password: the files are there, and the certificate file holds
    /// a PEM certificate. Every line would fail on them otherwise. (A `--key` alone may wait for
    /// the lines' own `--cert`.)
    static func checkClientFiles(_ args: ParsedArguments, environment: Environment) throws(SwurlError) {
        if let k = args.value(.key) { _ = try checkedPath(k, "--key", environment: environment) }
        guard let c = args.value(.cert) else { return }
        let certFile = try checkedPath(c, "--cert", environment: environment)
        // --curl and --offline load nothing: the file's format is the printed command's business.
        if args.has(.curl) || args.has(.offline) { return }
        let problem = (try? readFile(certFile)).map(ClientIdentityCheck.certificateFileProblem) ?? .certificateNotPEM
        try refuse(problem, certificate: c, key: c, keyGiven: false)
    }

    /// The resolved path of an existing file (or directory); `.inputFile` otherwise.
    private static func checkedPath(_ path: String, _ option: String, directory: Bool = false,
                                    environment: Environment) throws(SwurlError) -> String {
        if path.isEmpty { throw .usage("\(option) needs a \(directory ? "directory" : "file") name") }
        let resolved = environment.resolvePath(path)
        var st = stat()
        guard stat(ArgumentBytes.path(resolved), &st) == 0 else {
            throw .inputFile("\(option): cannot read '\(path)': \(systemErrorMessage(errno))")
        }
        let isDirectory = (st.st_mode & S_IFMT) == S_IFDIR
        if directory != isDirectory {
            throw .inputFile("\(option): '\(path)' is \(isDirectory ? "a directory" : "not a directory")",
                             hint: option == "--cacert" && isDirectory ? "a directory of CA certificates is --capath DIR" : nil)
        }
        guard access(ArgumentBytes.path(resolved), R_OK) == 0 else {
            throw .inputFile("\(option): cannot read '\(path)': \(systemErrorMessage(errno))")
        }
        return resolved
    }

    /// A password that does not open the key, or a key that is not the certificate's, named
    /// before anything is sent (libcurl says only "unable to set private key file").
    private static func checkClientIdentity(_ policy: SecurityPolicy, args: ParsedArguments) throws(SwurlError) {
        guard let certFile = policy.clientCertificate, let certificate = try? readFile(certFile),
              let key = policy.clientKey.map({ try? readFile($0) }) ?? certificate else { return }
        let keyName = args.value(.key) ?? args.value(.cert) ?? certFile
        let problem = ClientIdentityCheck.problem(certificate: certificate, key: key, password: policy.keyPassword)
        // Files swurl does not load (--curl, --offline send nothing) are judged only by what is
        // proved wrong with them; their format is the printed command's business.
        if args.has(.curl) || args.has(.offline), [.certificateNotPEM, .keyNotPEM, .noPrivateKey, .noCertificate].contains(problem) { return }
        try refuse(problem, certificate: args.value(.cert) ?? certFile, key: keyName, keyGiven: args.value(.key) != nil,
                   passwordGiven: args.value(.keyPassword) != nil)
    }

    /// The error for a client identity's problem, naming the files as given.
    private static func refuse(_ problem: ClientIdentityCheck.Problem?, certificate: String, key: String, keyGiven: Bool,
                               passwordGiven: Bool = false) throws(SwurlError) {
        switch problem {
        case .wrongPassword?:
            throw .usage("the password does not decrypt the private key '\(key)'",
                         hint: passwordGiven ? "check --key-password" : "run the command again and type the key's password")
        case .keyDoesNotMatch?:
            throw .badData("the private key '\(key)' does not belong to the certificate '\(certificate)'",
                           hint: "give the key made with that certificate (--key FILE)")
        case .certificateNotPEM?:
            throw .badData("the client certificate '\(certificate)' is not PEM (-----BEGIN CERTIFICATE-----)",
                           hint: "convert a DER certificate: openssl x509 -inform der -in FILE -out FILE.pem; a PKCS#12 file (.p12, .pfx): openssl pkcs12 -in FILE -out FILE.pem -nodes")
        case .keyNotPEM?:
            throw .badData("the private key '\(key)' is not PEM (-----BEGIN PRIVATE KEY-----)",
                           hint: "convert a DER key: openssl pkey -inform der -in FILE -out FILE.pem")
        case .noCertificate?:
            throw .badData("the client certificate file '\(certificate)' holds no certificate (-----BEGIN CERTIFICATE-----)",
                           hint: "give the certificate with --cert FILE and its private key with --key FILE")
        case .noPrivateKey?:
            throw .badData("'\(key)' holds no private key",
                           hint: keyGiven ? "give the file that holds the key (--key FILE)" : "give the certificate's key with --key FILE")
        case nil:
            return
        }
    }

    /// Whether a PEM file holds an encrypted private key (PKCS#8 or the traditional header).
    private static func isEncryptedKey(_ path: String) throws(SwurlError) -> Bool {
        guard let bytes = try? readFile(path) else { return false }
        return ClientIdentityCheck.isEncrypted(bytes)
    }
}
