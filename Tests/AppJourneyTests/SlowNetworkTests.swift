import AssetPackFormat
import AssetPackPublishing
@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// A slow network: a download that takes several times the stall timeout but keeps moving
/// completes, with progress that only goes forward; one that stops moving fails with an error
/// that says so, or goes on from the next mirror.
@Suite struct SlowNetworkTests {
    static let content = patternBytes(450_000, seed: 21)

    /// "Music" in chunks of at most 64 KiB (each arrives well within the stall timeout).
    func repository() throws -> (TestRepository, CatalogPack) {
        let repo = try TestRepository()
        let manifest = try repo.put("Music", files: ["music.bin": Self.content])
        let options = repo.publishOptions(now: Date()) { $0.writer.parameters = ChunkingParameters(minimumSize: 16 << 10, averageSize: 32 << 10, maximumSize: 64 << 10) }
        let catalog = try #require(try Publisher(key: repo.key, options: options).publish(manifests: [manifest]).catalog)
        return (repo, catalog.packs[0])
    }

    @Test(arguments: Client.allCases)
    func aSlowButMovingDownloadCompletesWithProgressThatOnlyGoesForward(_ client: Client) async throws {
        let (repo, pack) = try repository()
        // About 4.5 s for the pack at 100 KB/s, over twice the stall timeout; a chunk (64 KiB at
        // most) takes 0.66 s, a third of it.
        let server = try repo.serve { $0.bandwidthBytesPerSecond = 100_000 }
        let app = App(client, repo: repo, urls: [server.url])
        app.stallTimeout = .seconds(2)
        let outcome = await app.ensure("Music")
        #expect(outcome.succeeded, "\(outcome.error ?? "")")
        #expect(await app.read("music.bin") == Self.content)
        #expect(outcome.events == ["finished Music"])
        // Progress: several updates, one total (the pack's chunk bytes), never going back.
        let progress = outcome.progress.filter { $0.id == "Music" }
        #expect(progress.count >= 5, "\(progress.count) progress updates")
        let totals = Set(progress.map(\.total))
        #expect(totals.count == 1 && totals.first! > Int64(Self.content.count) * 9 / 10 && totals.first! <= Int64(pack.size), "\(totals)")
        #expect(zip(progress, progress.dropFirst()).allSatisfy { $0.completed <= $1.completed }, "\(progress.map(\.completed))")
        #expect(progress.allSatisfy { $0.completed <= $0.total })
        // One pass over the pack: no attempt was given up and started again.
        #expect(outcome.fetchedBytes <= pack.size, "fetched \(outcome.fetchedBytes) of a \(pack.size)-byte pack")
    }

    @Test(arguments: Client.allCases)
    func aStalledDownloadFailsClearlyAndGoesOnFromTheNextMirror(_ client: Client) async throws {
        let (repo, _) = try repository()
        let stalled = try repo.serve { $0.bandwidthBytesPerSecond = 400 }
        let app = App(client, repo: repo, urls: [stalled.url])
        app.stallTimeout = .seconds(1)
        let failed = await app.ensure("Music")
        #expect(failed.status == 1)
        let error = failed.error ?? ""
        #expect(error.contains("packs/Music/") && (error.contains("no verified chunk for") || error.contains("minimum average")), "\(error)")
        #expect(await app.read("music.bin") == nil)
        #expect(tree(app.root + "/packs").isEmpty)

        // With a second mirror, the stalled one is passed over and the download completes.
        let good = try repo.serve()
        app.quit()
        app.urls = [stalled.url, good.url]
        let outcome = await app.ensure("Music")
        #expect(outcome.succeeded, "\(outcome.error ?? "")")
        #expect(await app.read("music.bin") == Self.content)
        #expect(!good.packRequests().isEmpty)
    }
}
