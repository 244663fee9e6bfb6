import AssetPackFormat
@testable import AssetPackPublishing
import Foundation
import TestRepositories
import TestSupport
import Testing

/// `publish` makes patch files from the kept earlier versions of each changed pack, lists them
/// in the signed catalog, and retires and deletes them with the version they lead to.
@Suite struct PatchPublishTests {
    /// A 2 MiB database-like file and 12 small JSON files; `edit` rewrites scattered 16-byte records.
    func content(edit: Int) -> [String: [UInt8]] {
        var db = patternBytes(2 << 20, seed: 5)
        for k in 0..<edit * 6 { db.replaceSubrange(k * 300_001 % (db.count - 16)..<k * 300_001 % (db.count - 16) + 16, with: patternBytes(16, seed: UInt64(100 * edit + k))) }
        var files = ["db.bin": db]
        for i in 0..<12 { files["j\(i).json"] = textBytes(500 + i * 40, seed: UInt64(i + (i < edit * 3 ? 50 * edit : 0))) }
        return files
    }

    @Test func anUpdateGetsAPatchFromTheKeptVersionThatIsFarSmallerThanItsFrames() throws {
        let repo = try workspace()
        try repo.put("Alpha", files: content(edit: 0))
        let first = try repo.publishReport(now: publishedAt)
        #expect(first.patchFiles.isEmpty && first.updates.isEmpty && first.patchNote == nil)
        try repo.put("Alpha", files: content(edit: 1))
        let report = try repo.publishReport(now: publishedAt)
        let catalog = try repo.catalog()
        let pack = try #require(catalog.pack(withID: "Alpha"))
        let v1 = try #require(catalog.retired.first { $0.version == 1 })
        let patch = try #require(pack.patches?.first)
        #expect(pack.patches?.count == 1 && patch.fromVersion == 1 && report.patchFiles == [patch.path])
        #expect(patch.from == (try PackReader(path: "\(repo.path)/\(v1.path)")).digest)
        #expect(patch.path == "packs/Alpha/\(SHA256Digest.hash(try #require(repo.contents(patch.path))).hex).patch")
        let update = try #require(report.updates.first)
        #expect(report.updates.count == 1 && update.fromVersion == 1 && update.toVersion == 2)
        #expect(update.patchedChunks > 0 && update.patchBytes * 20 < update.withoutPatchesBytes)
        #expect(update.downloadBytes < update.indexBytes + update.withoutPatchesBytes)
        // The same figures from the repository as it stands.
        #expect(try RepositoryUpdates.sizes(repository: repo.path, catalog: catalog) == report.updates)
    }

    @Test func keepOneMakesNoPatchesAndSaysSo() throws {
        let repo = try workspace()
        try repo.put("Alpha", files: content(edit: 0))
        try repo.publishReport(now: publishedAt) { $0.keep = 1 }
        try repo.put("Alpha", files: content(edit: 1))
        let report = try repo.publishReport(now: publishedAt) { $0.keep = 1 }
        #expect(report.patchFiles.isEmpty && report.patchNote == "no patches: --keep 1 keeps no earlier version to patch from")
        #expect(try repo.catalog().pack(withID: "Alpha")?.patches == nil)
        #expect(!repo.snapshot().keys.contains { $0.hasSuffix(".patch") })
    }

    @Test func patchFilesAreRetiredAndDeletedWithTheVersionTheyLeadTo() throws {
        let repo = try workspace()
        var paths: [String] = []
        for edit in 0..<5 {
            try repo.put("Alpha", files: content(edit: edit))
            let report = try repo.publishReport(now: publishedAt) { $0.keep = 3 }
            paths += report.patchFiles
            if edit >= 2 { #expect(report.patchFiles.count == 2) }
        }
        let catalog = try repo.catalog()
        // v5 has patches from v4 and v3; v4's and v3's are retired with them; v2's went with v2.
        #expect(catalog.pack(withID: "Alpha")?.patches?.map(\.fromVersion) == [4, 3])
        #expect(Set(catalog.retired.map(\.version)) == [3, 4])
        #expect(catalog.retired.filter { $0.path.hasSuffix(".patch") }.map(\.version) == [3, 3, 4, 4])
        let onDisk = Set(repo.snapshot().keys.filter { $0.hasSuffix(".patch") })
        let listed = Set((catalog.pack(withID: "Alpha")?.patches ?? []).map(\.path) + catalog.retired.map(\.path).filter { $0.hasSuffix(".patch") })
        #expect(onDisk == listed && listed.count == 6 && paths.count == 7)
    }

    @Test func aCatalogWithAPatchThatLeavesTheRepositoryOrItsFileIsMalformed() throws {
        let repo = try workspace()
        try repo.put("Alpha", files: content(edit: 0))
        try repo.publish(now: publishedAt)
        try repo.put("Alpha", files: content(edit: 1))
        let good = try repo.publish(now: publishedAt)
        let patch = try #require(good.packs[0].patches?.first)
        func check(_ change: (inout CatalogPatch) -> Void, _ message: String) throws {
            var catalog = good
            change(&catalog.packs[0].patches![0])
            let bytes = CatalogCoding.encode(catalog)
            #expect { try CatalogCoding.decode(bytes) } throws: { "\($0)".contains(message) }
        }
        try check({ $0.path = "../x.patch" }, "packs[0].patches[0].path: \"../x.patch\" has an empty, '.' or '..' segment")
        try check({ $0.table.length += 1 }, "packs[0].patches[0].table: range")
        try check({ $0.table.offset = 3 }, "packs[0].patches[0].table: range")
        try check({ $0.from = good.packs[0].digest }, "packs[0].patches[0].from: is the pack's own digest")
        try check({ $0.fromVersion = 2 }, "packs[0].patches[0].fromVersion")
        #expect(patch.size == patch.table.offset + patch.table.length)
    }
}
