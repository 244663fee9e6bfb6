import AssetPackFormat
@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// Another process of the same user can write into the storage root between two runs. Each test
/// does a real run, plants a link (or tampers with the store) as such a process would, runs again,
/// and checks that nothing outside the root was touched and that the error names the path.
@Suite struct LocalAttackerTests {
    /// Names of the files in `path` (empty when it is gone).
    private func entries(_ path: String) -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }

    @Test func aLinkPlantedInAStagingFolderIsNotWrittenThrough() async throws {
        let repo = try TestRepository()
        var files: [String: [UInt8]] = [:]
        for k in 0..<24 { files["levels/level-\(k).bin"] = patternBytes(40_000, seed: UInt64(300 + k)) }
        try repo.put("Pack", files: files)
        try repo.publish()
        let root = StorageRoot(path: repo.dir.file("root"))
        let outside = repo.dir.file("outside")
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)

        // The first run stops half-way, leaving a staging folder to resume from. Whether its
        // assembling side placed any frame before the cut stopped it depends on the scheduling
        // (what it did not place stays in the part's spool), so the test does not rely on it.
        let flaky = try repo.serve { $0.dropAfterBytes = 300_000 }
        do {
            let first = try repo.manager(root: root.path, server: flaky) { $0.retryPolicy = .never }
            #expect(await managerError { try await first.ensureLocalAvailability(of: first.catalogPack(withID: "Pack")) } != nil)
        }
        flaky.stop()
        let staging = try #require(root.stagingEntries.first)
        let levels = root.path + "/staging/\(staging)/files/levels"
        #expect(try root.store().pendingDownload("Pack") != nil)

        // Between the runs: the folder of the pack's files (whatever it held) becomes a link to
        // a folder outside.
        if FileManager.default.fileExists(atPath: levels) { try FileManager.default.removeItem(atPath: levels) }
        try FileManager.default.createSymbolicLink(atPath: levels, withDestinationPath: outside)

        let server = try repo.serve()
        let second = try repo.manager(root: root.path, server: server)
        let error = await managerError { try await second.ensureLocalAvailability(of: second.catalogPack(withID: "Pack")) }
        let message = try #require(error).description
        #expect(message.contains(levels) && message.contains("symbolic link"), "\(message)")
        #expect(entries(outside).isEmpty)
        #expect(try root.store().installedPack("Pack") == nil)
    }

    @Test func aLockFileReplacedByALinkIsRefused() async throws {
        let repo = try TestRepository()
        try repo.put("Pack", files: ["pack.txt": text("pack\n", repeating: 10)])
        try repo.publish()
        let server = try repo.serve()
        let root = StorageRoot(path: repo.dir.file("root"))
        _ = try repo.manager(root: root.path, server: server)
        let victim = try repo.dir.write("victim.txt", Array("precious\n".utf8))

        for plant in ["symbolic", "hard"] {
            try FileManager.default.removeItem(atPath: root.layout.lock)
            if plant == "symbolic" {
                try FileManager.default.createSymbolicLink(atPath: root.layout.lock, withDestinationPath: victim)
            } else {
                try FileManager.default.linkItem(atPath: victim, toPath: root.layout.lock)
            }
            let error = await managerError { _ = try repo.manager(root: root.path, server: server) }
            let message = try #require(error, "a \(plant) link").description
            #expect(message.contains(root.layout.lock), "\(message)")
            #expect(FileManager.default.contents(atPath: victim) == Data("precious\n".utf8), "a \(plant) link")
        }
    }

    @Test(arguments: ["../outside", "ABSOLUTE", "packs/Pack/../../../outside", "packs/Other/1-0000000000000000"])
    func removeRefusesATamperedStoreRow(recorded: String) async throws {
        let repo = try TestRepository()
        try repo.put("Pack", files: ["pack.txt": text("pack\n", repeating: 10)])
        try repo.publish()
        let server = try repo.serve()
        let root = StorageRoot(path: repo.dir.file("root"))
        try await repo.install("Pack", root: root.path, server: server)
        let outside = repo.dir.file("outside")
        try repo.dir.write("outside/keep.txt", Array("keep\n".utf8))
        try repo.dir.write("root/packs/Other/1-0000000000000000/other.txt", Array("other\n".utf8))

        // Between the runs: the store's row names a folder elsewhere.
        let directory = recorded == "ABSOLUTE" ? outside : recorded
        let store = try root.store()
        var row = try #require(try store.installedPack("Pack"))
        row.directory = directory
        try store.commitInstall(row, paths: ["pack.txt"])

        let manager = try repo.manager(root: root.path, server: server)
        let error = await managerError { try await manager.remove(assetPackWithID: "Pack") }
        let message = try #require(error).description
        #expect(message.contains(directory) && message.contains("tampered"), "\(message)")
        #expect(entries(outside) == ["keep.txt"])
        // Reads through the row are refused too.
        #expect(await managerError { _ = try manager.contents(at: "pack.txt") } != nil)
    }
}

