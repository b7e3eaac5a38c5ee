import SwurlCore

/// What a HAR entry is made from, as flat bytes: the thread that drives the transfers copies a
/// hop's facts into a record (`HAREntryRecorder.hopDidEnd`), and the entry is written from the
/// record (`HAREntryWriter`), on a second thread in a long batch (`HARLog`). Only these bytes
/// cross between the threads, never the hop's objects: the objects' reference counts and the
/// memory they free would move between cores with them (docs/performance.md, "Sixth round").
///
/// A record is its length (eight bytes, the length included) and the fields in the order the
/// writer reads them: integers and doubles as eight bytes, byte strings as their length (-1 for
/// none) and their bytes.
extension ByteBuffer {
    /// Starts a record here; returns where, for `endRecord`.
    mutating func beginRecord() -> Int {
        let start = count
        recordInt(0)   // the length, set by `endRecord`
        return start
    }

    /// Sets the length of the record begun at `start`.
    mutating func endRecord(_ start: Int) {
        storeInt64(Int64(count - start), at: start)
    }

    mutating func recordInt(_ v: Int64) {
        write(upTo: 8) { p in
            UnsafeMutableRawPointer(p).storeBytes(of: v, as: Int64.self)
            return 8
        }
    }

    mutating func recordInt(_ v: Int) { recordInt(Int64(v)) }

    mutating func recordDouble(_ v: Double) { recordInt(Int64(bitPattern: v.bitPattern)) }

    mutating func recordBytes(_ b: UnsafeBufferPointer<UInt8>?) {
        guard let b else { recordInt(-1); return }
        recordInt(b.count)
        append(b)
    }

    mutating func recordString(_ s: String?) {
        guard let s else { recordInt(-1); return }
        s.withUTF8Bytes { recordBytes($0) }
    }

    /// Header fields: their number, then each name and value.
    mutating func recordFields(_ fields: [HTTPHeaders.Field]) {
        recordInt(fields.count)
        for f in fields {
            recordString(f.name)
            recordString(f.value)
        }
    }
}

/// Reads the fields of one record, in the order they were written. The views it returns point
/// into the block the record lies in, valid while the block is.
struct HAREntryRecordReader {
    private var at: UnsafeRawPointer
    private let end: UnsafeRawPointer

    /// The records in `block`, each handed to `body` as a reader of its fields.
    static func forEach(in block: UnsafeRawBufferPointer, _ body: (inout HAREntryRecordReader) -> Void) {
        guard let base = block.baseAddress else { return }
        var offset = 0
        while offset + 8 <= block.count {
            let length = Int(base.loadUnaligned(fromByteOffset: offset, as: Int64.self))
            precondition(length >= 8 && offset + length <= block.count, "a HAR record's length is out of its block")
            var reader = HAREntryRecordReader(at: base + offset + 8, end: base + offset + length)
            body(&reader)
            offset += length
        }
    }

    private init(at: UnsafeRawPointer, end: UnsafeRawPointer) {
        self.at = at
        self.end = end
    }

    mutating func int() -> Int64 {
        precondition(at + 8 <= end, "a HAR record ends before its fields")
        let v = at.loadUnaligned(as: Int64.self)
        at += 8
        return v
    }

    mutating func double() -> Double { Double(bitPattern: UInt64(bitPattern: int())) }

    mutating func bytes() -> UnsafeBufferPointer<UInt8>? {
        let n = Int(int())
        guard n >= 0 else { return nil }
        precondition(at + n <= end, "a HAR record ends inside a field")
        let b = UnsafeBufferPointer(start: at.assumingMemoryBound(to: UInt8.self), count: n)
        at += n
        return b
    }

    /// A field that is always there (written with `string` from a non-optional).
    mutating func someBytes() -> UnsafeBufferPointer<UInt8> {
        bytes() ?? UnsafeBufferPointer(start: nil, count: 0)
    }

    mutating func string() -> String? { bytes().map { String(decoding: $0, as: UTF8.self) } }

    /// Header fields written by `recordFields`, as views.
    mutating func fields() -> [(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>)] {
        let n = Int(int())
        var out: [(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>)] = []
        out.reserveCapacity(max(0, n))
        for _ in 0..<max(0, n) { out.append((someBytes(), someBytes())) }
        return out
    }
}
