import AssetPackFormat
@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// A LAN peer that delivers, but far slower than it should (`NetworkLimits.peerMinimumRate`,
/// `peerMinimumShare`): a real peer on loopback — nginx serving every chunk of the pack by its
/// hash, each response held to 16 KiB/s — is demoted once it has been busy for the rate window,
/// and the origin sends the rest; a fast peer is not. The rule's arithmetic is checked on its
/// own with instants given, never with timings.
@Suite(.serialized) struct SlowPeerTests {
    static let level = patternBytes(3_000_000, seed: 161)

    struct Setup {
        let repo: TestRepository
        let origin: NginxServer
        let pack: CatalogPack
        let peer: NginxServer
        let peerRoot: TemporaryDirectory

        /// A repository on nginx, and a peer holding every chunk of its pack at `rate` a response.
        init(rate: String = "16k") throws {
            repo = try TestRepository("slow-peer")
            try repo.put("Level", files: ["level.bin": SlowPeerTests.level])
            try repo.publish()
            origin = try NginxServer(root: repo.path, accessLog: true)
            pack = try #require(try repo.catalog().pack(withID: "Level"))
            let file = try #require(repo.contents(pack.path))
            let index = try PackIndex.decode(Array(file[Int(pack.index.offset)..<Int(pack.index.offset + pack.index.length)]), indexOffset: pack.index.offset)
            peerRoot = try TemporaryDirectory("slow-peer-chunks")
            try FileManager.default.createDirectory(atPath: peerRoot.file("chunks"), withIntermediateDirectories: true)
            for (s, c) in index.sequence.enumerated() {
                let entry = index.chunks[Int(c)]
                let start = Int(index.sequenceOffsets[s])
                try Data(SlowPeerTests.level[start..<start + Int(entry.uncompressedSize)]).write(to: URL(fileURLWithPath: peerRoot.file("chunks/" + entry.digest.hex)))
            }
            peer = try NginxServer(root: peerRoot.path, locations: "location /chunks/ { limit_rate \(rate); }", accessLog: true)
        }

        /// Body bytes the origin sent of the pack file.
        var originPackBytes: UInt64 {
            origin.accessLog().filter { $0.first == "/" + pack.path }.reduce(UInt64(0)) { $0 + (UInt64($1[2]) ?? 0) }
        }
    }

    @Test func aPeerFarSlowerThanTheFloorIsDemotedAndTheOriginSendsTheRest() async throws {
        let setup = try Setup()
        let manager = try setup.repo.manager(root: setup.repo.dir.file("root"), urls: [setup.origin.url("/")]) {
            $0.peers = [setup.peer.url("/")]
            // Only the rate rule may demote it: a chunk takes 4 s or more at this rate.
            $0.networkLimits.peerTimeout = .seconds(600)
        }
        try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Level"))
        #expect(try manager.contents(at: "level.bin") == Data(SlowPeerTests.level))
        let demotion = await manager.client.peers?.demotion(0)
        guard case .slow(let rate, let minimum)? = demotion else { Issue.record("demoted for \(String(describing: demotion))"); return }
        #expect(rate < minimum && minimum >= Double(256 << 10), "\(rate) < \(minimum)")
        // The peer served a small part at most; the origin sent the rest.
        let fromPeer = await manager.peerBytes
        #expect(fromPeer <= UInt64(SlowPeerTests.level.count / 4), "\(fromPeer) bytes from the slow peer")
        let sources = try #require(try await manager.sources(ofAssetPackWithID: "Level"))
        let entry = try #require(sources.entries.first { $0.kind == .peer })
        #expect(entry.location == setup.peer.url("/") && entry.bytes == fromPeer)
        #expect(entry.demotion?.hasPrefix("too slow") == true, "\(String(describing: entry.demotion))")
        #expect(sources.bytes(from: .mirror) > 0 && setup.originPackBytes >= setup.pack.size - setup.pack.index.length - entry.savedBytes)
    }

    @Test func theCLIReportsTheSlowPeersDemotionInItsSources() async throws {
        let setup = try Setup()
        let root = setup.repo.dir.file("cli-root")
        let run = try await Assetpack.run(["ensure", "Level", "--root", root, "--repo", setup.origin.url("/"),
                                           "--public-key", setup.repo.publicKey.text, "--peer", setup.peer.url("/")])
        #expect(run.status == 0, "\(run.stderr)")
        // The last line (not a terminal: JSON) names the peer and why it was demoted.
        let last = try #require(run.stdout.split(separator: "\n").last)
        let line = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
        let entries = ((line["sources"] as? [[String: Any]])?.first?["entries"] as? [[String: Any]]) ?? []
        let peer = try #require(entries.first { $0["kind"] as? String == "peer" }, "\(last)")
        #expect((peer["demotion"] as? String)?.hasPrefix("too slow") == true, "\(peer)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: installedFile(root))) == Data(SlowPeerTests.level))
    }

