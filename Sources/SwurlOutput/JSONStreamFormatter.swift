import SwurlCore
/// Indents and colours JSON as it streams in, chunk by chunk, without building a tree: key
/// order, number literals and string escapes stay exactly as sent, and memory stays constant
/// whatever the body's size. Several top-level values (JSON Lines) are formatted one by one.
/// Text that turns out not to be JSON is passed through from that point on, and `isValid`
/// becomes false so the caller can add a note.
///
/// The hot loop works on raw pointers: input bytes are classified with lookup tables, string and
/// literal runs are copied while they are scanned, and output goes to a growable buffer that is
/// appended to the caller's array once per chunk. All loop state lives in a struct that is
/// copied in and out once per chunk, so the loop pays no dynamic exclusivity checks.
package final class JSONStreamFormatter {
    // What may come next.
    fileprivate enum Expect: UInt8 {
        case value, arrayFirst, objectFirst, key, colon, afterValue
    }

    // Byte classes for the structural loop.
    fileprivate static let classWhitespace: UInt8 = 1
    fileprivate static let classLiteral: UInt8 = 2
    private static let classes: [UInt8] = {
        var t = [UInt8](repeating: 0, count: 256)
        for b in [0x20, 0x09, 0x0A, 0x0D] { t[b] = classWhitespace }
        for b in UInt8(ascii: "0")...UInt8(ascii: "9") { t[Int(b)] = classLiteral }
        for b in UInt8(ascii: "a")...UInt8(ascii: "z") { t[Int(b)] = classLiteral }
        for b in UInt8(ascii: "A")...UInt8(ascii: "Z") { t[Int(b)] = classLiteral }
        for c in "+-." { t[Int(c.asciiValue ?? 0)] = classLiteral }
        return t
    }()
    /// Bytes that end a plain run inside a string: quote, backslash, controls, and every
    /// non-ASCII byte, so that UTF-8 is checked sequence by sequence (JSON text is UTF-8, RFC
    /// 8259 §8.1: a body with bytes that are not is not JSON, as the tree parser says too).
    private static let stringStops: [Bool] = {
        var t = [Bool](repeating: false, count: 256)
        for b in 0..<0x20 { t[b] = true }
        t[0x22] = true
        t[0x5C] = true
        for b in 0x80...0xFF { t[b] = true }
        return t
    }()
    /// The same when sanitizing: DEL also ends a run. C1 controls (U+0080…U+009F, such as CSI)
    /// become `\u00XX` escapes, bytes that are not UTF-8 at all (a lone 0x9B) become `\xNN`.
    private static let stringStopsSanitizing: [Bool] = {
        var t = stringStops
        t[0x7F] = true
        return t
    }()
    /// Number validation as a table-driven DFA: `numberTable[state * 256 + byte]`.
    /// States: 0 start, 1 minus, 2 zero, 3 int, 4 dot, 5 frac, 6 e, 7 e-sign, 8 exp, 9 bad.
    private static let numberTable: [UInt8] = {
        var t = [UInt8](repeating: 9, count: 10 * 256)
        func set(_ s: Int, _ c: UInt8, _ to: UInt8) { t[s * 256 + Int(c)] = to }
        let digits = Array(UInt8(ascii: "0")...UInt8(ascii: "9"))
        set(0, UInt8(ascii: "-"), 1)
        set(0, 0x30, 2); set(1, 0x30, 2)
        for d in digits.dropFirst() { set(0, d, 3); set(1, d, 3) }
        for d in digits { set(3, d, 3); set(4, d, 5); set(5, d, 5); set(6, d, 8); set(7, d, 8); set(8, d, 8) }
        for s in [2, 3] { set(s, UInt8(ascii: "."), 4) }
        for s in [2, 3, 5] { set(s, UInt8(ascii: "e"), 6); set(s, UInt8(ascii: "E"), 6) }
        set(6, UInt8(ascii: "+"), 7); set(6, UInt8(ascii: "-"), 7)
        return t
    }()
    fileprivate static let spacesCount = 4096
    /// Levels beyond this are not indented further, so hostile nesting cannot make the output
    /// quadratic in the input.
    static let maxIndentDepth = 64

    private var m: FormatterMachine
    private let sanitize: Bool
    private let colored: Bool
    private let reset: [UInt8]
    private let colorStorage: UnsafeMutablePointer<UInt8>
    private let spaces: UnsafeMutablePointer<UInt8>
    private var failed = false
    private var sanitizer = TerminalSanitizer()

    /// Whether everything seen so far was well-formed JSON (and, after `finish`, complete), its
    /// strings' encoding aside (`isValidText`).
    package var isValid: Bool { m.valid }
    /// Whether every string so far was valid UTF-8 with its `\u` surrogates in pairs (RFC 8259
    /// §8.1, §8.2). A string that is not is still formatted (on a terminal its stray bytes as
    /// `\xNN`), but the body is not JSON: a strict `--decode json` refuses it, as the tree
    /// parser does.
    package var isValidText: Bool { m.textValid }
    /// Whether the formatter gave up and passes the rest through as text.
    package var hasFailed: Bool { failed }

    /// - Parameters:
    ///   - theme: colours, or nil for plain indentation.
    ///   - indent: spaces per level (HTTPie uses 4).
    ///   - sanitize: for a terminal: C1 controls (U+0080…U+009F) and DEL inside strings are written
    ///     as `\u00XX` escapes (the output stays valid JSON), bytes that are not valid UTF-8 as
    ///     `\xNN` (no JSON can hold them anyway), and control characters in text passed through
    ///     after a syntax error are made visible.
    ///   - fastPath: whether the token-at-a-time fast path runs (tests compare it with the general loop).
    init(theme: Theme?, indent: Int = 4, sanitize: Bool, fastPath: Bool) {
        colored = theme != nil
        reset = Array((theme?.reset ?? "").utf8)
        self.sanitize = sanitize
        let parts = [theme?.jsonKey, theme?.jsonString, theme?.jsonNumber, theme?.jsonLiteral, theme?.reset]
            .map { Array(($0 ?? "").utf8) }
        // 16 spare bytes: `put(ColorSpan)` always loads 16 bytes from a span's start.
        let colorBytes = parts.reduce(0) { $0 + $1.count }
        colorStorage = .allocate(capacity: colorBytes + 16)
        (colorStorage + colorBytes).initialize(repeating: 0, count: 16)
        var spans: [ColorSpan] = []
        var at = 0
        for part in parts {
            (colorStorage + at).initialize(from: part, count: part.count)
            spans.append(ColorSpan(bytes: UnsafePointer(colorStorage + at), count: part.count))
            at += part.count
        }
        spaces = .allocate(capacity: JSONStreamFormatter.spacesCount)
        spaces.initialize(repeating: 0x20, count: JSONStreamFormatter.spacesCount)
        m = FormatterMachine(indent: max(0, indent), spaces: UnsafePointer(spaces),
                             key: spans[0], string: spans[1], number: spans[2], literal: spans[3], reset: spans[4])
        m.sanitizing = sanitize
        m.fastPath = fastPath
    }

    /// Whether a top-level value's line ends as the value does (`-S`: a stream of documents
    /// hands each whole line to a reader as it arrives), rather than when the next one starts.
    package var endsLinesAtOnce: Bool {
        get { m.endsLinesAtOnce }
        set { m.endsLinesAtOnce = newValue }
    }

    package convenience init(theme: Theme?, indent: Int = 4, sanitize: Bool) {
        self.init(theme: theme, indent: indent, sanitize: sanitize, fastPath: true)
    }

    deinit {
        m.release()
        colorStorage.deallocate()
        spaces.deallocate()
    }

    /// Formats one chunk, appending to `out`.
    package func feed(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        guard let raw = bytes.baseAddress, bytes.count > 0 else { return }
        if failed {
            passThrough(bytes, &out)
            return
        }
        let p = raw.assumingMemoryBound(to: UInt8.self)
        let n = bytes.count
        var stop = n
        var machine = m
        JSONStreamFormatter.classes.withUnsafeBufferPointer { classes in
            (sanitize ? JSONStreamFormatter.stringStopsSanitizing : JSONStreamFormatter.stringStops).withUnsafeBufferPointer { stops in
                JSONStreamFormatter.numberTable.withUnsafeBufferPointer { numbers in
                    guard let c = classes.baseAddress, let s = stops.baseAddress, let t = numbers.baseAddress else { return }
                    stop = machine.run(p, n, c, s, t)
                }
            }
        }
        if stop < n { machine.fail(); failed = true }
        machine.flush(into: &out)
        m = machine
        if failed && stop < n {
            passThrough(UnsafeRawBufferPointer(start: raw + stop, count: n - stop), &out)
        }
    }

    private func passThrough(_ bytes: UnsafeRawBufferPointer, _ out: inout [UInt8]) {
        if sanitize {
            sanitizer.append(bytes, to: &out)
        } else {
            out.append(contentsOf: bytes)
        }
    }

    /// Ends the document: closes an open literal and checks that nothing was left open.
    package func finish(into out: inout [UInt8]) {
        var machine = m
        if machine.inLiteral { machine.endLiteral() }
        if machine.utf8.isHolding {
            // The body ended inside a string in the middle of a UTF-8 sequence (its bytes settle
            // a backslash held before them as `\x5c`).
            var tracker = machine.utf8
            tracker.flush(into: &machine)
            machine.utf8 = tracker
        }
        // The body ended right after a backslash inside a string.
        machine.settleBackslash(beforeEscape: false)
        machine.flush(into: &out)
        sanitizer.finish(into: &out)
        if !failed && (machine.inString || machine.depth > 0 || !machine.sawValue || machine.expect == .colon) {
            machine.valid = false
            if colored { out += reset }
        }
        m = machine
    }
}

