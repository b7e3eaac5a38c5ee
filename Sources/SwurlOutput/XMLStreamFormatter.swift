#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import SwurlCore
import SwurlResponseSerialization
/// Indents and colours XML as it streams in, chunk by chunk: one element per line, an element
/// holding only text on one line, mixed content (`<p>Why <em>this</em> works</p>`) on one line
/// exactly as sent, comments, CDATA, PIs, DOCTYPEs, namespace prefixes and entity references as
/// written (entities are never expanded, so a billion laughs stays a few lines).
///
/// Memory is bounded by the largest token, not the body: it keeps the bytes of tokens not yet
/// written (a token cut by a chunk boundary is carried over, up to `tokenLimit`), the open
/// elements' names (`XMLStreamTokenizer.maxDepth`), and a look-ahead of at most
/// `lookaheadLimit` bytes (and `lookaheadTokens` tokens): whether an element is mixed content is only known once
/// text and markup have both appeared in it, or at its end tag. An element still undecided when
/// the look-ahead is full is laid out one child per line; that only changes the layout of
/// mixed content whose first text comes more than `lookaheadLimit` bytes (or `lookaheadTokens`
/// tokens) into the element.
///
/// The output depends only on the bytes, never on where the chunks were cut. When the body turns
/// out not to be well-formed (or passes a limit), `failure` is set, the formatted output so far
/// ends with a line break, and the rest of the body — from the first byte not yet shown — is
/// passed through as sent (control characters made visible on a terminal), as
/// `JSONStreamFormatter` does.
final class XMLStreamFormatter {
    /// A single token (a tag, a text run, a comment…) longer than this ends formatting.
    static let tokenLimit = 16 << 20
    /// With `settle`, pending bytes up to this size are tokenized as soon as a terminator comes.
    static let settleLimit = 64 * 1024
    /// Bytes of tokens held back at most while an element's layout is undecided.
    static let lookaheadLimit = 1 << 20
    /// Tokens held back at most, likewise (each costs some 64 bytes: `<b/>` is 4).
    static let lookaheadTokens = 1 << 16
    /// Levels beyond this are not indented further (hostile nesting stays linear).
    static let maxIndentDepth = 64

    /// All state lives in a struct that `feed` and `finish` take out and put back, so the
    /// per-token work pays no dynamic exclusivity checks on class properties.
    private var machine: Machine

    /// - Parameters:
    ///   - theme: colours, or nil.
    ///   - sanitize: for a terminal: control characters are made visible.
    ///   - indent: spaces per level.
    init(theme: Theme?, sanitize: Bool, indent: Int = 2) {
        machine = Machine(theme: theme, sanitize: sanitize, indent: indent)
    }

    /// Body bytes held right now (tokens not yet written, a partial token): what bounds this
    /// formatter's memory.
    var heldBytes: Int { machine.buffer.count }

    /// Why formatting stopped (not well-formed, or a limit), with the body offset; nil while
    /// everything seen so far was fine.
    var failure: XMLTokenizer.SyntaxError? { machine.failure }

    /// Formats one chunk, appending what can be written to `out`.
    /// - Parameter settle: tokenize everything complete now, rather than waiting for a partial
    ///   token to double (the caller's fixed checkpoints, so what is written by then does not
    ///   depend on the chunking).
    ///   With `checkpoint` (fixed offsets of the caller's window) even a token whose end has not
    ///   come is tokenized, so an error that shows before it is found at the same place however
    ///   the body was cut.
    func feed(_ chunk: UnsafeRawBufferPointer, into out: inout [UInt8], settle: Bool = false, checkpoint: Bool = false) {
        var m = takeMachine()
        m.feed(chunk, into: &out, settle: settle, checkpoint: checkpoint)
        machine = m
    }

    /// Ends the body: writes what was held back and checks that the document is complete.
    func finish(into out: inout [UInt8]) {
        var m = takeMachine()
        m.finish(into: &out)
        machine = m
    }

