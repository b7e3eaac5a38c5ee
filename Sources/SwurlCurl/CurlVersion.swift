import SwurlCore
#if canImport(Glibc)
@preconcurrency import Glibc
#endif
@preconcurrency import CCurl
@preconcurrency import CShims

/// Versions and features of the libraries swurl runs on (curl_version_info(3)).
package enum CurlVersion {
    private static var info: UnsafeMutablePointer<curl_version_info_data>? {
        CurlLibrary.isAvailable ? sw_curl_version_info() : nil
    }

    /// libcurl's version, e.g. `7.88.1`.
    package static var libcurl: String {
        info.flatMap { $0.pointee.version.map { String(cString: $0) } } ?? "not loaded"
    }

    /// `swurl --version`'s line: `libcurl 7.88.1 (OpenSSL/3.0.19)`, or why it could not be loaded.
    package static var line: String {
        guard info != nil else { return "libcurl not loaded: \(CurlLibrary.loadError ?? "unknown reason")" }
        return "libcurl \(libcurl) (\(ssl))"
    }

    /// The TLS library libcurl uses, e.g. `OpenSSL/3.0.19`.
    package static var ssl: String {
        info.flatMap { $0.pointee.ssl_version.map { String(cString: $0) } } ?? "none"
    }

    /// The OpenSSL swurl links, e.g. `OpenSSL 3.0.19 27 Jan 2026`.
    package static var openSSL: String {
        sw_openssl_version().map { String(cString: $0) } ?? "unknown"
    }

    private static func has(_ feature: Int32) -> Bool {
        guard let i = info else { return false }
        return (i.pointee.features & feature) != 0
    }

    /// Whether this libcurl speaks HTTP/2.
    package static let hasHTTP2: Bool = has(CURL_VERSION_HTTP2)

    /// The Accept-Encoding libcurl sends when asked for every encoding it can decode
    /// (CURLOPT_ACCEPT_ENCODING ""), in libcurl's order.
    ///
    /// Every request is built with it, so a cache hit would load libcurl (~30 libraries, the
    /// larger part of a hit's time) only to learn it: with the cache on, the answer is kept in
    /// `CodingsMemo` and libcurl is loaded only when the memo does not describe the libcurl file
    /// that would be loaded.
    package static let acceptEncoding: String = {
        if let known = CodingsMemo.read() {
            CodingsMemo.used = known
            return known
        }
        let value = loadedCodings
        CodingsMemo.write(value)
        return value
    }()

    /// The codings the loaded libcurl decodes, asked of it (loads libcurl), in its order; a
    /// memo that no longer says the same is rewritten.
    package static let loadedCodings: String = {
        var names: [String] = []
        if has(CURL_VERSION_LIBZ) { names += ["deflate", "gzip"] }
        if has(CURL_VERSION_BROTLI) { names.append("br") }
        if has(CURL_VERSION_ZSTD) { names.append("zstd") }
        let value = names.joined(separator: ", ")
        if let used = CodingsMemo.used, used != value { CodingsMemo.write(value) }
        return value
    }()

    /// The directory of `CodingsMemo`'s file (the cache directory, when the cache is on); set
    /// before the first request is built, as the cache settings are known.
    package nonisolated(unsafe) static var memoDirectory: String?
}

/// What `CurlVersion.acceptEncoding` found, in the hidden file `.libcurl-codings` of the cache
/// directory (0600, replaced atomically): the libcurl file it was read from (path, device, inode,
/// modification time, size), the loader's cache and `LD_LIBRARY_PATH`, which decide which file dlopen opens. A
/// memo is used only while all of them still hold; an upgraded libcurl is a new file, so it is
/// loaded once and the memo rewritten.
enum CodingsMemo {
    private static let name = ".libcurl-codings"
    private static let magic = "swurl libcurl codings 1"

    /// The file's identity as the memo records it, nil when it cannot be read.
    /// The loader's cache (`ldconfig` rewrites it when libraries come or go) is part of it: a
    /// libcurl installed elsewhere changes which file dlopen opens without changing the old one.
    private static func identity(of path: String) -> String? {
        var st = stat(), cache = stat()
        guard stat(path, &st) == 0 else { return nil }
        if stat("/etc/ld.so.cache", &cache) != 0 { cache = stat() }
        let libraryPath = getenv("LD_LIBRARY_PATH").map { String(cString: $0) } ?? ""
        return "\(libraryPath)\n\(path)\n\(st.st_dev) \(st.st_ino) \(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec) \(st.st_size)"
            + " \(cache.st_ino) \(cache.st_mtim.tv_sec).\(cache.st_mtim.tv_nsec) \(cache.st_size)"
    }

    /// The codings this process took from the memo, if it did (`loadedCodings` compares them).
    nonisolated(unsafe) static var used: String?

    /// The memo's codings, when it describes the libcurl that would be loaded now. Read and
    /// compared as bytes: generic splitting and joining cost a hit more than the rest of it.
    static func read() -> String? {
        guard let directory = CurlVersion.memoDirectory else { return nil }
        let fd = open(directory + "/" + name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard count > 0, count < bytes.count else { return nil }
        // The offsets of the newlines: magic, LD_LIBRARY_PATH, path, stat fields, codings.
        var ends: [Int] = []
        for i in 0 ..< count where bytes[i] == 0x0A { ends.append(i) }
        guard ends.count == 5, ends[4] == count - 1,
              bytes[0 ..< ends[0]].elementsEqual(magic.utf8) else { return nil }
        let path = String(decoding: bytes[ends[1] + 1 ..< ends[2]], as: UTF8.self)
        guard let now = identity(of: path), bytes[ends[0] + 1 ..< ends[3]].elementsEqual(now.utf8) else { return nil }
        return String(decoding: bytes[ends[3] + 1 ..< ends[4]], as: UTF8.self)
    }

    /// Records `codings` for the libcurl this process loaded; a failure only costs the next hit
    /// a load of libcurl.
    static func write(_ codings: String) {
        guard let directory = CurlVersion.memoDirectory, CurlLibrary.isLoaded,
              let path = sw_curl_path().map({ String(cString: $0) }), path.hasPrefix("/"),
              let id = identity(of: path),
              let file = try? AtomicFile(replacing: directory + "/" + name, mode: 0o600) else { return }
        let text = "\(magic)\n\(id)\n\(codings)\n"
        var written = true
        text.utf8CString.withUnsafeBytes { raw in
            do { try file.write(UnsafeRawBufferPointer(rebasing: raw.dropLast()), describing: name) } catch { written = false }
        }
        if written, (try? file.commit()) != nil { return }
        file.discard()
    }
}
