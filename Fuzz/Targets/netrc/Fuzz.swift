import FuzzHarnesses

/// libFuzzer entry point for the `netrc` harness (see Tests/SwurlKitTests/FuzzHarnesses.swift).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { FuzzHarness.netrc.fuzzEmpty(); return 0 }
    FuzzHarness.netrc.fuzz(data, size)
    return 0
}
