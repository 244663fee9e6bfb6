import AssetPackFormat
import AssetPackPackaging
import Foundation
import TestSupport
import Testing

/// A large file streams through the page cache rather than staying in it: packaging reads a large
/// source once, in order, and lets its pages go behind the read, the pack it writes leaves the
/// cache behind the write once written back, and so does a large file extracted from the pack.
/// A file below `DropBehind.threshold` stays cached.
@Suite struct DropBehindTests {
    static let metadata = PackMetadata(assetPackID: "Large", downloadPolicy: .onDemand, platforms: [.iOS], language: nil)
    static let large = Int(DropBehind.threshold) * 5 / 2

    /// `bytes` written to `name` in `dir` and flushed, so that its cached pages are clean (the
    /// only ones the kernel drops) and all of them cached.
    func flushedFile(_ name: String, _ bytes: [UInt8], in dir: TemporaryDirectory) throws -> String {
        let path = try dir.write(name, bytes)
        let fd = open(path, O_RDONLY)
        #expect(fd >= 0 && fsync(fd) == 0)
        close(fd)
        return path
    }

    @Test(.enabled(if: PageCacheResidency.canDrop(at: NSTemporaryDirectory())))
    func packagingALargeFileLeavesNeitherItNorThePackInThePageCache() throws {
        let dir = try TemporaryDirectory("drop-behind")
        let bytes = patternBytes(Self.large, seed: 7), small = patternBytes(1 << 20, seed: 8)
        let source = try flushedFile("source/large.bin", bytes, in: dir)
        let smallSource = try flushedFile("source/small.bin", small, in: dir)
        #expect(try #require(PageCacheResidency(of: source)).fraction(of: 0..<bytes.count) > 0.9, "a file just written is cached")

        let files = [SelectedFile(packPath: "large.bin", sourcePath: source, size: UInt64(bytes.count), mode: 0o644),
                     SelectedFile(packPath: "small.bin", sourcePath: smallSource, size: UInt64(small.count), mode: 0o644)]
        let packPath = dir.file("out.pack")
        _ = try PackWriter().write(metadata: Self.metadata, files: files, to: packPath)

        #expect(try #require(PageCacheResidency(of: source)).fraction(of: 0..<bytes.count) < 0.1, "the large source left the cache behind the read")
        #expect(try #require(PageCacheResidency(of: smallSource)).fraction(of: 0..<small.count) > 0.9, "a small source stays cached")
        // The pack was dropped as it was written back, its last stretch by the commit.
        let packSize = Int(try #require(try FileManager.default.attributesOfItem(atPath: packPath)[.size] as? Int))
        #expect(packSize > bytes.count)
        #expect(try #require(PageCacheResidency(of: packPath)).fraction(of: 0..<packSize) < 0.1, "the pack left the cache behind the write")
        // Extracting it writes the large file through the cache too, and keeps the small one.
        try PackExtractor(reader: PackReader(path: packPath)).extract(to: dir.file("out"))
        #expect(try #require(PageCacheResidency(of: dir.file("out/large.bin"))).fraction(of: 0..<bytes.count) < 0.1,
                "the extracted large file left the cache behind the writes")
        #expect(try #require(PageCacheResidency(of: dir.file("out/small.bin"))).fraction(of: 0..<small.count) > 0.9)
        // And the pack and the extracted tree hold the bytes.
        let reader = try PackReader(path: packPath)
        #expect(try reader.contents(of: "large.bin") == bytes)
        #expect(try reader.contents(of: "small.bin") == small)
        #expect(readFile(dir.file("out/large.bin")) == bytes)
    }
}
