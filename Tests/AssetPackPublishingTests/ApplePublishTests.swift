import AppleArchive
import AssetPackFormat
@testable import AssetPackPublishing
import Foundation
import TestRepositories
import TestSupport
import Testing

/// `publish --apple-base-url`: the channel's apple/ folder, its download manifests and archives.
@Suite struct ApplePublishTests {
    static let base = "https://cdn.example.com/packs/assets"

    /// Three packs: one per policy kind, on different platforms, one with userInfo.
    static func threePacks() throws -> TestRepository {
        let repo = try workspace()
        try repo.put("alpha", policy: .essential(installationEventTypes: [.firstInstallation, .subsequentUpdate]), userInfo: ["level": 3, "name": "intro"],
                     platforms: [.iOS], files: ["a.bin": textBytes(70_000, seed: 1), "sub/b.txt": Array("hello".utf8)])
        try repo.put("beta", policy: .prefetch(installationEventTypes: [.firstInstallation]), platforms: [.macOS],
                     files: ["b.bin": patternBytes(5000, seed: 2)])
        try repo.put("gamma", policy: .onDemand, platforms: [.iOS, .macOS, .tvOS, .visionOS], files: ["g.bin": patternBytes(3000, seed: 3)])
        return repo
    }

    static func publish(_ repo: TestRepository, _ configure: (inout PublishOptions) -> Void = { _ in }) throws -> PublishReport {
        try repo.publishReport(now: publishedAt) { o in
            o.appleBaseURL = base + "/"
            configure(&o)
        }
    }

    static func json(_ repo: TestRepository, _ path: String) throws -> [[String: Any]] {
        let bytes = try #require(repo.contents(path), "\(path) missing")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        return try #require(object["assetPacks"] as? [[String: Any]])
    }

