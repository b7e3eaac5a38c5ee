/// Indents and colours JSON as it streams in, chunk by chunk, without building a tree: key
/// order, number literals and string escapes stay exactly as sent, and memory stays constant
/// whatever the body's size. Several top-level values (JSON Lines) are formatted one by one.
/// Text that turns out not to be JSON is passed through from that point on, and `isValid`
/// becomes false so the caller can add a note.
///
/// The hot loop works on raw pointers: input bytes are classified with a lookup table, string
/// runs are copied with one `memcpy`-like copy, and output goes to a growable buffer that is
/// appended to the caller's array once per chunk.
public final class JSONStreamFormatter {
    // What may come next.
    private enum Expect: UInt8 {
        case value, arrayFirst, objectFirst, key, colon, afterValue
    }

    // Byte classes for the structural loop.
    private static let classWhitespace: UInt8 = 1
    private static let classLiteral: UInt8 = 2
    private static let classOther: UInt8 = 0
    private static let classes: [UInt8] = {
        var t = [UInt8](repeating: 0, count: 256)
        for b in [0x20, 0x09, 0x0A, 0x0D] { t[b] = classWhitespace }
        for b in UInt8(ascii: "0")...UInt8(ascii: "9") { t[Int(b)] = classLiteral }
        for b in UInt8(ascii: "a")...UInt8(ascii: "z") { t[Int(b)] = classLiteral }
        for b in UInt8(ascii: "A")...UInt8(ascii: "Z") { t[Int(b)] = classLiteral }
        for c in "+-." { t[Int(c.asciiValue ?? 0)] = classLiteral }
        return t
    }()
    /// Bytes that end a plain run inside a string: quote, backslash, controls.
    private static let stringStops: [Bool] = {
        var t = [Bool](repeating: false, count: 256)
        for b in 0..<0x20 { t[b] = true }
        t[0x22] = true
        t[0x5C] = true
        return t
    }()

    private let keyColor: [UInt8]
    private let stringColor: [UInt8]
    private let numberColor: [UInt8]
    private let literalColor: [UInt8]
    private let reset: [UInt8]
    private let colored: Bool
    private let indent: Int
    private let sanitize: Bool

    // Parser state, kept across chunks.
    private var stackBytes: UnsafeMutablePointer<UInt8>
    private var stackCap = 64
    private var depth = 0
    private var expect = Expect.value
    private var topLevelDone = false
    private var sawValue = false
    private var failed = false
    private var pendingC2 = false
    private var inString = false
    private var escapeState = 0             // 0 none, 1 after backslash, 2…5 hex digits left + 1
    private var inLiteral = false
    private var literalIsNumber = false
    private var numberState = 0
    /// Colour sequences as raw bytes, allocated once.
    private var colorBytes: (key: (UnsafePointer<UInt8>, Int), string: (UnsafePointer<UInt8>, Int),
                             number: (UnsafePointer<UInt8>, Int), literal: (UnsafePointer<UInt8>, Int),
                             reset: (UnsafePointer<UInt8>, Int))
    private let colorStorage: UnsafeMutablePointer<UInt8>
    private var keyword: UInt64 = 0         // packed bytes of true/false/null
    private var keywordLength = 0

    // Output buffer for one chunk.
    private var buf: UnsafeMutablePointer<UInt8>
    private var cap: Int
    private var len = 0
    private let spaces: UnsafeMutablePointer<UInt8>
    private static let spacesCount = 4096
    /// Levels beyond this are not indented further.
    static let maxIndentDepth = 64

    /// Whether everything seen so far was well-formed JSON (and, after `finish`, complete).
    public private(set) var isValid = true
    /// Whether the formatter gave up and passes the rest through as text.
    public var hasFailed: Bool { failed }

    /// - Parameters:
    ///   - theme: colours, or nil for plain indentation.
    ///   - indent: spaces per level (HTTPie uses 4).
    ///   - sanitize: make control characters visible in text passed through after a syntax error.
    public init(theme: Theme?, indent: Int = 4, sanitize: Bool) {
        colored = theme != nil
        keyColor = Array((theme?.jsonKey ?? "").utf8)
        stringColor = Array((theme?.jsonString ?? "").utf8)
        numberColor = Array((theme?.jsonNumber ?? "").utf8)
        literalColor = Array((theme?.jsonLiteral ?? "").utf8)
        reset = Array((theme?.reset ?? "").utf8)
        self.indent = max(0, indent)
        self.sanitize = sanitize
        cap = 1 << 16
        buf = .allocate(capacity: cap)
        stackBytes = .allocate(capacity: stackCap)
        let parts = [keyColor, stringColor, numberColor, literalColor, reset]
        colorStorage = .allocate(capacity: max(1, parts.reduce(0) { $0 + $1.count }))
        var offsets: [(UnsafePointer<UInt8>, Int)] = []
        var at = 0
        for part in parts {
            (colorStorage + at).initialize(from: part, count: part.count)
            offsets.append((UnsafePointer(colorStorage + at), part.count))
            at += part.count
        }
        colorBytes = (offsets[0], offsets[1], offsets[2], offsets[3], offsets[4])
        spaces = .allocate(capacity: JSONStreamFormatter.spacesCount)
        spaces.initialize(repeating: 0x20, count: JSONStreamFormatter.spacesCount)
    }

