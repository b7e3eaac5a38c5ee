import SwurlCore

/// The name of every option, so that code reads options by a case, never by a string: a
/// misspelt option is a compile error. The raw value is the long name; `OptionTable` declares
/// each one's forms, argument and help.
package enum Option: String, CaseIterable, Sendable, Hashable {
    case json
    case pem
    case form
    case multipart
    case boundary
    case plist
    case raw
    case chunked
    case ignoreStdin = "ignore-stdin"
    case print
    case headers
    case body
    case verbose
    case pretty
    case output
    case offline
    case curl
    case all
    case timing
    case har
    case harBodies = "har-bodies"
    case harSecrets = "har-secrets"
    case quiet
    case parallel
    case jsonl
    case outputDir = "output-dir"
    case nameTemplate = "name-template"
    case order
    case failFast = "fail-fast"
    case report
    case junit
    case download
    case `continue`
    case overwrite
    case limitRate = "limit-rate"
    case auth
    case authType = "auth-type"
    case ignoreNetrc = "ignore-netrc"
    case session
    case sessionReadOnly = "session-read-only"
    case style
    case checkStatus = "check-status"
    case acceptStatus = "accept-status"
    case acceptType = "accept-type"
    case decode
    case sortKeys = "sort-keys"
    case dropNulls = "drop-nulls"
    case stream
    case plistAs = "plist-as"
    case follow
    case maxRedirects = "max-redirects"
    case timeout
    case defaultScheme = "default-scheme"
    case pathAsIs = "path-as-is"
    case connectTimeout = "connect-timeout"
    case retry
    case retryDelay = "retry-delay"
    case retryMaxTime = "retry-max-time"
    case retryAllMethods = "retry-all-methods"
    case http1_1 = "http1.1"
    case http2
    case http2PriorKnowledge = "http2-prior-knowledge"
    case proxy
    case unixSocket = "unix-socket"
    case resolve
    case ipv4
    case ipv6
    case maxHeaders = "max-headers"
    case watch
    case waitForNetwork = "wait-for-network"
    case maxFilesize = "max-filesize"
    case cache
    case noCache = "no-cache"
    case refresh
    case cacheOnly = "cache-only"
    case staleOK = "stale-ok"
    case cacheMax = "cache-max"
    case pinPubkey = "pin-pubkey"
    case pinCert = "pin-cert"
    case pinScope = "pin-scope"
    case insecure
    case verifyHost = "verify-host"
    case noVerifyHost = "no-verify-host"
    case cacert
    case capath
    case cacertAdd = "cacert-add"
    case cert
    case key
    case keyPassword = "key-password"
    case tlsMin = "tls-min"
    case tlsMax = "tls-max"
    case ciphers
    case noConfig = "no-config"
    case help
    case version
    case generate
    case stopOnError = "stop-on-error"
}

extension Option {
    /// A value of this option as messages and the REPL's `env` show it, secrets masked
    /// (`Redactor`): `--auth` keeps a user name (with `bearer`, for a token or where the kind is
    /// not known, any value is masked whole), `--key-password` is masked, a URL's password is
    /// masked in any other value.
    func shown(_ value: String, bearer: Bool = true) -> String {
        switch self {
        // A token is masked whole, a ':' in it too (`abc.SECRET:tail` kept its first part).
        case .auth: return bearer ? Redactor.mask : Redactor.credentials(value, whole: false)
        case .keyPassword: return Redactor.mask
        // A proxy URL's user name given alone is a token (`http://ghp_x@host`), as the prompt
        // masks a base URL's, and a password is masked however it is written (a `/` or `#` in
        // it, not percent-encoded); other values (`--session team@prod`, a file name) are shown.
        case .proxy: return Redactor.givenURL(value, cut: false)
        default: return Redactor.url(value)
        }
    }
}
