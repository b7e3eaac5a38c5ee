@preconcurrency import CCurl
import Glibc
import SwurlCore

/// How curl_easy_perform(3) ended, in swurl's terms: the one place that knows libcurl's
/// CURLE_* codes and maps them to `SwurlError`.
package struct CurlResult: Sendable {
    private let code: CURLcode
    /// libcurl's detailed message (CURLOPT_ERRORBUFFER), else curl_easy_strerror(3).
    package let message: String

    init(_ code: CURLcode, message: String) {
        self.code = code
        // libcurl ends some messages with a blank ("… in connection to host:443 ").
        self.message = message.trimmingSpaces()
    }

    /// The transfer completed (CURLE_OK).
    package var succeeded: Bool { code == CURLE_OK }

    /// libcurl's own timeout fired (CURLE_OPERATION_TIMEDOUT).
    package var timedOut: Bool { code == CURLE_OPERATION_TIMEDOUT }

    /// More redirects than CURLOPT_MAXREDIRS (CURLE_TOO_MANY_REDIRECTS).
    package var tooManyRedirects: Bool { code == CURLE_TOO_MANY_REDIRECTS }

    /// The client certificate or key did not load (CURLE_SSL_CERTPROBLEM).
    package var clientCertificateProblem: Bool { code == CURLE_SSL_CERTPROBLEM }

    /// The server hung up during or right after the handshake (receive, send, TLS connect
    /// errors, or no response at all).
    package var connectionEnded: Bool {
        [CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_SSL_CONNECT_ERROR, CURLE_GOT_NOTHING].contains(code) && !http2HeadRefused
            && !streamRefusedRepeatedly
    }

    /// libcurl 7.88 gave up on a request it sent again on a fresh connection each time ("Connection
    /// died, tried 5 times before giving up", as a receive or a send error): the server refused
    /// the HTTP/2 stream (RST_STREAM REFUSED_STREAM, or a GOAWAY that left it out) or closed the
    /// connection each time, or nghttp2 refused a request head over about 64 KiB before it left.
    var streamRefusedRepeatedly: Bool {
        (code == CURLE_RECV_ERROR || code == CURLE_SEND_ERROR) && message.containsText("Connection died, tried")
    }

    /// nghttp2's "user callback failed" (-902): libcurl 7.88 refuses an HTTP/2 response head
    /// past its buffer (about 128 KiB) this way; its words name nghttp2's internals only.
    var http2HeadRefused: Bool {
        (code == CURLE_RECV_ERROR || code == CURLE_HTTP2) && message.containsText("nghttp2") && message.containsText("-902")
    }

    /// A failure that a later attempt may not repeat: the server was unreachable, the
    /// connection broke, or nothing moved in time.
    package var isTransient: Bool {
        switch code {
        case CURLE_COULDNT_CONNECT, CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING,
             CURLE_PARTIAL_FILE, CURLE_OPERATION_TIMEDOUT, CURLE_HTTP2, CURLE_HTTP2_STREAM:
            // (A head too large for libcurl's HTTP/2 buffer comes again the same way.)
            return !http2HeadRefused
        default:
            return false
        }
    }

    /// Writing the received data failed (CURLE_WRITE_ERROR): swurl's own write, or libcurl's
    /// content decoder refusing what follows a compressed stream's end.
    package var writeFailed: Bool { code == CURLE_WRITE_ERROR }

    /// The server closed the connection without a byte of answer (CURLE_GOT_NOTHING).
    package var gotNothing: Bool { code == CURLE_GOT_NOTHING }

    /// The answer had no HTTP status line (HTTP/0.9, refused).
    package var noStatusLine: Bool { code == CURLE_UNSUPPORTED_PROTOCOL && message.containsText("HTTP/0.9") }

    /// The connection could not be made (CURLE_COULDNT_CONNECT).
    package var couldNotConnect: Bool { code == CURLE_COULDNT_CONNECT }

    /// The host name did not resolve (CURLE_COULDNT_RESOLVE_HOST).
    package var couldNotResolve: Bool { code == CURLE_COULDNT_RESOLVE_HOST }

    /// The proxy's host name did not resolve (CURLE_COULDNT_RESOLVE_PROXY).
    package var couldNotResolveProxy: Bool { code == CURLE_COULDNT_RESOLVE_PROXY }

    /// Whether this process can open no more descriptors now (EMFILE, or ENFILE for the whole
    /// system): asked when a connection failed, since libcurl does not say why socket(2) did.
    static func descriptorsExhausted() -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd < 0 else {
            close(fd)
            return false
        }
        return errno == EMFILE || errno == ENFILE
    }

    /// The failure as one of swurl's error kinds.
    package var error: SwurlError {
        switch code {
        case CURLE_OUT_OF_MEMORY:
            // libcurl reports a header line over its 100 KB limit this way (7.88).
            return .transport("the response could not be read: a header line is larger than libcurl accepts (100 KB), or memory ran out",
                              hint: "libcurl said: \(message)")
        case CURLE_SSL_CONNECT_ERROR where message.containsText("protocol version") || message.containsText("unsupported protocol"):
            return .transport(message, hint: "the server and swurl share no TLS version: swurl offers TLS 1.2 and 1.3, or those --tls-min/--tls-max leave")
        case CURLE_SSL_CONNECT_ERROR where message.containsText("SSL_ERROR_SYSCALL"):
            // The peer closed the connection in the middle of the handshake, saying nothing.
            return .transport("the server closed the connection during the TLS handshake (\(message))",
                              hint: "is the port a TLS one? A server that requires a client certificate (--cert FILE --key FILE), or refuses swurl's TLS versions or suites, can close it this way")
        case CURLE_SSL_CONNECT_ERROR where message.containsText("wrong version number"):
            return .transport(message, hint: "the port may speak plain HTTP: try http:// instead of https://")
        case CURLE_SSL_CIPHER where message.containsText(":!aNULL"):
            return .transport(message, hint: "with a pin, the anonymous suites (aNULL) are left out of --ciphers, since they send no certificate to check the pin against: name other suites")
        case CURLE_SSL_CIPHER:
            return .transport(message, hint: "--ciphers names no suite OpenSSL knows (OpenSSL names, ':'-separated; 'openssl ciphers -v' lists them)")
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return .transport(message, hint: "check the host name")
        case CURLE_COULDNT_CONNECT where CurlResult.descriptorsExhausted():
            // libcurl 7.88 words a socket(2) failing with EMFILE as a refused connection.
            var limit = rlimit()
            let shown = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 && limit.rlim_cur < rlim_t(Int32.max) ? " (\(limit.rlim_cur))" : ""
            return .transport(message + ": swurl had no file descriptor left for the socket: too many open files",
                              hint: "raise the limit of open files\(shown) with ulimit -n, or give a batch a lower --parallel")
        case CURLE_COULDNT_CONNECT:
            return .transport(message, hint: "is the server running and listening on that port?")
        case CURLE_PEER_FAILED_VERIFICATION where message.containsText("subject name") || message.containsText("does not match target host"):
            // libcurl's own host check after the handshake: no CA makes the name right.
            return .trust(message, hint: "the certificate is for another name: use the name it was issued for in the URL")
        case CURLE_PEER_FAILED_VERIFICATION where message.containsText("couldn't get peer certificate"):
            return .trust(message, hint: "the server sent no certificate, so nothing could be checked")
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_CACERT_BADFILE,
             CURLE_SSL_ISSUER_ERROR:
            return .trust(message, hint: "use --cacert FILE to trust a private CA")
        case CURLE_UNSUPPORTED_PROTOCOL where message.containsText("HTTP/0.9"):
            // The server's fault, not the command line's: an answer with no status line.
            return .transport("the server answered without an HTTP status line (HTTP/0.9), which swurl does not accept",
                              hint: "the server did not answer in HTTP")
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_WEIRD_SERVER_REPLY:
            // The user's URL was checked before sending: at transfer time these come from the
            // server (a reply that is not HTTP, a redirect to a scheme swurl does not speak).
            return .transport(message, hint: "the server's reply does not follow HTTP (a malformed head, or not HTTP at all)")
        case CURLE_OPERATION_TIMEDOUT:
            // A request's transfer words its own timeouts (`Transfer.end`); here: a handshake
            // (`certs`, `reach`) that timed out is a timeout (2), not a transport failure (1).
            return .timedOut(message)
        case _ where streamRefusedRepeatedly:
            return .transport("the request was refused on every try (libcurl: \(message)): the server refused the HTTP/2 stream or closed the connection (GOAWAY) each time, or a request head over the about 64 KiB HTTP/2 takes never left",
                              hint: "a server that limits its HTTP/2 streams per connection is kinder to fewer at once (--parallel) or to --http1.1, which also sends a request head up to 1 MiB")
        case _ where http2HeadRefused:
            return .transport("the HTTP/2 response could not be read: libcurl refused it, most likely a response head larger than the about 128 KiB libcurl takes over HTTP/2",
                              hint: "libcurl said: \(message); --http1.1 reads heads up to 256 KiB")
        case CURLE_SEND_FAIL_REWIND:
            // libcurl must send the request again within one transfer (a second Digest round, a
            // stale nonce; a reused connection found closed; a refused HTTP/2 stream) and wants
            // the body from its start, which a stream (stdin, a pipe) cannot give twice.
            return .inputFile("the request had to be sent again (an authentication round, or a connection closed before it was answered), and its body, read from stdin or a pipe, cannot be read twice",
                              hint: "save the body to a file and send it as @FILE")
        case CURLE_URL_MALFORMAT:
            // swurl follows redirects itself and checks every URL before handing it over: what
            // libcurl still refuses is most likely the host name.
            return .transport(message, hint: "check the URL's host name")
        default:
            return .transport(message)
        }
    }
}
