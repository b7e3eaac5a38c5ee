import SwurlCore
/// Validation before decoding (AFHTTPResponseSerializer): acceptable status codes and
/// acceptable content types. A rejected status still shows the body (the error is usually
/// described there); a rejected content type does not decode it.
package struct ResponseValidator: Sendable {
    /// `--accept-status`: the acceptable codes; nil means any.
    package var acceptableStatus: [ClosedRange<Int>]?
    /// `--check-status`: 3xx, 4xx and 5xx fail.
    package var checkStatus = false
    /// `--accept-type`: acceptable media types (`text/*` and `*/*` allowed); nil means any.
    package var acceptableTypes: [String]?

    package init(acceptableStatus: [ClosedRange<Int>]? = nil, checkStatus: Bool = false, acceptableTypes: [String]? = nil) {
        self.acceptableStatus = acceptableStatus
        self.checkStatus = checkStatus
        self.acceptableTypes = acceptableTypes
    }

    /// Whether a status code passes: inside `--accept-status` when given, else anything but
    /// 3xx, 4xx and 5xx under `--check-status`, else any code.
    package func accepts(status code: Int) -> Bool {
        if let ranges = acceptableStatus { return ranges.contains { $0.contains(code) } }
        return !checkStatus || ExitStatus(httpStatus: code) == nil
    }

    /// The exit status for a status code that fails validation (by `ExitStatus`'s one rule), or
    /// nil when it passes.
    package func statusFailure(_ code: Int) -> ExitStatus? {
        accepts(status: code) ? nil : ExitStatus(rejectedHTTPStatus: code)
    }

    /// Whether a response with this media type may be decoded. With `--accept-type` a missing
    /// Content-Type is not acceptable (AFNetworking), unless the body turns out empty.
    package func acceptsContentType(_ mediaType: String?) -> Bool {
        guard let patterns = acceptableTypes else { return true }
        guard let type = mediaType?.lowercased(), !type.isEmpty else { return false }
        return patterns.contains { ResponseValidator.matches(type, pattern: $0) }
    }

    /// `*/*`, `text/*` or an exact type; `+json`-style suffixes match `application/*+json`.
    static func matches(_ type: String, pattern: String) -> Bool {
        if pattern == "*/*" || pattern == "*" { return true }
        if pattern.hasSuffix("/*") { return type.hasPrefix(pattern.dropLast(1)) }
        if pattern.hasPrefix("*/*+") || pattern.containsText("/*+") {
            guard let plus = pattern.lastIndex(of: "+"), let slash = pattern.firstIndex(of: "/") else { return false }
            let major = pattern[..<slash]
            return type.hasSuffix(pattern[plus...]) && (major == "*" || type.hasPrefix(major + "/"))
        }
        return type == pattern
    }

    /// Parses `200-299,304`.
    /// - Throws: `SwurlError.usage` quoting the bad part.
    package static func parseStatusList(_ text: String) throws(SwurlError) -> [ClosedRange<Int>] {
        var ranges: [ClosedRange<Int>] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let p = String(part).trimmingSpaces()
            let bounds = p.split(separator: "-", omittingEmptySubsequences: false).map { Int(String($0).trimmingSpaces()) }
            guard (bounds.count == 1 || bounds.count == 2), let lo = bounds.first ?? nil, let hi = bounds.last ?? nil,
                  (100...999).contains(lo), (100...999).contains(hi), lo <= hi else {
                throw .usage("--accept-status: '\(p)' is not a status code or range", hint: "e.g. --accept-status 200-299,304")
            }
            ranges.append(lo...hi)
        }
        return ranges
    }

    /// Parses `application/json,text/*`.
    /// - Throws: `SwurlError.usage` quoting the bad part.
    package static func parseTypeList(_ text: String) throws(SwurlError) -> [String] {
        try text.split(separator: ",", omittingEmptySubsequences: false).map { part throws(SwurlError) in
            let t = String(part).trimmingSpaces().lowercased()
            // A type is compared without its parameters: one with a parameter never matched.
            if let semicolon = t.firstIndex(of: ";") {
                throw .usage("--accept-type: '\(t)' has a parameter; types are compared without them",
                             hint: "give --accept-type \(String(t[..<semicolon]).trimmingSpaces())")
            }
            guard t == "*" || (t.containsText("/") && !t.hasPrefix("/") && !t.hasSuffix("/") && !t.containsText(" ")) else {
                throw .usage("--accept-type: '\(t)' is not a media type", hint: "e.g. --accept-type application/json,text/*")
            }
            return t
        }
    }
}
