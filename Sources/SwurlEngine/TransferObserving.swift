import SwurlCore

/// Watches an exchange (Alamofire's `EventMonitor`): the engine prints nothing, so whoever shows
/// retries, progress bars or the responses of intermediate hops learns of them here. Every
/// method has an empty default, so an observer implements what it shows.
package protocol TransferObserving: AnyObject {
    /// A retry is due after `notice.delay` seconds (told before the session waits).
    func transferWillRetry(_ notice: RetryNotice)
    /// A retry was due, but its wait (`notice.delay`: the server's Retry-After, or the back-off)
    /// would pass `--retry-max-time`: the exchange ends with this attempt's outcome.
    func transferWillNotRetry(_ notice: RetryNotice, maxTime: Double)
    /// A retry was due, but part of the body was already handed on (printed, or written to a
    /// file that cannot start again): the exchange ends with this attempt's failure.
    func transferWillNotRetryAfterBody(_ notice: RetryNotice)
    /// Bytes moved on the running hop.
    func transferDidProgress(_ progress: TransferProgress)
    /// With `delegatePerHop`: a hop that was not the final one is over, and so is its delegate.
    func transferHopDidFinish(_ delegate: TransferDelegate) throws
}

package extension TransferObserving {
    func transferWillRetry(_ notice: RetryNotice) {}
    func transferWillNotRetry(_ notice: RetryNotice, maxTime: Double) {}
    func transferWillNotRetryAfterBody(_ notice: RetryNotice) {}
    func transferDidProgress(_ progress: TransferProgress) {}
    func transferHopDidFinish(_ delegate: TransferDelegate) throws {}
}

/// Adapts each attempt's request just before it is sent (Alamofire's `RequestAdapter`).
package protocol RequestAdapting: AnyObject {
    func adapt(_ request: inout HTTPRequest)
    /// Where the last adapted request's body starts in the file it resumes (0: from the start),
    /// nil when it resumes no file.
    var resumedFrom: Int64? { get }
}

/// Resumes a download: when bytes are on disk, asks for the rest of them (`Range: bytes=N-`)
/// before every attempt. The bytes are the stored ones (`ContentCoding.asStored`), so the
/// range means what is on disk.
package final class ResumeAdapter: RequestAdapting {
    private let target: ResumableTransferDelegate

    package private(set) var resumedFrom: Int64? = 0

    package init(_ target: ResumableTransferDelegate) { self.target = target }

    package func adapt(_ request: inout HTTPRequest) {
        request.headers.remove("Range")
        request.headers.remove("If-Range")
        let offset = target.resumeOffset()
        resumedFrom = max(0, offset)
        guard offset > 0 else { return }
        request.headers.set("Range", "bytes=\(offset)-")
        if let validator = target.resumeValidator() { request.headers.set("If-Range", validator) }
    }
}
