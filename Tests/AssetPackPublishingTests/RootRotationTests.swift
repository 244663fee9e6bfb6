import AssetPackFormat
@testable import AssetPackPublishing
import Foundation
import TestRepositories
import TestSupport
import Testing

/// `RootRotation`, `TimestampSigner` and publishing into a repository with a root: what each
/// writes, and what each refuses before writing anything.
@Suite struct RootRotationTests {
    func repository() throws -> (TestRepository, TestRootKeys) {
        let ws = try workspace()
        try ws.put("Alpha", files: ["a.txt": Array("alpha".utf8)])
        return (ws, try TestRootKeys())
    }

    func trust(_ ws: TestRepository) throws -> RepositoryTrust { try #require(try RepositoryTrust.load(repository: ws.path)) }

    @Test func firstRootNeedsTheOnlineKeysAndStartsTheChain() throws {
        let (ws, keys) = try repository()
        #expect(throws: PublishError.self) { try RootRotation(rootKey: keys.root).rotate(repository: ws.path) }
        #expect(!FileManager.default.fileExists(atPath: ws.path), "a refused first rotate leaves no repository behind")
        let root = try ws.startRoot(keys)
        #expect(root.version == 1)
        #expect(root.catalogKeys == [keys.catalog.publicKey.text] && root.timestampKeys == [keys.timestamp.publicKey.text])
        // roots/1.root.json and root.json hold the same bytes; a client pinned to the root key accepts them.
        let kept = try #require(ws.contents("roots/1.root.json"))
        #expect(ws.contents("root.json") == kept)
        #expect(try TrustedRoot.pinned(keys.root.publicKey).next(kept, file: "roots/1.root.json").metadata == root)
    }

    @Test func publishWithARootSignsTheTimestampAfterTheCatalog() throws {
        let (ws, keys) = try repository()
        try ws.startRoot(keys)
        // Without the timestamp key, or with a catalog key the root does not name: refused, nothing written.
        #expect(throws: PublishError.self) { try ws.publish() }
        #expect(throws: PublishError.self) { try ws.publish(TestRootKeys()) }
        #expect(ws.contents("catalog.json") == nil)
        let catalog = try ws.publish(keys, now: publishedAt)
        let t = try trust(ws)
        let stamp = try t.current.verifyTimestamp(try #require(ws.contents("timestamp.json")), now: publishedAt)
        #expect(stamp.version == 1 && stamp.catalog.version == catalog.version)
        try stamp.checkCatalogBytes(ws.catalogBytes())
        #expect(stamp.expires == publishedAt.addingTimeInterval(3600))
        // The cron job: the same catalog, the next timestamp version, a new expiry.
        let later = publishedAt.addingTimeInterval(1800)
        let renewed = try TimestampSigner(key: keys.timestamp, expiresIn: 86_400, now: later).sign(repository: ws.path)
        #expect(renewed.version == 2 && renewed.catalog == stamp.catalog && renewed.expires == later.addingTimeInterval(86_400))
        #expect(try t.current.verifyTimestamp(try #require(ws.contents("timestamp.json")), now: later, minimumVersion: 2) == renewed)
        // The next publish counts on from there.
        try ws.put("Alpha", files: ["a.txt": Array("alpha 2".utf8)])
        try ws.publish(keys, now: later)
        #expect(try t.current.verifyTimestamp(try #require(ws.contents("timestamp.json")), now: later).version == 3)
    }

    @Test func timestampSignerRefusesWhatItCannotVouchFor() throws {
        let (ws, keys) = try repository()
        try ws.startRoot(keys)
        try ws.publish(keys, expiresIn: 600, now: publishedAt)
        let before = ws.contents("timestamp.json")
        // Not a timestamp key of the root.
        #expect(throws: PublishError.self) { try TimestampSigner(key: keys.catalog, now: publishedAt).sign(repository: ws.path) }
        // An expired catalog.
        #expect(throws: PublishError.self) { try TimestampSigner(key: keys.timestamp, now: publishedAt.addingTimeInterval(601)).sign(repository: ws.path) }
        // A catalog signed by a stranger in place of the real one.
        let real = ws.catalogBytes()
        try ws.place("catalog.json", try SigningKey.generate().signedCatalog(try trust(ws).current.verifyCatalog(real, now: nil)))
        #expect(throws: PublishError.self) { try TimestampSigner(key: keys.timestamp, now: publishedAt).sign(repository: ws.path) }
        try ws.place("catalog.json", real)
        #expect(ws.contents("timestamp.json") == before)
        // A repository without a root has no timestamp to sign.
        let plain = try workspace()
        try plain.put("Alpha", files: ["a.txt": Array("alpha".utf8)])
        try plain.publish()
        #expect(throws: PublishError.self) { try TimestampSigner(key: keys.timestamp).sign(repository: plain.path) }
    }

    @Test func rotationNeedsTheCurrentRootKeyAndCarriesUnchangedKeysOn() throws {
        let (ws, keys) = try repository()
        try ws.startRoot(keys)
        #expect(throws: PublishError.self) { try RootRotation(rootKey: keys.catalog).rotate(repository: ws.path) }
        let newCatalog = try SigningKey.generate()
        var rotation = RootRotation(rootKey: keys.root)
        rotation.catalogKeys = [newCatalog.publicKey]
        let v2 = try rotation.rotate(repository: ws.path)
        #expect(v2.version == 2 && v2.catalogKeys == [newCatalog.publicKey.text])
        #expect(v2.rootKeys == [keys.root.publicKey.text] && v2.timestampKeys == [keys.timestamp.publicKey.text])
        // A root key handover: signed by the old key and the new one; afterwards only the new one rotates.
        let newRoot = try SigningKey.generate()
        var handover = RootRotation(rootKey: keys.root)
        handover.newRootKey = newRoot
        #expect(try handover.rotate(repository: ws.path).rootKeys == [newRoot.publicKey.text])
        #expect(throws: PublishError.self) { try RootRotation(rootKey: keys.root).rotate(repository: ws.path) }
        #expect(try RootRotation(rootKey: newRoot).rotate(repository: ws.path).version == 4)
        let t = try trust(ws)
        #expect(t.current.version == 4 && ws.contents("root.json") == ws.contents("roots/4.root.json"))
        #expect(Set(t.everyCatalogKey) == [keys.catalog.publicKey, newCatalog.publicKey])
    }

    @Test func aCatalogKeyRotationCarriesVersionsOnAndRevokesTheOldKey() throws {
        let (ws, keys) = try repository()
        try ws.startRoot(keys)
        #expect(try ws.publish(keys).version == 1)
        var rotated = keys
        rotated.catalog = try SigningKey.generate()
        var rotation = RootRotation(rootKey: keys.root)
        rotation.catalogKeys = [rotated.catalog.publicKey]
        try rotation.rotate(repository: ws.path)
        // The old key is refused now; the new one publishes version 2 over the old key's catalog.
        #expect(throws: PublishError.self) { try ws.publish(keys) }
        let v2 = try ws.publish(rotated)
        #expect(v2.version == 2 && v2.packs.map(\.version) == [1])
        #expect(try trust(ws).current.verifyCatalog(ws.catalogBytes(), now: Date()).version == 2)
    }

    @Test func aBrokenChainInTheRepositoryIsRefused() throws {
        let (ws, keys) = try repository()
        try ws.startRoot(keys)
        // A roots/2.root.json signed by a stranger (planted in the folder): every later step stops.
        let stranger = try SigningKey.generate()
        let forged = RootMetadata(version: 2, expires: Date().addingTimeInterval(86_400), rootKeys: [stranger.publicKey],
                                  catalogKeys: [stranger.publicKey], timestampKeys: [stranger.publicKey])
        try ws.place("roots/2.root.json", try forged.signed(by: [stranger]))
        #expect(throws: PublishError.self) { try ws.publish(keys) }
        #expect(throws: PublishError.self) { try RootRotation(rootKey: keys.root).rotate(repository: ws.path) }
        #expect(ws.contents("catalog.json") == nil)
    }

    @Test func aRotationThatCannotWriteRootJSONLeavesNoNewRootBehind() throws {
        let (ws, keys) = try repository()
        try ws.startRoot(keys)
        // root.json cannot be replaced (a folder stands in its place): roots/2 must not stay.
        try FileManager.default.removeItem(atPath: ws.path + "/root.json")
        try FileManager.default.createDirectory(atPath: ws.path + "/root.json/x", withIntermediateDirectories: true)
        #expect(throws: (any Error).self) { try RootRotation(rootKey: keys.root).rotate(repository: ws.path) }
        #expect(ws.contents("roots/2.root.json") == nil)
        #expect(try trust(ws).current.version == 1)
        #expect(!(try FileManager.default.contentsOfDirectory(atPath: ws.path)).contains { $0.hasPrefix(".assetpack-staging") })
    }
}
