import FuzzHarnesses

/// libFuzzer entry point for the `curl-export` harness (see Tests/SwurlKitTests/FuzzHarnesses.swift).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { FuzzHarness.curlExport.fuzzEmpty(); return 0 }
    FuzzHarness.curlExport.fuzz(data, size)
    return 0
}