    /// The state, leaving an empty one behind so that its arrays stay uniquely referenced.
    private func takeMachine() -> Machine {
        var m = Machine(theme: nil, sanitize: false, indent: 0)
        swap(&m, &machine)
        return m
    }

    private struct Machine {
        struct Pending {
            var token: XMLStreamToken
            /// For a start tag: whether the element is mixed content (-1 not known yet).
            var mixed: Int8 = -1
        }

        /// An open element, for the mixed-content decision.
        struct OpenElement {
            var sequence: Int
            var text = false
            var markup = false
        }

        let theme: Theme?
        let sanitize: Bool
        let indent: Int
        let reset: [UInt8]

        var tokenizer = XMLStreamTokenizer()
        /// Body bytes from offset `bufferBase` on: the tokens not yet written and what follows.
        var buffer: [UInt8] = []
        var bufferBase = 0
        /// Where the next token starts, and how many bytes came in.
        var scanned = 0
        var total = 0
        /// Unscanned bytes when the tokenizer last asked for more: it is asked again once they
        /// have doubled, so a long token arriving in small chunks is not rescanned quadratically.
        var waitingFor = 0
        /// Whether the byte that can end the token at `scanned` (`>` for markup, `<` after text) has
        /// come, looked for up to `searchedTo`: until then the tokenizer is not asked at all.
        var terminatorSeen = false
        var searchedTo = 0

        /// Tokens received but not written, from `head` on; `queue[0]` is token number `queueBase`.
        var queue: [Pending] = []
        var head = 0
        var queueBase = 0
        var received = 0
        var open: [OpenElement] = []

        var depth = 0
        var first = true
        /// Inside a mixed-content element written on one line: its open levels.
        var inlineLevel = 0

        var passing = false
        var sanitizer = TerminalSanitizer()

        var failure: XMLTokenizer.SyntaxError?
        /// The body's bytes checked as UTF-8 as they come (what reaches the formatter is UTF-8:
        /// other charsets were converted), and the offset of the first one that is not: the
        /// token holding it ends formatting, as a syntax error does (it was formatted, and passed
        /// `--decode xml`, where a parser stops: XML 1.0 §4.3.3).
        var utf8 = UTF8SequenceTracker()
        /// The first byte that is not UTF-8: its offset and value (kept here: the buffer may no
        /// longer hold it when a token is found to contain it).
        var notUTF8: (offset: Int, byte: UInt8)?
        /// Where the sequence `utf8` holds began (the byte a fault is reported at).
        var sequenceStart = 0

        /// Notes the first byte fed to `utf8` that was not UTF-8 (a sequence cut short reports
        /// its lead byte first).
        struct InvalidByteSink: VisibleTextSink {
            var first: UInt8?
            mutating func text(_ byte: UInt8) {}
            mutating func c1(_ byte: UInt8) {}
            mutating func invalid(_ byte: UInt8) { if first == nil { first = byte } }
        }

        init(theme: Theme?, sanitize: Bool, indent: Int) {
            self.theme = theme
            self.sanitize = sanitize
            self.indent = indent
            reset = Array((theme?.reset ?? "").utf8)
        }

        mutating func feed(_ chunk: UnsafeRawBufferPointer, into out: inout [UInt8], settle: Bool = false,
                           checkpoint: Bool = false) {
            if passing {
                passThrough(chunk, &out)
                return
            }
            buffer.append(contentsOf: chunk)
            if notUTF8 == nil { checkUTF8(chunk, at: total) }
            total += chunk.count
            if !terminatorSeen { lookForTerminator() }
            let unscanned = total - scanned
            // At a checkpoint everything so far is tokenized even without a terminator (an error
            // can show before one comes), so what is decided there does not depend on chunking.
            // Otherwise only after a terminator: at once while the pending bytes are small
            // (`settle`, --stream), else when they have doubled, so a long token is never
            // rescanned for every chunk.
            let soon = settle && unscanned <= XMLStreamFormatter.settleLimit
            if unscanned > XMLStreamFormatter.tokenLimit || settle && checkpoint
                || (terminatorSeen && (soon || unscanned >= 2 * waitingFor)) {
                scan(final: false, &out)
            }
            // A byte that is not UTF-8 in a token not complete yet: found at the checkpoint, as
            // a syntax error there is (in the caller's window it was found only past it).
            if settle && checkpoint, failure == nil, let bad = notUTF8 { failNotUTF8(bad, &out) }
            compact()
        }

