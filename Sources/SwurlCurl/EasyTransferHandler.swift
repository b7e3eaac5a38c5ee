@preconcurrency import CCurl
@preconcurrency import CShims
#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlCore

/// Receives libcurl's callbacks for one easy handle while `EasyHandle.perform(handler:)` runs.
/// Only the callbacks registered on the handle are called (`registerReceiveCallbacks()`,
/// `registerUploadCallbacks()`, `registerDebugCallback()`).
package protocol EasyTransferHandler: AnyObject {
    /// CURLOPT_WRITEFUNCTION(3): body bytes, decoded. Returns `bytes.count` to go on; any other
    /// count ends the transfer.
    func easyDidReceiveBody(_ bytes: UnsafeRawBufferPointer) -> Int
    /// CURLOPT_HEADERFUNCTION(3): one header line with its line ending. Returns `bytes.count` to
    /// go on; any other count ends the transfer.
    func easyDidReceiveHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Int
    /// CURLOPT_READFUNCTION(3): fills `buffer` with request body bytes; 0 at the end, nil to
    /// abort the transfer.
    func easyReadBody(into buffer: UnsafeMutableRawBufferPointer) -> Int?
    /// CURLOPT_SEEKFUNCTION(3) to the start: whether the body can be sent again from its start.
    func easyRewindBody() -> Bool
    /// CURLOPT_PREREQFUNCTION(3): a request is about to go out (the first, or one libcurl sends
    /// again within the transfer). Returns false to abort the transfer.
    func easyWillSendRequest() -> Bool
    /// CURLOPT_XFERINFOFUNCTION(3): bytes so far (totals 0 when unknown). Returns false to abort.
    func easyProgress(down: Int64, downTotal: Int64, up: Int64, upTotal: Int64) -> Bool
    /// CURLOPT_DEBUGFUNCTION(3): what went out on the wire.
    func easyDebug(_ kind: EasyDebugKind, _ bytes: UnsafeRawBufferPointer)
}

/// What a CURLOPT_DEBUGFUNCTION call carries.
package enum EasyDebugKind {
    /// The request head as sent (CURLINFO_HEADER_OUT).
    case headerOut
    /// Request body bytes as sent (CURLINFO_DATA_OUT).
    case dataOut
    /// Anything else (informational text, incoming data, TLS records).
    case other
}

extension EasyHandle {
    private var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    private static func handler(_ ud: UnsafeMutableRawPointer?) -> EasyTransferHandler? {
        guard let ud else { return nil }
        return Unmanaged<EasyHandle>.fromOpaque(ud).takeUnretainedValue().handler
    }

    /// Body, header and progress callbacks (CURLOPT_WRITEFUNCTION, CURLOPT_HEADERFUNCTION,
    /// CURLOPT_XFERINFOFUNCTION with CURLOPT_NOPROGRESS=0).
    package func registerReceiveCallbacks() throws(SwurlError) {
        try set(CURLOPT_WRITEDATA, pointer: context)
        try set(CURLOPT_HEADERDATA, pointer: context)
        try set(CURLOPT_XFERINFODATA, pointer: context)
        _ = sw_setopt_write_cb(raw, CURLOPT_WRITEFUNCTION) { data, size, count, ud in
            guard let h = EasyHandle.handler(ud) else { return 0 }
            return h.easyDidReceiveBody(UnsafeRawBufferPointer(start: data, count: size * count))
        }
        _ = sw_setopt_write_cb(raw, CURLOPT_HEADERFUNCTION) { data, size, count, ud in
            guard let h = EasyHandle.handler(ud) else { return 0 }
            return h.easyDidReceiveHeaderLine(UnsafeRawBufferPointer(start: data, count: size * count))
        }
        try set(CURLOPT_NOPROGRESS, 0)
        _ = sw_setopt_xferinfo_cb(raw) { ud, dltotal, dlnow, ultotal, ulnow in
            guard let h = EasyHandle.handler(ud) else { return 0 }
            return h.easyProgress(down: Int64(dlnow), downTotal: Int64(dltotal), up: Int64(ulnow), upTotal: Int64(ultotal)) ? 0 : 1
        }
    }

