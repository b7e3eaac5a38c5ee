import SwurlCore
/// What the serializers write: the data fields and file parts in the order they were given.
/// The command line (or any other front end) builds this; serializers never see its syntax.
package struct RequestParameters {
    /// One data field: a (possibly nested) key, its value, and the text it came from.
    package struct Field: Sendable, Equatable {
        /// The key as typed, nesting included (`user[name]`, `tags[]`); `NestedKeyParser` reads it.
        package var key: String
        package var value: JSONValue
        /// How the user wrote it, for error messages (`user[name]=Ann`).
        package var label: String

        package init(key: String, value: JSONValue, label: String) {
            self.key = key
            self.value = value
            self.label = label
        }
    }

    /// One file part of a multipart body, already opened or measured by the front end.
    package struct FilePart {
        /// Where the part's bytes come from.
        package enum Source {
            /// A regular file of a known size, read while sending.
            case file(path: String, size: Int64)
            /// A stream of unknown length (stdin): the body becomes chunked.
            case stream(ByteSource, label: String)
            /// Stdin read ahead as a request body is (`name@-`): the bytes read, then the rest
            /// streamed; whole, or from a regular file, it has a length and can be sent again.
            case readAhead(RequestBody)
            /// A regular file whose size says nothing of its bytes (a file of /proc or /sys),
            /// read whole when the body was built.
            case held(path: String, bytes: [UInt8])
        }

        /// The field name (`name` of Content-Disposition).
        package var name: String
        /// The `filename` of Content-Disposition.
        package var filename: String
        /// The part's Content-Type.
        package var contentType: String
        package var source: Source
        /// How the user wrote it, for error messages.
        package var label: String

        package init(name: String, filename: String, contentType: String, source: Source, label: String) {
            self.name = name
            self.filename = filename
            self.contentType = contentType
            self.source = source
            self.label = label
        }
    }

    /// A field or a file part, in the order given.
    package enum Entry {
        case field(Field)
        case file(FilePart)
    }

    package var entries: [Entry]

    package init(_ entries: [Entry] = []) { self.entries = entries }

    /// The data fields, in order.
    package var fields: [Field] {
        entries.compactMap { if case .field(let f) = $0 { return f } else { return nil } }
    }

    /// The file parts, in order.
    package var files: [FilePart] {
        entries.compactMap { if case .file(let f) = $0 { return f } else { return nil } }
    }
}
