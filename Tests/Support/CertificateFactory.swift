import Foundation

/// A test PKI made at test time with the openssl CLI (all EC P-256):
///
/// - `root` → `int` (pathlen 0) → `leaf` for localhost and 127.0.0.1 (`leaf-chain.pem` = leaf + int)
/// - `leaf2`: another key under the same intermediate (a second server, for redirects)
/// - `wronghost`: under the intermediate, valid only for wrong.example
/// - `expired`: under the intermediate, expired in 2021
/// - `selfsigned`: an unrelated self-signed certificate for localhost and 127.0.0.1
/// - `evilroot` → `evil` (localhost, 127.0.0.1); `evil-chain.pem` also carries the real `int`
/// - `client`: a client certificate under the intermediate (`client-chain.pem` = cert + int),
///   with a plain key and `client-enc.key` encrypted with the password `secret`
///
/// Files are `<name>.pem` (certificate), `<name>.key`, `<name>.pub.pem` (public key).
public final class CertificateFactory: @unchecked Sendable {
    public let directory: String

    nonisolated(unsafe) private static var sharedInstance: CertificateFactory?
    private static let lock = NSLock()

    /// One PKI per test process.
    public static func shared() throws -> CertificateFactory {
        lock.lock()
        defer { lock.unlock() }
        if let sharedInstance { return sharedInstance }
        let f = try CertificateFactory()
        sharedInstance = f
        return f
    }

    public init() throws {
        directory = TestPaths.temporaryDirectory() + "/pki"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try CertificateFactory.shell(CertificateFactory.script, in: directory)
    }

    /// The path of a file in the PKI directory.
    public func path(_ name: String) -> String { directory + "/" + name }

    /// `sha256//…` of a certificate's key, by the openssl SPKI pipeline.
    public func pin(_ certificate: String) throws -> String {
        let out = try CertificateFactory.shell(
            "openssl x509 -in '\(path(certificate))' -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64",
            in: directory)
        return "sha256//" + out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The SHA-256 fingerprint as `openssl x509 -fingerprint -sha256` prints it (hex with colons).
    public func fingerprint(_ certificate: String) throws -> String {
        let out = try CertificateFactory.shell("openssl x509 -in '\(path(certificate))' -noout -fingerprint -sha256", in: directory)
        guard let eq = out.firstIndex(of: "=") else { throw TestServerError("bad fingerprint output: \(out)") }
        return String(out[out.index(after: eq)...]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs a shell script; throws with its output when it fails.
    @discardableResult
    public static func shell(_ script: String, in directory: String) throws -> String {
        String(decoding: try runProcess("/bin/sh", ["-c", script], directory: directory).stdout, as: UTF8.self)
    }

    static let script = #"""
    set -e
    command -v openssl >/dev/null || { echo "openssl CLI missing: run 'make test'" >&2; exit 1; }
    key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1.key" 2>/dev/null; }
    pub() { openssl x509 -in "$1.pem" -pubkey -noout > "$1.pub.pem"; }
    ca_root() { # name cn
      key "$1"
      openssl req -x509 -new -key "$1.key" -subj "/CN=$2" -days 3650 -out "$1.pem" \
        -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
      pub "$1"
    }
    signed() { # name cn issuer extfile-text
      key "$1"
      openssl req -new -key "$1.key" -subj "/CN=$2" -out "$1.csr" 2>/dev/null
      printf '%s\n' "$4" > "$1.ext"
      openssl x509 -req -in "$1.csr" -CA "$3.pem" -CAkey "$3.key" -CAcreateserial -days 825 \
        -extfile "$1.ext" -out "$1.pem" 2>/dev/null
      pub "$1"
    }
    SERVER='basicConstraints=CA:FALSE
    keyUsage=critical,digitalSignature
    extendedKeyUsage=serverAuth
    subjectAltName=DNS:localhost,IP:127.0.0.1'
    ca_root root "swurl Test Root"
    signed int "swurl Test Intermediate" root 'basicConstraints=critical,CA:TRUE,pathlen:0
    keyUsage=critical,keyCertSign,cRLSign'
    signed leaf localhost int "$SERVER"
    signed leaf2 "second server" int "$SERVER"
    signed wronghost wrong.example int 'basicConstraints=CA:FALSE
    extendedKeyUsage=serverAuth
    subjectAltName=DNS:wrong.example'
    signed client "swurl client" int 'basicConstraints=CA:FALSE
    extendedKeyUsage=clientAuth'
    openssl pkey -in client.key -aes256 -passout pass:secret -out client-enc.key
    # Expired: openssl ca sets explicit dates.
    key expired
    openssl req -new -key expired.key -subj "/CN=localhost" -out expired.csr 2>/dev/null
    mkdir -p newcerts && : > index.txt && echo 1000 > serial
    cat > ca.cnf <<EOF
    [ ca ]
    default_ca = here
    [ here ]
    dir = .
    database = index.txt
    new_certs_dir = newcerts
    serial = serial
    default_md = sha256
    policy = anything
    unique_subject = no
    [ anything ]
    commonName = supplied
    [ server ]
    basicConstraints = CA:FALSE
    extendedKeyUsage = serverAuth
    subjectAltName = DNS:localhost,IP:127.0.0.1
    EOF
    openssl ca -batch -config ca.cnf -cert int.pem -keyfile int.key -in expired.csr -out expired.pem \
      -startdate 20200101000000Z -enddate 20210101000000Z -extensions server -notext 2>/dev/null
    pub expired
    # Unrelated self-signed certificate for the right names.
    key selfsigned
    openssl req -x509 -new -key selfsigned.key -subj "/CN=localhost" -days 365 -out selfsigned.pem \
      -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" 2>/dev/null
    pub selfsigned
    # Evil: a valid-looking leaf from another root.
    ca_root evilroot "Evil Root"
    signed evil localhost evilroot "$SERVER"
    for n in leaf leaf2 wronghost expired client; do cat "$n.pem" int.pem > "$n-chain.pem"; done
    cat evil.pem int.pem > evil-chain.pem
    cp selfsigned.pem selfsigned-chain.pem
    chmod 600 *.key
    """#
}
