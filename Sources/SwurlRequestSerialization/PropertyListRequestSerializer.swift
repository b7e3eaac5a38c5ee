import SwurlCore
/// `--plist`: the tree as an Apple property list, XML 1.0 (the default) or binary (`bplist00`).
package struct PropertyListRequestSerializer: RequestSerializing {
    /// The media type of what it writes, also for a raw body in this mode (`--raw`, stdin).
    package static let mediaType = "application/x-plist"
    package var contentType: String { Self.mediaType }
    package let binary: Bool

    package init(binary: Bool) { self.binary = binary }

    package func serialize(tree: JSONValue?, parameters: RequestParameters, into request: inout HTTPRequest) throws(SwurlError) {
        if let file = parameters.files.first {
            throw .usage("'\(file.label)' is a file field, which a property list cannot carry",
                         hint: "use --multipart to upload files")
        }
        guard let tree else { return }
        request.body = RequestBody(bytes: binary ? try PropertyListWriter.binary(tree) : try PropertyListWriter.xml(tree))
    }
}
