@preconcurrency import CCurl
@preconcurrency import CShims
import SwurlCore

/// Owns one libcurl multi handle (curl_multi_init(3)): many easy handles driven together on one
/// thread, connections pooled and reused across them, HTTP/2 streams multiplexed on one
/// connection. Finished transfers come back as the `EasyHandle` that was added (a Swift map from
/// the C handle, so no pointer round-trips through CURLOPT_PRIVATE).
package final class MultiHandle {
    private let raw: UnsafeMutableRawPointer
    /// The handles currently added, by their C handle; each holds its `EasyTransferHandler`.
    private var active: [UnsafeMutableRawPointer: EasyHandle] = [:]

    package init() throws(SwurlError) {
        _ = try EasyHandle()   // curl_global_init, once
        guard let m = curl_multi_init() else { throw .transport("libcurl could not create a multi handle") }
        raw = m
    }

    deinit {
        for (h, _) in active { curl_multi_remove_handle(raw, h) }
        active.removeAll()
        curl_multi_cleanup(raw)
    }

    /// CURLMOPT_MAX_HOST_CONNECTIONS and CURLMOPT_MAX_TOTAL_CONNECTIONS (0: no limit).
    package func limitConnections(perHost: Int, total: Int) throws(SwurlError) {
        guard sw_multi_setopt_long(raw, CURLMOPT_MAX_HOST_CONNECTIONS, perHost) == CURLM_OK,
              sw_multi_setopt_long(raw, CURLMOPT_MAX_TOTAL_CONNECTIONS, total) == CURLM_OK else {
            throw .transport("libcurl rejected the connection limits of the multi handle")
        }
    }

    /// The number of transfers added and not yet removed.
    package var count: Int { active.count }

    /// curl_multi_add_handle(3): starts `easy`, its callbacks going to `handler` until it is removed.
    /// - Parameter mayMultiplex: whether the transfer may run on HTTP/2 (TLS with h2 offered, or
    ///   prior knowledge). Then CURLOPT_PIPEWAIT is set, so that a burst of transfers to one
    ///   origin waits for the first connection and multiplexes on it instead of opening one each.
    ///   Not otherwise: on plain `http://` libcurl learns that a connection cannot multiplex only
    ///   from its first response, so every transfer to the origin would wait for that one (a slow
    ///   first line would hold up, and time out, the lines behind it).
    package func add(_ easy: EasyHandle, handler: EasyTransferHandler, mayMultiplex: Bool) throws(SwurlError) {
        try easy.set(CURLOPT_PIPEWAIT, mayMultiplex ? 1 : 0, "CURLOPT_PIPEWAIT")
        easy.prepareForPerform(handler: handler)
        let rc = curl_multi_add_handle(raw, easy.raw)
        guard rc == CURLM_OK else {
            easy.handler = nil
            throw .transport("libcurl could not start a transfer: \(String(cString: curl_multi_strerror(rc)))")
        }
        active[easy.raw] = easy
    }

    /// curl_multi_remove_handle(3): stops `easy` (finished or not) and releases its handler.
    package func remove(_ easy: EasyHandle) {
        guard active.removeValue(forKey: easy.raw) != nil else { return }
        curl_multi_remove_handle(raw, easy.raw)
        easy.handler = nil
    }

    /// curl_multi_perform(3) then curl_multi_info_read(3): moves every transfer as far as it can
    /// without blocking and returns those that ended, with how they ended (still added: call
    /// `remove` on each).
    package func perform() throws(SwurlError) -> [(EasyHandle, CurlResult)] {
        var running: Int32 = 0
        let rc = curl_multi_perform(raw, &running)
        guard rc == CURLM_OK else {
            throw .transport("libcurl's multi interface failed: \(String(cString: curl_multi_strerror(rc)))")
        }
        var done: [(EasyHandle, CurlResult)] = []
        var left: Int32 = 0
        while let msg = curl_multi_info_read(raw, &left) {
            guard msg.pointee.msg == CURLMSG_DONE, let h = msg.pointee.easy_handle,
                  let easy = active[h] else { continue }
            let code = msg.pointee.data.result
            done.append((easy, CurlResult(code, message: easy.errorMessage(code))))
        }
        return done
    }

    /// curl_multi_poll(3): waits until a transfer's socket is ready, `milliseconds` pass, or
    /// `wakeup()` is called; with `readable`, also until that descriptor has input (or its end).
    package func poll(milliseconds: Int, readable fd: Int32? = nil) {
        var n: Int32 = 0
        if let fd {
            var extra = curl_waitfd(fd: fd, events: Int16(CURL_WAIT_POLLIN), revents: 0)
            _ = curl_multi_poll(raw, &extra, 1, Int32(milliseconds), &n)
        } else {
            _ = curl_multi_poll(raw, nil, 0, Int32(milliseconds), &n)
        }
    }

    /// curl_multi_wakeup(3): ends a `poll` early (safe from another thread).
    package func wakeup() { _ = curl_multi_wakeup(raw) }
}
