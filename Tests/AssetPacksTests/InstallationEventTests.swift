import AssetPackFormat
@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// The install step and the three download policies, then reading, statuses and removal.
@Suite struct InstallationEventTests {
    let base = ["readme.txt": text("Welcome.\n", repeating: 40), "data/table.bin": patternBytes(300_000, seed: 1), "empty.txt": [UInt8]()]
    let levels = ["levels/1.json": text(#"{"tiles": [1, 2, 3]}"#, repeating: 5_000)]
    let extras = ["extras/movie.bin": patternBytes(400_000, seed: 2)]
    let patch = ["patch/notes.txt": text("fixed\n")]

    func repository() throws -> TestRepository {
        let repo = try TestRepository()
        try repo.put("Base", policy: .essential(installationEventTypes: [.firstInstallation, .subsequentUpdate]), files: base)
        try repo.put("Levels", policy: .prefetch(installationEventTypes: [.firstInstallation]), files: levels)
        try repo.put("Extras", policy: .onDemand, files: extras)
        try repo.put("Patch", policy: .essential(installationEventTypes: [.subsequentUpdate]), files: patch)
        try repo.publish()
        return repo
    }

    @Test func firstInstallationInstallsEssentialsThenPrefetchAndLeavesOnDemand() async throws {
        let repo = try repository()
        let server = try repo.serve()
        let root = StorageRoot(path: repo.dir.file("root"))
        let manager = try repo.manager(root: root.path, server: server)
        let everything = UpdateCollector(manager.statusUpdates)

        let prefetch = try await manager.handleInstallationEvent(.firstInstallation)
        // Essentials are installed when the call returns.
        #expect(manager.assetPackIsAvailableLocally(withID: "Base"))
        #expect(try root.installedFile("Base", "data/table.bin") == base["data/table.bin"])
        try await prefetch.value
        #expect(manager.assetPackIsAvailableLocally(withID: "Levels"))
        #expect(try root.installedFile("Levels", "levels/1.json") == levels["levels/1.json"])
        // On-demand and other-event packs are not touched.
        #expect(!manager.assetPackIsAvailableLocally(withID: "Extras"))
        #expect(!manager.assetPackIsAvailableLocally(withID: "Patch"))
        #expect(await manager.localStatus(ofAssetPackWithID: "Extras") == .downloadAvailable)
        #expect(!server.packRequests().contains { $0.path.contains("/Extras/") || $0.path.contains("/Patch/") })

        // Reading through the merged namespace.
        for (path, bytes) in base {
            #expect(try manager.contents(at: FilePath(path)) == Data(bytes), "\(path)")
        }
        #expect(try manager.contents(at: "levels/1.json", searchingInAssetPackWithID: "Levels") == Data(levels["levels/1.json"]!))
        let url = try manager.url(for: "data/table.bin")
        #expect(url.path.hasPrefix(root.path + "/packs/Base/"))
        #expect(try Data(contentsOf: url) == Data(base["data/table.bin"]!))
        let fd = try manager.descriptor(for: "readme.txt")
        let handle = FileHandle(fileDescriptor: fd.rawValue, closeOnDealloc: true)
        #expect(try handle.readToEnd() == Data(base["readme.txt"]!))
        let missing = await managerError { _ = try manager.contents(at: "nope.txt") }
        #expect(missing.map { if case .fileNotFound(at: "nope.txt") = $0 { true } else { false } } == true)
        let wrongPack = await managerError { _ = try manager.contents(at: "readme.txt", searchingInAssetPackWithID: "Levels") }
        #expect(wrongPack.map { if case .fileNotFound = $0 { true } else { false } } == true)
        let unknown = await managerError { _ = try await manager.catalogPack(withID: "Nope") }
        #expect(unknown.map { if case .assetPackNotFound(withID: "Nope") = $0 { true } else { false } } == true)
        #expect(Set(try await manager.catalogPacks.map(\.id)) == ["Base", "Levels", "Extras", "Patch"])
        let namespace = try await manager.namespace()
        #expect(namespace.map(\.path) == ["data/table.bin", "empty.txt", "levels/1.json", "readme.txt"])

        // The per-pack stream of an on-demand download: began, progress, finished, then it ends.
        let extrasPack = try await manager.catalogPack(withID: "Extras")
        #expect(extrasPack.downloadPolicy == .onDemand && extrasPack.installSize == 400_000)
        let perPack = UpdateCollector(manager.statusUpdates(forAssetPackWithID: "Extras"))
        try await manager.ensureLocalAvailability(of: extrasPack)
        let updates = await perPack.ended()
        #expect(updates.first?.kind == "began")
        #expect(updates.last?.kind == "finished")
        #expect(updates.contains { $0.kind == "downloading" })
        #expect(updates.allSatisfy { $0.assetPack.id == "Extras" })
        if case .downloading(_, let progress) = updates[updates.count - 2] { #expect(progress.fractionCompleted == 1) }
        #expect(try manager.contents(at: "extras/movie.bin") == Data(extras["extras/movie.bin"]!))
        #expect(try await manager.status(relativeTo: extrasPack) == [.downloaded, .upToDate])
        // A second ensure for an installed pack moves no byte.
        let before = server.packRequests().count
        try await manager.ensureLocalAvailability(of: extrasPack)
        #expect(server.packRequests().count == before)

        // The stream for all packs saw every download start and finish.
        let all = await everything.stop()
        for id in ["Base", "Levels", "Extras"] {
            #expect(all.filter { $0.assetPack.id == id }.map(\.kind).first == "began", "\(id)")
            #expect(all.filter { $0.assetPack.id == id && $0.kind == "finished" }.count == 1, "\(id)")
        }
        #expect(!all.contains { $0.kind == "failed" })
        #expect(root.stagingEntries.isEmpty)
    }

    @Test func subsequentUpdateInstallsItsOwnEssentials() async throws {
        let repo = try repository()
        let server = try repo.serve()
        let root = StorageRoot(path: repo.dir.file("root"))
        let manager = try repo.manager(root: root.path, server: server)
        try await manager.handleInstallationEvent(.firstInstallation).value
        #expect(!manager.assetPackIsAvailableLocally(withID: "Patch"))
        let prefetch = try await manager.handleInstallationEvent(.subsequentUpdate)
        #expect(manager.assetPackIsAvailableLocally(withID: "Patch"))
        #expect(try manager.contents(at: "patch/notes.txt") == Data(patch["patch/notes.txt"]!))
        try await prefetch.value
        #expect(!manager.assetPackIsAvailableLocally(withID: "Extras"))
    }

    @Test func removeDeletesFilesAndStoreRows() async throws {
        let repo = try repository()
        let server = try repo.serve()
        let root = StorageRoot(path: repo.dir.file("root"))
        let manager = try repo.manager(root: root.path, server: server)
        try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Extras"))
        let folder = try #require(try root.installedDirectory("Extras"))
        #expect(FileManager.default.fileExists(atPath: folder + "/extras/movie.bin"))

        try await manager.remove(assetPackWithID: "Extras")
        #expect(!FileManager.default.fileExists(atPath: folder))
        #expect(!FileManager.default.fileExists(atPath: root.layout.packs + "/Extras"))
        let store = try root.store()
        #expect(try store.installedPack("Extras") == nil)
        #expect(try store.packs(holding: "extras/movie.bin").isEmpty)
        #expect(try store.pendingDownload("Extras") == nil)
        #expect(await manager.localStatus(ofAssetPackWithID: "Extras") == .downloadAvailable)
        let error = await managerError { _ = try manager.contents(at: "extras/movie.bin") }
        #expect(error.map { if case .fileNotFound = $0 { true } else { false } } == true)
        let again = await managerError { try await manager.remove(assetPackWithID: "Extras") }
        #expect(again.map { if case .assetPackNotFound(withID: "Extras") = $0 { true } else { false } } == true)
    }
}
