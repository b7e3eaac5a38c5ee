#if canImport(Glibc)
@preconcurrency import Glibc
#endif
@preconcurrency import CReadline
import SwurlCore
@preconcurrency import CSupport

/// The interactive side of `swurl repl`: GNU readline for editing, history and completion. The
/// only importer of CReadline, which opens libreadline when this starts (other commands never
/// load it). readline's own signal handlers are off (`rl_catch_signals = 0`):
/// Ctrl-C sets swurl's interrupt flag, which cancels a running request (the engine polls it) or,
/// at the prompt, clears the line (`nextKey` waits in `ppoll` with SIGINT unblocked only there).
enum ReplReadline {
    /// The REPL on a terminal: prompt, read, run, until Ctrl-D or `exit`.
    /// - Returns: 0 on Ctrl-D, or the status `exit N` gave.
    /// - Throws: `.transport` when GNU readline (libreadline.so.8) cannot be loaded.
    static func interactive(_ session: ReplContext) throws(SwurlError) -> ExitStatus {
        guard sw_rl_load() == 0 else {
            throw .transport("cannot load GNU readline for the interactive REPL: " + String(cString: sw_rl_load_error()),
                             hint: "install it (apt-get install libreadline8), or pipe the lines into `swurl repl`")
        }
        session.interactive = true
        let history = ReplHistory(path: ReplHistory.path(session.environment.variables))
        if let refused = history.refusal {
            try? session.environment.stderr.write("swurl: note: no history is kept: \(refused.message)\n")
        }
        ReplState.session = session
        // `swurl repl > file` on a terminal: the prompt and the echo stay on the terminal; with
        // stderr redirected too (`> out 2> err`), on the terminal itself (they went into `out`
        // between the bodies, and nothing showed what was typed).
        let environment = session.environment
        let out = environment.stdoutIsTerminal ? nil : environment.stderrIsTerminal ? stderr : fopen("/dev/tty", "we")
        ReplState.promptStream = out
        sw_rl_configure(strdup("swurl"), out, strdup(" \t\n"),
                        { text, start, _ in ReplReadline.complete(text, Int(start)) },
                        {
                            ReplReadline.clearLineAfterInterrupt()
                            return 0
                        },
                        { stream in ReplReadline.nextKey(stream) })
        // A command typed with a backslash at its end, or with a quote left open, goes on at `> `
        // as in the shell; the complete commands before it (a paste) run at once. Ctrl-C there
        // drops it; Ctrl-D runs what was typed (a last backslash dropped, as the shell does).
        var pending: String?
        while true {
            Interrupt.arm()
            ReplState.continuing = pending != nil
            // SIGTERM, SIGHUP or SIGQUIT at the prompt (`kill`, a closed window) put the terminal
            // back before ending swurl by the signal (it stayed raw, without echo).
            sw_prompt_signals(1)
            let read = readLine(pending == nil ? prompt(session) : continuationPrompt)
            sw_prompt_signals(0)
            ReplState.continuing = false
            if ReplState.abandoned {
                ReplState.abandoned = false
                pending = nil
                continue
            }
            var commands: [String]
            if let line = read {
                commands = ReplReadline.commands(in: pending.map { $0 + "\n" + line } ?? line)
                pending = nil
                if let last = commands.last, !ReplReadline.isComplete(last) { pending = commands.removeLast() }
            } else if let typed = pending {
                pending = nil
                commands = [ReplReadline.endingAtEOF(typed)]
            } else {
                // Ctrl-D: end the prompt's line so the shell's prompt starts clean (on the prompt's
                // own stream: stdout may be a file, which must get no stray byte).
                let env = session.environment
                try? (!env.stdoutIsTerminal && env.stderrIsTerminal ? env.stderr : env.stdout).write("\n")
                return .success
            }
            // Several lines pasted at once (readline's bracketed paste hands them over as one):
            // each command runs, and is remembered, as if typed one after the other; Ctrl-C
            // during one drops the rest (and a command still being typed).
            commands: for line in commands {
                if line.contains(where: { !$0.isWhitespace }), let failure = history.remember(line) {
                    try? session.environment.stderr.write("swurl: note: the history is not saved: \(failure.message)\n")
                }
                switch session.execute(line) {
                case .exit(let status): return status
                // Ctrl-C first: a write it cut short leaves stdout usable, and the prompt comes back.
                case .ran(let status) where status == .interrupted || Interrupt.requested:
                    pending = nil
                    break commands
                case .ran(let status) where status != .success && session.environment.stdoutUnusable: return status
                default: continue
                }
            }
        }
    }

