import SwurlCurl
import SwurlCore

/// The request head libcurl 7.88 sends, rebuilt from what swurl handed it, for a recorder
/// (`--har`) that needs the head as sent and nothing else does. Without it the transfer turns on
/// CURLOPT_VERBOSE for the debug callback, and libcurl then formats every informational line of
/// the transfer as well (docs/performance.md, "HAR files").
///
/// Only for requests whose head libcurl derives wholly from swurl's (Curl_http in lib/http.c):
/// a plain `http://` URL (`CurlURL.plainHTTPRequestStart`) on HTTP/1.1, no body, no proxy, no
/// Digest, an empty cookie engine, and no header line that libcurl treats on its own. The head
/// is then the request line, `Host`, libcurl's `Accept: */*` and `Accept-Encoding` unless a line
/// names them, and the header lines in order (`Name;` sent as `Name:`, `Name:` not at all).
/// Anything else keeps the debug callback. `Transfer` checks the result against
/// CURLINFO_REQUEST_SIZE once the request went out.
enum SentRequestHead {
    /// Whether a line may not carry this header name for the rebuilt head: libcurl writes,
    /// merges or drops these itself.
    private static func isLibcurlOwned(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        switch name.count {
        case 2: return Redactor.isASCII(name, named: "te")
        case 4: return Redactor.isASCII(name, named: "host")
        case 6: return Redactor.isASCII(name, named: "cookie")
        case 10: return Redactor.isASCII(name, named: "connection")
        case 14: return Redactor.isASCII(name, named: "content-length")
        case 17: return Redactor.isASCII(name, named: "transfer-encoding")
        default: return false
        }
    }

    /// What the head is made of (`RebuiltRequestHead`: its bytes are made where they are
    /// written), or nil when libcurl's cannot be known here.
    /// - Parameters:
    ///   - lines: the CURLOPT_HTTPHEADER lines (`Transfer.headerLines()`).
    ///   - acceptEncoding: the Accept-Encoding libcurl adds (CURLOPT_ACCEPT_ENCODING ""), nil when not asked to.
    ///   - cookiesPossible: whether the cookie engine may add a `Cookie` header.
    ///   - memo: what the last lines came to; the lines are scanned only when they differ.
    static func rebuild(_ request: HTTPRequest, lines: [String], options: TransferOptions, digest: Bool,
                        acceptEncoding: String?, cookiesPossible: Bool, memo: SentHeadMemo? = nil) -> RebuiltRequestHead? {
        guard request.body == nil, !request.method.sendsEmptyLength, !digest, !cookiesPossible,
              options.unixSocket == nil, options.proxy.proxy(forScheme: "http") == nil else { return nil }
        switch options.httpVersion {
        case .automatic, .http1_1: break
        case .http2, .http2PriorKnowledge: return nil
        }
        let tail: [UInt8], cookieAt: Int
        if let memo, memo.filled, memo.lines == lines, memo.acceptEncoding == acceptEncoding {
            guard let known = memo.tail else { return nil }
            tail = known
            cookieAt = memo.cookieAt
        } else {
            let made = SentRequestHead.tail(lines: lines, acceptEncoding: acceptEncoding)
            if let memo {
                memo.lines = lines
                memo.acceptEncoding = acceptEncoding
                memo.tail = made?.bytes
                memo.cookieAt = made?.cookieAt ?? 0
                memo.filled = true
            }
            guard let made else { return nil }
            tail = made.bytes
            cookieAt = made.cookieAt
        }
        return CurlURL.plainHTTPRequestHead(method: request.method.rawValue, url: request.url, tail: tail, cookieAt: cookieAt)
    }

    /// The head after its Host line: libcurl's `Accept: */*` and `Accept-Encoding` unless a
    /// line names them, the header lines in order, and the blank line, with where libcurl's
    /// lines end (a `Cookie` line of its engine's goes there); nil when a line makes the head
    /// unknown.
    static func tail(lines: [String], acceptEncoding: String?) -> (bytes: [UInt8], cookieAt: Int)? {
        var head = ByteBuffer(capacity: 256)
        var namesAccept = false, namesAcceptEncoding = false
        var custom = ByteBuffer(capacity: 256)
        for line in lines {
            var text = line
            let ok = text.withUTF8 { b -> Bool in
                guard let sep = b.firstIndex(where: { $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ";") }) else { return false }
                let name = UnsafeBufferPointer(rebasing: b[..<sep])
                if Redactor.isASCII(name, named: "accept") { namesAccept = true }
                if Redactor.isASCII(name, named: "accept-encoding") { namesAcceptEncoding = true }
                if SentRequestHead.isLibcurlOwned(name) { return false }
                if b[sep] == UInt8(ascii: ";") {
                    // `Name;`: sent with an empty value; anything after the `;` is not swurl's form.
                    guard sep == b.count - 1 else { return false }
                    custom.append(name)
                    custom.append(":\r\n")
                    return true
                }
                var v = sep + 1
                while v < b.count, b[v] == 0x20 || b[v] == 0x09 { v += 1 }
                if v == b.count {
                    // `Name:` removes a header libcurl would add; a value of blanks would be dropped too,
                    // but swurl never writes one (`Name;` is its empty value).
                    return sep == b.count - 1
                }
                custom.append(b)
                custom.append("\r\n")
                return true
            }
            guard ok else { return nil }
        }
        if !namesAccept { head.append("Accept: */*\r\n") }
        if let acceptEncoding, !namesAcceptEncoding {
            guard !acceptEncoding.isEmpty else { return nil }
            head.append("Accept-Encoding: ")
            head.append(contentsOf: acceptEncoding)
            head.append("\r\n")
        }
        let cookieAt = head.count
        custom.withUnsafeBytes { head.append($0) }
        head.append("\r\n")
        return (head.array, cookieAt)
    }
}
