// swift-tools-version:6.0
// The libFuzzer targets: one executable per parser, kept out of the main package (a fuzz
// executable has no `main` without libFuzzer, so `swift build` there must never see it).
// Built by scripts/fuzz (`make fuzz`):
//   swift build -c release --sanitize fuzzer --sanitize address -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing
// The harness functions live in Tests/SwurlKitTests/FuzzHarnesses.swift (symlinked into
// Harnesses/), so `make test` runs every corpus input through the same code.
import PackageDescription

let targets = [
    "body-decoding",
    "config-file",
    "content-range",
    "curl-export",
    "decoder-auto",
    "decoder-image",
    "decoder-json",
    "decoder-plist",
    "decoder-text",
    "decoder-xml",
    "download-name",
    "form-roundtrip",
    "image-headers",
    "json-formatter",
    "json-parser",
    "netrc",
    "plist-reader",
    "plist-roundtrip",
    "request-items",
    "retry-after",
    "session-file",
    "terminal-sanitizer",
    "url-plain",
    "xml-tokenizer",
]

let package = Package(
    name: "swurl-fuzz",
    products: targets.map { .executable(name: "fuzz-\($0)", targets: ["fuzz-\($0)"]) },
    dependencies: [.package(name: "swurl", path: "..")],
    targets: [
        .target(
            name: "FuzzHarnesses",
            dependencies: [.product(name: "SwurlKit", package: "swurl")],
            path: "Harnesses"
        ),
    ] + targets.map {
        .executableTarget(
            name: "fuzz-\($0)",
            dependencies: ["FuzzHarnesses"],
            path: "Targets/\($0)",
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        )
    }
)