    /// A command the input ended in the middle of: a last backslash (a line to come) is dropped,
    /// as the shell drops it at the end of its input; an open quote stays (an error).
    static func endingAtEOF(_ command: String) -> String {
        guard command.hasSuffix("\\"), isComplete(String(command.dropLast())) else { return command }
        return String(command.dropLast())
    }

    /// The prompt of a command's next line.
    static let continuationPrompt = "> "

    /// A line from readline after `prompt`, decoded as argv is (a byte that is not UTF-8 stays
    /// that byte); nil at Ctrl-D on an empty line.
    private static func readLine(_ prompt: String) -> String? {
        guard let raw = sw_rl_readline(prompt) else { return nil }
        defer { free(raw) }
        return ArgumentBytes.decode(UnsafeRawBufferPointer(start: raw, count: strlen(raw)).map { $0 })
    }

    /// The commands in text read at the prompt: one per line, except that a line ending in an
    /// unquoted backslash, or inside a quote, goes on to the next (as in the shell and in
    /// scripts, `ShellWords`).
    static func commands(in text: String) -> [String] {
        var commands: [String] = []
        var pending = ""
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) {
            pending += pending.isEmpty ? String(line) : "\n" + line
            guard ReplReadline.isComplete(pending) else { continue }
            commands.append(pending)
            pending = ""
        }
        if !pending.isEmpty { commands.append(pending) }
        return commands
    }

    /// Whether `text` ends a command as the shell (`ShellWords`) reads it: no quote left open,
    /// no backslash before its end outside a comment. A word on a line of its own after it stays
    /// apart only then.
    static func isComplete(_ text: String) -> Bool {
        let sentinel = "swurl-end-of-command"
        do {
            guard let last = try ShellWords.lines(Array((text + "\n" + sentinel).utf8)).last else { return false }
            return last.words == [sentinel]
        } catch {
            // Only a quote left open goes on; any other fault (a NUL byte) ends the command here,
            // to be reported on its own line.
            return !error.leftQuoteOpen
        }
    }

    /// Ctrl-C at the prompt: an empty line on a fresh row.
    static func clearLineAfterInterrupt() {
        guard Interrupt.requested else { return }
        Interrupt.arm()
        sw_rl_clear_line()
    }

    /// readline's key reader: waits for input with SIGINT blocked except inside `ppoll`, so a
    /// Ctrl-C that arrives after the prompt is drawn but before the wait begins is seen at once
    /// (with a plain blocking read it would wait for the next key, and the terminal has already
    /// discarded what was typed ahead).
    static func nextKey(_ stream: UnsafeMutablePointer<FILE>?) -> Int32 {
        guard let stream else { return EOF }
        if ReplState.clearAfterAbort {
            ReplState.clearAfterAbort = false
            sw_rl_clear_line()
        }
        while true {
            if ReplState.continuing && Interrupt.requested {
                // Ctrl-C at `> `: the line is emptied and ended, and the command dropped.
                Interrupt.arm()
                ReplState.abandoned = true
                sw_rl_empty_line()
                return 10
            }
            if Interrupt.requested && sw_rl_in_modal_state() != 0 {
                // Ctrl-C in a history search (Ctrl-R), a numeric argument or after ESC: readline
                // ends it first (C-g, its abort key), then the line is cleared; cleared alone, the
                // search went on and Enter ran the entry it found.
                Interrupt.arm()
                ReplState.clearAfterAbort = true
                return 7
            }
            clearLineAfterInterrupt()
            let key = sw_read_key(fileno(stream))
            if key == -2 { continue }
            if key == -3 {
                sw_rl_restore_terminal()
                fputs("\n", ReplState.promptStream ?? stdout)
                fflush(nil)
                sw_end_by_prompt_signal()
            }
            if key == -4 {
                // Ctrl-Z: the terminal as it was for the shell, then stopped; after `fg`, set up
                // again and the prompt and line drawn anew (the terminal was left raw and silent
                // for the shell, and after `fg` echoed the keys readline edited unseen).
                sw_rl_restore_terminal()
                fputs("\n", ReplState.promptStream ?? stdout)
                fflush(nil)
                sw_stop_at_prompt()
                sw_rl_resume_terminal()
                continue
            }
            return key < 0 ? EOF : key
        }
    }

    /// `swurl http://h/api/> `, or `swurl http://h/api/ [7]> ` after a failure.
    static func prompt(_ session: ReplContext) -> String {
        var p = "swurl"
        // A token given as the user name alone (`http://TOKEN@h/`) is masked too, as in a HAR.
        if let base = session.base { p += " " + TerminalSanitizer.clean(Redactor.url(base, userAlone: true)) }
        if session.lastStatus != .success { p += " [\(session.lastStatus.rawValue)]" }
        return p + "> "
    }

    /// readline's completion entry: the candidates for the word at `start`, never file names.
    static func complete(_ text: UnsafePointer<CChar>?, _ start: Int) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
        sw_rl_set_completion_over(1)
        let typed = text.map { strlen($0) } ?? 0
        let line = sw_rl_line_buffer().map { Array(UnsafeBufferPointer(start: $0, count: strlen($0))).map { UInt8(bitPattern: $0) } } ?? []
        guard let session = ReplState.session else { return nil }
        let matches = ReplCompletion.replacements(line: line, start: start, end: start + typed, seenPaths: session.seenPaths,
                                                  defaults: session.defaultNames)
        guard !matches.isEmpty else { return nil }
        // Header names end in ':' and paths in '/': no space after them.
        sw_rl_set_suppress_append(matches.allSatisfy { $0.hasSuffix(":") || $0.hasSuffix("/") || $0.hasSuffix("=") } ? 1 : 0)
        ReplState.matches = matches
        return sw_rl_completion_matches(text) { _, state in
            if state == 0 { ReplState.index = 0 }
            guard ReplState.index < ReplState.matches.count else { return nil }
            defer { ReplState.index += 1 }
            return strdup(ReplState.matches[ReplState.index])
        }
    }
}

