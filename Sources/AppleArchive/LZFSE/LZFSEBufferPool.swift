import Synchronization

/// Working memory of the LZFSE encoder, kept between calls. An archive is encoded one 4 MiB
/// block per call, and each call needs the same buffers again (the match table, the block
/// encoder's arrays: about 1 MiB); allocated afresh, the kernel maps and zeroes them each time.
/// At most `keptPerSize` buffers of each size are kept (one per encoding thread is what is ever
/// in use at once), for the life of the process.
enum LZFSEBufferPool {
    static let keptPerSize = 16
    /// Free buffers by size, as addresses (raw pointers are not Sendable).
    private static let free = Mutex<[Int: [UInt]]>([:])

    /// A buffer of `byteCount` bytes (aligned to 16), its contents undefined.
    static func take(_ byteCount: Int) -> UnsafeMutableRawPointer {
        if let address = free.withLock({ $0[byteCount]?.popLast() }), let buffer = UnsafeMutableRawPointer(bitPattern: address) {
            return buffer
        }
        return .allocate(byteCount: byteCount, alignment: 16)
    }

    /// Gives back a buffer `take(byteCount)` returned.
    static func give(_ buffer: UnsafeMutableRawPointer, _ byteCount: Int) {
        let address = UInt(bitPattern: buffer)
        let kept = free.withLock { free in
            guard free[byteCount, default: []].count < keptPerSize else { return false }
            free[byteCount, default: []].append(address)
            return true
        }
        if !kept { buffer.deallocate() }
    }
}
