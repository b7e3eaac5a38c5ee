/// Indents and colours JSON as it streams in, chunk by chunk, without building a tree: key
/// order, number literals and string escapes stay exactly as sent, and memory stays constant
/// whatever the body's size. Several top-level values (JSON Lines) are formatted one by one.
/// Text that turns out not to be JSON is passed through from that point on, and `isValid`
/// becomes false so the caller can add a note.
public final class JSONStreamFormatter {
    private let theme: Theme?
    private let indentUnit: [UInt8]
    private let sanitize: Bool

    private var stack: [UInt8] = []
    private var inString = false
    private var escaped = false
    private var inLiteral = false
    private var pendingOpen = false
    private var expectKey = false
    private var sawValue = false
    private var topLevelDone = false
    private var failed = false
    private var sanitizer = TerminalSanitizer()
    /// The keyword being read (true/false/null), checked when it ends; numbers are checked by character.
    private var keyword: [UInt8] = []
    private var literalIsNumber = false

    /// Whether everything seen so far was well-formed JSON (and, after `finish`, complete).
    public private(set) var isValid = true

    /// - Parameters:
    ///   - theme: colours, or nil for plain indentation.
    ///   - indent: spaces per level (HTTPie uses 4).
    ///   - sanitize: make control characters visible in text passed through after a syntax error.
    public init(theme: Theme?, indent: Int = 4, sanitize: Bool) {
        self.theme = theme
        self.indentUnit = [UInt8](repeating: 0x20, count: indent)
        self.sanitize = sanitize
    }

    @inline(__always) private func newline(_ out: inout [UInt8], depth: Int) {
        out.append(0x0A)
        for _ in 0..<depth { out += indentUnit }
    }

    @inline(__always) private func color(_ code: String?, _ out: inout [UInt8]) {
        if let code { out += Array(code.utf8) }
    }

    private func beforeValue(_ out: inout [UInt8]) {
        if pendingOpen {
            newline(&out, depth: stack.count)
            pendingOpen = false
        } else if stack.isEmpty && topLevelDone {
            out.append(0x0A)
            topLevelDone = false
        }
    }

    private static let keywords: [[UInt8]] = [Array("true".utf8), Array("false".utf8), Array("null".utf8)]

    private func endLiteral(_ out: inout [UInt8]) {
        inLiteral = false
        if !literalIsNumber && !JSONStreamFormatter.keywords.contains(keyword) { isValid = false }
        if theme != nil { color(theme?.reset, &out) }
        if stack.isEmpty { topLevelDone = true }
    }

    /// Formats one chunk, appending to `out`.
    public func feed(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        var i = 0
        let n = bytes.count
        while i < n {
            if failed {
                passThrough(UnsafeRawBufferPointer(rebasing: bytes[i...]), &out)
                return
            }
            let b = bytes[i]
            if inString {
                // Copy a run of ordinary string bytes at once.
                var j = i
                while j < n {
                    let c = bytes[j]
                    if escaped { escaped = false; j += 1; continue }
                    if c == 0x5C { escaped = true; j += 1; continue }
                    if c == 0x22 || c < 0x20 { break }
                    j += 1
                }
                out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[i..<j]))
                i = j
                guard i < n else { return }
                if bytes[i] < 0x20 { fail(UnsafeRawBufferPointer(rebasing: bytes[i...]), &out); return }
                out.append(0x22)
                color(theme?.reset, &out)
                inString = false
                if stack.isEmpty { topLevelDone = true }
                i += 1
                continue
            }
            switch b {
            case 0x20, 0x09, 0x0A, 0x0D:
                if inLiteral { endLiteral(&out) }
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."),
                 UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
                if !inLiteral {
                    if expectKey { fail(UnsafeRawBufferPointer(rebasing: bytes[i...]), &out); return }
                    beforeValue(&out)
                    let isNumber = b == UInt8(ascii: "-") || (b >= 0x30 && b <= 0x39)
                    if !isNumber && b != UInt8(ascii: "t") && b != UInt8(ascii: "f") && b != UInt8(ascii: "n") {
                        fail(UnsafeRawBufferPointer(rebasing: bytes[i...]), &out); return
                    }
                    color(isNumber ? theme?.jsonNumber : theme?.jsonLiteral, &out)
                    inLiteral = true
                    literalIsNumber = isNumber
                    keyword.removeAll(keepingCapacity: true)
                    sawValue = true
                }
                if literalIsNumber {
                    if b >= UInt8(ascii: "a") && b != UInt8(ascii: "e") || b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z") && b != UInt8(ascii: "E") {
                        isValid = false
                    }
                } else if keyword.count < 5 {
                    keyword.append(b)
                } else {
                    isValid = false
                }
                out.append(b)
            default:
                if inLiteral { endLiteral(&out) }
                switch b {
                case 0x22:
                    beforeValue(&out)
                    let isKey = expectKey
                    color(isKey ? theme?.jsonKey : theme?.jsonString, &out)
                    out.append(0x22)
                    inString = true
                    sawValue = true
                    expectKey = false
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    if expectKey { fail(UnsafeRawBufferPointer(rebasing: bytes[i...]), &out); return }
                    beforeValue(&out)
                    out.append(b)
                    stack.append(b)
                    pendingOpen = true
                    expectKey = b == UInt8(ascii: "{")
                    sawValue = true
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    let open: UInt8 = b == UInt8(ascii: "}") ? UInt8(ascii: "{") : UInt8(ascii: "[")
                    guard stack.last == open else { fail(UnsafeRawBufferPointer(rebasing: bytes[i...]), &out); return }
                    stack.removeLast()
                    if pendingOpen {
                        pendingOpen = false
                    } else {
                        newline(&out, depth: stack.count)
                    }
                    out.append(b)
                    expectKey = false
                    if stack.isEmpty { topLevelDone = true }
                case UInt8(ascii: ","):
                    guard let top = stack.last, !pendingOpen else { fail(UnsafeRawBufferPointer(rebasing: bytes[i...]), &out); return }
                    out.append(b)
                    newline(&out, depth: stack.count)
                    expectKey = top == UInt8(ascii: "{")
                case UInt8(ascii: ":"):
                    guard stack.last == UInt8(ascii: "{") else { fail(UnsafeRawBufferPointer(rebasing: bytes[i...]), &out); return }
                    out += [UInt8(ascii: ":"), 0x20]
                default:
                    fail(UnsafeRawBufferPointer(rebasing: bytes[i...]), &out); return
                }
            }
            i += 1
        }
    }

    private func fail(_ rest: UnsafeRawBufferPointer, _ out: inout [UInt8]) {
        failed = true
        isValid = false
        color(theme?.reset, &out)
        out.append(0x0A)
        passThrough(rest, &out)
    }

    private func passThrough(_ bytes: UnsafeRawBufferPointer, _ out: inout [UInt8]) {
        if sanitize {
            sanitizer.append(bytes, to: &out)
        } else {
            out.append(contentsOf: bytes)
        }
    }

    /// Ends the document: closes an open literal and checks that nothing was left open.
    public func finish(into out: inout [UInt8]) {
        if inLiteral { endLiteral(&out) }
        sanitizer.finish(into: &out)
        if !failed && (inString || !stack.isEmpty || !sawValue) {
            isValid = false
            color(theme?.reset, &out)
        }
    }
}