        /// Feeds `chunk` (at body offset `offset`) to the UTF-8 check. ASCII is skipped eight
        /// bytes at a time and a sequence whole in the chunk is checked where it lies
        /// (`UTF8SequenceTracker.validSequenceLength`, as the JSON formatter checks it); one that
        /// is not valid, or is cut by the chunk's end, goes through the tracker byte by byte (all
        /// of it so cost a 37 MB document a tenth of its formatting time, a third in CJK).
        mutating func checkUTF8(_ chunk: UnsafeRawBufferPointer, at offset: Int) {
            guard let base = chunk.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            let n = chunk.count
            var i = 0
            var sink = InvalidByteSink()
            // The rest of a sequence the last chunk cut, or one not valid: the tracker's.
            func track() -> Bool {
                repeat {
                    if !utf8.isHolding { sequenceStart = offset + i }
                    _ = utf8.feed(base[i], into: &sink)
                    if let bad = sink.first {
                        notUTF8 = (sequenceStart, bad)
                        return false
                    }
                    i += 1
                } while i < n && utf8.isHolding
                return true
            }
            if utf8.isHolding && !track() { return }
            while i < n {
                while i + 8 <= n, UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0 { i += 8 }
                while i < n, base[i] < 0x80 { i += 1 }
                guard i < n else { return }
                let length = UTF8SequenceTracker.validSequenceLength(base, i, n)
                if length > 0 {
                    i += length
                } else if !track() {
                    return
                }
            }
        }

        /// Ends formatting at the first byte that is not UTF-8.
        mutating func failNotUTF8(_ bad: (offset: Int, byte: UInt8), _ out: inout [UInt8]) {
            fail(XMLTokenizer.SyntaxError(reason: "a byte that is not UTF-8 (0x\(String(bad.byte, radix: 16, uppercase: true)))", offset: bad.offset), &out)
        }

        /// Looks through the bytes not searched yet for one that could end the token at `scanned`.
        /// Every token ends at such a byte, so none is complete before it comes; what is decided
        /// here depends only on the bytes so far, like the tokenizer's own answer.
        mutating func lookForTerminator() {
            let from = max(searchedTo, scanned + 1)
            searchedTo = total
            guard from < total else { return }
            let end: UInt8 = byte(scanned) == UInt8(ascii: "<") ? UInt8(ascii: ">") : UInt8(ascii: "<")
            terminatorSeen = buffer.withUnsafeBytes { raw in
                guard let base = raw.baseAddress else { return false }
                return memchr(base + (from - bufferBase), Int32(end), total - from) != nil
            }
        }

        mutating func finish(into out: inout [UInt8]) {
            if notUTF8 == nil, utf8.isHolding {
                // A sequence cut short by the body's end.
                var sink = InvalidByteSink()
                utf8.flush(into: &sink)
                if let bad = sink.first { notUTF8 = (sequenceStart, bad) }
            }
            if !passing {
                scan(final: true, &out)
            }
            if failure == nil {
                do throws(XMLTokenizer.SyntaxError) {
                    try tokenizer.finish(length: total)
                    pump(final: true, &out)
                } catch {
                    fail(error, &out)
                }
            }
            if passing { sanitizer.finish(into: &out) }
        }

        // MARK: Tokens

