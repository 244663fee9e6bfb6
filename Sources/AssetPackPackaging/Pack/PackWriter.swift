import AssetPackFormat
import CZstd
import Foundation

/// What `PackWriter` produced.
public struct PackSummary: Sendable, Equatable {
    public var fileCount: Int
    public var chunkCount: Int
    /// Chunks that were stored once although the content stream uses them more often.
    public var reusedChunkCount: Int
    public var installSize: UInt64
    public var packSize: UInt64
    public var packDigest: SHA256Digest
    /// Where the index lies in the pack file, as the trailer says.
    public var indexOffset: UInt64
    public var indexLength: UInt64
    /// The SHA-256 of the whole pack file, when the writer was asked for it (`digestsFile`).
    public var fileSHA256: SHA256Digest?
}

/// Builds a pack from selected files: reads them in pack order, cuts chunks (FastCDC), hashes and
/// compresses chunks on all cores, and streams the result to a temporary file that is renamed
/// into place when complete. Memory stays bounded by a fixed pool of blocks, whatever the input.
/// The output is deterministic: the same files and metadata give the same bytes.
public struct PackWriter {
    public var parameters: ChunkingParameters = .default
    /// zstd level, within `SettingBounds.compressionLevel` (1–19).
    public var compressionLevel: Int32 = 3
    /// Worker threads, within `SettingBounds.threads` (1 to 4 × the cores); `write` refuses
    /// another value with `PackWriteError.invalidSetting`.
    public var threads = ProcessInfo.processInfo.activeProcessorCount
    /// Bytes read per block handed to a worker (at least twice the maximum chunk size, which it is
    /// at the default chunking). The writer holds `2 × threads + 2` such blocks of input and
    /// `2 × threads + 1` of output, so this decides most of its memory.
    public var blockSize = 2 << 20
    /// Whether to hash the pack file as it is written (`PackSummary.fileSHA256`), which the
    /// catalog needs and which saves reading the file back.
    public var digestsFile = false
    /// The pack format version to write: the current one; tests write version 1 to check that
    /// older packs still read and install.
    package var formatVersion = PackLayout.formatVersion
    /// When set, the pack is written sealed (format version 3, docs/FORMAT.md "Sealed packs"):
    /// every chunk frame and the index sealed with AES-256-GCM under this content key.
    public var sealing: ContentKey? {
        didSet {
            if sealing != nil { formatVersion = SealedIndex.formatVersion } else if oldValue != nil { formatVersion = PackLayout.formatVersion }
        }
    }

    /// The files-per-pack, file-table and index limits (`PackLimits`): a pack past one is not
    /// written, and the error names the limit. Tests lower them to reach their edge cheaply.
    package var limits = PackLimits()

    public init() {}

    /// Raise this whenever the same input starts giving different pack bytes (a change to the
    /// segmentation, the chunk order, the index layout…): caches of packaging results — the
    /// publish cache — key on `outputIdentity`, which includes it.
    public static let revision = 1

    /// What, besides the metadata, the files and `parameters`, decides the bytes this writer
    /// produces: the pack format version, the writer's revision, the zstd library version
    /// (another zstd may compress the same chunk to other bytes) and the compression level.
    /// Threads and block size do not change the output.
    public var outputIdentity: String {
        "pack-format \(formatVersion) writer \(Self.revision) zstd \(ZSTD_versionNumber()) level \(compressionLevel)"
            + (sealing.map { " sealed \($0.keyID.hex)" } ?? "")
    }

    public func write(metadata: PackMetadata, files: [SelectedFile], to destination: String) throws -> PackSummary {
        try write(metadata: metadata, files: SelectedFileList(files), to: destination)
    }

    public func write(metadata: PackMetadata, files: SelectedFileList, to destination: String) throws -> PackSummary {
        try write(metadata: metadata, feed: SelectedFileFeed(ended: files), to: destination)
    }

