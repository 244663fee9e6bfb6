import AssetPackAgent
import AssetPacks
import Foundation
import TestSupport
import Testing

/// The agent honours the app's `ManagedDownloaderExtension` (Apple's `shouldDownload(_:)`) as the
/// in-process manager does: a declined pack fails with `downloadDeclined` for a manager working
/// through the agent, and nothing of it is fetched.
@Suite struct AgentDownloaderExtensionTests {
    struct NoHugePacks: ManagedDownloaderExtension {
        func shouldDownload(_ assetPack: AssetPack) -> Bool { assetPack.id != "Huge" }
    }

    @Test func theAgentAsksTheExtensionBeforeDownloading() async throws {
        let fixture = try AgentFixture()
        try fixture.put("Small", userInfo: ["tier": "free"], files: ["small.bin": patternBytes(10_000, seed: 5)])
        try fixture.put("Huge", files: ["huge.bin": patternBytes(200_000, seed: 6)])
        try await fixture.publishAndServe()
        let agent = try await fixture.startAgent(downloaderExtension: NoHugePacks())
        defer { agent.stop() }
        var configuration = AssetPackManager.Configuration(repositoryURLs: ["http://unused.invalid/"], publicKey: try Ed25519PublicKey(text: "ed25519:8ogjuvnAdbFHmAn/v5561qrfDSsZd3GzwYoM7fx33TE="),
                                                           storageRoot: fixture.root)
        configuration.delivery = .agent(socketPath: fixture.socketPath)
        let manager = try AssetPackManager(configuration: configuration)

        let small = try await manager.catalogPack(withID: "Small")
        // The manifest's userInfo reaches the app through the agent too.
        #expect(small.userInfo == Data(#"{"tier":"free"}"#.utf8))
        try await manager.ensureLocalAvailability(of: small)
        // The synchronous calls (Apple's) wait for the agent on a thread of their own: this agent
        // runs in the test process and answers on Swift's pool, which a blocked caller would hold.
        #expect(try await offPool { try manager.contents(at: "small.bin") } == Data(patternBytes(10_000, seed: 5)))
        do {
            try await manager.ensureLocalAvailability(of: try await manager.catalogPack(withID: "Huge"))
            Issue.record("the extension said no")
        } catch ManagedBackgroundAssetsError.downloadDeclined(let id) {
            #expect(id == "Huge")
        }
        #expect(try await offPool { manager.assetPackIsAvailableLocally(withID: "Huge") } == false)
        #expect(fixture.installedFile("Huge", "huge.bin") == nil)
    }
}
