import FuzzHarnesses

/// libFuzzer entry point for the `decoder-plist` harness (see Tests/SwurlKitTests/FuzzHarnesses.swift).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { FuzzHarness.decoderPlist.fuzzEmpty(); return 0 }
    FuzzHarness.decoderPlist.fuzz(data, size)
    return 0
}