    /// Writes the files of `feed` as the selection brings them (`SelectedFileFeed`). When the
    /// feed stops (`SelectedFileFeed.Stop`), nothing is written and the stop is thrown.
    public func write(metadata: PackMetadata, feed: SelectedFileFeed, to destination: String) throws -> PackSummary {
        if let problem = SettingBounds.problem("threads", threads, in: SettingBounds.threads, reason: SettingBounds.threadsReason)
            ?? SettingBounds.problem("compression level", compressionLevel, in: SettingBounds.compressionLevel) {
            throw PackWriteError.invalidSetting(problem)
        }
        // The file table grows as the files are packed, a few bytes a file, held compressed 256
        // KiB at a time until the index is put together; the feed lets go of each file
        // once it is packed.
        var table = PackFileTableEncoder(formatVersion: formatVersion, spooled: true)
        let limits = limits
        func record(_ position: Int, _ file: SelectedFile) throws {
            if table.count + 1 > limits.maximumFileCount, let problem = limits.fileCountProblem(max(table.count + 1, feed.count)) {
                throw PackWriteError.tooLarge(problem)
            }
            // A selection has checked its paths already; a library caller's list may not have.
            // The path's bytes are checked and encoded in place, without a string for them.
            let problem = file.withPackPath { path -> String? in
                if let problem = PackPath.problemWithStoredPath(path) { return problem }
                table.add(path: path, mode: file.mode & 0o777, size: file.size)
                return nil
            }
            if let problem {
                throw PackWriteError.badPath("file \(position) (\(file.sourcePath)): \"\(file.packPath.prefix(64))…\" cannot be a pack path: it \(problem)")
            }
        }
        let out = try AtomicFile(destination: destination, digesting: digestsFile)
        defer { out.discard() }
        try out.write(PackLayout.header(version: formatVersion))
        // The stage that reads, cuts, hashes and compresses, in a scope of its own: its blocks are
        // freed before the index is put together.
        let (chunks, sequence, indexOffset) = try { () throws -> ([ChunkEntry], [UInt32], UInt64) in
            let workers = max(1, threads)
            let inFlight = workers * 2 + 1
            let capacity = max(blockSize, 2 * parameters.maximumSize)
            let input = BlockPool(count: inFlight + 1, capacity: capacity)
            let pipeline = PackPipeline(out: out, level: compressionLevel, sealing: sealing, workers: workers,
                                        output: BlockPool(count: inFlight, capacity: ZSTD_compressBound(capacity) + 64 << 10),
                                        input: input)
            var segmenter = ChunkSegmenter(parameters: parameters, pool: input) { batch in
                try pipeline.submit(batch)
            }
            // Runs of small files are read ahead by a few threads; large files are read here.
            let smallFiles = SmallFileReader(feed: feed, minimumSize: parameters.minimumSize, readers: max(2, min(8, workers * 2)))
            defer { smallFiles.finish() }
            do {
                var i = 0
                while let file = try feed.file(i) {
                    guard file.size >= UInt64(parameters.minimumSize) else {
                        let run = try smallFiles.nextRun()
                        precondition(run.files.lowerBound == i, "small-file runs out of step")
                        for k in run.files { try record(k, k == i ? file : try feed.file(k)!) }
                        try segmenter.append(run.bytes)
                        i = run.files.upperBound
                        feed.release(below: i)
                        continue
                    }
                    try record(i, file)
                    let fd = open(file.sourcePath, O_RDONLY | O_CLOEXEC)
                    guard fd >= 0 else { throw PackWriteError.read(file.sourcePath, String(cString: strerror(errno))) }
                    defer { close(fd) }
                    try segmenter.endSegment()
                    try segmenter.append(fd: fd, size: file.size, path: file.sourcePath)
                    try segmenter.endSegment()
                    i += 1
                    feed.release(below: i)
                }
                try segmenter.endSegment()
                segmenter.release()
            } catch {
                _ = try? pipeline.finish()
                throw error
            }
            let (chunks, sequence) = try pipeline.finish()
            return (chunks, sequence, pipeline.offset)
        }()
        let fileCount = table.count, installSize = table.totalSize
        if let problem = limits.fileTableProblem(length: table.decodedLength, files: fileCount)
            ?? limits.pathBytesProblem(length: table.pathBytes, files: fileCount) {
            throw PackWriteError.tooLarge(problem)
        }
        let fileTable = table.finish()
        // The index's file table is already encoded: its list of files is not needed (nor kept).
        let index = PackIndex(metadata: metadata, chunking: parameters, chunks: chunks, sequence: sequence, files: [],
                              formatVersion: formatVersion)
        let indexBytes = sealing.map { SealedIndex.seal(index, key: $0, fileTable: fileTable) } ?? index.encoded(fileTable: fileTable)
        if let problem = limits.indexProblem(length: indexBytes.count, chunks: chunks.count, files: fileCount) {
            throw PackWriteError.tooLarge(problem)
        }
        let trailer = PackTrailer(indexOffset: indexOffset, indexLength: UInt64(indexBytes.count), indexDigest: SHA256Digest.hash(indexBytes),
                                  formatVersion: formatVersion)
        try out.write(indexBytes)
        try out.write(trailer.encoded())
        let fileSHA256 = out.digest()
        try out.commit()
        return PackSummary(fileCount: fileCount, chunkCount: chunks.count, reusedChunkCount: sequence.count - chunks.count,
                           installSize: installSize,
                           packSize: indexOffset + UInt64(indexBytes.count + PackLayout.trailerSize),
                           packDigest: trailer.indexDigest, indexOffset: trailer.indexOffset, indexLength: trailer.indexLength,
                           fileSHA256: fileSHA256)
    }
}

/// Hashes and compresses batches on worker threads and writes them in submission order.
/// Input blocks return to their pool once compressed, output blocks once written.
private final class PackPipeline: @unchecked Sendable {
    /// One chunk's digest and where its frame lies in the batch's output block.
    private struct Compressed { var digest: SHA256Digest; var size: Int; var frameOffset: Int; var frameLength: Int }
    private struct Done { var output: ByteBlock; var chunks: [Compressed] }