/// What readline's C callbacks reach (they cannot capture): used on the main thread only.
enum ReplState {
    nonisolated(unsafe) static var session: ReplContext?
    nonisolated(unsafe) static var matches: [String] = []
    nonisolated(unsafe) static var index = 0
    /// Whether readline is reading a command's next line (`> `), and whether Ctrl-C dropped it.
    nonisolated(unsafe) static var continuing = false
    nonisolated(unsafe) static var abandoned = false
    /// Ctrl-C came in a search or a numeric argument: readline was handed its abort key, and
    /// the line is cleared at the next key read.
    nonisolated(unsafe) static var clearAfterAbort = false
    /// Where the prompt is drawn when not on stdout (stdout is a file: stderr).
    nonisolated(unsafe) static var promptStream: UnsafeMutablePointer<FILE>?
}

/// The history file: `$XDG_STATE_HOME/swurl/history` (default `~/.local/state/swurl/history`),
/// mode 0600, at most 1000 lines, never a line with credentials. swurl writes it itself, not
/// readline: each line rewrites the file atomically (`AtomicFile`) at the file a symbolic link
/// that is the user's own leads to (`OutputTarget.ownFile`, the rule of `-o` and session
/// files), so a linked history (a dotfiles repository) stays a link, and a crash never leaves
/// a torn file. A history that cannot be read or written is not kept; the REPL goes on.
final class ReplHistory {
    static let limit = 1000
    let path: String?
    /// Why the history's place was refused (a directory of another user's, as after `su`
    /// without `-`): no directory is made there and no history kept.
    private(set) var refusal: SwurlError?

    /// The file's path (`$XDG_STATE_HOME/swurl/history`, default `~/.local/state`), or nil
    /// without a home directory.
    static func path(_ variables: [String: String]) -> String? {
        Environment.baseDirectory(variables, "XDG_STATE_HOME", fallback: ".local/state").map { $0 + "/swurl/history" }
    }

