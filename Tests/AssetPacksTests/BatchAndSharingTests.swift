import AssetPackTransport
@testable import AssetPacks
import Foundation
import LoopbackServers
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
        let packs = try await manager.allAssetPacks
        let betaUpdates = UpdateCollector(manager.statusUpdates(forAssetPackWithID: "Beta"))

        let error = await managerError { try await manager.ensureLocalAvailability(of: packs) }
        guard case .batch(let successes, let failures)? = error else {
            Issue.record("expected a batch error, got \(String(describing: error))")
            return
        }
        #expect(successes.map(\.id) == ["Alpha", "Gamma"])
        #expect(failures.map(\.0.id) == ["Beta"])
        let why = failures.first?.1
        guard case .transport(let transport)? = why as? AssetPackManagerError else {
            Issue.record("Beta should fail with a transport error, not \(String(describing: why))")
            return
        }
        #expect(transport.httpStatus == 404)
        #expect("\(error!)".contains("1 of 3 asset packs failed") && "\(error!)".contains("Beta"))
        #expect(try await manager.assetPackIsAvailableLocally(withID: "Alpha"))
        #expect(try await manager.assetPackIsAvailableLocally(withID: "Gamma"))
        #expect(try await !manager.assetPackIsAvailableLocally(withID: "Beta"))
        // The per-pack stream of the failed pack ends with its failure.
        #expect(await betaUpdates.ended().last?.kind == "failed")
        // A 404 is not retried: one request for Beta's file (its index) and no more.
        #expect(server.packRequests().filter { $0.path.contains("/Beta/") }.map(\.status) == [404])
    }

    /// Many callers, one download: the pack's bytes cross the network once.
    func expectOneDownload(_ manager: AssetPackManager, _ pack: AssetPack, server: TestServer, size: UInt64) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<5 { group.addTask { try await manager.ensureLocalAvailability(of: pack) } }
            try await group.waitForAll()
        }
        let served = server.packRequests().reduce(UInt64(0)) { $0 + $1.bytes }
        #expect(served <= size, "served \(served) bytes of a \(size)-byte pack")
        #expect(await manager.fetchedBytes <= size)
        #expect(await manager.fetchedBytes >= size - 4096)
    }

    @Test func concurrentCallsShareOneDownload() async throws {
        let repo = try TestRepository()
        try repo.put("Shared", files: ["shared.bin": patternBytes(1_500_000, seed: 4)])
        let catalog = try repo.publish()
        let server = try repo.serve { $0.bandwidthBytesPerSecond = 6_000_000 }
        let root = StorageRoot(path: repo.dir.file("root"))
        let manager = try repo.manager(root: root.path, server: server)
        let pack = try await manager.assetPack(withID: "Shared")
        try await expectOneDownload(manager, pack, server: server, size: catalog.packs[0].size)
        #expect(try await manager.contents(at: "shared.bin") == Data(patternBytes(1_500_000, seed: 4)))
        #expect(root.stagingEntries.isEmpty)
    }

    @Test func concurrentCallsOnAFreshManagerShareOneDownload() async throws {
        // The first callers all wait for the catalog before they can start the download.
        let repo = try TestRepository()
        try repo.put("Shared", files: ["shared.bin": patternBytes(1_500_000, seed: 5)])
        let catalog = try repo.publish()
        let server = try repo.serve { $0.bandwidthBytesPerSecond = 6_000_000 }
        let root = StorageRoot(path: repo.dir.file("root"))
        let pack = try await repo.manager(root: repo.dir.file("other"), server: server).assetPack(withID: "Shared")
        let manager = try repo.manager(root: root.path, server: server)
        try await expectOneDownload(manager, pack, server: server, size: catalog.packs[0].size)
        #expect(try await manager.contents(at: "shared.bin") == Data(patternBytes(1_500_000, seed: 5)))
        #expect(root.stagingEntries.isEmpty)
    }
}