    private let out: AtomicFile
    private let workers = DispatchQueue(label: "assetpack.pack.workers", attributes: .concurrent)
    private let writer = DispatchQueue(label: "assetpack.pack.writer")
    private let group = DispatchGroup()
    private let lock = NSLock()
    private var compressors: [ZstdCompressor]
    private let sealing: ContentKey?
    private let compressorSlots: DispatchSemaphore
    private let outputPool: BlockPool
    private let inputPool: BlockPool
    private var submitted = 0
    // Owned by `writer`:
    private var pending: [Int: Done] = [:]
    private var next = 0
    private var failure: Error?
    private var chunks: [ChunkEntry] = []
    private var sequence: [UInt32] = []
    /// The stored chunks by their digest's first 8 bytes (a hit is checked against the whole
    /// digest), and the few whose first 8 bytes another stored chunk has: a third of the memory
    /// of a table keyed by whole digests, for the chunks of a whole pack.
    private var known: [UInt64: UInt32] = [:]
    private var sharingLeadingWord: [SHA256Digest: UInt32] = [:]
    private(set) var offset = UInt64(PackLayout.headerSize)

    init(out: AtomicFile, level: Int32, sealing: ContentKey?, workers: Int, output: BlockPool, input: BlockPool) {
        self.out = out
        self.sealing = sealing
        compressors = (0..<workers).map { _ in ZstdCompressor(level: level) }
        compressorSlots = DispatchSemaphore(value: workers)
        outputPool = output
        inputPool = input
    }

    private var failed: Bool { writer.sync { failure != nil } }

    func submit(_ batch: ChunkBatch) throws {
        let output = outputPool.take()
        if failed {
            outputPool.give(output)
            inputPool.give(batch.block)
            _ = try finish()
            return
        }
        let seq = submitted
        submitted += 1
        group.enter()
        workers.async { [self] in
            // At most one batch per compressor runs at a time, whatever threads GCD brings up.
            compressorSlots.wait()
            let compressor = lock.withLock { compressors.removeLast() }
            var results: [Compressed] = []
            results.reserveCapacity(batch.lengths.count)
            var position = 0
            for length in batch.lengths {
                let bytes = batch.block.slice(position, length)
                let reserve = sealing == nil ? 0 : SealedFrame.nonceSize
                let room = UnsafeMutableRawBufferPointer(start: output.base + output.count + reserve, count: output.capacity - output.count - (sealing == nil ? 0 : SealedFrame.overhead))
                var n = compressor.compress(bytes, into: room)
                if let sealing {
                    // Sealed in place: the nonce goes before the frame, the tag after it.
                    let frame = UnsafeRawBufferPointer(start: room.baseAddress!, count: n)
                    SealedFrame.seal(frame, purpose: .chunk, key: sealing,
                                     into: UnsafeMutableRawBufferPointer(start: output.base + output.count, count: n + SealedFrame.overhead))
                    n += SealedFrame.overhead
                }
                results.append(Compressed(digest: SHA256Digest.hash(bytes), size: length, frameOffset: output.count, frameLength: n))
                output.count += n
                position += length
            }
            lock.withLock { compressors.append(compressor) }
            compressorSlots.signal()
            inputPool.give(batch.block)
            let done = Done(output: output, chunks: results)
            writer.async { [self] in
                pending[seq] = done
                drain()
            }
        }
    }

    private func drain() {
        while let done = pending.removeValue(forKey: next) {
            if failure == nil {
                do { try store(done) } catch { failure = error }
            }
            outputPool.give(done.output)
            next += 1
            group.leave()
        }
    }

    private func store(_ done: Done) throws {
        for r in done.chunks {
            let leading = known[r.digest.leadingWord]
            if let existing = leading.flatMap({ chunks[Int($0)].digest == r.digest ? $0 : nil }) ?? sharingLeadingWord[r.digest] {
                sequence.append(existing)
                continue
            }
            guard chunks.count < Int(UInt32.max) else { throw PackWriteError.tooLarge("a pack may hold at most \(UInt32.max) chunks") }
            let i = UInt32(chunks.count)
            try out.write(UnsafeRawBufferPointer(done.output.slice(r.frameOffset, r.frameLength)))
            chunks.append(ChunkEntry(digest: r.digest, offset: offset, compressedSize: UInt32(r.frameLength), uncompressedSize: UInt32(r.size)))
            if leading == nil { known[r.digest.leadingWord] = i } else { sharingLeadingWord[r.digest] = i }
            sequence.append(i)
            offset += UInt64(r.frameLength)
        }
    }

    /// Waits for every batch; returns the chunk table and sequence, or throws the first failure.
    @discardableResult
    func finish() throws -> ([ChunkEntry], [UInt32]) {
        group.wait()
        return try writer.sync {
            if let failure { throw failure }
            return (chunks, sequence)
        }
    }
}