    init(path: String?) {
        sw_rl_stifle_history(Int32(ReplHistory.limit))
        // Never made in another user's directory: root with another user's HOME (`su` without
        // `-`) made root's 0700 directories in their home (~/.local), which they could then not use.
        if let path, let slash = path.lastIndex(of: "/"), let (dir, owner) = FileTrust.foreignPlace(String(path[..<slash])) {
            refusal = .badData("its directory would be made in \(TerminalSanitizer.clean(dir)), which belongs to uid \(owner)"
                               + (geteuid() == 0 ? " (root with that user's HOME? su - or sudo -H gives root its own)" : ""))
            self.path = nil
            return
        }
        guard let path, let slash = path.lastIndex(of: "/"), PrivateDirectory.make(String(path[..<slash])) == nil else { self.path = nil; return }
        self.path = path
        for line in ReplHistory.lines(at: path) { ReplHistory.addToMemory(line) }
    }

    /// The file's last `limit` lines (through the user's own links); none when it is missing,
    /// not a regular file or not readable. Only the end that can hold them is read (`limit`
    /// lines of `longestKept` bytes): a file grown to hundreds of megabytes (by another tool, or
    /// by hand) was read whole, at every start and every line.
    static func lines(at path: String) -> [[UInt8]] {
        guard let target = try? OutputTarget.ownFile(path), case .opened(let fd) = RegularFile.open(target) else { return [] }
        defer { close(fd) }
        let tail = off_t(limit * (longestKept + 1))
        var st = stat()
        let skipsPart = fstat(fd, &st) == 0 && st.st_size > tail && lseek(fd, st.st_size - tail, SEEK_SET) >= 0
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        // From the middle of the file: the first line read is a piece of one.
        if skipsPart, let newline = bytes.firstIndex(of: 0x0A) { bytes.removeSubrange(...newline) }
        return bytes.split(separator: 0x0A).filter { $0.count <= longestKept }.suffix(limit).map(Array.init)
    }

    /// The longest line the history keeps (the file is read whole at every start and rewritten
    /// after every line: a pasted 1.5 MiB line stayed in it).
    static let longestKept = 16 * 1024

    /// Adds a line to the history (memory and file), unless it carries credentials; a line
    /// longer than `longestKept` stays in memory only.
    /// - Returns: why the file could not be saved, the first time it could not.
    func remember(_ line: String) -> SwurlError? {
        guard !ReplContext.containsCredentials(line) else { return nil }
        let bytes = ArgumentBytes.bytes(line)
        ReplHistory.addToMemory(bytes)
        guard bytes.count <= ReplHistory.longestKept else { return nil }
        // The file holds a line per command: a continued one is joined as the shell joins it
        // (backslash-newline removed); one with a newline inside quotes is not kept there.
        guard let path, let oneLine = ReplHistory.fileLine(bytes) else { return nil }
        do { try ReplHistory.append(oneLine, to: path) } catch {
            // Said once (a full disk would say it at every line), as bash's `history: cannot create`.
            guard !saveFailed else { return nil }
            saveFailed = true
            return error
        }
        return nil
    }

    /// Whether saving a line failed once already.
    private var saveFailed = false

    /// `command` as one line of the history file, nil when it cannot be one.
    static func fileLine(_ command: [UInt8]) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(command.count)
        var i = 0
        while i < command.count {
            if command[i] == UInt8(ascii: "\\"), i + 1 < command.count, command[i + 1] == 0x0A {
                i += 2
                continue
            }
            if command[i] == 0x0A || command[i] == 0x0D { return nil }
            out.append(command[i])
            i += 1
        }
        // Only where the joined line means the same (a backslash-newline inside '…' is kept).
        guard out.count == command.count
              || (try? ShellWords.lines(out))?.flatMap(\.words) == (try? ShellWords.lines(command))?.flatMap(\.words) else { return nil }
        return out
    }

    /// readline's in-memory history, which holds the line's bytes as typed.
    private static func addToMemory(_ line: [UInt8]) {
        let c = line.map { CChar(bitPattern: $0) } + [0]
        c.withUnsafeBufferPointer { sw_rl_add_history($0.baseAddress) }
    }

    /// Rewrites the file with `line` added and only the last `limit` lines kept.
    /// - Throws: `SwurlError.output` when it cannot be written (the old file then stays).
    static func append(_ line: [UInt8], to path: String) throws(SwurlError) {
        let target = try OutputTarget.ownFile(path)
        // REPLs appending at once each read the file, add a line and rename: without a lock one's
        // line was lost. A lock held too long (2 s) is not waited out: the line goes in anyway.
        // The lock is in swurl's own directory, beside the history's name (not beside the file
        // a link of the user's leads to).
        let lock = open(ArgumentBytes.path(OutputTarget.directory(of: path) + "/." + OutputTarget.name(of: path) + ".lock"),
                        O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        defer { if lock >= 0 { close(lock) } }
        var waited = 0
        while lock >= 0, flock(lock, LOCK_EX | LOCK_NB) != 0, errno == EWOULDBLOCK || errno == EINTR, waited < 200 {
            usleep(10_000)
            waited += 1
        }
        var kept = lines(at: path)
        kept.append(line.filter { $0 != 0x0A })
        var text: [UInt8] = []
        for l in kept.suffix(limit) { text += l + [0x0A] }
        let file = try AtomicFile(replacing: target, mode: 0o600)
        try text.withUnsafeBufferPointer { buf throws(SwurlError) in
            try file.write(UnsafeRawBufferPointer(buf), describing: "the REPL history")
        }
        try file.commit()
    }
}

