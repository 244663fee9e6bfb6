@testable import AssetPacks
import AssetPackFormat
import AssetPackServer
import Foundation
import TestRepositories
import TestSupport
import Testing

/// A paid (sealed) pack with device variants: every variant is sealed under the pack's content
/// key, a device installs its variant with the key the key server grants once, and a switch to
/// another variant needs no key server.
@Suite struct PaidPackVariantTests {
    @Test func aSealedGroupInstallsTheDevicesVariantAndSwitchesWithoutTheKeyServer() async throws {
        let repo = try TestRepository()
        let shared = patternBytes(400_000, seed: 30)
        try repo.put("Paid", files: ["shared.bin": shared, "tex.bin": patternBytes(300_000, seed: 31)])
        try repo.put("Paid", variant: ["textureFormat": "astc"], variantName: "astc", files: ["shared.bin": shared, "tex.bin": patternBytes(300_000, seed: 32)])
        try repo.put("Paid", variant: ["textureFormat": "bc7"], variantName: "bc7", files: ["shared.bin": shared, "tex.bin": patternBytes(300_000, seed: 33)])
        let catalog = try #require(try repo.publishReport(now: Date()) { $0.encrypt = ["Paid"]; $0.keyStorePath = repo.dir.file("keys.json") }.catalog)
        let entry = try #require(catalog.pack(withID: "Paid"))
        #expect(entry.sealed != nil && entry.variants?.count == 2)
        for v in entry.variants ?? [] { #expect(throws: (any Error).self) { _ = try PackReader(path: "\(repo.path)/\(v.path)") } }
        let grantsPath = try repo.dir.write("grants.json", Array(#"{"format": "assetpack-grants", "version": 1, "tokens": {"tok": {"packs": ["Paid"]}}}"#.utf8))
        let keyServer = try KeyServer(keyStorePath: repo.dir.file("keys.json"), check: .grants(try EntitlementGrants.load(grantsPath)),
                                      configuration: KeyServer.Configuration())
        let server = try repo.serve()
        let root = repo.dir.file("root")
        do {
            let manager = try repo.manager(root: root, server: server) {
                $0.entitlementProvider = { _ in "tok" }
                $0.keyServerURL = keyServer.url
                $0.textureFormats = [.astc]
            }
            let pack = try await manager.catalogPack(withID: "Paid")
            #expect(pack.requiresEntitlement && pack.variant?.name == "astc")
            try await manager.ensureLocalAvailability(of: pack)
            #expect(try manager.contents(at: "tex.bin") == Data(patternBytes(300_000, seed: 32)))
        }
        keyServer.stop()
        let down = try RefusingPort()
        let manager = try repo.manager(root: root, server: server) {
            $0.entitlementProvider = { _ in "tok" }
            $0.keyServerURL = down.url
            $0.textureFormats = [.bc7]
        }
        let (updated, _) = try await manager.installUpdates()
        #expect(updated.map(\.id) == ["Paid"])
        #expect(try manager.contents(at: "tex.bin") == Data(patternBytes(300_000, seed: 33)))
        #expect(try manager.contents(at: "shared.bin") == Data(shared))
        let fetched = await manager.fetchedBytes
        #expect(fetched < 400_000, "the switch fetched \(fetched) bytes; the texture is 300 kB and the shared file 400 kB")
    }
}
