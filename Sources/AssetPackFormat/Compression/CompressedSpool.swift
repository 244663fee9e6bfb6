import CZstd

/// Bytes written once, in order, and read back whole once, held compressed meanwhile: each full
/// block of `blockSize` bytes becomes a zstd frame of its own (level 1), and `expand` puts them
/// back in order. A pack's file table grows by this while the pack's chunks are compressed, so
/// that a million files' 17 MB of columns take a few megabytes until the chunks' buffers are
/// freed and the table is put together.
package struct CompressedSpool {
    /// The bytes not yet in a frame (fewer than `blockSize` after each `add`).
    package private(set) var pending: [UInt8] = []
    /// The full blocks, each a zstd frame of `blockSize` bytes.
    private var frames: [[UInt8]] = []
    package let blockSize: Int

    package init(blockSize: Int = 256 << 10) {
        precondition(blockSize > 0, "a spool's block holds at least one byte")
        self.blockSize = blockSize
    }

    /// All the bytes added so far.
    package var count: Int { frames.count * blockSize + pending.count }

    /// The bytes held now: the frames and the pending block.
    package var heldBytes: Int { frames.reduce(pending.count) { $0 + $1.count } }

    /// Appends bytes to the pending block; `body` adds them (as `PackFileTableEncoder` does with
    /// its varints). A block that fills is compressed into a frame.
    package mutating func add(_ body: (inout [UInt8]) -> Void) {
        body(&pending)
        while pending.count >= blockSize { spill() }
    }

    private mutating func spill() {
        let bound = ZSTD_compressBound(blockSize)
        let frame = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bound) { out in
            let n = pending.withUnsafeBytes { ZSTD_compress(out.baseAddress, bound, $0.baseAddress, blockSize, 1) }
            precondition(czstd_is_error(n) == 0, "zstd compression failed: \(String(cString: ZSTD_getErrorName(n)))")
            return Array(out[..<n])
        }
        frames.append(frame)
        pending.removeFirst(blockSize)
    }

    /// Appends every byte added, in order, to `out`, and empties the spool.
    package mutating func expand(into out: inout [UInt8]) {
        out.reserveCapacity(out.count + count)
        let decompressor = ZstdDecompressor()
        for frame in frames {
            let start = out.count
            out.append(contentsOf: repeatElement(0, count: blockSize))
            out.withUnsafeMutableBytes { o in
                frame.withUnsafeBytes { f in
                    // The frames were made here and never left this value: a failure is a bug, not bad input.
                    do { try decompressor.decompress(f, expectedSize: blockSize, into: UnsafeMutableRawBufferPointer(rebasing: o[start...])) } catch {
                        preconditionFailure("a spooled frame did not give back its block: \(error)")
                    }
                }
            }
        }
        out.append(contentsOf: pending)
        self = CompressedSpool(blockSize: blockSize)
    }
}
