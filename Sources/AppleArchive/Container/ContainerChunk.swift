/// One chunk of a `pbz*` container as stored: where its header starts in the file, the sizes it
/// declares, and its stored bytes. `compressed.count == rawSize` means stored without compression.
struct ContainerChunk: Sendable {
    /// The chunk's number, from 0.
    let number: Int
    /// The file offset of its 16-byte header.
    let offset: UInt64
    let rawSize: Int
    let compressed: [UInt8]

    var region: String { "chunk \(number)" }
    var isStored: Bool { compressed.count == rawSize }

    /// Reads and checks the chunk header at `offset` of `source`, then its bytes. Every size is
    /// checked against the block size and against what the file still holds before anything is
    /// allocated.
    static func read(number: Int, at offset: UInt64, blockSize: Int, from source: any ArchiveByteSource) throws(AppleArchiveError) -> ContainerChunk {
        let region = "chunk \(number)"
        let remaining = source.size - offset
        guard remaining >= UInt64(AppleArchiveContainer.chunkHeaderSize) else {
            throw .malformed(region, at: offset, "the chunk header is cut short: \(remaining) bytes remain, it needs \(AppleArchiveContainer.chunkHeaderSize)")
        }
        let header = try source.read(AppleArchiveContainer.chunkHeaderSize, at: offset)
        let raw = AppleArchiveContainer.bigEndian(Array(header[0..<8]))
        let stored = AppleArchiveContainer.bigEndian(Array(header[8..<16]))
        guard raw > 0 else { throw .malformed(region, at: offset, "declares 0 uncompressed bytes (an empty chunk)") }
        guard raw <= UInt64(blockSize) else {
            throw .malformed(region, at: offset, "declares \(raw) uncompressed bytes, more than the block size \(blockSize)")
        }
        guard stored > 0, stored <= raw else {
            throw .malformed(region, at: offset + 8, "declares \(stored) compressed bytes for \(raw) uncompressed (at most the uncompressed size; equal means stored)")
        }
        let after = remaining - UInt64(AppleArchiveContainer.chunkHeaderSize)
        guard stored <= after else {
            throw .malformed(region, at: offset + 8, "declares \(stored) compressed bytes but the file holds only \(after) more (truncated)")
        }
        let bytes = try source.read(Int(stored), at: offset + UInt64(AppleArchiveContainer.chunkHeaderSize))
        return ContainerChunk(number: number, offset: offset, rawSize: Int(raw), compressed: bytes)
    }
}
