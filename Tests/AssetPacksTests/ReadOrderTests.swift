@testable import AssetPacks
import AssetPackFormat
import AssetPackPublishing
import Foundation
import TestRepositories
import TestSupport
import Testing

/// The read-order hint: `publish --read-order ID=FILE` records paths in the signed catalog, and a
/// fresh download fetches those files first.
@Suite struct ReadOrderTests {
    @Test func aDownloadFetchesTheHintedFilesFirst() async throws {
        let repo = try TestRepository("read-order")
        var files: [String: [UInt8]] = [:]
        for folder in ["a", "b", "c"] { for k in 0..<4 { files["\(folder)/\(k).bin"] = patternBytes(384 << 10, seed: 1400 + UInt64(files.count)) } }
        try repo.put("World", files: files)
        let report = try repo.publishReport { $0.readOrder = ["World": ["c/2.bin", "b"]] }
        let pack = try #require(report.catalog?.pack(withID: "World"))
        #expect(pack.readOrder == ["c/2.bin", "b"])
        let index = try ProgressiveAccessTests.index(repo, pack)
        let server = try repo.serve()
        let root = StorageRoot(path: repo.dir.file("root"))
        let manager = try repo.manager(root: root.path, server: server)
        try await manager.ensureLocalAvailability(of: try await manager.catalogPack(withID: "World"))
        for (path, bytes) in files { #expect(try root.installedFile("World", path) == bytes, "\(path)") }
        // After the index: c/2.bin's frames, then b/0…b/3's, then the rest.
        let requests = server.packRequests().filter { $0.bytes > pack.index.length }
        let hinted = try ["c/2.bin", "b/0.bin", "b/1.bin", "b/2.bin", "b/3.bin"].map { try ProgressiveAccessTests.chunkBytes(of: $0, in: index) }
        try #require(requests.count > hinted.count, "\(requests)")
        #expect(Array(requests.prefix(hinted.count).map(\.bytes)) == hinted, "\(requests)")
        // Hinted first costs little: at most a frame or two per hinted file again.
        let largest = index.chunks.map { UInt64($0.compressedSize) }.max() ?? 0
        let fetched = await manager.fetchedBytes
        #expect(fetched <= pack.size + UInt64(hinted.count) * 2 * largest, "fetched \(fetched) of a \(pack.size)-byte pack")
        #expect(root.stagingEntries.isEmpty)
    }

    @Test func aBadHintIsRefusedByPublishAndByReaders() async throws {
        let repo = try TestRepository("read-order-bad")
        try repo.put("World", files: ["a/0.bin": patternBytes(1000, seed: 1500)])
        for (hint, why) in [(["a/9.bin"], "neither a file nor a folder"), (["../a"], "a/0"), (["a", "a"], "twice")] {
            #expect {
                _ = try repo.publishReport { $0.readOrder = ["World": hint] }
            } throws: { error in
                "\(error)".contains(why == "a/0" ? "read order for World" : why)
            }
        }
        #expect(throws: PublishError.self) { _ = try repo.publishReport { $0.readOrder = ["Other": ["a"]] } }
        // A catalog whose hint escapes the pack's paths is malformed for every reader that checks it.
        var catalog = try repo.publish()
        #expect(catalog.problem == nil)
        catalog.packs[0].readOrder = ["../../etc"]
        #expect(catalog.problem?.contains("packs[0].readOrder[0]") == true)
        // The command line reads the hint from a file: a path a line, comments and blank lines skipped.
        try repo.dir.write("order.txt", Array("# first level first\n./a/0.bin\n\na/\n".utf8))
        try repo.dir.write("key.pem", try repo.key.pem())
        let bad = try await Assetpack.run(["publish", repo.manifestPaths[0], "--repo", "site", "--key", "key.pem", "--read-order", "World"], in: repo.dir.path)
        #expect(bad.status == 2 && bad.stderr.contains("ID=FILE"), "\(bad.stderr)")
        let ok = try await Assetpack.run(["publish", repo.manifestPaths[0], "--repo", "site", "--key", "key.pem", "--read-order", "World=order.txt"], in: repo.dir.path)
        #expect(ok.status == 0, "\(ok.stderr)")
        let published = try CatalogVerifier(publicKey: repo.key.publicKey).verify(try #require(repo.dir.contents("site/catalog.json")), now: Date())
        #expect(published.packs.first?.readOrder == ["a/0.bin", "a"])
    }
}
