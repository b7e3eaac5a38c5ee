import SwurlCore
/// Which parts of the exchange to print: `--print` letters H B h b.
package struct PrintSelection: Equatable, Sendable {
    package var requestHeaders = false
    package var requestBody = false
    package var responseHeaders = false
    package var responseBody = false
    /// `m`: the timing breakdown, sizes and remote address after the response.
    package var meta = false

    package init(requestHeaders: Bool = false, requestBody: Bool = false,
                responseHeaders: Bool = false, responseBody: Bool = false, meta: Bool = false) {
        self.requestHeaders = requestHeaders
        self.requestBody = requestBody
        self.responseHeaders = responseHeaders
        self.responseBody = responseBody
        self.meta = meta
    }

    /// Parses `--print` letters.
    /// - Throws: `SwurlError.usage` naming an unknown letter.
    package init(letters: String) throws(SwurlError) {
        guard !letters.isEmpty else {
            throw .usage("--print needs at least one of the letters H, B, h, b, m")
        }
        for c in letters {
            switch c {
            case "H": requestHeaders = true
            case "B": requestBody = true
            case "h": responseHeaders = true
            case "b": responseBody = true
            case "m": meta = true
            default:
                throw .usage("unknown letter '\(c)' in --print=\(letters)",
                             hint: "use H (request headers), B (request body), h (response headers), b (response body), m (meta)")
            }
        }
    }

    /// Whether anything of the request is printed.
    package var printsRequest: Bool { requestHeaders || requestBody }
}
