import SwurlResponseSerialization
import SwurlCore
/// Shows XML indented and coloured: one element per line, an element holding only text on one
/// line, comments, CDATA sections, processing instructions, DOCTYPEs, namespace prefixes and
/// entity references kept exactly as written. XML that is not well-formed is shown as text
/// with a note.
final class XMLResponseDecoder: ResponseDecoding {
    private let context: DecodingContext
    private var body: WholeBody

    init(context: DecodingContext) {
        self.context = context
        body = WholeBody(context: context)
    }

    public func decode(_ chunk: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        body.add(chunk, into: &out)
    }

    func finish(into out: inout [UInt8]) -> DecodingOutcome {
        guard let bytes = body.finish(into: &out) else {
            return .failed("the body is too large to format as XML; shown as sent")
        }
        if isBlank(bytes) { return .decoded }
        do {
            let tokens = try XMLTokenizer.tokenize(bytes)
            XMLPrettyPrinter(theme: context.theme, sanitize: context.terminal).write(tokens, into: &out)
            return .decoded
        } catch {
            TextResponseDecoder.show(bytes, context: context, into: &out)
            return .failed("the body is not well-formed XML (\(error.reason) at byte \(error.offset)); shown as sent")
        }
    }
}

/// Writes XML tokens indented by two spaces per level, with colours.
struct XMLPrettyPrinter {
    let theme: Theme?
    let sanitize: Bool
    var indent = 2

    func write(_ tokens: [XMLTokenizer.Token], into out: inout [UInt8]) {
        var depth = 0
        var i = 0
        var first = true
        func line() {
            if !first { out.append(0x0A) }
            first = false
            // Indentation stops growing past 64 levels (hostile nesting stays linear).
            out += [UInt8](repeating: 0x20, count: max(0, min(depth, 64)) * indent)
        }
        let mixed = XMLPrettyPrinter.mixedContent(tokens)
        while i < tokens.count {
            if mixed[i] {
                // Mixed content (<p>Why <em>this</em> works</p>): one line, text exactly as sent,
                // because re-indenting it would change what it says.
                line()
                i = inline(tokens, from: i, &out)
                continue
            }
            switch tokens[i] {
            case .processingInstruction(let b):
                line(); paint(b, theme?.xmlProcessing, &out)
            case .doctype(let b):
                line(); paint(b, theme?.xmlProcessing, &out)
            case .comment(let b):
                line(); paint(b, theme?.xmlComment, &out)
            case .cdata(let b):
                line(); paint(b, theme?.jsonString, &out)
            case .text(let b):
                let trimmed = trim(b)
                if !trimmed.isEmpty { line(); content(trimmed, &out) }
            case .endTag(let name):
                depth -= 1
                line(); endTag(name, &out)
            case .startTag(let name, let attributes, let selfClosing):
                line()
                startTag(name, attributes, selfClosing, &out)
                if selfClosing { break }
                // <a>text</a> and <a></a> stay on one line.
                if i + 1 < tokens.count, case .endTag(let end) = tokens[i + 1] {
                    endTag(end, &out)
                    i += 2
                    continue
                }
                if i + 2 < tokens.count, case .text(let t) = tokens[i + 1], case .endTag(let end) = tokens[i + 2] {
                    content(t, &out)
                    endTag(end, &out)
                    i += 3
                    continue
                }
                depth += 1
            }
            i += 1
        }
    }

    /// For each token, whether it starts an element that directly holds non-blank text and
    /// other markup (computed in one pass).
    static func mixedContent(_ tokens: [XMLTokenizer.Token]) -> [Bool] {
        var mixed = [Bool](repeating: false, count: tokens.count)
        var open: [(index: Int, text: Bool, markup: Bool)] = []
        for (k, token) in tokens.enumerated() {
            switch token {
            case .startTag(_, _, let selfClosing):
                if !open.isEmpty { open[open.count - 1].markup = true }
                if !selfClosing { open.append((k, false, false)) }
            case .endTag:
                if let e = open.popLast(), e.text && e.markup { mixed[e.index] = true }
            case .text(let t):
                if !open.isEmpty, !isBlank(Array(t)) { open[open.count - 1].text = true }
            case .cdata, .comment, .processingInstruction:
                if !open.isEmpty { open[open.count - 1].markup = true }
            case .doctype:
                break
            }
        }
        return mixed
    }

    /// Writes the element starting at `start` and everything in it on the current line;
    /// returns the index after its end tag.
    private func inline(_ tokens: [XMLTokenizer.Token], from start: Int, _ out: inout [UInt8]) -> Int {
        var level = 0
        var k = start
        while k < tokens.count {
            switch tokens[k] {
            case .startTag(let name, let attributes, let selfClosing):
                startTag(name, attributes, selfClosing, &out)
                if !selfClosing { level += 1 }
            case .endTag(let name):
                endTag(name, &out)
                level -= 1
            case .text(let t): content(t, &out)
            case .cdata(let b): paint(b, theme?.jsonString, &out)
            case .comment(let b): paint(b, theme?.xmlComment, &out)
            case .processingInstruction(let b), .doctype(let b): paint(b, theme?.xmlProcessing, &out)
            }
            k += 1
            if level == 0 { break }
        }
        return k
    }

    private func trim(_ b: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var s = b
        while let f = s.first, XMLTokenizer.isSpace(f) { s = s.dropFirst() }
        while let l = s.last, XMLTokenizer.isSpace(l) { s = s.dropLast() }
        return s
    }

    private func content(_ b: ArraySlice<UInt8>, _ out: inout [UInt8]) {
        if sanitize {
            var sanitizer = TerminalSanitizer()
            b.withUnsafeBytes { sanitizer.append($0, to: &out) }
            sanitizer.finish(into: &out)
        } else {
            out += b
        }
    }

    private func paint(_ b: ArraySlice<UInt8>, _ color: String?, _ out: inout [UInt8]) {
        if let color { out += Array(color.utf8) }
        content(b, &out)
        if color != nil, let theme { out += Array(theme.reset.utf8) }
    }

    private func startTag(_ name: ArraySlice<UInt8>, _ attributes: [XMLTokenizer.Attribute], _ selfClosing: Bool,
                          _ out: inout [UInt8]) {
        if let c = theme?.xmlTag { out += Array(c.utf8) }
        out.append(UInt8(ascii: "<"))
        content(name, &out)
        if !attributes.isEmpty {
            if let theme { out += Array(theme.reset.utf8) }
            for a in attributes {
                out.append(0x20)
                paint(a.name, theme?.xmlAttribute, &out)
                out.append(UInt8(ascii: "="))
                paint(a.quotedValue, theme?.jsonString, &out)
            }
            if let c = theme?.xmlTag { out += Array(c.utf8) }
        }
        out += selfClosing ? [UInt8(ascii: "/"), UInt8(ascii: ">")] : [UInt8(ascii: ">")]
        if let theme { out += Array(theme.reset.utf8) }
    }

    private func endTag(_ name: ArraySlice<UInt8>, _ out: inout [UInt8]) {
        if let c = theme?.xmlTag { out += Array(c.utf8) }
        out += [UInt8(ascii: "<"), UInt8(ascii: "/")]
        content(name, &out)
        out.append(UInt8(ascii: ">"))
        if let theme { out += Array(theme.reset.utf8) }
    }
}