    deinit {
        stackBytes.deallocate()
        colorStorage.deallocate()
        buf.deallocate()
        spaces.deallocate()
    }

    // MARK: Output buffer

    @inline(__always) private func reserve(_ n: Int) {
        if len + n > cap { grow(len + n) }
    }

    private func grow(_ need: Int) {
        var newCap = cap * 2
        while newCap < need { newCap *= 2 }
        let nb = UnsafeMutablePointer<UInt8>.allocate(capacity: newCap)
        nb.update(from: buf, count: len)
        buf.deallocate()
        buf = nb
        cap = newCap
    }

    @inline(__always) private func put(_ b: UInt8) {
        buf[len] = b
        len += 1
    }

    @inline(__always) private func put(_ bytes: [UInt8]) {
        let c = bytes.count
        if c == 0 { return }
        bytes.withUnsafeBufferPointer { p in
            if let base = p.baseAddress { (buf + len).update(from: base, count: c) }
        }
        len += c
    }

    @inline(__always) private func put(_ p: UnsafePointer<UInt8>, _ c: Int) {
        (buf + len).update(from: p, count: c)
        len += c
    }

    /// Newline plus indentation for `depth`; the caller reserved room.
    @inline(__always) private func newline(depth: Int) {
        put(0x0A)
        var left = min(depth, JSONStreamFormatter.maxIndentDepth) * indent
        while left > 0 {
            let c = min(left, JSONStreamFormatter.spacesCount)
            put(spaces, c)
            left -= c
        }
    }

    private func flush(into out: inout [UInt8]) {
        if len > 0 {
            out.append(contentsOf: UnsafeBufferPointer(start: buf, count: len))
            len = 0
        }
    }

    // MARK: Feeding

    /// Formats one chunk, appending to `out`.
    public func feed(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        guard let raw = bytes.baseAddress, bytes.count > 0 else { return }
        if failed {
            passThrough(bytes, &out)
            return
        }
        let p = raw.assumingMemoryBound(to: UInt8.self)
        let n = bytes.count
        var i = 0
        JSONStreamFormatter.classes.withUnsafeBufferPointer { classesBuf in
            JSONStreamFormatter.stringStops.withUnsafeBufferPointer { stopsBuf in
                guard let classes = classesBuf.baseAddress, let stops = stopsBuf.baseAddress else { return }
                i = run(p, n, classes, stops)
            }
        }
        flush(into: &out)
        if failed && i < n {
            passThrough(UnsafeRawBufferPointer(start: raw + i, count: n - i), &out)
        }
    }

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

    /// The main loop; returns where it stopped (n, or the failing byte). All hot state lives in
    /// locals and is written back at the end, so the loop pays no exclusivity checks.
    private func run(_ p: UnsafePointer<UInt8>, _ n: Int,
                     _ classes: UnsafePointer<UInt8>, _ stops: UnsafePointer<Bool>) -> Int {
        JSONStreamFormatter.numberTable.withUnsafeBufferPointer { tableBuf in
            guard let numbers = tableBuf.baseAddress else { return n }
            return loop(p, n, classes, stops, numbers)
        }
    }

