/// Writers for a region a `ByteBuffer.write(upTo:)` body fills: a report row or an entry made of
/// dozens of short pieces is one reservation and these stores, not dozens of appends.
///
/// Free functions over the standard library's types, not members of `ByteBuffer`: with Swift
/// 6.3.1 an `@inlinable` member of a `package` type is a call from another target, while these
/// are inlined there (docs/performance.md, "Third round").

/// `count` bytes from `source` to `target` (which do not overlap): the short pieces writers
/// append most (punctuation, keys, header names) with two overlapping moves each, the others
/// with memmove, whose call and size dispatch cost more than such a piece.
@inlinable @inline(__always)
public func copyBytes(_ source: UnsafePointer<UInt8>, to target: UnsafeMutablePointer<UInt8>, count n: Int) {
    let from = UnsafeRawPointer(source), to = UnsafeMutableRawPointer(target)
    if n > 16 {
        to.copyMemory(from: from, byteCount: n)
    } else if n >= 8 {
        let head = from.loadUnaligned(as: UInt64.self), tail = from.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
        to.storeBytes(of: head, as: UInt64.self)
        to.storeBytes(of: tail, toByteOffset: n - 8, as: UInt64.self)
    } else if n >= 4 {
        let head = from.loadUnaligned(as: UInt32.self), tail = from.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)
        to.storeBytes(of: head, as: UInt32.self)
        to.storeBytes(of: tail, toByteOffset: n - 4, as: UInt32.self)
    } else {
        for i in 0..<n { target[i] = source[i] }
    }
}

/// Writes `text` at `p`; returns its length.
@inlinable @inline(__always)
public func putBytes(_ text: StaticString, at p: UnsafeMutablePointer<UInt8>) -> Int {
    copyBytes(text.utf8Start, to: p, count: text.utf8CodeUnitCount)
    return text.utf8CodeUnitCount
}

/// Writes `n` in decimal at `p` (at most 20 bytes: `-9223372036854775808`); returns how many.
@inlinable
public func putDecimal(_ n: Int64, at p: UnsafeMutablePointer<UInt8>) -> Int {
    var v = n.magnitude
    var digits = 1
    var rest = v
    while rest >= 10 { rest /= 10; digits += 1 }
    let sign = n < 0 ? 1 : 0
    if n < 0 { p[0] = UInt8(ascii: "-") }
    var i = sign + digits
    repeat {
        i -= 1
        p[i] = UInt8(truncatingIfNeeded: v % 10) &+ 0x30
        v /= 10
    } while v > 0
    return sign + digits
}

/// Moves the `used` bytes at `base` to a new allocation of at least `needed` bytes (the capacity
/// doubled until it fits) and frees the old one: the growth of `ByteBuffer` and of the JSON
/// formatter's output, the rare path beside their inlined capacity checks.
public func moveToLargerAllocation(_ base: inout UnsafeMutablePointer<UInt8>, capacity: inout Int, used: Int, needed: Int) {
    var newCapacity = max(capacity, 16) * 2
    while newCapacity < needed { newCapacity *= 2 }
    let new = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
    new.update(from: base, count: used)
    base.deallocate()
    base = new
    capacity = newCapacity
}
