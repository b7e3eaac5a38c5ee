import FuzzHarnesses

/// libFuzzer entry point for the `body-decoding` harness (see Tests/SwurlKitTests/FuzzHarnesses.swift).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { FuzzHarness.bodyDecoding.fuzzEmpty(); return 0 }
    FuzzHarness.bodyDecoding.fuzz(data, size)
    return 0
}
