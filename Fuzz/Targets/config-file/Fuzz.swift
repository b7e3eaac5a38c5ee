import FuzzHarnesses

/// libFuzzer entry point for the `config-file` harness (see Tests/SwurlKitTests/FuzzHarnesses.swift).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { FuzzHarness.configFile.fuzzEmpty(); return 0 }
    FuzzHarness.configFile.fuzz(data, size)
    return 0
}