extension LocalAttackerTests {
    @Test func aLinkPlantedInAnInstalledPackIsNotReadThrough() async throws {
        let repo = try TestRepository()
        try repo.put("Pack", files: ["data/table.bin": patternBytes(2000, seed: 41)])
        try repo.publish()
        let server = try repo.serve()
        let root = StorageRoot(path: repo.dir.file("root"))
        try await repo.install("Pack", root: root.path, server: server)
        // Between the runs: the pack's folder `data` becomes a link to a folder outside holding
        // a file of the same name.
        try repo.dir.write("outside/table.bin", Array("secret\n".utf8))
        let data = try #require(try root.installedDirectory("Pack")) + "/data"
        try FileManager.default.removeItem(atPath: data)
        try FileManager.default.createSymbolicLink(atPath: data, withDestinationPath: repo.dir.file("outside"))

        let manager = try repo.manager(root: root.path, server: server)
        for read in ["contents", "descriptor", "url"] {
            let error = await managerError {
                switch read {
                case "contents": _ = try manager.contents(at: "data/table.bin")
                case "descriptor": try manager.descriptor(for: "data/table.bin").close()
                default: _ = try manager.url(for: "data/table.bin")
                }
            }
            let message = try #require(error, "\(read)").description
            #expect(message.contains(data) && message.contains("symbolic link"), "\(read): \(message)")
        }
    }
}

extension LocalAttackerTests {
    /// A namespace row planted in the store for a path the pack's stored index does not list
    /// outlives the keyed deletion of the pack's rows; the next version, which has that path,
    /// still installs and reads.
    @Test func aNamespaceRowPlantedInTheStoreDoesNotStopAnUpdate() async throws {
        let repo = try TestRepository()
        try repo.put("Pack", files: ["a.txt": text("a\n")])
        try repo.publish()
        let server = try repo.serve()
        let root = StorageRoot(path: repo.dir.file("root"))
        try await repo.install("Pack", root: root.path, server: server)
        try SQLiteDatabase(path: root.path + "/state.sqlite").execute("INSERT INTO namespace(path, pack_id) VALUES ('b.txt', 'Pack')")

        try repo.put("Pack", files: ["a.txt": text("a\n"), "b.txt": text("b\n")])
        try repo.publish()
        let manager = try repo.manager(root: root.path, server: server)
        let (updated, _) = try await manager.installUpdates()
        #expect(updated.map(\.id) == ["Pack"])
        #expect(try manager.contents(at: "b.txt") == Data(text("b\n")))
        #expect(try root.store().packs(holding: "b.txt") == ["Pack"])
    }
}

extension LocalAttackerTests {
    @Test(arguments: ["state.sqlite", "state.sqlite-wal", "state.sqlite-shm"])
    func aStoreFileReplacedByALinkIsRefused(name: String) async throws {
        let repo = try TestRepository()
        try repo.put("Pack", files: ["pack.txt": text("pack\n", repeating: 10)])
        try repo.publish()
        let server = try repo.serve()
        let root = StorageRoot(path: repo.dir.file("root"))
        _ = try repo.manager(root: root.path, server: server)
        let victim = try repo.dir.write("victim.bin", patternBytes(4096, seed: 77))

        // Between the runs: one of the store's files becomes a link to a file outside.
        let path = root.path + "/" + name
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: victim)
        let error = await managerError { _ = try repo.manager(root: root.path, server: server) }
        let message = try #require(error).description
        #expect(message.contains(path), "\(message)")
        #expect(repo.dir.contents("victim.bin") == patternBytes(4096, seed: 77))
    }
}
