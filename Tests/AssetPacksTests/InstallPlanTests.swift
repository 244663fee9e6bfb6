import AssetPackFormat
@testable import AssetPacks
import Testing

/// `InstallPlan` on its own: where each chunk of a new version comes from, and which byte ranges
/// of the pack file are fetched.
@Suite struct InstallPlanTests {
    /// A chunk whose content is `name`, stored at `offset` with `compressed` bytes.
    func chunk(_ name: String, at offset: UInt64, compressed: UInt32, size: UInt32 = 1000) -> ChunkEntry {
        ChunkEntry(digest: SHA256Digest.hash(Array(name.utf8)), offset: offset, compressedSize: compressed, uncompressedSize: size)
    }

    func index(_ chunks: [ChunkEntry], sequence: [UInt32]) -> PackIndex {
        let size = sequence.reduce(UInt64(0)) { $0 + UInt64(chunks[Int($1)].uncompressedSize) }
        return PackIndex(metadata: PackMetadata(assetPackID: "P", downloadPolicy: .onDemand, platforms: [.iOS], language: nil),
                         chunking: .default, chunks: chunks, sequence: sequence, files: [FileEntry(path: "f", mode: 0o644, size: size)])
    }

    @Test func withoutAPreviousVersionAdjacentChunksAreOneRange() {
        let new = index([chunk("a", at: 8, compressed: 100), chunk("b", at: 108, compressed: 50), chunk("c", at: 158, compressed: 70)],
                        sequence: [0, 1, 2])
        let plan = InstallPlan(index: new, previous: nil)
        #expect(plan.sources == [.remote(downloadOffset: 0), .remote(downloadOffset: 100), .remote(downloadOffset: 150)])
        #expect(plan.ranges == [InstallPlan.Range(packOffset: 8, length: 220, downloadOffset: 0)])
        #expect(plan.downloadBytes == 220)
        #expect(plan.reusedBytes == 0)
    }

    @Test func aChunkUsedAgainIsCopiedFromItsFirstUse() {
        let new = index([chunk("a", at: 8, compressed: 100), chunk("b", at: 108, compressed: 50)], sequence: [0, 1, 0, 1, 0])
        let plan = InstallPlan(index: new, previous: nil)
        #expect(plan.sources == [.remote(downloadOffset: 0), .remote(downloadOffset: 100),
                                 .earlier(sequence: 0), .earlier(sequence: 1), .earlier(sequence: 0)])
        #expect(plan.downloadBytes == 150)
    }

    @Test func chunksThePreviousVersionHoldsAreNotDownloaded() {
        // The previous version holds b (at sequence position 1) and c (at 2, 3: its first use counts).
        let previous = index([chunk("x", at: 8, compressed: 10), chunk("b", at: 18, compressed: 20, size: 700), chunk("c", at: 38, compressed: 30, size: 300)],
                             sequence: [0, 1, 2, 2])
        let new = index([chunk("a", at: 8, compressed: 100), chunk("c", at: 108, compressed: 30, size: 300), chunk("b", at: 138, compressed: 20, size: 700),
                         chunk("d", at: 158, compressed: 40)],
                        sequence: [0, 1, 2, 3])
        let plan = InstallPlan(index: new, previous: previous)
        #expect(plan.sources == [.remote(downloadOffset: 0), .previous(sequence: 2), .previous(sequence: 1), .remote(downloadOffset: 150)])
        // a and d are 50 bytes apart in the pack file: one range, the gap included.
        #expect(plan.ranges == [InstallPlan.Range(packOffset: 8, length: 190, downloadOffset: 0)])
        #expect(plan.reusedBytes == 1000)
    }

    @Test func seededChunksAreReadFromDiskAndTheRestStaysInRanges() {
        // b is in a seed folder and in the previous version (the previous version wins); c only
        // in a seed folder; a and d come from the network, in one range across c's frame.
        let previous = index([chunk("b", at: 8, compressed: 20)], sequence: [0])
        let new = index([chunk("a", at: 8, compressed: 100), chunk("b", at: 108, compressed: 20), chunk("c", at: 128, compressed: 30),
                         chunk("d", at: 158, compressed: 40)],
                        sequence: [0, 1, 2, 3, 2])
        let plan = InstallPlan(index: new, previous: previous, seeded: [1, 2])
        #expect(plan.sources == [.remote(downloadOffset: 0), .previous(sequence: 0), .seed, .remote(downloadOffset: 150), .earlier(sequence: 2)])
        #expect(plan.seeded == [2])
        #expect(plan.ranges == [InstallPlan.Range(packOffset: 8, length: 190, downloadOffset: 0)])
        #expect(InstallPlan(index: new, previous: previous).networkChunks(in: new) == [0, 2, 3])
    }

    @Test func distantChunksAreSeparateRangesAndLongRangesAreCut() {
        let new = index([chunk("a", at: 8, compressed: 100), chunk("b", at: 10_108, compressed: 100), chunk("c", at: 10_208, compressed: 100),
                         chunk("d", at: 10_308, compressed: 100)],
                        sequence: [0, 1, 2, 3])
        // a–b: a 10,000-byte gap, more than mergeGap; b, c, d adjacent, but at most 250 bytes a range.
        let plan = InstallPlan(index: new, previous: nil, mergeGap: 1000, maxRange: 250)
        #expect(plan.ranges == [InstallPlan.Range(packOffset: 8, length: 100, downloadOffset: 0),
                                InstallPlan.Range(packOffset: 10_108, length: 200, downloadOffset: 100),
                                InstallPlan.Range(packOffset: 10_308, length: 100, downloadOffset: 300)])
        #expect(plan.sources == [.remote(downloadOffset: 0), .remote(downloadOffset: 100), .remote(downloadOffset: 200), .remote(downloadOffset: 300)])
        #expect(plan.downloadBytes == 400)

        // With a larger merge gap the gap is fetched too, rather than a second request.
        let merged = InstallPlan(index: new, previous: nil, mergeGap: 20_000)
        #expect(merged.ranges == [InstallPlan.Range(packOffset: 8, length: 10_400, downloadOffset: 0)])
        #expect(merged.sources == [.remote(downloadOffset: 0), .remote(downloadOffset: 10_100), .remote(downloadOffset: 10_200),
                                   .remote(downloadOffset: 10_300)])
    }

    @Test func aVersionMadeOfThePreviousOneDownloadsNothing() {
        let chunks = [chunk("a", at: 8, compressed: 100), chunk("b", at: 108, compressed: 50)]
        let plan = InstallPlan(index: index(chunks, sequence: [1, 0]), previous: index(chunks, sequence: [0, 1]))
        #expect(plan.sources == [.previous(sequence: 1), .previous(sequence: 0)])
        #expect(plan.ranges.isEmpty && plan.downloadBytes == 0)
        #expect(plan.reusedBytes == 2000)
    }
}