/// Completion candidates: built-ins, methods, option names and their choices (from `OptionTable`),
/// common header names, and the paths seen in this REPL.
enum ReplCompletion {
    static let headerNames = [
        "Accept", "Accept-Encoding", "Accept-Language", "Authorization", "Cache-Control", "Connection",
        "Content-Type", "Content-Length", "Cookie", "ETag", "Host", "If-Match", "If-Modified-Since",
        "If-None-Match", "Origin", "Range", "Referer", "User-Agent", "X-Requested-With", "X-Request-ID",
    ]

    /// What readline puts in place of the text it hands over (from `start` to `end` of the line's
    /// bytes): readline splits words at every blank, so the word being completed is found here,
    /// as the line's splitter will read it (`my\ f`, `'my f`), and each candidate is spelled
    /// to continue it (escaped, or inside the quote left open) less what precedes `start`.
    static func replacements(line: [UInt8], start: Int, end: Int, seenPaths: [String], defaults: [String] = []) -> [String] {
        let upTo = Array(line.prefix(max(0, end)))
        let (wordStart, open) = lastWord(upTo)
        let given = Array(upTo[wordStart..<max(wordStart, min(start, upTo.count))])
        let matches = candidates(before: String(decoding: upTo[..<wordStart], as: UTF8.self),
                                 word: String(decoding: upTo[wordStart...], as: UTF8.self), seenPaths: seenPaths, defaults: defaults)
        return matches.compactMap { match in
            // A quote left open is closed after a whole word (not after a `/`, `:` or `=` that
            // more typing follows).
            let close = match.hasSuffix("/") || match.hasSuffix(":") || match.hasSuffix("=") ? "" : open.map { String(UnicodeScalar($0)) } ?? ""
            let spelled: [UInt8]
            switch open {
            case UInt8(ascii: "'"): spelled = Array(("'" + match.replacingAll("'", with: "'\\''") + close).utf8)
            case UInt8(ascii: "\""):
                var s = "\""
                for c in match {
                    if c == "\"" || c == "\\" || c == "$" || c == "`" { s.append("\\") }
                    s.append(c)
                }
                spelled = Array((s + close).utf8)
            default: spelled = Array(escaped(match).utf8)
            }
            guard spelled.starts(with: given) else { return nil }
            return String(decoding: spelled.dropFirst(given.count), as: UTF8.self)
        }
    }

