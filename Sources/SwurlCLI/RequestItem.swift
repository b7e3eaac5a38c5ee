#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlOutput
import SwurlRequestSerialization
import SwurlCore
/// One request item from the command line, HTTPie's grammar.
package struct RequestItem: Equatable, Sendable {
    /// What the item adds to the request.
    package enum Kind: Equatable, Sendable {
        /// `Name:value` or `Name:@file`.
        case header(name: String, value: String)
        /// `Name:` removes the header, libcurl's defaults included.
        case removeHeader(name: String)
        /// `Name;` sends the header with an empty value.
        case emptyHeader(name: String)
        /// `name==value` or `name==@file`: a query-string parameter.
        case query(name: String, value: String)
        /// `key=value` or `key=@file`: a string field; `key` may nest (`a[b]`, `a[]`).
        case field(key: String, value: JSONValue)
        /// `name@path`, `name@path;type=MIME;filename=NAME`: a file field (multipart).
        case file(key: String, path: String, mimeType: String?, filename: String?)
    }

    /// The item exactly as typed, for error messages.
    package var raw: String
    package var kind: Kind

    package init(raw: String, kind: Kind) {
        self.raw = raw
        self.kind = kind
    }

    /// Whether the item reads stdin (`@-` as the whole body, `name@-` as a file field), or a
    /// name of it (`@/dev/stdin`, `a=@/dev/fd/0`): the "stdin is not sent" warning was given
    /// for a body that did send it.
    package var readsStdin: Bool {
        if case .file(_, let path, _, _) = kind { return path == "-" || RequestItem.namesStdin(path) }
        return RequestItemParser.readsAtParse(raw).map(RequestItem.namesStdin) ?? false
    }

    /// Whether a path is the process's stdin, however spelt (`/dev/stdin`, `/dev/./stdin`, a
    /// symlink to it): by name, or when stdin is a pipe, a socket or a terminal, the same one
    /// (reading it by path would take what stdin holds, or the lines typed next; a regular
    /// file's or another device's path opens anew). `-` is stdin only where the grammar says
    /// so (`@-`, `name@-`; `a=@-` reads a file `-`).
    static func namesStdin(_ path: String) -> Bool {
        if ["/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"].contains(path) { return true }
        var named = stat(), zero = stat()
        guard !path.isEmpty, path != "-", fstat(0, &zero) == 0 else { return false }
        let type = zero.st_mode & S_IFMT
        guard type == S_IFIFO || type == S_IFSOCK || (type == S_IFCHR && isatty(0) == 1),
              stat(ArgumentBytes.path(path), &named) == 0 else { return false }
        return named.st_dev == zero.st_dev && named.st_ino == zero.st_ino
    }

    /// Whether the item contributes to the body (fields and files).
    package var isData: Bool {
        switch kind {
        case .field, .file: return true
        default: return false
        }
    }
}

/// The separators of the request-item grammar, longest first within each leading character.
enum ItemSeparator: String, CaseIterable {
    case jsonFile = ":=@"
    case headerFile = ":@"
    case json = ":="
    case header = ":"
    case queryFile = "==@"
    case query = "=="
    case fieldFile = "=@"
    case field = "="
    case file = "@"
    case emptyHeader = ";"

    /// Characters that can start a separator; a backslash before one makes it literal.
    /// Unicode scalars, not Characters: a separator followed by a combining mark is still one.
    static let leadCharacters: Set<Unicode.Scalar> = [":", "=", "@", ";"]
}

extension RequestItem {
    /// The item as a serializer's data field, or nil when it is not a `key=value`/`key:=json` field.
    package var parameterField: RequestParameters.Field? {
        guard case .field(let key, let value) = kind else { return nil }
        return .init(key: key, value: value, label: raw)
    }
}
