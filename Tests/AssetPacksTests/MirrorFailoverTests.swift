import AssetPackFormat
import AssetPackPublishing
@testable import AssetPacks
import AssetPackTransport
import Foundation
import TestRepositories
import TestSupport
import Testing

/// One bad mirror does not block the others (`--repo EVIL --repo GOOD`): a mirror that serves a
/// refused catalog is passed over for the manager's lifetime, a chunk that does not verify is
/// fetched from the next mirror, and a mirror too slow to be of use (a dripped catalog, a
/// stalled pack) passes the request on instead of holding the call.
@Suite struct MirrorFailoverTests {
    /// One pack of incompressible bytes in several chunks (small chunking).
    func repository() throws -> TestRepository {
        let repo = try TestRepository()
        try repo.put("Pack", files: ["a.bin": patternBytes(300_000, seed: 21), "b.bin": patternBytes(120_000, seed: 22)])
        try repo.publish()
        return repo
    }

    func expectInstalled(_ manager: AssetPackManager) async throws {
        #expect(try manager.contents(at: "a.bin") == Data(patternBytes(300_000, seed: 21)))
        #expect(try manager.contents(at: "b.bin") == Data(patternBytes(120_000, seed: 22)))
    }

    @Test func mirrorOrderPutsRefusedMirrorsLastAndFailingOnesBehindTheRest() {
        let health = MirrorHealth(count: 4)
        #expect(health.order() == [0, 1, 2, 3])
        health.failed(0)
        health.refuse(1, why: "rolled back")
        #expect(health.order() == [2, 3, 0, 1])
        health.failed(2)
        health.failed(2)
        #expect(health.order() == [3, 0, 2, 1])
        health.failed(1)   // a refused mirror stays behind every trusted one
        for m in [0, 2, 3] { for _ in 0..<5 { health.failed(m) } }
        #expect(health.order().last == 1)
    }

    /// Another repository holding a copy of `repo`'s folder as it is now (another mirror).
    func mirror(of repo: TestRepository) throws -> TestRepository {
        let copy = try TestRepository("mirror")
        try FileManager.default.copyItem(atPath: repo.path, toPath: copy.path)
        return copy
    }

    @Test func aMirrorServingARolledBackCatalogIsPassedOverForTheSession() async throws {
        let evil = try repository()
        let v1 = evil.catalogBytes()
        try evil.put("Pack", files: ["a.bin": patternBytes(300_000, seed: 21), "b.bin": patternBytes(120_000, seed: 22), "c.txt": text("v2\n")])
        try evil.publish()
        // GOOD is current; EVIL goes back to version 1 of the catalog (signed, unexpired).
        let good = try mirror(of: evil)
        let goodServer = try good.serve()
        try evil.place("catalog.json", v1)
        let evilServer = try evil.serve()
        let root = evil.dir.file("root")
        do {
            let manager = try evil.manager(root: root, urls: [goodServer.url])
            #expect(try await manager.catalogPack(withID: "Pack").version == 2)
        }
        let manager = try evil.manager(root: root, urls: [evilServer.url, goodServer.url])
        let pack = try await manager.catalogPack(withID: "Pack")
        #expect(pack.version == 2)
        try await manager.ensureLocalAvailability(of: pack)
        #expect(try manager.contents(at: "c.txt") == Data(text("v2\n")))
        // EVIL was asked for its catalog once, refused, and not asked first again.
        _ = try await manager.installUpdates()
        #expect(evilServer.requests().map(\.path) == ["/catalog.json"])
        #expect(goodServer.requests().filter { $0.path == "/catalog.json" }.count >= 2)
    }

    @Test func aMirrorServingATamperedCatalogIsPassedOver() async throws {
        let repo = try repository()
        let good = try mirror(of: repo)
        let goodServer = try good.serve()
        // EVIL re-signs the catalog with a key of its own.
        let stranger = try SigningKey.generate()
        try repo.place("catalog.json", try stranger.signedCatalog(try repo.catalog()))
        let evilServer = try repo.serve()
        let manager = try repo.manager(root: repo.dir.file("root"), urls: [evilServer.url, goodServer.url])
        try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Pack"))
        try await expectInstalled(manager)
        #expect(evilServer.packRequests().isEmpty)
    }

    @Test func corruptChunksFromTheFirstMirrorComeFromTheNext() async throws {
        let repo = try repository()
        let evilServer = try repo.serve { $0.corruptRate = 1 }
        let goodServer = try repo.serve()
        let manager = try repo.manager(root: repo.dir.file("root"), urls: [evilServer.url, goodServer.url]) { $0.retryPolicy = .init(maxAttempts: 3, initialDelay: .milliseconds(2), maxDelay: .milliseconds(5)) }
        try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Pack"))
        try await expectInstalled(manager)
        #expect(!goodServer.packRequests().isEmpty)
        // With EVIL alone, the same install fails as a verification failure.
        let alone = try repo.manager(root: repo.dir.file("alone"), urls: [evilServer.url])
        let error = await managerError { try await alone.ensureLocalAvailability(of: alone.catalogPack(withID: "Pack")) }
        guard case .verification? = error else { Issue.record("expected a verification failure, got \(String(describing: error))"); return }
    }

