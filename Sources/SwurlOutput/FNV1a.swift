/// FNV-1a, 64 bits: a quick fingerprint of some bytes where a collision costs little (HAR's
/// connection keys, a long ETag kept with a download's `.part`). No defence against bytes
/// chosen to collide.
enum FNV1a {
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { hash = (hash ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
        return hash
    }
}
