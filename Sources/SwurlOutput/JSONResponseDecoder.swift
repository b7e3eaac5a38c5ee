import SwurlCore
/// Shows JSON indented and coloured. By default it streams through `JSONStreamFormatter` in
/// constant memory, holding back only the start (`HoldBackWindow`) so that a body that is not
/// JSON after all is shown as plain text instead of half formatted. The window's bytes are
/// checked as they come (by a second formatter whose output is only counted) and formatted
/// when it closes, piece by piece through `drain`, so its formatted output (about three times
/// the input with colours) is never held whole. `--sort-keys` and
/// `--drop-nulls` need the whole document and build a tree. A leading XSSI guard (`)]}',`,
/// `while(1);`, `for(;;);`) is shown on its own line and the JSON after it formatted.
final class JSONResponseDecoder: ResponseDecoding {
    /// The note for a body that is not JSON, shown as it came.
    static let notJSONShownAsSent = "the body is not valid JSON; shown as sent"
    /// Guards that servers put before JSON to stop it being run as a script.
    static let xssiGuards: [[UInt8]] = [")]}'", "while(1);", "for(;;);", ")]}"].map { Array($0.utf8) }
    /// Bytes after the leading BOM and white space that decide whether a guard is there: the
    /// longest guard and its optional comma.
    static let guardWindow = 10

    private let context: DecodingContext
    private let formatter: JSONStreamFormatter
    private let treeMode: Bool

    private var prefixDone = false
    /// Whether a leading BOM was looked for (and dropped).
    private var bomChecked = false
    /// Whether one was there: a body of a BOM alone (and white space) is not JSON.
    private var sawBOM = false
    /// The start of the body, without BOM and leading white space, until a guard is ruled in or out.
    private var prefix: [UInt8] = []
    /// The start of the body, held back; closed from the start with `--stream` (and in tree mode).
    private var window: HoldBackWindow
    /// With `--stream` (no window): whether the first chunk was looked at for binary data.
    private var streamSniffed = false
    /// Checks the window's bytes with the same theme as `formatter`; its output is only counted.
    private var checker: JSONStreamFormatter?
    private var checkerOutput: [UInt8] = []
    /// Whether the checker has seen the end of the body (`endOfBody`).
    private var checkerFinished = false
    /// Bytes accepted but not yet formatted (the window's, once it closed, and the rest of the
    /// chunk that closed it), in order, with how far the first was formatted.
    private var backlog: [[UInt8]] = []
    private var backlogStart = 0
    private var text: TextResponseDecoder?
    private var tree = BodyBuffer()
    private var sawContent = false

    /// UTF-16 and UTF-32 JSON (by its charset) is converted to UTF-8 before formatting; the
    /// decoders behind it then see UTF-8 (no charset).
    private let transcoder: CharsetConverter?

    init(context: DecodingContext) {
        var context = context
        if let cs = context.charset, cs.hasPrefix("utf-16") || cs.hasPrefix("utf-32"), let t = CharsetConverter(from: cs) {
            transcoder = t
            context.charset = nil
        } else {
            transcoder = nil
        }
        self.context = context
        formatter = JSONStreamFormatter(theme: context.theme, sanitize: context.terminal)
        formatter.endsLinesAtOnce = context.options.stream
        treeMode = context.options.sortKeys || context.options.dropNulls
        window = HoldBackWindow(open: !context.options.stream && !treeMode, outputBudget: nil)
        if window.isOpen { checker = JSONStreamFormatter(theme: context.theme, sanitize: context.terminal) }
    }

    package func decode(_ chunk: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        if let transcoder {
            let utf8 = transcoder.convert(chunk, final: false)
            utf8.withUnsafeBytes { decodeUTF8($0, into: &out) }
            return
        }
        decodeUTF8(chunk, into: &out)
    }

    private func decodeUTF8(_ chunk: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        if let text { text.decode(chunk, into: &out); return }
        if !prefixDone {
            prefix.append(contentsOf: chunk)
            guard prefixIsDecided(final: false) else { return }
            let rest = takePrefix(into: &out)
            rest.withUnsafeBytes { body($0, &out) }
            return
        }
        body(chunk, &out)
    }

    /// Drops a leading BOM and white space from `prefix` (they are never shown) and says whether
    /// enough of the body is there to tell if a guard follows. The answer depends only on the
    /// bytes, never on where the chunks were cut, so the output does not either.
    private func prefixIsDecided(final: Bool) -> Bool {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        if !bomChecked {
            if !final && prefix.count < bom.count && bom.starts(with: prefix) { return false }
            bomChecked = true
            if prefix.starts(with: bom) {
                prefix.removeFirst(bom.count)
                sawBOM = true
            }
        }
        guard let start = prefix.firstIndex(where: { !isSpace($0) }) else {
            prefix = []
            return final
        }
        if start > 0 { prefix.removeFirst(start) }
        if final || prefix.count >= JSONResponseDecoder.guardWindow { return true }
        // Still possibly a guard: wait for the whole window.
        let mayBeGuard = JSONResponseDecoder.xssiGuards.contains { $0.starts(with: prefix.prefix($0.count)) }
        return !mayBeGuard
    }

