/// Where `UTF8SequenceTracker` sends what it decided about non-ASCII bytes.
package protocol VisibleTextSink {
    /// A byte of valid UTF-8 text, written as is.
    mutating func text(_ byte: UInt8)
    /// The C1 control U+0080…U+009F (valid UTF-8 `C2 xx`); `byte` is its second byte.
    mutating func c1(_ byte: UInt8)
    /// A byte that is not part of valid UTF-8, to be shown as `\xNN`.
    mutating func invalid(_ byte: UInt8)
}

/// Follows UTF-8 sequences byte by byte, across chunk boundaries, so that a terminal sanitizer
/// can tell text from C1 controls and from bytes that are not UTF-8 at all. A lone 0x9B (the
/// 8-bit CSI) is such a byte: a terminal that is not in UTF-8 mode, or one that treats stray
/// bytes as C1, would obey it; it must be made visible like the encoded C1 controls.
///
/// Rules (RFC 3629): a sequence is a lead byte C2–DF, E0–EF or F0–F4 followed by one, two or three
/// continuation bytes 80–BF, with the narrower second-byte ranges that exclude overlong forms,
/// surrogates and code points past U+10FFFF. Every byte of a sequence that is cut short, and
/// every byte that cannot start one, is invalid.
package struct UTF8SequenceTracker {
    package init() {}

    /// Bytes of the unfinished sequence, first byte in the lowest 8 bits.
    @usableFromInline var held: UInt32 = 0
    @usableFromInline var heldCount = 0
    @usableFromInline var need = 0
    @usableFromInline var low: UInt8 = 0x80
    @usableFromInline var high: UInt8 = 0xBF

    /// Whether a sequence has started and not yet ended.
    @inlinable package var isHolding: Bool { heldCount > 0 }

    /// Takes a byte that is not ASCII, or any byte while a sequence is open.
    /// - Returns: false when `byte` is ASCII and the caller must handle it itself (a sequence it
    ///   cut short has been reported as invalid first).
    @inlinable @inline(__always)
    package mutating func feed<S: VisibleTextSink>(_ byte: UInt8, into sink: inout S) -> Bool {
        if need > 0 {
            if byte >= low && byte <= high {
                held |= UInt32(byte) << (8 * UInt32(heldCount))
                heldCount += 1
                need -= 1
                low = 0x80
                high = 0xBF
                if need == 0 { complete(&sink) }
                return true
            }
            flush(into: &sink)
        }
        if byte < 0x80 { return false }
        switch byte {
        case 0xC2...0xDF: start(byte, need: 1)
        case 0xE0: start(byte, need: 2, low: 0xA0)
        case 0xED: start(byte, need: 2, high: 0x9F)
        case 0xE1...0xEF: start(byte, need: 2)
        case 0xF0: start(byte, need: 3, low: 0x90)
        case 0xF1...0xF3: start(byte, need: 3)
        case 0xF4: start(byte, need: 3, high: 0x8F)
        default: sink.invalid(byte)   // a stray continuation byte, C0, C1, F5–FF
        }
        return true
    }

    /// Reports an unfinished sequence (at the end of the input) as invalid bytes.
    @inlinable package mutating func flush<S: VisibleTextSink>(into sink: inout S) {
        for k in 0..<heldCount { sink.invalid(UInt8(truncatingIfNeeded: held >> (8 * UInt32(k)))) }
        reset()
    }

    @usableFromInline mutating func start(_ lead: UInt8, need: Int, low: UInt8 = 0x80, high: UInt8 = 0xBF) {
        held = UInt32(lead)
        heldCount = 1
        self.need = need
        self.low = low
        self.high = high
    }

    @usableFromInline mutating func complete<S: VisibleTextSink>(_ sink: inout S) {
        if heldCount == 2 && held & 0xFF == 0xC2 && (held >> 8) <= 0x9F {
            sink.c1(UInt8(truncatingIfNeeded: held >> 8))
        } else {
            for k in 0..<heldCount { sink.text(UInt8(truncatingIfNeeded: held >> (8 * UInt32(k)))) }
        }
        reset()
    }

    @usableFromInline mutating func reset() {
        held = 0
        heldCount = 0
        need = 0
        low = 0x80
        high = 0xBF
    }
}

extension UTF8SequenceTracker {
    /// The length of the whole, valid UTF-8 sequence (RFC 3629, the tracker's ranges) that starts
    /// at `p[j]`, a byte of 0x80 or more; 0 when it is not valid or not whole in `p[..<n]` (a
    /// caller's tracker then takes it byte by byte). The JSON and XML formatters' fast path.
    @inlinable @inline(__always)
    package static func validSequenceLength(_ p: UnsafePointer<UInt8>, _ j: Int, _ n: Int) -> Int {
        let lead = p[j]
        let need: Int
        var low: UInt8 = 0x80, high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: need = 1
        case 0xE0: need = 2; low = 0xA0
        case 0xED: need = 2; high = 0x9F
        case 0xE1...0xEF: need = 2
        case 0xF0: need = 3; low = 0x90
        case 0xF1...0xF3: need = 3
        case 0xF4: need = 3; high = 0x8F
        default: return 0
        }
        guard j &+ need < n else { return 0 }
        let second = p[j &+ 1]
        guard second >= low && second <= high else { return 0 }
        var k = 2
        while k <= need {
            guard p[j &+ k] & 0xC0 == 0x80 else { return 0 }
            k &+= 1
        }
        return need &+ 1
    }
}

/// Bytes without the UTF-8 byte order mark an editor puts first (a session file, a request
/// item's file): no part of what they hold.
package extension Array where Element == UInt8 {
    var withoutUTF8ByteOrderMark: [UInt8] { starts(with: [0xEF, 0xBB, 0xBF]) ? Array(dropFirst(3)) : self }
}
