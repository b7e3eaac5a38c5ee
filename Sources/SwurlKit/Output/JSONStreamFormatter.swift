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
    private var stack: [Bool] = []          // true: object, false: array
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
    private var keyword: UInt64 = 0         // packed bytes of true/false/null
    private var keywordLength = 0

    // Output buffer for one chunk.
    private var buf: UnsafeMutablePointer<UInt8>
    private var cap: Int
    private var len = 0
    private let spaces: UnsafeMutablePointer<UInt8>
    private static let spacesCount = 4096

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
        spaces = .allocate(capacity: JSONStreamFormatter.spacesCount)
        spaces.initialize(repeating: 0x20, count: JSONStreamFormatter.spacesCount)
    }

    deinit {
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
        var left = depth * indent
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

    /// The main loop; returns where it stopped (n, or the failing byte).
    private func run(_ p: UnsafePointer<UInt8>, _ n: Int,
                     _ classes: UnsafePointer<UInt8>, _ stops: UnsafePointer<Bool>) -> Int {
        var i = 0
        while i < n {
            if inString {
                // Pending escape from the previous byte or chunk.
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
                            isValid = false
                            escapeState = 0
                        }
                    } else {
                        if !JSONStreamFormatter.isHex(c) { isValid = false }
                        escapeState = escapeState == 2 ? 0 : escapeState - 1
                    }
                    reserve(1)
                    put(c)
                    i += 1
                    continue
                }
                var j = i
                while j < n && !stops[Int(p[j])] { j += 1 }
                if j > i {
                    reserve(j - i)
                    put(p + i, j - i)
                }
                i = j
                guard i < n else { return n }
                let c = p[i]
                if c == 0x5C {
                    escapeState = 1
                    reserve(1)
                    put(c)
                    i += 1
                    continue
                }
                if c < 0x20 { fail(); return i }
                // Closing quote.
                reserve(1 + reset.count)
                put(0x22)
                put(reset)
                inString = false
                if expect == .colon {
                    // It was a key.
                } else {
                    valueEnded()
                }
                i += 1
                continue
            }
            let b = p[i]
            let cls = classes[Int(b)]
            if inLiteral {
                if cls == JSONStreamFormatter.classLiteral {
                    // Copy the literal's run.
                    var j = i
                    while j < n && classes[Int(p[j])] == JSONStreamFormatter.classLiteral {
                        literalByte(p[j])
                        j += 1
                    }
                    reserve(j - i)
                    put(p + i, j - i)
                    i = j
                    continue
                }
                endLiteral()
            }
            if cls == JSONStreamFormatter.classWhitespace {
                i += 1
                continue
            }
            reserve(stack.count * indent + 64)
            switch b {
            case 0x22:
                if expect == .key || expect == .objectFirst {
                    beforeValue()
                    put(keyColor)
                    expect = .colon
                } else {
                    guard startValue() else { fail(); return i }
                    put(stringColor)
                }
                put(0x22)
                inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard startValue() else { fail(); return i }
                put(b)
                let isObject = b == UInt8(ascii: "{")
                stack.append(isObject)
                expect = isObject ? .objectFirst : .arrayFirst
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                let isObject = b == UInt8(ascii: "}")
                guard let top = stack.last, top == isObject else { fail(); return i }
                let empty = expect == .objectFirst || expect == .arrayFirst
                guard empty || expect == .afterValue else { fail(); return i }
                stack.removeLast()
                if !empty { newline(depth: stack.count) }
                put(b)
                valueEnded()
            case UInt8(ascii: ","):
                guard expect == .afterValue, let top = stack.last else { fail(); return i }
                put(b)
                newline(depth: stack.count)
                expect = top ? .key : .value
            case UInt8(ascii: ":"):
                guard expect == .colon else { fail(); return i }
                put(b)
                put(0x20)
                expect = .value
            default:
                guard cls == JSONStreamFormatter.classLiteral else { fail(); return i }
                let isNumber = b == UInt8(ascii: "-") || (b >= 0x30 && b <= 0x39)
                guard isNumber || b == UInt8(ascii: "t") || b == UInt8(ascii: "f") || b == UInt8(ascii: "n"),
                      startValue() else { fail(); return i }
                put(isNumber ? numberColor : literalColor)
                inLiteral = true
                literalIsNumber = isNumber
                numberState = 0
                keyword = 0
                keywordLength = 0
                // The byte itself is copied by the literal branch on the next turn.
                continue
            }
            i += 1
        }
        return n
    }

    @inline(__always) private static func isHex(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)
    }

    /// Checks what may start a value here and writes the separator it needs.
    @inline(__always) private func startValue() -> Bool {
        switch expect {
        case .value, .arrayFirst:
            beforeValue()
            return true
        case .afterValue where stack.isEmpty:
            beforeValue()
            return true
        default:
            return false
        }
    }

    @inline(__always) private func beforeValue() {
        if expect == .arrayFirst || expect == .objectFirst {
            newline(depth: stack.count)
        } else if stack.isEmpty && topLevelDone {
            put(0x0A)
            topLevelDone = false
        }
        sawValue = true
    }

    @inline(__always) private func valueEnded() {
        expect = .afterValue
        if stack.isEmpty { topLevelDone = true }
    }

    /// Validates one byte of a number or keyword.
    @inline(__always) private func literalByte(_ c: UInt8) {
        if literalIsNumber {
            // States: 0 start, 1 minus, 2 zero, 3 int, 4 dot, 5 frac, 6 e, 7 e-sign, 8 exp, 9 bad.
            let digit = c >= 0x30 && c <= 0x39
            switch numberState {
            case 0: numberState = c == UInt8(ascii: "-") ? 1 : c == 0x30 ? 2 : digit ? 3 : 9
            case 1: numberState = c == 0x30 ? 2 : digit ? 3 : 9
            case 2, 3:
                if digit { numberState = numberState == 2 ? 9 : 3 }
                else if c == UInt8(ascii: ".") { numberState = 4 }
                else if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") { numberState = 6 }
                else { numberState = 9 }
            case 4, 5:
                if digit { numberState = 5 }
                else if numberState == 5 && (c == UInt8(ascii: "e") || c == UInt8(ascii: "E")) { numberState = 6 }
                else { numberState = 9 }
            case 6: numberState = (c == UInt8(ascii: "+") || c == UInt8(ascii: "-")) ? 7 : digit ? 8 : 9
            case 7, 8: numberState = digit ? 8 : 9
            default: break
            }
        } else {
            if keywordLength < 6 { keyword = keyword << 8 | UInt64(c) }
            keywordLength += 1
        }
    }

    private static func pack(_ s: String) -> UInt64 { s.utf8.reduce(0) { $0 << 8 | UInt64($1) } }
    private static let packedTrue = pack("true"), packedFalse = pack("false"), packedNull = pack("null")

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
        valueEnded()
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
        if !failed && (inString || !stack.isEmpty || !sawValue || expect == .colon) {
            isValid = false
            if colored { out += reset }
        }
    }
}
