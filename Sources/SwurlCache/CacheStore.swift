#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlCore
import SwurlSecurity

/// The cache directory: one file per entry (`CacheEntry` describes the format), written by the
/// one atomic writer (`AtomicFile`: a temporary file beside it, renamed into place), so a
/// reader in another process sees a whole entry or none. The directory is 0700 and the
/// entries 0600. Least-recently-used eviction goes by each entry's access time, which a hit
/// sets explicitly (so `noatime` mounts do not matter); the size bound is checked after each
/// store.
package final class CacheStore {
    package let directory: String
    /// The most bytes the entries may take together (`--cache-max`).
    package let maxSize: Int64
    /// Why an entry `clear`, `prune` or eviction meant to remove is still there (the errno of
    /// the first unlink(2) that failed; one already gone counts as removed by another run).
    package private(set) var removalFailure: Int32?

    /// Removes the entry file `name`; false (the errno kept in `removalFailure`) when it stays.
    private func removeEntry(_ name: String) -> Bool {
        if unlink(ArgumentBytes.path(path(name))) == 0 { return true }
        if errno != ENOENT, removalFailure == nil { removalFailure = errno }
        return false
    }

    /// Opens (creating with mode 0700, unless `create` is false: a missing directory is then an
    /// empty cache, made by nothing) the directory.
    /// - Throws: `SwurlError.output` when it is a file, `.badData` when another user
    ///   could change it (the responses it holds would be served as if from the server).
    package init(directory: String, maxSize: Int64, create: Bool = true) throws(SwurlError) {
        self.directory = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        self.maxSize = maxSize
        var st = stat()
        if !create && stat(ArgumentBytes.path(self.directory), &st) != 0 {
            // Missing: an empty cache. Out of reach (a directory on the way at mode 000, a file
            // where a directory should be): empty too, and `unavailable` says why (`cache list`,
            // `clear` and `prune` cannot do their work, and must not say they did).
            if errno != ENOENT { unavailable = "cannot use the cache directory '\(TerminalSanitizer.clean(self.directory))': \(systemErrorMessage(errno))" }
            return
        }
        // Nothing is made where another user could replace it (the check below would refuse it then).
        if stat(ArgumentBytes.path(self.directory), &st) != 0 { try FileTrust.checkPlace(self.directory, what: "the cache directory") }
        // A directory that cannot be made (a read-only or full file system, no permission) is
        // an empty cache that stores nothing, as one that cannot be written is: an optional
        // cache (`--cache` in the config file) never stops the request.
        if let failure = try CacheStore.makeDirectory(self.directory) {
            unavailable = failure
            return
        }
        try FileTrust.check(self.directory, what: "the cache directory")
    }

    /// Why the directory could not be made or reached (nil: it is there, or missing and not to
    /// be made); nothing is stored or found then.
    package private(set) var unavailable: String?

    /// Makes the directory and its parents; returns why it could not be made.
    /// - Throws: `SwurlError.output` when the path is a file, not a directory.
    private static func makeDirectory(_ path: String) throws(SwurlError) -> String? {
        var st = stat()
        let existed = stat(ArgumentBytes.path(path), &st) == 0
        // Parents as mkdir -p would make them (0700 too: ~/.cache should not be open either).
        if let failure = PrivateDirectory.make(path) {
            if failure == ENOTDIR && existed { throw .output("the cache directory '\(TerminalSanitizer.clean(path))' is not a directory") }
            return "cannot create the cache directory '\(TerminalSanitizer.clean(path))': \(systemErrorMessage(failure))"
        }
        if !existed { chmod(ArgumentBytes.path(path), 0o700) }
        return nil
    }


    func path(_ name: String) -> String { directory + "/" + name }

    /// O_NOATIME (Linux's 01000000, which Glibc's module does not export): listing must not
    /// make every entry look just used.
    static let noAtime: Int32 = 0o1000000

    // MARK: - Reading

    /// An entry opened for reading: its head, and the body on an open descriptor (a rename or an
    /// eviction by another process does not change what it reads).
    package final class Opened {
        package let entry: CacheEntry
        package let bodyLength: Int64
        package let path: String
        let fd: Int32
        init(entry: CacheEntry, bodyLength: Int64, path: String, fd: Int32) {
            self.entry = entry
            self.bodyLength = bodyLength
            self.path = path
            self.fd = fd
        }
        deinit { close(fd) }

        /// Reads the body in chunks of up to 1 MiB and hands each to `chunk`.
        /// - Throws: what `chunk` throws; `SwurlError.output` when the file reads short.
        package func streamBody(_ chunk: (UnsafeRawBufferPointer) throws -> Void) throws {
            var offset: Int64 = 0
            let size = Int(min(bodyLength, 1 << 20))
            guard size > 0 else { return }
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
            defer { buffer.deallocate() }
            while offset < bodyLength {
                let want = Int(min(Int64(size), bodyLength - offset))
                let n = pread(fd, buffer.baseAddress, want, off_t(offset))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw SwurlError.output("the cache entry '\(path)' ended early") }
                try chunk(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
                offset += Int64(n)
            }
        }

        /// Offers the body to `receiver` as a file range; false when it wants the bytes.
        package func offerBody(to receiver: FileBodyReceiving) throws -> Bool {
            try receiver.transferDidReceiveBody(fromFile: fd, offset: 0, count: bodyLength, source: "the cache entry '\(path)'")
        }

        /// Copies the body to `fd` (for an entry rewritten after a 304), in the kernel where it can.
        func copyBody(to out: Int32) throws(SwurlError) {
            try copyAll(from: fd, offset: 0, count: bodyLength, to: out, source: "the cache entry '\(path)'", describing: "the cache entry")
        }
    }

    /// The entry stored under `key`, or nil. An unreadable, truncated, corrupt or other-version
    /// file is removed (and so replaced by the next response), never served.
    package func open(_ key: CacheKey) -> Opened? { open(name: key.fileName) }

    func open(name: String) -> Opened? {
        let p = path(name)
        let fd = Glibc.open(ArgumentBytes.path(p), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        guard let (entry, bodyLength) = CacheStore.read(fd) else {
            close(fd)
            unlink(ArgumentBytes.path(p))
            return nil
        }
        return Opened(entry: entry, bodyLength: bodyLength, path: p, fd: fd)
    }

    /// The head and body length of the entry file on `fd`; nil when it is no valid entry.
    static func read(_ fd: Int32) -> (CacheEntry, Int64)? {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        return withHead(fd, st) { head, body in CacheEntry.decode(head: head).map { ($0, body) } }
    }

    /// Hands the head text of the entry file on `fd` (whose `fstat` is `st`) and its body
    /// length to `use`; nil when it is no valid entry: not a regular file, one another user owns
    /// or others can write (swurl makes them 0600: such a file was changed by someone else, and
    /// its body has no digest), a size that is not body + head + footer, a footer of another
    /// version, a head that does not match its digest. One `pread` of the file's last 4 KiB takes the footer and, for most entries,
    /// the head before it, into a buffer on the stack (`swurl cache list` reads 10,000).
    static func withHead<R>(_ fd: Int32, _ st: stat, _ use: (UnsafeBufferPointer<UInt8>, Int64) -> R?) -> R? {
        guard st.st_mode & S_IFMT == S_IFREG, st.st_uid == geteuid(), st.st_mode & (S_IWGRP | S_IWOTH) == 0,
              Int(st.st_size) >= CacheEntry.footerSize else { return nil }
        let size = Int64(st.st_size)
        let tailCount = Int(min(size, Int64(tailSize)))
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: tailSize) { buffer -> R? in
            let tail = UnsafeMutableBufferPointer(rebasing: buffer[0..<tailCount])
            guard readExactly(fd, into: UnsafeMutableRawBufferPointer(tail), at: size - Int64(tailCount)) else { return nil }
            return withHead(fd, tail: UnsafeBufferPointer(tail), size: size, use)
        }
    }

    /// How much of an entry's end one `pread` takes: the footer and most heads.
    private static let tailSize = 4096

    /// `withHead` once the file's size and its last bytes (`tail`, all of them or at least
    /// the footer) are known.
    private static func withHead<R>(_ fd: Int32, tail: UnsafeBufferPointer<UInt8>, size: Int64,
                                    _ use: (UnsafeBufferPointer<UInt8>, Int64) -> R?) -> R? {
        guard tail.count >= CacheEntry.footerSize else { return nil }
        let headEnd = tail.count - CacheEntry.footerSize
        let footerBytes = UnsafeBufferPointer(rebasing: tail[headEnd...])
        guard let footer = CacheEntry.parseFooter(bytes: footerBytes),
              footer.body + Int64(footer.head) + Int64(CacheEntry.footerSize) == size else { return nil }
        func checked(_ head: UnsafeBufferPointer<UInt8>) -> R? {
            guard CacheEntry.digestMatches(head, footer: footerBytes, at: footer.digest) else { return nil }
            return use(head, footer.body)
        }
        if footer.head <= headEnd { return checked(UnsafeBufferPointer(rebasing: tail[(headEnd - footer.head)..<headEnd])) }
        var head = [UInt8](repeating: 0, count: footer.head)
        guard head.withUnsafeMutableBytes({ readExactly(fd, into: $0, at: footer.body) }) else { return nil }
        return head.withUnsafeBufferPointer { checked($0) }
    }

    private static func readExactly(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Bool {
        guard let base = buffer.baseAddress else { return true }
        var done = 0
        while done < buffer.count {
            let n = pread(fd, base + done, buffer.count - done, off_t(offset) + off_t(done))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            done += n
        }
        return true
    }

    /// Marks the entry as just used (its access time), for LRU eviction.
    package func touch(_ opened: Opened) {
        var times = [timespec(tv_sec: 0, tv_nsec: (1 << 30) - 1), timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2)]
        futimens(opened.fd, &times)
    }

    // MARK: - Writing

    /// An entry being written: the body as it streams, then the head and footer, then the
    /// rename. Dropped without `commit`, it leaves nothing behind.
    package final class Writer {
        private let file: AtomicFile
        private let store: CacheStore
        package internal(set) var bodyLength: Int64 = 0
        init(file: AtomicFile, store: CacheStore) {
            self.file = file
            self.store = store
        }

        /// - Throws: `SwurlError.output` when the file cannot be written, or when the body
        ///   grows past `--cache-max` (no entry could stay: a decompression bomb would otherwise
        ///   fill the disk before eviction ran).
        package func write(_ bytes: UnsafeRawBufferPointer) throws(SwurlError) {
            guard bodyLength + Int64(bytes.count) <= store.maxSize else { throw tooLarge }
            try file.write(bytes, describing: "the cache entry")
            bodyLength += Int64(bytes.count)
        }

        private var tooLarge: SwurlError { .output("the response is larger than --cache-max (\(store.maxSize) bytes)") }

        /// Appends the head and footer and renames the entry into place; then evicts what
        /// `maxSize` does not allow. An entry larger than `maxSize` itself is not stored (the
        /// eviction would take it at once, after it was said to be stored).
        package func commit(_ entry: CacheEntry) throws(SwurlError) {
            let head = entry.encodedHead()
            let footer = CacheEntry.footer(bodyLength: bodyLength, head: head)
            guard bodyLength + Int64(head.count + footer.count) <= store.maxSize else {
                file.discard()
                throw tooLarge
            }
            try writeAll(file.descriptor, [head, footer], describing: "the cache entry")
            try file.commit()
            store.noteStored(bodyLength + Int64(head.count + footer.count))
        }

        package func discard() { file.discard() }

        var descriptor: Int32 { file.descriptor }
    }

    /// Starts an entry for `key` (mode 0600).
    package func writer(for key: CacheKey) throws(SwurlError) -> Writer {
        Writer(file: try AtomicFile(replacing: path(key.fileName), mode: 0o600), store: self)
    }

    /// Stores `opened`'s body again under a new head (after a 304 updated it).
    package func rewrite(_ opened: Opened, as entry: CacheEntry, key: CacheKey) throws(SwurlError) {
        let w = try writer(for: key)
        try opened.copyBody(to: w.descriptor)
        // The Writer counts what went through `write`; the copy went straight to the file.
        w.bodyLength += opened.bodyLength
        try w.commit(entry)
    }

    // MARK: - Listing, removing, evicting

    /// Removes the entry `opened` was read from.
    package func remove(_ opened: Opened) { unlink(ArgumentBytes.path(opened.path)) }

    /// One stored entry as `swurl cache list` shows it.
    package struct Listing: Sendable {
        package let name: String
        package let summary: CacheEntry.Summary
        package let bodyLength: Int64
        /// The file's size on disk.
        package let size: Int64
        /// The last use (access time), seconds since the epoch; nil unless `list` was asked for it.
        package let lastUsed: Double?
    }

    /// The names of the entry files.
    func names() -> [String] {
        var out: [String] = []
        forEachEntryName { name, _ in out.append(String(cString: name)) }
        return out
    }

    /// Hands the name of each entry file (65 bytes; temporary files, which start with '.', are
    /// left out) to `visit`, as `readdir` gives it, with a descriptor of the directory.
    private func forEachEntryName(_ visit: (UnsafePointer<CChar>, _ directory: Int32) -> Void) {
        guard let dir = opendir(ArgumentBytes.path(directory)) else { return }
        defer { closedir(dir) }
        let dfd = dirfd(dir)
        while let e = readdir(dir) {
            withUnsafeBytes(of: &e.pointee.d_name) { raw in
                guard let base = raw.baseAddress else { return }
                let name = base.assumingMemoryBound(to: CChar.self)
                if name[0] != 0x2E && strnlen(name, raw.count) == 65 { visit(name, dfd) }
            }
        }
    }

    /// Every name in the directory.
    private func directoryNames() -> [String] {
        guard let dir = opendir(ArgumentBytes.path(directory)) else { return [] }
        defer { closedir(dir) }
        var out: [String] = []
        while let e = readdir(dir) {
            out.append(withUnsafeBytes(of: e.pointee.d_name) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) })
        }
        return out
    }

    /// Every valid entry, summarised (`CacheEntry.Summary`); invalid files are removed as
    /// `open` would remove them. Each file is opened relative to the directory (`openat`) by
    /// the name `readdir` gave, and read by an `fstat` (its owner and mode judged as serving
    /// one judges them: a listed entry is one a request may be answered from) and a `pread` of
    /// its end (`withHead`): four system calls per entry.
    /// - Parameter lastUsed: fill `Listing.lastUsed`; default true.
    package func list(lastUsed: Bool = true) -> [Listing] {
        var out: [Listing] = []
        forEachEntryName { name, dfd in
            let flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK
            var fd = openat(dfd, name, flags | CacheStore.noAtime)
            if fd < 0 { fd = openat(dfd, name, flags) }
            guard fd >= 0 else { return }
            defer { close(fd) }
            let summarise = { (head: UnsafeBufferPointer<UInt8>, body: Int64) in CacheEntry.summary(head: head).map { ($0, body) } }
            var st = stat()
            guard fstat(fd, &st) == 0, let (summary, body) = CacheStore.withHead(fd, st, summarise) else {
                unlinkat(dfd, name, 0)
                return
            }
            out.append(Listing(name: String(cString: name), summary: summary, bodyLength: body, size: Int64(st.st_size),
                               lastUsed: lastUsed ? Double(st.st_atim.tv_sec) + Double(st.st_atim.tv_nsec) / 1e9 : nil))
        }
        return out
    }

    /// Removes every entry of `url` (every identity's): RFC 9111 §4.4 invalidation.
    package func removeAll(forURL url: String) {
        let prefix = CacheKey.prefix(forURL: url)
        for name in names() where name.hasPrefix(prefix) { unlink(ArgumentBytes.path(path(name))) }
    }

    /// The user name and password of `url`'s authority (`u:p` of `http://u:p@h/x`), if any.
    static func userinfo(_ url: String) -> Substring? {
        guard let scheme = url.rangeOfText("://") else { return nil }
        let authority = url[scheme.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard let at = authority.lastIndex(of: "@") else { return nil }
        return authority[..<at]
    }

    /// `url` without the user name and password of its authority (`http://u:p@h/x` → `http://h/x`).
    static func withoutUserinfo(_ url: String) -> String {
        guard let info = userinfo(url) else { return url }
        return String(url[..<info.startIndex]) + String(url[url.index(after: info.endIndex)...])
    }

    /// `url` without the password of its authority (`http://u:p@h/x` → `http://u@h/x`).
    static func withoutPassword(_ url: String) -> String {
        guard let info = userinfo(url), let colon = info.firstIndex(of: ":") else { return url }
        return String(url[..<colon]) + String(url[info.endIndex...])
    }

    /// Removes the entries whose URL starts with `urlPrefix` (all with nil); returns how many.
    @discardableResult
    package func clear(urlPrefix: String? = nil) -> Int {
        var n = 0
        if let urlPrefix {
            // Entries keep their URL's password masked: so is a prefix that has one. A prefix
            // without a user name matches the entries with any (`http://h/` clears
            // `http://ann:****@h/x`, and `ann` names a host, not that user); one with a user
            // name but no password matches that user's entries, whatever their password.
            let prefix = Redactor.url(urlPrefix)
            let form: (String) -> String
            switch CacheStore.userinfo(prefix) {
            case nil: form = CacheStore.withoutUserinfo
            case let info? where !info.contains(":"): form = CacheStore.withoutPassword
            default: form = { $0 }
            }
            for l in list() where form(l.summary.url).hasPrefix(prefix) {
                if removeEntry(l.name) { n += 1 }
            }
        } else {
            for name in names() where removeEntry(name) { n += 1 }
        }
        return n
    }

    /// The bytes this process believes each directory holds: measured by a full scan the first
    /// time the process stores into it (and whenever the sum passes the bound), then grown by
    /// what it stores itself, so a batch of 10,000 stores scans the directory once, not 10,000
    /// times. Other processes' entries are counted at the next scan; the bound is a bound on
    /// what eviction leaves, checked once per process at least. The engine runs its exchanges
    /// on one thread (the multi handle's loop), which is the only one that stores.
    nonisolated(unsafe) private static var knownSize: [String: Int64] = [:]

    /// After an entry of `bytes` went into place: evicts when the directory may be over the bound.
    func noteStored(_ bytes: Int64) {
        if let known = CacheStore.knownSize[directory], known + bytes <= maxSize {
            CacheStore.knownSize[directory] = known + bytes
            return
        }
        CacheStore.knownSize[directory] = evictMeasuring(limit: maxSize).remaining
    }

    /// Removes least-recently-used entries until the rest fit in `limit` (default `maxSize`);
    /// returns how many went. Sizes and access times come from `stat` only.
    @discardableResult
    package func evict(limit: Int64? = nil) -> Int { evictMeasuring(limit: limit ?? maxSize).removed }

    private func evictMeasuring(limit: Int64) -> (removed: Int, remaining: Int64) {
        var files: [(name: String, size: Int64, used: Double)] = []
        var total: Int64 = 0
        for name in names() {
            var st = stat()
            guard stat(ArgumentBytes.path(path(name)), &st) == 0 else { continue }
            files.append((name, Int64(st.st_size), Double(st.st_atim.tv_sec) + Double(st.st_atim.tv_nsec) / 1e9))
            total += Int64(st.st_size)
        }
        guard total > limit else { return (0, total) }
        files.sort { $0.used < $1.used }
        var n = 0
        for f in files where total > limit {
            if removeEntry(f.name) { n += 1 }
            total -= f.size
        }
        return (n, total)
    }

    /// `swurl cache prune`: removes entries that are stale, or `no-cache`, and have no validator
    /// (they can never be used again without a full fetch), then evicts down to `maxSize`, and removes
    /// temporary files left by a writer that died more than an hour ago. Returns how many went.
    package func prune(now: Double) -> Int {
        var n = 0
        for l in list() {
            let s = l.summary
            let lifetime = CacheRules.freshnessLifetime(s.freshness, responseTime: s.responseTime)
            let age = CacheRules.currentAge(s.freshness, requestTime: s.requestTime, responseTime: s.responseTime, now: now)
            // A `no-cache` one is validated before every use, fresh or not (and `--stale-ok` and
            // `--cache-only` never serve it): without a validator it is never used.
            if (age >= lifetime || s.freshness.cacheControl.has("no-cache")) && !s.hasValidator {
                if removeEntry(l.name) { n += 1 }
            }
        }
        for name in directoryNames() where name.hasPrefix(".") && name.containsText(".swurl-") {
            var st = stat()
            if stat(ArgumentBytes.path(path(name)), &st) == 0, Double(st.st_mtim.tv_sec) < now - 3600 {
                unlink(ArgumentBytes.path(path(name)))
            }
        }
        return n + evict()
    }
}
