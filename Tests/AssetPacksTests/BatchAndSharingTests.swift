import AssetPackTransport
@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// The batch form of ensureLocalAvailability, and concurrent calls sharing one download.
@Suite struct BatchAndSharingTests {
    @Test func batchErrorListsSuccessesAndFailures() async throws {
        let repo = try TestRepository()
        for id in ["Alpha", "Beta", "Gamma"] { try repo.put(id, files: ["\(id.lowercased()).bin": patternBytes(30_000, seed: UInt64(id.count))]) }
        let catalog = try repo.publish()
        // Beta's pack file is missing from the server: 404.
        try FileManager.default.removeItem(atPath: repo.path + "/" + catalog.pack(withID: "Beta")!.path)
        let server = try repo.serve()
        let root = StorageRoot(path: repo.dir.file("root"))
        let manager = try repo.manager(root: root.path, server: server)
        let packs = try await manager.catalogPacks
        let betaUpdates = UpdateCollector(manager.statusUpdates(forAssetPackWithID: "Beta"))

        let error = await #expect(throws: AssetPackManager.LocalAvailabilityError.self) { try await manager.ensureLocalAvailability(of: packs) }
        guard let error else { return }
        #expect(error.successes.map(\.id).sorted() == ["Alpha", "Gamma"])
        #expect(error.failures.map(\.key.id) == ["Beta"])
        let why = error.failures.first?.value
        guard case .transport(let transport)? = why as? AssetPackManagerError else {
            Issue.record("Beta should fail with a transport error, not \(String(describing: why))")
            return
        }
        #expect(transport.httpStatus == 404)
        #expect("\(error)".contains("1 of 3 asset packs failed") && "\(error)".contains("Beta"))
        #expect(manager.assetPackIsAvailableLocally(withID: "Alpha"))
        #expect(manager.assetPackIsAvailableLocally(withID: "Gamma"))
        #expect(!manager.assetPackIsAvailableLocally(withID: "Beta"))
        // The per-pack stream of the failed pack ends with its failure.
        #expect(await betaUpdates.ended().last?.kind == "failed")
        // A 404 is not retried: one request for Beta's file (its index) and no more.
        #expect(server.packRequests().filter { $0.path.contains("/Beta/") }.map(\.status) == [404])
    }

    /// On a fresh manager the first callers all wait for the catalog before they can start the
    /// download; on one that has it they start at once.
    @Test(arguments: [false, true])
    func concurrentCallsShareOneDownload(freshManager: Bool) async throws {
        let repo = try TestRepository()
        let content = patternBytes(1_500_000, seed: 4)
        try repo.put("Shared", files: ["shared.bin": content])
        let catalog = try repo.publish()
        let server = try repo.serve { $0.bandwidthBytesPerSecond = 6_000_000 }
        let root = StorageRoot(path: repo.dir.file("root"))
        let manager = try repo.manager(root: root.path, server: server)
        let asker = freshManager ? try repo.manager(root: repo.dir.file("other"), server: server) : manager
        let pack = try await asker.catalogPack(withID: "Shared")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<5 { group.addTask { try await manager.ensureLocalAvailability(of: pack) } }
            try await group.waitForAll()
        }
        // The pack's bytes crossed the network once.
        let size = catalog.packs[0].size
        let served = server.packRequests().reduce(UInt64(0)) { $0 + $1.bytes }
        #expect(served <= size, "served \(served) bytes of a \(size)-byte pack")
        #expect(await manager.fetchedBytes <= size)
        #expect(await manager.fetchedBytes >= size - 4096)
        #expect(try manager.contents(at: "shared.bin") == Data(content))
        #expect(root.stagingEntries.isEmpty)
    }
}
