import AssetPackFormat
import Foundation

/// A heap buffer handed from the reading thread to a compression worker.
final class ByteBlock: @unchecked Sendable {
    let base: UnsafeMutableRawPointer
    let capacity: Int
    var count = 0

    init(capacity: Int) {
        base = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 64)
        self.capacity = capacity
    }

    deinit { base.deallocate() }

    func slice(_ offset: Int, _ length: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base + offset, count: length)
    }
}

/// Chunks laid end to end at the start of `block`.
struct ChunkBatch: @unchecked Sendable {
    let block: ByteBlock
    let lengths: [Int]
}

/// Cuts the pack's content stream into chunks while it is read. The stream is split into
/// segments — each file of at least the minimum chunk size on its own, and each run of smaller
/// files together — and chunking restarts at each segment, so a large file's chunks do not
/// depend on its neighbours while small files share chunks and compress together.
struct ChunkSegmenter {
    private let cdc: FastCDC
    private let pool: BlockPool
    private var block: ByteBlock
    private let emit: (ChunkBatch) throws -> Void

    /// Blocks come from `pool`, whose capacity must be at least twice the maximum chunk size;
    /// `emit` takes ownership of each full block.
    init(parameters: ChunkingParameters, pool: BlockPool, emit: @escaping (ChunkBatch) throws -> Void) {
        precondition(pool.capacity >= 2 * parameters.maximumSize)
        cdc = FastCDC(parameters)
        self.pool = pool
        block = pool.take()
        self.emit = emit
    }

    /// Returns the block being filled to the pool (after the last segment ended).
    func release() { pool.give(block) }

    var minimumChunkSize: Int { cdc.parameters.minimumSize }

    /// Appends exactly `size` bytes read from `fd`; fails if the file is shorter or longer. A
    /// large file leaves the page cache behind the read (`DropBehind`): it is read once, in order.
    mutating func append(fd: Int32, size: UInt64, path: String) throws {
        var left = size
        var behind = DropBehind(fd: fd, fileSize: size)
        while true {
            if block.count == block.capacity { try cut(final: false) }
            let want = Int(min(UInt64(block.capacity - block.count), max(left, 1)))
            let n = read(fd, block.base + block.count, want)
            if n < 0 {
                if errno == EINTR { continue }
                throw PackWriteError.read(path, String(cString: strerror(errno)))
            }
            if n == 0 {
                guard left == 0 else { throw PackWriteError.changed(path, "shrank while it was packed") }
                behind.finishReading(at: Int64(size))
                return
            }
            guard UInt64(n) <= left else { throw PackWriteError.changed(path, "grew while it was packed") }
            block.count += n
            left -= UInt64(n)
            behind.read(upTo: Int64(size - left))
        }
    }

    /// Appends `bytes` (files already read, by `SmallFileReader`).
    mutating func append(_ bytes: UnsafeRawBufferPointer) throws {
        var position = 0
        while position < bytes.count {
            if block.count == block.capacity { try cut(final: false) }
            let n = min(block.capacity - block.count, bytes.count - position)
            (block.base + block.count).copyMemory(from: bytes.baseAddress! + position, byteCount: n)
            block.count += n
            position += n
        }
    }

    /// Ends the current segment: everything pending becomes chunks.
    mutating func endSegment() throws { try cut(final: true) }

    private mutating func cut(final: Bool) throws {
        var position = 0
        var lengths: [Int] = []
        while position < block.count {
            let available = block.count - position
            if !final && available < cdc.parameters.maximumSize { break }
            let n = cdc.cut(block.slice(position, available))
            lengths.append(n)
            position += n
        }
        guard !lengths.isEmpty else { return }
        let full = block
        block = pool.take()
        let tail = full.count - position
        if tail > 0 { block.base.copyMemory(from: full.base + position, byteCount: tail) }
        block.count = tail
        full.count = position
        try emit(ChunkBatch(block: full, lengths: lengths))
    }
}
