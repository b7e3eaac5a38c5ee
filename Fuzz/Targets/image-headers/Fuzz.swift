import FuzzHarnesses

/// libFuzzer entry point for the `image-headers` harness (see Tests/SwurlKitTests/FuzzHarnesses.swift).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { FuzzHarness.imageHeaders.fuzzEmpty(); return 0 }
    FuzzHarness.imageHeaders.fuzz(data, size)
    return 0
}
