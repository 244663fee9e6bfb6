import AssetPackAgent
import AssetPacks
import Foundation
import TestSupport
import Testing

/// The agent uses the seed folders its root remembers, and its API says where each pack's bytes
/// came from (`GET /v1/packs/ID`, `sources`), as a manager through the agent does.
@Suite struct AgentSeedTests {
    @Test func theAgentTakesChunksFromRememberedSeedsAndReportsItsSources() async throws {
        let fixture = try AgentFixture()
        let big = patternBytes(900_000, seed: 61), other = patternBytes(400_000, seed: 62)
        try fixture.put("Levels", files: ["big.bin": big, "other.bin": other])
        try await fixture.publishAndServe()
        // The root remembers a seed folder holding one of the two files, under another name.
        let seed = try fixture.dir.write("seed/renamed.bin", big)
        var settings = try RootSettings.load(root: fixture.root)
        settings.seedFolders = [(seed as NSString).deletingLastPathComponent]
        try settings.save(root: fixture.root)
        let agent = try await fixture.startAgent()
        defer { agent.stop() }
        let connection = try AgentConnection(root: fixture.root)
        #expect(try await connection.assetPack(withID: "Levels").sources == nil, "nothing installed yet")
        try await connection.ensureLocalAvailability(ofAssetPackWithID: "Levels")
        #expect(fixture.installedFile("Levels", "big.bin") == Data(big))
        #expect(fixture.installedFile("Levels", "other.bin") == Data(other))
        let sources = try #require(try await connection.assetPack(withID: "Levels").sources)
        #expect(sources.bytes(from: .seed) == 900_000)
        #expect(sources.savedBytes(by: .seed) > 0)
        #expect(sources.entries.first { $0.kind == .mirror }?.location?.hasPrefix(try #require(fixture.server).url) == true)
        #expect(sources.fetchedBytes > 0 && sources.fetchedBytes < 900_000)
        // A manager through the agent answers the same.
        var configuration = AssetPackManager.Configuration(repositoryURLs: [try #require(fixture.server).url], publicKey: fixture.key.publicKey,
                                                           storageRoot: fixture.root)
        configuration.delivery = .agent(socketPath: fixture.socketPath)
        let manager = try AssetPackManager(configuration: configuration)
        #expect(try await manager.sources(ofAssetPackWithID: "Levels") == sources)
        await agent.stopped()
    }
}
