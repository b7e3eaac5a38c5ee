// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "swurl",
    products: [
        .executable(name: "swurl", targets: ["swurl"]),
        .library(name: "SwurlKit", targets: ["SwurlKit"]),
    ],
    targets: [
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        // No pkgConfig: readline.pc adds -D flags that SwiftPM rejects with a warning on every build.
        .systemLibrary(
            name: "CReadline",
            providers: [.apt(["libreadline-dev"])]
        ),
        .target(
            name: "CShims",
            dependencies: ["CCurl", "COpenSSL"]
        ),
        .target(
            name: "SwurlKit",
            dependencies: ["CCurl", "COpenSSL", "CReadline", "CShims"]
        ),
        .executableTarget(
            name: "swurl",
            dependencies: ["SwurlKit"]
        ),
        // Test servers, certificate factory and process helpers shared by both test targets.
        .target(
            name: "SwurlTestSupport",
            dependencies: ["SwurlKit"],
            path: "Tests/Support"
        ),
        .testTarget(
            name: "SwurlKitTests",
            dependencies: ["SwurlKit", "SwurlTestSupport"]
        ),
        .testTarget(
            name: "swurlTests",
            dependencies: ["SwurlKit", "SwurlTestSupport"]
        ),
    ]
)
