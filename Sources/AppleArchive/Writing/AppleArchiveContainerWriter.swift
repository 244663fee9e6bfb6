import AssetPackFormat
import Foundation
import Synchronization

/// Cuts an AA01 byte stream into blocks and writes the `pbz*` container (docs/FORMAT.md): the
/// magic, the block size as a big-endian u64, then per block its raw size and its stored size
/// (big-endian u64 each) and the stored bytes — compressed, or raw when compressing does not
/// make the block smaller. With `none` the stream is written bare, with no container.
///
/// Blocks are compressed on `threads` workers and written in stream order. At most
/// `2 × threads + 1` blocks exist at once (the one being filled included): the writer waits for
/// the oldest to be written before it starts another, so memory stays bounded whatever the size
/// of the archive. A block is reused once written, so its memory is faulted in once, not once
/// a block. A block's bytes depend only on its contents, not on which thread or in which
/// order it was compressed: the output is the same for any thread count.
final class AppleArchiveContainerWriter: @unchecked Sendable {
    /// A block of the stream, its compressed form once a worker has made it.
    private final class Block: @unchecked Sendable {
        let storage: UnsafeMutableRawBufferPointer
        var count = 0
        /// The compressed form, when `isCompressed`; its buffer is kept for the block's next use.
        var compressed: [UInt8] = []
        var isCompressed = false
        init(capacity: Int) { storage = .allocate(byteCount: capacity, alignment: 16) }
        deinit { storage.deallocate() }
        var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: storage[0..<count]) }
    }

    private let out: AtomicFile
    private let codec: AppleArchiveCompression
    private let blockSize: Int
    private let workers = DispatchQueue(label: "assetpack.aar.workers", attributes: .concurrent)
    private let writer = DispatchQueue(label: "assetpack.aar.writer")
    private let group = DispatchGroup()
    /// Blocks alive at once, and compressions running at once.
    private let blockSlots: DispatchSemaphore
    private let compressorSlots: DispatchSemaphore
    private var current: Block?
    /// Written blocks, ready to be filled again.
    private let spare = Mutex<[Block]>([])
    private var submitted = 0
    // Owned by `writer`:
    private var pending: [Int: Block] = [:]
    private var next = 0
    private var failure: (any Error)?
    private var written: Int64 = 0

    init(out: AtomicFile, codec: AppleArchiveCompression, blockSize: Int, threads: Int) throws(PackWriteError) {
        self.out = out
        self.codec = codec
        self.blockSize = blockSize
        blockSlots = DispatchSemaphore(value: 2 * threads + 1)
        compressorSlots = DispatchSemaphore(value: threads)
        if let letter = codec.magicLetter {
            var header = Array("pbz".utf8) + [letter]
            Self.appendBigEndian(UInt64(blockSize), to: &header)
            try out.write(header)
            written = Int64(header.count)
        }
    }

    /// Appends `bytes` to the stream.
    func append(_ bytes: UnsafeRawBufferPointer) throws {
        var position = 0
        while position < bytes.count {
            let block = try room()
            let n = min(blockSize - block.count, bytes.count - position)
            block.storage.baseAddress!.advanced(by: block.count).copyMemory(from: bytes.baseAddress!.advanced(by: position), byteCount: n)
            block.count += n
            position += n
            try submitIfFull()
        }
    }

    func append(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try append($0) }
    }

    /// Appends exactly `size` bytes read from `fd`, read straight into the blocks. Throws
    /// `PackWriteError.changed` when the file holds fewer or more bytes than `size`.
    func append(fd: Int32, size: UInt64, path: String) throws {
        var remaining = size
        while remaining > 0 {
            let block = try room()
            let want = Int(min(UInt64(blockSize - block.count), remaining))
            let n = read(fd, block.storage.baseAddress!.advanced(by: block.count), want)
            if n < 0 {
                if errno == EINTR { continue }
                throw PackWriteError.read(path, String(cString: strerror(errno)))
            }
            guard n > 0 else { throw PackWriteError.changed(path, "shrank while it was archived (\(size - remaining) of \(size) bytes)") }
            block.count += n
            remaining -= UInt64(n)
            try submitIfFull()
        }
        var probe: UInt8 = 0
        guard read(fd, &probe, 1) <= 0 else { throw PackWriteError.changed(path, "grew while it was archived (beyond \(size) bytes)") }
    }

    /// The block being filled, started when there is none (waiting for a slot).
    private func room() throws -> Block {
        if let current { return current }
        blockSlots.wait()
        if let failure = writer.sync(execute: { failure }) {
            blockSlots.signal()
            throw failure
        }
        let block = spare.withLock { $0.popLast() } ?? Block(capacity: blockSize)
        block.count = 0
        block.isCompressed = false
        current = block
        return block
    }

    private func submitIfFull() throws {
        guard let block = current, block.count == blockSize else { return }
        submit(block)
    }

    private func submit(_ block: Block) {
        current = nil
        let seq = submitted
        submitted += 1
        group.enter()
        workers.async { [self] in
            if AppleArchiveBlockEncoder.isWritable(codec) {
                compressorSlots.wait()
                block.isCompressed = AppleArchiveBlockEncoder.compress(block.bytes, codec: codec, into: &block.compressed)
                compressorSlots.signal()
            }
            writer.async { [self] in
                pending[seq] = block
                drain()
            }
        }
    }

    private func drain() {
        while let block = pending.removeValue(forKey: next) {
            if failure == nil {
                do { try store(block) } catch { failure = error }
            }
            spare.withLock { $0.append(block) }
            next += 1
            blockSlots.signal()
            group.leave()
        }
    }

    private func store(_ block: Block) throws {
        guard codec.magicLetter != nil else {
            try out.write(block.bytes)
            written += Int64(block.count)
            return
        }
        var sizes: [UInt8] = []
        sizes.reserveCapacity(16)
        Self.appendBigEndian(UInt64(block.count), to: &sizes)
        let storedCount = block.isCompressed ? block.compressed.count : block.count
        Self.appendBigEndian(UInt64(storedCount), to: &sizes)
        try out.write(sizes)
        if block.isCompressed { try out.write(block.compressed) } else { try out.write(block.bytes) }
        written += 16 + Int64(storedCount)
    }

    private static func appendBigEndian(_ value: UInt64, to bytes: inout [UInt8]) {
        for i in (0..<8).reversed() { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * i))) }
    }

    /// Writes the last block, waits for every block to be written; returns the container's size.
    func finish() throws -> Int64 {
        if let block = current, block.count > 0 { submit(block) } else if current != nil {
            current = nil
            blockSlots.signal()
        }
        group.wait()
        return try writer.sync {
            if let failure { throw failure }
            return written
        }
    }

    /// Waits for the blocks in flight after a failure, so none outlives the file.
    func abandon() {
        if current != nil {
            current = nil
            blockSlots.signal()
        }
        group.wait()
    }
}