    @Test func aFastPeerIsNotDemotedAndServesEveryChunk() async throws {
        let setup = try Setup(rate: "0")
        let manager = try setup.repo.manager(root: setup.repo.dir.file("root"), urls: [setup.origin.url("/")]) {
            $0.peers = [setup.peer.url("/")]
        }
        try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Level"))
        #expect(try manager.contents(at: "level.bin") == Data(SlowPeerTests.level))
        #expect(await manager.client.peers?.demotion(0) == nil)
        #expect(await manager.peerBytes == UInt64(SlowPeerTests.level.count))
        #expect(setup.originPackBytes <= setup.pack.index.length, "the origin sent \(setup.originPackBytes) bytes, the index is \(setup.pack.index.length)")
    }

    // MARK: The rule, with instants given

    @Test func aMeterCountsOnlyBusyTimeFromTheFirstByte() {
        let meter = ThroughputMeter()
        let t0 = ContinuousClock.now
        meter.begin(now: t0)
        // A second before the first byte: not counted.
        meter.add(100_000, now: t0 + .seconds(1))
        meter.add(100_000, now: t0 + .seconds(2))
        #expect(meter.rate(over: .seconds(2), now: t0 + .seconds(2)) == nil)  // busy 1 s so far
        meter.add(100_000, now: t0 + .seconds(3))
        #expect(meter.rate(over: .seconds(2), now: t0 + .seconds(3)) == 100_000)
        meter.end(now: t0 + .seconds(3))
        // Ten idle seconds, then busy again: the idle time is nobody's fault.
        meter.begin(now: t0 + .seconds(13))
        meter.add(200_000, now: t0 + .seconds(14))
        #expect(meter.rate(over: .seconds(2), now: t0 + .seconds(14)) == 150_000)
        #expect(meter.averageRate(minimumBytes: 1, now: t0 + .seconds(14)) == 500_000.0 / 3)
        #expect(meter.averageRate(minimumBytes: 1 << 20, now: t0 + .seconds(14)) == nil)
        #expect(meter.bytes == 500_000)
    }

    @Test func aPeerIsJudgedAgainstTheFloorOrAShareOfTheOriginsRate() {
        var limits = AssetPackManager.NetworkLimits.standard
        limits.peerMinimumRate = 100_000
        limits.peerMinimumShare = 0.25
        limits.peerRateWindow = .seconds(2)
        let origin = ThroughputMeter()
        let health = PeerHealth(peers: ["http://a/", "http://b/"], limits: limits, origin: origin)
        let t0 = ContinuousClock.now
        // Both peers at 150 kB/s over their first window: above the floor, and the origin is not
        // measured yet.
        for p in 0..<2 {
            health.meters[p].begin(now: t0)
            for k in 0...3 { health.meters[p].add(100_000, now: t0 + .milliseconds(500 * k)) }
        }
        health.judgeRate(0, now: t0 + .milliseconds(1500))
        #expect(health.demotion(0) == nil)  // not busy for a window yet
        health.judgeRate(0, now: t0 + .seconds(2))
        #expect(health.demotion(0) == nil)
        // The origin has since averaged 4 MB/s over 4 MB: a peer must now keep 1 MB/s.
        origin.begin(now: t0)
        origin.add(0, now: t0)
        origin.add(4_000_000, now: t0 + .seconds(1))
        origin.end(now: t0 + .seconds(1))
        #expect(health.minimumPeerRate(now: t0 + .seconds(2)) == 1_000_000)
        health.judgeRate(1, now: t0 + .seconds(2))
        guard case .slow(let rate, let minimum)? = health.demotion(1) else { Issue.record("\(String(describing: health.demotion(1)))"); return }
        #expect(rate < 200_000 && minimum == 1_000_000)
        #expect(health.active() == [0])
        #expect(health.demotionsByPeer["http://b/"]?.description.hasPrefix("too slow") == true)
    }
}

/// The installed copy of the level under `root`.
private func installedFile(_ root: String) throws -> String {
    let packs = root + "/packs/Level"
    let versions = try FileManager.default.contentsOfDirectory(atPath: packs)
    return "\(packs)/\(try #require(versions.first))/level.bin"
}
