import AssetPackFormat
import AssetPackPublishing
@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// A signed catalog whose figures contradict the pack index it pins (the publisher lying, or a
/// compromised publishing pipeline signing with the real key) is a verification failure found
/// before any limit counts them: the pack never gets past the allowances, the maximum install
/// size or the storage budget, nothing is evicted, and nothing but the index is downloaded.
@Suite struct CatalogIndexAgreementTests {
    /// `Small` (installed first) and `Big`, both on demand and incompressible.
    func repository() throws -> TestRepository {
        let repo = try TestRepository()
        try repo.put("Small", files: ["small.bin": patternBytes(20_000, seed: 3)])
        try repo.put("Big", files: ["big.bin": patternBytes(200_000, seed: 4)])
        try repo.publish()
        return repo
    }

    /// Re-signs the repository's catalog with its own key after `change` rewrote `Big`'s entry.
    func lie(_ repo: TestRepository, _ change: (inout CatalogPack) -> Void) throws {
        var catalog = try repo.catalog()
        let k = try #require(catalog.packs.firstIndex { $0.id == "Big" })
        change(&catalog.packs[k])
        try repo.place("catalog.json", try repo.key.signedCatalog(catalog))
    }

    func verificationMessage(_ error: AssetPackManagerError?) -> String? {
        if case .verification(let why)? = error { return why }
        return nil
    }

    /// Only the index was fetched (one Range request of its length), and nothing of Big is on disk.
    func expectNothingDownloaded(_ repo: TestRepository, _ server: TestServer, root: String, big: CatalogPack) throws {
        let bigRequests = server.packRequests().filter { $0.path.contains("/Big/") }
        #expect(bigRequests.count == 1 && bigRequests.first?.bytes == big.index.length)
        let storage = StorageRoot(path: root)
        #expect(storage.stagingEntries.isEmpty)
        #expect(try storage.store().installedPack("Big") == nil)
    }

    @Test func anUnderstatedInstallSizeDoesNotPassMaxInstallSize() async throws {
        let repo = try repository()
        let big = try #require(try repo.catalog().pack(withID: "Big"))
        try lie(repo) { $0.installSize = 1_000 }
        let server = try repo.serve()
        let root = repo.dir.file("root")
        let manager = try repo.manager(root: root, server: server) { $0.maxInstallSize = 50_000 }
        let pack = try await manager.catalogPack(withID: "Big")
        #expect(pack.installSize == 1_000)   // what the lying catalog says
        let updates = UpdateCollector(manager.statusUpdates(forAssetPackWithID: "Big"))
        let message = try #require(verificationMessage(await managerError { try await manager.ensureLocalAvailability(of: pack) }))
        #expect(message.contains("Big") && message.contains("installSize") && message.contains("1000 bytes") && message.contains("\(big.installSize) bytes"))
        #expect(await updates.ended().map(\.kind) == ["failed"])
        try expectNothingDownloaded(repo, server, root: root, big: big)
    }

    @Test func anUnderstatedDownloadSizeDoesNotPassTheDownloadAllowance() async throws {
        let repo = try repository()
        let big = try #require(try repo.catalog().pack(withID: "Big"))
        try lie(repo) { $0.downloadSize = 2_000 }
        let server = try repo.serve()
        let root = repo.dir.file("root")
        let manager = try repo.manager(root: root, server: server) { $0.downloadAllowance = 100_000 }
        let message = try #require(verificationMessage(await managerError { try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Big")) }))
        #expect(message.contains("Big") && message.contains("downloadSize") && message.contains("2000 bytes") && message.contains("\(big.downloadSize) bytes"))
        try expectNothingDownloaded(repo, server, root: root, big: big)
    }

    /// A catalog's installSize that understates the index (10 kB: the budget would hold Big beside
    /// Small) or overstates it (300 kB: the whole budget, so Small would be evicted for it) is
    /// refused before the budget decides anything: nothing is downloaded, nothing evicted.
    @Test(arguments: [(claimed: UInt64(10_000), budget: UInt64(120_000)), (claimed: 300_000, budget: 300_000)])
    func aMisstatedInstallSizeMeetsTheStorageBudgetNeverAndEvictsNothing(claimed: UInt64, budget: UInt64) async throws {
        let repo = try repository()
        let big = try #require(try repo.catalog().pack(withID: "Big"))
        let server = try repo.serve()
        let root = repo.dir.file("root")
        do {
            let manager = try repo.manager(root: root, server: server)
            try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Small"))
        }
        try lie(repo) { $0.installSize = claimed }
        let manager = try repo.manager(root: root, server: server) { $0.storageBudget = budget }
        let message = try #require(verificationMessage(await managerError { try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Big")) }))
        #expect(message.contains("installSize") && message.contains("\(claimed) bytes") && message.contains("\(big.installSize) bytes"), "\(message)")
        try expectNothingDownloaded(repo, server, root: root, big: big)
        #expect(manager.assetPackIsAvailableLocally(withID: "Small"))
    }

    @Test func aPolicyOrLanguageTheIndexDoesNotStateIsRefused() async throws {
        let repo = try repository()
        let big = try #require(try repo.catalog().pack(withID: "Big"))
        try lie(repo) { $0.language = "fr" }
        let server = try repo.serve()
        let root = repo.dir.file("root")
        let manager = try repo.manager(root: root, server: server)
        let message = try #require(verificationMessage(await managerError { try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Big")) }))
        #expect(message.contains("language") && message.contains("\"fr\"") && message.contains("none"))
        try expectNothingDownloaded(repo, server, root: root, big: big)
    }

    @Test func anHonestCatalogInstallsWithinTheSameLimits() async throws {
        let repo = try repository()
        let server = try repo.serve()
        let manager = try repo.manager(root: repo.dir.file("root"), server: server) { $0.maxInstallSize = 250_000; $0.storageBudget = 250_000 }
        try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Big"))
        #expect(try manager.contents(at: "big.bin") == Data(patternBytes(200_000, seed: 4)))
    }
}

/// The same through the command: `assetpack ensure --storage-budget` refuses a pack whose signed
/// catalog understates its install size, and says which figure lied.
@Suite struct CatalogIndexAgreementCommandTests {
    @Test func ensureWithAStorageBudgetRefusesAnUnderstatedPack() async throws {
        let repo = try TestRepository()
        try repo.put("Big", files: ["big.bin": patternBytes(200_000, seed: 4)])
        try repo.publish()
        var catalog = try repo.catalog()
        catalog.packs[0].installSize = 1_000
        try repo.place("catalog.json", try repo.key.signedCatalog(catalog))
        let server = try repo.serve()
        let root = repo.dir.file("root")
        let ensure = try await Assetpack.run(["ensure", "Big", "--root", root, "--repo", server.url, "--public-key", repo.publicKey.text,
                                              "--storage-budget", "50000"], in: repo.dir.path)
        #expect(ensure.status == 1, "\(ensure.stderr)")
        #expect(ensure.stderr.contains("installSize") && ensure.stderr.contains("1000 bytes") && ensure.stderr.contains("200000 bytes"), "\(ensure.stderr)")
        #expect(try StorageRoot(path: root).store().installedPack("Big") == nil)
        #expect(server.packRequests().count == 1)
    }
}
