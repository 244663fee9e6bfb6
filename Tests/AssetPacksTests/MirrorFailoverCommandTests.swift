import AssetPackFormat
@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// `assetpack install --repo EVIL --repo GOOD`: the command gets its packs from the good mirror
/// when the first one corrupts every pack byte or drips its catalog, and its limits are options.
@Suite struct MirrorFailoverCommandTests {
    func repository() throws -> TestRepository {
        let repo = try TestRepository()
        try repo.put("Base", policy: .essential(installationEventTypes: [.firstInstallation]),
                     files: ["base/data.bin": patternBytes(150_000, seed: 71)])
        try repo.publish()
        return repo
    }

    @Test func installSucceedsFromTheSecondMirrorWhenTheFirstCorruptsEveryChunk() async throws {
        let repo = try repository()
        let evil = try repo.serve { $0.corruptRate = 1 }
        let good = try repo.serve()
        let root = repo.dir.file("root")
        let install = try await Assetpack.run(["install", "--root", root, "--repo", evil.url, "--repo", good.url,
                                               "--public-key", repo.publicKey.text], in: repo.dir.path)
        #expect(install.status == 0, "\(install.stderr)")
        let ls = try await Assetpack.run(["ls", "--root", root], in: repo.dir.path)
        #expect(ls.status == 0 && ls.stdout.contains("base/data.bin"), "\(ls.stdout)")
        #expect(!good.packRequests().isEmpty)
    }

    @Test func installSucceedsFromTheSecondMirrorWhenTheFirstDripsItsCatalog() async throws {
        let repo = try repository()
        let slow = try repo.serve { $0.bandwidthBytesPerSecond = 2; $0.includeCatalog = true }
        let good = try repo.serve()
        let install = try await Assetpack.run(["install", "--root", repo.dir.file("root"), "--repo", slow.url, "--repo", good.url,
                                               "--public-key", repo.publicKey.text, "--fetch-deadline", "30", "--min-rate", "1KiB"],
                                              in: repo.dir.path)
        #expect(install.status == 0, "\(install.stderr)")
        #expect(slow.packRequests().isEmpty)
    }

    @Test func limitsOutOfRangeAreUsageErrors() async throws {
        let scratch = try TemporaryDirectory("cli")
        for arguments in [["--fetch-deadline", "0"], ["--stall-timeout", "5000"], ["--min-rate", "2GiB"]] {
            let result = try await Assetpack.run(["install", "--root", scratch.file("root"), "--repo", "http://127.0.0.1:1/",
                                                  "--public-key", "ed25519:8ogjuvnAdbFHmAn/v5561qrfDSsZd3GzwYoM7fx33TE="] + arguments, in: scratch.path)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(arguments[0]), "\(result.stderr)")
        }
    }
}
