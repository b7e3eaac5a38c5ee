/// Receives what happens during a transfer, in order. The engine never formats output; the
/// printer implements this protocol.
package protocol TransferDelegate: AnyObject {
    /// The request head exactly as sent (one call per request, including redirect hops).
    func transferDidSendRequestHead(_ bytes: [UInt8]) throws
    /// Request body bytes as they leave.
    func transferDidSendRequestBody(_ bytes: UnsafeRawBufferPointer) throws
    /// A complete response head (also 1xx and redirect heads).
    func transferDidReceiveHead(_ head: HTTPResponseHead) throws
    /// A chunk of the final response's body, already decoded from its Content-Encoding.
    func transferDidReceiveBody(_ bytes: UnsafeRawBufferPointer) throws
    /// A TLS handshake passed the security policy (one call per new connection).
    func transferDidVerifyTLS(_ summary: TLSSummary)
    /// A final head the transfer refused before handing it on (a download's announced size
    /// over `--max-filesize`, judged before its file is touched): for records of what came.
    func transferDidRefuseHead(_ head: HTTPResponseHead)
}

extension TransferDelegate {
    /// By default the TLS details are not shown.
    package func transferDidVerifyTLS(_ summary: TLSSummary) {}
    /// By default a refused head is not recorded.
    package func transferDidRefuseHead(_ head: HTTPResponseHead) {}
}

/// A delegate whose file can take the rest of a body after a cut (a download's `.part`).
package protocol ResumableTransferDelegate: TransferDelegate {
    /// How many bytes of the body are on disk now (0: start from the beginning).
    func resumeOffset() -> Int64
    /// The validator of the response those bytes came from (a strong ETag, else its
    /// Last-Modified), sent as If-Range: a changed resource then comes whole (200) instead of
    /// its tail being spliced onto the old bytes. Nil when none is known.
    func resumeValidator() -> String?
}

/// A delegate that can take a whole body straight from a file (a cache entry), so that a
/// 100 MB body moves file to file in the kernel (`copyAll`) instead of through 1 MiB chunks.
package protocol FileBodyReceiving: TransferDelegate {
    /// The body is `count` bytes of `fd` from `offset`. Returns false, having taken nothing,
    /// when the delegate needs the bytes themselves; they then come through
    /// `transferDidReceiveBody`.
    func transferDidReceiveBody(fromFile fd: Int32, offset: Int64, count: Int64, source: String) throws -> Bool
}
