import AssetPackTransport
@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// What a crash can leave behind is set right when a manager starts: folders the store does not
/// know go, and a download the store says is under way resumes where it stopped.
@Suite struct CrashConsistencyTests {
    @Test func foldersTheStoreDoesNotKnowAreRemovedAtInit() async throws {
        let repo = try TestRepository()
        try repo.put("Pack", files: ["pack.txt": text("kept\n", repeating: 100)])
        try repo.publish()
        let server = try repo.serve()
        let root = StorageRoot(path: repo.dir.file("root"))
        try await repo.install("Pack", root: root.path, server: server)
        let installed = try #require(try root.installedDirectory("Pack"))

        // A staging folder of no pending download, a version folder renamed into place whose
        // transaction never ran, and a whole pack the store never heard of.
        let leftovers = ["staging/Ghost-0123456789abcdef/files/x.bin", "packs/Pack/9-00000000deadbeef/pack.txt",
                         "packs/Phantom/1-0000000000000000/p.txt"]
        for path in leftovers { try repo.dir.write("root/" + path, patternBytes(1000)) }

        let restarted = try repo.manager(root: root.path, server: server)
        #expect(root.stagingEntries.isEmpty)
        #expect(root.installedVersions("Pack") == [URL(fileURLWithPath: installed).lastPathComponent])
        #expect(!FileManager.default.fileExists(atPath: root.layout.packs + "/Phantom"))
        #expect(try restarted.contents(at: "pack.txt") == Data(text("kept\n", repeating: 100)))
    }