    /// Shows an XSSI guard at the start of `prefix` (BOM and white space already dropped);
    /// returns the bytes after it.
    private func takePrefix(into out: inout [UInt8]) -> [UInt8] {
        prefixDone = true
        defer { prefix = [] }
        for guardBytes in JSONResponseDecoder.xssiGuards where prefix.starts(with: guardBytes) {
            var end = guardBytes.count
            if end < prefix.count, prefix[end] == UInt8(ascii: ",") { end += 1 }
            if let theme = context.theme { out += Array(theme.note.utf8) }
            out += prefix[..<end]
            if let theme = context.theme { out += Array(theme.reset.utf8) }
            out.append(0x0A)
            return Array(prefix[end...])
        }
        return prefix
    }

    private func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

    private func body(_ chunk: UnsafeRawBufferPointer, _ out: inout [UInt8]) {
        guard chunk.count > 0 else { return }
        if !sawContent, chunk.contains(where: { !isSpace($0) }) { sawContent = true }
        if treeMode {
            if !tree.append(chunk) {
                // Too large for a tree: show it as text.
                let t = TextResponseDecoder(context: context)
                t.decode(tree.take(), into: &out)
                text = t
            }
            return
        }
        if window.isOpen, let checker {
            let outcome = window.take(chunk, context: context, into: &out) { piece, _ in
                checker.feed(piece, into: &checkerOutput)
                defer { checkerOutput.removeAll(keepingCapacity: true) }
                return checker.isValid ? checkerOutput.count : nil
            }
            switch outcome {
            case .holding: break
            case .shownAsText(let t): shown(as: t)
            case .closed(let rest):
                closeWindow()
                if !rest.isEmpty { backlog.append(Array(rest)) }
            }
            return
        }
        formatBacklog(&out, upTo: .max)
        if !streamSniffed, context.options.stream {
            streamSniffed = true
            if let t = TextResponseDecoder.binaryStream(chunk, context: context, into: &out) { text = t; return }
        }
        formatter.feed(chunk, into: &out)
    }

    /// The window's bytes were JSON: they become the backlog, formatted by `drain` (or by the
    /// next `decode` or `finish`).
    private func closeWindow() {
        backlog = [window.close()]
        backlogStart = 0
        checker = nil
        checkerOutput = []
    }

    /// A window still open at the end of a plain UTF-8 body is checked now: valid, it becomes
    /// the backlog (`drain` formats it in pieces); invalid, `finish` shows it as sent.
    func endOfBody() {
        guard transcoder == nil, prefixDone, text == nil, !treeMode, window.isOpen, let checker, !checkerFinished else { return }
        checker.finish(into: &checkerOutput)
        checkerOutput = []
        checkerFinished = true
        if checker.isValid { closeWindow() }
    }

    func abandon() { abandoned = true }
    private var abandoned = false

    func drain(into out: inout [UInt8], upTo limit: Int) -> Bool {
        formatBacklog(&out, upTo: limit)
        return !backlog.isEmpty
    }

    /// Formats the backlog a window step at a time until `out` holds `limit` bytes; each
    /// part is let go as soon as it is formatted.
    private func formatBacklog(_ out: inout [UInt8], upTo limit: Int) {
        while let first = backlog.first, out.count < limit {
            let end = min(first.count, backlogStart + HoldBackWindow.step)
            first[backlogStart..<end].withUnsafeBytes { formatter.feed($0, into: &out) }
            backlogStart = end
            if end == first.count {
                backlog.removeFirst()
                backlogStart = 0
            }
        }
    }

    /// Shows everything held so far as text; the rest follows as text too.
    private func fallBack(_ out: inout [UInt8]) {
        shown(as: window.showAsText(context: context, into: &out))
    }

    /// The body is shown as text from now on, by `t`.
    private func shown(as t: TextResponseDecoder) {
        text = t
        checker = nil
        checkerOutput = []
    }

