import SwurlCore
/// `--json` (the default): the tree as compact JSON, keys in the order given.
public struct JSONRequestSerializer: RequestSerializing {
    /// The media type of what it writes, also for a raw body in this mode (`--raw`, stdin).
    public static let mediaType = "application/json"
    public var contentType: String { Self.mediaType }
    public init() {}

    public func serialize(tree: JSONValue?, parameters: RequestParameters, into request: inout HTTPRequest) throws(SwurlError) {
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
