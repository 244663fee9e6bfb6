@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// checkForUpdates: a new version arrives by delta (only the chunks that changed cross the
/// network), and packs the catalog dropped are removed.
@Suite struct DeltaUpdateTests {
    @Test func smallChangeDownloadsOnlyTheChangedChunks() async throws {
        let repo = try TestRepository()
        var files = ["world/a.bin": patternBytes(2 << 20, seed: 11), "world/b.bin": patternBytes(2 << 20, seed: 12),
                     "world/c.bin": patternBytes(2 << 20, seed: 13)]
        try repo.put("World", files: files)
        try repo.put("Retiring", files: ["retiring.txt": text("soon gone\n")])
        try repo.publish()
        let server = try repo.serve()
        let root = StorageRoot(path: repo.dir.file("root"))
        do {
            let first = try repo.manager(root: root.path, server: server)
            try await first.ensureLocalAvailability(of: first.catalogPack(withID: "World"))
            try await first.ensureLocalAvailability(of: first.catalogPack(withID: "Retiring"))
        }
        let oldFolder = try #require(try root.installedDirectory("World"))

        // Version 2: 64 bytes changed in the middle of b.bin; Retiring leaves the catalog.
        for i in 0..<64 { files["world/b.bin"]![1_000_000 + i] ^= 0x5A }
        try repo.put("World", files: files)
        repo.drop("Retiring")
        try repo.publish()

        let manager = try repo.manager(root: root.path, server: server)
        let (updated, removed) = try await manager.installUpdates()
        #expect(updated.map(\.description) == ["World v2"])
        #expect(removed == ["Retiring"])
        let v2 = try await manager.catalogPack(withID: "World")
        let fetched = await manager.fetchedBytes
        #expect(fetched > 0)
        print("delta update: \(fetched) bytes fetched for a \(v2.downloadSize)-byte pack (\(fetched * 100 / UInt64(v2.downloadSize))%)")
        #expect(fetched * 4 < UInt64(v2.downloadSize), "the delta fetched \(fetched) bytes of a \(v2.downloadSize)-byte pack")
        for (path, bytes) in files {
            #expect(try manager.contents(at: FilePath(path)) == Data(bytes), "\(path)")
        }
        #expect(!FileManager.default.fileExists(atPath: oldFolder))
        #expect(root.installedVersions("World") == [try #require(try root.installedDirectory("World")).split(separator: "/").last.map(String.init)!])
        #expect(root.installedVersions("Retiring").isEmpty)
        #expect(!manager.assetPackIsAvailableLocally(withID: "Retiring"))
        #expect(try root.store().packs(holding: "retiring.txt").isEmpty)
        #expect(root.stagingEntries.isEmpty)
        #expect(await manager.localStatus(ofAssetPackWithID: "World") == [.downloaded, .upToDate])

        // Nothing new: nothing moves.
        let requests = server.packRequests().count
        let again = try await manager.installUpdates()
        #expect(again.updated.isEmpty && again.removed.isEmpty)
        #expect(server.packRequests().count == requests)
    }

    @Test func reusedChunksAreFoundWhenChunkNumbersShift() async throws {
        // A new file sorted first gives every old chunk a new number in the new index: reuse
        // must look chunks up by the previous version's own numbering.
        let repo = try TestRepository()
        var files = ["m/b.bin": patternBytes(2 << 20, seed: 31), "m/c.bin": patternBytes(2 << 20, seed: 32)]
        try repo.put("Shift", files: files)
        try repo.publish()
        let server = try repo.serve()
        let root = StorageRoot(path: repo.dir.file("root"))
        try await repo.install("Shift", root: root.path, server: server)

        files["m/a.bin"] = patternBytes(600_000, seed: 33)
        try repo.put("Shift", files: files)
        try repo.publish()
        let manager = try repo.manager(root: root.path, server: server)
        _ = try await manager.installUpdates()
        let fetched = await manager.fetchedBytes
        // About the new file (incompressible) and the index, not the 4 MiB already there.
        #expect(fetched < 1_000_000, "fetched \(fetched) bytes")
        for (path, bytes) in files { #expect(try manager.contents(at: FilePath(path)) == Data(bytes), "\(path)") }
    }

    @Test func damagedPreviousFilesAreFetchedAgain() async throws {
        // A chunk the plan meant to copy from the installed version no longer hashes right: it
        // comes from the network instead, and the new version is still correct. a.bin is
        // unchanged (linked once it verifies); b.bin changes at its start, and its other chunks
        // are copied from the installed file, where one was overwritten since the install (its
        // change time moved, so its chunks are hashed, not taken on the install's word).
        let repo = try TestRepository()
        var files = ["a.bin": patternBytes(1 << 20, seed: 21), "b.bin": patternBytes(1 << 20, seed: 22)]
        try repo.put("Pack", files: files)
        try repo.publish()
        let server = try repo.serve()
        let root = StorageRoot(path: repo.dir.file("root"))
        try await repo.install("Pack", root: root.path, server: server)
        let installed = try #require(try root.installedDirectory("Pack"))
        for name in ["a.bin", "b.bin"] {
            chmod(installed + "/" + name, 0o644)
            let handle = try #require(FileHandle(forWritingAtPath: installed + "/" + name))
            try handle.seek(toOffset: 800_000)
            handle.write(Data(repeating: 0, count: 100))
            try handle.close()
        }

        files["b.bin"]![10] ^= 1
        try repo.put("Pack", files: files)
        try repo.publish()
        let manager = try repo.manager(root: root.path, server: server)
        _ = try await manager.installUpdates()
        for (path, bytes) in files { #expect(try manager.contents(at: FilePath(path)) == Data(bytes), "\(path)") }
    }
}
