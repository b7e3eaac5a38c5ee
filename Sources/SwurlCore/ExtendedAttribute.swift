@preconcurrency import CSupport

/// A file's extended attributes (`user.*`), for small notes kept with a file (a `.part`'s
/// validator). Every call fails quietly where the file system keeps none (nil, false).
package enum ExtendedAttribute {
    /// The value of `name` on `path`, at most 1 KiB; nil when there is none.
    package static func get(_ path: String, _ name: String) -> [UInt8]? {
        read { sw_getxattr(ArgumentBytes.path(path), name, $0.baseAddress, UInt($0.count)) }
    }

    /// The value of `name` on the open file `fd`, at most 1 KiB; nil when there is none.
    package static func get(_ fd: Int32, _ name: String) -> [UInt8]? {
        read { sw_fgetxattr(fd, name, $0.baseAddress, UInt($0.count)) }
    }

    /// What `call` reads into a 1 KiB buffer (its result: the length, or below 1 for none).
    private static func read(_ call: (UnsafeMutableRawBufferPointer) -> Int) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 1024)
        let n = buffer.withUnsafeMutableBytes(call)
        guard n > 0, n <= buffer.count else { return nil }
        return Array(buffer[..<n])
    }

    /// Sets `name` on the open file `fd`; false when it could not.
    @discardableResult
    package static func set(_ fd: Int32, _ name: String, _ value: [UInt8]) -> Bool {
        value.withUnsafeBytes { sw_fsetxattr(fd, name, $0.baseAddress, UInt($0.count)) } == 0
    }

    /// Removes `name` from the open file `fd`.
    package static func remove(_ fd: Int32, _ name: String) { _ = sw_fremovexattr(fd, name) }
}
