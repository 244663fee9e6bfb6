import AssetPackFormat
import AssetPackPublishing
@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// Root mode against a served repository: the client walks the root chain, takes the catalog
/// only as the fresh timestamp names it, keeps root and timestamp versions only once every check
/// passed, and refuses each attack with an error that names it.
@Suite struct RootModeTests {
    func repository(rootExpiresIn: TimeInterval = 365 * 86_400, rootNow: Date = Date(),
                    publishedAt: Date = Date()) throws -> (TestRepository, TestRootKeys) {
        let repo = try TestRepository()
        let keys = try TestRootKeys()
        try repo.put("Pack", files: ["pack.txt": text("content\n", repeating: 10)])
        try repo.startRoot(keys, expiresIn: rootExpiresIn, now: rootNow)
        try repo.publish(keys, now: publishedAt)
        return (repo, keys)
    }

    func manager(_ repo: TestRepository, _ keys: TestRootKeys, root: String = "root", server: TestServer,
                 now: Date? = nil) throws -> AssetPackManager {
        try repo.manager(root: repo.dir.file(root), server: server) { c in
            c.rootKey = keys.root.publicKey
            if let now { c.now = { now } }
        }
    }

    func trustError(_ body: () async throws -> Void) async -> TrustError? {
        if case .trust(let e)? = await managerError(body) { return e }
        return nil
    }

    func stored(_ repo: TestRepository, root: String = "root") throws -> AcceptedTrust? {
        try StorageRoot(path: repo.dir.file(root)).store().acceptedTrust()
    }

    func rotate(_ repo: TestRepository, _ keys: TestRootKeys, _ configure: (inout RootRotation) -> Void = { _ in }) throws {
        var rotation = RootRotation(rootKey: keys.root)
        configure(&rotation)
        try rotation.rotate(repository: repo.path)
    }

