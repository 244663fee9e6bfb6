@testable import AssetPacks
import AssetPackFormat
import AssetPackPublishing
import Foundation
import TestRepositories
import TestSupport
import Testing

/// Packs published before pack format version 2 keep installing, and update to a version-2 pack
/// by delta: the chunks are the same in both versions, only the index's file table differs.
@Suite struct PackFormatVersionTests {
    @Test func aVersion1PackInstallsAndUpdatesToVersion2ByDelta() async throws {
        let repo = try TestRepository()
        var files = ["levels/a.bin": patternBytes(2 << 20, seed: 21), "levels/b.json": text("{\"b\": 1}\n"),
                     "levels/c.bin": patternBytes(1 << 20, seed: 22)]
        let manifest = try repo.put("Old", files: files)
        let report = try Publisher(key: repo.key, options: repo.publishOptions(now: Date()) { $0.writer.formatVersion = 1 })
            .publish(manifests: [manifest])
        #expect(report.catalog != nil)
        let server = try repo.serve()
        let root = StorageRoot(path: repo.dir.file("root"))
        do {
            let manager = try repo.manager(root: root.path, server: server)
            try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Old"))
            for (path, bytes) in files { #expect(try manager.contents(at: FilePath(path)) == Data(bytes), "\(path)") }
            let stored = try #require(try root.store().installedPack("Old"))
            #expect(try PackIndex.decode(stored.indexBytes, indexOffset: stored.indexOffset).formatVersion == 1)
        }

        files["levels/b.json"] = text("{\"b\": 2}\n")
        try repo.put("Old", files: files)
        try repo.publish()
        let manager = try repo.manager(root: root.path, server: server)
        let (updated, _) = try await manager.installUpdates()
        #expect(updated.map(\.id) == ["Old"])
        let pack = try await manager.catalogPack(withID: "Old")
        let fetched = await manager.fetchedBytes
        #expect(fetched * 4 < pack.downloadSize, "the update fetched \(fetched) bytes of a \(pack.downloadSize)-byte pack")
        for (path, bytes) in files { #expect(try manager.contents(at: FilePath(path)) == Data(bytes), "\(path)") }
        let stored = try #require(try root.store().installedPack("Old"))
        #expect(try PackIndex.decode(stored.indexBytes, indexOffset: stored.indexOffset).formatVersion == 2)
        #expect(SHA256Digest.hash(stored.indexBytes) == stored.digest, "the store keeps the pack's own index bytes")
    }
}
