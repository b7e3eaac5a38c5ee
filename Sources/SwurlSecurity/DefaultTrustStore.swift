@preconcurrency import COpenSSL
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// The system's CA certificates, the trust store used when neither `--cacert` nor `--capath`
/// replaces it.
///
/// It is loaded lazily: OpenSSL's hashed-directory lookup (X509_LOOKUP_hash_dir(3)) on the
/// c_rehash links Debian ships in `/etc/ssl/certs` reads only the issuer certificates a
/// handshake asks for, where the bundle file (`ca-certificates.crt`) would parse every
/// certificate on every run. The bundle is the fallback where no hashed
/// directory exists.
///
/// `SSL_CERT_DIR` and `SSL_CERT_FILE` name other locations, as for OpenSSL's own
/// SSL_CTX_set_default_verify_paths(3): the directory (a hashed directory, or several joined by
/// ':') replaces the default directory, the file replaces the default bundle and is loaded as
/// well (unless it is the system bundle next to the system's hashed directory); so are the files
/// `CURL_CA_BUNDLE` and `REQUESTS_CA_BUNDLE` name.
package struct DefaultTrustStore: Sendable, Equatable {
    /// `SSL_CERT_DIR`, when set.
    package var directoryOverride: String?
    /// A CA file a variable names, and the variable.
    package struct NamedFile: Sendable, Equatable {
        package var variable: String
        package var path: String
    }

    /// The CA files the variables name (`CURL_CA_BUNDLE`, `REQUESTS_CA_BUNDLE`, `SSL_CERT_FILE`,
    /// in that order, each path once).
    package var namedFiles: [NamedFile] = []

    /// The OpenSSL defaults (OPENSSLDIR/certs and OPENSSLDIR/cert.pem).
    package init() {}

    /// Reads `SSL_CERT_DIR` and the files' variables from the process environment's variables
    /// (empty values count as unset). curl reads `CURL_CA_BUNDLE` (`SSL_CERT_FILE` only without
    /// it), HTTPie (requests) `REQUESTS_CA_BUNDLE`, OpenSSL `SSL_CERT_FILE`: every one named is
    /// read, so that on a machine that exports all three for the system bundle, the one a user
    /// sets on top, whichever tool's name they know, is honoured, as that tool would.
    package init(variables: [String: String]) {
        func value(_ name: String) -> String? { variables[name].flatMap { $0.isEmpty ? nil : $0 } }
        directoryOverride = value("SSL_CERT_DIR")
        for name in ["CURL_CA_BUNDLE", "REQUESTS_CA_BUNDLE", "SSL_CERT_FILE"] {
            if let file = value(name), !namedFiles.contains(where: { $0.path == file }) { namedFiles.append(NamedFile(variable: name, path: file)) }
        }
    }

    /// What to load: a directory to search by subject hash, files to read whole, or both.
    struct Locations: Equatable {
        var directory: String?
        var files: [String]
    }

    /// Decides the locations: the directory (`SSL_CERT_DIR`, else the default one when it holds
    /// hash links) and the files (those the variables name, else the default bundle). A file is
    /// skipped when it is the system bundle and the directory is the system's hashed directory:
    /// both hold the same certificates (Debian's update-ca-certificates writes them together),
    /// and the directory is the one read lazily. So is a variable that merely names that bundle.
    /// - Parameters:
    ///   - isHashed: whether a directory holds c_rehash links (`hasHashLinks`).
    ///   - sameFile: whether two paths name the same file (`isSameFile`).
    func locations(defaultDirectory: String, defaultFile: String, isHashed: (String) -> Bool,
                   sameFile: (String, String) -> Bool) -> Locations {
        let systemDirectoryIsHashed = isHashed(defaultDirectory)
        let directory = directoryOverride ?? (systemDirectoryIsHashed ? defaultDirectory : nil)
        let files = namedFiles.isEmpty ? [defaultFile] : namedFiles.map(\.path)
        let usesSystemDirectory = systemDirectoryIsHashed && directory.map { sameFile($0, defaultDirectory) } == true
        return Locations(directory: directory, files: files.filter { !(usesSystemDirectory && sameFile($0, defaultFile)) })
    }

    /// The locations on this system, with OpenSSL's compiled-in defaults
    /// (X509_get_default_cert_dir(3), X509_get_default_cert_file(3)).
    var systemLocations: Locations {
        locations(defaultDirectory: String(cString: X509_get_default_cert_dir()),
                  defaultFile: String(cString: X509_get_default_cert_file()),
                  isHashed: DefaultTrustStore.hasHashLinks, sameFile: DefaultTrustStore.isSameFile)
    }

    /// OpenSSL's compiled-in CA bundle and directory (X509_get_default_cert_file(3),
    /// X509_get_default_cert_dir(3)).
    package static var systemBundle: String { String(cString: X509_get_default_cert_file()) }
    package static var systemDirectory: String { String(cString: X509_get_default_cert_dir()) }

    /// Whether two paths name the same existing file or directory (same device and inode,
    /// symbolic links followed).
    package static func isSameFile(_ a: String, _ b: String) -> Bool {
        if a == b { return true }
        var sa = stat(), sb = stat()
        guard stat(a, &sa) == 0, stat(b, &sb) == 0 else { return false }
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }

    /// Whether `directory` holds at least one c_rehash link (`1a2b3c4d.0`).
    static func hasHashLinks(_ directory: String) -> Bool {
        guard let dir = opendir(directory) else { return false }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let isLink = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                isHashLinkName(raw.prefix { $0 != 0 })
            }
            if isLink { return true }
        }
        return false
    }

    /// `XXXXXXXX.N`: eight lower-case hex digits, a dot, a decimal counter.
    static func isHashLinkName<C: Collection<UInt8>>(_ name: C) -> Bool {
        let bytes = Array(name)
        guard bytes.count >= 10, bytes[8] == UInt8(ascii: ".") else { return false }
        let hex = bytes[0..<8].allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
        return hex && bytes[9...].allSatisfy { (0x30...0x39).contains($0) }
    }

    /// Adds the store's locations to an OpenSSL store: a hashed-directory lookup (searched during
    /// verification) and the file's certificates (X509_STORE_load_file(3)). A location that
    /// does not exist adds nothing, as with OpenSSL's defaults; the chain check then names the
    /// missing issuer.
    func install(into store: OpaquePointer) {
        let chosen = systemLocations
        if let directory = chosen.directory, let lookup = X509_STORE_add_lookup(store, X509_LOOKUP_hash_dir()) {
            _ = X509_LOOKUP_ctrl(lookup, X509_L_ADD_DIR, directory, Int(X509_FILETYPE_PEM), nil)
        }
        for file in chosen.files {
            _ = X509_STORE_load_file(store, file)
        }
        ERR_clear_error()
    }
}
