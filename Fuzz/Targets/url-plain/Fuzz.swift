import FuzzHarnesses

/// libFuzzer entry point for the `url-plain` harness (see Tests/SwurlKitTests/FuzzHarnesses.swift).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { FuzzHarness.urlPlain.fuzzEmpty(); return 0 }
    FuzzHarness.urlPlain.fuzz(data, size)
    return 0
}
