import SwurlCore
/// Writes a JSON-shaped tree as an Apple property list, without Foundation (whose
/// PropertyListSerialization cannot write arrays in a static-stdlib build).
///
/// Strings, integers, reals, booleans, arrays and dictionaries map one to one; null has no
/// property-list form and is a bad-data error naming where it stands.
package enum PropertyListWriter {
    // MARK: XML

    /// XML 1.0 plist with Apple's DOCTYPE and tab indentation.
    package static func xml(_ value: JSONValue) throws(SwurlError) -> [UInt8] {
        var out = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """
        try writeXML(value, depth: 0, path: "", into: &out)
        out += "</plist>\n"
        return Array(out.utf8)
    }

    private static func writeXML(_ value: JSONValue, depth: Int, path: String, into out: inout String) throws(SwurlError) {
        let pad = String(repeating: "\t", count: depth)
        switch value {
        case .null:
            throw nullError(path)
        case .bool(let b):
            out += pad + (b ? "<true/>" : "<false/>") + "\n"
        case .number(let n):
            switch try checkedNumber(n, path: path) {
            case .int, .uint: out += pad + "<integer>\(n)</integer>\n"
            case .real: out += pad + "<real>\(n)</real>\n"
            }
        case .string(let s):
            try checkXMLText(s, path: path)
            out += pad + "<string>\(escapeXML(s))</string>\n"
        case .array(let items):
            if items.isEmpty { out += pad + "<array/>\n"; return }
            out += pad + "<array>\n"
            for (i, item) in items.enumerated() { try writeXML(item, depth: depth + 1, path: path + "[\(i)]", into: &out) }
            out += pad + "</array>\n"
        case .object(let members):
            if members.isEmpty { out += pad + "<dict/>\n"; return }
            out += pad + "<dict>\n"
            for m in members {
                try checkXMLText(m.key, path: path.isEmpty ? m.key : path + "[\(m.key)]")
                out += pad + "\t<key>\(escapeXML(m.key))</key>\n"
                try writeXML(m.value, depth: depth + 1, path: path.isEmpty ? m.key : path + "[\(m.key)]", into: &out)
            }
            out += pad + "</dict>\n"
        }
    }

    static func nullError(_ path: String) -> SwurlError {
        .badData("'\(path.isEmpty ? "the body" : path)' is null, which has no property-list form",
                 hint: "leave the item out, or send it as a string (\(path.isEmpty ? "key" : path)=) or with --json")
    }

    /// A number as both formats can hold it: a 64-bit integer (signed, or unsigned above
    /// Int64.max) or a finite real.
    enum CheckedNumber: Equatable { case int(Int64), uint(UInt64), real(Double) }

    /// Refuses numbers no property list can carry — integers outside the Int64/UInt64 range and
    /// reals that overflow to infinity — the same way for XML and binary output.
    static func checkedNumber(_ n: String, path: String) throws(SwurlError) -> CheckedNumber {
        let place = path.isEmpty ? "the body" : path
        if isInteger(n) {
            if let v = Int64(n) { return .int(v) }
            if let v = UInt64(n) { return .uint(v) }
            throw .badData("'\(place)': the integer \(n.prefix(80)) does not fit in a property list (64 bits)",
                           hint: "send it as a string (\(path.isEmpty ? "key" : path)=...)")
        }
        guard let d = Double(n) else { throw .badData("'\(place)': \(n.prefix(80)) is not a number") }
        guard d.isFinite else {
            throw .badData("'\(place)': the real \(n.prefix(80)) is out of range for a property list (not finite as a 64-bit double)",
                           hint: "send it as a string (\(path.isEmpty ? "key" : path)=...)")
        }
        return .real(d)
    }

    static func isInteger(_ literal: String) -> Bool {
        !literal.contains(where: { $0 == "." || $0 == "e" || $0 == "E" })
    }

    static func escapeXML(_ s: String) -> String { s.xmlEscaped }

    /// XML 1.0 cannot hold control characters other than tab, LF and CR, not even as character
    /// references, nor U+FFFE/U+FFFF: such a string is refused by name (binary plists carry it).
    static func checkXMLText(_ s: String, path: String) throws(SwurlError) {
        guard let bad = s.unicodeScalars.first(where: { c in
            (c.value < 0x20 && c != "\t" && c != "\n" && c != "\r") || c.value == 0xFFFE || c.value == 0xFFFF
        }) else { return }
        let hex = String(bad.value, radix: 16, uppercase: true)
        let what = bad.value >= 0xFFFE ? "the noncharacter" : "the control character"
        throw .badData("'\(path.isEmpty ? "the body" : path)' holds \(what) U+\(String(repeating: "0", count: max(0, 4 - hex.count)) + hex), which an XML property list cannot carry",
                       hint: "send it as a binary property list: --plist=binary")
    }

    // MARK: Binary

    private enum Object {
        case bool(Bool), int(Int64), uint(UInt64), real(Double), ascii([UInt8]), utf16([UInt16])
        case array([Int]), dict(keys: [Int], values: [Int])
    }

    /// Binary plist (`bplist00`): object table, offset table and trailer.
    package static func binary(_ value: JSONValue) throws(SwurlError) -> [UInt8] {
        var objects: [Object] = []
        _ = try flatten(value, path: "", into: &objects)
        let refSize = byteWidth(UInt64(objects.count))
        var out = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(out.count)
            switch object {
            case .bool(let b): out.append(b ? 0x09 : 0x08)
            case .int(let v): writeInt(v, into: &out)
            case .uint(let v):
                // Above Int64.max: a 16-byte integer whose high half is zero, as CoreFoundation writes it.
                out.append(0x14)
                appendBigEndian(0, width: 8, into: &out)
                appendBigEndian(v, width: 8, into: &out)
            case .real(let d):
                out.append(0x23)
                appendBigEndian(d.bitPattern, width: 8, into: &out)
            case .ascii(let bytes):
                writeMarker(0x50, count: bytes.count, into: &out)
                out += bytes
            case .utf16(let units):
                writeMarker(0x60, count: units.count, into: &out)
                for u in units { appendBigEndian(UInt64(u), width: 2, into: &out) }
            case .array(let refs):
                writeMarker(0xA0, count: refs.count, into: &out)
                for r in refs { appendBigEndian(UInt64(r), width: refSize, into: &out) }
            case .dict(let keys, let values):
                writeMarker(0xD0, count: keys.count, into: &out)
                for r in keys + values { appendBigEndian(UInt64(r), width: refSize, into: &out) }
            }
        }
        let offsetTableStart = out.count
        let offsetSize = byteWidth(UInt64(offsetTableStart))
        for o in offsets { appendBigEndian(UInt64(o), width: offsetSize, into: &out) }
        out += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(refSize)]
        appendBigEndian(UInt64(objects.count), width: 8, into: &out)
        appendBigEndian(0, width: 8, into: &out)
        appendBigEndian(UInt64(offsetTableStart), width: 8, into: &out)
        return out
    }

    /// Adds `value` and its children to the table (parents first); returns its index.
    private static func flatten(_ value: JSONValue, path: String, into objects: inout [Object]) throws(SwurlError) -> Int {
        let index = objects.count
        switch value {
        case .null:
            throw nullError(path)
        case .bool(let b):
            objects.append(.bool(b))
        case .number(let n):
            switch try checkedNumber(n, path: path) {
            case .int(let v): objects.append(.int(v))
            case .uint(let v): objects.append(.uint(v))
            case .real(let d): objects.append(.real(d))
            }
        case .string(let s):
            if s.utf8.allSatisfy({ $0 < 0x80 }) {
                objects.append(.ascii(Array(s.utf8)))
            } else {
                objects.append(.utf16(Array(s.utf16)))
            }
        case .array(let items):
            objects.append(.array([]))
            var refs: [Int] = []
            for (i, item) in items.enumerated() { refs.append(try flatten(item, path: path + "[\(i)]", into: &objects)) }
            objects[index] = .array(refs)
        case .object(let members):
            objects.append(.dict(keys: [], values: []))
            var keys: [Int] = []
            var values: [Int] = []
            for m in members {
                keys.append(try flatten(.string(m.key), path: path, into: &objects))
                values.append(try flatten(m.value, path: path.isEmpty ? m.key : path + "[\(m.key)]", into: &objects))
            }
            objects[index] = .dict(keys: keys, values: values)
        }
        return index
    }

    private static func byteWidth(_ max: UInt64) -> Int {
        max < 1 << 8 ? 1 : max < 1 << 16 ? 2 : max < 1 << 32 ? 4 : 8
    }

    private static func appendBigEndian(_ v: UInt64, width: Int, into out: inout [UInt8]) {
        for i in stride(from: width - 1, through: 0, by: -1) { out.append(UInt8(truncatingIfNeeded: v >> (UInt64(i) * 8))) }
    }

    /// Integers: 1, 2 or 4 bytes are unsigned; 8 bytes are signed (negative numbers use 8).
    private static func writeInt(_ v: Int64, into out: inout [UInt8]) {
        if v < 0 || v > Int64(UInt32.max) {
            out.append(0x13)
            appendBigEndian(UInt64(bitPattern: v), width: 8, into: &out)
        } else {
            let width = byteWidth(UInt64(v))
            out.append(0x10 | UInt8(width == 1 ? 0 : width == 2 ? 1 : 2))
            appendBigEndian(UInt64(v), width: width, into: &out)
        }
    }

    private static func writeMarker(_ type: UInt8, count: Int, into out: inout [UInt8]) {
        if count < 15 {
            out.append(type | UInt8(count))
        } else {
            out.append(type | 0x0F)
            writeInt(Int64(count), into: &out)
        }
    }
}