        mutating func scan(final: Bool, _ out: inout [UInt8]) {
            while failure == nil {
                // The tokenizer sees at most one byte past the limit of the token, so whether a
                // long token ends in the limit or in a syntax error further on never depends on
                // how many bytes had come when it was asked.
                let from = scanned - bufferBase
                let result: Result<XMLStreamToken?, XMLTokenizer.SyntaxError> = buffer.withUnsafeBufferPointer { all in
                    let b = final ? all : UnsafeBufferPointer(rebasing: all[..<min(all.count, from + XMLStreamFormatter.tokenLimit + 1)])
                    do throws(XMLTokenizer.SyntaxError) {
                        return .success(try tokenizer.next(in: b, at: from, base: bufferBase, final: final))
                    } catch {
                        return .failure(error)
                    }
                }
                switch result {
                case .failure(let error):
                    fail(error, &out)
                case .success(nil):
                    // Not complete with every byte so far: the byte that completes it is still
                    // to come, so only new bytes are searched for a terminator.
                    waitingFor = total - scanned
                    terminatorSeen = false
                    searchedTo = total
                    if !final && waitingFor > XMLStreamFormatter.tokenLimit {
                        fail(tokenTooLong(at: scanned), &out)
                    }
                    return
                case .success(let token?):
                    // Checked on whole tokens too, so that the limit does not depend on whether
                    // the token came in one chunk or many.
                    guard token.end - token.start <= XMLStreamFormatter.tokenLimit else {
                        return fail(tokenTooLong(at: token.start), &out)
                    }
                    if let bad = notUTF8, token.end > bad.offset { return failNotUTF8(bad, &out) }
                    scanned = token.end
                    receive(token, &out)
                }
            }
        }

        private func tokenTooLong(at offset: Int) -> XMLTokenizer.SyntaxError {
            XMLTokenizer.SyntaxError(reason: "a single token (tag, text, comment…) longer than \(XMLStreamFormatter.tokenLimit >> 20) MiB, the limit",
                                     offset: offset, isLimit: true)
        }

        /// Notes what `token` says about mixed content, queues it, and writes what can be written.
        mutating func receive(_ token: XMLStreamToken, _ out: inout [UInt8]) {
            var layout: Int8 = -1
            switch token.kind {
            case .startTag:
                if !open.isEmpty { sawInOpenElement(text: false) }
                if !token.selfClosing {
                    open.append(OpenElement(sequence: received))
                    // `xml:space="preserve"` (XML 1.0 §2.10): its white space is content, so the
                    // element is written as sent, as mixed content is (it was re-indented).
                    if preservesSpace(token) {
                        open[open.count - 1].text = true
                        open[open.count - 1].markup = true
                        layout = 1
                    }
                }
            case .endTag:
                if let e = open.popLast(), !(e.text && e.markup) { decide(e.sequence, mixed: false) }
            case .text:
                if !open.isEmpty && !isBlank(token.start, token.end) { sawInOpenElement(text: true) }
            case .cdata:
                // Text, and all of it significant (whitespace too): an element holding CDATA is
                // written as sent, as mixed content is (re-indented, `<d><![CDATA[x]]></d>` got
                // line breaks and indentation inside its text).
                if !open.isEmpty { sawInOpenElement(text: true); sawInOpenElement(text: false) }
            case .comment, .processingInstruction:
                if !open.isEmpty { sawInOpenElement(text: false) }
            case .doctype:
                break
            }
            queue.append(Pending(token: token, mixed: layout))
            received += 1
            pump(final: false, &out)
        }

        /// Whether a start tag says `xml:space="preserve"`.
        func preservesSpace(_ token: XMLStreamToken) -> Bool {
            let a = token.attributes
            var i = 0
            while i + 3 < a.count {
                if matches(a[i], a[i + 1], "xml:space") && matches(a[i + 2] + 1, a[i + 3] - 1, "preserve") { return true }
                i += 4
            }
            return false
        }