/// A colour sequence in the formatter's storage.
private struct ColorSpan {
    let bytes: UnsafePointer<UInt8>
    let count: Int
}

private func pack(_ s: String) -> UInt64 { s.utf8.reduce(0) { $0 << 8 | UInt64($1) } }
private let packedTrue = pack("true"), packedFalse = pack("false"), packedNull = pack("null")

private let ones: UInt64 = 0x0101_0101_0101_0101
private let highs: UInt64 = 0x8080_8080_8080_8080

/// High bit set in every byte of `x` that is zero; exact for the lowest such byte (a borrow only
/// flags bytes above a true zero), which is all the scan needs.
@inline(__always) private func zeroBytes(_ x: UInt64) -> UInt64 { (x &- ones) & ~x & highs }

/// High bit set in the bytes of `word` that end a plain run inside a string: `"`, `\`, bytes
/// below 0x20, every byte of 0x80 or more and, when sanitizing, DEL. Exact for the lowest
/// flagged byte (little-endian: the first in memory).
@inline(__always) private func stringStopMask(_ word: UInt64, _ sanitizing: Bool) -> UInt64 {
    var m = zeroBytes(word ^ (ones &* 0x22)) | zeroBytes(word ^ (ones &* 0x5C)) | ((word &- ones &* 0x20) & ~word & highs)
        | (word & highs)
    if sanitizing { m |= zeroBytes(word ^ (ones &* 0x7F)) }
    return m
}

