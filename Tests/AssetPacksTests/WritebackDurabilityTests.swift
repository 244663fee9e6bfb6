import AssetPackTransport
@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// An install left to the kernel's writeback records the boot it was committed in. The next
/// manager of the same boot marks it flushed once the writeback has had time; the first one
/// after a restart reads every file back and keeps the pack only if its bytes are all there, as
/// a crash of the system before the writeback would not leave them.
@Suite struct WritebackDurabilityTests {
    struct Fixture {
        let repo: TestRepository
        let server: TestServer
        let root: StorageRoot
        let content = patternBytes(700_000, seed: 91)

        init() throws {
            repo = try TestRepository()
            try repo.put("Pack", files: ["data/pack.bin": content, "notes.txt": text("notes\n", repeating: 40), "empty.txt": []])
            try repo.publish()
            server = try repo.serve()
            root = StorageRoot(path: repo.dir.file("root"))
        }

        /// A manager that sees the system as booted `boot`, `uptime` seconds ago.
        func manager(boot: String, uptime: Int64, _ configure: (inout AssetPackManager.Configuration) -> Void = { _ in }) throws -> AssetPackManager {
            try repo.manager(root: root.path, server: server) {
                $0.bootSession = { BootSession(id: boot, uptime: uptime) }
                configure(&$0)
            }
        }

        func install(boot: String, uptime: Int64, _ configure: (inout AssetPackManager.Configuration) -> Void = { _ in }) async throws {
            let manager = try manager(boot: boot, uptime: uptime, configure)
            try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Pack"))
        }

        func unflushed() throws -> [String: BootSession] {
            var out: [String: BootSession] = [:]
            for p in try root.store().unflushedInstalls() { out[p.id] = p.unflushed }
            return out
        }
    }

    @Test func anInstallInTheSameBootIsMarkedFlushedOnceTheWritebackHasHadTime() async throws {
        let f = try Fixture()
        try await f.install(boot: "boot-a", uptime: 1_000)
        #expect(try f.unflushed() == ["Pack": BootSession(id: "boot-a", uptime: 1_000)])

        // Sooner than the writeback delay: left as it is, nothing read back.
        do { _ = try f.manager(boot: "boot-a", uptime: 1_000 + BootSession.writebackDelay - 1) }
        #expect(try f.unflushed().keys.sorted() == ["Pack"])
        // Later: flushed and marked.
        let later = try f.manager(boot: "boot-a", uptime: 1_000 + BootSession.writebackDelay)
        #expect(try f.unflushed().isEmpty)
        #expect(try later.contents(at: "data/pack.bin") == Data(f.content))
    }

    @Test func aManagerThatLivesOnMarksItsInstallFlushedAfterTheDelay() async throws {
        let f = try Fixture()
        let manager = try f.manager(boot: "boot-a", uptime: 1_000) { $0.writebackDelay = 1 }
        try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Pack"))
        try await waitUntil("the install is marked flushed") { try f.unflushed().isEmpty }
        #expect(try f.root.store().installedPack("Pack") != nil)
    }

    @Test func anIntactPackIsKeptAfterARestart() async throws {
        let f = try Fixture()
        try await f.install(boot: "boot-a", uptime: 1_000)
        let requests = f.server.packRequests().count
        let restarted = try f.manager(boot: "boot-b", uptime: 5)
        #expect(try f.unflushed().isEmpty)
        #expect(try restarted.contents(at: "data/pack.bin") == Data(f.content))
        #expect(try restarted.contents(at: "empty.txt") == Data())
        #expect(f.server.packRequests().count == requests)
    }

    enum Loss: String, CaseIterable, CustomTestStringConvertible {
        case truncated, shortened, emptyFileMissing, renamedAway
        var testDescription: String { rawValue }
    }

    /// What a crash before the writeback can leave: a file of the right name with no blocks yet,
    /// or only some of them; an empty file whose entry never reached the journal; a file gone.
    @Test(arguments: Loss.allCases) func aPackWithALostFileIsFetchedAgainAfterARestart(_ loss: Loss) async throws {
        let f = try Fixture()
        try await f.install(boot: "boot-a", uptime: 1_000)
        let folder = try #require(try f.root.installedDirectory("Pack"))
        let file = folder + "/data/pack.bin"
        switch loss {
        case .truncated: try FileHandle(forWritingTo: URL(fileURLWithPath: file)).truncate(atOffset: 0)
        case .shortened: try FileHandle(forWritingTo: URL(fileURLWithPath: file)).truncate(atOffset: 300_000)
        case .emptyFileMissing: try FileManager.default.removeItem(atPath: folder + "/empty.txt")
        case .renamedAway: try FileManager.default.moveItem(atPath: file, toPath: folder + "/data/elsewhere.bin")
        }

        let restarted = try f.manager(boot: "boot-b", uptime: 5)
        #expect(try f.root.store().installedPack("Pack") == nil)
        #expect(try f.unflushed().isEmpty)
        #expect(await restarted.localStatus(ofAssetPackWithID: "Pack") == .downloadAvailable)
        #expect(throws: (any Error).self) { try restarted.contents(at: "notes.txt") }
        AssetPackManager.waitUntilRetiredFoldersAreDeleted()
        #expect(f.root.installedVersions("Pack").isEmpty)

        let requests = f.server.packRequests().count
        try await restarted.ensureLocalAvailability(of: restarted.catalogPack(withID: "Pack"))
        #expect(f.server.packRequests().count > requests)
        #expect(try restarted.contents(at: "data/pack.bin") == Data(f.content))
        #expect(try restarted.contents(at: "empty.txt") == Data())
    }

    @Test func flushingBeforeTheCommitRecordsNoBoot() async throws {
        let f = try Fixture()
        try await f.install(boot: "boot-a", uptime: 1_000) { $0.flushesBeforeCommit = true }
        #expect(try f.unflushed().isEmpty)
        #expect(try f.root.store().installedPack("Pack") != nil)
    }

    @Test func aSystemThatNamesNoBootFlushesEveryInstall() async throws {
        let f = try Fixture()
        let manager = try f.repo.manager(root: f.root.path, server: f.server) { $0.bootSession = { nil } }
        try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Pack"))
        #expect(try f.unflushed().isEmpty)
    }

    @Test func thisSystemNamesItsBoot() throws {
        #if os(Linux)
        let boot = try #require(BootSession.current())
        #expect(boot.id.count == 36)
        #expect(boot.uptime > 0)
        #expect(BootSession.current()?.id == boot.id)
        #endif
    }
}