    @Test func installsThroughTheChainAndKeepsVersionsOnlyWhenEveryCheckPassed() async throws {
        let (repo, keys) = try repository()
        let server = try repo.serve()
        do {
            let manager = try manager(repo, keys, server: server)
            try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Pack"))
            #expect(try manager.contents(at: "pack.txt") == Data(text("content\n", repeating: 10)))
            let freshness = try #require(try await manager.repositoryFreshness())
            #expect(freshness.rootVersion == 1 && freshness.timestampVersion == 1 && freshness.catalogVersion == 1 && !freshness.isStale)
        }
        #expect(try stored(repo).map { [$0.rootVersion, $0.timestampVersion] } == [1, 1])
        #expect(server.requests().map(\.path).starts(with: ["/root.json", "/roots/1.root.json", "/timestamp.json", "/catalog.json"]))

        // The root moves to version 2 and catalog version 2 is published, but the catalog served is
        // not the one the timestamp names: the walk succeeded, yet nothing of this refresh is kept.
        try rotate(repo, keys)
        try repo.put("Pack", files: ["pack.txt": text("other\n")])
        #expect(try repo.publish(keys).version == 2)
        try repo.place("catalog.json", try #require(repo.contents("catalog.json")) + Array(" ".utf8))
        do {
            let manager = try manager(repo, keys, server: server)
            let error = await trustError { try await manager.installUpdates() }
            guard case .catalogMismatch(field: "size", _, _)? = error else { Issue.record("expected a mix-and-match refusal, got \(String(describing: error))"); return }
        }
        #expect(try stored(repo).map { [$0.rootVersion, $0.timestampVersion] } == [1, 1])
        #expect(try StorageRoot(path: repo.dir.file("root")).store().acceptedCatalog()?.version == 1)
    }

    @Test func mixAndMatchOfTimestampAndCatalogIsRefused() async throws {
        let (repo, keys) = try repository()
        let v1 = repo.catalogBytes()
        try repo.put("Pack", files: ["pack.txt": text("two\n")])
        try repo.publish(keys)
        // The timestamp names catalog version 2; a mirror serves version 1 (validly signed) beside it.
        try repo.place("catalog.json", v1)
        let server = try repo.serve()
        let manager = try manager(repo, keys, server: server)
        let error = await trustError { _ = try await manager.catalogPack(withID: "Pack") }
        guard case .catalogMismatch? = error else { Issue.record("expected a mix-and-match refusal, got \(String(describing: error))"); return }
        #expect("\(error!)".contains("mix-and-match"))
        #expect(try stored(repo) == nil)
        #expect(server.packRequests().isEmpty)
    }

    @Test func rolledBackRootIsRefused() async throws {
        let (repo, keys) = try repository()
        try rotate(repo, keys)
        let server = try repo.serve()
        do {
            let manager = try manager(repo, keys, server: server)
            _ = try await manager.catalogPack(withID: "Pack")
        }
        #expect(try stored(repo)?.rootVersion == 2)
        // root.json goes back to version 1.
        try repo.place("root.json", try #require(repo.contents("roots/1.root.json")))
        let manager = try manager(repo, keys, server: server)
        #expect(await trustError { try await manager.installUpdates() } == .rootRolledBack(version: 1, minimumVersion: 2))
    }

    @Test func skippedRootIsRefused() async throws {
        let (repo, keys) = try repository()
        let server = try repo.serve()
        do { _ = try await manager(repo, keys, server: server).catalogPack(withID: "Pack") }
        // Versions 2 and 3 are published; a mirror serves version 3 where 2 must come (N → N+2).
        try rotate(repo, keys)
        try rotate(repo, keys)
        try repo.place("roots/2.root.json", try #require(repo.contents("roots/3.root.json")))
        let manager = try manager(repo, keys, server: server)
        #expect(await trustError { try await manager.installUpdates() } == .rootSkipped(version: 3, expected: 2))
        #expect(try stored(repo)?.rootVersion == 1)
    }

    @Test func rootSignedOnlyByANewKeyIsRefused() async throws {
        let (repo, keys) = try repository()
        let server = try repo.serve()
        do { _ = try await manager(repo, keys, server: server).catalogPack(withID: "Pack") }
        // Someone without the root key writes a root version 2 naming their own keys.
        let attacker = try SigningKey.generate()
        let forged = RootMetadata(version: 2, expires: Date().addingTimeInterval(86_400), rootKeys: [attacker.publicKey],
                                  catalogKeys: [attacker.publicKey], timestampKeys: [attacker.publicKey])
        let bytes = try forged.signed(by: [attacker])
        try repo.place("roots/2.root.json", bytes)
        try repo.place("root.json", bytes)
        let manager = try manager(repo, keys, server: server)
        #expect(await trustError { try await manager.installUpdates() } == .rootNotSignedByPrevious(version: 2, trustedVersion: 1))
    }

    @Test func expiredRootIsRefused() async throws {
        let (repo, keys) = try repository(rootExpiresIn: 86_400, rootNow: Date().addingTimeInterval(-2 * 86_400))
        let server = try repo.serve()
        let manager = try manager(repo, keys, server: server)
        let error = await trustError { _ = try await manager.catalogPack(withID: "Pack") }
        guard case .rootExpired(version: 1, _, _)? = error else { Issue.record("expected an expired root, got \(String(describing: error))"); return }
    }

    @Test func staleTimestampIsRefusedOnlineAndReportedOffline() async throws {
        // One clock for the publish and the clients, so that the figures are exact.
        let base = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let (repo, keys) = try repository(publishedAt: base)
        let server = try repo.serve()
        let root = "root"
        do {
            let manager = try manager(repo, keys, root: root, server: server, now: base)
            try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Pack"))
        }
        // Two hours on (the timestamp lives one hour): a repository frozen since is refused online.
        let later = base.addingTimeInterval(2 * 3600)
        do {
            let manager = try manager(repo, keys, root: root, server: server, now: later)
            let error = await trustError { try await manager.installUpdates() }
            guard case .timestampExpired? = error else { Issue.record("expected a stale timestamp, got \(String(describing: error))"); return }
            #expect("\(error!)".contains("freeze"))
        }
        // Offline, the last view goes on working, and says how stale it is.
        let url = server.url
        server.stop()
        let offline = try repo.manager(root: repo.dir.file(root), urls: [url]) { c in
            c.rootKey = keys.root.publicKey
            c.now = { later }
            c.retryPolicy = .never
        }
        #expect(await offline.localStatus(ofAssetPackWithID: "Pack") == [.downloaded, .upToDate])
        #expect(try offline.contents(at: "pack.txt") == Data(text("content\n", repeating: 10)))
        let freshness = try #require(try await offline.repositoryFreshness())
        #expect(freshness.isStale && freshness.staleFor == 3600 && freshness.age == 7200)
        #expect(freshness.lastVerified == base && freshness.timestampExpires == base.addingTimeInterval(3600))
    }

    @Test func rolledBackTimestampIsRefused() async throws {
        let (repo, keys) = try repository()
        let v1 = try #require(repo.contents("timestamp.json"))
        try TimestampSigner(key: keys.timestamp, expiresIn: 3600).sign(repository: repo.path)
        let server = try repo.serve()
        do { _ = try await manager(repo, keys, server: server).catalogPack(withID: "Pack") }
        #expect(try stored(repo)?.timestampVersion == 2)
        try repo.place("timestamp.json", v1)
        let manager = try manager(repo, keys, server: server)
        #expect(await trustError { try await manager.installUpdates() } == .timestampRolledBack(version: 1, minimumVersion: 2))
    }

    /// The compromise procedure end to end: the catalog key leaks; the publisher rotates it out
    /// with the offline root key and publishes with a new one; a catalog the thief signs with the
    /// old key is refused by every client that has walked to the new root.
    @Test func leakedCatalogKeyIsRevokedByARotation() async throws {
        let (repo, keys) = try repository()
        let server = try repo.serve()
        do { _ = try await manager(repo, keys, server: server).catalogPack(withID: "Pack") }

        var rotated = keys
        rotated.catalog = try SigningKey.generate()
        try rotate(repo, keys) { $0.catalogKeys = [rotated.catalog.publicKey] }
        try repo.publish(rotated)
        do {
            let manager = try manager(repo, keys, server: server)
            try await manager.installUpdates()
            #expect(try await manager.repositoryFreshness().map { [$0.rootVersion, $0.catalogVersion] } == [2, 2])
        }
        // The thief publishes catalog version 3 with the leaked key (and, for the test, a timestamp
        // that names it exactly, as if the timestamp key had leaked too).
        var forged = try TrustedRoot(acceptedFile: try #require(repo.contents("roots/2.root.json")), file: "r")
            .verifyCatalog(repo.catalogBytes(), now: nil)
        forged.version = 3
        let forgedBytes = try keys.catalog.signedCatalog(forged)
        try repo.place("catalog.json", forgedBytes)
        let stamp = TimestampMetadata(version: 99, expires: Date().addingTimeInterval(3600),
                                      catalog: .init(version: 3, size: UInt64(forgedBytes.count), sha256: SHA256Digest.hash(forgedBytes)))
        try repo.place("timestamp.json", try stamp.signed(by: keys.timestamp))
        let manager = try manager(repo, keys, server: server)
        #expect(await trustError { try await manager.installUpdates() } == .catalogKeyNotInRoot(rootVersion: 2, found: [keys.catalog.publicKey.keyID]))
        #expect(try stored(repo)?.timestampVersion != 99)
        // A client pinned afresh walks the same chain and refuses it too.
        let fresh = try self.manager(repo, keys, root: "fresh", server: server)
        #expect(await trustError { _ = try await fresh.catalogPack(withID: "Pack") } == .catalogKeyNotInRoot(rootVersion: 2, found: [keys.catalog.publicKey.keyID]))
    }

    @Test func singleKeyClientsReadARepositoryWithARoot() async throws {
        let (repo, keys) = try repository()
        let server = try repo.serve()
        let manager = try repo.manager(root: repo.dir.file("root"), server: server) { $0.publicKey = keys.catalog.publicKey }
        try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Pack"))
        #expect(try await manager.repositoryFreshness() == nil)
    }

    @Test func anInitialRootFileStartsTheWalkAtItsVersion() async throws {
        let (repo, keys) = try repository()
        let newRoot = try SigningKey.generate()
        try rotate(repo, keys) { $0.newRootKey = newRoot }
        let server = try repo.serve()
        // An app built after the handover ships roots/2.root.json: it never reads roots/1.
        let file = try #require(repo.contents("roots/2.root.json"))
        do {
            let manager = try repo.manager(root: repo.dir.file("shipped"), server: server) { $0.initialRoot = file }
            try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Pack"))
            #expect(try await manager.repositoryFreshness()?.rootVersion == 2)
        }
        #expect(!server.requests().contains { $0.path == "/roots/1.root.json" })
        // Pinning the new root key alone cannot start the chain: roots/1 was signed by the old key.
        let keyOnly = try repo.manager(root: repo.dir.file("key-only"), server: server) { $0.rootKey = newRoot.publicKey }
        #expect(await trustError { _ = try await keyOnly.catalogPack(withID: "Pack") } == .rootNotSignedByPrevious(version: 1, trustedVersion: 0))
        // A file that is no root signed by its own key is a configuration error at once.
        var tampered = file
        tampered[tampered.count / 3] ^= 0x01
        #expect(throws: AssetPackManagerError.self) {
            _ = try repo.manager(root: repo.dir.file("bad"), server: server) { $0.initialRoot = tampered }
        }
    }
}