@inline(__always) private func isHex(_ c: UInt8) -> Bool {
    (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)
}

/// The formatter's state and output buffer. It owns two allocations (output, container stack),
/// released by `release()`.
private struct FormatterMachine {
    typealias Expect = JSONStreamFormatter.Expect

    // Output buffer.
    var o: UnsafeMutablePointer<UInt8>
    var olen = 0
    var ocap: Int
    // Container stack: one byte per level (1 object, 0 array).
    var stack: UnsafeMutablePointer<UInt8>
    var stackCap = 64
    var depth = 0
    // Parser state, kept across chunks.
    var expect = Expect.value
    var topLevelDone = false
    var endsLinesAtOnce = false
    var sawValue = false
    var valid = true
    /// Whether the strings' bytes were UTF-8 and their `\u` surrogates paired (`isValidText`).
    var textValid = true
    var inString = false
    var escapeState = 0             // 0 none, 1 after backslash, 2…5 hex digits left + 1
    /// The value of the `\u` escape being read.
    var escapeValue: UInt32 = 0
    /// Whether a `\u` high surrogate was read, so the next bytes must be a low one's escape.
    var wantsLowSurrogate = false
    /// Sanitizing: a backslash read but not written yet. It is written once the byte after it
    /// is known: as `\` before an escape's letter or plain text, as `\x5c` before a byte shown
    /// as `\xNN` or `\u00XX`, so that the pair never reads as an escaped backslash followed by
    /// text (`"\<E5>"` shown as `"\\xe5"` would be valid JSON of another string).
    var heldBackslash = false
    /// Sanitizing: the UTF-8 sequence a string is in the middle of (possibly across chunks).
    var utf8 = UTF8SequenceTracker()
    var inLiteral = false
    var literalIsNumber = false
    var numberState = 0
    var keyword: UInt64 = 0         // packed bytes of true/false/null
    var keywordLength = 0
    // Configuration.
    let indent: Int
    let spaces: UnsafePointer<UInt8>
    /// Whether string runs also stop at DEL and non-ASCII bytes (the sanitizing stop table).
    var sanitizing = false
    /// Whether `fast` may run (off only in tests, to compare the two loops).
    var fastPath = true
    let keyC, strC, numC, litC, resetC: ColorSpan
    /// Output room the fast path reserves per token on top of the input left: the deepest
    /// indentation, colour spans and slack for whole-word stores.
    let tokenRoom: Int

    init(indent: Int, spaces: UnsafePointer<UInt8>, key: ColorSpan, string: ColorSpan, number: ColorSpan,
         literal: ColorSpan, reset: ColorSpan) {
        self.indent = indent
        self.spaces = spaces
        keyC = key; strC = string; numC = number; litC = literal; resetC = reset
        tokenRoom = JSONStreamFormatter.maxIndentDepth * indent + 2 * max(key.count, string.count, number.count, literal.count)
            + 2 * reset.count + 128
        ocap = 1 << 16
        o = .allocate(capacity: ocap)
        stack = .allocate(capacity: stackCap)
    }

    func release() {
        o.deallocate()
        stack.deallocate()
    }

    /// Room that every `ensure` adds on top: colour spans and indentation are written in whole
    /// 8- and 16-byte stores that may run a little past what they count.
    static let slack = 32

    @inline(__always) mutating func ensure(_ need: Int) {
        if olen &+ need &+ FormatterMachine.slack > ocap { grow(olen &+ need &+ FormatterMachine.slack) }
    }

    mutating func grow(_ need: Int) {
        moveToLargerAllocation(&o, capacity: &ocap, used: olen, needed: need)
    }

    @inline(__always) mutating func put(_ b: UInt8) { o[olen] = b; olen &+= 1 }

    @inline(__always) mutating func put(_ c: ColorSpan) {
        // Colour codes are a few bytes: two 8-byte stores (the storage is padded and the output
        // has slack) beat a loop or a memmove call.
        let dst = UnsafeMutableRawPointer(o + olen)
        let src = UnsafeRawPointer(c.bytes)
        if c.count <= 16 {
            dst.storeBytes(of: src.loadUnaligned(as: UInt64.self), as: UInt64.self)
            dst.storeBytes(of: src.loadUnaligned(fromByteOffset: 8, as: UInt64.self), toByteOffset: 8, as: UInt64.self)
        } else {
            var k = 0
            while k < c.count { o[olen &+ k] = c.bytes[k]; k &+= 1 }
        }
        olen &+= c.count
    }

    /// Newline plus indentation; the caller reserved room.
    @inline(__always) mutating func newline(_ d: Int) {
        o[olen] = 0x0A
        olen &+= 1
        // Eight spaces per store; the caller reserved the indentation plus slack.
        let count = min(d, JSONStreamFormatter.maxIndentDepth) &* indent
        let dst = UnsafeMutableRawPointer(o + olen)
        var k = 0
        while k < count {
            dst.storeBytes(of: 0x2020_2020_2020_2020 as UInt64, toByteOffset: k, as: UInt64.self)
            k &+= 8
        }
        olen &+= count
    }

    @inline(__always) mutating func beforeValue() {
        if expect == .arrayFirst || expect == .objectFirst {
            newline(depth)
        } else if depth == 0 && topLevelDone {
            put(0x0A)
            topLevelDone = false
        }
        sawValue = true
    }

