import AssetPackFormat

/// A stored chunk as the reader and the client open it: a zstd frame and the uncompressed size
/// the index declares. The input is that size (4 bytes, little-endian, taken modulo 1 MiB + 1)
/// followed by the frame. The decompressor must refuse a frame that declares or produces any
/// other size (a bomb or a short frame), and ChunkVerifier must then refuse bytes that do not
/// hash to the entry's digest.
enum ZstdFuzzTarget {
    static let largestExpectedSize = 1 << 20

    static func run(_ bytes: [UInt8]) {
        guard bytes.count >= 4 else { return }
        let declared = bytes[0..<4].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        let expected = declared % (largestExpectedSize + 1)
        let frame = Array(bytes[4...])
        let decompressor = ZstdDecompressor()
        let output = try? frame.withUnsafeBytes { f throws(ZstdError) in try decompressor.decompress(f, expectedSize: expected) }
        if let output { precondition(output.count == expected, "decompressed \(output.count) bytes, \(expected) expected") }

        // ChunkVerifier with an index of one chunk and one file: the digest of the decompressed
        // bytes (when there are some) must open, any other must be refused.
        let digest = output.map { SHA256Digest.hash($0) } ?? SHA256Digest.hash(frame)
        let entry = ChunkEntry(digest: digest, offset: 16, compressedSize: UInt32(frame.count), uncompressedSize: UInt32(expected))
        let index = PackIndex(metadata: PackMetadata(assetPackID: "fuzz", downloadPolicy: .onDemand, platforms: [], language: nil),
                              chunking: ChunkingParameters(minimumSize: 1, averageSize: 2, maximumSize: 1 << 20),
                              chunks: [entry], sequence: [0], files: [FileEntry(path: "f", mode: 0o644, size: UInt64(expected))])
        let opened = try? ChunkVerifier.open(frame, entry: entry, chunkIndex: 0, index: index, decompressor: decompressor)
        precondition((opened != nil) == (output != nil), "ChunkVerifier and the decompressor disagree about a frame")
        if let opened { precondition(opened == output, "ChunkVerifier returned other bytes than the decompressor") }
    }
}
