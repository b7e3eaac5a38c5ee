import Foundation

/// A test PKI made at test time with the openssl CLI by `Tests/Servers/make-pki.sh` (all EC P-256):
///
/// - `root` → `int` (pathlen 0) → `leaf` for localhost and 127.0.0.1 (`leaf-chain.pem` = leaf + int)
/// - `leaf2`: another key under the same intermediate (a second server, for redirects)
/// - `wronghost`: under the intermediate, valid only for wrong.example
/// - `expired`: under the intermediate, expired in 2021
/// - `notyet`: under the intermediate, valid from 2099
/// - `selfsigned`: an unrelated self-signed certificate for localhost and 127.0.0.1
/// - `evilroot` → `evil` (localhost, 127.0.0.1); `evil-chain.pem` also carries the real `int`
/// - `client`: a client certificate under the intermediate (`client-chain.pem` = cert + int),
///   with a plain key and `client-enc.key` encrypted with the password `secret`
///
/// Files are `<name>.pem` (certificate), `<name>.key`, `<name>.pub.pem` (public key).
package final class CertificateFactory: @unchecked Sendable {
    package let directory: String

    nonisolated(unsafe) private static var sharedInstance: CertificateFactory?
    private static let lock = NSLock()

    /// One PKI per test process, or the one `SWURL_TEST_PKI` names (scripts/with-httpbin makes
    /// one for a whole `make test`: made in every test process, it was some 1,800 runs of the
    /// openssl CLI and 20 s of CPU). Tests read its files and never write into its directory.
    package static func shared() throws -> CertificateFactory {
        lock.lock()
        defer { lock.unlock() }
        if let sharedInstance { return sharedInstance }
        let f: CertificateFactory
        if let given = ProcessInfo.processInfo.environment["SWURL_TEST_PKI"], !given.isEmpty {
            guard FileManager.default.fileExists(atPath: given + "/leaf-chain.pem") else {
                throw TestServerError("SWURL_TEST_PKI is '\(given)', which holds no PKI made by make-pki.sh")
            }
            f = CertificateFactory(existing: given)
        } else {
            f = try CertificateFactory()
        }
        sharedInstance = f
        return f
    }

    /// A fresh PKI in a directory of its own.
    package init() throws {
        directory = TestPaths.temporaryDirectory() + "/pki"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        _ = try runProcess("/bin/sh", [TestPaths.server("make-pki.sh")], directory: directory)
    }

    private init(existing directory: String) {
        self.directory = directory
    }

    /// The path of a file in the PKI directory.
    package func path(_ name: String) -> String { directory + "/" + name }

    /// `sha256//…` of a certificate's key, by the openssl SPKI pipeline.
    package func pin(_ certificate: String) throws -> String {
        let out = try CertificateFactory.shell(
            "openssl x509 -in '\(path(certificate))' -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64",
            in: directory)
        let pin = out.trimmingCharacters(in: .whitespacesAndNewlines)
        // The pipeline's status is its last command's: a certificate openssl could not read
        // gives the hash of nothing, a pin no server has.
        guard pin != "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=" else { throw TestServerError("no certificate read from \(certificate)") }
        return "sha256//" + pin
    }

    /// The SHA-256 fingerprint as `openssl x509 -fingerprint -sha256` prints it (hex with colons).
    package func fingerprint(_ certificate: String) throws -> String {
        let out = try CertificateFactory.shell("openssl x509 -in '\(path(certificate))' -noout -fingerprint -sha256", in: directory)
        guard let eq = out.firstIndex(of: "=") else { throw TestServerError("bad fingerprint output: \(out)") }
        return String(out[out.index(after: eq)...]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs a shell script; throws with its output when it fails.
    @discardableResult
    package static func shell(_ script: String, in directory: String) throws -> String {
        String(decoding: try runProcess("/bin/sh", ["-c", script], directory: directory).stdout, as: UTF8.self)
    }
}
