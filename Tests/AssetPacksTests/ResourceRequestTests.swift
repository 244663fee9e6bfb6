import AssetPackFormat
@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// `AssetPackResourceRequest`, ODR's `NSBundleResourceRequest` on asset packs: tags resolve to
/// the packs `assetpack convert odr` names, begin downloads and holds them, conditional begin
/// never downloads, and held packs are safe from the storage budget until the request ends.
@Suite struct ResourceRequestTests {
    /// As the converter lays out content tagged Level1, Level2, Level1+Shared and Music (A/B/C
    /// are equal-sized on-demand packs for the budget).
    func repository() throws -> TestRepository {
        let repo = try TestRepository()
        try repo.put("Level1", files: ["level1.bin": patternBytes(20_000, seed: 80)])
        try repo.put("Level2", files: ["level2.bin": patternBytes(20_000, seed: 81)])
        try repo.put("Level1_Shared", files: ["shared.bin": patternBytes(10_000, seed: 82)])
        for (i, id) in ["A", "B", "C"].enumerated() { try repo.put(id, files: ["\(id.lowercased()).bin": patternBytes(30_000, seed: UInt64(90 + i))]) }
        try repo.publish()
        return repo
    }

    func installed(_ manager: AssetPackManager, _ ids: [String]) async throws -> [String] {
        var out: [String] = []
        for id in ids where manager.assetPackIsAvailableLocally(withID: id) { out.append(id) }
        return out
    }