    /// Checks that a value may start here and writes the separator it needs.
    @inline(__always) mutating func startValue() -> Bool {
        switch expect {
        case .value, .arrayFirst: beforeValue(); return true
        case .afterValue where depth == 0: beforeValue(); return true
        default: return false
        }
    }

    @inline(__always) mutating func valueEnded() {
        expect = .afterValue
        guard depth == 0 else { return }
        if endsLinesAtOnce {
            ensure(1)
            put(0x0A)
        } else {
            topLevelDone = true
        }
    }

    mutating func endLiteral() {
        inLiteral = false
        if literalIsNumber {
            if !(numberState == 2 || numberState == 3 || numberState == 5 || numberState == 8) { valid = false }
        } else if keywordLength > 5 || !(keyword == packedTrue || keyword == packedFalse || keyword == packedNull) {
            valid = false
        }
        ensure(resetC.count)
        put(resetC)
        valueEnded()
    }

    mutating func fail() {
        valid = false
        ensure(resetC.count + 1)
        put(resetC)
        // A line break between what was formatted and what is shown as sent, unless it would
        // fall inside a string or a number (and change its value).
        if !inString && !inLiteral { put(0x0A) }
    }

    /// `\xNN` for a byte that is not UTF-8 (sanitizing only).
    @inline(__always) mutating func putInvalid(_ b: UInt8) {
        ensure(4)
        let hex: StaticString = "0123456789abcdef"
        let h = hex.utf8Start
        put(0x5C); put(UInt8(ascii: "x"))
        put(h[Int(b >> 4)]); put(h[Int(b & 0xF)])
    }

    /// Writes a held backslash (sanitizing only): as `\x5c` when the byte after it is shown as
    /// an escape of swurl's, else as itself.
    @inline(__always) mutating func settleBackslash(beforeEscape: Bool) {
        guard heldBackslash else { return }
        heldBackslash = false
        if beforeEscape {
            putInvalid(0x5C)
        } else {
            ensure(1)
            put(0x5C)
        }
    }

    /// `\u00XX` for a C1 control or DEL inside a string (sanitizing only).
    @inline(__always) mutating func putEscaped(_ b: UInt8) {
        ensure(6)
        let hex: StaticString = "0123456789abcdef"
        let h = hex.utf8Start
        put(0x5C); put(UInt8(ascii: "u")); put(0x30); put(0x30)
        put(h[Int(b >> 4)]); put(h[Int(b & 0xF)])
    }

    mutating func flush(into out: inout [UInt8]) {
        if olen > 0 {
            out.append(contentsOf: UnsafeBufferPointer(start: o, count: olen))
            olen = 0
        }
    }

