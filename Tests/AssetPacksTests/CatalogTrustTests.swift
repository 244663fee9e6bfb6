import AssetPackFormat
import AssetPackPublishing
@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// The catalog is refused when forged, tampered, expired or rolled back; the last good one
/// serves an offline start.
@Suite struct CatalogTrustTests {
    func repository() throws -> TestRepository {
        let repo = try TestRepository()
        try repo.put("Pack", files: ["pack.txt": text("content\n", repeating: 10)])
        try repo.publish()
        return repo
    }

    func catalogError(_ body: () async throws -> Void) async -> CatalogError? {
        if case .catalog(let e)? = await managerError(body) { return e }
        return nil
    }

    @Test func catalogSignedByAnotherKeyIsRefused() async throws {
        let repo = try repository()
        let server = try repo.serve()
        let stranger = try SigningKey.generate()
        let manager = try repo.manager(root: repo.dir.file("root"), server: server) { $0.publicKey = stranger.publicKey }
        let error = await catalogError { _ = try await manager.catalogPack(withID: "Pack") }
        #expect(error.map { if case .wrongKey(expected: stranger.publicKey.keyID, _) = $0 { true } else { false } } == true)
        #expect(server.packRequests().isEmpty)
        #expect(try StorageRoot(path: repo.dir.file("root")).store().acceptedCatalog() == nil)
    }

    @Test func tamperedCatalogIsRefused() async throws {
        let repo = try repository()
        let file = repo.path + "/catalog.json"
        // Point the pack at another file inside the signed payload, keeping the signature.
        var envelope = try SignedCatalog.parse(Array(try #require(FileManager.default.contents(atPath: file))))
        let payload = String(decoding: envelope.payload, as: UTF8.self)
        #expect(payload.contains("packs/Pack/"))
        envelope.payload = Array(payload.replacingOccurrences(of: "packs/Pack/", with: "packs/Evil/").utf8)
        try Data(envelope.encoded()).write(to: URL(fileURLWithPath: file))
        let server = try repo.serve()
        let manager = try repo.manager(root: repo.dir.file("root"), server: server)
        let error = await managerError { _ = try await manager.catalogPack(withID: "Pack") }
        guard case .catalog(let why)? = error else { Issue.record("expected a catalog error, got \(String(describing: error))"); return }
        #expect(why == .badSignature(keyID: repo.publicKey.keyID))
        #expect(server.packRequests().isEmpty)
    }

    @Test func expiredCatalogIsRefused() async throws {
        let repo = try repository()
        let server = try repo.serve()
        // The device clock is two days past the catalog's one-day expiry.
        let manager = try repo.manager(root: repo.dir.file("root"), server: server) { $0.now = { Date().addingTimeInterval(2 * 86_400) } }
        let error = await catalogError { _ = try await manager.catalogPack(withID: "Pack") }
        #expect(error.map { if case .expired = $0 { true } else { false } } == true)
        #expect("\(AssetPackManagerError.catalog(error!))".contains("expired"))

        // A catalog published an hour ago with a 10-minute life has expired too.
        try repo.publish(expiresIn: 600, now: Date().addingTimeInterval(-3600))
        let fresh = try repo.manager(root: repo.dir.file("root2"), server: server)
        let stale = await catalogError { _ = try await fresh.catalogPack(withID: "Pack") }
        #expect(stale.map { if case .expired = $0 { true } else { false } } == true)
        #expect(server.packRequests().isEmpty)
    }

    @Test func rolledBackCatalogIsRefusedAlsoAfterARestart() async throws {
        let repo = try repository()
        let v1 = try #require(FileManager.default.contents(atPath: repo.path + "/catalog.json"))
        try repo.put("Pack", files: ["pack.txt": text("content v2\n", repeating: 10)])
        try repo.publish()
        let server = try repo.serve()
        let root = repo.dir.file("root")
        let v2: AssetPack
        do {
            let manager = try repo.manager(root: root, server: server)
            v2 = try await manager.catalogPack(withID: "Pack")
            #expect(v2.version == 2)

            // The server (or an attacker in the middle) goes back to catalog version 1.
            try v1.write(to: URL(fileURLWithPath: repo.path + "/catalog.json"))
            let error = await catalogError { try await manager.installUpdates() }
            #expect(error == .rolledBack(version: 1, minimumVersion: 2))
        }
        do {
            let restarted = try repo.manager(root: root, server: server)
            let again = await catalogError { _ = try await restarted.catalogPack(withID: "Pack") }
            #expect(again == .rolledBack(version: 1, minimumVersion: 2))
        }
        // A download asked of a manager without a catalog it trusts fails, and says so to listeners.
        let fresh = try repo.manager(root: root, server: server)
        let updates = UpdateCollector(fresh.statusUpdates(forAssetPackWithID: "Pack"))
        #expect(await catalogError { try await fresh.ensureLocalAvailability(of: v2) } == .rolledBack(version: 1, minimumVersion: 2))
        #expect(await updates.ended().map(\.kind) == ["failed"])
        #expect(server.packRequests().isEmpty)
        #expect(try StorageRoot(path: root).store().acceptedCatalog()?.version == 2)
    }

    @Test func offlineStartUsesTheCachedCatalog() async throws {
        let repo = try repository()
        try repo.put("Later", files: ["later.txt": text("later\n")])
        try repo.publish()
        let server = try repo.serve()
        let root = repo.dir.file("root")
        do {
            let online = try repo.manager(root: root, server: server)
            try await online.ensureLocalAvailability(of: online.catalogPack(withID: "Pack"))
        }
        // Offline: a port that refuses connections (the stopped server's could be taken by
        // another test's server meanwhile).
        server.stop()
        let down = try RefusingPort()
        let url = down.url

        do {
            let offline = try repo.manager(root: root, urls: [url])
            #expect(await offline.localStatus(ofAssetPackWithID: "Pack") == [.downloaded, .upToDate])
            #expect(await offline.localStatus(ofAssetPackWithID: "Later") == .downloadAvailable)
            #expect(Set(try await offline.catalogPacks.map(\.id)) == ["Pack", "Later"])
            #expect(try offline.contents(at: "pack.txt") == Data(text("content\n", repeating: 10)))
            // What needs the network fails with a transport error.
            let later = try await offline.catalogPack(withID: "Later")
            let error = await managerError { try await offline.ensureLocalAvailability(of: later) }
            #expect(error.map { if case .transport = $0 { true } else { false } } == true)
        }

        // Offline after the cached catalog expired: status still reads it, downloads do not.
        let stale = try repo.manager(root: root, urls: [url]) { $0.now = { Date().addingTimeInterval(30 * 86_400) } }
        #expect(await stale.localStatus(ofAssetPackWithID: "Pack") == [.downloaded, .upToDate])
        #expect(try stale.contents(at: "pack.txt") == Data(text("content\n", repeating: 10)))
        let refused = await managerError { _ = try await stale.catalogPack(withID: "Pack") }
        #expect(refused.map { if case .transport = $0 { true } else { false } } == true)

        // A root that never saw a catalog cannot start offline.
        let empty = try repo.manager(root: repo.dir.file("empty"), urls: [url])
        let none = await managerError { _ = try await empty.catalogPacks }
        #expect(none.map { if case .transport = $0 { true } else { false } } == true)
    }
}
