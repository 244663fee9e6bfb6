@testable import AssetPackFormat
@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// An install writes a large file through the page cache rather than into it: each stretch is
/// dropped once written back, whichever of the parts assembling side by side wrote it, so an
/// install of many GiB does not fill the cache. A small file stays cached for the app's reads.
@Suite struct DropBehindInstallTests {
    @Test(.enabled(if: PageCacheResidency.canDrop(at: NSTemporaryDirectory())))
    func anInstalledLargeFileLeavesThePageCacheASmallOneStays() async throws {
        let large = patternBytes(Int(DropBehind.threshold) * 5 / 2, seed: 31), small = patternBytes(1 << 20, seed: 32)
        let repo = try TestRepository()
        try repo.put("Pack", files: ["data/large.bin": large, "data/small.bin": small])
        try repo.publish()
        let server = try repo.serve()
        let root = StorageRoot(path: repo.dir.file("root"))
        try await repo.install("Pack", root: root.path, server: server)

        let installed = try #require(try root.installedDirectory("Pack"))
        let largeCache = try #require(PageCacheResidency(of: installed + "/data/large.bin"))
        let smallCache = try #require(PageCacheResidency(of: installed + "/data/small.bin"))
        #expect(largeCache.fraction(of: 0..<large.count) < 0.1, "the large file left the cache behind the writes")
        #expect(smallCache.fraction(of: 0..<small.count) > 0.9, "a small file stays cached")
        #expect(try root.installedFile("Pack", "data/large.bin") == large)
        #expect(try root.installedFile("Pack", "data/small.bin") == small)
    }
}