    /// The main loop; returns where it stopped (n, or the byte that is not JSON).
    mutating func run(_ p: UnsafePointer<UInt8>, _ n: Int, _ classes: UnsafePointer<UInt8>,
                      _ stops: UnsafePointer<Bool>, _ numbers: UnsafePointer<UInt8>) -> Int {
        var i = 0
        var bailed = -1
        while i < n {
            if fastPath && !inString && !inLiteral && depth > 0 && i != bailed && !utf8.isHolding {
                i = fast(p, i, n, classes, stops)
                if i >= n { return n }
                bailed = i
            }
            if inString {
                if utf8.isHolding {
                    var tracker = utf8
                    let taken = tracker.feed(p[i], into: &self)
                    utf8 = tracker
                    if taken {
                        i &+= 1
                        continue
                    }
                }
                if wantsLowSurrogate && (escapeState == 0 ? p[i] != 0x5C : escapeState == 1 && p[i] != UInt8(ascii: "u")) {
                    // A high surrogate not followed by a low one's `\u`: not a character (RFC 8259 §8.2).
                    textValid = false
                    wantsLowSurrogate = false
                }
                if escapeState != 0 {
                    let c = p[i]
                    if escapeState == 1 {
                        switch c {
                        case 0x22, 0x5C, 0x2F, UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"),
                             UInt8(ascii: "r"), UInt8(ascii: "t"):
                            escapeState = 0
                            settleBackslash(beforeEscape: false)
                        case UInt8(ascii: "u"):
                            escapeState = 5
                            escapeValue = 0
                            settleBackslash(beforeEscape: false)
                        default:
                            // Not an escape: the byte is looked at again as string content
                            // (a control character there stops the formatter). A held
                            // backslash before a non-ASCII byte waits for the UTF-8 tracker's
                            // verdict on it (`text`, `c1`, `invalid`); DEL is shown as `\u007f`.
                            valid = false
                            escapeState = 0
                            if c < 0x80 { settleBackslash(beforeEscape: c == 0x7F) }
                            continue
                        }
                    } else {
                        if !isHex(c) {
                            valid = false
                            escapeState = 0
                            wantsLowSurrogate = false
                            continue
                        }
                        escapeValue = escapeValue << 4 | UInt32(c <= 0x39 ? c &- 0x30 : (c | 0x20) &- 0x57)
                        escapeState = escapeState == 2 ? 0 : escapeState - 1
                        if escapeState == 0 { surrogateCheck() }
                    }
                    ensure(1)
                    put(c)
                    i &+= 1
                    continue
                }
                // Copy the run of plain string bytes while scanning it (see copyPlainRun).
                ensure(n - i)
                var j = i
                var w = olen
                copyPlainRun(p, &j, n, stops, sanitizing, o, &w)
                olen = w
                i = j
                guard i < n else { return n }
                let c = p[i]
                if c == 0x5C {
                    escapeState = 1
                    if sanitizing {
                        heldBackslash = true
                    } else {
                        ensure(1)
                        put(c)
                    }
                    i &+= 1
                    continue
                }
                if c < 0x20 { return i }
                if c >= 0x7F {
                    // DEL (the sanitizing stop table only), or a non-ASCII byte that starts (or
                    // fails to start) a UTF-8 sequence: whole valid ones were copied already
                    // unless sanitizing.
                    if c == 0x7F {
                        putEscaped(c)
                    } else {
                        var tracker = utf8
                        _ = tracker.feed(c, into: &self)
                        utf8 = tracker
                    }
                    i &+= 1
                    continue
                }
                ensure(1 + resetC.count)
                put(0x22)
                put(resetC)
                inString = false
                if expect != .colon { valueEnded() }
                i &+= 1
                continue
            }
            let b = p[i]
            let cls = classes[Int(b)]
            if inLiteral {
                if cls == JSONStreamFormatter.classLiteral {
                    ensure(n - i)
                    var j = i
                    var w = olen
                    let out = o
                    if literalIsNumber {
                        var st = numberState
                        while j < n {
                            let c = p[j]
                            if classes[Int(c)] != JSONStreamFormatter.classLiteral { break }
                            st = Int(numbers[st &* 256 &+ Int(c)])
                            out[w] = c
                            w &+= 1
                            j &+= 1
                        }
                        numberState = st
                    } else {
                        while j < n {
                            let c = p[j]
                            if classes[Int(c)] != JSONStreamFormatter.classLiteral { break }
                            if keywordLength < 6 { keyword = keyword << 8 | UInt64(c) }
                            keywordLength &+= 1
                            out[w] = c
                            w &+= 1
                            j &+= 1
                        }
                    }
                    olen = w
                    i = j
                    continue
                }
                endLiteral()
            }
            if cls == JSONStreamFormatter.classWhitespace {
                i &+= 1
                continue
            }
            ensure(min(depth, JSONStreamFormatter.maxIndentDepth) * indent + 64)
            switch b {
            case 0x22:
                if expect == .key || expect == .objectFirst {
                    beforeValue()
                    put(keyC)
                    expect = .colon
                } else {
                    guard startValue() else { return i }
                    put(strC)
                }
                put(0x22)
                inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard startValue() else { return i }
                put(b)
                let isObject = b == UInt8(ascii: "{")
                if depth >= stackCap {
                    let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: stackCap * 2)
                    grown.update(from: stack, count: stackCap)
                    stack.deallocate()
                    stack = grown
                    stackCap *= 2
                }
                stack[depth] = isObject ? 1 : 0
                depth &+= 1
                expect = isObject ? .objectFirst : .arrayFirst
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                let isObject = b == UInt8(ascii: "}")
                guard depth > 0, (stack[depth - 1] == 1) == isObject else { return i }
                let empty = expect == .objectFirst || expect == .arrayFirst
                guard empty || expect == .afterValue else { return i }
                depth &-= 1
                if !empty { newline(depth) }
                put(b)
                valueEnded()
            case UInt8(ascii: ","):
                guard expect == .afterValue, depth > 0 else { return i }
                put(b)
                newline(depth)
                expect = stack[depth - 1] == 1 ? .key : .value
                // The usual ", " separator: skip its space here rather than in another turn.
                if i &+ 1 < n && p[i &+ 1] == 0x20 { i &+= 1 }
            case UInt8(ascii: ":"):
                guard expect == .colon else { return i }
                put(b)
                put(0x20)
                expect = .value
                if i &+ 1 < n && p[i &+ 1] == 0x20 { i &+= 1 }
            default:
                guard cls == JSONStreamFormatter.classLiteral else { return i }
                let isNumber = b == UInt8(ascii: "-") || (b >= 0x30 && b <= 0x39)
                guard isNumber || b == UInt8(ascii: "t") || b == UInt8(ascii: "f") || b == UInt8(ascii: "n"),
                      startValue() else { return i }
                put(isNumber ? numC : litC)
                inLiteral = true
                literalIsNumber = isNumber
                numberState = 0
                keyword = 0
                keywordLength = 0
                // The literal's bytes are copied by the literal branch on the next turn.
                continue
            }
            i &+= 1
        }
        return n
    }
}

extension FormatterMachine: VisibleTextSink {
    mutating func text(_ byte: UInt8) {
        settleBackslash(beforeEscape: false)
        ensure(1)
        put(byte)
    }

    mutating func c1(_ byte: UInt8) {
        settleBackslash(beforeEscape: true)
        if sanitizing {
            putEscaped(byte)
        } else {
            ensure(2)
            put(0xC2)
            put(byte)
        }
    }

    /// A byte that is not UTF-8: the body is not JSON (RFC 8259 §8.1), but formatting goes on;
    /// the byte is shown as `\xNN` on a terminal, else as sent.
    mutating func invalid(_ byte: UInt8) {
        textValid = false
        settleBackslash(beforeEscape: true)
        if sanitizing {
            putInvalid(byte)
        } else {
            ensure(1)
            put(byte)
        }
    }

    /// After a whole `\uXXXX`: a low surrogate must follow a high one and nothing else.
    mutating func surrogateCheck() {
        let isHigh = escapeValue & 0xFC00 == 0xD800, isLow = escapeValue & 0xFC00 == 0xDC00
        if wantsLowSurrogate {
            if !isLow { textValid = false }
            wantsLowSurrogate = false
        } else if isHigh {
            wantsLowSurrogate = true
        } else if isLow {
            textValid = false
        }
    }
}

