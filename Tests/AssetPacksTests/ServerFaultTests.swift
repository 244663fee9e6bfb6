import AssetPackFormat
import AssetPackTransport
@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// Installs against a misbehaving server (the fault flags of RepositoryServer, nginx without
/// range support): either the pack arrives verified, or the install fails clearly and leaves
/// nothing behind.
@Suite struct ServerFaultTests {
    static let files = ["a.bin": patternBytes(700_000, seed: 31), "b.txt": text("line of text\n", repeating: 20_000)]

    func repository() throws -> (TestRepository, CatalogPack) {
        let repo = try TestRepository()
        try repo.put("Pack", files: Self.files)
        let catalog = try repo.publish()
        return (repo, catalog.packs[0])
    }

    /// Installs "Pack" from `urls` and checks every file.
    func expectInstalled(_ repo: TestRepository, urls: [String], root: StorageRoot) async throws -> AssetPackManager {
        let manager = try repo.manager(root: root.path, urls: urls)
        try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Pack"))
        for (path, bytes) in Self.files { #expect(try manager.contents(at: FilePath(path)) == Data(bytes), "\(path)") }
        #expect(root.stagingEntries.isEmpty)
        #expect(try root.store().pendingDownload("Pack") == nil)
        return manager
    }

    /// Nothing of "Pack" is installed and nothing is left in staging or the store.
    func expectNothingLeft(_ manager: AssetPackManager, root: StorageRoot) async throws {
        #expect(!manager.assetPackIsAvailableLocally(withID: "Pack"))
        #expect(root.installedVersions("Pack").isEmpty)
        #expect(root.stagingEntries.isEmpty, "staging: \(root.stagingEntries)")
        #expect(try root.store().pendingDownload("Pack") == nil)
        #expect(await manager.localStatus(ofAssetPackWithID: "Pack") == .downloadAvailable)
    }

    @Test func corruptBytesEverywhereFailVerificationAndLeaveNothing() async throws {
        let (repo, _) = try repository()
        let server = try repo.serve { $0.corruptRate = 1 }
        let root = StorageRoot(path: repo.dir.file("root"))
        let manager = try repo.manager(root: root.path, server: server)
        let updates = UpdateCollector(manager.statusUpdates(forAssetPackWithID: "Pack"))
        let error = await managerError { try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Pack")) }
        guard case .verification(let why)? = error else { Issue.record("expected a verification failure, got \(String(describing: error))"); return }
        #expect(why.contains("packs/Pack/") && why.contains("attempts"), "\(why)")
        // Detected and retried before giving up.
        #expect(server.packRequests().count >= 3)
        try await expectNothingLeft(manager, root: root)
        #expect(await updates.ended().last?.kind == "failed")
    }

    @Test func occasionalCorruptionIsRepaired() async throws {
        let (repo, pack) = try repository()
        let server = try repo.serve { $0.corruptRate = 0.4 }
        let root = StorageRoot(path: repo.dir.file("root"))
        let manager = try await expectInstalled(repo, urls: [server.url], root: root)
        // Some responses were damaged, and their bytes fetched again.
        #expect(server.packRequests().contains { $0.note.contains("corrupt@") })
        #expect(await manager.fetchedBytes > pack.size)
    }

    /// Bodies that end before their Content-Length: every response cut after 100 kB (a dropped
    /// connection), or half of them cut at random places (truncation). Each request goes on
    /// where the last one stopped.
    @Test(arguments: ["drop", "truncate"])
    func shortBodiesResume(_ fault: String) async throws {
        let (repo, pack) = try repository()
        let server = try repo.serve { if fault == "drop" { $0.dropAfterBytes = 100_000 } else { $0.truncateRate = 0.5 } }
        let root = StorageRoot(path: repo.dir.file("root"))
        let manager = try await expectInstalled(repo, urls: [server.url], root: root)
        // Each of the 3 parts ends with a response that may come whole.
        #expect(server.packRequests().filter { $0.note.contains("cut@") }.count >= (fault == "drop" ? Int(pack.size / 100_000) - 3 : 1))
        // Resumed, not restarted: the bytes fetched are about the pack's size.
        let fetched = await manager.fetchedBytes
        #expect(fetched <= pack.size + pack.size / 10, "fetched \(fetched) bytes of a \(pack.size)-byte pack")
    }

    @Test func serviceUnavailableIsRetried() async throws {
        let (repo, _) = try repository()
        let server = try repo.serve { $0.failRate = 0.5 }
        let root = StorageRoot(path: repo.dir.file("root"))
        _ = try await expectInstalled(repo, urls: [server.url], root: root)
        #expect(server.packRequests().contains { $0.status == 503 })
    }

    @Test func serverIgnoringRangesIsHandled() async throws {
        // nginx with max_ranges 0 answers every Range request with 200 and the whole file.
        let (repo, pack) = try repository()
        let nginx = try NginxServer(root: repo.path, locations: "max_ranges 0;")
        defer { nginx.stop() }
        let root = StorageRoot(path: repo.dir.file("root"))
        let manager = try await expectInstalled(repo, urls: [nginx.url("/")], root: root)
        // The client stops reading once it has the bytes it wanted.
        #expect(await manager.fetchedBytes <= pack.size + pack.index.length)
    }

    @Test func missingPackFileIsAClearError() async throws {
        let (repo, pack) = try repository()
        try FileManager.default.removeItem(atPath: repo.path + "/" + pack.path)
        let server = try repo.serve()
        let root = StorageRoot(path: repo.dir.file("root"))
        let manager = try repo.manager(root: root.path, server: server)
        let error = await managerError { try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Pack")) }
        guard case .transport(let t)? = error else { Issue.record("expected a transport error, got \(String(describing: error))"); return }
        #expect(t.httpStatus == 404)
        #expect("\(error!)".contains(pack.path) && "\(error!)".contains("404"))
        try await expectNothingLeft(manager, root: root)
    }

    @Test func secondMirrorServesWhenTheFirstIsDown() async throws {
        let (repo, _) = try repository()
        let server = try repo.serve()
        let dead = try repo.serve()
        let deadURL = dead.url
        dead.stop()
        let root = StorageRoot(path: repo.dir.file("root"))
        _ = try await expectInstalled(repo, urls: [deadURL, server.url], root: root)
    }
}
