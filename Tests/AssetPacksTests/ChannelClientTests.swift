import AssetPackFormat
@testable import AssetPackPublishing
@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// The client side of channels and rollouts: a manager follows the channel its
/// configuration names, switching is an update by delta, a rollout bucket is drawn once per root
/// and kept, a rollback is an update (never refused as a rollback attack), and a channel's catalog
/// served at another channel's URL, or a channel that was deleted, is a clear error that keeps
/// the installed packs.
@Suite struct ChannelClientTests {
    /// 3 MiB in three files; `edit` flips 64 bytes of the middle one.
    func files(edit: UInt8 = 0) -> [String: [UInt8]] {
        var files = ["w/a.bin": patternBytes(1 << 20, seed: 41), "w/b.bin": patternBytes(1 << 20, seed: 42), "w/c.bin": patternBytes(1 << 20, seed: 43)]
        if edit != 0 { for i in 0..<64 { files["w/b.bin"]![500_000 + i] ^= edit } }
        return files
    }

    func publish(_ repo: TestRepository, channel: String? = nil, rollout: Int? = nil) throws {
        _ = try repo.publishReport { $0.channel = channel; $0.rolloutPercent = rollout }
    }

    func editor(_ repo: TestRepository) -> ChannelEditor { ChannelEditor(repository: repo.path, key: repo.key) }

    /// `installUpdates()` moves World to `expected` ("World v1") by delta — under a quarter of
    /// the pack fetched — and leaves `files()`'s tree, up to date.
    func expectDeltaUpdate(_ manager: AssetPackManager, to expected: String, _ what: String) async throws {
        let (updated, _) = try await manager.installUpdates()
        #expect(updated.map(\.description) == [expected])
        let fetched = await manager.fetchedBytes
        #expect(fetched * 4 < (try await manager.catalogPack(withID: "World")).downloadSize, "\(what) fetched \(fetched) bytes")
        #expect(try manager.contents(at: "w/b.bin") == Data(files()["w/b.bin"]!))
        #expect(await manager.localStatus(ofAssetPackWithID: "World") == [.downloaded, .upToDate])
    }

    @Test func switchingChannelsIsAnUpdateByDelta() async throws {
        let repo = try TestRepository()
        try repo.put("World", files: files())
        try publish(repo)
        try repo.put("World", files: files(edit: 0x5A))
        try publish(repo, channel: "beta")
        let server = try repo.serve()
        let root = StorageRoot(path: repo.dir.file("root"))
        do {
            let beta = try repo.manager(root: root.path, server: server) { $0.channel = "beta" }
            try await beta.ensureLocalAvailability(of: beta.catalogPack(withID: "World"))
            #expect(try beta.contents(at: "w/b.bin") == Data(files(edit: 0x5A)["w/b.bin"]!))
        }
        // Back to the default channel: its catalog has a lower version (1) than beta's floor would
        // allow if floors were shared; each channel keeps its own.
        try await expectDeltaUpdate(try repo.manager(root: root.path, server: server), to: "World v1", "switching")
    }