// MARK: Fast path

@inline(__always) private func isDigit(_ c: UInt8) -> Bool { c &- 0x30 < 10 }

/// Advances `j` past the ASCII digits at `p[j..<n]`, eight bytes at a time where it can: a byte
/// is flagged when it is above `9` (adding 0x46 to its low seven bits carries into bit 7), has
/// bit 7 set, or is below `0` (adding 0x50 does not reach bit 7); the low seven bits plus 0x50
/// never pass 0xFF, so no byte carries into the next.
@inline(__always) private func skipDigits(_ p: UnsafePointer<UInt8>, _ j: inout Int, _ n: Int) {
    let src = UnsafeRawPointer(p)
    while j &+ 8 <= n {
        let x = src.loadUnaligned(fromByteOffset: j, as: UInt64.self)
        let low = x & 0x7F7F_7F7F_7F7F_7F7F
        let flagged = ((low &+ 0x4646_4646_4646_4646) | x | ~(low &+ 0x5050_5050_5050_5050)) & highs
        if flagged != 0 {
            j &+= flagged.trailingZeroBitCount &>> 3
            return
        }
        j &+= 8
    }
    while j < n && isDigit(p[j]) { j &+= 1 }
}

/// `"true"`, `"null"` and `"fals"` as little-endian 32-bit loads.
private let word32True: UInt32 = 0x6575_7274, word32Null: UInt32 = 0x6C6C_756E, word32Fals: UInt32 = 0x736C_6166

extension FormatterMachine {
    /// Writes a colour span at `w`; returns the new end.
    @inline(__always) func span(_ c: ColorSpan, at w: Int) -> Int {
        let dst = UnsafeMutableRawPointer(o + w)
        let src = UnsafeRawPointer(c.bytes)
        if c.count <= 16 {
            dst.storeBytes(of: src.loadUnaligned(as: UInt64.self), as: UInt64.self)
            dst.storeBytes(of: src.loadUnaligned(fromByteOffset: 8, as: UInt64.self), toByteOffset: 8, as: UInt64.self)
        } else {
            var k = 0
            while k < c.count { o[w &+ k] = c.bytes[k]; k &+= 1 }
        }
        return w &+ c.count
    }

    /// Newline and the indentation of level `d` at `w`; returns the new end.
    @inline(__always) func newline(_ d: Int, at w: Int) -> Int {
        o[w] = 0x0A
        let count = min(d, JSONStreamFormatter.maxIndentDepth) &* indent
        let dst = UnsafeMutableRawPointer(o + (w &+ 1))
        var k = 0
        repeat {
            dst.storeBytes(of: 0x2020_2020_2020_2020 as UInt64, toByteOffset: k, as: UInt64.self)
            dst.storeBytes(of: 0x2020_2020_2020_2020 as UInt64, toByteOffset: k &+ 8, as: UInt64.self)
            k &+= 16
        } while k < count
        return w &+ 1 &+ count
    }

    /// Copies `count` bytes from `src` to `w` in whole words; `src` may be read up to `limit`
    /// bytes and the output has room for `count` plus slack.
    @inline(__always) func blit(_ src: UnsafePointer<UInt8>, _ count: Int, _ limit: Int, at w: Int) {
        let s = UnsafeRawPointer(src)
        let d = UnsafeMutableRawPointer(o + w)
        if count <= 16 && limit >= 16 {
            d.storeBytes(of: s.loadUnaligned(as: UInt64.self), as: UInt64.self)
            d.storeBytes(of: s.loadUnaligned(fromByteOffset: 8, as: UInt64.self), toByteOffset: 8, as: UInt64.self)
        } else if count <= 32 && limit >= 32 {
            var k = 0
            repeat {
                d.storeBytes(of: s.loadUnaligned(fromByteOffset: k, as: UInt64.self), toByteOffset: k, as: UInt64.self)
                k &+= 8
            } while k < 32
        } else {
            d.copyMemory(from: s, byteCount: count)
        }
    }

