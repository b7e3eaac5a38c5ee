import FuzzHarnesses

/// libFuzzer entry point for the `plist-roundtrip` harness (see Tests/SwurlKitTests/FuzzHarnesses.swift).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { FuzzHarness.plistRoundTrip.fuzzEmpty(); return 0 }
    FuzzHarness.plistRoundTrip.fuzz(data, size)
    return 0
}
