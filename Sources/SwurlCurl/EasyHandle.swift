@preconcurrency import CCurl
@preconcurrency import CShims
import SwurlCore

/// Owns one libcurl easy handle (curl_easy_init(3)) and the header lists given to it.
/// Every `CCurl` call of the engine goes through here, `CurlURL` and the other files of this
/// folder; their API is Swift only (`EasyOption`, `EasyTransferHandler`, `CurlResult`), so the
/// session engine never sees a C type.
package final class EasyHandle {
    let raw: UnsafeMutableRawPointer
    private var lists: [UnsafeMutablePointer<curl_slist>] = []
    /// libcurl writes its error text here (CURLOPT_ERRORBUFFER).
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    /// Kept alive until after curl_easy_cleanup: a share must outlive its easy handles.
    private var share: ShareHandle?
    /// Receives the callbacks while `perform(handler:)` runs (held only for that long).
    var handler: EasyTransferHandler?
    /// Whether CURLOPT_BUFFERSIZE was set: such a handle is never kept as a spare. libcurl 7.88
    /// keeps an HTTP/2 transfer's receive buffer across curl_easy_reset, which sets the size back
    /// to 16 KiB: the next transfer read 16 KiB into a buffer of 3 (a heap overflow, a crash).
    var receiveBufferSized = false
    /// Runs inside every TLS handshake (CURLOPT_SSL_CTX_FUNCTION), see `setTLSContextHandler`.
    var tlsContextHandler: ((UnsafeMutableRawPointer, _ host: String, _ server: String) -> Bool)?

    private static let globalInit: Bool = {
        curl_global_init(Int(CURL_GLOBAL_ALL)) == CURLE_OK
    }()

    /// - Parameter share: when given, a spare handle the share kept from a finished transfer is
    ///   taken if there is one (it is back to every default, as a new one); the caller still
    ///   joins the share with `use(share:)`.
    package init(reusingFrom share: ShareHandle? = nil) throws(SwurlError) {
        try CurlLibrary.load()
        guard EasyHandle.globalInit, let h = share?.takeSpare() ?? curl_easy_init() else {
            throw .transport("libcurl could not be initialised")
        }
        raw = h
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        _ = sw_setopt_ptr(raw, CURLOPT_ERRORBUFFER, errorBuffer)
    }

    deinit {
        // A handle is never on a multi handle here (MultiHandle holds those it runs), so its
        // share may keep it for the next transfer; the reset drops its pointers to the lists below.
        if receiveBufferSized || !(share?.keepSpare(raw) ?? false) { curl_easy_cleanup(raw) }
        for l in lists { curl_slist_free_all(l) }
        errorBuffer.deallocate()
    }

    /// libcurl's detailed message for the last failure, or the generic text for `code`.
    func errorMessage(_ code: CURLcode) -> String {
        let detail = String(cString: errorBuffer)
        if !detail.isEmpty { return detail }
        return String(cString: curl_easy_strerror(code))
    }

    func check(_ rc: CURLcode, _ what: String) throws(SwurlError) {
        guard rc == CURLE_OK else {
            throw .transport("libcurl rejected \(what): \(String(cString: curl_easy_strerror(rc)))",
                             hint: "this libcurl (\(CurlVersion.libcurl)) may lack the feature")
        }
    }

    /// curl_easy_setopt(3) with a long.
    func set(_ option: CURLoption, _ value: Int, _ what: String = "an option") throws(SwurlError) {
        try check(sw_setopt_long(raw, option, value), what)
    }

    /// curl_easy_setopt(3) with a curl_off_t.
    func set(_ option: CURLoption, offset value: Int64, _ what: String = "an option") throws(SwurlError) {
        try check(sw_setopt_off(raw, option, curl_off_t(value)), what)
    }

    /// curl_easy_setopt(3) with a string; libcurl copies it.
    func set(_ option: CURLoption, _ value: String, _ what: String = "an option") throws(SwurlError) {
        // withCString: a native string's own bytes, no copy into a new array.
        try check(value.withCString { sw_setopt_str(raw, option, $0) }, what)
    }

    /// curl_easy_setopt(3) with an opaque pointer (callback user data).
    func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer?) throws(SwurlError) {
        try check(sw_setopt_ptr(raw, option, pointer), "a pointer option")
    }

    /// curl_easy_setopt(3) with a header list; the list lives as long as the handle.
    func set(_ option: CURLoption, list: [String]) throws(SwurlError) {
        var l: UnsafeMutablePointer<curl_slist>?
        for line in list {
            guard let next = line.withCString({ curl_slist_append(l, $0) }) else {
                if let l { curl_slist_free_all(l) }
                throw .transport("out of memory building the header list")
            }
            l = next
        }
        if let l { lists.append(l) }
        try check(sw_setopt_slist(raw, option, l), "the header list")
    }

    /// CURLOPT_SHARE(3): cookies, DNS and connections shared with the other hops.
    package func use(share: ShareHandle) throws(SwurlError) {
        self.share = share
        try check(sw_setopt_ptr(raw, CURLOPT_SHARE, share.raw), "the share handle")
    }

    /// Sets the handler for the callbacks and clears the last error text (before a transfer
    /// starts, here or on a `MultiHandle`).
    func prepareForPerform(handler: EasyTransferHandler?) {
        self.handler = handler
        errorBuffer[0] = 0
    }

    /// curl_easy_perform(3), with `handler` receiving the callbacks registered on this handle
    /// (it is held only while the transfer runs).
    /// - Returns: how libcurl ended, mapped to swurl's terms.
    package func perform(handler: EasyTransferHandler? = nil) -> CurlResult {
        prepareForPerform(handler: handler)
        defer { self.handler = nil }
        let rc = curl_easy_perform(raw)
        return CurlResult(rc, message: errorMessage(rc))
    }

    /// After a CONNECT_ONLY `perform`: waits up to `milliseconds` for the server to speak first
    /// (`sw_await_after_connect`); succeeded when it stayed quiet or sent data.
    package func awaitAfterConnect(milliseconds: Int) -> CurlResult {
        errorBuffer[0] = 0
        let rc = sw_await_after_connect(raw, Int32(milliseconds))
        return CurlResult(rc, message: errorMessage(rc))
    }
}