        /// Whether the body's bytes `s..<e` are `word`.
        private func matches(_ s: Int, _ e: Int, _ word: StaticString) -> Bool {
            guard e - s == word.utf8CodeUnitCount else { return false }
            let w = word.utf8Start
            for k in 0..<(e - s) where byte(s + k) != w[k] { return false }
            return true
        }

        mutating func sawInOpenElement(text: Bool) {
            let top = open.count - 1
            let before = open[top].text && open[top].markup
            if text { open[top].text = true } else { open[top].markup = true }
            if !before && open[top].text && open[top].markup { decide(open[top].sequence, mixed: true) }
        }

        /// Records an element's layout while its start tag is still waiting to be written.
        mutating func decide(_ sequence: Int, mixed: Bool) {
            let k = sequence - queueBase
            if k >= head && k < queue.count { queue[k].mixed = mixed ? 1 : 0 }
        }

        /// Writes queued tokens as far as their layout is known.
        mutating func pump(final: Bool, _ out: inout [UInt8]) {
            while head < queue.count {
                let token = queue[head].token
                if inlineLevel > 0 {
                    writeInline(token, &out)
                    if token.kind == .startTag && !token.selfClosing { inlineLevel += 1 }
                    if token.kind == .endTag { inlineLevel -= 1 }
                    head += 1
                    continue
                }
                switch token.kind {
                case .processingInstruction, .doctype:
                    line(&out); paint(token.start, token.end, theme?.xmlProcessing, &out)
                case .comment:
                    line(&out); paint(token.start, token.end, theme?.xmlComment, &out)
                case .cdata:
                    line(&out); paint(token.start, token.end, theme?.jsonString, &out)
                case .text:
                    var s = token.start, e = token.end
                    while s < e && XMLTokenizer.isSpace(byte(s)) { s += 1 }
                    while e > s && XMLTokenizer.isSpace(byte(e - 1)) { e -= 1 }
                    if s < e { line(&out); content(s, e, &out) }
                case .endTag:
                    depth -= 1
                    line(&out); endTag(token, &out)
                case .startTag where token.selfClosing:
                    line(&out); startTag(token, &out)
                case .startTag:
                    let available = queue.count - head
                    var mixed = queue[head].mixed
                    if mixed < 0 {
                        // Undecided: wait, unless the look-ahead is full (then one child per line).
                        let full = scanned - token.start > XMLStreamFormatter.lookaheadLimit
                            || available > XMLStreamFormatter.lookaheadTokens
                        guard final || (full && available >= 3) else { return }
                        mixed = 0
                    }
                    if mixed == 1 {
                        line(&out)
                        startTag(token, &out)
                        inlineLevel = 1
                        head += 1
                        continue
                    }
                    // <a></a> and <a>text</a> stay on one line: the next two tokens tell.
                    if !final && available < 3 && !(available == 2 && queue[head + 1].token.kind == .endTag) { return }
                    line(&out)
                    startTag(token, &out)
                    if available >= 2, queue[head + 1].token.kind == .endTag {
                        endTag(queue[head + 1].token, &out)
                        head += 2
                        continue
                    }
                    if available >= 3, queue[head + 1].token.kind == .text, queue[head + 2].token.kind == .endTag {
                        content(queue[head + 1].token.start, queue[head + 1].token.end, &out)
                        endTag(queue[head + 2].token, &out)
                        head += 3
                        continue
                    }
                    depth += 1
                }
                head += 1
            }
        }

        private func writeInline(_ token: XMLStreamToken, _ out: inout [UInt8]) {
            switch token.kind {
            case .startTag: startTag(token, &out)
            case .endTag: endTag(token, &out)
            case .text: content(token.start, token.end, &out)
            case .cdata: paint(token.start, token.end, theme?.jsonString, &out)
            case .comment: paint(token.start, token.end, theme?.xmlComment, &out)
            case .processingInstruction, .doctype: paint(token.start, token.end, theme?.xmlProcessing, &out)
            }
        }

