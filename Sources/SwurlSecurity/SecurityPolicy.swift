import SwurlCore
/// How swurl decides whether to trust a TLS server: AFNetworking's AFSecurityPolicy, made strict.
///
/// - No pins: the chain must verify against the trust store and the host must match;
///   `allowsInvalidCertificates` (`-k`) lifts both. The trust store is the system's
///   (`defaultStore`, loaded lazily) unless `caFile`/`caPath` replace it, as in curl, HTTPie and
///   AFNetworking; `addedCertificates` (`--cacert-add`) extend whichever store is used.
/// - Pinned certificates become trust anchors (partial chains allowed); the verified path must
///   contain one (`scope` says which ones must match).
/// - Pinned keys: the chain verifies as usual, then a key of the verified path must match; with
///   `-k` only the leaf's key counts, because the handshake proves possession of that key only.
/// - Pins are matched against the verified path, never against the list the server merely sent.
///
/// The policy is a value; `HandshakeVerifier` enforces it inside each TLS handshake.
package struct SecurityPolicy: Sendable, Equatable {
    /// Which certificates of the verified path must be pinned.
    package enum PinScope: String, Sendable, CaseIterable {
        /// Some certificate of the verified path (the default).
        case any
        /// The leaf itself.
        case leaf
        /// Every certificate of the verified path (AFNetworking 2's validatesCertificateChain).
        case chain
    }

    /// A TLS protocol version for `--tls-min` / `--tls-max`.
    package enum TLSVersion: String, Sendable, CaseIterable, Comparable {
        case v1_2 = "1.2"
        case v1_3 = "1.3"
        /// 1.2 sorts before 1.3.
        package static func < (a: TLSVersion, b: TLSVersion) -> Bool { a == .v1_2 && b == .v1_3 }
    }

    /// DER encodings of the pinned certificates (`--pin-cert`, and certificate files given to
    /// `--pin-pubkey` are pinned by key, not here).
    package internal(set) var pinnedCertificates: [[UInt8]] = []
    /// SHA-256 digests of pinned SubjectPublicKeyInfos (`--pin-pubkey`).
    package internal(set) var pinnedKeyDigests: [[UInt8]] = []
    /// Which certificates must match a pin; default `any`.
    package var scope: PinScope = .any
    /// `-k`: skip chain verification (AFNetworking's allowInvalidCertificates).
    package var allowsInvalidCertificates = false
    /// `--verify-host` (true) / `--no-verify-host` (false); nil means the default (see `checksHost`).
    package var hostVerification: Bool?
    /// `--cacert FILE`: the trust anchors, replacing the default store.
    package var caFile: String?
    /// `--capath DIR`: a hashed directory of trust anchors, replacing the default store.
    package var caPath: String?
    /// DER encodings of the `--cacert-add` certificates: anchors added to the store in use.
    package internal(set) var addedCertificates: [[UInt8]] = []
    /// Where the system's CAs are (`SSL_CERT_DIR`, `SSL_CERT_FILE`); used without `caFile`/`caPath`.
    package var defaultStore = DefaultTrustStore()
    /// `--cert FILE`: the client certificate (PEM, optionally with its chain and key).
    package var clientCertificate: String?
    /// `--key FILE`: the client private key.
    package var clientKey: String?
    /// `--key-password`: the passphrase of an encrypted client key.
    package var keyPassword: String?
    /// `--tls-min`; nil for the default (TLS 1.2).
    package var minimumVersion: TLSVersion?
    /// `--tls-max`; nil for libcurl's default (the highest it supports).
    package var maximumVersion: TLSVersion?
    /// `--ciphers`: an OpenSSL cipher list; TLS 1.3 suite names (`TLS_…`) go to the 1.3 list.
    package var ciphers: String?

    /// The default: system CAs, host check, no pins.
    package init() {}

    /// Whether the system's store is the trust store (neither `--cacert` nor `--capath` replaces it).
    package var usesDefaultStore: Bool { caFile == nil && caPath == nil }

    /// Whether any pin is set.
    package var hasPins: Bool { !pinnedCertificates.isEmpty || !pinnedKeyDigests.isEmpty }

    /// Whether the chain is verified (`-k` lifts it).
    package var checksChain: Bool { !allowsInvalidCertificates }

    /// Whether the host name is checked: as given, else on — except `-k` without pins, which
    /// lifts it too (nothing then vouches for the name).
    package var checksHost: Bool {
        if let hostVerification { return hostVerification }
        return !(allowsInvalidCertificates && !hasPins)
    }

    /// The `sha256//` form of every key pin.
    package var keyPins: [String] { pinnedKeyDigests.map { "sha256//" + Base64.encode($0) } }

    /// The `sha256//` pins of the pinned certificates' keys (those not pinned by key already):
    /// what a tool that pins keys only (curl's `--pinnedpubkey`) can check of `--pin-cert`.
    package var pinnedCertificateKeyPins: [String] {
        var digests: [[UInt8]] = []
        for der in pinnedCertificates {
            guard let digest = Certificate.parseAll(der).first?.publicKey?.digest else { continue }
            if !pinnedKeyDigests.contains(digest) && !digests.contains(digest) { digests.append(digest) }
        }
        return digests.map { "sha256//" + Base64.encode($0) }
    }

    /// Adds `--pin-pubkey VALUE`: `sha256//B64` pins joined by `;`, or a file with PEM/DER public
    /// keys or one certificate (the keys are pinned; a chain is refused).
    /// - Parameter readFile: reads a (resolved) file; throws `SwurlError.inputFile`.
    /// - Throws: `.usage` for a malformed pin, `.inputFile` / `.badData` for a bad file.
    package mutating func addKeyPins(_ value: String, readFile: (String) throws(SwurlError) -> [UInt8]) throws(SwurlError) {
        let trimmed = value.trimmingSpaces()
        if trimmed.hasPrefix("sha256//") {
            for part in trimmed.split(separator: ";", omittingEmptySubsequences: true) {
                let pin = String(part).trimmingSpaces()
                guard pin.hasPrefix("sha256//") else {
                    throw .usage("--pin-pubkey: '\(pin)' is not a sha256// pin",
                                 hint: "write pins as sha256//BASE64, several joined by ';'; 'swurl certs URL' prints them")
                }
                guard let digest = Base64.decode(String(pin.dropFirst(8))), digest.count == 32 else {
                    throw .usage("--pin-pubkey: '\(pin)' is not a SHA-256 pin (44 base64 characters expected after sha256//)",
                                 hint: pin.contains(Character(",")) || String(pin.dropFirst(8)).containsText("sha256//")
                                     ? "several pins are joined by ';' (as curl's --pinnedpubkey), not ','"
                                     : "'swurl certs URL' prints the pins of a server")
                }
                if !pinnedKeyDigests.contains(digest) { pinnedKeyDigests.append(digest) }
            }
            return
        }
        if trimmed.isEmpty { throw .usage("--pin-pubkey needs a sha256// pin or a file") }
        let bytes: [UInt8]
        do {
            bytes = try readFile(value)
        } catch {
            // A bare SHA-256 in base64 (44 characters) that names no file: the prefix was left
            // out, or written with one slash.
            let digest = trimmed.hasPrefix("sha256/") ? String(trimmed.dropFirst(7)) : trimmed
            if digest.utf8.count == 44, Base64.decode(digest)?.count == 32 {
                throw .usage("--pin-pubkey: '\(trimmed)' looks like a pin without its sha256// prefix",
                             hint: "write it as --pin-pubkey 'sha256//\(digest)'")
            }
            // 64 hex digits (or 32 pairs joined by ':'): a SHA-256 in hex, most often a
            // certificate's fingerprint, which is no key pin and cannot be turned into one.
            let hex = trimmed.utf8.filter { $0 != UInt8(ascii: ":") }
            if hex.count == 64, hex.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0 | 0x20) }),
               case .inputFile = error {
                throw .usage("--pin-pubkey: '\(trimmed)' looks like a SHA-256 in hex (a certificate's fingerprint?), not a pin or a file",
                             hint: "a pin is the base64 SHA-256 of the server's public key, sha256//BASE64; 'swurl certs URL' prints it, or give the certificate file")
            }
            // `sha1//…`, `SHA256//…`, `;sha256//…`: a pin in another form, not a missing file.
            if let slashes = trimmed.rangeOfText("//"), !trimmed[..<slashes.lowerBound].isEmpty,
               trimmed[..<slashes.lowerBound].allSatisfy({ $0.isLetter || $0.isNumber || $0 == ";" || $0 == " " }), case .inputFile = error {
                throw .usage("--pin-pubkey: '\(trimmed)' is neither a sha256// pin nor a file",
                             hint: "write pins as sha256//BASE64 (lower case, SHA-256 only), several joined by ';'; 'swurl certs URL' prints them")
            }
            throw error
        }
        // A chain (fullchain.pem, `openssl s_client -showcerts`) would pin its CA's key too, and
        // so any server that CA issued for: one certificate is the server's own. Several public
        // keys (a key and its backups) are pins as meant.
        let certificates = Certificate.parseAll(bytes).count
        guard certificates <= 1 else {
            throw .badData("--pin-pubkey: '\(value)' holds \(certificates) certificates (a chain): pinning every key in it would accept any server its CA issued a certificate for",
                           hint: "give the server's own certificate (the first of 'swurl certs URL --pem') or key, or its sha256// pin ('swurl certs URL' prints it); "
                               + "a chain given to --pin-cert would make each of its certificates a trust anchor, its CA's too")
        }
        let keys = PublicKey.parseAll(bytes)
        guard !keys.isEmpty else {
            throw .badData("--pin-pubkey: '\(value)' holds no public key or certificate (PEM or DER)",
                           hint: "give a sha256//BASE64 pin, or a PEM/DER public key or certificate file")
        }
        for key in keys where !pinnedKeyDigests.contains(key.digest) { pinnedKeyDigests.append(key.digest) }
    }

    /// Adds `--pin-cert FILE`: every certificate in a PEM or DER file.
    /// - Throws: `.inputFile` for a missing file, `.badData` when it holds no certificate.
    package mutating func addPinnedCertificates(file: String, readFile: (String) throws(SwurlError) -> [UInt8]) throws(SwurlError) {
        let certificates = Certificate.parseAll(try readFile(file))
        guard !certificates.isEmpty else {
            throw .badData("--pin-cert: '\(file)' holds no certificate (PEM or DER)",
                           hint: "'swurl certs URL' shows the server's certificates")
        }
        for c in certificates {
            let der = c.der
            if !der.isEmpty && !pinnedCertificates.contains(der) { pinnedCertificates.append(der) }
        }
    }

    /// `--cacert FILE`, checked now as `--cacert-add` is: a file without a PEM certificate
    /// (what OpenSSL reads as a CA file) is refused before any connection, not in the handshake.
    /// - Parameter shown: the path as the user gave it, for the message.
    /// - Throws: `.badData` (65) naming the file; the reader's errors.
    package mutating func setCAFile(_ path: String, shown: String, readFile: (String) throws(SwurlError) -> [UInt8]) throws(SwurlError) {
        let bytes = try readFile(path)
        guard PEMText.looksLikePEM(bytes), !Certificate.parseAll(bytes).isEmpty else {
            throw .badData("--cacert: '\(shown)' holds no PEM certificate",
                           hint: "give the CA certificates in PEM (openssl x509 -inform der -in FILE converts one); --cacert-add also takes DER")
        }
        caFile = path
    }

    /// Adds `--cacert-add FILE`: every certificate in a PEM or DER file becomes a trust anchor
    /// next to the store in use.
    /// - Parameter shown: the file as the user named it, for the message.
    /// - Throws: `.inputFile` for a missing file, `.badData` when it holds no certificate.
    package mutating func addTrustedCertificates(file: String, shown: String, readFile: (String) throws(SwurlError) -> [UInt8]) throws(SwurlError) {
        let certificates = Certificate.parseAll(try readFile(file))
        guard !certificates.isEmpty else {
            throw .badData("--cacert-add: '\(shown)' holds no certificate (PEM or DER)")
        }
        for c in certificates {
            let der = c.der
            if !der.isEmpty && !addedCertificates.contains(der) { addedCertificates.append(der) }
        }
    }

    /// Whether `certificates` hold what the pins ask for: pins of one kind are alternatives
    /// (one match is enough), and `--pin-cert` and `--pin-pubkey` given together are two checks:
    /// a pinned certificate among them, and a pinned key. (Pooled, a leaf key pinned beside a
    /// pinned CA certificate restricted nothing: any certificate that CA issued passed.)
    /// - Returns: nil when they do, else which kind found no match.
    func unmatchedPinKind(in certificates: [Certificate]) -> PinKind? {
        guard hasPins else { return .key }
        if !pinnedCertificates.isEmpty, !certificates.contains(where: isPinnedCertificate) { return .certificate }
        if !pinnedKeyDigests.isEmpty, !certificates.contains(where: hasPinnedKey) { return .key }
        return nil
    }

    /// Whether the certificate is one `--pin-cert` pinned.
    func isPinnedCertificate(_ certificate: Certificate) -> Bool { pinnedCertificates.contains(certificate.der) }

    /// Whether the certificate's key is one `--pin-pubkey` pinned.
    func hasPinnedKey(_ certificate: Certificate) -> Bool {
        certificate.publicKey.map { pinnedKeyDigests.contains($0.digest) } ?? false
    }

    /// The two kinds of pin.
    enum PinKind { case certificate, key }

    /// Whether a certificate matches any pin (its DER is pinned, or its key is).
    func isPinned(_ certificate: Certificate) -> Bool { isPinnedCertificate(certificate) || hasPinnedKey(certificate) }

    /// The warning for settings that weaken the checks, or nil when nothing is weakened.
    package var weakeningWarning: String? {
        if allowsInvalidCertificates && !hasPins {
            return "--insecure: the certificate chain and host name are not checked; anyone on the path can read and change this exchange (pin the server instead: 'swurl certs URL' prints ready-to-use pins)"
        }
        if !checksHost && !allowsInvalidCertificates && !hasPins {
            return "--no-verify-host: the host name is not checked; any certificate from a trusted CA is accepted"
        }
        // A pin anywhere on the path without the host check: a CA's key pinned accepts every
        // certificate that CA issued, for any name.
        if !checksHost && !allowsInvalidCertificates && hasPins && scope == .any {
            return "--no-verify-host: the host name is not checked, and a pin may match any certificate of the chain: a CA's key pinned accepts every certificate that CA issued, for any name (--pin-scope leaf accepts the server's own key alone)"
        }
        return nil
    }

    /// Rejects contradictory settings.
    /// - Throws: `.usage` for `-k --verify-host` without pins (a name on an unverified
    ///   certificate proves nothing; AFNetworking refuses it too) and for `--tls-min` above `--tls-max`.
    package func validate() throws(SwurlError) {
        if allowsInvalidCertificates && hostVerification == true && !hasPins {
            throw .usage("--insecure with --verify-host needs a pin: a host name on an unverified certificate proves nothing",
                         hint: "pin the server's key with --pin-pubkey sha256//… ('swurl certs URL' prints it), or drop -k")
        }
        if let lo = minimumVersion, let hi = maximumVersion, hi < lo {
            throw .usage("--tls-min \(lo.rawValue) is above --tls-max \(hi.rawValue)")
        }
        if clientKey != nil && clientCertificate == nil {
            throw .usage("--key needs --cert", hint: "give the client certificate with --cert FILE")
        }
    }
}
