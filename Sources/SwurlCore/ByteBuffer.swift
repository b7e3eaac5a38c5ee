/// Bytes a writer appends to in many small pieces (a HAR entry, a batch report's row): an
/// append is a capacity check and a copy. `Array.append(contentsOf:)` costs about 90
/// instructions a call (uniqueness, capacity and generic paths), and a HAR entry or a report row
/// makes dozens of them (docs/performance.md, "HAR files and batch reports").
///
/// Not copyable: the buffer owns its memory and frees it in `deinit`, so two writers can never
/// share it. Writers borrow it `inout`. The appends are `@inlinable`, but Swift 6.3.1 inlines
/// a `package` declaration only within its own target: from the others they are calls
/// (docs/performance.md, "Second round: byte writers").
public struct ByteBuffer: ~Copyable {
    @usableFromInline var base: UnsafeMutablePointer<UInt8>
    /// Bytes written.
    public var count: Int { used }
    @usableFromInline var used = 0
    @usableFromInline var capacity: Int

    /// An empty buffer with room for `capacity` bytes before it grows.
    public init(capacity: Int = 256) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    public var isEmpty: Bool { count == 0 }

    /// Makes room for `n` more bytes: the appends after it do not grow the buffer until they
    /// passed them.
    @inlinable @inline(__always)
    public mutating func reserve(_ n: Int) {
        if capacity - used < n { grow(n) }
    }

    @usableFromInline
    mutating func grow(_ n: Int) {
        moveToLargerAllocation(&base, capacity: &capacity, used: used, needed: used + n)
    }

    @inlinable @inline(__always)
    public mutating func append(_ byte: UInt8) {
        reserve(1)
        base[used] = byte
        used += 1
    }

    @inlinable @inline(__always)
    public mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let p = bytes.baseAddress else { return }
        reserve(bytes.count)
        copyBytes(p, to: base + used, count: bytes.count)
        used += bytes.count
    }

    @inlinable @inline(__always)
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        append(bytes.assumingMemoryBound(to: UInt8.self))
    }

    /// Text of the writer's own, as a literal (no String made).
    @inlinable @inline(__always)
    public mutating func append(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// `text`'s UTF-8 bytes.
    public mutating func append(contentsOf text: String) {
        var text = text
        text.withUTF8 { append($0) }
    }

    public mutating func append(contentsOf bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append($0) }
    }

    /// Room for `n` bytes that `body` writes from the start of the pointer it is given; `body`
    /// returns how many it wrote (at most `n`).
    @inlinable @inline(__always)
    public mutating func write(upTo n: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        reserve(n)
        let written = body(base + used)
        precondition(written >= 0 && written <= n, "ByteBuffer.write wrote past the room it asked for")
        used += written
    }

    /// Replaces the eight bytes at `offset` (of those written) with `v`.
    public mutating func storeInt64(_ v: Int64, at offset: Int) {
        precondition(offset >= 0 && offset + 8 <= used, "ByteBuffer.storeInt64 past the bytes written")
        UnsafeMutableRawPointer(base + offset).storeBytes(of: v, as: Int64.self)
    }

    /// The bytes at `range` of those written so far, appended again.
    public mutating func appendCopy(of range: Range<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= used, "ByteBuffer.appendCopy past the bytes written")
        reserve(range.count)
        // After `reserve`: growing moves the bytes.
        copyBytes(base + range.lowerBound, to: base + used, count: range.count)
        used += range.count
    }

    /// `n` in decimal.
    @inlinable
    public mutating func appendDecimal(_ n: Int64) {
        write(upTo: 20) { putDecimal(n, at: $0) }
    }

    /// Forgets the bytes, keeping the memory.
    public mutating func removeAll() { used = 0 }

    /// The bytes written so far.
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: base, count: used))
    }

    /// A copy of the bytes written so far.
    public var array: [UInt8] { Array(UnsafeBufferPointer(start: base, count: used)) }
}
