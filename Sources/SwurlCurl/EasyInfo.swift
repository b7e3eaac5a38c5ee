import SwurlCore
@preconcurrency import CCurl
@preconcurrency import CShims

/// What libcurl knows about a handle's last transfer (curl_easy_getinfo(3)), typed. A value
/// that libcurl cannot give reads as 0 or nil.
extension EasyHandle {
    /// curl_easy_getinfo(3) for a long.
    private func info(long what: CURLINFO) -> Int {
        var v = 0
        return sw_getinfo_long(raw, what, &v) == CURLE_OK ? v : 0
    }

    /// curl_easy_getinfo(3) for a curl_off_t.
    private func info(offset what: CURLINFO) -> Int64 {
        var v: curl_off_t = 0
        return sw_getinfo_off(raw, what, &v) == CURLE_OK ? Int64(v) : 0
    }

    /// curl_easy_getinfo(3) for a string.
    private func info(string what: CURLINFO) -> String? {
        var p: UnsafePointer<CChar>?
        guard sw_getinfo_str(raw, what, &p) == CURLE_OK, let p else { return nil }
        return String(cString: p)
    }

    /// CURLINFO_RESPONSE_CODE: the last status code, 0 when no response arrived.
    package var responseCode: Int { info(long: CURLINFO_RESPONSE_CODE) }
    /// CURLINFO_EFFECTIVE_URL: the URL last used.
    package var effectiveURL: String? { info(string: CURLINFO_EFFECTIVE_URL) }
    /// CURLINFO_HTTP_CONNECTCODE: the status a proxy answered CONNECT with (0 without a tunnel).
    package var connectCode: Int { info(long: CURLINFO_HTTP_CONNECTCODE) }
    /// CURLINFO_REDIRECT_COUNT.
    package var redirectCount: Int { info(long: CURLINFO_REDIRECT_COUNT) }
    /// CURLINFO_REDIRECT_URL: where the response's Location points, made absolute.
    package var redirectURL: String? { info(string: CURLINFO_REDIRECT_URL) }

    /// CURLINFO_COOKIELIST(3): every cookie the engine (or the shared jar) holds, one Netscape
    /// line each (`#HttpOnly_` before the domain of an HttpOnly cookie); empty when none. Bytes
    /// that are not UTF-8 (a Latin-1 value) are kept as `ArgumentBytes` escapes, so a cookie
    /// handed back (`EasyOption.cookieList`) or saved in a session keeps its exact bytes.
    package var cookieList: [String] {
        var list: UnsafeMutablePointer<curl_slist>?
        guard sw_getinfo_slist(raw, CURLINFO_COOKIELIST, &list) == CURLE_OK, let head = list else { return [] }
        defer { curl_slist_free_all(head) }
        var lines: [String] = []
        var node: UnsafeMutablePointer<curl_slist>? = head
        while let n = node {
            if let data = n.pointee.data {
                lines.append(ArgumentBytes.decode(Array(UnsafeRawBufferPointer(start: data, count: strlen(data)))))
            }
            node = n.pointee.next
        }
        return lines
    }

    /// The phases of a transfer libcurl times (CURLINFO_*_TIME_T).
    package enum Phase {
        case nameLookup, connect, appConnect, preTransfer, startTransfer, total
    }

    /// Seconds from the start of the transfer to the end of `phase` (0 when it did not happen).
    package func seconds(_ phase: Phase) -> Double {
        let what: CURLINFO
        switch phase {
        case .nameLookup: what = CURLINFO_NAMELOOKUP_TIME_T
        case .connect: what = CURLINFO_CONNECT_TIME_T
        case .appConnect: what = CURLINFO_APPCONNECT_TIME_T
        case .preTransfer: what = CURLINFO_PRETRANSFER_TIME_T
        case .startTransfer: what = CURLINFO_STARTTRANSFER_TIME_T
        case .total: what = CURLINFO_TOTAL_TIME_T
        }
        return Double(info(offset: what)) / 1_000_000
    }

    /// CURLINFO_SIZE_DOWNLOAD_T: body bytes received.
    package var downloadedBytes: Int64 { info(offset: CURLINFO_SIZE_DOWNLOAD_T) }
    /// CURLINFO_SIZE_UPLOAD_T: body bytes sent.
    package var uploadedBytes: Int64 { info(offset: CURLINFO_SIZE_UPLOAD_T) }
    /// CURLINFO_REQUEST_SIZE(3): bytes of the request heads sent (every request of the
    /// transfer: also one sent again on a fresh connection); 0 when none went out.
    package var requestHeadBytes: Int { info(long: CURLINFO_REQUEST_SIZE) }

    /// Whether the cookie engine (or the shared jar) holds no cookie at all
    /// (CURLINFO_COOKIELIST(3) gives no list), without reading the cookies.
    package var holdsNoCookies: Bool {
        var list: UnsafeMutablePointer<curl_slist>?
        guard sw_getinfo_slist(raw, CURLINFO_COOKIELIST, &list) == CURLE_OK else { return false }
        guard let list else { return true }
        curl_slist_free_all(list)
        return false
    }

    /// CURLINFO_HEADER_SIZE: header bytes received.
    package var headerBytes: Int64 { Int64(info(long: CURLINFO_HEADER_SIZE)) }
    /// CURLINFO_SPEED_DOWNLOAD_T: bytes per second, averaged over the transfer.
    package var downloadSpeed: Int64 { info(offset: CURLINFO_SPEED_DOWNLOAD_T) }
    /// CURLINFO_SPEED_UPLOAD_T.
    package var uploadSpeed: Int64 { info(offset: CURLINFO_SPEED_UPLOAD_T) }
    /// CURLINFO_PRIMARY_IP: the address connected to, nil when none.
    package var remoteAddress: String? { info(string: CURLINFO_PRIMARY_IP).flatMap { $0.isEmpty ? nil : $0 } }
    /// CURLINFO_PRIMARY_PORT.
    package var remotePort: Int { info(long: CURLINFO_PRIMARY_PORT) }
    /// CURLINFO_LOCAL_PORT: the local port of the connection used (0 when none).
    package var localPort: Int { info(long: CURLINFO_LOCAL_PORT) }
    /// CURLINFO_NUM_CONNECTS: new connections the transfer opened.
    package var newConnections: Int { info(long: CURLINFO_NUM_CONNECTS) }

    /// CURLINFO_HTTP_VERSION as text: `1.0`, `1.1`, `2`, `3`, or nil when unknown.
    package var httpVersion: String? {
        switch info(long: CURLINFO_HTTP_VERSION) {
        case Int(CURL_HTTP_VERSION_1_0): return "1.0"
        case Int(CURL_HTTP_VERSION_1_1): return "1.1"
        case Int(CURL_HTTP_VERSION_2_0): return "2"
        case Int(CURL_HTTP_VERSION_3): return "3"
        default: return nil
        }
    }
}