    @Test func beginDownloadsEveryPackOfTheTagsAndMakesTheirFilesReadable() async throws {
        let repo = try repository()
        let server = try repo.serve()
        let manager = try repo.manager(root: repo.dir.file("root"), server: server)
        let request = AssetPackResourceRequest(tags: ["Level1"], manager: manager)
        request.loadingPriority = AssetPackResourceRequest.loadingPriorityUrgent
        #expect(!request.isAccessingResources)
        try await request.beginAccessingResources()
        #expect(request.isAccessingResources)
        // Content tagged Level1 and Shared comes with Level1, as in ODR.
        #expect([UInt8](try manager.contents(at: "level1.bin")) == patternBytes(20_000, seed: 80))
        #expect([UInt8](try manager.contents(at: "shared.bin")) == patternBytes(10_000, seed: 82))
        #expect(try await installed(manager, ["Level1", "Level1_Shared", "Level2"]) == ["Level1", "Level1_Shared"])
        #expect(manager.resourcesInUse.inUse == ["Level1", "Level1_Shared"])
        // The progress weighs each pack by its download size and is complete.
        let catalog = try repo.catalog()
        let sizes = try ["Level1", "Level1_Shared"].map { try #require(catalog.pack(withID: $0)).downloadSize }
        #expect(request.progress.totalUnitCount == Int64(sizes.reduce(0, +)))
        #expect(request.progress.completedUnitCount == request.progress.totalUnitCount)
        #expect(request.progress.fractionCompleted == 1 && request.progress.isFinished)
        request.endAccessingResources()
        #expect(!request.isAccessingResources && manager.resourcesInUse.inUse.isEmpty)
        // Ended, the files stay installed.
        #expect(try await installed(manager, ["Level1", "Level1_Shared"]) == ["Level1", "Level1_Shared"])
    }

    /// The progress follows the packs' status updates by itself (not only when begin returns).
    @Test func theProgressFollowsTheStatusUpdatesToCompletion() async throws {
        let repo = try repository()
        let server = try repo.serve()
        let manager = try repo.manager(root: repo.dir.file("root"), server: server)
        let feed = ResourceRequestProgress()
        let pack = try await manager.catalogPack(withID: "Level2")
        feed.follow([pack], manager: manager)
        #expect(feed.progress.totalUnitCount == Int64(pack.downloadSize) && feed.progress.completedUnitCount == 0)
        try await manager.ensureLocalAvailability(of: pack)
        // The listener runs on its own task: wait (bounded) for it to see the finished update.
        try await waitUntil("the progress is finished") { feed.progress.isFinished }
        #expect(feed.progress.completedUnitCount == Int64(pack.downloadSize) && feed.progress.fractionCompleted == 1)
        feed.stop()
    }

    @Test func conditionalBeginIsFalseUntilThePacksAreLocalAndNeverDownloads() async throws {
        let repo = try repository()
        let server = try repo.serve()
        let manager = try repo.manager(root: repo.dir.file("root"), server: server)
        let early = AssetPackResourceRequest(tags: ["Level2"], manager: manager)
        #expect(await early.conditionallyBeginAccessingResources() == false)
        #expect(!early.isAccessingResources && manager.resourcesInUse.inUse.isEmpty)
        #expect(server.packRequests().isEmpty)
        #expect(try await installed(manager, ["Level2"]).isEmpty)

        try await AssetPackResourceRequest(tags: ["Level2"], manager: manager).beginAccessingResources()
        let packFetches = server.packRequests().count
        #expect(packFetches > 0)
        let late = AssetPackResourceRequest(tags: ["Level2"], manager: manager)
        #expect(await late.conditionallyBeginAccessingResources())
        #expect(late.isAccessingResources && manager.resourcesInUse.inUse == ["Level2"])
        #expect(late.progress.fractionCompleted == 1)
        #expect(server.packRequests().count == packFetches)
        // A tag of which only some packs are local is not available: Level1 needs Level1_Shared too.
        try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Level1"))
        #expect(await AssetPackResourceRequest(tags: ["Level1"], manager: manager).conditionallyBeginAccessingResources() == false)
        #expect(await AssetPackResourceRequest(tags: ["Nope"], manager: manager).conditionallyBeginAccessingResources() == false)
    }

    @Test func anUnknownTagIsAnErrorNamingItAndDownloadsNothing() async throws {
        let repo = try repository()
        let server = try repo.serve()
        let manager = try repo.manager(root: repo.dir.file("root"), server: server)
        for (tags, unknown) in [(Set(["Level1", "Nope"]), "Nope"), (["level1"], "level1")] {
            let request = AssetPackResourceRequest(tags: tags, manager: manager)
            let error = await #expect(throws: AssetPackResourceRequestError.self) { try await request.beginAccessingResources() }
            #expect(error == .unknownTag(unknown, explicitMapping: false))
            #expect(error.map { "\($0)" }?.contains("\"\(unknown)\"") == true)
            #expect(!request.isAccessingResources)
        }
        #expect(server.packRequests().isEmpty && manager.resourcesInUse.inUse.isEmpty)
        await #expect(throws: AssetPackResourceRequestError.self) { try await manager.setPreservationPriority(0.2, forTags: ["Nope"]) }
    }

    @Test func aPackInUseIsNeverEvictedByTheBudgetUntilItsRequestEnds() async throws {
        let repo = try repository()
        let server = try repo.serve()
        let unit = try #require(try repo.catalog().pack(withID: "A")).installSize
        let manager = try repo.manager(root: repo.dir.file("root"), server: server) { $0.storageBudget = 2 * unit }
        let request = AssetPackResourceRequest(tags: ["A"], manager: manager)
        try await request.beginAccessingResources()
        try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "B"))
        // A would go first (lowest priority, least recently used), but it is in use: B goes.
        try await manager.setPreservationPriority(0.1, forTags: ["A"])
        #expect(try await manager.preservationPriority(ofAssetPackWithID: "A") == 0.1)
        try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "C"))
        #expect(try await installed(manager, ["A", "B", "C"]) == ["A", "C"])
        #expect([UInt8](try manager.contents(at: "a.bin")) == patternBytes(30_000, seed: 90))

        // Ended, A is evictable again, and goes first.
        request.endAccessingResources()
        try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "B"))
        #expect(try await installed(manager, ["A", "B", "C"]) == ["B", "C"])
    }

    @Test func onlyPacksInUseLeftMeansTheBudgetRefusesAndTheDeinitEndsAccess() async throws {
        let repo = try repository()
        let server = try repo.serve()
        let unit = try #require(try repo.catalog().pack(withID: "A")).installSize
        let manager = try repo.manager(root: repo.dir.file("root"), server: server) { $0.storageBudget = 2 * unit }
        do {
            let request = AssetPackResourceRequest(tags: ["A", "B"], manager: manager)
            try await request.beginAccessingResources()
            let refused = await #expect(throws: AssetPackManagerError.self) {
                try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "C"))
            }
            guard case .storageBudgetExceeded(_, _, _, let evictable)? = refused else { Issue.record("not a budget error: \(String(describing: refused))"); return }
            #expect(evictable == 0)
            #expect(try await installed(manager, ["A", "B", "C"]) == ["A", "B"])
            withExtendedLifetime(request) {}
        }
        // The request is gone: so is its hold.
        #expect(manager.resourcesInUse.inUse.isEmpty)
        try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "C"))
        #expect(try await installed(manager, ["A", "B", "C"]).count == 2)
    }

    @Test func preservationPriorityForTagsSetsEveryInstalledPackOfTheTags() async throws {
        let repo = try repository()
        let server = try repo.serve()
        let manager = try repo.manager(root: repo.dir.file("root"), server: server)
        try await AssetPackResourceRequest(tags: ["Level1"], manager: manager).beginAccessingResources()
        try await manager.setPreservationPriority(0.9, forTags: ["Level1", "Level2"])
        #expect(try await manager.preservationPriority(ofAssetPackWithID: "Level1") == 0.9)
        #expect(try await manager.preservationPriority(ofAssetPackWithID: "Level1_Shared") == 0.9)
        #expect(try await installed(manager, ["Level2"]).isEmpty)   // not installed: skipped, not downloaded
        await #expect(throws: AssetPackManagerError.self) { try await manager.setPreservationPriority(1.5, forTags: ["Level1"]) }
    }

    @Test func anExplicitMappingServesPacksNotMadeByTheConverter() async throws {
        let repo = try repository()
        let server = try repo.serve()
        let manager = try repo.manager(root: repo.dir.file("root"), server: server) {
            $0.resourceTagMapping = .explicit(["Forest": ["Level2", "B"]])
        }
        try await AssetPackResourceRequest(tags: ["Forest"], manager: manager).beginAccessingResources()
        #expect(try await installed(manager, ["Level2", "B", "Level1"]) == ["Level2", "B"])
        let error = await #expect(throws: AssetPackResourceRequestError.self) {
            try await AssetPackResourceRequest(tags: ["Level1"], manager: manager).beginAccessingResources()
        }
        #expect(error == .unknownTag("Level1", explicitMapping: true))
        // The request's own mapping wins over the manager's.
        try await AssetPackResourceRequest(tags: ["Level1"], manager: manager, mapping: .convertedFromODR).beginAccessingResources()
        #expect(try await installed(manager, ["Level1", "Level1_Shared"]) == ["Level1", "Level1_Shared"])
    }

    /// The default mapping against the converter's own naming: each tag resolves to exactly the
    /// combinations that contain it.
    @Test func tagsResolveToTheConvertersPackIDs() throws {
        let combinations: [[String]] = [["Level1"], ["Level1", "Shared"], ["Level10"], ["-x", "y"], ["a", "-z"], ["Voice en"], ["y"]]
        let ids = Set(combinations.map { AssetPackNaming.id(forTags: $0.sorted()) })
        for tag in Set(combinations.joined()) {
            let expected = Set(combinations.filter { $0.contains(tag) }.map { AssetPackNaming.id(forTags: $0.sorted()) })
            #expect(try ResourceTagMapping.convertedFromODR.packIDs(forTags: [tag], among: ids) == expected, "tag \(tag)")
        }
        #expect(throws: AssetPackResourceRequestError.unknownTag("Level", explicitMapping: false)) {
            try ResourceTagMapping.convertedFromODR.packIDs(forTags: ["Level"], among: ids)
        }
    }
}