        // MARK: Failure and memory

        /// Stops formatting: the rest of the body, from the first byte not yet written, is passed
        /// through as sent.
        mutating func fail(_ error: XMLTokenizer.SyntaxError, _ out: inout [UInt8]) {
            failure = error
            passing = true
            if !first { out.append(0x0A) }
            let from = (head < queue.count ? queue[head].token.start : scanned) - bufferBase
            buffer[from...].withUnsafeBytes { passThrough($0, &out) }
            buffer = []
            queue = []
            head = 0
            open = []
        }

        mutating func passThrough(_ bytes: UnsafeRawBufferPointer, _ out: inout [UInt8]) {
            if sanitize {
                sanitizer.append(bytes, to: &out)
            } else {
                out.append(contentsOf: bytes)
            }
        }

        /// Drops bytes and tokens that were written, once they are most of what is held.
        mutating func compact() {
            guard !passing else { return }
            if head > 1024 && head * 2 > queue.count {
                queue.removeFirst(head)
                queueBase += head
                head = 0
            }
            let keep = (head < queue.count ? queue[head].token.start : scanned) - bufferBase
            if keep > 1 << 16 && keep * 2 > buffer.count {
                buffer.removeFirst(keep)
                bufferBase += keep
            }
        }

        // MARK: Writing

        @inline(__always) private func byte(_ offset: Int) -> UInt8 { buffer[offset - bufferBase] }

        private func isBlank(_ s: Int, _ e: Int) -> Bool {
            var k = s
            while k < e {
                if !XMLTokenizer.isSpace(byte(k)) { return false }
                k += 1
            }
            return true
        }

        mutating func line(_ out: inout [UInt8]) {
            if !first { out.append(0x0A) }
            first = false
            let count = max(0, min(depth, XMLStreamFormatter.maxIndentDepth)) * indent
            if count > 0 { out.append(contentsOf: repeatElement(0x20, count: count)) }
        }

        private func content(_ s: Int, _ e: Int, _ out: inout [UInt8]) {
            guard s < e else { return }
            buffer[(s - bufferBase)..<(e - bufferBase)].withUnsafeBytes { bytes in
                if sanitize {
                    var sanitizer = TerminalSanitizer()
                    sanitizer.append(bytes, to: &out)
                    sanitizer.finish(into: &out)
                } else {
                    out.append(contentsOf: bytes)
                }
            }
        }

        private func paint(_ s: Int, _ e: Int, _ color: String?, _ out: inout [UInt8]) {
            if let color { out += Array(color.utf8) }
            content(s, e, &out)
            if color != nil { out += reset }
        }

        private func startTag(_ token: XMLStreamToken, _ out: inout [UInt8]) {
            if let c = theme?.xmlTag { out += Array(c.utf8) }
            out.append(UInt8(ascii: "<"))
            content(token.nameStart, token.nameEnd, &out)
            let a = token.attributes
            if !a.isEmpty {
                out += reset
                var k = 0
                while k + 3 < a.count {
                    out.append(0x20)
                    paint(a[k], a[k + 1], theme?.xmlAttribute, &out)
                    out.append(UInt8(ascii: "="))
                    paint(a[k + 2], a[k + 3], theme?.jsonString, &out)
                    k += 4
                }
                if let c = theme?.xmlTag { out += Array(c.utf8) }
            }
            if token.selfClosing { out.append(UInt8(ascii: "/")) }
            out.append(UInt8(ascii: ">"))
            out += reset
        }

        private func endTag(_ token: XMLStreamToken, _ out: inout [UInt8]) {
            if let c = theme?.xmlTag { out += Array(c.utf8) }
            out += [UInt8(ascii: "<"), UInt8(ascii: "/")]
            content(token.nameStart, token.nameEnd, &out)
            out.append(UInt8(ascii: ">"))
            out += reset
        }
    }
}
