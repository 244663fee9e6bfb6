import AssetPackFormat
@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// The opt-in storage budget: on-demand packs are evicted by preservation priority, then last
/// use, to make room for a download; the whole set is chosen before anything goes, and a pack
/// that cannot fit is refused before a byte moves.
@Suite struct StorageBudgetTests {
    /// On-demand packs A…D and Big (twice their size), an essential and a prefetch pack; every
    /// small pack has one incompressible file of the same size, so the same install size.
    func repository() throws -> TestRepository {
        let repo = try TestRepository()
        for (i, id) in ["A", "B", "C", "D"].enumerated() {
            try repo.put(id, files: ["\(id.lowercased()).bin": patternBytes(30_000, seed: UInt64(60 + i))])
        }
        try repo.put("Big", files: ["big.bin": patternBytes(60_000, seed: 70)])
        try repo.put("Core", policy: .essential(installationEventTypes: [.firstInstallation]), files: ["core.bin": patternBytes(30_000, seed: 71)])
        try repo.put("Intro", policy: .prefetch(installationEventTypes: [.firstInstallation]), files: ["intro.bin": patternBytes(30_000, seed: 72)])
        try repo.publish()
        return repo
    }

    func size(_ repo: TestRepository, _ id: String) throws -> UInt64 { try #require(try repo.catalog().pack(withID: id)).installSize }

    func install(_ manager: AssetPackManager, _ ids: String...) async throws {
        for id in ids { try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: id)) }
    }

    func installed(_ manager: AssetPackManager, _ ids: [String]) async throws -> [String] {
        var out: [String] = []
        for id in ids where manager.assetPackIsAvailableLocally(withID: id) { out.append(id) }
        return out
    }

    func budgetError(_ error: AssetPackManagerError?) -> (id: String, needed: UInt64, budget: UInt64, evictable: UInt64)? {
        if case let .storageBudgetExceeded(id, needed, budget, evictable)? = error { return (id, needed, budget, evictable) }
        return nil
    }

    @Test func withoutABudgetNothingIsEvicted() async throws {
        let repo = try repository()
        let server = try repo.serve()
        let manager = try repo.manager(root: repo.dir.file("root"), server: server) { $0.maxInstallSize = 1 << 30 }
        try await install(manager, "A", "B", "C", "D", "Big")
        #expect(try await installed(manager, ["A", "B", "C", "D", "Big"]) == ["A", "B", "C", "D", "Big"])
    }

    @Test func evictsTheLowestPriorityThenLeastRecentlyUsedOnDemandPack() async throws {
        let repo = try repository()
        let server = try repo.serve()
        let clock = TestClock()
        let root = StorageRoot(path: repo.dir.file("root"))
        let unit = try size(repo, "A")
        let manager = try repo.manager(root: root.path, server: server) {
            $0.storageBudget = 3 * unit
            $0.now = clock.now
        }
        try await install(manager, "A", "B", "C")
        // B and C share the lowest priority; B was used longest ago (C is read later). A is the
        // oldest but has the higher (default) priority.
        try await manager.setPreservationPriority(0.3, forAssetPackWithID: "B")
        try await manager.setPreservationPriority(0.3, forAssetPackWithID: "C")
        clock.advance(by: 10)
        _ = try manager.contents(at: "b.bin")
        clock.advance(by: 10)
        _ = try manager.contents(at: "c.bin")
        let bFolder = try #require(try root.installedDirectory("B"))

        try await install(manager, "D")
        #expect(try await installed(manager, ["A", "B", "C", "D"]) == ["A", "C", "D"])
        #expect(try root.store().installedPack("B") == nil)
        #expect(try root.store().packs(holding: "b.bin").isEmpty)
        #expect(!FileManager.default.fileExists(atPath: bFolder) && root.installedVersions("B").isEmpty)
        #expect(throws: AssetPackManagerError.self) { try manager.contents(at: "b.bin") }
        for id in ["A", "C", "D"] {
            #expect(try root.installedFile(id, "\(id.lowercased()).bin") == patternBytes(30_000, seed: UInt64(60 + ["A", "B", "C", "D"].firstIndex(of: id)!)))
            #expect(try root.store().packs(holding: "\(id.lowercased()).bin") == [id])
        }
        // Now C (0.3) goes before A and D (0.5), even though D was installed last: one eviction
        // per pack of room needed, and B comes back.
        try await install(manager, "B")
        #expect(try await installed(manager, ["A", "B", "C", "D"]) == ["A", "B", "D"])
        #expect(root.stagingEntries.isEmpty)
    }

    @Test func essentialAndPrefetchPacksAreNeverEvicted() async throws {
        let repo = try repository()
        let server = try repo.serve()
        let unit = try size(repo, "A")
        let manager = try repo.manager(root: repo.dir.file("root"), server: server) { $0.storageBudget = 3 * unit }
        try await manager.handleInstallationEvent(.firstInstallation).value
        try await install(manager, "A")
        try await manager.setPreservationPriority(0, forAssetPackWithID: "Core")
        try await manager.setPreservationPriority(0, forAssetPackWithID: "Intro")
        try await manager.setPreservationPriority(1, forAssetPackWithID: "A")
        try await install(manager, "B")
        #expect(try await installed(manager, ["Core", "Intro", "A", "B"]) == ["Core", "Intro", "B"])
    }

    @Test func aPackThatCannotFitIsRefusedBeforeAnyByteMovesAndNothingIsEvicted() async throws {
        let repo = try repository()
        let server = try repo.serve()
        let unit = try size(repo, "A")
        let big = try size(repo, "Big")
        #expect(big > unit)
        let manager = try repo.manager(root: repo.dir.file("root"), server: server) { $0.storageBudget = 2 * unit }
        try await manager.handleInstallationEvent(.firstInstallation).value   // Core and Intro: the budget is full
        // A fits only by evicting something, and nothing is evictable.
        let error = await managerError { try await self.install(manager, "A") }
        let refusal = try #require(budgetError(error))
        #expect(refusal.id == "A" && refusal.needed == 3 * unit && refusal.budget == 2 * unit && refusal.evictable == 0)
        #expect("\(try #require(error))".contains("nothing was evicted"))

        // With room for Core and A: Big needs A gone and still does not fit, so A stays.
        let second = try repo.manager(root: repo.dir.file("root2"), server: server) { $0.storageBudget = 2 * unit }
        try await second.handleInstallationEvent(.firstInstallation).value
        try await second.remove(assetPackWithID: "Intro")
        try await install(second, "A")
        let requests = server.packRequests().count
        let updates = UpdateCollector(second.statusUpdates(forAssetPackWithID: "Big"))
        let bigError = await managerError { try await self.install(second, "Big") }
        let bigRefusal = try #require(budgetError(bigError))
        #expect(bigRefusal.needed == 2 * unit + big && bigRefusal.evictable == unit)
        #expect(server.packRequests().count == requests)
        #expect(await updates.ended().map(\.kind) == ["failed"])
        #expect(try await installed(second, ["Core", "A", "Big"]) == ["Core", "A"])
        #expect(try StorageRoot(path: repo.dir.file("root2")).installedFile("A", "a.bin") == patternBytes(30_000, seed: 60))

        // A pack larger than the budget by itself, on an empty root.
        let empty = try repo.manager(root: repo.dir.file("root3"), server: server) { $0.storageBudget = big - 1 }
        let alone = try #require(budgetError(await managerError { try await self.install(empty, "Big") }))
        #expect(alone.needed == big && alone.budget == big - 1 && alone.evictable == 0)
        #expect(server.packRequests().count == requests)
    }

    @Test func anUpdateCountsOnlyItsNewVersion() async throws {
        let repo = try repository()
        let server = try repo.serve()
        let unit = try size(repo, "A")
        let manager = try repo.manager(root: repo.dir.file("root"), server: server) { $0.storageBudget = 2 * unit }
        try await install(manager, "A", "B")
        try await manager.setPreservationPriority(0.9, forAssetPackWithID: "A")
        try repo.put("A", files: ["a.bin": patternBytes(30_000, seed: 80)])
        try repo.publish()
        let (updated, _) = try await manager.installUpdates()
        #expect(updated.map(\.id) == ["A"])
        // The old A is replaced, not added to: B stays. The update keeps A's priority.
        #expect(try await installed(manager, ["A", "B"]) == ["A", "B"])
        #expect(try await manager.preservationPriority(ofAssetPackWithID: "A") == 0.9)
        #expect(try manager.contents(at: "a.bin") == Data(patternBytes(30_000, seed: 80)))
    }

    @Test func priorityPersistsAcrossManagersAndIsChecked() async throws {
        let repo = try repository()
        let server = try repo.serve()
        let root = repo.dir.file("root")
        do {
            let first = try repo.manager(root: root, server: server)
            try await install(first, "A", "B")
            #expect(try await first.preservationPriority(ofAssetPackWithID: "B") == 0.5)
            try await first.setPreservationPriority(0.25, forAssetPackWithID: "A")
            for bad in [-0.1, 1.5, Double.nan] {
                let error = await managerError { try await first.setPreservationPriority(bad, forAssetPackWithID: "B") }
                guard case .invalidPreservationPriority(_, "B")? = error else { Issue.record("\(bad): \(String(describing: error))"); continue }
            }
            let missing = await managerError { try await first.setPreservationPriority(0.5, forAssetPackWithID: "C") }
            guard case .assetPackNotFound("C")? = missing else { Issue.record("\(String(describing: missing))"); return }
        }
        let second = try repo.manager(root: root, server: server)
        #expect(try await second.preservationPriority(ofAssetPackWithID: "A") == 0.25)
        #expect(try await second.preservationPriority(ofAssetPackWithID: "B") == 0.5)
    }
}