    @Test func aCatalogForAnotherChannelIsRefused() async throws {
        let repo = try TestRepository()
        try repo.put("World", files: ["x.txt": text("hello\n")])
        try publish(repo, channel: "beta")
        // An attacker (or a misconfigured CDN) serves beta's signed catalog at gamma's URL.
        try repo.place("channels/gamma/catalog.json", try #require(repo.contents("channels/beta/catalog.json")))
        let server = try repo.serve()
        let manager = try repo.manager(root: repo.dir.file("root"), server: server) { $0.channel = "gamma" }
        let error = await managerError { _ = try await manager.catalogPack(withID: "World") }
        guard case .catalog(let refusal)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(refusal == .wrongChannel(expected: "gamma", found: "beta"))
    }

    @Test func aDeletedChannelIsAClearErrorAndInstalledPacksAreKept() async throws {
        let repo = try TestRepository()
        try repo.put("World", files: ["x.txt": text("hello\n")])
        try publish(repo)
        try publish(repo, channel: "beta")
        let server = try repo.serve()
        let root = repo.dir.file("root")
        do {
            let manager = try repo.manager(root: root, server: server) { $0.channel = "beta" }
            try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "World"))
        }
        try FileManager.default.removeItem(atPath: "\(repo.path)/channels/beta")
        let manager = try repo.manager(root: root, server: server) { $0.channel = "beta" }
        let error = await managerError { _ = try await manager.installUpdates() }
        guard case .channelNotFound(let channel, let url)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(channel == "beta" && url.hasSuffix("channels/beta/catalog.json"))
        #expect(error?.description.contains("installed asset packs are kept") == true)
        #expect(try manager.contents(at: "x.txt") == Data("hello\n".utf8))
        #expect(manager.assetPackIsAvailableLocally(withID: "World"))
    }

    @Test func aRolloutBucketIsDrawnOnceAndAClientNeverMovesBackAsTheRolloutWidens() async throws {
        let repo = try TestRepository()
        try repo.put("World", files: files())
        try publish(repo)
        try repo.put("World", files: files(edit: 0x33))
        try publish(repo, rollout: 10)
        let server = try repo.serve()
        // Two roots whose buckets are 3 and 40, and one that draws its own.
        let low = StorageRoot(path: repo.dir.file("low")), high = StorageRoot(path: repo.dir.file("high")), drawn = StorageRoot(path: repo.dir.file("drawn"))
        for (root, bucket) in [(low, "3"), (high, "40")] {
            _ = try repo.manager(root: root.path, server: server)
            try root.store().setSetting("rolloutBucket", bucket)
        }
        func version(_ root: StorageRoot) async throws -> Int {
            let manager = try repo.manager(root: root.path, server: server)
            try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "World"), requireLatestVersion: true)
            return try await manager.catalogPack(withID: "World").version
        }
        #expect(try await version(low) == 2)
        #expect(try await version(high) == 1)
        _ = try await version(drawn)
        let bucket = try #require(try drawn.store().setting("rolloutBucket"))
        _ = try await version(drawn)
        #expect(try drawn.store().setting("rolloutBucket") == bucket, "drawn once, then kept")
        for percent in [25, 41, 100] {
            _ = try editor(repo).setRollout(percent: percent, channel: nil)
            #expect(try await version(low) == 2, "bucket 3 stays on the new version at \(percent) %")
            #expect(try await version(high) == (percent > 40 ? 2 : 1), "bucket 40 at \(percent) %")
        }
        #expect(try low.installedFile("World", "w/b.bin") == files(edit: 0x33)["w/b.bin"])
    }

    @Test func aRollbackIsAnUpdateByDeltaAndNotARollbackAttack() async throws {
        let repo = try TestRepository()
        try repo.put("World", files: files())
        try publish(repo)
        try repo.put("World", files: files(edit: 0x77))
        try publish(repo)
        let server = try repo.serve()
        let root = repo.dir.file("root")
        do {
            let manager = try repo.manager(root: root, server: server)
            try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "World"))
            #expect(try await manager.catalogPack(withID: "World").version == 2)
        }
        let change = try editor(repo).rollback(to: 1, channel: nil)
        #expect(change.catalog.version == 3)
        // The chunks around the edit and the index, not the 3 MiB already there.
        try await expectDeltaUpdate(try repo.manager(root: root, server: server), to: "World v1", "the rollback")
    }

    @Test func aChannelInRootModeIsTheCatalogTheTimestampNames() async throws {
        let repo = try TestRepository()
        let keys = try TestRootKeys()
        try repo.startRoot(keys)
        try repo.put("World", files: ["x.txt": text("main\n")])
        try repo.publish(keys)
        try repo.put("World", files: ["x.txt": text("beta\n")])
        let options = repo.publishOptions(now: Date()) { $0.timestampKey = keys.timestamp; $0.timestampExpiresIn = 3600; $0.channel = "beta" }
        _ = try Publisher(key: keys.catalog, options: options).publish(manifests: repo.manifestPaths)
        let server = try repo.serve()
        let root = repo.dir.file("root")
        do {
            let manager = try repo.manager(root: root, server: server) { $0.rootKey = keys.root.publicKey; $0.channel = "beta" }
            try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "World"))
            #expect(try manager.contents(at: "x.txt") == Data("beta\n".utf8))
        }
        let manager = try repo.manager(root: root, server: server) { $0.rootKey = keys.root.publicKey; $0.channel = "gamma" }
        let error = await managerError { _ = try await manager.installUpdates() }
        guard case .channelNotFound(let channel, _)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(channel == "gamma")
        #expect(try manager.contents(at: "x.txt") == Data("beta\n".utf8))
    }
}

/// A store from before channels: its floor is the catalog row's version, so the rollback
/// protection it had holds on (and format-1 catalogs, which every default-channel publish still
/// writes, are read as before).
@Suite struct ChannelFloorMigrationTests {
    @Test func aStoreFromBeforeChannelsKeepsItsRollbackFloor() async throws {
        let repo = try TestRepository()
        try repo.put("World", files: ["x.txt": text("one\n")])
        try repo.publish()
        let first = repo.catalogBytes()
        #expect(try SignedCatalog.parse(first).format == 1)
        try repo.put("World", files: ["x.txt": text("two\n")])
        try repo.publish()
        let server = try repo.serve()
        let root = StorageRoot(path: repo.dir.file("root"))
        try await repo.install("World", root: root.path, server: server)
        // As a client before channels left it: the catalog row, no per-channel floor.
        try root.store().setSetting("catalogFloor.default", nil)
        try repo.place("catalog.json", first)
        let manager = try repo.manager(root: root.path, server: server)
        let error = await managerError { _ = try await manager.installUpdates() }
        guard case .catalog(let refusal)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(refusal == .rolledBack(version: 1, minimumVersion: 2))
        #expect(try manager.contents(at: "x.txt") == Data("two\n".utf8))
    }

    /// The same store follows a channel for a while and comes back: the default channel's floor,
    /// which lay in the catalog row alone, was kept when beta's catalog replaced the row.
    @Test func aStoreFromBeforeChannelsKeepsItsFloorAcrossASwitch() async throws {
        let repo = try TestRepository()
        try repo.put("World", files: ["x.txt": text("one\n")])
        try repo.publish()
        let first = repo.catalogBytes()
        try repo.put("World", files: ["x.txt": text("two\n")])
        try repo.publish()
        _ = try repo.publishReport { $0.channel = "beta" }
        let server = try repo.serve()
        let root = StorageRoot(path: repo.dir.file("root"))
        try await repo.install("World", root: root.path, server: server)
        try root.store().setSetting("catalogFloor.default", nil)
        do {
            let beta = try repo.manager(root: root.path, server: server) { $0.channel = "beta" }
            _ = try await beta.installUpdates()
        }
        #expect(try root.store().setting("catalogFloor.default") == "2")
        try repo.place("catalog.json", first)
        let manager = try repo.manager(root: root.path, server: server)
        let error = await managerError { _ = try await manager.installUpdates() }
        guard case .catalog(let refusal)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(refusal == .rolledBack(version: 1, minimumVersion: 2))
    }
}