    @Test func aRenameWhoseTransactionNeverRanIsCommittedWithoutFetching() async throws {
        let repo = try TestRepository()
        let content = patternBytes(1_500_000, seed: 65)
        try repo.put("Pack", files: ["pack.bin": content, "notes.txt": text("notes\n", repeating: 50)])
        let entry = try repo.publish().packs[0]
        let server = try repo.serve()
        let root = StorageRoot(path: repo.dir.file("root"))
        try await repo.install("Pack", root: root.path, server: server)

        // Back to the moment between commit's rename and its transaction: the store still lists
        // the download and not the pack; the staging folder holds the index (the segment files
        // went before the flush); the files sit in packs/ under the name the rename gave them.
        let store = try root.store()
        let installed = try #require(try store.installedPack("Pack"))
        let staging = root.layout.stagingDirectory(id: "Pack", digest: entry.digest)
        let packFile = [UInt8](try #require(FileManager.default.contents(atPath: repo.path + "/" + entry.path)))
        try repo.dir.write("root/\(staging)/index", Array(packFile[Int(entry.index.offset)..<Int(entry.index.offset + entry.index.length)]))
        try store.beginDownload(PendingDownload(id: "Pack", version: entry.version, digest: entry.digest, staging: staging, base: ""))
        try store.removeInstalled("Pack")
        #expect(root.installedVersions("Pack") == [URL(fileURLWithPath: installed.directory).lastPathComponent])

        // The next start puts the folder back in the staging folder instead of deleting it…
        let restarted = try repo.manager(root: root.path, server: server)
        #expect(root.installedVersions("Pack").isEmpty)
        #expect(FileManager.default.fileExists(atPath: root.path + "/\(staging)/files/pack.bin"))
        #expect(try await restarted.status(relativeTo: restarted.catalogPack(withID: "Pack")) == [.downloading, .downloadAvailable])
        // …and the next ensure verifies it and commits without fetching a byte of the pack.
        let requests = server.packRequests().count
        try await restarted.ensureLocalAvailability(of: restarted.catalogPack(withID: "Pack"))
        #expect(await restarted.fetchedBytes == 0)
        #expect(server.packRequests().count == requests)
        #expect(try restarted.contents(at: "pack.bin") == Data(content))
        #expect(try restarted.contents(at: "notes.txt") == Data(text("notes\n", repeating: 50)))
        #expect(try root.installedDirectory("Pack") == root.layout.absolute(installed.directory))
        #expect(try root.store().pendingDownload("Pack") == nil)
        #expect(root.stagingEntries.isEmpty)
    }

    @Test func pendingDownloadResumesInANewManager() async throws {
        let repo = try TestRepository()
        let content = patternBytes(1_200_000, seed: 61)
        try repo.put("Pack", files: ["pack.bin": content])
        let pack = try repo.publish().packs[0]
        let root = StorageRoot(path: repo.dir.file("root"))

        // The first run loses its connection after 400 kB and gives up (no retries).
        let flaky = try repo.serve { $0.dropAfterBytes = 400_000 }
        let kept: UInt64
        do {
            let first = try repo.manager(root: root.path, server: flaky) { $0.retryPolicy = .never }
            let error = await managerError { try await first.ensureLocalAvailability(of: first.catalogPack(withID: "Pack")) }
            #expect(error.map { if case .transport = $0 { true } else { false } } == true)
            flaky.stop()
            #expect(try root.store().pendingDownload("Pack") != nil)
            kept = root.bytesBelow("staging")
            #expect(kept >= 400_000)
            #expect(await first.localStatus(ofAssetPackWithID: "Pack") == [.downloading, .downloadAvailable])
        }

        // A new manager (a new process) resumes: the staging folder survives init, and only
        // the missing bytes are fetched.
        let server = try repo.serve()
        let second = try repo.manager(root: root.path, server: server)
        #expect(!root.stagingEntries.isEmpty)
        try await second.ensureLocalAvailability(of: second.catalogPack(withID: "Pack"))
        #expect(try second.contents(at: "pack.bin") == Data(content))
        let fetched = await second.fetchedBytes
        #expect(fetched <= pack.size - 400_000 + 16_384, "fetched \(fetched) bytes after \(kept) were kept, pack \(pack.size)")
        #expect(!server.packRequests().contains { $0.bytes >= pack.size })
        #expect(root.stagingEntries.isEmpty)
        #expect(try root.store().pendingDownload("Pack") == nil)
    }

    @Test func removeDropsAStoppedUpdate() async throws {
        // An installed pack whose update stopped half-way: remove takes both.
        let repo = try TestRepository()
        try repo.put("Pack", files: ["pack.bin": patternBytes(100_000, seed: 62)])
        try repo.publish()
        let server = try repo.serve()
        let root = StorageRoot(path: repo.dir.file("root"))
        try await repo.install("Pack", root: root.path, server: server)
        try repo.put("Pack", files: ["pack.bin": patternBytes(1_000_000, seed: 63)])
        try repo.publish()
        let flaky = try repo.serve { $0.dropAfterBytes = 300_000 }
        let updating = try repo.manager(root: root.path, server: flaky) { $0.retryPolicy = .never }
        let v2 = try await updating.catalogPack(withID: "Pack")
        #expect(await managerError { try await updating.ensureLocalAvailability(of: v2, requireLatestVersion: true) } != nil)
        #expect(try root.store().pendingDownload("Pack") != nil)
        #expect(try await updating.status(relativeTo: v2) == [.downloading, .downloaded, .updateAvailable, .outOfDate])

        try await updating.remove(assetPackWithID: "Pack")
        #expect(try root.store().pendingDownload("Pack") == nil)
        #expect(root.stagingEntries.isEmpty)
        #expect(root.installedVersions("Pack").isEmpty)
        #expect(try await updating.status(relativeTo: v2) == .downloadAvailable)
    }

    @Test func removeDuringADownloadCancelsIt() async throws {
        let repo = try TestRepository()
        try repo.put("Pack", files: ["pack.bin": patternBytes(3_000_000, seed: 64)])
        try repo.publish()
        // Slow enough (10 s) that the download is still under way, however busy the machine.
        let server = try repo.serve { $0.bandwidthBytesPerSecond = 300_000 }
        let root = StorageRoot(path: repo.dir.file("root"))
        let manager = try repo.manager(root: root.path, server: server)
        let pack = try await manager.catalogPack(withID: "Pack")
        let updates = UpdateCollector(manager.statusUpdates(forAssetPackWithID: "Pack"))
        let download = Task { try await manager.ensureLocalAvailability(of: pack) }
        try await waitUntil("the download is under way") { updates.snapshot.contains { $0.kind == "downloading" } }
        #expect(try await manager.status(relativeTo: pack) == [.downloading, .downloadAvailable])
        #expect(await manager.localStatus(ofAssetPackWithID: "Pack") == [.downloading, .downloadAvailable])

        try await manager.remove(assetPackWithID: "Pack")
        let error = await managerError { try await download.value }
        #expect(error.map { if case .cancelled = $0 { true } else { false } } == true)
        #expect(await updates.ended().last?.kind == "failed")
        #expect(root.stagingEntries.isEmpty)
        #expect(try root.store().pendingDownload("Pack") == nil)
        #expect(!manager.assetPackIsAvailableLocally(withID: "Pack"))
        #expect(try await manager.status(relativeTo: pack) == .downloadAvailable)
    }
}
