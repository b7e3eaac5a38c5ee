import SwurlSecurity
import SwurlCurl
import SwurlCore
/// Renders a request as the bytes libcurl would put on the wire for HTTP/1.1, for `--offline`.
package enum OfflineRequest {
    /// The request line and headers, ending with the blank line: `Host` first, then the headers
    /// in order (an empty value as `Name:`), then `Content-Length` as libcurl adds it. With a
    /// session's `cookies`, the `Cookie` header the cookie engine adds after `Host`.
    package static func head(_ request: HTTPRequest, cookies: [SessionCookie] = [],
                            now: Int64 = Int64(Exchange.wallClock())) throws(SwurlError) -> [UInt8] {
        let url = try request.sentURL()
        var s = "\(request.method) \(url.requestTarget) HTTP/1.1\r\n"
        if let host = request.headers["Host"] {
            s += host.isEmpty ? "Host:\r\n" : "Host: \(host)\r\n"
        } else if !request.isRemoved("Host") {
            s += "Host: \(url.hostHeader)\r\n"
        }
        // One Cookie line, as libcurl writes it: the engine's cookies, then the Cookie items.
        let engine = try EngineCookieHeader.value(for: request, cookies: cookies, now: now)
        let items = Transfer.cookieItemValues(request.headers)
        if engine != nil || !items.isEmpty {
            s += "Cookie: " + ((engine.map { [$0] } ?? []) + items).joined(separator: "; ") + "\r\n"
        }
        // An empty `Cookie;` beside the engine's cookies is left out too: one Cookie line.
        for f in request.headers where f.name.lowercased() != "host" && !(f.name.lowercased() == "cookie" && (engine != nil || !items.isEmpty)) {
            s += f.value.isEmpty ? "\(f.name):\r\n" : "\(f.name): \(f.value)\r\n"
        }
        let chunked = request.isChunked
        // libcurl adds no length the user removed (`Content-Length:`; with a body, refused).
        let lengthAdded = !request.headers.contains("Content-Length") && !request.isRemoved("Content-Length")
        if let body = request.body, !chunked, lengthAdded, let length = body.length {
            s += "Content-Length: \(length)\r\n"
        } else if request.body == nil && request.method.sendsEmptyLength && lengthAdded {
            s += "Content-Length: 0\r\n"
        }
        s += "\r\n"
        // A cookie's bytes that are not UTF-8 are escapes in its text (`EasyInfo.cookieList`):
        // shown as the bytes the engine sends. No other header holds escapes (items refuse them).
        return ArgumentBytes.bytes(s)
    }

    /// Sends the request to `delegate` as a transfer would, without a network.
    package static func emit(_ request: HTTPRequest, cookies: [SessionCookie] = [], to delegate: TransferDelegate) throws {
        try delegate.transferDidSendRequestHead(try head(request, cookies: cookies))
        guard let body = request.body else { return }
        let chunked = request.isChunked
        let reader = body.makeReader()
        let forward = DelegateSink(delegate: delegate)
        try reader.copy(to: forward, chunked: chunked)
    }

    private final class DelegateSink: ByteSink {
        let delegate: TransferDelegate
        init(delegate: TransferDelegate) { self.delegate = delegate }
        func write(_ bytes: UnsafeRawBufferPointer) throws { try delegate.transferDidSendRequestBody(bytes) }
    }
}
