import SwurlCore
/// `--json` (the default): the tree as compact JSON, keys in the order given.
package struct JSONRequestSerializer: RequestSerializing {
    /// The media type of what it writes, also for a raw body in this mode (`--raw`, stdin).
    package static let mediaType = "application/json"
    package var contentType: String { Self.mediaType }
    package init() {}

    package func serialize(tree: JSONValue?, parameters: RequestParameters, into request: inout HTTPRequest) throws(SwurlError) {
        if let file = parameters.files.first {
            throw .usage("'\(file.label)' is a file field, which JSON cannot carry",
                         hint: "use --form or --multipart to upload files, or name:=@file to embed a JSON file")
        }
        guard let tree else { return }
        var out: [UInt8] = []
        tree.write(to: &out)
        request.body = RequestBody(bytes: out)
    }
}