    /// Formats ordinary JSON inside a container, token by token without the general loop's
    /// per-byte state: white space, structural characters, keys with their colon, strings
    /// (plain runs eight bytes at a time, common escapes inline), numbers and keywords that
    /// end inside the chunk. Anything else — a token cut by the chunk's end that is not a
    /// string, a literal that is not valid, a byte in a string that `copyString` leaves to the
    /// general loop, a syntax error, the top level — stops it, with the state exactly as the
    /// general loop would have it at that byte, so the general loop takes over there and the
    /// output does not depend on which of the two formatted a byte.
    /// - Precondition: not in a string or literal, `depth > 0`.
    /// - Returns: where it stopped.
    mutating func fast(_ p: UnsafePointer<UInt8>, _ start: Int, _ n: Int, _ classes: UnsafePointer<UInt8>,
                       _ stops: UnsafePointer<Bool>) -> Int {
        var i = start
        var w = olen
        var d = depth
        var ex = expect
        let room = tokenRoom
        let ws = JSONStreamFormatter.classWhitespace, lit = JSONStreamFormatter.classLiteral
        defer {
            olen = w
            depth = d
            expect = ex
        }
        while true {
            guard i < n else { return n }
            var c = p[i]
            // One compare rules out white space for almost every token (no table load first).
            if c <= 0x20 && classes[Int(c)] == ws {
                i &+= 1
                while i < n && classes[Int(p[i])] == ws { i &+= 1 }
                guard i < n else { return n }
                c = p[i]
            }
            if w &+ (n &- i) &+ room > ocap {
                olen = w
                grow(w &+ (n &- i) &+ room)
            }
            switch ex {
            case .afterValue:
                if c == 0x2C {   // ,
                    o[w] = c
                    w = newline(d, at: w &+ 1)
                    ex = stack[d &- 1] == 1 ? .key : .value
                    i &+= 1
                    if i < n && p[i] == 0x20 { i &+= 1 }
                    continue
                }
                guard c | 0x20 == 0x7D, d > 1 else { return i }   // } or ]
                guard (stack[d &- 1] == 1) == (c == 0x7D) else { return i }
                d &-= 1
                w = newline(d, at: w)
                o[w] = c
                w &+= 1
                i &+= 1
                continue
            case .key, .objectFirst:
                if c == 0x7D && ex == .objectFirst {
                    guard d > 1 else { return i }
                    d &-= 1
                    o[w] = c
                    w &+= 1
                    ex = .afterValue
                    i &+= 1
                    continue
                }
                guard c == 0x22 else { return i }
                if ex == .objectFirst { w = newline(d, at: w) }
                w = span(keyC, at: w)
                o[w] = 0x22
                w &+= 1
                ex = .colon
                guard let end = shortString(p, i &+ 1, n, sanitizing, o, &w)
                    ?? copyString(p, i &+ 1, n, stops, sanitizing, o, &w) else { inString = true; return n }
                i = end
                guard p[i] == 0x22 else { inString = true; return i }
                o[w] = 0x22
                w = span(resetC, at: w &+ 1)
                i &+= 1
                // The colon, usually right after the key.
                guard i < n, p[i] == 0x3A else { continue }
                o[w] = 0x3A
                o[w &+ 1] = 0x20
                w &+= 2
                ex = .value
                i &+= 1
                if i < n && p[i] == 0x20 { i &+= 1 }
                continue
            case .colon:
                guard c == 0x3A else { return i }
                o[w] = 0x3A
                o[w &+ 1] = 0x20
                w &+= 2
                ex = .value
                i &+= 1
                if i < n && p[i] == 0x20 { i &+= 1 }
                continue
            case .value, .arrayFirst:
                if c == 0x22 {
                    if ex == .arrayFirst { w = newline(d, at: w) }
                    w = span(strC, at: w)
                    o[w] = 0x22
                    w &+= 1
                    ex = .value
                    guard let end = shortString(p, i &+ 1, n, sanitizing, o, &w)
                        ?? copyString(p, i &+ 1, n, stops, sanitizing, o, &w) else { inString = true; return n }
                    i = end
                    guard p[i] == 0x22 else { inString = true; return i }
                    o[w] = 0x22
                    w = span(resetC, at: w &+ 1)
                    ex = .afterValue
                    i &+= 1
                    continue
                }
                if isDigit(c) || c == 0x2D {
                    // The literal ends at a byte that is not a literal byte, inside the chunk.
                    var j = i
                    if c == 0x2D {
                        j &+= 1
                        guard j < n else { return i }
                    }
                    let first = p[j]
                    j &+= 1
                    if first != 0x30 {
                        guard isDigit(first) else { return i }
                        skipDigits(p, &j, n)
                    }
                    if j < n && p[j] == 0x2E {
                        j &+= 1
                        let digits = j
                        skipDigits(p, &j, n)
                        guard j > digits else { return i }
                    }
                    if j < n && p[j] | 0x20 == 0x65 {
                        j &+= 1
                        if j < n && (p[j] == 0x2B || p[j] == 0x2D) { j &+= 1 }
                        let digits = j
                        skipDigits(p, &j, n)
                        guard j > digits else { return i }
                    }
                    guard j < n, classes[Int(p[j])] != lit else { return i }
                    if ex == .arrayFirst { w = newline(d, at: w) }
                    w = span(numC, at: w)
                    blit(p + i, j &- i, n &- i, at: w)
                    w &+= j &- i
                    w = span(resetC, at: w)
                    ex = .afterValue
                    i = j
                    continue
                }
                if c == 0x7B || c == 0x5B {   // { [
                    if d >= stackCap { return i }
                    if ex == .arrayFirst { w = newline(d, at: w) }
                    o[w] = c
                    w &+= 1
                    let isObject = c == 0x7B
                    stack[d] = isObject ? 1 : 0
                    d &+= 1
                    ex = isObject ? .objectFirst : .arrayFirst
                    i &+= 1
                    continue
                }
                if c == 0x5D && ex == .arrayFirst {
                    guard d > 1 else { return i }
                    d &-= 1
                    o[w] = c
                    w &+= 1
                    ex = .afterValue
                    i &+= 1
                    continue
                }
                // true, false, null followed by a byte that ends them.
                var length = 0
                if n &- i > 5 {
                    let word = UnsafeRawPointer(p + i).loadUnaligned(as: UInt32.self)
                    if word == word32True || word == word32Null {
                        length = 4
                    } else if word == word32Fals && p[i &+ 4] == 0x65 {
                        length = 5
                    }
                }
                guard length > 0, classes[Int(p[i &+ length])] != lit else { return i }
                if ex == .arrayFirst { w = newline(d, at: w) }
                w = span(litC, at: w)
                blit(p + i, length, n &- i, at: w)
                w &+= length
                w = span(resetC, at: w)
                ex = .afterValue
                i &+= length
                continue
            }
        }
    }

}