    func finish(into out: inout [UInt8]) -> DecodingOutcome {
        // Interrupted: what is held back or not yet formatted goes out as sent, not formatted
        // (formatting it could write hundreds of megabytes after the Ctrl-C; the bytes that
        // came still show, as a cut body's do).
        if abandoned, text == nil, !treeMode {
            if window.isOpen {
                fallBack(&out)
            } else if !backlog.isEmpty {
                let t = TextResponseDecoder(context: context)
                for (i, part) in backlog.enumerated() {
                    part[(i == 0 ? backlogStart : 0)...].withUnsafeBytes { t.decode($0, into: &out) }
                }
                backlog = []
                backlogStart = 0
                shown(as: t)
            }
        }
        if let transcoder {
            let rest = transcoder.convert(UnsafeRawBufferPointer(start: nil, count: 0), final: true)
            rest.withUnsafeBytes { decodeUTF8($0, into: &out) }
        }
        if !prefixDone {
            _ = prefixIsDecided(final: true)
            let rest = takePrefix(into: &out)
            rest.withUnsafeBytes { body($0, &out) }
        }
        if let text {
            // A binary body labelled JSON says so (and is not shown), not "invalid JSON".
            if case .note(let note) = text.finish(into: &out) { return .failed("the body is not JSON but " + note) }
            return .failed(treeMode ? "the body is too large for --sort-keys/--drop-nulls; shown as sent" : JSONResponseDecoder.notJSONShownAsSent)
        }
        guard sawContent else {
            // Empty is no body; a byte order mark with nothing after it is a body that is not JSON.
            return sawBOM ? .failed("the body is only a byte order mark (U+FEFF), not JSON") : .decoded
        }
        if treeMode { return finishTree(&out) }
        if window.isOpen, let checker {
            if !checkerFinished { checker.finish(into: &checkerOutput) }
            if !checker.isValid {
                fallBack(&out)
                if case .note(let note)? = text?.finish(into: &out) { return .failed("the body is not JSON but " + note) }
                return .failed(JSONResponseDecoder.notJSONShownAsSent)
            }
            closeWindow()
        }
        formatBacklog(&out, upTo: .max)
        formatter.finish(into: &out)
        guard formatter.isValid else {
            // A byte that cannot go on the JSON stops the formatter, which passes the rest
            // through; a bad escape, number or keyword, or a document left open, does not.
            return .failed(formatter.hasFailed ? "the body is not valid JSON; formatted up to there, the rest is shown as sent"
                                               : "the body is not valid JSON; formatted all the same")
        }
        return formatter.isValidText ? .decoded
            : .failed("the body is not valid JSON: a string holds bytes that are not UTF-8 or half a \\u surrogate pair")
    }

    private func finishTree(_ out: inout [UInt8]) -> DecodingOutcome {
        let bytes = tree.take()
        // One document, or a run of them (JSON Lines, concatenated JSON), as the streaming
        // formatter takes them without --sort-keys/--drop-nulls (only JSON Lines of one-line
        // documents were taken here: a run of pretty-printed ones was "not valid JSON", exit 8).
        let values: [JSONValue]
        do {
            values = try JSONParser.parseSequence(bytes)
        } catch {
            TextResponseDecoder.show(bytes, context: context, into: &out)
            // Valid JSON past the tree's depth limit is not "invalid": say what the limit is.
            if error.description.containsText("nesting deeper") {
                return .failed("the body nests too deeply for --sort-keys/--drop-nulls (\(error.description)); shown as sent")
            }
            return .failed("the body is not valid JSON (\(error.description)); shown as sent")
        }
        for v in values {
            var value = v
            if context.options.dropNulls { value = JSONTransform.droppingNulls(value) }
            if context.options.sortKeys { value = JSONTransform.sortingKeys(value) }
            var compact: [UInt8] = []
            value.write(to: &compact)
            compact.append(0x0A)
            compact.withUnsafeBytes { formatter.feed($0, into: &out) }
        }
        formatter.finish(into: &out)
        return .decoded
    }
}

/// Tree transformations behind `--drop-nulls` and `--sort-keys`.
enum JSONTransform {
    /// AFNetworking's `AFJSONObjectByRemovingKeysWithNullValues`: keys whose value is null and
    /// null array elements are removed, recursively; containers that become empty are kept.
    static func droppingNulls(_ value: JSONValue) -> JSONValue {
        switch value {
        case .array(let items):
            return .array(items.compactMap { $0 == .null ? nil : droppingNulls($0) })
        case .object(let members):
            return .object(members.compactMap { m in
                m.value == .null ? nil : JSONValue.Member(m.key, droppingNulls(m.value))
            })
        default:
            return value
        }
    }

    /// Object keys sorted by their UTF-8 bytes, recursively; equal keys keep their order.
    static func sortingKeys(_ value: JSONValue) -> JSONValue {
        switch value {
        case .array(let items):
            return .array(items.map(sortingKeys))
        case .object(let members):
            let sorted = members.enumerated().sorted { a, b in
                let ka = Array(a.element.key.utf8), kb = Array(b.element.key.utf8)
                return ka == kb ? a.offset < b.offset : ka.lexicographicallyPrecedes(kb)
            }
            return .object(sorted.map { JSONValue.Member($0.element.key, sortingKeys($0.element.value)) })
        default:
            return value
        }
    }
}
