// swift-tools-version:6.0
import PackageDescription

// Data flows top to bottom: manifest → packager → pack format → repository → HTTP → client.
// The C targets are thin shims over system libraries (see docs/ARCHITECTURE.md).
let package = Package(
    name: "AssetPacks",
    products: [
        .library(name: "AssetPackFormat", targets: ["AssetPackFormat"]),
        .library(name: "AssetPackServer", targets: ["AssetPackServer"]),
        .executable(name: "assetpack", targets: ["assetpack"]),
    ],
    targets: [
        .target(name: "CZstd", linkerSettings: [.linkedLibrary("zstd")]),
        .target(name: "CCrypto", linkerSettings: [.linkedLibrary("crypto")]),
        .target(name: "CMicroHTTPD", linkerSettings: [.linkedLibrary("microhttpd")]),
        .target(name: "CX509", linkerSettings: [.linkedLibrary("crypto")]),
        .target(name: "AssetPackFormat", dependencies: ["CZstd", "CCrypto"]),
        .target(name: "AssetPackServer", dependencies: ["AssetPackFormat", "CMicroHTTPD", "CX509"]),
        .target(name: "AssetPackCLI", dependencies: []),
        .executableTarget(name: "assetpack", dependencies: ["AssetPackFormat", "AssetPackServer", "AssetPackCLI"]),
        .testTarget(name: "AssetPackFormatTests", dependencies: ["AssetPackFormat"]),
        .testTarget(name: "CLITests", dependencies: ["AssetPackFormat"]),
        .testTarget(name: "AssetPackServerTests", dependencies: ["AssetPackServer"]),
    ]
)
