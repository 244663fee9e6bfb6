import AssetPackFormat
@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// LAN peers (`Configuration.peers`) that misbehave: one that answers garbage for every chunk,
/// one that stalls, one that redirects elsewhere, one that serves another repository's chunks.
/// Each time the install completes from the origin with the right bytes, the peer is demoted
/// for the reason it gave, and it was not asked for more than the first requests in flight.
@Suite(.serialized) struct PeerFaultTests {
    static let level = patternBytes(1_500_000, seed: 151)

    struct Setup {
        let repo: TestRepository
        let origin: NginxServer
        let pack: CatalogPack

        init() throws {
            repo = try TestRepository("peers")
            try repo.put("Level", files: ["level.bin": PeerFaultTests.level])
            try repo.publish()
            origin = try NginxServer(root: repo.path, accessLog: true)
            pack = try #require(try repo.catalog().pack(withID: "Level"))
        }

        /// Installs the pack with `peer` as the one peer; returns why the peer was demoted.
        func install(peer: String, _ configure: (inout AssetPackManager.Configuration) -> Void = { _ in }) async throws -> PeerHealth.Demotion? {
            let manager = try repo.manager(root: repo.dir.file("root"), urls: [origin.url("/")]) {
                $0.peers = [peer]
                configure(&$0)
            }
            try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Level"))
            #expect(try manager.contents(at: "level.bin") == Data(PeerFaultTests.level))
            #expect(await manager.peerBytes == 0)
            // The origin sent the whole pack.
            let sent = origin.accessLog().filter { $0.first == "/" + pack.path }.reduce(UInt64(0)) { $0 + (UInt64($1[2]) ?? 0) }
            #expect(sent >= pack.size - pack.index.length, "the origin sent \(sent) of \(pack.size)")
            return await manager.client.peers?.demotion(0)
        }
    }

    /// A peer on nginx whose `/chunks/` location is `location`; `files` are placed in its root.
    private func peer(_ location: String, files: [String: [UInt8]] = [:]) throws -> (NginxServer, TemporaryDirectory) {
        let dir = try TemporaryDirectory("peer")
        for (name, bytes) in files { try Data(bytes).write(to: URL(fileURLWithPath: dir.file(name))) }
        return (try NginxServer(root: dir.path, locations: "location /chunks/ { \(location) }", accessLog: true), dir)
    }

    @Test func aPeerThatAnswersGarbageForEveryChunkIsDemoted() async throws {
        let setup = try Setup()
        let (garbage, _) = try peer("return 200 'garbage, not a chunk';")
        let demotion = try await setup.install(peer: garbage.url("/"))
        guard case .badChunk? = demotion else { Issue.record("demoted for \(String(describing: demotion))"); return }
        // Asked only by the requests already in flight when the first bad chunk arrived.
        #expect(garbage.accessLog().count <= 8, "\(garbage.accessLog())")
    }

    @Test func aPeerThatStallsIsDemoted() async throws {
        let setup = try Setup()
        let silent = try SilentServer()
        let demotion = try await setup.install(peer: "http://127.0.0.1:\(silent.port)/") { $0.networkLimits.peerTimeout = .milliseconds(500) }
        #expect(demotion == .stalled)
    }

    @Test func aPeerThatRedirectsElsewhereIsDemotedAndNotFollowed() async throws {
        let setup = try Setup()
        let (redirecting, _) = try peer("return 302 \(setup.origin.url("/redirected-by-peer"));")
        let demotion = try await setup.install(peer: redirecting.url("/"))
        guard case .redirect(let to)? = demotion else { Issue.record("demoted for \(String(describing: demotion))"); return }
        #expect(to.hasSuffix("/redirected-by-peer"))
        #expect(setup.origin.accessLog().allSatisfy { $0.first != "/redirected-by-peer" })
        #expect(redirecting.accessLog().count <= 8)
    }

    @Test func aPeerThatServesAnotherRepositorysChunksIsDemoted() async throws {
        let setup = try Setup()
        // A real chunk of another repository: a file under the minimum chunk size is one chunk.
        let other = try TestRepository("other")
        let foreign = patternBytes(40_000, seed: 152)
        try other.put("Other", files: ["other.bin": foreign])
        try other.publish()
        let (peer, peerRoot) = try peer("try_files /foreign.chunk =404;", files: ["foreign.chunk": foreign])
        let demotion = try await setup.install(peer: peer.url("/"))
        withExtendedLifetime(peerRoot) {}
        guard case .badChunk? = demotion else { Issue.record("demoted for \(String(describing: demotion))"); return }
        #expect(peer.accessLog().count <= 8)
    }

    @Test func theCLIChecksRemembersAndForgetsPeersAndGoesOnWithoutAnUnreachableOne() async throws {
        let setup = try Setup()
        let root = setup.repo.dir.file("cli-root")
        let common = ["--root", root, "--repo", setup.origin.url("/"), "--public-key", setup.repo.publicKey.text]
        let refused = try await Assetpack.run(["ensure", "Level"] + common + ["--peer", "ftp://10.0.0.5/"])
        #expect(refused.status == 2 && refused.stderr.contains("--peer takes an http:// or https:// URL"), "\(refused.stderr)")
        // Nothing listens there: the peer is demoted and the origin serves the pack.
        let unreachable = "http://127.0.0.1:\(try freeLoopbackPort())"
        let installed = try await Assetpack.run(["ensure", "Level"] + common + ["--peer", unreachable])
        #expect(installed.status == 0, "\(installed.stderr)")
        #expect(try RootSettings.load(root: root).peers == [unreachable])
        let forgotten = try await Assetpack.run(["ensure", "Level", "--root", root, "--peer", "none"])
        #expect(forgotten.status == 0, "\(forgotten.stderr)")
        #expect(try RootSettings.load(root: root).peers.isEmpty)
    }

    @Test func aPeerURLThatIsNotHTTPIsRefused() throws {
        let repo = try TestRepository("peer-url")
        #expect(throws: AssetPackManagerError.self) {
            _ = try repo.manager(root: repo.dir.file("root"), urls: ["http://127.0.0.1:1/"]) { $0.peers = ["/mnt/usb"] }
        }
    }
}