    @Test func aDrippedCatalogFailsOverToTheNextMirror() async throws {
        let repo = try repository()
        let slowServer = try repo.serve { $0.bandwidthBytesPerSecond = 2; $0.includeCatalog = true }
        let goodServer = try repo.serve()
        let limits = AssetPackManager.NetworkLimits(smallFileDeadline: .seconds(20), minimumAverageRate: 1024, rateGracePeriod: .seconds(1))
        let manager = try repo.manager(root: repo.dir.file("root"), urls: [slowServer.url, goodServer.url]) { $0.networkLimits = limits }
        try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Pack"))
        try await expectInstalled(manager)
        #expect(slowServer.packRequests().isEmpty)

        // Alone, the dripping mirror fails the call with a timeout that says why.
        let alone = try repo.manager(root: repo.dir.file("alone"), urls: [slowServer.url]) {
            $0.networkLimits = limits
            $0.retryPolicy = .never
        }
        let error = await managerError { _ = try await alone.catalogPack(withID: "Pack") }
        guard case .transport(.timedOut(_, let why))? = error else { Issue.record("expected a timeout, got \(String(describing: error))"); return }
        #expect(why.contains("below the minimum average of 1024 bytes/s"))
    }

    @Test func aStalledPackDownloadFailsOverToTheNextMirror() async throws {
        let repo = try repository()
        // The slow mirror serves the catalog at once but drips pack bytes.
        let slowServer = try repo.serve { $0.bandwidthBytesPerSecond = 200 }
        let goodServer = try repo.serve()
        let manager = try repo.manager(root: repo.dir.file("root"), urls: [slowServer.url, goodServer.url]) {
            $0.networkLimits.stallTimeout = .seconds(1)
            $0.parallelDownloads = .init(parts: 1, minimumInstallSize: 0)
        }
        try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Pack"))
        try await expectInstalled(manager)
        #expect(!goodServer.packRequests().isEmpty)
    }

    @Test func aRedirectFromHTTPSToHTTPIsRefused() async throws {
        let repo = try repository()
        let target = try repo.serve()
        let certificate = try SelfSignedCertificate(in: repo.dir)
        let nginx = try NginxServer(root: repo.path, certificate: certificate,
                                    locations: "location /packs/ { return 302 http://127.0.0.1:\(target.port)$request_uri; }")
        defer { nginx.stop() }
        let root = StorageRoot(path: repo.dir.file("root"))
        let manager = try repo.manager(root: root.path, urls: [nginx.url("/")]) { $0.caFile = certificate.certificatePath }
        let error = await managerError { try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Pack")) }
        guard case .insecureRedirect(let from, let to)? = error else { Issue.record("expected insecureRedirect, got \(String(describing: error))"); return }
        #expect(from.hasPrefix("https://127.0.0.1:\(nginx.port)/packs/Pack/") && to.hasPrefix("http://127.0.0.1:\(target.port)/packs/Pack/"))
        #expect("\(error!)".contains(from) && "\(error!)".contains(to))
        #expect(target.requests().isEmpty)
        #expect(try root.store().installedPack("Pack") == nil)
    }

    @Test func redirectsThatStayOnHTTPSOrStartOnHTTPAreFollowed() async throws {
        let repo = try repository()
        let target = try repo.serve()
        let certificate = try SelfSignedCertificate(in: repo.dir)
        let secure = try NginxServer(root: repo.path, certificate: certificate, locations: """
            location /packs/ { return 302 /mirror$request_uri; }
            location /mirror/ { alias \(repo.path)/; }
            """)
        defer { secure.stop() }
        let https = try repo.manager(root: repo.dir.file("https"), urls: [secure.url("/")]) { $0.caFile = certificate.certificatePath }
        try await https.ensureLocalAvailability(of: https.catalogPack(withID: "Pack"))
        try await expectInstalled(https)
        // A repository configured with http may be redirected to http.
        let plain = try NginxServer(root: repo.path, locations: "location /packs/ { return 302 http://127.0.0.1:\(target.port)$request_uri; }")
        defer { plain.stop() }
        let http = try repo.manager(root: repo.dir.file("http"), urls: [plain.url("/")])
        try await http.ensureLocalAvailability(of: http.catalogPack(withID: "Pack"))
        try await expectInstalled(http)
    }

    @Test func aMirrorThatDropsMidPackHandsTheRestToTheNextWithoutStartingOver() async throws {
        let repo = try TestRepository()
        let content = patternBytes(3_000_000, seed: 23)
        try repo.put("Pack", files: ["big.bin": content])
        let pack = try repo.publish().packs[0]
        let flaky = try repo.serve { $0.dropAfterBytes = 700_000 }
        let good = try repo.serve()
        let manager = try repo.manager(root: repo.dir.file("root"), urls: [flaky.url, good.url]) { $0.parallelDownloads = .init(parts: 1, minimumInstallSize: 0) }
        try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Pack"))
        #expect(try manager.contents(at: "big.bin") == Data(content))
        let sources = try #require(await manager.sources(ofAssetPackWithID: "Pack"))
        func served(_ server: TestServer) -> UInt64 {
            sources.entries.filter { $0.kind == .mirror && $0.location?.hasPrefix(server.url) == true }.reduce(0) { $0 + $1.bytes }
        }
        // Both mirrors served part of the pack, and nothing was fetched twice: the second went on
        // where the first stopped.
        #expect(served(flaky) >= 600_000 && served(good) > 0, "\(sources.entries)")
        #expect(served(flaky) + served(good) == sources.fetchedBytes)
        #expect(sources.fetchedBytes <= pack.size, "\(sources.fetchedBytes) of \(pack.size)")
        #expect(good.packRequests().allSatisfy { $0.status == 206 }, "the next mirror was asked for ranges, not the whole pack")
    }
}
