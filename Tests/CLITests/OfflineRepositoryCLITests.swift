import Foundation
import TestRepositories
import TestSupport
import Testing

/// `--repo DIR`: a repository folder (a copy on a USB stick) given by its path, remembered by the
/// root as a file:// URL.
@Suite struct OfflineRepositoryCLITests {
    @Test func installsFromARepositoryFolderAndTheRootRemembersIt() async throws {
        let repo = try TestRepository("offline-cli")
        try repo.put("Levels", files: ["level1.json": textBytes(200_000, seed: 61)])
        try repo.publish()
        let stick = repo.dir.file("stick")
        try FileManager.default.copyItem(atPath: repo.path, toPath: stick)
        let root = repo.dir.file("root")
        // A relative folder path, from the folder above it.
        let ensure = try await Assetpack.run(["ensure", "Levels", "--root", root, "--repo", "stick", "--public-key", repo.publicKey.text],
                                             in: repo.dir.path)
        #expect(ensure.status == 0, "\(ensure.stderr)")
        let cat = try await Assetpack.run(["cat", "level1.json", "--root", root])
        #expect(cat.status == 0 && Array(cat.stdout.utf8) == textBytes(200_000, seed: 61))
        // Remembered: a later command needs no --repo. With the stick removed the installed pack
        // stays usable (the root is offline, as with a server out of reach).
        let status = try await Assetpack.run(["ensure", "Levels", "--latest", "--root", root])
        #expect(status.status == 0, "\(status.stderr)")
        try FileManager.default.moveItem(atPath: stick, toPath: repo.dir.file("stick-gone"))
        let gone = try await Assetpack.run(["ensure", "Levels", "--latest", "--root", root])
        #expect(gone.status == 0, "\(gone.stderr)")
        #expect(try await Assetpack.run(["cat", "level1.json", "--root", root]).stdout.utf8.count == 200_000)
        // A folder that is not a repository: the error names the catalog it looked for.
        let empty = repo.dir.file("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let missing = try await Assetpack.run(["ensure", "Levels", "--root", repo.dir.file("root2"), "--repo", empty,
                                               "--public-key", repo.publicKey.text])
        #expect(missing.status != 0 && missing.stderr.contains("catalog.json"), "\(missing.stderr)")
    }
}
