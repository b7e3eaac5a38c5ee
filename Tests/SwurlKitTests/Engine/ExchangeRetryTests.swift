import XCTest
import SwurlTestSupport
@testable import SwurlEngine
@testable import SwurlRequestSerialization
@testable import SwurlCore

/// The session reports retries as events and prints nothing itself.
final class ExchangeRetryTests: XCTestCase {
    private final class Collector: TransferDelegate {
        var body: [UInt8] = []
        func transferDidSendRequestHead(_ bytes: [UInt8]) throws {}
        func transferDidSendRequestBody(_ bytes: UnsafeRawBufferPointer) throws {}
        func transferDidReceiveHead(_ head: HTTPResponseHead) throws {}
        func transferDidReceiveBody(_ bytes: UnsafeRawBufferPointer) throws { body += Array(bytes) }
    }

    /// The observer role: what the session told it.
    private final class Notices: TransferObserving {
        var list: [RetryNotice] = []
        func transferWillRetry(_ notice: RetryNotice) { list.append(notice) }
    }

    func testARetryableStatusIsReportedAsANotice() throws {
        let server = try ScriptedServer()
        var options = TransferOptions()
        options.retry.maxRetries = 3
        let collector = Collector()
        let session = try Exchange(request: HTTPRequest(method: "GET", url: server.url("/flaky?key=n&fails=2&ra=0")),
                                          options: options) { collector }
        let observer = Notices()
        session.observer = observer
        let result = try session.perform()
        let notices = observer.list
        XCTAssertEqual(result.head?.status, 200)
        XCTAssertEqual(collector.body, Array("ok".utf8))
        XCTAssertEqual(notices, [
            RetryNotice(cause: .status(503, reason: "Service Unavailable"), delay: 0, retry: 1, maxRetries: 3),
            RetryNotice(cause: .status(503, reason: "Service Unavailable"), delay: 0, retry: 2, maxRetries: 3),
        ])
        XCTAssertEqual(result.timing.retries, 2)
    }

    func testATransportFailureIsReportedWithItsError() throws {
        let port = try ServerProcess.refusedPort()
        var options = TransferOptions()
        options.retry.maxRetries = 1
        options.retry.baseDelay = 0.02
        let session = try Exchange(request: HTTPRequest(method: "GET", url: "http://127.0.0.1:\(port)/"),
                                          options: options) { Collector() }
        let observer = Notices()
        session.observer = observer
        XCTAssertThrowsError(try session.perform()) { error in
            let notices = observer.list
            guard case SwurlError.transport(let message, let hint) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(hint, "is the server running and listening on that port?")
            XCTAssertEqual(notices.count, 1)
            // The notice is the first attempt's failure, the error the second's: the same but for
            // libcurl's "after N ms".
            func withoutElapsed(_ text: String) -> String {
                text.split(separator: " ").map { $0.allSatisfy(\.isNumber) ? "N" : String($0) }.joined(separator: " ")
            }
            guard case .failure(.transport(let first, let firstHint))? = notices.first?.cause else {
                return XCTFail("\(String(describing: notices.first))")
            }
            XCTAssertEqual(withoutElapsed(first), withoutElapsed(message))
            XCTAssertTrue(message.contains("Failed to connect to 127.0.0.1 port \(port) after "), message)
            XCTAssertEqual(firstHint, hint)
            XCTAssertEqual(notices.first?.retry, 1)
        }
    }
}
