// swift-tools-version:6.0
import PackageDescription

// The targets are the layers (docs/ARCHITECTURE.md draws the graph; LayeringTests holds it to
// this file): each one's dependency list is what it may import, so a wrong-way import does not compile.
// Release-build flags (the figures behind them: docs/performance.md):
// - cross-module optimisation: the hot paths (JSON formatter, write path) call across layer
//   targets, which would otherwise cost a call each (`package` declarations are optimised across
//   targets as `public` ones were; -package-cmo measured no different);
// - concrete generic metadata through direct accessors, not mangled names, whose runtime lookup
//   scans every conformance record in the binary at every start;
// - every function in its own section, so the release link's --gc-sections drops the unused ones
//   and its start-up order (scripts/release-binary) can put the used ones together.
let optimized: [SwiftSetting] = [.unsafeFlags(["-cross-module-optimization",
                                               "-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors",
                                               "-Xfrontend", "-function-sections"],
                                              .when(configuration: .release))]

let package = Package(
    name: "swurl",
    products: [
        .executable(name: "swurl", targets: ["swurl"]),
        .library(name: "SwurlKit", targets: [
            "SwurlCLI", "SwurlOutput", "SwurlEngine", "SwurlCache", "SwurlResponseSerialization",
            "SwurlRequestSerialization", "SwurlSecurity", "SwurlCurl", "SwurlCore",
        ]),
    ],
    targets: [
        // C libraries from Debian packages.
        // libcurl's headers (libcurl4-openssl-dev); the library is opened with dlopen on first use,
        // so a run that never reaches the network does not load it (curl_loader.c).
        .target(name: "CCurl", linkerSettings: [.linkedLibrary("dl")]),
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        // GNU readline's headers (libreadline-dev); the library is opened with dlopen when the
        // REPL starts on a terminal, so other commands never load it (readline_loader.c).
        .target(name: "CReadline", linkerSettings: [.linkedLibrary("dl")]),
        // Variadic setopt/getinfo, OpenSSL macros and callback trampolines.
        .target(name: "CShims", dependencies: ["CCurl", "COpenSSL"]),
        // Signals and terminal modes: no library headers, so the core stays free of them.
        .target(name: "CSupport", linkerSettings: [.linkedLibrary("dl")]),
        // argc/argv for the executable without the static runtime's /proc/self/maps scan (see
        // arguments.c); linked into `swurl` only.
        .target(name: "CArguments"),
        // rtnetlink's constants and message macros for the reachability checks (RouteMonitor).
        .target(name: "CNetlink"),
        // The VERSION file's text (C23 #embed) and the commit scripts/build-info wrote (BuildInfo).
        .target(name: "CBuildInfo"),

        // Value types and text helpers: requests, headers, bodies, errors, exit statuses, terminal
        // sanitizing, JSON values, MIME types, URL text, the Environment, transfer events.
        .target(name: "SwurlCore", dependencies: ["CSupport"], swiftSettings: optimized),
        // The libcurl wrapper: the only importer of CCurl.
        .target(name: "SwurlCurl", dependencies: ["SwurlCore", "CCurl", "CShims"], swiftSettings: optimized),
        // The security policy on OpenSSL: the only importer of COpenSSL (besides the TLS hook).
        .target(name: "SwurlSecurity", dependencies: ["SwurlCore", "COpenSSL", "CShims"], swiftSettings: optimized),
        // Parameter tree → JSON, form, property list, multipart; never CLI types.
        .target(name: "SwurlRequestSerialization", dependencies: ["SwurlCore"], swiftSettings: optimized),
        // Validation and the parsers that yield values and tokens; no themes, no ANSI.
        .target(name: "SwurlResponseSerialization", dependencies: ["SwurlCore"], swiftSettings: optimized),
        // The HTTP cache (RFC 9111, private): its rules as pure functions, the key, the store.
        .target(name: "SwurlCache", dependencies: ["SwurlSecurity", "SwurlCore"], swiftSettings: optimized),
        // The engine: transfers, redirects, auth origin binding, retries, the cache's hooks; prints nothing.
        .target(name: "SwurlEngine", dependencies: ["SwurlCache", "SwurlCurl", "SwurlSecurity", "SwurlCore", "CNetlink", "CSupport"], swiftSettings: optimized),
        // Printer, renderers, themes, progress, output files.
        .target(name: "SwurlOutput", dependencies: ["SwurlResponseSerialization", "SwurlCore"], swiftSettings: optimized),
        // Option table, parser, typed options, commands.
        .target(name: "SwurlCLI", dependencies: [
            "SwurlOutput", "SwurlEngine", "SwurlCache", "SwurlResponseSerialization", "SwurlRequestSerialization",
            "SwurlSecurity", "SwurlCurl", "SwurlCore", "CSupport", "CReadline", "CBuildInfo",
        ], swiftSettings: optimized),
        .executableTarget(name: "swurl", dependencies: ["SwurlCLI", "CArguments"], swiftSettings: optimized),

        // Test servers, certificate factory and process helpers shared by both test targets.
        .target(
            name: "SwurlTestSupport",
            dependencies: ["SwurlCLI", "SwurlCore"],
            path: "Tests/Support"
        ),
        .testTarget(
            name: "SwurlKitTests",
            dependencies: [
                "SwurlCLI", "SwurlOutput", "SwurlEngine", "SwurlCache", "SwurlResponseSerialization",
                "SwurlRequestSerialization", "SwurlSecurity", "SwurlCurl", "SwurlCore", "SwurlTestSupport",
            ]
        ),
        .testTarget(
            name: "swurlTests",
            dependencies: ["SwurlCLI", "SwurlOutput", "SwurlEngine", "SwurlCache", "SwurlCore", "SwurlTestSupport"]
        ),
    ]
)
