@testable import SwurlOutput
@testable import SwurlResponseSerialization
@testable import SwurlCore

/// Runs a decoder over bytes fed in chunks; returns the output and the outcome.
func runDecoder(_ bytes: [UInt8], choice: DecoderChoice = .auto, mediaType: String? = nil, charset: String? = nil,
                terminal: Bool = true, theme: Theme? = nil, chunk: Int = 7,
                configure: (inout DecodingOptions) -> Void = { _ in }) -> (text: String, bytes: [UInt8], outcome: DecodingOutcome) {
    var options = DecodingOptions()
    options.choice = choice
    configure(&options)
    let context = DecodingContext(options: options, theme: theme, terminal: terminal, mediaType: mediaType, charset: charset)
    let decoder = CompoundResponseDecoder(context: context)
    var out: [UInt8] = []
    var i = 0
    while i < bytes.count {
        let end = min(bytes.count, i + max(1, chunk))
        bytes[i..<end].withUnsafeBytes { decoder.decode($0, into: &out) }
        i = end
    }
    let outcome = decoder.finish(into: &out)
    return (String(decoding: out, as: UTF8.self), out, outcome)
}

func runDecoder(_ text: String, choice: DecoderChoice = .auto, mediaType: String? = nil, charset: String? = nil,
                terminal: Bool = true, chunk: Int = 7,
                configure: (inout DecodingOptions) -> Void = { _ in }) -> (text: String, bytes: [UInt8], outcome: DecodingOutcome) {
    runDecoder(Array(text.utf8), choice: choice, mediaType: mediaType, charset: charset, terminal: terminal,
               chunk: chunk, configure: configure)
}

extension DecodingOutcome {
    var isFailure: Bool { if case .failed = self { return true } else { return false } }
    var noteText: String? { if case .note(let t) = self { return t } else { return nil } }
}

/// A small deterministic generator (SplitMix64), so a failure with random input can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
