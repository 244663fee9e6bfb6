@testable import AssetPackFormat
@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// An install writes a large file through the page cache rather than into it: each stretch is
/// dropped once written back, whichever of the parts assembling side by side wrote it, so an
/// install of many GiB does not fill the cache. A small file stays cached for the app's reads.
/// A pass that reads an installed copy through once (an update's previous version) drops what it
/// read of a large file; any other reader of installed files leaves the cache as it is.
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

    @Test(.enabled(if: PageCacheResidency.canDrop(at: NSTemporaryDirectory())))
    func aReadingPassDropsWhatItReadOfALargeFileOnlyWhenAskedTo() throws {
        let dir = try TemporaryDirectory("drop-behind-read")
        let size = Int(DropBehind.threshold) * 5 / 2, small = 1 << 20
        let large = try dir.write("copy/large.bin", patternBytes(size, seed: 33))
        let smallFile = try dir.write("copy/small.bin", patternBytes(small, seed: 34))
        let index = PackIndex(metadata: PackMetadata(assetPackID: "P", downloadPolicy: .onDemand, platforms: [.iOS], language: nil),
                              chunking: .default, chunks: [], sequence: [],
                              files: [FileEntry(path: "large.bin", mode: 0o644, size: UInt64(size)),
                                      FileEntry(path: "small.bin", mode: 0o644, size: UInt64(small))])
        let copy = try ConfinedDirectory(root: dir.file("copy"))
        /// Reads the whole stream in 300,000-byte pieces (not aligned to pages or folios), after
        /// flushing the files so that all their cached pages are clean and cached.
        func pass(_ reader: ContentStreamReader) throws -> (large: Double, small: Double) {
            for path in [large, smallFile] {
                let fd = open(path, O_RDONLY)
                #expect(fd >= 0 && fsync(fd) == 0)
                close(fd)
                _ = FileManager.default.contents(atPath: path)
            }
            #expect(try #require(PageCacheResidency(of: large)).fraction(of: 0..<size) > 0.9)
            var offset: UInt64 = 0
            let total = UInt64(size + small)
            while offset < total {
                let n = Int(min(300_000, total - offset))
                #expect(reader.read(offset: offset, length: n) != nil)
                offset += UInt64(n)
            }
            return (try #require(PageCacheResidency(of: large)).fraction(of: 0..<size),
                    try #require(PageCacheResidency(of: smallFile)).fraction(of: 0..<small))
        }
        let kept = try pass(ContentStreamReader(index: index, directory: copy))
        #expect(kept.large > 0.9 && kept.small > 0.9, "a reader that serves chunks again keeps the cache")
        let dropped = try pass(ContentStreamReader(index: index, directory: copy, dropsBehind: true))
        #expect(dropped.large < 0.1, "a reading pass drops what it read of a large file")
        #expect(dropped.small > 0.9, "and leaves a small file cached")
    }
}