    /// Where the last word of `bytes` starts (after its last blank outside quotes and escapes),
    /// and the quote it leaves open, if any.
    static func lastWord(_ bytes: [UInt8]) -> (start: Int, open: UInt8?) {
        var start = 0
        var open: UInt8?
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            switch open {
            case nil:
                if b == 0x20 || b == 0x09 { start = i + 1 }
                else if b == 0x5C { i += 1 }
                else if b == 0x27 || b == 0x22 { open = b }
            case 0x22?:
                if b == 0x5C { i += 1 } else if b == 0x22 { open = nil }
            default:
                if b == open { open = nil }
            }
            i += 1
        }
        return (start, open)
    }

    /// - Parameters:
    ///   - before: the line up to the word being completed.
    ///   - word: the partial word, as typed (quotes and backslashes included).
    ///   - defaults: what `unset` can remove: the default items' names and options (`--form`).
    /// - Returns: the candidates as they are (`replacements` spells them for the line).
    static func candidates(before: String, word: String, seenPaths: [String], defaults: [String] = []) -> [String] {
        let previous = ReplContext.withoutCommandName((try? ReplContext.words(before)) ?? before.split(separator: " ").map(String.init))
        if previous.first == "unset" {
            // What is set, options and items alike (the common header names are not all set).
            let lower = unquoted(word).lowercased()
            return defaults.filter { $0.lowercased().hasPrefix(lower) }
        }
        if let last = previous.last, let spec = spec(for: last), !spec.choices.isEmpty {
            if case .none = spec.argument {} else { return spec.choices.filter { $0.hasPrefix(word) } }
        }
        // The value of an option that takes any (`-o`, `--session`, `--cacert`): no header name
        // or path is it (Tab made `-o Accept` and a session named `User-Agent:`).
        if let last = previous.last, let spec = spec(for: last), case .required = spec.argument { return [] }
        if word.hasPrefix("--"), let eq = word.firstIndex(of: "="),
           let spec = OptionTable.spec(long: String(word[word.index(word.startIndex, offsetBy: 2)..<eq])) {
            let prefix = word[..<word.index(after: eq)]
            return spec.choices.map { prefix + $0 }.filter { $0.hasPrefix(word) }
        }
        if word.hasPrefix("-") {
            // What a line, or `set`, takes: not the REPL's own options (a line refuses
            // `--stop-on-error`), nor what `set` refuses (`set --har`).
            let setting = previous.first == "set"
            let specs = OptionTable.documented.filter { spec in
                (spec.commands.contains(.repl) || spec.commands.contains(.request)) && !ReplContext.replOnly.contains(spec.option)
                    && !(setting && ReplContext.notDefaults.contains(spec.option))
            }
            var names = specs.flatMap { spec in ([spec.name] + spec.aliases).map { "--" + $0 } }
            // `--no-OPTION` drops a default for the line (only offered once `--no` is typed).
            if word.hasPrefix("--no") {
                names += specs.filter { !ParsedArguments.notResettable.contains($0.option) }.map { "--no-" + $0.name }
            }
            var seen = Set<String>()
            return names.filter { $0.hasPrefix(word) && seen.insert($0).inserted }.sorted()
        }
        var pool: [String] = []
        if previous.isEmpty {
            pool = ReplContext.builtins + ReplContext.methods + seenPaths
        } else if previous == ["cd"] || (previous.count == 1 && CommandOptions.looksLikeMethod(previous[0])) {
            pool = seenPaths
        } else {
            pool = seenPaths + headerNames.map { $0 + ":" }
        }
        let lower = unquoted(word).lowercased()
        var seen = Set<String>()
        return pool.filter { $0.lowercased().hasPrefix(lower) && seen.insert($0).inserted }
    }

    /// A partial word as the line's splitter will read it (`/a\ b` and `'/a b` are `/a b`), a
    /// quote still open read as closed.
    static func unquoted(_ word: String) -> String {
        for closing in ["", "'", "\""] {
            if let words = try? ShellWords.words(word + closing), words.count == 1 { return words[0] }
        }
        return word
    }

    /// A candidate as one word of a line: blanks, quotes, backslashes (and a leading `#`, a
    /// comment) escaped with a backslash; it still ends in its `/` or `:` (no space after it).
    static func escaped(_ candidate: String) -> String {
        var out = ""
        for (i, c) in candidate.enumerated() {
            if c == " " || c == "\t" || c == "'" || c == "\"" || c == "\\" || (i == 0 && c == "#") { out.append("\\") }
            out.append(c)
        }
        return out
    }

    private static func spec(for word: String) -> OptionSpec? {
        if word.hasPrefix("--") { return word.contains("=") ? nil : OptionTable.spec(long: String(word.dropFirst(2))) }
        if word.hasPrefix("-"), word.count == 2, let c = word.last { return OptionTable.spec(short: c) }
        return nil
    }
}
