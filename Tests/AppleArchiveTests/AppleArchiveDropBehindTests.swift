import AppleArchive
import AssetPackFormat
import Foundation
import Testing
import TestSupport

/// Extracting an archive writes a large file through the page cache rather than into it, as an
/// install does (`DropBehind`); a small file stays cached.
@Suite struct AppleArchiveDropBehindTests {
    @Test(.enabled(if: PageCacheResidency.canDrop(at: NSTemporaryDirectory())))
    func anExtractedLargeFileLeavesThePageCacheASmallOneStays() throws {
        let dir = try TemporaryDirectory("aar-drop-behind")
        let large = patternBytes(Int(DropBehind.threshold) * 5 / 2, seed: 41), small = patternBytes(1 << 20, seed: 42)
        let archive = dir.file("tree.aar")
        let writer = try AppleArchiveWriter(path: archive, compression: .none)
        try large.withUnsafeBytes { try writer.addFile("large.bin", mode: 0o644, contents: $0) }
        try small.withUnsafeBytes { try writer.addFile("small.bin", mode: 0o644, contents: $0) }
        try writer.finish()

        let summary = try AppleArchiveExtractor().extract(archiveAt: archive, to: dir.file("out"))
        #expect(summary.files == 2)
        #expect(try #require(PageCacheResidency(of: dir.file("out/large.bin"))).fraction(of: 0..<large.count) < 0.1,
                "the large file left the cache behind the writes")
        #expect(try #require(PageCacheResidency(of: dir.file("out/small.bin"))).fraction(of: 0..<small.count) > 0.9)
        #expect(readFile(dir.file("out/large.bin")) == large)
        #expect(readFile(dir.file("out/small.bin")) == small)
    }
}
