// swift-tools-version:6.0
import PackageDescription

// Data flows top to bottom: manifest → packager → pack format → repository → HTTP → client.
// The C targets are thin shims over system libraries (see docs/ARCHITECTURE.md).
let package = Package(
    name: "AssetPacks",
    products: [
        .library(name: "AssetPackFormat", targets: ["AssetPackFormat"]),
        .executable(name: "assetpack", targets: ["assetpack"]),
    ],
    targets: [
        .target(name: "CZstd", linkerSettings: [.linkedLibrary("zstd")]),
        .target(name: "CCrypto", linkerSettings: [.linkedLibrary("crypto")]),
        .target(name: "CCurl", linkerSettings: [.linkedLibrary("curl")]),
        .target(name: "AssetPackFormat", dependencies: ["CZstd", "CCrypto"]),
        .target(name: "AssetPackCLI", dependencies: []),
        .target(name: "AssetPackTransport", dependencies: ["CCurl"]),
        .target(name: "AssetPackUpload", dependencies: ["AssetPackTransport"]),
        .executableTarget(name: "assetpack", dependencies: ["AssetPackFormat", "AssetPackCLI", "AssetPackTransport", "AssetPackUpload"]),
        .testTarget(name: "AssetPackFormatTests", dependencies: ["AssetPackFormat"]),
        .testTarget(name: "CLITests", dependencies: ["AssetPackFormat"]),
        // Servers for integration tests (nginx, moto, a silent socket), started on loopback.
        .target(name: "LoopbackServers", path: "Tests/LoopbackServers"),
        .testTarget(name: "AssetPackTransportTests", dependencies: ["AssetPackTransport", "LoopbackServers"]),
        .testTarget(name: "AssetPackUploadTests", dependencies: ["AssetPackUpload", "AssetPackTransport", "LoopbackServers"]),
    ]
)
