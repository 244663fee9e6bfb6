import AssetPackFormat
@testable import AssetPackPackaging
import Foundation
import TestRepositories
import TestSupport
import Testing

/// `ChunkSegmenter` on its own (chunking restarts at every segment; blocks do not move cuts), and
/// the rule `PackWriter` drives it with (a large file is a segment of its own, small files share).
@Suite struct ChunkSegmenterTests {
    let parameters = ChunkingParameters(minimumSize: 256, averageSize: 1024, maximumSize: 4096)

    /// The chunks FastCDC cuts from `bytes` alone, starting at its first byte.
    func fastCDCChunks(_ bytes: [UInt8]) -> [[UInt8]] { FastCDC(parameters).chunks(of: bytes) }

    /// The chunks the segmenter emits when each segment's files are appended (read from files)
    /// and the segment is ended, with blocks of `blockSize` bytes.
    func segmented(_ segments: [[[UInt8]]], blockSize: Int) throws -> [[UInt8]] {
        let dir = try TemporaryDirectory("segmenter")
        defer { dir.remove() }
        let pool = BlockPool(count: 2, capacity: blockSize)
        var chunks: [[UInt8]] = []
        var segmenter = ChunkSegmenter(parameters: parameters, pool: pool) { batch in
            var offset = 0
            for length in batch.lengths {
                chunks.append(Array(batch.block.slice(offset, length)))
                offset += length
            }
            pool.give(batch.block)
        }
        for (s, files) in segments.enumerated() {
            for (f, bytes) in files.enumerated() {
                try append(bytes, declaring: bytes.count, to: &segmenter, path: try dir.write("\(s)-\(f)", bytes))
            }
            try segmenter.endSegment()
        }
        segmenter.release()
        return chunks
    }

    func append(_ bytes: [UInt8], declaring size: Int, to segmenter: inout ChunkSegmenter, path: String) throws {
        let fd = open(path, O_RDONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        try segmenter.append(fd: fd, size: UInt64(size), path: path)
    }

    @Test(arguments: [8192, 1 << 20])
    func oneSegmentIsChunkedAsTheWholeStreamWhateverTheBlockSize(blockSize: Int) throws {
        let files = [patternBytes(20_000, seed: 1), textBytes(7_000, seed: 2), patternBytes(23_000, seed: 3)]
        let chunks = try segmented([files], blockSize: blockSize)
        #expect(chunks == fastCDCChunks(files.flatMap { $0 }))
        #expect(chunks.count > 10)
        #expect(chunks.dropLast().allSatisfy { $0.count >= parameters.minimumSize && $0.count <= parameters.maximumSize })
    }

    @Test func chunkingRestartsAtEverySegment() throws {
        let a = patternBytes(9_000, seed: 4), b = patternBytes(12_000, seed: 5)
        let chunks = try segmented([[a], [b]], blockSize: 8192)
        #expect(chunks == fastCDCChunks(a) + fastCDCChunks(b))
        // Without the restart, the cuts after the joint would differ.
        #expect(chunks != fastCDCChunks(a + b))
    }

    @Test func aSegmentsChunksDoNotDependOnTheSegmentsBeforeIt() throws {
        let big = patternBytes(30_000, seed: 6)
        let afterShort = try segmented([[textBytes(300, seed: 7)], [big]], blockSize: 8192)
        let afterLong = try segmented([[patternBytes(5_555, seed: 8), textBytes(100, seed: 9)], [big]], blockSize: 8192)
        let own = fastCDCChunks(big)
        #expect(Array(afterShort.suffix(own.count)) == own)
        #expect(Array(afterLong.suffix(own.count)) == own)
    }

    @Test func smallFilesInOneSegmentShareChunks() throws {
        let files = (0..<20).map { textBytes(100, seed: UInt64(10 + $0)) }
        let chunks = try segmented([files], blockSize: 8192)
        #expect(chunks.flatMap { $0 } == files.flatMap { $0 })
        #expect(chunks.count < files.count)
        #expect(chunks.contains { $0.count > 100 })
    }

    @Test func aFileOfAnotherSizeThanDeclaredFails() throws {
        let dir = try TemporaryDirectory("segmenter")
        defer { dir.remove() }
        let path = try dir.write("file", patternBytes(5_000, seed: 11))
        let pool = BlockPool(count: 2, capacity: 8192)
        var segmenter = ChunkSegmenter(parameters: parameters, pool: pool) { pool.give($0.block) }
        #expect {
            try append([], declaring: 5_010, to: &segmenter, path: path)
        } throws: { error in
            "\(error)" == "\(PackWriteError.changed(path, "shrank while it was packed"))"
        }
        #expect {
            try append([], declaring: 4_990, to: &segmenter, path: path)
        } throws: { error in
            "\(error)" == "\(PackWriteError.changed(path, "grew while it was packed"))"
        }
    }

    /// Through `PackWriter`: each large file starts and ends a segment, so its chunks are the same
    /// whatever lies beside it; small files next to each other share a chunk.
    @Test func packWriterGivesALargeFileChunksOfItsOwnAndSmallFilesSharedOnes() throws {
        let big = patternBytes(40_000, seed: 12)
        func bigChunkDigests(neighbours: [String: [UInt8]]) throws -> (big: [SHA256Digest], smallChunks: Set<Int>) {
            let dir = try TemporaryDirectory("segmenter")
            defer { dir.remove() }
            try dir.write("src/m-big.bin", big)
            for (name, bytes) in neighbours { try dir.write("src/\(name)", bytes) }
            let (pack, _) = try packManifest("""
                {"assetPackID": "P", "downloadPolicy": {"onDemand": {}}, "fileSelectors": [{"directory": "."}], "platforms": ["iOS"], "sourceRoot": "src"}
                """, in: dir) { $0.parameters = parameters }
            let index = try PackReader(path: pack).index
            let spans = index.spans(ofFile: try #require(index.fileIndex(of: "m-big.bin")))
            #expect(spans.first?.offsetInChunk == 0)
            let small = try neighbours.filter { $0.value.count < parameters.minimumSize }.keys.map { try #require(index.fileIndex(of: $0)) }
            return (spans.map { index.chunks[$0.chunkIndex].digest },
                    Set(small.flatMap { index.spans(ofFile: $0).map(\.chunkIndex) }))
        }
        let one = try bigChunkDigests(neighbours: ["a1.txt": textBytes(100, seed: 13), "a2.txt": textBytes(120, seed: 14),
                                                   "z1.txt": textBytes(90, seed: 15)])
        let other = try bigChunkDigests(neighbours: ["a.bin": patternBytes(3_000, seed: 16), "b.txt": textBytes(200, seed: 19),
                                                     "z1.txt": textBytes(77, seed: 17), "z2.txt": textBytes(66, seed: 18)])
        #expect(one.big == fastCDCChunks(big).map { SHA256Digest.hash($0) })
        #expect(other.big == one.big)
        // Small files side by side share a chunk: a1 and a2 one, z1 another; b (between two large
        // files) one, z1 and z2 another.
        #expect(one.smallChunks.count == 2)
        #expect(other.smallChunks.count == 2)
    }
}
