/// What the user chose with `--decode`.
package enum DecoderChoice: String, CaseIterable, Sendable {
    case auto, json, xml, plist, image, text, raw
}

/// How decoded bodies are shown: the options of `--decode` and its companions.
package struct DecodingOptions: Sendable {
    /// `--decode`; `auto` picks by Content-Type, then by sniffing.
    package var choice: DecoderChoice = .auto
    /// `--sort-keys`: sort object keys (needs the whole document in memory).
    package var sortKeys = false
    /// `--drop-nulls`: AFNetworking's removesKeysWithNullValues (needs the whole document).
    package var dropNulls = false
    /// `--stream`: show each chunk as soon as it arrives instead of holding a window back.
    package var stream = false
    /// `--plist-as json`: show property lists as JSON instead of XML.
    package var plistAsJSON = false

    package init() {}

    /// Whether the decoder was chosen explicitly, which makes it strict: a body it cannot
    /// decode rejects the response (exit 8).
    package var isStrict: Bool { choice != .auto && choice != .raw && choice != .text }
}
