@preconcurrency import COpenSSL
import SwurlCore

/// A look at `--cert` and `--key` before anything is sent, for the two mistakes libcurl reports
/// only as "unable to set private key file": a password that does not decrypt the key, and a key
/// that is not the certificate's; and files that are not PEM, or a key file without a key, which
/// libcurl reports in the same words.
package enum ClientIdentityCheck {
    package enum Problem: Equatable, Sendable {
        /// The key is encrypted and the password does not open it.
        case wrongPassword
        /// The key opens, and it is not the one the certificate was made for.
        case keyDoesNotMatch
        /// The certificate file is not PEM (a DER file, say), which is all swurl loads.
        case certificateNotPEM
        /// The key file is not PEM.
        case keyNotPEM
        /// The key file is PEM and holds no private key (a certificate given for both).
        case noPrivateKey
        /// The certificate file is PEM and holds no certificate (a key given for `--cert`).
        case noCertificate
    }

    /// Whether PEM bytes hold an encrypted private key (PKCS#8 or the traditional header).
    package static func isEncrypted(_ key: [UInt8]) -> Bool {
        let text = String(decoding: key, as: UTF8.self)
        return text.containsText("-----BEGIN ENCRYPTED PRIVATE KEY-----") || text.containsText("Proc-Type: 4,ENCRYPTED")
    }

    /// What is wrong with a `--cert` file judged without its key: not PEM, or PEM without a
    /// certificate (a key given for it); nil when it holds a PEM certificate.
    package static func certificateFileProblem(_ certificate: [UInt8]) -> Problem? {
        guard PEMText.looksLikePEM(certificate) else { return .certificateNotPEM }
        return Certificate.parseAll(certificate).isEmpty && !holdsTrustedCertificate(certificate) ? .noCertificate : nil
    }

    /// Whether PEM bytes hold a `-----BEGIN TRUSTED CERTIFICATE-----` (`openssl x509 -trustout`),
    /// which OpenSSL loads as a client certificate and `Certificate.parseAll` does not read.
    static func holdsTrustedCertificate(_ bytes: [UInt8]) -> Bool {
        String(decoding: bytes, as: UTF8.self).containsText("-----BEGIN TRUSTED CERTIFICATE-----")
    }

    /// What is wrong with the identity, or nil when nothing could be proved wrong.
    /// - Parameters:
    ///   - certificate: the `--cert` file's bytes.
    ///   - key: the `--key` file's bytes (the certificate file's when they share one).
    ///   - password: `--key-password`, or what was typed at the prompt.
    package static func problem(certificate: [UInt8], key: [UInt8], password: String?) -> Problem? {
        if let problem = certificateFileProblem(certificate) { return problem }
        let certificates = Certificate.parseAll(certificate)
        guard PEMText.looksLikePEM(key) else { return .keyNotPEM }
        let encrypted = isEncrypted(key)
        // The password as OpenSSL's `u` argument with no callback: never a prompt of OpenSSL's own.
        let keys = PEMText.read(key, password: password) { bio, phrase in PEM_read_bio_PrivateKey(bio, nil, nil, phrase) }
        defer {
            keys.forEach { EVP_PKEY_free($0) }
            ERR_clear_error()   // a REPL or batch goes on: no stale error for the next handshake
        }
        guard let privateKey = keys.first else { return encrypted ? .wrongPassword : .noPrivateKey }
        // The first certificate read is the leaf, unless the leaf is a TRUSTED CERTIFICATE this
        // parse skips (its issuer after it would be compared with the key).
        guard let cert = certificates.first, !holdsTrustedCertificate(certificate) else { return nil }
        return X509_check_private_key(cert.raw, privateKey) == 1 ? nil : .keyDoesNotMatch
    }
}
