/// `--json` (the default): the tree as compact JSON, keys in the order given.
public struct JSONRequestSerializer: RequestSerializing {
    public init() {}

    public func serialize(tree: JSONValue?, items: [RequestItem], into request: inout HTTPRequest) throws(SwurlError) {
        if let file = items.first(where: { if case .file = $0.kind { return true } else { return false } }) {
            throw .usage("'\(file.raw)' is a file field, which JSON cannot carry",
                         hint: "use --form or --multipart to upload files, or name:=@file to embed a JSON file")
        }
        guard let tree else { return }
        var out: [UInt8] = []
        tree.write(to: &out)
        request.body = RequestBody(bytes: out)
    }
}
