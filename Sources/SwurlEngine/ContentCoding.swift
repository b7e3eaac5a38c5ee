#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlCurl
import SwurlCore

/// Which content codings a request asks for, and whether libcurl decodes the body: swurl's one
/// home for `Accept-Encoding`. The request builder adds the header a request is built with
/// (`addHeader`, so `--offline`, `-v` and `--curl` show it); the transfer's options carry the
/// coding, which `Exchange` applies to every attempt (`adapt`) and `Transfer` turns into
/// CURLOPT_ACCEPT_ENCODING (`libcurlDecodes`).
package enum ContentCoding: Sendable, Equatable {
    /// The body as it is meant to be read: ask for every coding libcurl can decode and let
    /// libcurl decode it. Requests, `-o`, batch lines and the REPL.
    case decoded
    /// The bytes as the server stores them: `Accept-Encoding: identity`, nothing decoded. A
    /// download, whose byte ranges (`--continue`) refer to those bytes.
    case asStored

    /// The header's name.
    package static let header = "Accept-Encoding"

    /// The codings libcurl decodes when asked for all of them (CURLOPT_ACCEPT_ENCODING ""), in
    /// the order libcurl sends them; empty for a libcurl built without any.
    package static var decodable: String { CurlVersion.acceptEncoding }

    /// `decodable` as the loaded libcurl itself reports it (loads libcurl); what a transfer
    /// checks a response's codings against.
    package static var decodedByLoadedLibcurl: String { CurlVersion.loadedCodings }

    /// Keeps what libcurl decodes in `directory` (the cache's), so that a request the cache
    /// answers need not load libcurl to build its `Accept-Encoding`; before the first request.
    package static func remember(in directory: String) {
        // Only in a directory that is there and that no one else could write (as the cache
        // itself checks before its first entry): nothing is written where the cache is refused.
        var st = stat()
        guard CurlVersion.memoDirectory == nil, stat(ArgumentBytes.path(directory), &st) == 0,
              FileTrust.doubt(directory) == nil else { return }
        CurlVersion.memoDirectory = directory
    }

    /// The `Accept-Encoding` value this coding asks for, or nil for none.
    package var requestValue: String? {
        switch self {
        case .decoded: return ContentCoding.decodable.isEmpty ? nil : ContentCoding.decodable
        case .asStored: return "identity"
        }
    }

    /// Whether libcurl decodes the body (CURLOPT_ACCEPT_ENCODING): when it does, the body
    /// swurl receives is the decoded one, and any Content-Encoding header describes the bytes
    /// that were on the wire.
    package var libcurlDecodes: Bool { self == .decoded }

    /// Adds the header a request is built with; a header item the user gives replaces it.
    package func addHeader(to request: inout HTTPRequest) {
        if let value = requestValue { request.headers.add(ContentCoding.header, value) }
    }

    /// Adapts an attempt's request just before it is sent. A request for the stored bytes asks
    /// for `identity` whatever the built request asked for (a Content-Encoding would make byte
    /// ranges meaningless), unless the user removed the header. A decoded request goes as built.
    package func adapt(_ request: inout HTTPRequest) {
        guard self == .asStored, let value = requestValue, !request.isRemoved(ContentCoding.header) else { return }
        request.headers.set(ContentCoding.header, value)
    }
}
