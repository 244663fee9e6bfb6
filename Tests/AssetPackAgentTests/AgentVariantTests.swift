import AssetPackAgent
import AssetPacks
import Foundation
import TestSupport
import Testing

/// The agent chooses packs' device variants as an in-process manager does: for the device the
/// root remembers (`--texture-formats`, `--memory`), and says which in its pack descriptions.
@Suite struct AgentVariantTests {
    @Test func theAgentInstallsTheVariantTheRootsDeviceTakes() async throws {
        let fixture = try AgentFixture()
        let shared = patternBytes(200_000, seed: 1)
        try fixture.repository.put("Tex", files: ["shared.json": shared, "tex.bin": patternBytes(200_000, seed: 2)])
        try fixture.repository.put("Tex", variant: ["textureFormat": "etc2"], variantName: "etc2", files: ["shared.json": shared, "tex.bin": patternBytes(200_000, seed: 3)])
        try fixture.repository.put("Tex", variant: ["textureFormat": "astc", "minimumMemory": "4GiB"], variantName: "astc", files: ["shared.json": shared, "tex.bin": patternBytes(200_000, seed: 4)])
        try await fixture.publishAndServe()
        var settings = try RootSettings.load(root: fixture.root)
        settings.textureFormats = ["astc", "etc2"]
        settings.memory = 2 << 30
        try settings.save(root: fixture.root)
        let agent = try await fixture.startAgent()
        defer { agent.stop() }
        let connection = try AgentConnection(root: fixture.root)
        // 2 GiB: below the ASTC variant's tier, so ETC2, the next format the device decodes.
        let described = try await connection.assetPack(withID: "Tex")
        #expect(described.variant?.name == "etc2")
        #expect(described.variant?.description.contains("textures astc, etc2; memory 2GiB") == true, "\(String(describing: described.variant))")
        try await connection.ensureLocalAvailability(ofAssetPackWithID: "Tex")
        #expect(fixture.installedFile("Tex", "tex.bin") == Data(patternBytes(200_000, seed: 3)))
        #expect(try await connection.contents(at: "shared.json") == Data(shared))
    }
}
