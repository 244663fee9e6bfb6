import AssetPackFormat
@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// Cancelling a caller of ensureLocalAvailability: it stops waiting at once while the shared
/// download goes on for the others; when every caller has left, the download pauses, keeps
/// its staging folder, and the next call resumes it without fetching verified bytes again.
@Suite struct CancellationTests {
    /// A 2 MB pack served at 500 kB/s (about 4 s), so that downloads are under way when the
    /// test cancels.
    /// One connection at 500 kB/s: a download lasts seconds, long enough to be cancelled.
    let oneConnection: (inout AssetPackManager.Configuration) -> Void = { $0.parallelDownloads = .init(parts: 1, minimumInstallSize: 0) }

    func slowRepository(_ id: String = "Slow") throws -> (TestRepository, CatalogPack, [UInt8]) {
        let repo = try TestRepository()
        let content = patternBytes(2_000_000, seed: 91)
        try repo.put(id, files: ["slow.bin": content])
        let pack = try #require(try repo.publish().pack(withID: id))
        return (repo, pack, content)
    }

    @Test func aCancelledCallerLeavesTheDownloadToTheOthers() async throws {
        let (repo, pack, content) = try slowRepository()
        let server = try repo.serve { $0.bandwidthBytesPerSecond = 500_000 }
        let root = StorageRoot(path: repo.dir.file("root"))
        let manager = try repo.manager(root: root.path, server: server, oneConnection)
        let slow = try await manager.catalogPack(withID: "Slow")
        let all = UpdateCollector(manager.statusUpdates)
        let leaving = Task { try await manager.ensureLocalAvailability(of: slow) }
        let staying = Task { try await manager.ensureLocalAvailability(of: slow) }
        try await waitUntil("the download is under way") { all.snapshot.contains { $0.kind == "downloading" } }

        leaving.cancel()
        #expect(await leaving.result.isCancellation)
        // It left while the download was still under way.
        #expect(!manager.assetPackIsAvailableLocally(withID: "Slow"))
        #expect(try await manager.status(relativeTo: slow).contains(.downloading))

        try await staying.value
        #expect(try manager.contents(at: "slow.bin") == Data(content))
        let kinds = await all.stop().map(\.kind)
        #expect(kinds.filter { $0 == "began" }.count == 1, "\(kinds)")
        #expect(!kinds.contains("paused") && !kinds.contains("failed"), "\(kinds)")
        #expect(await manager.fetchedBytes <= pack.size)
        #expect(root.stagingEntries.isEmpty)
    }

    @Test func whenEveryCallerIsCancelledTheDownloadPausesAndResumes() async throws {
        let (repo, pack, content) = try slowRepository()
        let server = try repo.serve { $0.bandwidthBytesPerSecond = 500_000 }
        let root = StorageRoot(path: repo.dir.file("root"))
        let staging = root.path + "/" + root.layout.stagingDirectory(id: "Slow", digest: pack.digest)
        let manager = try repo.manager(root: root.path, server: server, oneConnection)
        let slow = try await manager.catalogPack(withID: "Slow")
        let all = UpdateCollector(manager.statusUpdates)
        let perPack = UpdateCollector(manager.statusUpdates(forAssetPackWithID: "Slow"))
        let callers = (0..<2).map { _ in Task { try await manager.ensureLocalAvailability(of: slow) } }
        try await waitUntil("400 kB are staged") { stagedBytes(staging) >= 400_000 }

        for caller in callers { caller.cancel() }
        for caller in callers { #expect(await caller.result.isCancellation) }
        // Paused, not failed; what was verified stays for the next attempt.
        try await waitUntil("the download is paused") { all.snapshot.contains { $0.kind == "paused" } }
        let kept = stagedBytes(staging)
        #expect(kept >= 400_000 && kept < pack.size, "kept \(kept) of \(pack.size)")
        #expect(try root.store().pendingDownload("Slow") != nil)
        #expect(try await manager.status(relativeTo: slow) == [.downloading, .downloadAvailable])
        #expect(!all.snapshot.contains { $0.kind == "failed" })
        // Stopped: no byte arrives after the pause. The sleep is the observation window of this
        // check (nothing happening cannot be waited for), not a wait for something to happen.
        try await Task.sleep(for: .milliseconds(300))
        #expect(stagedBytes(staging) == kept)

        // The next call resumes where the pause left off.
        try await manager.ensureLocalAvailability(of: slow)
        #expect(try manager.contents(at: "slow.bin") == Data(content))
        let fetched = await manager.fetchedBytes
        #expect(fetched <= pack.size + 16_384, "fetched \(fetched) bytes in all for a \(pack.size)-byte pack")
        // The pack's own stream went on past the pause and ended with the finished install.
        let kinds = await perPack.ended().map(\.kind)
        #expect(kinds.filter { $0 == "began" }.count == 2 && kinds.contains("paused") && kinds.last == "finished", "\(kinds)")
        #expect(kinds.firstIndex(of: "paused")! < kinds.lastIndex(of: "began")!)
        #expect(root.stagingEntries.isEmpty)
    }

    @Test func cancellingThePrefetchTaskPausesItsDownloads() async throws {
        let repo = try TestRepository()
        let core = text("core\n", repeating: 100)
        let extra = patternBytes(1_500_000, seed: 92)
        try repo.put("Core", policy: .essential(installationEventTypes: [.firstInstallation]), files: ["core.txt": core])
        try repo.put("Extra", policy: .prefetch(installationEventTypes: [.firstInstallation]), files: ["extra.bin": extra])
        let catalog = try repo.publish()
        let server = try repo.serve { $0.bandwidthBytesPerSecond = 500_000 }
        let root = StorageRoot(path: repo.dir.file("root"))
        let manager = try repo.manager(root: root.path, server: server, oneConnection)
        let all = UpdateCollector(manager.statusUpdates)

        let prefetch = try await manager.handleInstallationEvent(.firstInstallation)
        #expect(try manager.contents(at: "core.txt") == Data(core))
        try await waitUntil { all.snapshot.contains { $0.kind == "downloading" && $0.assetPack.id == "Extra" } }
        prefetch.cancel()
        #expect(await prefetch.result.isCancellation)
        try await waitUntil { all.snapshot.contains { $0.kind == "paused" && $0.assetPack.id == "Extra" } }
        #expect(!manager.assetPackIsAvailableLocally(withID: "Extra"))
        #expect(try root.store().pendingDownload("Extra") != nil)

        // The install step run again finishes it, fetching what was missing.
        try await manager.handleInstallationEvent(.firstInstallation).value
        #expect(try manager.contents(at: "extra.bin") == Data(extra))
        let sizes = catalog.packs.reduce(UInt64(0)) { $0 + $1.size }
        #expect(await manager.fetchedBytes <= sizes + 16_384)
        #expect(!all.snapshot.contains { $0.kind == "failed" })
    }
}
