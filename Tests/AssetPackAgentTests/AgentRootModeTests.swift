import AssetPackAgent
import AssetPackFormat
import AssetPackPublishing
import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// An agent on a root pinned to a repository's root key: it installs through the root chain,
/// and a refusal of the chain reaches its clients as kind `trust`.
@Suite struct AgentRootModeTests {
    @Test func anAgentInRootModeInstallsAndReportsARefusedChain() async throws {
        let fixture = try AgentFixture()
        let keys = try TestRootKeys()
        try fixture.put("Levels", files: ["level1.bin": patternBytes(50_000, seed: 4)])
        let repository = fixture.repository
        try await offPool {
            try repository.startRoot(keys)
            try repository.publish(keys)
            try fixture.serve(bytesPerSecond: 0)
            try RootSettings(repositoryURLs: [fixture.server!.url], rootKey: keys.root.publicKey.text).save(root: fixture.root)
        }
        let agent = try await fixture.startAgent()
        defer { agent.stop() }
        let connection = try AgentConnection(root: fixture.root)
        try await connection.ensureLocalAvailability(ofAssetPackWithID: "Levels")
        #expect(fixture.installedFile("Levels", "level1.bin") == Data(patternBytes(50_000, seed: 4)))

        // A new publish, but a mirror goes on serving the old catalog beside the new timestamp: the
        // agent's update refuses the mix.
        let old = repository.catalogBytes()
        try fixture.put("Levels", files: ["level1.bin": patternBytes(50_000, seed: 5)])
        _ = try await offPool { try repository.publish(keys) }
        try repository.place("catalog.json", old)
        do {
            _ = try await connection.checkForUpdates()
            Issue.record("an update went through a mismatched catalog")
        } catch let AgentError.remote(status, kind, message) {
            #expect(status == 502 && kind == "trust" && message.contains("mix-and-match"), "\(status) \(kind) \(message)")
        }
    }
}
