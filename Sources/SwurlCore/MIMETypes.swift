/// The bundled extension → MIME type table used for file fields and `@file` bodies.
package enum MIMETypes {
    /// The default for unknown extensions.
    package static let fallback = "application/octet-stream"

    package static let table: [String: String] = [
        // text
        "txt": "text/plain", "text": "text/plain", "log": "text/plain", "conf": "text/plain", "ini": "text/plain",
        "md": "text/markdown", "markdown": "text/markdown", "csv": "text/csv", "tsv": "text/tab-separated-values",
        "html": "text/html", "htm": "text/html", "css": "text/css", "js": "text/javascript", "mjs": "text/javascript",
        "xml": "application/xml", "xsl": "application/xml", "xsd": "application/xml", "rtf": "application/rtf",
        "ics": "text/calendar", "vcf": "text/vcard", "vtt": "text/vtt", "srt": "application/x-subrip",
        "yaml": "application/yaml", "yml": "application/yaml", "toml": "application/toml",
        "sh": "application/x-sh", "py": "text/x-python", "c": "text/x-c", "h": "text/x-c", "swift": "text/x-swift",
        "java": "text/x-java-source", "rs": "text/x-rust", "go": "text/x-go", "sql": "application/sql",
        // data
        "json": "application/json", "jsonld": "application/ld+json", "geojson": "application/geo+json",
        "ndjson": "application/x-ndjson", "jsonl": "application/jsonl", "map": "application/json",
        "plist": "application/x-plist", "bplist": "application/x-plist", "strings": "text/plain",
        "wasm": "application/wasm", "bin": "application/octet-stream", "dat": "application/octet-stream",
        "pdf": "application/pdf", "ps": "application/postscript", "eps": "application/postscript",
        "atom": "application/atom+xml", "rss": "application/rss+xml", "xhtml": "application/xhtml+xml",
        "svg": "image/svg+xml", "svgz": "image/svg+xml", "graphql": "application/graphql",
        "proto": "text/plain", "pb": "application/x-protobuf", "msgpack": "application/msgpack",
        // certificates and keys
        "cer": "application/x-x509-ca-cert", "crt": "application/x-x509-ca-cert", "der": "application/x-x509-ca-cert",
        "pem": "application/x-pem-file", "p12": "application/x-pkcs12", "pfx": "application/x-pkcs12",
        "p7b": "application/x-pkcs7-certificates", "p7c": "application/pkcs7-mime", "csr": "application/pkcs10",
        "key": "application/x-pem-file", "pub": "text/plain", "asc": "application/pgp-signature",
        "sig": "application/pgp-signature", "gpg": "application/pgp-encrypted",
        // archives
        "zip": "application/zip", "gz": "application/gzip", "tgz": "application/gzip", "tar": "application/x-tar",
        "bz2": "application/x-bzip2", "xz": "application/x-xz", "zst": "application/zstd", "7z": "application/x-7z-compressed",
        "rar": "application/vnd.rar", "jar": "application/java-archive", "deb": "application/vnd.debian.binary-package",
        "rpm": "application/x-rpm", "dmg": "application/x-apple-diskimage", "iso": "application/x-iso9660-image",
        "apk": "application/vnd.android.package-archive", "ipa": "application/octet-stream",
        // office
        "doc": "application/msword", "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xls": "application/vnd.ms-excel", "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "ppt": "application/vnd.ms-powerpoint", "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "odt": "application/vnd.oasis.opendocument.text", "ods": "application/vnd.oasis.opendocument.spreadsheet",
        "odp": "application/vnd.oasis.opendocument.presentation", "epub": "application/epub+zip",
        // images
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "jpe": "image/jpeg", "gif": "image/gif",
        "webp": "image/webp", "bmp": "image/bmp", "ico": "image/vnd.microsoft.icon", "tif": "image/tiff", "tiff": "image/tiff",
        "heic": "image/heic", "heif": "image/heif", "avif": "image/avif", "jxl": "image/jxl", "psd": "image/vnd.adobe.photoshop",
        // audio and video
        "mp3": "audio/mpeg", "wav": "audio/wav", "ogg": "audio/ogg", "oga": "audio/ogg", "opus": "audio/opus",
        "flac": "audio/flac", "aac": "audio/aac", "m4a": "audio/mp4", "mid": "audio/midi", "midi": "audio/midi",
        "weba": "audio/webm", "mp4": "video/mp4", "m4v": "video/mp4", "mov": "video/quicktime", "webm": "video/webm",
        "mkv": "video/x-matroska", "avi": "video/x-msvideo", "mpeg": "video/mpeg", "mpg": "video/mpeg",
        "ogv": "video/ogg", "3gp": "video/3gpp", "ts": "video/mp2t",
        // fonts
        "woff": "font/woff", "woff2": "font/woff2", "ttf": "font/ttf", "otf": "font/otf", "eot": "application/vnd.ms-fontobject",
    ]

    /// The MIME type for a path's extension (case-insensitive), or `application/octet-stream`.
    package static func type(forPath path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return fallback }
        return table[name[name.index(after: dot)...].lowercased()] ?? fallback
    }
}
