@preconcurrency import CCurl
import SwurlCore

/// How curl_easy_perform(3) ended, in swurl's terms: the one place that knows libcurl's
/// CURLE_* codes and maps them to `SwurlError`.
package struct CurlResult: Sendable {
    private let code: CURLcode
    /// libcurl's detailed message (CURLOPT_ERRORBUFFER), else curl_easy_strerror(3).
    package let message: String

    init(_ code: CURLcode, message: String) {
        self.code = code
        self.message = message
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
        [CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_SSL_CONNECT_ERROR, CURLE_GOT_NOTHING].contains(code)
    }

    /// A failure that a later attempt may not repeat: the server was unreachable, the
    /// connection broke, or nothing moved in time.
    package var isTransient: Bool {
        switch code {
        case CURLE_COULDNT_CONNECT, CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING,
             CURLE_PARTIAL_FILE, CURLE_OPERATION_TIMEDOUT, CURLE_HTTP2, CURLE_HTTP2_STREAM:
            return true
        default:
            return false
        }
    }

    /// The failure as one of swurl's error kinds.
    package var error: SwurlError {
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return .transport(message, hint: "check the host name")
        case CURLE_COULDNT_CONNECT:
            return .transport(message, hint: "is the server running and listening on that port?")
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_CACERT_BADFILE,
             CURLE_SSL_ISSUER_ERROR:
            return .trust(message, hint: "use --cacert FILE to trust a private CA")
        case CURLE_UNSUPPORTED_PROTOCOL where message.contains("HTTP/0.9"):
            // The server's fault, not the command line's: an answer with no status line.
            return .transport("the server answered without an HTTP status line (HTTP/0.9), which swurl does not accept")
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT:
            return .usage(message)
        case CURLE_OUT_OF_MEMORY:
            // libcurl gives up this way on a header line longer than 100 KiB (CURL_MAX_HTTP_HEADER).
            return .transport("libcurl could not read the response (\(message))",
                              hint: "a response header line longer than 100 KiB causes this")
        default:
            return .transport(message)
        }
    }
}
