@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// A superseded version and a removed pack leave `packs/` at once (one rename into `retired/`)
/// and are deleted in the background; what a process left there is deleted by the next manager;
/// a link planted there is removed, never followed.
@Suite struct RetiredFoldersTests {
    private func retired(_ root: StorageRoot) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: root.layout.absolute(root.layout.retiredFolder))) ?? []).sorted()
    }

    @Test func anUpdateAndARemovalRetireTheirFoldersAndTheyAreDeleted() async throws {
        let repo = try TestRepository()
        try repo.put("Maps", files: ["maps/a.bin": patternBytes(300_000, seed: 1), "maps/b.txt": text("b v1\n", repeating: 50)])
        try repo.publish()
        let server = try repo.serve()
        let root = StorageRoot(path: repo.dir.file("root"))
        try await repo.install("Maps", root: root.path, server: server)
        let v1 = root.installedVersions("Maps")
        #expect(v1.count == 1)

        try repo.put("Maps", files: ["maps/a.bin": patternBytes(300_000, seed: 2), "maps/b.txt": text("b v2\n", repeating: 50)])
        try repo.publish()
        let second = try repo.manager(root: root.path, server: server)
        try await second.ensureLocalAvailability(of: second.catalogPack(withID: "Maps"), requireLatestVersion: true)
        // Only the new version is in packs/ when the update returns, whatever the deletion's pace.
        let v2 = root.installedVersions("Maps")
        #expect(v2.count == 1 && v2 != v1, "\(v2)")
        #expect(try second.contents(at: "maps/b.txt") == Data(text("b v2\n", repeating: 50)))
        AssetPackManager.waitUntilRetiredFoldersAreDeleted()
        #expect(retired(root).isEmpty)

        try await second.remove(assetPackWithID: "Maps")
        #expect(root.installedVersions("Maps").isEmpty)
        AssetPackManager.waitUntilRetiredFoldersAreDeleted()
        #expect(retired(root).isEmpty)
        #expect(root.bytesBelow("") < 200_000, "the pack's bytes are gone from the root")
    }

    @Test func whatAnEarlierProcessLeftIsDeletedAndALinkThereIsNotFollowed() async throws {
        let repo = try TestRepository()
        try repo.put("Maps", files: ["maps/a.txt": text("a\n")])
        try repo.publish()
        let server = try repo.serve()
        let root = StorageRoot(path: repo.dir.file("root"))
        _ = try repo.manager(root: root.path, server: server)
        // Left by a process that exited before its deletion was done: a folder with files, and a
        // link an attacker planted towards a folder outside the root.
        let retiredFolder = root.layout.absolute(root.layout.retiredFolder)
        try repo.dir.write("root/retired/left-behind/deep/file.bin", patternBytes(10_000, seed: 4))
        try repo.dir.write("outside/keep.txt", "keep\n")
        try FileManager.default.createSymbolicLink(atPath: retiredFolder + "/planted", withDestinationPath: repo.dir.file("outside"))
        #expect(retired(root) == ["left-behind", "planted"])

        _ = try repo.manager(root: root.path, server: server)
        AssetPackManager.waitUntilRetiredFoldersAreDeleted()
        #expect(retired(root).isEmpty)
        #expect(repo.dir.text("outside/keep.txt") == "keep\n", "the link was removed, not followed")
    }
}
