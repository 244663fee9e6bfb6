// swift-tools-version:6.0
import PackageDescription

// Data flows top to bottom: manifest → packager → pack format → repository → HTTP → client.
// No module imports one below it, except the CLI; the client (AssetPacks) reads the formats
// and never imports publishing or server code. See docs/ARCHITECTURE.md.
let package = Package(
    name: "AssetPacks",
    products: [
        .library(name: "AssetPackFormat", targets: ["AssetPackFormat"]),
        .library(name: "AssetPackPackaging", targets: ["AssetPackPackaging"]),
        .library(name: "AssetPackPublishing", targets: ["AssetPackPublishing"]),
        .library(name: "AssetPackServer", targets: ["AssetPackServer"]),
        .library(name: "AssetPackTransport", targets: ["AssetPackTransport"]),
        .library(name: "AssetPackUpload", targets: ["AssetPackUpload"]),
        .library(name: "AssetPacks", targets: ["AssetPacks"]),
        .library(name: "AssetPackMigration", targets: ["AssetPackMigration"]),
        .library(name: "AssetPackAgent", targets: ["AssetPackAgent"]),
        .executable(name: "assetpack", targets: ["assetpack"]),
    ],
    targets: [
        // C shims over system libraries.
        .target(name: "CZstd", linkerSettings: [.linkedLibrary("zstd")]),
        .target(name: "CCrypto", linkerSettings: [.linkedLibrary("crypto")]),
        .target(name: "CX509", linkerSettings: [.linkedLibrary("crypto")]),
        .target(name: "CMicroHTTPD", linkerSettings: [.linkedLibrary("microhttpd")]),
        .target(name: "CCurl", linkerSettings: [.linkedLibrary("curl")]),
        .target(name: "CSQLite", linkerSettings: [.linkedLibrary("sqlite3")]),
        .target(name: "CPOSIX"),
        // The data flow.
        .target(name: "AssetPackFormat", dependencies: ["CZstd", "CCrypto"]),
        .target(name: "AssetPackPackaging", dependencies: ["AssetPackFormat", "CZstd", "CCrypto"]),
        .target(name: "AssetPackPublishing", dependencies: ["AssetPackPackaging", "AssetPackFormat", "CCrypto"]),
        .target(name: "AssetPackServer", dependencies: ["AssetPackFormat", "CMicroHTTPD", "CX509"]),
        .target(name: "AssetPackTransport", dependencies: ["CCurl"]),
        .target(name: "AssetPackUpload", dependencies: ["AssetPackFormat", "AssetPackTransport"]),
        .target(name: "AssetPacks", dependencies: ["AssetPackFormat", "AssetPackTransport", "CSQLite", "CPOSIX"]),
        // The agent: owns a root's downloads, serves the client API on a Unix socket.
        .target(name: "AssetPackAgent", dependencies: ["AssetPacks", "AssetPackFormat", "AssetPackTransport", "CMicroHTTPD", "CPOSIX"]),
        // Beside the flow.
        .target(name: "AssetPackMigration", dependencies: ["AssetPackPackaging", "AssetPackFormat"]),
        .target(name: "AssetPackCLI", dependencies: []),
        .executableTarget(name: "assetpack", dependencies: ["AssetPackFormat", "AssetPackPackaging", "AssetPackPublishing", "AssetPackServer",
                                                            "AssetPackTransport", "AssetPackUpload", "AssetPacks",
                                                            "AssetPackMigration", "AssetPackCLI", "AssetPackAgent"]),
        // Tests. LoopbackServers starts nginx, moto and silent sockets on 127.0.0.1 for them.
        .target(name: "LoopbackServers", path: "Tests/LoopbackServers"),
        .testTarget(name: "AssetPackFormatTests", dependencies: ["AssetPackFormat", "AssetPackPackaging"]),
        .testTarget(name: "AssetPackPublishingTests", dependencies: ["AssetPackPublishing", "AssetPackPackaging", "AssetPackFormat", "assetpack"]),
        .testTarget(name: "AssetPackServerTests", dependencies: ["AssetPackServer"]),
        .testTarget(name: "AssetPackTransportTests", dependencies: ["AssetPackTransport", "LoopbackServers"]),
        .testTarget(name: "AssetPackUploadTests", dependencies: ["AssetPackUpload", "AssetPackTransport", "LoopbackServers"]),
        .testTarget(name: "AssetPackMigrationTests", dependencies: ["AssetPackMigration", "AssetPackPackaging", "AssetPackFormat"], exclude: ["Fixtures"]),
        .testTarget(name: "CLITests", dependencies: ["assetpack", "LoopbackServers"]),
        .testTarget(name: "AssetPackAgentTests", dependencies: ["AssetPackAgent", "AssetPacks", "AssetPackPublishing", "AssetPackServer", "AssetPackFormat", "AssetPackTransport",
                                                              "LoopbackServers", "assetpack"]),
        .testTarget(name: "AssetPacksTests", dependencies: ["AssetPacks", "AssetPackPublishing", "AssetPackPackaging", "AssetPackServer", "AssetPackFormat",
                                                          "AssetPackTransport", "LoopbackServers", "assetpack"]),
    ]
)
