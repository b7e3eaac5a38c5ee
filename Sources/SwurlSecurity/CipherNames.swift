@preconcurrency import COpenSSL

/// `--ciphers` checked before anything is sent: OpenSSL skips a name it does not know inside a
/// list and fails only when none is left, which libcurl reported at connect time (exit 1).
package enum CipherNames {
    /// The first name of `list` (`:`-separated) that OpenSSL does not know: a TLS 1.3 suite
    /// (`TLS_…`) or a TLS 1.2 cipher or cipher-string keyword (`HIGH`; words with `!`, `-`, `+`
    /// or `@` in front are operators, not checked); nil when all are known.
    package static func unknown(in list: String) -> String? {
        guard let ctx = SSL_CTX_new(TLS_method()) else { return nil }
        defer {
            SSL_CTX_free(ctx)
            ERR_clear_error()
        }
        for name in list.split(separator: ":").map(String.init) where !name.isEmpty {
            if let first = name.first, "!-+@".contains(first) { continue }
            let known = name.hasPrefix("TLS_") ? SSL_CTX_set_ciphersuites(ctx, name) == 1 : SSL_CTX_set_cipher_list(ctx, name) == 1
            if !known { return name }
        }
        return nil
    }
}
