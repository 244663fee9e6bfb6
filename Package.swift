// swift-tools-version:6.0
import PackageDescription

// Data flows top to bottom: manifest → packager → pack format → repository → HTTP → client.
// The C targets are thin shims over system libraries (see docs/ARCHITECTURE.md).
let package = Package(
    name: "AssetPacks",
    products: [
        .library(name: "AssetPackFormat", targets: ["AssetPackFormat"]),
        .library(name: "AssetPackPublishing", targets: ["AssetPackPublishing"]),
        .library(name: "AssetPackServer", targets: ["AssetPackServer"]),
        .library(name: "AssetPackMigration", targets: ["AssetPackMigration"]),
        .executable(name: "assetpack", targets: ["assetpack"]),
    ],
    targets: [
        .target(name: "CZstd", linkerSettings: [.linkedLibrary("zstd")]),
        .target(name: "CCrypto", linkerSettings: [.linkedLibrary("crypto")]),
        .target(name: "CMicroHTTPD", linkerSettings: [.linkedLibrary("microhttpd")]),
        .target(name: "CX509", linkerSettings: [.linkedLibrary("crypto")]),
        .target(name: "AssetPackFormat", dependencies: ["CZstd", "CCrypto"]),
        .target(name: "AssetPackPublishing", dependencies: ["AssetPackFormat", "CCrypto"]),
        .target(name: "AssetPackServer", dependencies: ["AssetPackFormat", "CMicroHTTPD", "CX509"]),
        .target(name: "AssetPackMigration", dependencies: ["AssetPackFormat"]),
        .target(name: "AssetPackCLI", dependencies: []),
        .executableTarget(name: "assetpack", dependencies: ["AssetPackFormat", "AssetPackPublishing", "AssetPackServer",
                                                            "AssetPackMigration", "AssetPackCLI"]),
        .testTarget(name: "AssetPackFormatTests", dependencies: ["AssetPackFormat"]),
        .testTarget(name: "AssetPackPublishingTests", dependencies: ["AssetPackPublishing", "AssetPackFormat", "assetpack"]),
        .testTarget(name: "AssetPackServerTests", dependencies: ["AssetPackServer"]),
        .testTarget(name: "AssetPackMigrationTests", dependencies: ["AssetPackMigration", "AssetPackFormat"], exclude: ["Fixtures"]),
        .testTarget(name: "CLITests", dependencies: ["assetpack"]),
    ]
)
