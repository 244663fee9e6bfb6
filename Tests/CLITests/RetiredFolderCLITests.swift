import Foundation
import TestRepositories
import TestSupport
import Testing

/// What the `assetpack` command does with the folders it retires: an update returns at its
/// commit and a detached `assetpack delete-retired` frees the old version's space behind it;
/// `remove` returns once the space is free; `delete-retired` itself deletes what is in
/// `retired/` without following a link planted there, and is not listed in the help.
@Suite struct RetiredFolderCLITests {
    struct Workspace {
        let dir: TemporaryDirectory
        init() async throws {
            dir = try TemporaryDirectory("cli-retired")
            try dir.write("Manifests/Levels.json", Array(#"{"assetPackID": "Levels", "downloadPolicy": {"onDemand": {}}, "fileSelectors": [{"directory": "levels"}], "platforms": ["iOS"]}"#.utf8))
            _ = try await run(["keygen", "-o", "signing.pem"])
        }
        @discardableResult
        func run(_ arguments: [String]) async throws -> ProcessResult {
            let result = try await Assetpack.run(arguments, in: dir.path)
            #expect(result.status == 0, "assetpack \(arguments.joined(separator: " ")): \(result.stderr)")
            return result
        }
        func publish(seed: UInt64) async throws {
            try dir.write("levels/world.bin", patternBytes(3_000_000, seed: seed))
            try await run(["publish", "Manifests/Levels.json", "--repo", "site", "--key", "signing.pem"])
        }
        func folders(_ relative: String) -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: dir.file(relative))) ?? []).sorted()
        }
    }

    @Test func anUpdateReturnsAtCommitAndTheOldVersionIsDeletedBehindIt() async throws {
        let w = try await Workspace()
        try await w.publish(seed: 1)
        try await w.run(["install", "--root", "root", "--repo", "site", "--public-key", "signing.pem.pub"])
        try await w.run(["ensure", "--root", "root", "Levels"])
        let v1 = w.folders("root/packs/Levels")
        try await w.publish(seed: 2)
        try await w.run(["update", "--root", "root"])

        // At return the new version is in place and the old one has left packs/.
        let now = w.folders("root/packs/Levels")
        #expect(now.count == 1 && now != v1, "\(now)")
        #expect(w.dir.contents("root/packs/Levels/\(now[0])/levels/world.bin") == patternBytes(3_000_000, seed: 2))
        // No manager runs on the root any more; the detached deleter empties retired/.
        try await waitUntil("the superseded version is deleted") { w.folders("root/retired").isEmpty }
        #expect(try await w.run(["status", "--root", "root", "Levels"]).stdout.contains("v2"))
    }

    @Test func removeReturnsOnceTheSpaceIsFree() async throws {
        let w = try await Workspace()
        try await w.publish(seed: 3)
        try await w.run(["install", "--root", "root", "--repo", "site", "--public-key", "signing.pem.pub"])
        try await w.run(["ensure", "--root", "root", "Levels"])
        try await w.run(["remove", "--root", "root", "Levels"])
        #expect(w.folders("root/packs/Levels").isEmpty)
        #expect(w.folders("root/retired").isEmpty)
    }

    @Test func deleteRetiredDeletesWhatIsThereAndFollowsNoLink() async throws {
        let w = try await Workspace()
        try w.dir.write("root/retired/left-behind/deep/file.bin", patternBytes(10_000, seed: 5))
        try w.dir.write("outside/keep.bin", patternBytes(1_000, seed: 6))
        try FileManager.default.createSymbolicLink(atPath: w.dir.file("root/retired/planted"), withDestinationPath: w.dir.file("outside"))
        try await w.run(["delete-retired", "--root", "root"])
        #expect(w.folders("root/retired").isEmpty)
        #expect(w.dir.contents("outside/keep.bin") == patternBytes(1_000, seed: 6))

        let missing = try await Assetpack.run(["delete-retired", "--root", "no-such-root"], in: w.dir.path)
        #expect(missing.status != 0 && missing.stderr.contains("no-such-root"), "\(missing.stderr)")
        #expect(!(try await w.run(["--help"])).stdout.contains("delete-retired"))
    }
}
