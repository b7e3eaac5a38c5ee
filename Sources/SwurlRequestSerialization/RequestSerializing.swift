import SwurlCore
/// Writes the parameter tree (and file fields) into a request: body, Content-Type, or query.
package protocol RequestSerializing {
    /// The Content-Type of the body it writes (multipart: with its boundary).
    var contentType: String { get }

    /// - Parameters:
    ///   - tree: the data items' tree, or nil when only file fields (or nothing) were given.
    ///   - parameters: the fields and file parts in the order given.
    ///   - request: the request to fill in; its method and URL are already set.
    /// - Throws: `SwurlError.badData` when a value cannot be encoded, `.usage` when the
    ///   combination makes no sense for this serializer.
    func serialize(tree: JSONValue?, parameters: RequestParameters, into request: inout HTTPRequest) throws(SwurlError)
}

extension HTTPRequest {
    /// Sets a header unless the user set or removed it with an item.
    mutating func setDefaultHeader(_ name: String, _ value: String, userHeaders: Set<String>) {
        guard !userHeaders.contains(name.lowercased()) else { return }
        headers.set(name, value)
    }
}
