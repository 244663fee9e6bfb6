import AssetPackFormat
@testable import AssetPackPublishing
import Foundation
import Synchronization
import TestRepositories
import TestSupport
import Testing

/// Channels, promotion, staged rollout and rollback on the publishing side: every
/// catalog is signed for its channel, pack files are shared, and every bad input is refused
/// without changing the repository.
@Suite struct ChannelPublishTests {
    /// Publishes the packs put so far to `channel` (nil: the default channel).
    @discardableResult
    func publish(_ repo: TestRepository, channel: String? = nil, rollout: Int? = nil, keep: Int = 2) throws -> Catalog {
        try #require(try repo.publishReport(now: publishedAt) {
            $0.channel = channel
            $0.rolloutPercent = rollout
            $0.keep = keep
        }.catalog)
    }

    func editor(_ repo: TestRepository) -> ChannelEditor {
        var editor = ChannelEditor(repository: repo.path, key: repo.key)
        editor.now = publishedAt
        return editor
    }

    func verified(_ repo: TestRepository, channel: String?) throws -> Catalog {
        try CatalogVerifier(publicKey: repo.publicKey).verify(try #require(repo.contents(ChannelName.catalogPath(channel))), now: nil, channel: channel)
    }

    @Test func aChannelHasASignedCatalogOfItsOwnAndSharesPackFiles() throws {
        let repo = try workspace()
        try repo.put("Alpha", files: ["a.bin": patternBytes(50_000, seed: 1)])
        let main = try publish(repo)
        let beta = try publish(repo, channel: "beta")
        // The default channel stays in format 1, byte for byte what format-1 readers know.
        let defaultPayload = try SignedCatalog.parse(repo.catalogBytes())
        #expect(defaultPayload.format == 1)
        #expect(String(decoding: defaultPayload.payload, as: UTF8.self).hasPrefix(#"{"catalogFormat":1,"#))
        #expect(!String(decoding: defaultPayload.payload, as: UTF8.self).contains("channel"))
        // The channel's catalog is format 2 and names its channel inside the signed payload.
        let betaBytes = try #require(repo.contents("channels/beta/catalog.json"))
        #expect(try SignedCatalog.parse(betaBytes).format == 2)
        #expect(try verified(repo, channel: "beta") == beta)
        #expect(beta.channel == "beta" && beta.version == 1)
        // The same content is the same pack file and the same pack version.
        #expect(beta.packs.map(\.path) == main.packs.map(\.path))
        #expect(beta.packs.map(\.version) == main.packs.map(\.version))
        #expect(repo.snapshot().keys.filter { $0.hasSuffix(".pack") }.count == 1)
        // Each channel keeps its history for rollback.
        #expect(repo.contents("history/1.catalog.json") == repo.catalogBytes())
        #expect(repo.contents("channels/beta/history/1.catalog.json") == betaBytes)
    }

    /// A catalog for channel A served at channel B's URL (or at the default one) is refused: the
    /// channel name is inside the signed payload.
    @Test func aCatalogOfOneChannelIsRefusedForAnother() throws {
        let repo = try workspace()
        try repo.put("Alpha", files: ["a.bin": patternBytes(20_000, seed: 2)])
        try publish(repo)
        try publish(repo, channel: "beta")
        let beta = try #require(repo.contents("channels/beta/catalog.json"))
        let verifier = CatalogVerifier(publicKey: repo.publicKey)
        for (bytes, asked, found) in [(beta, "gamma", "beta"), (beta, nil, "beta"), (repo.catalogBytes(), "beta", nil)] as [([UInt8], String?, String?)] {
            let error = #expect(throws: CatalogError.self) { try verifier.verify(bytes, now: nil, channel: asked) }
            #expect(error == .wrongChannel(expected: asked, found: found))
            #expect(error?.description.contains("catalog for another channel") == true)
        }
    }

    @Test func aFormatOneCatalogCarryingARolloutIsMalformed() throws {
        let repo = try workspace()
        try repo.put("Alpha", files: ["a.bin": patternBytes(20_000, seed: 3)])
        let catalog = try publish(repo)
        var text = String(decoding: CatalogCoding.encode(catalog), as: UTF8.self)
        text = text.replacingOccurrences(of: #"{"catalogFormat":1,"#, with: #"{"catalogFormat":1,"channel":"beta","#)
        let payload = Array(text.utf8)
        let bytes = SignedCatalog(payload: payload, signatures: [CatalogSignature(keyID: repo.key.publicKey.keyID,
                                                                                  signature: try repo.key.sign(SignedCatalog.signedMessage(for: payload)))]).encoded()
        let error = #expect(throws: CatalogError.self) { try CatalogVerifier(publicKey: repo.publicKey).verify(bytes, now: nil, channel: "beta") }
        #expect(error?.description.contains("a format-1 catalog cannot carry it") == true, "\(String(describing: error))")
    }

    @Test func promotionGivesTheTargetExactlyTheSourcesPackVersions() throws {
        let repo = try workspace()
        try repo.put("Alpha", files: ["a.bin": patternBytes(40_000, seed: 4)])
        try repo.put("Beta", files: ["b.bin": patternBytes(30_000, seed: 5)])
        try publish(repo)
        try repo.put("Alpha", files: ["a.bin": patternBytes(40_000, seed: 6)])
        let beta = try publish(repo, channel: "beta")
        let packFiles = repo.snapshot().keys.filter { $0.hasSuffix(".pack") }.count
        let change = try editor(repo).promote(from: "beta", to: nil)
        #expect(change.previousVersion == 1 && change.catalog.version == 2)
        #expect(change.catalog.packs.map { Pick($0) } == beta.packs.map { Pick($0) })
        #expect(try verified(repo, channel: nil).packs.map(\.digest) == beta.packs.map(\.digest))
        #expect(repo.snapshot().keys.filter { $0.hasSuffix(".pack") }.count == packFiles, "nothing repackaged")
        #expect(change.changes.first { $0.id == "Alpha" }?.kind == .updated)
    }

    /// The fields of an entry that say which content and version it is.
    struct Pick: Equatable {
        var id: String, version: Int, digest: SHA256Digest, path: String
        init(_ p: CatalogPack) { (id, version, digest, path) = (p.id, p.version, p.digest, p.path) }
    }

    @Test func promotionFromAChannelThatDoesNotExistIsRefusedAndChangesNothing() throws {
        let repo = try workspace()
        try repo.put("Alpha", files: ["a.bin": patternBytes(10_000, seed: 7)])
        try publish(repo)
        let before = repo.snapshot()
        let error = #expect(throws: PublishError.self) { try editor(repo).promote(from: "beta", to: nil) }
        #expect(error?.description.contains("channel 'beta' does not exist") == true, "\(String(describing: error))")
        #expect(error?.description.contains("channels/beta/catalog.json") == true)
        #expect(#expect(throws: PublishError.self) { try editor(repo).promote(from: "Bad Name", to: nil) }?.description.contains("lowercase") == true)
        #expect(repo.snapshot() == before)
    }

    @Test func aRolloutServesTheNewVersionsToBucketsBelowItsPercentageAndOnlyWidens() throws {
        let repo = try workspace()
        try repo.put("Alpha", files: ["a.bin": patternBytes(40_000, seed: 8)])
        let v1 = try publish(repo)
        try repo.put("Alpha", files: ["a.bin": patternBytes(40_000, seed: 9)])
        let v2 = try publish(repo, rollout: 10)
        let rollout = try #require(v2.rollout)
        #expect(rollout.percent == 10 && rollout.fromVersion == 1 && rollout.packs == v1.packs)
        #expect(v2.view(forBucket: 9).packs == v2.packs)
        #expect(v2.view(forBucket: 10).packs == v1.packs)
        #expect(try SignedCatalog.parse(repo.catalogBytes()).format == 2, "a rollout needs format 2: format-1 readers would serve it to everyone")
        // Out of range, narrowing, and a second rollout on top of one under way: refused, nothing changes.
        let before = repo.snapshot()
        for percent in [-1, 101] {
            #expect(#expect(throws: PublishError.self) { try editor(repo).setRollout(percent: percent, channel: nil) }?.description.contains("0 to 100") == true)
            #expect(#expect(throws: PublishError.self) { try publish(repo, rollout: percent) }?.description.contains("0 to 100") == true)
        }
        #expect(#expect(throws: PublishError.self) { try editor(repo).setRollout(percent: 5, channel: nil) }?.description.contains("narrowing") == true)
        try repo.put("Alpha", files: ["a.bin": patternBytes(40_000, seed: 10)])
        #expect(#expect(throws: PublishError.self) { try publish(repo, rollout: 20) }?.description.contains("a rollout is under way") == true)
        #expect(repo.snapshot() == before)
        // Widen, halt, widen again, finish: every change a new catalog version; pack files of the
        // earlier versions stay while the rollout names them.
        #expect(try editor(repo).setRollout(percent: 50, channel: nil).catalog.rollout?.percent == 50)
        #expect(try editor(repo).setRollout(percent: 0, channel: nil).catalog.view(forBucket: 0).packs == v1.packs)
        let done = try editor(repo).setRollout(percent: 100, channel: nil)
        #expect(done.catalog.rollout == nil && done.catalog.packs == v2.packs && done.catalog.version == 5)
        #expect(#expect(throws: PublishError.self) { try editor(repo).setRollout(percent: 30, channel: nil) }?.description.contains("no rollout under way") == true)
    }

    @Test func theRolloutsEarlierPackFilesAreKeptWhateverTheRetention() throws {
        let repo = try workspace()
        try repo.put("Alpha", files: ["a.bin": patternBytes(30_000, seed: 11)])
        let v1 = try publish(repo, keep: 1)
        try repo.put("Alpha", files: ["a.bin": patternBytes(30_000, seed: 12)])
        try publish(repo, rollout: 10, keep: 1)
        #expect(repo.contents(v1.packs[0].path) != nil, "clients outside the rollout still install it")
    }

    @Test func rollbackServesAnEarlierPackSetAsAHigherCatalogVersion() throws {
        let repo = try workspace()
        try repo.put("Alpha", files: ["a.bin": patternBytes(40_000, seed: 13)])
        try repo.put("Gone", files: ["g.bin": patternBytes(5_000, seed: 14)])
        let v1 = try publish(repo, keep: 3)
        try repo.put("Alpha", files: ["a.bin": patternBytes(40_000, seed: 15)])
        repo.drop("Gone")
        try publish(repo, keep: 3)
        let change = try editor(repo).rollback(to: 1, channel: nil)
        #expect(change.catalog.version == 3)
        #expect(change.catalog.packs.map { Pick($0) } == v1.packs.map { Pick($0) }, "the same entries, the same versions")
        #expect(change.catalog.removed.isEmpty)
        #expect(try verified(repo, channel: nil).version == 3)
        // Rolling "back" to the current version or a later one is refused.
        #expect(#expect(throws: PublishError.self) { try editor(repo).rollback(to: 3, channel: nil) }?.description.contains("earlier version") == true)
    }

    @Test func rollbackToAVersionWhosePackFilesWerePrunedNamesThemAndChangesNothing() throws {
        let repo = try workspace()
        try repo.put("Alpha", files: ["a.bin": patternBytes(40_000, seed: 16)])
        let v1 = try publish(repo, keep: 1)
        try repo.put("Alpha", files: ["a.bin": patternBytes(40_000, seed: 17)])
        try publish(repo, keep: 1)
        let before = repo.snapshot()
        let error = #expect(throws: PublishError.self) { try editor(repo).rollback(to: 1, channel: nil) }
        #expect(error?.description.contains("Alpha v1 (\(v1.packs[0].path))") == true, "\(String(describing: error))")
        #expect(error?.description.contains("nothing was changed") == true)
        #expect(#expect(throws: PublishError.self) { try editor(repo).rollback(to: 9, channel: "beta") }?.description.contains("channel 'beta' does not exist") == true)
        #expect(repo.snapshot() == before)
    }

    /// Two publishes racing on one repository (a channel each, and both on one channel): the lock
    /// serializes them, each catalog is whole and signed, and versions are never given twice.
    @Test func racingPublishesAreSerializedByTheLock() throws {
        let repo = try workspace()
        try repo.put("Alpha", files: ["a.bin": patternBytes(200_000, seed: 18)])
        try publish(repo)
        // Threads of their own: a publish waiting for the lock blocks its thread.
        let results = Mutex<[Result<Int, any Error>]>([])
        let done = DispatchSemaphore(value: 0)
        let channels: [String?] = [nil, "beta", nil, "beta"]
        for channel in channels {
            Thread.detachNewThread {
                let outcome = Result { try publish(repo, channel: channel).version }
                results.withLock { $0.append(outcome) }
                done.signal()
            }
        }
        for _ in channels { done.wait() }
        let outcomes = results.withLock { $0 }
        #expect(outcomes.allSatisfy { if case .success = $0 { true } else { false } }, "\(outcomes)")
        #expect(try verified(repo, channel: nil).version == 3)
        #expect(try verified(repo, channel: "beta").version == 2)
        #expect(!repo.snapshot().keys.contains { $0.contains(".assetpack-staging-") })
    }

    /// With a root, a promotion (like a rollout change or a rollback) signs the timestamp after
    /// the catalog, naming every channel's catalog; without the timestamp key it is refused
    /// before anything is written.
    @Test func aPromotionInRootModeSignsTheTimestampToo() throws {
        let repo = try workspace()
        let keys = try TestRootKeys()
        try repo.startRoot(keys)
        try repo.put("Alpha", files: ["a.bin": patternBytes(10_000, seed: 20)])
        try repo.publish(keys)
        try repo.put("Alpha", files: ["a.bin": patternBytes(10_000, seed: 21)])
        let options = repo.publishOptions(now: Date()) { $0.timestampKey = keys.timestamp; $0.channel = "beta" }
        _ = try Publisher(key: keys.catalog, options: options).publish(manifests: repo.manifestPaths)
        let before = repo.snapshot()
        var editor = ChannelEditor(repository: repo.path, key: keys.catalog)
        #expect(#expect(throws: PublishError.self) { try editor.promote(from: "beta", to: nil) }?.description.contains("pass --timestamp-key") == true)
        #expect(repo.snapshot() == before)
        editor.timestampKey = keys.timestamp
        let change = try editor.promote(from: "beta", to: nil)
        let stamp = try #require(change.timestamp)
        #expect(stamp.catalog.sha256 == SHA256Digest.hash(repo.catalogBytes()).hex && stamp.catalog.version == 2)
        #expect(stamp.channels?["beta"]?.sha256 == SHA256Digest.hash(try #require(repo.contents("channels/beta/catalog.json"))).hex)
    }

    @Test func timestampNamesEveryChannelsCatalog() throws {
        let repo = try workspace()
        let keys = try TestRootKeys()
        try repo.startRoot(keys)
        try repo.put("Alpha", files: ["a.bin": patternBytes(10_000, seed: 19)])
        try repo.publish(keys)
        let options = repo.publishOptions(now: Date()) { $0.timestampKey = keys.timestamp; $0.channel = "beta" }
        let report = try Publisher(key: keys.catalog, options: options).publish(manifests: repo.manifestPaths)
        let stamp = try #require(report.timestamp)
        let beta = try #require(repo.contents("channels/beta/catalog.json"))
        #expect(stamp.channels?["beta"]?.sha256 == SHA256Digest.hash(beta).hex)
        #expect(stamp.catalog.sha256 == SHA256Digest.hash(repo.catalogBytes()).hex)
        // The channel's catalog must be the one the timestamp names.
        #expect(throws: TrustError.self) { try stamp.checkCatalogBytes(repo.catalogBytes(), channel: "beta") }
        #expect(throws: TrustError.channelNotInTimestamp(channel: "gamma")) { try stamp.checkCatalogBytes(beta, channel: "gamma") }
    }
}
