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
        .library(name: "AppleArchive", targets: ["AppleArchive"]),
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
        .target(name: "CAppleCompression", linkerSettings: [.linkedLibrary("z"), .linkedLibrary("lzma"), .linkedLibrary("lz4")]),
        // The data flow.
        .target(name: "AssetPackFormat", dependencies: ["CZstd", "CCrypto", "CPOSIX"]),
        .target(name: "AssetPackPackaging", dependencies: ["AssetPackFormat", "AppleArchive", "CZstd", "CCrypto"]),
        .target(name: "AssetPackPublishing", dependencies: ["AssetPackPackaging", "AssetPackFormat", "AppleArchive", "CCrypto"]),
        .target(name: "AssetPackServer", dependencies: ["AssetPackFormat", "CMicroHTTPD", "CX509"]),
        .target(name: "AssetPackTransport", dependencies: ["CCurl"]),
        .target(name: "AssetPackUpload", dependencies: ["AssetPackFormat", "AssetPackTransport"]),
        .target(name: "AssetPacks", dependencies: ["AssetPackFormat", "AssetPackTransport", "CSQLite", "CPOSIX"]),
        // The agent: owns a root's downloads, serves the client API on a Unix socket.
        .target(name: "AssetPackAgent", dependencies: ["AssetPacks", "AssetPackFormat", "AssetPackTransport", "CMicroHTTPD", "CPOSIX"]),
        // Apple's own formats: Apple Archive (pbz* container, LZFSE in Swift, AA01 entries), read and written.
        // Beside the packager: the client never links it.
        .target(name: "AppleArchive", dependencies: ["AssetPackFormat", "CAppleCompression", "CPOSIX"]),
        // Beside the flow.
        .target(name: "AssetPackMigration", dependencies: ["AssetPackPackaging", "AssetPackFormat"]),
        .target(name: "ArgumentParsing", dependencies: ["AssetPackFormat"]),
        .executableTarget(name: "assetpack", dependencies: ["AssetPackFormat", "AssetPackPackaging", "AssetPackPublishing", "AssetPackServer",
                                                            "AssetPackTransport", "AssetPackUpload", "AssetPacks",
                                                            "AssetPackMigration", "ArgumentParsing", "AssetPackAgent", "AppleArchive", "CPOSIX"]),
        // Tests. TestSupport: temporary folders, seeded bytes, condition waits, the built assetpack
        // executable, loopback servers (nginx, moto, silent sockets) — no package module. TestRepositories:
        // repositories and packs built for a test (publishes and serves, so it sits on the data flow).
        // A test target lists every module it imports, and "assetpack" when it runs the executable.
        .target(name: "TestSupport", dependencies: ["AssetPackFormat"], path: "Tests/TestSupport"),
        .target(name: "TestRepositories", dependencies: ["TestSupport", "AssetPackFormat", "AssetPackPackaging", "AssetPackPublishing",
                                                         "AssetPackServer"], path: "Tests/TestRepositories"),
        .testTarget(name: "AssetPackFormatTests", dependencies: ["AssetPackFormat", "AssetPackPackaging", "TestSupport", "TestRepositories"]),
        .testTarget(name: "AssetPackPackagingTests", dependencies: ["AssetPackPackaging", "AssetPackFormat", "TestSupport", "TestRepositories"]),
        .testTarget(name: "AssetPackPublishingTests", dependencies: ["AssetPackPublishing", "AssetPackPackaging", "AssetPackFormat", "AppleArchive",
                                                                   "TestSupport", "TestRepositories", "assetpack"]),
        .testTarget(name: "AssetPackServerTests", dependencies: ["AssetPackServer", "AssetPackPublishing", "AssetPackFormat", "TestSupport", "TestRepositories",
                                                              "assetpack"]),
        .testTarget(name: "AssetPackTransportTests", dependencies: ["AssetPackTransport", "TestSupport"]),
        .testTarget(name: "AssetPackUploadTests", dependencies: ["AssetPackUpload", "AssetPackTransport", "TestSupport"]),
        .testTarget(name: "AssetPackMigrationTests", dependencies: ["AssetPackMigration", "AssetPackPackaging", "AssetPackFormat", "TestSupport"],
                    exclude: ["Fixtures"]),
        // Replays the inputs the fuzzers (scripts/fuzz.sh, Fuzz/) once crashed on; the target logic in
        // Targets/ is also what the fuzz binary links.
        .testTarget(name: "FuzzRegressionTests", dependencies: ["AssetPackFormat", "AssetPackPackaging", "AssetPackServer", "AssetPackMigration", "AppleArchive"],
                    exclude: ["FuzzRegressions"]),
        .testTarget(name: "AppleArchiveTests", dependencies: ["AppleArchive", "AssetPackFormat", "TestSupport"]),
        .testTarget(name: "ArgumentParsingTests", dependencies: ["ArgumentParsing", "AssetPackFormat"]),
        // bench/charts.py: the benchmark report's charts and generated tables from a results file.
        .testTarget(name: "BenchmarkReportTests", dependencies: ["TestSupport"]),
        .testTarget(name: "TestSupportTests", dependencies: ["TestSupport"]),
        .testTarget(name: "CLITests", dependencies: ["AssetPacks", "AssetPackFormat", "TestSupport", "TestRepositories", "assetpack"]),
        .testTarget(name: "AssetPackAgentTests", dependencies: ["AssetPackAgent", "AssetPacks", "AssetPackPublishing", "AssetPackPackaging", "AssetPackServer",
                                                              "AssetPackFormat", "AssetPackTransport", "TestSupport", "TestRepositories", "assetpack"]),
        .testTarget(name: "AssetPacksTests", dependencies: ["AssetPacks", "AssetPackPublishing", "AssetPackFormat", "AssetPackTransport", "AssetPackServer", "TestSupport",
                                                          "TestRepositories", "assetpack", "CPOSIX"]),
        // The unhappy paths of a real app, end to end: each scenario through the library and the CLI.
        // Code written from Apple's Background Assets documentation, with only the import changed.
        .testTarget(name: "AppleParityTests", dependencies: ["AssetPacks", "AssetPackFormat", "AssetPackServer", "TestSupport", "TestRepositories"]),
        .testTarget(name: "AppJourneyTests", dependencies: ["AssetPacks", "AssetPackFormat", "AssetPackPublishing", "AssetPackServer",
                                                           "AssetPackTransport", "TestSupport", "TestRepositories", "assetpack"]),
    ]
)