    static func size(_ repo: TestRepository, _ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: repo.path + "/" + path)[.size] as? Int)
    }

    static func inode(_ repo: TestRepository, _ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: repo.path + "/" + path)[.systemFileNumber] as? Int)
    }

    @Test func writesTheDownloadManifestInBaPackagesShape() throws {
        let repo = try Self.threePacks()
        let report = try Self.publish(repo)
        let catalog = try #require(report.catalog)
        let packs = try Self.json(repo, "apple/manifest.json")
        #expect(packs.map { $0["id"] as? String } == ["alpha", "beta", "gamma"])
        for entry in packs {
            let id = try #require(entry["id"] as? String)
            #expect(Set(entry.keys) == Set(["id", "url", "version", "downloadSize", "downloadPolicy", "host"] + (id == "alpha" ? ["userInfo"] : [])))
            #expect(entry["url"] as? String == "\(Self.base)/\(id)")
            #expect(entry["version"] as? Int == catalog.pack(withID: id)?.version)
            #expect(entry["downloadSize"] as? Int == (try Self.size(repo, "apple/assets/\(id)")))
            #expect((entry["host"] as? [String: Any]).map { NSDictionary(dictionary: $0) } == NSDictionary(dictionary: ["thirdParty": [String: Any]()]))
        }
        let policies = packs.map { NSDictionary(dictionary: $0["downloadPolicy"] as? [String: Any] ?? [:]) }
        #expect(policies[0] == NSDictionary(dictionary: ["essential": ["installationEventTypes": ["firstInstallation", "subsequentUpdate"]]]))
        #expect(policies[1] == NSDictionary(dictionary: ["prefetch": ["installationEventTypes": ["firstInstallation"]]]))
        #expect(policies[2] == NSDictionary(dictionary: ["onDemand": [String: Any]()]))
        #expect(NSDictionary(dictionary: packs[0]["userInfo"] as? [String: Any] ?? [:]) == NSDictionary(dictionary: ["level": 3, "name": "intro"]))
        // Byte for byte: ba-package's key order, one pack a line.
        let text = String(decoding: try #require(repo.contents("apple/manifest.json")), as: UTF8.self)
        let gammaSize = try Self.size(repo, "apple/assets/gamma")
        #expect(text.hasPrefix("{\"assetPacks\":[\n{\"id\":\"alpha\","))
        #expect(text.hasSuffix(",\n{\"id\":\"gamma\",\"url\":\"\(Self.base)/gamma\",\"version\":1,\"downloadSize\":\(gammaSize),\"downloadPolicy\":{\"onDemand\":{}},\"host\":{\"thirdParty\":{}}}\n]}\n"))
        // Per platform: the packs naming it.
        #expect(try Self.json(repo, "apple/manifests/ios.json").map { $0["id"] as? String } == ["alpha", "gamma"])
        #expect(try Self.json(repo, "apple/manifests/macos.json").map { $0["id"] as? String } == ["beta", "gamma"])
        #expect(try Self.json(repo, "apple/manifests/tvos.json").map { $0["id"] as? String } == ["gamma"])
        #expect(repo.contents("apple/manifests/visionos.json").map { String(decoding: $0, as: UTF8.self) }?.contains("\"gamma\"") == true)
        #expect(report.apple?.archives.map(\.written) == [true, true, true])
    }

    @Test(arguments: [(AppleArchiveCompression.lzfse, "pbze"), (.zlib, "pbzz")])
    func archivesHoldThePacksFilesUnderContents(codec: AppleArchiveCompression, container: String) throws {
        let repo = try Self.threePacks()
        _ = try Self.publish(repo) { $0.appleCompression = codec }
        let out = repo.dir.file("extracted")
        _ = try AppleArchiveExtractor(threads: 2).extract(archiveAt: repo.path + "/apple/assets/alpha", to: out)
        let same = repo.dir.contents("extracted/Contents/a.bin") == textBytes(70_000, seed: 1)
        #expect(same)
        #expect(repo.dir.contents("extracted/Contents/sub/b.txt") == Array("hello".utf8))
        // An independent reader (Python's zlib, the reference LZFSE decoder) agrees.
        let listing = try AppleArchiveOracle.read(repo.path + "/apple/assets/alpha")
        #expect(listing.container == container)
        #expect(listing.chunks?.allSatisfy { $0.stored < $0.raw } == true, "the text compresses: the codec ran")
        #expect(listing.entries.filter { $0.type == "F" }.map(\.path) == ["Contents/a.bin", "Contents/sub/b.txt"])
    }

    @Test func aSecondPublishRewritesOnlyTheChangedArchive() throws {
        let repo = try Self.threePacks()
        _ = try Self.publish(repo)
        let alphaInode = try Self.inode(repo, "apple/assets/alpha")
        let before = repo.snapshot().filter { $0.key.hasPrefix("apple/") }
        // Nothing changed: every archive and manifest stays as it was.
        let same = try Self.publish(repo)
        #expect(same.apple?.archives.map(\.written) == [false, false, false])
        #expect(repo.snapshot().filter { $0.key.hasPrefix("apple/") } == before)
        #expect(try Self.inode(repo, "apple/assets/alpha") == alphaInode)
        // beta changes: only its archive is written, only its version grows.
        try repo.put("beta", policy: .prefetch(installationEventTypes: [.firstInstallation]), platforms: [.macOS],
                     files: ["b.bin": patternBytes(9000, seed: 9)])
        let changed = try Self.publish(repo)
        #expect(changed.apple?.archives.map(\.written) == [false, true, false])
        #expect(try Self.inode(repo, "apple/assets/alpha") == alphaInode)
        let packs = try Self.json(repo, "apple/manifest.json")
        #expect(packs.map { $0["version"] as? Int } == [1, 2, 1])
        #expect(packs[1]["downloadSize"] as? Int == (try Self.size(repo, "apple/assets/beta")))
        #expect(repo.contents("apple/assets/beta") != before["apple/assets/beta"])
        // Without the cache, an archive made again as it was keeps the file in place.
        let refreshed = try Self.publish(repo) { $0.cacheUse = .refresh }
        #expect(refreshed.apple?.archives.map(\.written) == [false, false, false])
        #expect(try Self.inode(repo, "apple/assets/alpha") == alphaInode)
    }

    @Test func aRemovedPackLeavesApple() throws {
        let repo = try Self.threePacks()
        _ = try Self.publish(repo)
        repo.drop("gamma")
        let report = try Self.publish(repo)
        #expect(report.apple?.removed == ["gamma"])
        #expect(repo.contents("apple/assets/gamma") == nil)
        #expect(try Self.json(repo, "apple/manifest.json").map { $0["id"] as? String } == ["alpha", "beta"])
        #expect(try Self.json(repo, "apple/manifests/tvos.json").isEmpty)
    }

    @Test func aFailedPublishLeavesAppleAsItWas() throws {
        let repo = try Self.threePacks()
        _ = try Self.publish(repo)
        let before = repo.snapshot()
        try repo.put("beta", platforms: [.macOS], files: ["b.bin": patternBytes(100, seed: 7)])
        repo.drop("gamma")
        struct Stop: Error {}
        #expect(throws: Stop.self) { try Self.publish(repo) { $0.beforeCatalogCommit = { throw Stop() } } }
        #expect(repo.snapshot() == before)
    }

    @Test func aPlantedLinkIsNeverWrittenThrough() throws {
        let repo = try Self.threePacks()
        _ = try Self.publish(repo)
        let outside = repo.dir.file("outside")
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try FileManager.default.removeItem(atPath: repo.path + "/apple/assets")
        try FileManager.default.createSymbolicLink(atPath: repo.path + "/apple/assets", withDestinationPath: outside)
        #expect(throws: PublishError.self) { try Self.publish(repo) { $0.cacheUse = .refresh } }
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside).isEmpty)
        // A link in an archive's place is moved aside, not followed.
        try FileManager.default.removeItem(atPath: repo.path + "/apple/assets")
        try FileManager.default.createDirectory(atPath: repo.path + "/apple/assets", withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: repo.path + "/apple/assets/alpha", withDestinationPath: outside + "/victim")
        _ = try Self.publish(repo)
        #expect(!FileManager.default.fileExists(atPath: outside + "/victim"))
        #expect(try FileManager.default.attributesOfItem(atPath: repo.path + "/apple/assets/alpha")[.type] as? FileAttributeType == .typeRegular)
    }

    @Test func channelsHaveTheirOwnAppleFolder() throws {
        let repo = try Self.threePacks()
        _ = try Self.publish(repo) { $0.channel = "beta" }
        #expect(try Self.json(repo, "channels/beta/apple/manifest.json").count == 3)
        #expect(repo.contents("apple/manifest.json") == nil)
        // A publish without the option warns that the Apple manifest stays behind.
        let plain = try repo.publishReport(now: publishedAt) { $0.channel = "beta" }
        #expect(plain.appleWarnings.count == 1)
        #expect(plain.apple == nil)
    }

    @Test func sealedPacksGetNoArchive() throws {
        let repo = try Self.threePacks()
        _ = try Self.publish(repo)
        let report = try Self.publish(repo) { $0.encrypt = ["beta"]; $0.keyStorePath = repo.dir.file("keys.json") }
        #expect(report.apple?.leftOut == ["beta"])
        #expect(report.apple?.removed == ["beta"])
        #expect(repo.contents("apple/assets/beta") == nil)
        #expect(try Self.json(repo, "apple/manifest.json").map { $0["id"] as? String } == ["alpha", "gamma"])
    }

    @Test func appleLimitsApply() throws {
        let repo = try workspace()
        for k in 0...AppleLimits.packCount { try repo.put("p\(k)", files: ["f\(k)": [UInt8(k & 0xFF)]]) }
        #expect(throws: PublishError.self) { try Self.publish(repo) { $0.checkOnly = true } }
        _ = try repo.publishReport(now: publishedAt) { $0.checkOnly = true }
    }

    @Test func refusesBadBaseURLsAndRollouts() throws {
        let repo = try Self.threePacks()
        for bad in ["ftp://host/x", "https://host/x?y=1", "https://host/x#f", "https://user:pw@host/x", "/local/path", "https:///x", "https://host/a b"] {
            #expect(throws: PublishError.self, "\(bad)") { try repo.publishReport(now: publishedAt) { $0.appleBaseURL = bad } }
        }
        #expect(repo.contents("catalog.json") == nil)
        try repo.publish()
        #expect(throws: PublishError.self) { try Self.publish(repo) { $0.rolloutPercent = 10 } }
        #expect(AppleBaseURL.checked("http://127.0.0.1:8080/assets/") == .success("http://127.0.0.1:8080/assets"))
    }
}
