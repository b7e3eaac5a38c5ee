#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlCore

/// `--download`: receives the final response and writes its body to `NAME.part`, renamed to
/// NAME only when the transfer completed, so a failure never leaves a truncated file that looks
/// finished. Resumes a `.part` file with a Range request (`--continue`, and after a cut during
/// `--retry`), checks the server's Content-Range, and starts over when the server ignores it.
/// `--continue -o FILE` without `FILE.part` appends to FILE in place; FILE is never moved or
/// truncated before the server sent a usable answer, so a failed request leaves it as it was.
/// Only the body of a response that is being saved reaches the file: an error page, a 416 or a
/// redirect after an earlier attempt never lands in it.
package final class DownloadFile: ResumableTransferDelegate, FileBodyReceiving {
    /// What the user asked for.
    package struct Plan {
        /// `-o FILE`, resolved; nil means a name from the response.
        package var outputPath: String?
        /// Where derived names are created.
        package var directory: String
        /// The URL the user typed; its last segment is the fallback name.
        package var initialURL: String
        /// `--overwrite`: replace an existing file instead of choosing a `-1` suffix.
        package var overwrite = false
        /// `--continue`: resume an existing `.part` (or `-o`) file.
        package var resume = false
        /// Files other outputs of the run write (`--har`): a derived name never takes one.
        package var reserved: [String] = []

        /// A plan from the command line's values.
        package init(outputPath: String?, directory: String, initialURL: String, overwrite: Bool = false, resume: Bool = false) {
            self.outputPath = outputPath
            self.directory = directory
            self.initialURL = initialURL
            self.overwrite = overwrite
            self.resume = resume
        }
    }

    /// Whether a derived name is another output's of this run.
    private func isReserved(_ name: String) -> Bool { plan.reserved.contains { OutputTarget.sameFile($0, name) } }

    /// Whether a derived name cannot be taken: a file is there, or another output will be.
    private func isTaken(_ name: String) -> Bool { DownloadFile.exists(name) || isReserved(name) }

    private let plan: Plan
    /// Shows response heads (to stderr), when the user asked for them.
    private let headDelegate: TransferDelegate?
    /// The file the body ends up in, once known.
    package private(set) var path: String?
    /// The name the response gave (no -o), before a -N suffix: where another free name is looked for.
    private var derivedBase: String?
    private var fd: Int32 = -1
    /// Another run was writing the `.part` file, so this one never touched it (and keeps none).
    package private(set) var partHeldElsewhere = false
    /// Bytes in the `.part` file before the current attempt.
    private var offset: Int64 = 0
    /// Bytes of the body written so far (including `offset`).
    package private(set) var written: Int64 = 0
    /// The full size when known (Content-Length, or the total of a Content-Range).
    package private(set) var expectedSize: Int64?
    /// One past the last byte the 206 being saved announced (its Content-Range's end): a byte
    /// more would land where the file's later bytes belong.
    private var rangeLimit: Int64?
    /// Whether a final response head arrived (a session is saved after a failure only then).
    package private(set) var sawResponse = false
    /// The final response head, when it was an error status (nothing is written then).
    package private(set) var failedHead: HTTPResponseHead?
    /// A note for stderr (e.g. the server ignored the range).
    package var notice: ((String) -> Void)?
    /// Why a 416 refused the resumed range, when the server named its size and the file on disk
    /// is larger: it is no partial copy of this URL.
    package var rangeRefusal: String? {
        guard let head = failedHead, head.status == 416, offset > 0,
              let total = ContentRange.unsatisfiedTotal(head.headers["Content-Range"]), total < offset else { return nil }
        return "the file on disk (\(counted(Int(offset), "byte"))) is larger than the server's (\(counted(Int(total), "byte"))): it is no partial copy of this URL"
    }

    /// Whether a 416 showed that the `.part` file is already complete.
    private var alreadyComplete = false
    private var committed = false
    /// `-o` names something other than a regular file (`/dev/null`, a FIFO, `/dev/stdout`, also
    /// through a symbolic link): written in place, never renamed over.
    private var direct = false
    /// `--continue -o FILE` without `FILE.part`: the range is appended to FILE itself. Cleared
    /// when the server ignores the range (the new copy then grows in `FILE.part`).
    private var inPlace = false
    /// Whether the body of the current response goes to the file (set only for a response
    /// that is saved, so error pages and the like are dropped).
    private var saving = false
    /// Whether this run opened the file (bytes on disk from an earlier attempt count then).
    private var opened = false
    /// Bytes already on disk when the run began (a resumed `.part` or FILE), which `discard`
    /// leaves as they were.
    private var startOffset: Int64 = 0
    /// `-o FILE` named a file that was there when the download began (replaced with
    /// `--overwrite`, or by `--continue` finishing FILE.part): any other `-o` file is new, and
    /// one that appears meanwhile is not replaced.
    private var replacesExisting = false
    /// The validator of the response the bytes on disk came from (`resumeValidator`): from this
    /// run's response, or from the `.part` a `--continue` resumes (kept in its extended
    /// attribute `user.swurl.validator`; a file system without them resumes without If-Range,
    /// as curl -C - does).
    private var validator: String?
    static let validatorAttribute = "user.swurl.validator"
    /// What else the bytes on disk came from (`Origin`), kept with the `.part` as the validator is.
    private var origin: Origin?
    static let originAttribute = "user.swurl.origin"
    /// The attributes a `.part` carries for `--continue`, which the saved file does not.
    static let partAttributes = [validatorAttribute, urlAttribute, originAttribute]
    /// The URL (its password masked) a `.part` was downloaded from, so that `--continue` without
    /// `-o` resumes no other resource's `.part` of a similar name.
    static let urlAttribute = "user.swurl.url"
    /// What `urlAttribute` holds for `url`: its password and a user name given alone (often a
    /// token) masked, so that `cp -a` or `tar --xattrs` of a `.part` carries no secret.
    static func urlMarker(_ url: String) -> [UInt8] { Array(Redactor.url(url, userAlone: true).utf8) }
    /// Sees the saved response's head and body, for the verdict (`ResponseVerdict`) that decides
    /// whether the file is committed.
    package var judge: ResponseJudge?

    /// Decides what can be decided before the request: with `-o`, or with `--continue` and an
    /// existing `.part`, the name and resume offset.
    /// - Throws: `SwurlError.usage` when `-o FILE` exists and neither `--overwrite` nor
    ///   `--continue` was given.
    package init(plan: Plan, headDelegate: TransferDelegate?) throws(SwurlError) {
        self.plan = plan
        self.headDelegate = headDelegate
        if let given = plan.outputPath {
            // `-o sub/` when sub is not there, or no directory: said so (the message named a
            // file `sub/.part`).
            if given.hasSuffix("/"), !DownloadFile.isDirectory(given) {
                let dir = OutputTarget.directory(of: given)
                throw .output("cannot write '\(given)': " + (DownloadFile.exists(dir) ? "'\(AtomicFile.shown(dir))' is not a directory"
                                                                                        : "the directory '\(AtomicFile.shown(dir))' does not exist"))
            }
            // A symbolic link is followed to its target (`OutputTarget`): the `.part` file grows
            // beside the target and replaces it; the link itself is never replaced.
            let out: String
            switch try OutputTarget.resolve(given) {
            case .directory:
                // An output error (1), as `-o DIR` without -d and `--har DIR` are.
                throw .output("cannot write '\(given)': it is a directory; give -o a file name in it: -o \(given.hasSuffix("/") ? given : given + "/")NAME")
            case .direct:
                out = given
                direct = true
                // A download keeps a server's bytes as sent: on a terminal its escape sequences
                // would act (retitle it, write the clipboard). Refused before the request.
                if DownloadFile.isTerminal(given) {
                    throw .usage("-d saves the body as sent, and '\(TerminalSanitizer.clean(ArgumentBytes.shown(given)))' is a terminal, where a server's escape sequences would act",
                                 hint: "leave out -d to see the body there (its control characters made visible), or give -o a file")
                }
            case .file(let target):
                out = target
            }
            path = out
            replacesExisting = DownloadFile.exists(out)
            if direct {
                guard !plan.resume else { throw .usage("cannot resume into '\(given)': it is not a regular file") }
            } else if plan.resume {
                // Resume FILE.part, or FILE itself in place (a symbolic link or directory is
                // never resumed into).
                if DownloadFile.exists(out) && DownloadFile.size(of: out) == nil {
                    throw .usage("cannot resume into '\(out)': it is not a regular file")
                }
                if let partSize = DownloadFile.size(of: out + ".part") {
                    offset = partSize
                    validator = DownloadFile.storedValidator(out + ".part")
                    origin = Origin(stored: out + ".part")
                } else if let size = DownloadFile.size(of: out) {
                    inPlace = true
                    offset = size
                    // FILE itself grows: one that cannot be written is refused before the
                    // request goes (it failed after, and the hint said to resume it).
                    if access(ArgumentBytes.path(out), W_OK) != 0 {
                        throw .output("cannot resume into '\(out)': \(systemErrorMessage(errno))")
                    }
                }
            } else if DownloadFile.exists(out) && !plan.overwrite {
                throw .usage("'\(given)' already exists", hint: "use --overwrite to replace it or --continue to resume it")
            }
            if !direct && !inPlace {
                // Checked before the request goes out: a POST's effect must not be lost to a
                // directory the .part file cannot be written in (resuming in place needs none).
                let dir = OutputTarget.directory(of: out)
                if access(ArgumentBytes.path(dir), W_OK | X_OK) != 0 {
                    // `-d -o nodir/x`: the directory is what is missing, as -o says it.
                    if errno == ENOENT {
                        throw .output("cannot write '\(out).part': the directory '\(AtomicFile.shown(dir))' does not exist")
                    }
                    throw .output("cannot write '\(out).part': \(systemErrorMessage(errno))")
                }
                // NAME.part is 5 bytes longer than NAME: past the file system's longest name it
                // could not be made, and that showed only once the request had gone.
                let partName = ArgumentBytes.path(OutputTarget.name(of: out) + ".part").count - 1
                let longest = pathconf(ArgumentBytes.path(dir), Int32(_PC_NAME_MAX))
                if longest > 0, partName > longest {
                    throw .usage("-o '\(given)': its download file ('NAME.part', \(partName) bytes) would be longer than the file system allows (\(longest))",
                                 hint: "give -d a shorter -o name")
                }
                // Nor to a rename the sticky bit forbids (another user's file, or `.part`, in /tmp:
                // the bytes would go into their `.part` and the rename fail at the end).
                if let refusal = DownloadFile.replaceRefusal(out) { throw refusal }
            }
        } else if plan.resume, let found = DownloadFile.findPart(in: plan.directory, for: plan.initialURL) {
            // Its marker (an extended attribute) anyone may set: another user's `.part` in /tmp
            // would take the bytes, and its rename fail at the end.
            if let refusal = DownloadFile.replaceRefusal(found) { throw refusal }
            path = found
            offset = DownloadFile.size(of: found + ".part") ?? 0
            validator = DownloadFile.storedValidator(found + ".part")
            origin = Origin(stored: found + ".part")
        } else if access(ArgumentBytes.path(plan.directory), W_OK | X_OK) != 0 {
            // The name comes with the response, the directory is known now: as for -o, a POST's
            // effect is not lost to a directory no file can be written in.
            throw .output("cannot write a download into '\(TerminalSanitizer.clean(ArgumentBytes.shown(plan.directory)))': "
                          + "\(systemErrorMessage(errno)) (run it where you can write files, or give -o PATH)")
        } else if DownloadFile.wasDeleted(plan.directory) {
            // A shell left in a directory another removed: access(2) still allows it, and
            // creating the `.part` fails only after the request went.
            throw .output("cannot write a download into '\(TerminalSanitizer.clean(ArgumentBytes.shown(plan.directory)))': the directory was deleted (run it where you can write files, or give -o PATH)")
        }
        written = offset
        startOffset = offset
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Whether a directory is one that was removed while still open or the working directory
    /// (no name links to it any more).
    static func wasDeleted(_ directory: String) -> Bool {
        var st = stat()
        return stat(ArgumentBytes.path(directory), &st) == 0 && st.st_nlink == 0
    }

    /// Whether `path` (a device, `/dev/stdout`) is a terminal, by its device number, without
    /// opening it (a FIFO's reader would see the end of its stream at the close, a tape drive
    /// rewind): a character device of the terminal majors (3: old-style pseudo-terminals, 4:
    /// virtual consoles and serial lines, 5: /dev/tty and the console, 136–143: pseudo-terminals,
    /// 166 and 188: USB serial lines, 204: low-density serial ports).
    static func isTerminal(_ path: String) -> Bool {
        var st = stat()
        guard stat(ArgumentBytes.path(path), &st) == 0, st.st_mode & S_IFMT == S_IFCHR else { return false }
        let dev = UInt64(st.st_rdev)
        let major = ((dev >> 8) & 0xFFF) | ((dev >> 32) & ~UInt64(0xFFF))
        return [3, 4, 5, 166, 188, 204].contains(major) || (136...143).contains(major)
    }

    /// The `.part` file of the chosen name (nil when writing to a device or pipe).
    package var partPath: String? { direct ? nil : path.map { $0 + ".part" } }

    /// Where the bytes are written while they arrive.
    private var writePath: String? { direct || inPlace ? path : partPath }

    /// Whether the server's answer to the resume cannot be used (a range that is not the file's
    /// next bytes): resuming again would fail the same way, so no hint says to (its error says
    /// to delete the `.part` instead).
    package private(set) var resumeRefused = false

    /// Where a partial download stays after a failure, for `--continue` (nil for a device or pipe).
    package var keptPath: String? { direct || startOverRefused ? nil : writePath }
    /// Whether starting over (a server that ignored the range) was refused: the file in place is
    /// another user's, which no `.part` may replace, so there is nothing of ours to resume.
    private var startOverRefused = false

    /// Whether a 416 said the file on disk is already the whole download.
    package var isWhole: Bool { alreadyComplete }

    /// The bytes to resume from before an attempt (`ResumeAdapter` asks): after a cut, what is
    /// on disk now.
    package func resumeOffset() -> Int64 {
        if opened { offset = written }
        return offset
    }

    package func resumeValidator() -> String? { validator }

    /// A response's validator for If-Range (RFC 9110 §13.1.5): a strong ETag; else, without any
    /// ETag, a Last-Modified that is strong (§8.8.2.2: at least a second before the response's
    /// Date, so that the file could not change again within its second). A client must not
    /// send a date beside an entity tag, nor a weak date: nil then, and the resume is checked
    /// against the `Origin` alone.
    static func validator(of head: HTTPResponseHead) -> String? {
        if let etag = head.headers["ETag"]?.trimmingSpaces() {
            return etag.hasPrefix("\"") && etag.count > 1 ? etag : nil
        }
        guard let modified = head.headers["Last-Modified"]?.trimmingSpaces(), let date = head.headers["Date"],
              let modifiedAt = HTTPDate.parse(modified, now: 0), let dated = HTTPDate.parse(date, now: 0),
              dated - modifiedAt >= 1 else { return nil }
        return modified
    }

    /// What the bytes on disk came from, beside the validator: the response's ETag as sent (a
    /// weak one too: two that differ are two versions), its Last-Modified, its Content-Encoding
    /// (empty for none: the file holds the bytes as sent) and the whole file's size when the
    /// response said it. Kept with the `.part` (`user.swurl.origin`, a line each), so that a
    /// range resumed later, in this run or another, is checked against the response its first
    /// bytes came from: a range of another version, another coding or another size is refused,
    /// never joined to them. The ETag and date are kept in `Origin.form` (any byte, any length),
    /// and compared in that form.
    struct Origin: Equatable {
        var etag: String?
        var lastModified: String?
        var coding: String
        var size: Int64?

        init(_ head: HTTPResponseHead, size: Int64?) {
            etag = head.headers["ETag"].map { Origin.form($0.trimmingSpaces()) }
            lastModified = head.headers["Last-Modified"].map { Origin.form($0.trimmingSpaces()) }
            coding = Origin.form(Origin.coding(of: head))
            self.size = size
        }

        /// The one kept with `path`, nil when none (an older swurl's `.part`, or a file system
        /// that keeps no attributes).
        init?(stored path: String) {
            guard let bytes = ExtendedAttribute.get(path, DownloadFile.originAttribute),
                  bytes.allSatisfy({ ($0 > 0x20 && $0 < 0x7F) || $0 == 0x0A }) else { return nil }
            let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            guard lines.count == 4 else { return nil }
            etag = lines[0].isEmpty ? nil : lines[0]
            lastModified = lines[1].isEmpty ? nil : lines[1]
            coding = lines[2]
            size = Int64(lines[3])
        }

        /// Its lines, for the attribute (printable ASCII without blanks: `form` sees to it).
        var stored: [UInt8] {
            Array([etag ?? "", lastModified ?? "", coding, size.map(String.init) ?? ""].joined(separator: "\n").utf8)
        }

        /// How a value is kept and compared: percent-encoded (every byte but the printable ASCII
        /// other than `%`: a tab, a byte past 0x7F in an ETag kept the whole origin from being
        /// written), or past 200 bytes, its length and FNV-1a hash (`%%` then; a long ETag did
        /// not fit the 1 KiB the attribute is read in). A server that sends another version
        /// changes the value, which is what this tells; it is no defence against a server that
        /// lies, which could send any bytes under the same ETag.
        static func form(_ value: String) -> String {
            let bytes = Array(value.utf8)
            if bytes.count > 200 {
                return "%%\(bytes.count):" + String(bytes.withUnsafeBufferPointer(FNV1a.hash), radix: 16)
            }
            var out = ""
            for b in bytes {
                if b > 0x20 && b < 0x7F && b != UInt8(ascii: "%") {
                    out.unicodeScalars.append(Unicode.Scalar(b))
                } else {
                    out += "%" + (b < 16 ? "0" : "") + String(b, radix: 16, uppercase: true)
                }
            }
            return out
        }

        /// A kept value as a message shows it: decoded, or for a long one its length.
        static func shown(_ kept: String) -> String {
            if kept.hasPrefix("%%") { return "one of \(kept.dropFirst(2).prefix { $0 != ":" }) bytes" }
            return TerminalSanitizer.excerpt(String(decoding: URLText.percentDecodedBytes(kept), as: UTF8.self))
        }

        /// A head's codings as one text (`gzip`, `gzip, br`; empty for none or identity).
        static func coding(of head: HTTPResponseHead) -> String {
            HTTPHeaders.codings(head.headers.combined("Content-Encoding") ?? "").joined(separator: ", ")
        }
    }

    /// Whether `head` (a 206's range, a 416 naming the size on disk) names another version than
    /// the bytes on disk came from: judged by the ETag they came with (a weak one too: two that
    /// differ are two versions), else by their Last-Modified; an older swurl's `.part` by its
    /// validator. The field judged by, what `head` says in it (nil: nothing), and the kept
    /// value as shown; nil when it is the same version, or nothing was kept to tell.
    private func otherVersion(of head: HTTPResponseHead) -> (field: String, theirs: String?, kept: String)? {
        let keptTag = origin.map { $0.etag } ?? (validator?.hasPrefix("\"") == true ? validator : nil)
        let keptDate = origin.map { $0.lastModified } ?? (validator?.hasPrefix("\"") == false ? validator : nil)
        guard let kept = keptTag ?? keptDate else { return nil }
        let field = keptTag != nil ? "ETag" : "Last-Modified"
        let theirs = head.headers[field]?.trimmingSpaces()
        // The origin keeps values in `Origin.form`; an older swurl's validator, as sent.
        let formed = origin == nil ? theirs : theirs.map(Origin.form)
        guard formed != kept else { return nil }
        return (field, theirs, origin == nil ? TerminalSanitizer.excerpt(kept) : Origin.shown(kept))
    }

    /// The validator kept with a `.part`, nil when none (or the file system keeps none).
    static func storedValidator(_ path: String) -> String? {
        guard let bytes = ExtendedAttribute.get(path, validatorAttribute), bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    // MARK: TransferDelegate

    package func transferDidSendRequestHead(_ bytes: [UInt8]) throws {
        try headDelegate?.transferDidSendRequestHead(bytes)
    }

    package func transferDidSendRequestBody(_ bytes: UnsafeRawBufferPointer) throws {
        try headDelegate?.transferDidSendRequestBody(bytes)
    }

    package func transferDidReceiveHead(_ head: HTTPResponseHead) throws {
        try headDelegate?.transferDidReceiveHead(head)
        // An informational head: the final one follows, and nothing changes until then. (A 101
        // is final: its bytes are another protocol's, no file; it fails as any status outside
        // 2xx does unless --accept-status lists it.)
        if head.status < 200 && head.status != 101 { return }
        sawResponse = true
        // Until this head is accepted for saving, its body is dropped.
        stopSaving()
        rangeLimit = nil
        if head.isRedirect && head.status != 304 { return }
        failedHead = nil
        if head.status == 416, let total = ContentRange.completedTotal(head.headers["Content-Range"], offset: offset) {
            // It names the size on disk: the file is complete, if it is the version the bytes
            // on disk are of. A server that ignored If-Range names its current version's size
            // (and validators): a size or validator other than the kept ones is another version,
            // whose first bytes are not the file (refused, as a 206 of it is below).
            if offset > 0 {
                let kept = writePath ?? path ?? ""
                if let earlier = expectedSize ?? origin?.size, earlier != total {
                    resumeRefused = true
                    throw SwurlError.transport("the file changed on the server between attempts: it was \(earlier) bytes, the server now says it is \(total) bytes (416)",
                                               hint: "delete '\(TerminalSanitizer.clean(kept))' to start over")
                }
                // Judged as a 206's range is (`otherVersion`); a 416 that names no validator is
                // taken by its size alone (servers often send none with it).
                if let other = otherVersion(of: head), let theirs = other.theirs {
                    resumeRefused = true
                    throw SwurlError.transport("the server's 416 names another version of the file (\(other.field) \(TerminalSanitizer.excerpt(theirs)), the bytes on disk are of \(other.kept))",
                                               hint: "delete '\(TerminalSanitizer.clean(kept))' to start over")
                }
            }
            alreadyComplete = true
            expectedSize = total
            return
        }
        // An error status is saved only when --accept-status lists it (as the one-shot request
        // prints it), and never over a partial download's bytes; a 304 has no body to save.
        let accepted = head.status != 304 && offset == 0
            && (judge?.validator.acceptableStatus?.contains { $0.contains(head.status) } ?? false)
        // A 204 to a resumed download says nothing about the file: its bytes stay.
        guard ((200..<300).contains(head.status) && !(head.status == 204 && offset > 0)) || accepted else {
            failedHead = head
            return
        }
        if path == nil {
            let name = DownloadName.choose(contentDisposition: head.headers["Content-Disposition"],
                                           initialURL: plan.initialURL, mediaType: head.mediaType)
            let base = plan.directory + "/" + name
            derivedBase = base
            // --overwrite replaces a file, never a directory of that name: that one takes NAME-1.
            path = plan.overwrite && !isReserved(base) && !DownloadFile.isDirectory(base) ? base : DownloadName.unique(base, exists: isTaken)
            // An earlier download's `.part` of that name keeps its bytes, and this one takes the
            // next name: said, with the way to resume that one (the new name was taken silently,
            // and a later -c resumed the new one, the first left for good).
            var st = stat()
            if let chosen = path, chosen != base, !DownloadFile.exists(base), lstat(ArgumentBytes.path(base + ".part"), &st) == 0,
               st.st_mode & S_IFMT == S_IFREG, st.st_uid == geteuid(), st.st_size > 0 {
                notice?("swurl: note: '\(TerminalSanitizer.clean(base)).part' (\(counted(Int(st.st_size), "byte"))) is left by an earlier download, "
                        + "so this one is saved as '\(TerminalSanitizer.clean(chosen))'; -c -o '\(TerminalSanitizer.clean(base))' resumes the earlier one")
            }
            // Before any byte is saved: a rename the sticky bit forbids would fail at the end.
            if let chosen = path, let refusal = DownloadFile.replaceRefusal(chosen) {
                path = nil   // no file of this download's: no resume hint names theirs
                throw refusal
            }
        }
        guard let resumed = writePath else { return }
        // A 204 has no body whatever length it names (RFC 9110 §15.3.5; libcurl reads none); a
        // chunked body's length is the chunks', whatever Content-Length says (RFC 9112 §6.3).
        // (Lengths that disagree never get here: the engine refuses them.)
        let length = head.status == 204 ? 0 : head.contentLength
        var append = false
        // A 206's bytes go where its Content-Range says, so the range must be one the file can
        // take as it comes: the body as stored (no other coding than identity: the download asked
        // for none), as long as the range (Content-Length agreeing), not one byte past its end.
        // Two Content-Range fields name no one range.
        let ranges = head.headers.values("Content-Range")
        let range = head.status == 206 && ranges.count == 1 ? ContentRange.parse(ranges[0]) : nil
        if let range {
            // Every coding of every field (`identity, gzip` may come as two fields), which must
            // be the coding of the bytes on disk: none for a new file, the first response's for
            // the rest of one (a file stored gzipped and labelled so comes as gzip both times;
            // a gzip body cut and resumed as identity would join two codings).
            let codings = DownloadFile.Origin.coding(of: head)
            let kept = offset > 0 ? origin.map { Origin.shown($0.coding) } ?? "" : ""
            guard codings == kept else {
                resumeRefused = offset > 0
                throw SwurlError.transport(kept.isEmpty
                                           ? "the server sent bytes \(range.start)-\(range.end) encoded (Content-Encoding: \(TerminalSanitizer.excerpt(codings))): they cannot go into the file as they are"
                                           : "the server sent bytes \(range.start)-\(range.end) \(codings.isEmpty ? "without a Content-Encoding" : "encoded as \(TerminalSanitizer.excerpt(codings))"), and the bytes on disk came encoded as \(TerminalSanitizer.excerpt(kept)): the two cannot be joined",
                                           hint: offset > 0 ? "delete '\(TerminalSanitizer.clean(resumed))' to start over" : nil)
            }
            if let length, length != range.end - range.start + 1 {
                resumeRefused = offset > 0
                throw SwurlError.transport("the server's Content-Range (bytes \(range.start)-\(range.end)) does not match its Content-Length (\(length))",
                                           hint: offset > 0 ? "delete '\(TerminalSanitizer.clean(resumed))' to start over" : nil)
            }
            rangeLimit = range.end + 1
        }
        if offset > 0 {
            if let range {
                guard range.start == offset else {
                    resumeRefused = true
                    throw SwurlError.transport("the server resumed at byte \(range.start), not at byte \(offset)",
                                               hint: "delete '\(TerminalSanitizer.clean(resumed))' to start over")
                }
                // A server that ignored If-Range sends the rest of the version it has now: its
                // bytes never go after another version's (RFC 9110 §14.3 combines parts only
                // when their strong validators match). One that names no validator cannot be
                // told from another version (a 206 repeats the 200's ETag, RFC 9110 §15.3.7).
                if let other = otherVersion(of: head) {
                    resumeRefused = true
                    throw SwurlError.transport(other.theirs.map { "the server sent the rest of another version of the file (\(other.field) \(TerminalSanitizer.excerpt($0)), the bytes on disk are of \(other.kept))" }
                                               ?? "the server sent the rest of the file without its \(other.field): the bytes on disk are of \(other.kept), and another version cannot be told apart",
                                               hint: "delete '\(TerminalSanitizer.clean(resumed))' to start over")
                }
                // The size tells versions apart too: a range of a file of another size than the
                // response the bytes on disk came from (this run's attempt before, or the run
                // that left the .part) announced is the rest of another version (curl starts
                // over; swurl keeps the bytes and says so).
                if let earlier = expectedSize ?? origin?.size, let total = range.total, total != earlier {
                    resumeRefused = true
                    throw SwurlError.transport("the file changed on the server between attempts: it was \(earlier) bytes, the rest sent now is of one of \(total) bytes",
                                               hint: "delete '\(TerminalSanitizer.clean(resumed))' to start over")
                }
                append = true
                // Without a total (`/*`), the file ends where this range does.
                expectedSize = range.total ?? range.end + 1
            } else if head.status == 206 {
                // It would answer the same to the same range: no resume hint.
                resumeRefused = true
                throw SwurlError.transport("the server answered 206 without a usable Content-Range",
                                           hint: "delete '\(TerminalSanitizer.clean(resumed))' to start over")
            } else if direct {
                // A device or pipe cannot be truncated: starting over would append a second copy.
                throw SwurlError.transport("the server ignored the range request; '\(TerminalSanitizer.clean(path ?? ""))' is not a regular file, so the download cannot start over")
            } else {
                // Starting over writes FILE.part and renames it over FILE, which the sticky bit may
                // forbid (another user's FILE in /tmp, resumed in place): then nothing is written.
                if inPlace, let chosen = path, let refusal = DownloadFile.replaceRefusal(chosen) {
                    startOverRefused = true
                    throw refusal
                }
                notice?(validator != nil && head.status == 200
                        ? "swurl: the file changed on the server (or it ignored the range request); downloading '\(TerminalSanitizer.clean(path ?? ""))' from the start"
                        : "swurl: the server ignored the range request; downloading '\(TerminalSanitizer.clean(path ?? ""))' from the start")
                expectedSize = length
                // FILE stays as it was; the new copy grows in FILE.part and replaces it when complete.
                inPlace = false
            }
        } else if head.status == 206 {
            // Part of the file to a request for all of it: from its start, the rest can follow
            // with --continue; from anywhere else it is no file's beginning.
            guard let range, range.start == 0 else {
                throw SwurlError.transport(range.map { "the server sent bytes \($0.start)-\($0.end) of the file (206) to a request for all of it" }
                                           ?? "the server answered 206 without a usable Content-Range to a request for the whole file")
            }
            expectedSize = range.total ?? range.end + 1
        } else {
            expectedSize = length
        }
        guard let part = writePath else { return }
        if fd >= 0 && !direct {
            close(fd)
            fd = -1
        }
        // In place: as `-o` opens one (`OutputTarget.openInPlace`: stdout shares its position).
        if direct {
            if fd < 0 { fd = OutputTarget.openInPlace(part, target: part) }
        } else {
            // A `.part` an earlier download left, started over without --continue: said, with the
            // way to keep it (it was cut back to nothing without a word, a large one too).
            // (Said once this run holds it: one another download holds is not cut back.)
            var st = stat()
            let left = !plan.resume && !append && !inPlace && !opened && lstat(ArgumentBytes.path(part), &st) == 0
                && (st.st_mode & S_IFMT) == S_IFREG && st.st_size > 0 ? Int64(st.st_size) : nil
            var chosen = try DownloadFile.openPart(part, append: append, inPlace: inPlace, resumingAt: append ? offset : nil)
            // A name derived from the response (no -o) whose .part another download started a
            // moment ago: the next free name, as if that one's file were already there.
            if chosen == nil, let base = derivedBase, !append, !inPlace, offset == 0 {
                var tried: Set<String> = [path ?? base]
                while chosen == nil, tried.count < 100 {
                    let next = DownloadName.unique(base, exists: { self.isTaken($0) || tried.contains($0) })
                    tried.insert(next)
                    if let opened = try DownloadFile.openPart(next + ".part", append: false) {
                        path = next
                        chosen = opened
                    }
                }
            }
            guard let opened = chosen else {
                partHeldElsewhere = true
                throw DownloadFile.heldElsewhere(writePath ?? part)
            }
            fd = opened
            if let left, writePath == part {
                notice?("swurl: note: '\(TerminalSanitizer.clean(part))' (\(counted(Int(left), "byte"))) left by an earlier download was started over"
                        + (plan.overwrite ? "" : "; --continue (-c) resumes such a file"))
            }
        }
        guard fd >= 0 else {
            throw OutputTarget.openFailure(part)
        }
        opened = true
        saving = true
        judge?.received(head: head)
        if !append {
            offset = 0
            // The bytes a resumed .part had are gone (cut to nothing above), and a start-over
            // from a file resumed in place writes a .part of its own: a verdict against this body
            // removes the file rather than cutting it back to a length it no longer means.
            if !direct && !inPlace { startOffset = 0 }
            // A new body: its own validator and origin, kept with the .part for a later --continue.
            validator = DownloadFile.validator(of: head)
            origin = Origin(head, size: expectedSize)
            if !direct && !inPlace {
                if let v = validator {
                    ExtendedAttribute.set(fd, DownloadFile.validatorAttribute, Array(v.utf8))
                } else {
                    ExtendedAttribute.remove(fd, DownloadFile.validatorAttribute)
                }
                if let o = origin, !ExtendedAttribute.set(fd, DownloadFile.originAttribute, o.stored) {
                    ExtendedAttribute.remove(fd, DownloadFile.originAttribute)
                }
                ExtendedAttribute.set(fd, DownloadFile.urlAttribute, DownloadFile.urlMarker(plan.initialURL))
            }
        }
        written = offset
    }

    /// Drops the body of the current response: the file of an earlier attempt is closed (a
    /// device or pipe stays open, as closing a FIFO would end the reader's stream).
    private func stopSaving() {
        saving = false
        if fd >= 0 && !direct {
            close(fd)
            fd = -1
        }
    }

    package func transferDidReceiveBody(_ bytes: UnsafeRawBufferPointer) throws {
        guard saving, fd >= 0 else { return }
        let fits = Int(fitting(Int64(bytes.count)))
        let kept = UnsafeRawBufferPointer(rebasing: bytes[..<fits])
        judge?.received(body: kept)
        try writeAll(fd, kept, describing: "'\(writePath ?? "")'")
        written += Int64(fits)
        if fits < bytes.count { throw pastRange() }
    }

    package func transferDidReceiveBody(fromFile input: Int32, offset: Int64, count: Int64, source: String) throws -> Bool {
        guard saving, fd >= 0 else { return true }
        guard judge?.needsBodyBytes != true else { return false }
        let fits = fitting(count)
        try copyAll(from: input, offset: offset, count: fits, to: fd, source: source, describing: "'\(writePath ?? "")'")
        judge?.received(bodyCount: fits)
        written += fits
        if fits < count { throw pastRange() }
        return true
    }

    /// Why the download's file or its `.part` (grown, then renamed over it) could not be
    /// replaced at the end (`AtomicFile.replaceRefusal`: the sticky bit), found before the work.
    package static func replaceRefusal(_ target: String) -> SwurlError? {
        AtomicFile.replaceRefusal(target) ?? AtomicFile.replaceRefusal(target + ".part") ?? othersPart(target + ".part")
    }

    /// Another user's `part` in a directory with the sticky bit (/tmp): theirs to read and change
    /// while and after this run would write it; root may open it, and must not (`openPart`
    /// checks the file it opened again).
    static func othersPart(_ part: String, owner: uid_t? = nil) -> SwurlError? {
        var st = stat()
        guard let uid = owner ?? (lstat(ArgumentBytes.path(part), &st) == 0 ? st.st_uid : nil), uid != geteuid(),
              AtomicFile.isSticky(OutputTarget.directory(of: part)) else { return nil }
        return .output("cannot write '\(AtomicFile.shown(part))': it is another user's file in a directory with the sticky bit; remove it or save under another name (-o FILE)")
    }

    /// How many of `count` more bytes lie within the 206's range (all of them for a 200).
    private func fitting(_ count: Int64) -> Int64 {
        guard let limit = rangeLimit else { return count }
        return max(0, min(count, limit - written))
    }

    private func pastRange() -> SwurlError {
        .transport("the server sent more than the range it announced (up to byte \((rangeLimit ?? 1) - 1)); the bytes past it were not saved")
    }

    /// Renames `NAME.part` to NAME after a complete transfer.
    /// - Throws: `SwurlError.transport` when fewer bytes arrived than announced (the `.part`
    ///   file is kept for `--continue`), `.output` when the file cannot be saved.
    package func commit() throws(SwurlError) {
        if direct {
            if fd >= 0 { close(fd) }
            fd = -1
            committed = true
            if let expected = expectedSize, written != expected {
                throw .transport("the download stopped after \(written) of \(expected) bytes")
            }
            return
        }
        guard !committed, let path, let part = writePath else { return }
        var held = fd
        fd = -1
        if held < 0 && !alreadyComplete && !inPlace {
            // No body arrived (an empty file).
            guard let opened = try DownloadFile.openPart(part, append: false) else { throw DownloadFile.heldElsewhere(part) }
            held = opened
        }
        // The written descriptor is closed before the rename, so that a failed close (a quota or
        // I/O error NFS reports only then) stops the save; a duplicate keeps the `.part`'s lock
        // (flock belongs to the open file, shared by both) until the file has its name.
        var lockKeeper: Int32 = -1
        if held >= 0 {
            lockKeeper = fcntl(held, F_DUPFD_CLOEXEC, 0)
            let rc = close(held)
            let e = errno
            held = -1
            guard rc == 0 else {
                if lockKeeper >= 0 { close(lockKeeper) }
                throw .output("saving '\(part)' failed: \(systemErrorMessage(e))")
            }
        }
        defer { if lockKeeper >= 0 { close(lockKeeper) } }
        if let expected = expectedSize, written != expected {
            throw .transport("the download stopped after \(written) of \(expected) bytes",
                             hint: "'\(part)' was kept; resume it with --continue")
        }
        if inPlace {
            // FILE itself grew (or was already complete): there is nothing to rename.
            committed = true
            return
        }
        // The name is renamed, not the open file: a `.part` removed meanwhile (a second run
        // started over under the name) or replaced would give FILE bytes this run never wrote,
        // reported as saved. The bytes written are in a file no name reaches any more.
        if lockKeeper >= 0, !RegularFile.isOpenFile(lockKeeper, at: part) {
            throw .output("'\(TerminalSanitizer.clean(part))' was removed or replaced while the download ran; the download was not saved (download it again)")
        }
        // A name that may not be replaced: a derived one, or `-o FILE` that was not there when
        // the download began (it was refused if it was, unless --overwrite or --continue).
        let noReplace = !plan.overwrite && !(plan.outputPath != nil && replacesExisting)
        // The `.part`'s attributes, mode and owner change through a descriptor of the file this
        // run wrote (checked above), never by its name: whoever may write the directory could
        // put a link there meanwhile, and a chmod by name would follow it (root's download made
        // the link's target readable by everyone). A `.part` already complete (a 416) is opened
        // for it, never through a link.
        let partFD = lockKeeper >= 0 ? lockKeeper : open(ArgumentBytes.path(part), O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        defer { if partFD >= 0 && partFD != lockKeeper { close(partFD) } }
        guard partFD >= 0 else {
            throw .output("cannot open '\(TerminalSanitizer.clean(part))' to save it: \(systemErrorMessage(errno))")
        }
        // The validator was for resuming; the saved file does not carry it. Kept to be put back
        // when the rename fails, with the `.part`'s private mode and owner: it stays a `.part`
        // -c finds.
        let keptAttributes = DownloadFile.partAttributes.map { ($0, ExtendedAttribute.get(partFD, $0)) }
        var partStat = stat()
        let partKept: stat? = fstat(partFD, &partStat) == 0 ? partStat : nil
        for name in DownloadFile.partAttributes { ExtendedAttribute.remove(partFD, name) }
        func keptAsPart(_ message: String) -> SwurlError {
            if let partKept {
                _ = fchown(partFD, partKept.st_uid, partKept.st_gid)
                _ = fchmod(partFD, partKept.st_mode & 0o7777)
            }
            for case let (name, value?) in keptAttributes { _ = ExtendedAttribute.set(partFD, name, value) }
            return .output("\(message); the whole download is kept as '\(TerminalSanitizer.clean(part))'")
        }
        // A file it replaces (--overwrite, or -c finishing a .part over it) keeps its mode, as
        // -o's does: a private file (0600) must not come back readable by everyone. A new one
        // gets 0666 less the umask, as open(2) would have given it.
        if let final = self.path {
            var st = stat()
            // Only a file it may replace lends its mode (not one that appeared meanwhile).
            if !noReplace, lstat(ArgumentBytes.path(final), &st) == 0, st.st_mode & S_IFMT == S_IFREG {
                AtomicFile.lend(st, chmod: { fchmod(partFD, $0) }, chown: { fchown(partFD, $0, $1) })
            } else {
                fchmod(partFD, AtomicFile.newFileMode())
            }
        }
        guard var final = self.path else { return }
        while true {
            let rc = noReplace ? RegularFile.renameNoReplace(part, final)
                : rename(ArgumentBytes.path(part), ArgumentBytes.path(final))
            let e = errno
            if rc == 0 { break }
            guard noReplace && e == EEXIST else { throw keptAsPart("saving '\(path)' failed: \(systemErrorMessage(e))") }
            // Someone took the name meanwhile (another download, the user): never replaced.
            guard plan.outputPath == nil else {
                throw keptAsPart("'\(final)' appeared while the download ran and was not replaced (--overwrite replaces a file)")
            }
            final = DownloadName.unique(final, exists: isTaken)
            self.path = final
        }
        committed = true
    }

    /// The error for a `.part` another run is writing.
    static func heldElsewhere(_ part: String) -> SwurlError {
        .output("'\(part)' is being written by another download running now; wait for it to end, or save this one under another name (-o FILE)")
    }

    /// Opens `part` for this run's bytes (appended, or from its start), locked: two runs
    /// downloading to one name (`-o same` twice at once) would mix their bytes in one `.part`
    /// and each report the result as saved. The lock (flock, held while the file is open) is
    /// taken before the file is cut back, so a run that finds it held changes nothing.
    /// - Returns: the descriptor, or nil when another run holds the file (`heldElsewhere`).
    /// - Throws: `SwurlError.output` when the file cannot be opened or cut back.
    /// `inPlace`: `part` is the file the user named (`-c -o FILE` growing FILE), not a `.part`.
    /// `resumingAt`: appending to bytes a range was asked for, so the file must still hold
    /// exactly that many: one removed, or finished and renamed by another run, while the request
    /// was out is not made anew, and one of another size is not appended to (the result would
    /// be the file's tail alone, or two versions, reported as saved).
    static func openPart(_ part: String, append: Bool, inPlace: Bool = false, resumingAt: Int64? = nil) throws(SwurlError) -> Int32? {
        // Private while it grows (a file it replaces may be 0600); `commit` gives it its mode.
        let create = resumingAt == nil ? O_CREAT : 0
        let fd = open(ArgumentBytes.path(part), O_WRONLY | create | O_CLOEXEC | O_NOFOLLOW | (append ? O_APPEND : 0), 0o600)
        guard fd >= 0 else {
            let e = errno
            if e == ENOENT, resumingAt != nil {
                throw .output("'\(part)' went away while the request was out (removed, or finished by another download); nothing was written; run the download again to start over")
            }
            throw .output("cannot write '\(part)': \(systemErrorMessage(e))")
        }
        // Another user's `.part` in a directory with the sticky bit (/tmp) is theirs to read and
        // change while and after this run writes it: root may open it, and must not.
        var st = stat()
        if !inPlace, fstat(fd, &st) == 0, let refusal = othersPart(part, owner: st.st_uid) {
            close(fd)
            throw refusal
        }
        // A file system without locks (ENOLCK: NFS without lockd) downloads as before, unlocked.
        if flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK {
            close(fd)
            return nil
        }
        if let expected = resumingAt, fstat(fd, &st) == 0, Int64(st.st_size) != expected {
            close(fd)
            throw .output("'\(part)' changed while the request was out (\(expected) bytes then, \(st.st_size) now: another download?); nothing was written to it; run the download again")
        }
        if !append && ftruncate(fd, 0) != 0 {
            let e = errno
            close(fd)
            throw .output("cannot write '\(part)': \(systemErrorMessage(e))")
        }
        return fd
    }

    /// The response failed its verdict: what this run wrote goes away (a `.part` it created is
    /// removed, a resumed file is cut back to the bytes it had), nothing is committed. A device
    /// or pipe keeps what it was sent.
    package func discard() {
        if fd >= 0 { close(fd) }
        fd = -1
        committed = true
        guard !direct, opened, let target = writePath else { return }
        if startOffset == 0 && !inPlace {
            unlink(ArgumentBytes.path(target))
        } else {
            truncate(ArgumentBytes.path(target), off_t(startOffset))
        }
    }

    /// Closes the `.part` file and keeps it for `--continue` (nothing is removed: what
    /// arrived is good data).
    package func abandon() {
        if fd >= 0 { close(fd) }
        fd = -1
        // A .part this run made and nothing reached (a full disk, a failure before the body)
        // has nothing to resume: it goes.
        if !direct, !inPlace, opened, startOffset == 0, let target = writePath, DownloadFile.size(of: target) == 0 {
            unlink(ArgumentBytes.path(target))
        }
    }

    // MARK: Helpers

    package static func size(of path: String) -> Int64? {
        var st = stat()
        guard lstat(ArgumentBytes.path(path), &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(st.st_size)
    }

    static func exists(_ path: String) -> Bool {
        var st = stat()
        return lstat(ArgumentBytes.path(path), &st) == 0
    }

    static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return lstat(ArgumentBytes.path(path), &st) == 0 && st.st_mode & S_IFMT == S_IFDIR
    }

    /// With `--continue` and no `-o`: the `.part` of the URL's name (`NAME.part` or, when the
    /// Content-Type added an extension, `NAME.EXT.part`) in `directory`.
    /// NAME.part for the URL's name, when there is one: with `--continue` and no `-o`, a `.part`
    /// that `findPart` did not take (another URL left it, or swurl 0.9.0, or a file system
    /// without extended attributes).
    /// The file the URL's own name points at in `directory`, when one is there (no `.part`):
    /// what `--continue` without `-o` does not resume, since it carries no URL.
    package static func fileOfURLName(in directory: String, for url: String) -> String? {
        // The URL's name, or that name with the extension a Content-Type gave it (`r` saved as `r.txt`).
        namesLike(DownloadName.fromURL(url) ?? "index", in: directory, suffix: "").first { size(of: $0) != nil }
    }

    package static func partOfURLName(in directory: String, for url: String) -> String? {
        namesLike(DownloadName.fromURL(url) ?? "index", in: directory, suffix: ".part").first { size(of: $0) != nil }
    }

    static func findPart(in directory: String, for url: String) -> String? {
        // A .part is resumed only when the same URL left it (the URL is kept with it): two
        // resources can share a validator (nginx's ETag is mtime and size), so If-Range alone
        // would not keep `/b/f.bin`'s tail off `/a/f.bin`'s head.
        // A .part with neither (swurl 0.9.0's, or on a file system without extended attributes)
        // is resumed with `-o NAME` only.
        let marker = DownloadFile.urlMarker(url)
        func leftByURL(_ part: String) -> Bool { size(of: part) != nil && ExtendedAttribute.get(part, urlAttribute) == marker }
        // The scan takes the user's own files only (another user's `.part` in /tmp, planted with
        // the URL, would be refused when opened, and the resume fail).
        func ownLeftByURL(_ part: String) -> Bool {
            var st = stat()
            return lstat(ArgumentBytes.path(part), &st) == 0 && st.st_uid == geteuid() && leftByURL(part)
        }
        if let part = namesLike(DownloadName.fromURL(url) ?? "index", in: directory, suffix: ".part").first(where: leftByURL) {
            return String(part.dropLast(5))
        }
        // A name the server gave (Content-Disposition: `report.pdf.part` from `/cdcut?id=7`): any
        // `.part` of the directory the same URL left (the first 10,000 entries looked at).
        return namesLike("", in: directory, suffix: ".part", anyName: true).first(where: ownLeftByURL).map { String($0.dropLast(5)) }
    }

    /// The paths in `directory` a download of a URL named `name` may have used, with `suffix`:
    /// `name` itself first, then `name.EXT` for an extension (no dot) a Content-Type added, sorted.
    /// `anyName`: every `*suffix` of the directory (up to 10,000 entries read), sorted.
    static func namesLike(_ name: String, in directory: String, suffix: String, anyName: Bool = false) -> [String] {
        var found: [String] = []
        if let dir = opendir(ArgumentBytes.path(directory)) {
            defer { closedir(dir) }
            var read = 0
            while let entry = readdir(dir) {
                read += 1
                if anyName && read > 10_000 { break }
                // Its bytes as given (a name that is not UTF-8 kept, as the directory's own).
                let file = withUnsafeBytes(of: entry.pointee.d_name) { raw in ArgumentBytes.decode(Array(raw.prefix { $0 != 0 })) }
                if anyName {
                    if file.count > suffix.count, file.hasSuffix(suffix), !file.hasPrefix(".") { found.append(directory + "/" + file) }
                    continue
                }
                guard file.count > name.count + 1 + suffix.count, file.hasPrefix(name + "."), file.hasSuffix(suffix) else { continue }
                let ext = file.dropFirst(name.count + 1).dropLast(suffix.count)
                if !ext.isEmpty, !ext.contains("."), ext != "part" { found.append(directory + "/" + file) }
            }
        }
        return anyName ? found.sorted() : [directory + "/" + name + suffix] + found.sorted()
    }
}