/// Copies the run of plain string bytes at `p[j..<n]` to `o[w...]`, up to the first stop byte or
/// `n`: eight bytes at a time while no stop byte is among them (SWAR), then byte by byte.
/// Without sanitizing, a whole valid UTF-8 sequence is copied as part of the run (with
/// sanitizing the general loop looks at each, for C1 controls).
/// The output has room for `n - j` bytes plus slack, so a whole word always fits.
@inline(__always) private func copyPlainRun(_ p: UnsafePointer<UInt8>, _ j: inout Int, _ n: Int, _ stops: UnsafePointer<Bool>,
                                            _ sanitizing: Bool, _ o: UnsafeMutablePointer<UInt8>, _ w: inout Int) {
    let src = UnsafeRawPointer(p)
    let dst = UnsafeMutableRawPointer(o)
    while true {
        var stopped = false
        while j &+ 8 <= n {
            let word = src.loadUnaligned(fromByteOffset: j, as: UInt64.self)
            dst.storeBytes(of: word, toByteOffset: w, as: UInt64.self)
            let mask = stringStopMask(word, sanitizing)
            if mask != 0 {
                let k = mask.trailingZeroBitCount &>> 3
                j &+= k
                w &+= k
                stopped = true
                break
            }
            j &+= 8
            w &+= 8
        }
        if !stopped {
            while j < n && !stops[Int(p[j])] {
                o[w] = p[j]
                w &+= 1
                j &+= 1
            }
        }
        guard !sanitizing, j < n, p[j] >= 0x80 else { return }
        // Text in another script is mostly such sequences back to back: taken one after another
        // here, each copied as one four-byte word (the output has slack past what it counts).
        repeat {
            if j &+ 4 <= n {
                // Two- and three-byte sequences (most text) checked on one word; the rest, and
                // anything that fails here, by the full rule.
                let word = src.loadUnaligned(fromByteOffset: j, as: UInt32.self)
                let lead = word & 0xFF
                var length = 0
                if lead &- 0xC2 <= 0xDF - 0xC2 {
                    if word & 0xC000 == 0x8000 { length = 2 }
                } else if lead &- 0xE1 <= 0xEF - 0xE1 && lead != 0xED {
                    if word & 0xC0_C000 == 0x80_8000 { length = 3 }
                }
                if length == 0 { length = UTF8SequenceTracker.validSequenceLength(p, j, n) }
                guard length > 0 else { return }
                dst.storeBytes(of: word, toByteOffset: w, as: UInt32.self)
                j &+= length
                w &+= length
                continue
            }
            // The chunk's last bytes.
            let length = UTF8SequenceTracker.validSequenceLength(p, j, n)
            guard length > 0 else { return }
            var k = 0
            while k < length { o[w &+ k] = p[j &+ k]; k &+= 1 }
            j &+= length
            w &+= length
        } while j < n && p[j] >= 0x80
    }
}

/// A string whose closing quote is among its first eight bytes (most keys, many values), with
/// no escape or other stop byte before it: copied as one word, without the loop (or the call)
/// of `copyString`. Returns where the quote is, or nil for any other string (nothing written
/// that counts: `w` is unchanged and `copyString` starts over).
@inline(__always) private func shortString(_ p: UnsafePointer<UInt8>, _ start: Int, _ n: Int, _ sanitizing: Bool,
                                           _ o: UnsafeMutablePointer<UInt8>, _ w: inout Int) -> Int? {
    guard start &+ 8 <= n else { return nil }
    let word = UnsafeRawPointer(p).loadUnaligned(fromByteOffset: start, as: UInt64.self)
    let mask = stringStopMask(word, sanitizing)
    guard mask != 0 else { return nil }
    let k = mask.trailingZeroBitCount &>> 3
    guard p[start &+ k] == 0x22 else { return nil }
    UnsafeMutableRawPointer(o).storeBytes(of: word, toByteOffset: w, as: UInt64.self)
    w &+= k
    return start &+ k
}

/// Copies string content from `start` to `o + w` up to the closing quote or a byte the general
/// loop must see (a backslash that does not start a whole common escape in the chunk, a `\u`
/// surrogate, whose pair the general loop checks, a control byte, a non-ASCII byte that does not
/// start a whole valid UTF-8 sequence in the chunk, with sanitizing DEL and every non-ASCII
/// byte); returns where it stopped, or nil at the chunk's end.
/// The output has room for the rest of the chunk plus slack.
@inline(__always) private func copyString(_ p: UnsafePointer<UInt8>, _ start: Int, _ n: Int, _ stops: UnsafePointer<Bool>,
                                          _ sanitizing: Bool, _ o: UnsafeMutablePointer<UInt8>, _ w: inout Int) -> Int? {
    var j = start
    var v = w
    defer { w = v }
    while true {
        copyPlainRun(p, &j, n, stops, sanitizing, o, &v)
        guard j < n else { return nil }
        guard p[j] == 0x5C, j &+ 1 < n else { return j }
        let e = p[j &+ 1]
        switch e {
        case 0x22, 0x5C, 0x2F, UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            o[v] = 0x5C
            o[v &+ 1] = e
            v &+= 2
            j &+= 2
        case UInt8(ascii: "u"):
            guard j &+ 5 < n, isHex(p[j &+ 2]), isHex(p[j &+ 3]), isHex(p[j &+ 4]), isHex(p[j &+ 5]) else { return j }
            // A surrogate (\uD800…\uDFFF) must come as a pair: the general loop checks it.
            if p[j &+ 2] | 0x20 == 0x64 && p[j &+ 3] >= 0x38 { return j }
            var k = 0
            while k < 6 { o[v &+ k] = p[j &+ k]; k &+= 1 }
            v &+= 6
            j &+= 6
        default:
            return j
        }
    }
}
