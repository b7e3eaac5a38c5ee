import SwurlCore

/// What a HAR entry is made from, as flat bytes: the thread that drives a batch's transfers
/// copies a hop's facts into a record (`HAREntryRecorder.hopDidEnd`), and the entry is written
/// from records (`HAREntryWriter`), on a second thread once a batch fills a block of them
/// (`RecordFormatterThread`). Only these bytes cross between the threads, never the hop's
/// objects: their reference counts and the memory they free would move between cores with them
/// (docs/performance.md, "Sixth round").
///
/// A record is its length (eight bytes, the length included) and the fields in the order the
/// writer reads them: integers and doubles as eight bytes, byte strings as their length (-1 for
/// none) and their bytes.
extension ByteBuffer {
    /// Starts a record here; returns where, for `endRecord`.
    @inlinable
    public mutating func beginRecord() -> Int {
        let start = count
        recordInt(0)   // the length, set by `endRecord`
        return start
    }

    /// Sets the length of the record begun at `start`.
    @inlinable
    public mutating func endRecord(_ start: Int) {
        storeInt64(Int64(count - start), at: start)
    }

    @inlinable @inline(__always)
    public mutating func recordInt(_ v: Int64) {
        write(upTo: 8) { p in
            UnsafeMutableRawPointer(p).storeBytes(of: v, as: Int64.self)
            return 8
        }
    }

    @inlinable @inline(__always)
    public mutating func recordInt(_ v: Int) { recordInt(Int64(v)) }

    @inlinable @inline(__always)
    public mutating func recordDouble(_ v: Double) { recordInt(Int64(bitPattern: v.bitPattern)) }

    /// A range of offsets as its two ends (-1, -1 for none).
    @inlinable @inline(__always)
    package mutating func recordRange(_ r: Range<Int>?) {
        recordInt(r?.lowerBound ?? -1)
        recordInt(r?.upperBound ?? -1)
    }

    @inlinable
    public mutating func recordBytes(_ b: UnsafeBufferPointer<UInt8>?) {
        guard let b else { recordInt(-1); return }
        recordInt(b.count)
        append(b)
    }

    @inlinable
    public mutating func recordString(_ s: String?) {
        guard let s else { recordInt(-1); return }
        s.withUTF8Bytes { recordBytes($0) }
    }

    /// Header fields: their number, then each name and value (one reservation for all of them,
    /// each field's bytes copied from the strings' own storage).
    package mutating func recordFields(_ fields: [HTTPHeaders.Field]) {
        fields.withUnsafeBufferPointer { fs in
            var total = 8
            for i in fs.indices { total += 16 + fs[i].name.utf8.count + fs[i].value.utf8.count }
            write(upTo: total) { p in
                let raw = UnsafeMutableRawPointer(p)
                raw.storeBytes(of: Int64(fs.count), as: Int64.self)
                var at = 8
                // By index: the strings are borrowed where they lie, not copied out (retained) a field at a time.
                for i in fs.indices {
                    at = ByteBuffer.put(fs[i].name, at: at, in: raw, limit: total)
                    at = ByteBuffer.put(fs[i].value, at: at, in: raw, limit: total)
                }
                return at
            }
        }
    }

    /// `s` as a record's byte string (its length, its bytes) at `at` in `raw`, within `limit`
    /// bytes; returns where the next field goes.
    @inline(__always)
    private static func put(_ s: String, at: Int, in raw: UnsafeMutableRawPointer, limit: Int) -> Int {
        s.withUTF8Bytes { b in
            precondition(at + 8 + b.count <= limit, "ByteBuffer.recordFields: a field grew")
            raw.storeBytes(of: Int64(b.count), toByteOffset: at, as: Int64.self)
            if let base = b.baseAddress { copyBytes(base, to: (raw + at + 8).assumingMemoryBound(to: UInt8.self), count: b.count) }
            return at + 8 + b.count
        }
    }
}

/// Reads the fields of one record, in the order they were written. The views it returns point
/// into the block the record lies in, valid while the block is.
package struct RecordReader {
    private var at: UnsafeRawPointer
    private let end: UnsafeRawPointer

    /// The records in `block`, each handed to `body` as a reader of its fields.
    package static func forEach(in block: UnsafeRawBufferPointer, _ body: (inout RecordReader) -> Void) {
        guard let base = block.baseAddress else { return }
        var offset = 0
        while offset + 8 <= block.count {
            let length = Int(base.loadUnaligned(fromByteOffset: offset, as: Int64.self))
            precondition(length >= 8 && offset + length <= block.count, "a record's length is out of its block")
            var reader = RecordReader(at: base + offset + 8, end: base + offset + length)
            body(&reader)
            offset += length
        }
    }

    private init(at: UnsafeRawPointer, end: UnsafeRawPointer) {
        self.at = at
        self.end = end
    }

    package mutating func int() -> Int64 {
        precondition(at + 8 <= end, "a record ends before its fields")
        let v = at.loadUnaligned(as: Int64.self)
        at += 8
        return v
    }

    package mutating func double() -> Double { Double(bitPattern: UInt64(bitPattern: int())) }

    /// A range written by `recordRange`; nil for none (or ends that make no range).
    package mutating func range() -> Range<Int>? {
        let lower = Int(int()), upper = Int(int())
        guard lower >= 0, upper >= lower else { return nil }
        return lower..<upper
    }

    package mutating func bytes() -> UnsafeBufferPointer<UInt8>? {
        let n = Int(int())
        guard n >= 0 else { return nil }
        precondition(at + n <= end, "a record ends inside a field")
        let b = UnsafeBufferPointer(start: at.assumingMemoryBound(to: UInt8.self), count: n)
        at += n
        return b
    }

    /// A field that is always there (written with `string` from a non-optional).
    package mutating func someBytes() -> UnsafeBufferPointer<UInt8> {
        bytes() ?? UnsafeBufferPointer(start: nil, count: 0)
    }

    package mutating func string() -> String? { bytes().map { String(decoding: $0, as: UTF8.self) } }

    /// Header fields written by `recordFields`, as views.
    package mutating func fields() -> [(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>)] {
        let n = Int(int())
        var out: [(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>)] = []
        out.reserveCapacity(max(0, n))
        for _ in 0..<max(0, n) { out.append((someBytes(), someBytes())) }
        return out
    }
}
