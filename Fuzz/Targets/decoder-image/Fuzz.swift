import FuzzHarnesses

/// libFuzzer entry point for the `decoder-image` harness (see Tests/SwurlKitTests/FuzzHarnesses.swift).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { FuzzHarness.decoderImage.fuzzEmpty(); return 0 }
    FuzzHarness.decoderImage.fuzz(data, size)
    return 0
}
