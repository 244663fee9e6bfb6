import AssetPacks
import Foundation
import Testing

/// `import AssetPacks` alone (no AssetPackFormat import in this file) gives the format types the
/// client API takes: this file compiles only while AssetPacks re-exports them.
@Suite struct ReexportTests {
    @Test func importAssetPacksAloneGivesTheFormatTypes() throws {
        let key = try Ed25519PublicKey(text: "ed25519:8ogjuvnAdbFHmAn/v5561qrfDSsZd3GzwYoM7fx33TE=")
        let configuration = AssetPackManager.Configuration(repositoryURLs: ["https://cdn.example.com/"], publicKey: key, storageRoot: "/nonexistent")
        #expect(configuration.publicKey == key)
        let policy: DownloadPolicy = .essential(installationEventTypes: [InstallationEventType.firstInstallation])
        #expect(policy.installationEventTypes.contains(.firstInstallation))
    }
}