    private func loop(_ p: UnsafePointer<UInt8>, _ n: Int, _ classes: UnsafePointer<UInt8>,
                      _ stops: UnsafePointer<Bool>, _ numbers: UnsafePointer<UInt8>) -> Int {
        var o = buf, olen = len, ocap = cap
        var expect = self.expect
        var inString = self.inString, escapeState = self.escapeState
        var inLiteral = self.inLiteral, literalIsNumber = self.literalIsNumber
        var numberState = Int(self.numberState), keyword = self.keyword, keywordLength = self.keywordLength
        var topLevelDone = self.topLevelDone, sawValue = self.sawValue, valid = self.isValid
        var depth = self.depth
        let indent = self.indent
        let spaces = UnsafePointer(self.spaces)
        let colors = self.colorBytes
        let keyC = colors.key, strC = colors.string, numC = colors.number, litC = colors.literal, resetC = colors.reset
        var stop = n

        @inline(__always) func ensure(_ need: Int) {
            if olen + need > ocap {
                len = olen
                grow(olen + need)
                o = buf
                ocap = cap
            }
        }
        @inline(__always) func put(_ b: UInt8) { o[olen] = b; olen &+= 1 }
        @inline(__always) func put(_ c: (UnsafePointer<UInt8>, Int)) {
            // Colour codes are a few bytes: a plain loop beats a memmove call.
            var k = 0
            while k < c.1 { o[olen &+ k] = c.0[k]; k &+= 1 }
            olen &+= c.1
        }
        @inline(__always) func newline(_ d: Int) {
            o[olen] = 0x0A
            olen += 1
            // Indentation stops growing past maxIndentDepth, so hostile nesting cannot make the
            // output quadratic in the input.
            var left = min(d, JSONStreamFormatter.maxIndentDepth) * indent
            while left > 0 {
                let c = min(left, JSONStreamFormatter.spacesCount)
                (o + olen).update(from: spaces, count: c)
                olen += c
                left -= c
            }
        }
        @inline(__always) func beforeValue() {
            if expect == .arrayFirst || expect == .objectFirst {
                newline(depth)
            } else if depth == 0 && topLevelDone {
                put(0x0A)
                topLevelDone = false
            }
            sawValue = true
        }
        @inline(__always) func startValue() -> Bool {
            switch expect {
            case .value, .arrayFirst: beforeValue(); return true
            case .afterValue where depth == 0: beforeValue(); return true
            default: return false
            }
        }
        @inline(__always) func valueEnded() {
            expect = .afterValue
            if depth == 0 { topLevelDone = true }
        }
        @inline(__always) func endLiteral() {
            inLiteral = false
            if literalIsNumber {
                if !(numberState == 2 || numberState == 3 || numberState == 5 || numberState == 8) { valid = false }
            } else if keywordLength > 5
                        || !(keyword == JSONStreamFormatter.packedTrue || keyword == JSONStreamFormatter.packedFalse
                             || keyword == JSONStreamFormatter.packedNull) {
                valid = false
            }
            ensure(resetC.1)
            put(resetC)
            valueEnded()
        }

        var i = 0
        scan: while i < n {
            if inString {
                if escapeState != 0 {
                    let c = p[i]
                    if escapeState == 1 {
                        switch c {
                        case 0x22, 0x5C, 0x2F, UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"),
                             UInt8(ascii: "r"), UInt8(ascii: "t"):
                            escapeState = 0
                        case UInt8(ascii: "u"):
                            escapeState = 5
                        default:
                            valid = false
                            escapeState = 0
                        }
                    } else {
                        if !JSONStreamFormatter.isHex(c) { valid = false }
                        escapeState = escapeState == 2 ? 0 : escapeState - 1
                    }
                    ensure(1)
                    put(c)
                    i += 1
                    continue
                }
                // Copy the run of plain string bytes while scanning it.
                ensure(n - i)
                var j = i
                var w = olen
                while j < n {
                    let c = p[j]
                    if stops[Int(c)] { break }
                    o[w] = c
                    w &+= 1
                    j &+= 1
                }
                olen = w
                i = j
                guard i < n else { break scan }
                let c = p[i]
                if c == 0x5C {
                    escapeState = 1
                    ensure(1)
                    put(c)
                    i += 1
                    continue
                }
                if c < 0x20 { stop = i; break scan }
                ensure(1 + resetC.1)
                put(0x22)
                put(resetC)
                inString = false
                if expect != .colon { valueEnded() }
                i += 1
                continue
            }
            let b = p[i]
            let cls = classes[Int(b)]
            if inLiteral {
                if cls == JSONStreamFormatter.classLiteral {
                    ensure(n - i)
                    var j = i
                    var w = olen
                    if literalIsNumber {
                        var st = numberState
                        while j < n {
                            let c = p[j]
                            if classes[Int(c)] != JSONStreamFormatter.classLiteral { break }
                            st = Int(numbers[st &* 256 &+ Int(c)])
                            o[w] = c
                            w &+= 1
                            j &+= 1
                        }
                        numberState = st
                    } else {
                        while j < n {
                            let c = p[j]
                            if classes[Int(c)] != JSONStreamFormatter.classLiteral { break }
                            if keywordLength < 6 { keyword = keyword << 8 | UInt64(c) }
                            keywordLength += 1
                            o[w] = c
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
                i += 1
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
                    guard startValue() else { stop = i; break scan }
                    put(strC)
                }
                put(0x22)
                inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard startValue() else { stop = i; break scan }
                put(b)
                let isObject = b == UInt8(ascii: "{")
                pushContainer(isObject, depth)
                depth += 1
                expect = isObject ? .objectFirst : .arrayFirst
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                let isObject = b == UInt8(ascii: "}")
                guard depth > 0, containerIsObject(depth - 1) == isObject else { stop = i; break scan }
                let empty = expect == .objectFirst || expect == .arrayFirst
                guard empty || expect == .afterValue else { stop = i; break scan }
                depth -= 1
                if !empty { newline(depth) }
                put(b)
                valueEnded()
            case UInt8(ascii: ","):
                guard expect == .afterValue, depth > 0 else { stop = i; break scan }
                put(b)
                newline(depth)
                expect = containerIsObject(depth - 1) ? .key : .value
                // The usual ", " separator: skip its space here rather than in another turn.
                if i &+ 1 < n && p[i &+ 1] == 0x20 { i &+= 1 }
            case UInt8(ascii: ":"):
                guard expect == .colon else { stop = i; break scan }
                put(b)
                put(0x20)
                expect = .value
                if i &+ 1 < n && p[i &+ 1] == 0x20 { i &+= 1 }
            default:
                guard cls == JSONStreamFormatter.classLiteral else { stop = i; break scan }
                let isNumber = b == UInt8(ascii: "-") || (b >= 0x30 && b <= 0x39)
                guard isNumber || b == UInt8(ascii: "t") || b == UInt8(ascii: "f") || b == UInt8(ascii: "n"),
                      startValue() else { stop = i; break scan }
                put(isNumber ? numC : litC)
                inLiteral = true
                literalIsNumber = isNumber
                numberState = 0
                keyword = 0
                keywordLength = 0
                continue
            }
            i &+= 1
        }
        len = olen
        self.expect = expect
        self.inString = inString
        self.escapeState = escapeState
        self.inLiteral = inLiteral
        self.literalIsNumber = literalIsNumber
        self.numberState = numberState
        self.keyword = keyword
        self.keywordLength = keywordLength
        self.topLevelDone = topLevelDone
        self.sawValue = sawValue
        self.isValid = valid
        self.depth = depth
        if stop < n { fail() }
        return stop
    }

    @inline(__always) private static func isHex(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)
    }

    // The container stack: one byte per level (1 object, 0 array), grown as needed.
    private func pushContainer(_ isObject: Bool, _ at: Int) {
        if at >= stackCap {
            let newCap = stackCap * 2
            let ns = UnsafeMutablePointer<UInt8>.allocate(capacity: newCap)
            ns.update(from: stackBytes, count: stackCap)
            stackBytes.deallocate()
            stackBytes = ns
            stackCap = newCap
        }
        stackBytes[at] = isObject ? 1 : 0
    }

    @inline(__always) private func containerIsObject(_ at: Int) -> Bool { stackBytes[at] == 1 }

    private static func pack(_ s: String) -> UInt64 { s.utf8.reduce(0) { $0 << 8 | UInt64($1) } }
    private static let packedTrue = pack("true"), packedFalse = pack("false"), packedNull = pack("null")

    /// Closes a literal left open at the end of the body (same checks as in the loop).
    private func endLiteral() {
        inLiteral = false
        if literalIsNumber {
            if !(numberState == 2 || numberState == 3 || numberState == 5 || numberState == 8) { isValid = false }
        } else if keywordLength > 5
                    || !(keyword == JSONStreamFormatter.packedTrue || keyword == JSONStreamFormatter.packedFalse
                         || keyword == JSONStreamFormatter.packedNull) {
            isValid = false
        }
        reserve(reset.count)
        put(reset)
        expect = .afterValue
        if depth == 0 { topLevelDone = true }
    }

    private func fail() {
        failed = true
        isValid = false
        reserve(reset.count + 1)
        put(reset)
        put(0x0A)
    }

    private func passThrough(_ bytes: UnsafeRawBufferPointer, _ out: inout [UInt8]) {
        if sanitize {
            TerminalSanitizer.append(bytes, to: &out, pendingC2: &pendingC2)
        } else {
            out.append(contentsOf: bytes)
        }
    }

    /// Ends the document: closes an open literal and checks that nothing was left open.
    public func finish(into out: inout [UInt8]) {
        if inLiteral { endLiteral() }
        flush(into: &out)
        if pendingC2 { out.append(0xC2); pendingC2 = false }
        if !failed && (inString || depth > 0 || !sawValue || expect == .colon) {
            isValid = false
            if colored { out += reset }
        }
    }
}