    /// Request body callbacks (CURLOPT_READFUNCTION, and CURLOPT_SEEKFUNCTION for sending it
    /// again after a redirect or authentication round; CURLOPT_PREREQFUNCTION before each
    /// request, so that one libcurl sends again without a seek starts from the body's start).
    package func registerUploadCallbacks() throws(SwurlError) {
        try set(CURLOPT_READDATA, pointer: context)
        try set(CURLOPT_SEEKDATA, pointer: context)
        try registerPrerequestCallback()
        _ = sw_setopt_read_cb(raw, CURLOPT_READFUNCTION) { buffer, size, count, ud in
            guard let buffer, let h = EasyHandle.handler(ud) else { return Int(CURL_READFUNC_ABORT) }
            return h.easyReadBody(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
                ?? Int(CURL_READFUNC_ABORT)
        }
        _ = sw_setopt_seek_cb(raw) { ud, offset, origin in
            guard let h = EasyHandle.handler(ud) else { return Int32(CURL_SEEKFUNC_FAIL) }
            guard offset == 0, origin == SEEK_SET, h.easyRewindBody() else { return Int32(CURL_SEEKFUNC_CANTSEEK) }
            return Int32(CURL_SEEKFUNC_OK)
        }
    }

    /// CURLOPT_PREREQFUNCTION(3) alone: `easyWillSendRequest` before each request goes out
    /// (libcurl builds the request's head after it, so options set there count).
    package func registerPrerequestCallback() throws(SwurlError) {
        try set(CURLOPT_PREREQDATA, pointer: context)
        _ = sw_setopt_prereq_cb(raw) { ud, _, _, _, _ in
            guard let h = EasyHandle.handler(ud), h.easyWillSendRequest() else { return Int32(CURL_PREREQFUNC_ABORT) }
            return Int32(CURL_PREREQFUNC_OK)
        }
    }

    /// What goes out on the wire (CURLOPT_VERBOSE=1 with CURLOPT_DEBUGFUNCTION).
    package func registerDebugCallback() throws(SwurlError) {
        try set(CURLOPT_VERBOSE, 1)
        try set(CURLOPT_DEBUGDATA, pointer: context)
        _ = sw_setopt_debug_cb(raw) { _, type, data, size, ud in
            guard let h = EasyHandle.handler(ud) else { return 0 }
            let kind: EasyDebugKind
            switch type {
            case CURLINFO_HEADER_OUT: kind = .headerOut
            case CURLINFO_DATA_OUT: kind = .dataOut
            default: kind = .other
            }
            h.easyDebug(kind, UnsafeRawBufferPointer(start: data, count: size))
            return 0
        }
    }

    /// Runs `prepare` inside every TLS handshake of this handle — each redirect hop too — with
    /// OpenSSL's `SSL_CTX` (opaque here), the host being connected and how messages name the
    /// server (`host`, or `host:port` for a port other than the scheme's), through
    /// CURLOPT_SSL_CTX_FUNCTION (curl_easy_setopt(3)). Returning false aborts the handshake.
    /// The closure is kept as long as the handle.
    /// - Throws: `SwurlError.transport` when this libcurl has no such hook (not built with OpenSSL).
    package func setTLSContextHandler(_ prepare: @escaping (UnsafeMutableRawPointer, _ host: String, _ server: String) -> Bool) throws(SwurlError) {
        tlsContextHandler = prepare
        try set(CURLOPT_SSL_CTX_DATA, pointer: context)
        let rc = sw_setopt_ssl_ctx_cb(raw) { curl, sslContext, userData in
            guard let curl, let sslContext, let userData,
                  let prepare = Unmanaged<EasyHandle>.fromOpaque(userData).takeUnretainedValue().tlsContextHandler
            else { return CURLE_ABORTED_BY_CALLBACK }
            // The URL of the hop being connected: libcurl updates it before following a redirect.
            var p: UnsafePointer<CChar>?
            guard sw_getinfo_str(curl, CURLINFO_EFFECTIVE_URL, &p) == CURLE_OK, let p,
                  let url = try? CurlURL(parsing: String(cString: p)) else { return CURLE_ABORTED_BY_CALLBACK }
            return prepare(sslContext, url.host, url.hostHeader) ? CURLE_OK : CURLE_ABORTED_BY_CALLBACK
        }
        guard rc == CURLE_OK else {
            throw .transport("this libcurl cannot run swurl's TLS policy in the handshake (CURLOPT_SSL_CTX_FUNCTION: \(String(cString: curl_easy_strerror(rc))))",
                             hint: "swurl needs libcurl built with OpenSSL (libcurl4-openssl-dev)")
        }
    }
}
