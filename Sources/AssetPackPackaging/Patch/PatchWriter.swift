import AssetPackFormat
import Foundation

/// Makes the patch file that takes a client from one pack version to another (docs/FORMAT.md,
/// "Patch file"): for each chunk of the new version that the old one lacks, a zstd frame
/// compressed against the most similar stretch of the old content stream (its *base*), kept only
/// when it is smaller than the chunk's own frame.
///
/// The base of a new chunk is the old stretch between the unchanged chunks around it: the old
/// end of the last chunk before it that the old version also holds, to the old start of the
/// next one. An edit, an insertion or a rewrite stays between the same unchanged neighbours, so
/// that stretch holds what the chunk used to be wherever content moved. A stretch longer than
/// the chunk and `slack` bytes either side is cut to that much around the chunk's position in it
/// (a client reads the whole base to apply a patch: a tight base is a fast update).
public struct PatchWriter: Sendable {
    /// zstd level of the patch frames; nil chooses by the bytes to patch (`automaticLevel`).
    public var level: Int32?
    /// Bytes either side of a chunk's position when its stretch is cut: what an insertion or a
    /// deletion before the chunk may shift it by and still be found.
    public var slack = 64 << 10
    /// No base is longer than this.
    public var maximumBase = 4 << 20
    /// Chunks patched side by side.
    public var threads = ProcessInfo.processInfo.activeProcessorCount

    public init() {}

    /// What `write` made.
    public struct Result: Sendable, Equatable {
        /// The table (as opened: a sealed pack's is stored sealed, `tableLength` bytes).
        public var table: PatchTable
        public var tableOffset: UInt64
        public var tableLength: UInt64
        public var tableDigest: SHA256Digest
        public var size: UInt64
        public var sha256: SHA256Digest
        /// Full frames of the chunks the patches stand for, in bytes (what a client saves).
        public var replacedFrameBytes: UInt64
    }

    /// One chunk to patch: its first sequence position in the new version, its chunk number and
    /// the old stream range it is compressed against.
    public struct Candidate: Sendable, Equatable {
        public var sequence: Int
        public var chunk: Int
        public var base: Range<UInt64>
    }

    /// The new chunks the old version lacks, each with its base (first uses only, stream order).
    public func candidates(old: PackIndex, new: PackIndex) -> [Candidate] {
        var oldFirst: [SHA256Digest: UInt64] = [:]
        for (s, c) in old.sequence.enumerated() where oldFirst[old.chunks[Int(c)].digest] == nil {
            oldFirst[old.chunks[Int(c)].digest] = old.sequenceOffsets[s]
        }
        let oldTotal = old.installSize, newTotal = new.installSize
        let n = new.sequence.count
        guard oldTotal > 0, n > 0 else { return [] }
        func size(_ s: Int) -> UInt64 { UInt64(new.chunks[Int(new.sequence[s])].uncompressedSize) }
        func known(_ s: Int) -> UInt64? { oldFirst[new.chunks[Int(new.sequence[s])].digest] }
        // The unchanged neighbours: ends before each position, starts after it (old and new offsets).
        var before = [(old: UInt64, new: UInt64)](repeating: (0, 0), count: n)
        var last: (old: UInt64, new: UInt64) = (0, 0)
        for s in 0..<n {
            before[s] = last
            if let o = known(s) { last = (o + size(s), new.sequenceOffsets[s] + size(s)) }
        }
        var after = [(old: UInt64, new: UInt64)](repeating: (oldTotal, newTotal), count: n)
        var next: (old: UInt64, new: UInt64) = (oldTotal, newTotal)
        for s in stride(from: n - 1, through: 0, by: -1) {
            after[s] = next
            if let o = known(s) { next = (o, new.sequenceOffsets[s]) }
        }
        var seen = Set<Int>()
        var out: [Candidate] = []
        for s in 0..<n {
            let c = Int(new.sequence[s])
            guard seen.insert(c).inserted, known(s) == nil else { continue }
            let position = before[s].old + (new.sequenceOffsets[s] - min(before[s].new, new.sequenceOffsets[s]))
            var base: Range<UInt64>
            if before[s].old < after[s].old, after[s].old - before[s].old <= min(UInt64(maximumBase), size(s) + 2 * UInt64(slack)) {
                base = before[s].old..<after[s].old
            } else {
                let lower = position >= UInt64(slack) ? position - UInt64(slack) : 0
                let upper = position + size(s) + UInt64(slack)
                base = min(lower, oldTotal)..<min(upper, oldTotal)
                if before[s].old < after[s].old { base = base.clamped(to: before[s].old..<after[s].old) }
            }
            if base.isEmpty {
                // Nothing between the neighbours (pure insertion): the old bytes at the position.
                let lower = position >= UInt64(slack) ? position - UInt64(slack) : 0
                base = min(lower, oldTotal)..<min(position + size(s) + UInt64(slack), oldTotal)
            }
            guard !base.isEmpty else { continue }
            if base.count > maximumBase { base = base.lowerBound..<base.lowerBound + UInt64(maximumBase) }
            out.append(Candidate(sequence: s, chunk: c, base: base))
        }
        return out
    }

    /// Writes the patch file from `old` to `new` at `path` (created, never replaced); nil, and no
    /// file, when no chunk has a patch smaller than its frame and there is no index patch.
    public func write(old: PackReader, new: PackReader, to path: String) throws -> Result? {
        let candidates = candidates(old: old.index, new: new.index)
        let indexPatch = try indexPatch(old: old, new: new)
        guard !candidates.isEmpty || indexPatch != nil else { return nil }
        let workers = max(1, min(threads, 64))
        let level = self.level ?? Self.automaticLevel(bytes: candidates.reduce(0) { $0 + UInt64(new.index.chunks[$1.chunk].uncompressedSize) })
        let compressors = (0..<workers).map { _ in ZstdCompressor(level: level) }
        let decompressors = (0..<workers).map { _ in ZstdDecompressor() }
        let window = workers * 4
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw PackWriteError.write(path, String(cString: strerror(errno))) }
        var ok = false
        defer { close(fd); if !ok { unlink(path) } }
        let hasher = SHA256Hasher()
        var offset: UInt64 = 0
        func append(_ bytes: [UInt8]) throws {
            var done = 0
            while done < bytes.count {
                let n = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress! + done, bytes.count - done) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw PackWriteError.write(path, String(cString: strerror(errno))) }
                done += n
            }
            hasher.update(bytes)
            offset += UInt64(bytes.count)
        }
        // A sealed pack's patch file is version 2: its frames and its table are sealed.
        let key = new.index.contentKey
        let formatVersion = key != nil ? PatchLayout.sealedFormatVersion
            : indexPatch != nil ? PatchLayout.indexPatchFormatVersion : PatchLayout.formatVersion
        try append(PatchLayout.header(version: formatVersion))
        var entries: [PatchEntry] = []
        var replaced: UInt64 = 0
        var start = 0
        while start < candidates.count {
            let batch = Array(candidates[start..<min(candidates.count, start + window)])
            let slots = PatchSlots(count: batch.count)
            DispatchQueue.concurrentPerform(iterations: workers) { w in
                var i = w
                while i < batch.count {
                    slots.set(i, Swift.Result<PatchFrame?, PackError> { () throws(PackError) in
                        try frame(for: batch[i], old: old, new: new, level: level, compressor: compressors[w], decompressor: decompressors[w])
                    })
                    i += workers
                }
            }
            for i in batch.indices {
                guard let made = try slots.get(i).get() else { continue }
                let entry = new.index.chunks[batch[i].chunk]
                entries.append(PatchEntry(chunkDigest: entry.digest, frameOffset: offset, frameSize: UInt32(made.frame.count),
                                          chunkSize: entry.uncompressedSize, baseOffset: batch[i].base.lowerBound,
                                          baseLength: UInt32(batch[i].base.count), baseDigest: made.baseDigest))
                replaced += UInt64(entry.compressedSize)
                try append(made.frame)
            }
            start += window
        }
        guard !entries.isEmpty || indexPatch != nil else { return nil }
        let table = PatchTable(from: old.digest, to: new.digest, entries: entries, isSealed: key != nil, indexPatch: indexPatch)
        let tableBytes = key.map { SealedPatchTable.seal(table, key: $0) } ?? table.encoded()
        let tableOffset = offset
        try append(tableBytes)
        guard fsync(fd) == 0 else { throw PackWriteError.write(path, "fsync: " + String(cString: strerror(errno))) }
        ok = true
        return Result(table: table, tableOffset: tableOffset, tableLength: UInt64(tableBytes.count), tableDigest: SHA256Digest.hash(tableBytes),
                      size: offset, sha256: hasher.finalize(), replacedFrameBytes: replaced)
    }

    /// The index patch from `old` to `new` (docs/FORMAT.md, "Patch file"): the new expanded
    /// index compressed against the old one. Nil for a sealed pack (its index is sealed), an
    /// index without a compressed file table, expanded indexes that together pass the window's
    /// 2^27 bytes, a frame no smaller than the new index, or one this zstd cannot turn back into
    /// the new index (a pack written by another zstd version): the client then fetches the index.
    public func indexPatch(old: PackReader, new: PackReader) throws(PackError) -> IndexPatch? {
        guard old.keyID == nil, new.keyID == nil, ExpandedIndex.expands(formatVersion: old.index.formatVersion),
              ExpandedIndex.expands(formatVersion: new.index.formatVersion) else { return nil }
        let oldBytes = try old.indexBytes(), newBytes = try new.indexBytes()
        let from = try ExpandedIndex.expand(oldBytes, indexOffset: old.trailer.indexOffset)
        let to = try ExpandedIndex.expand(newBytes, indexOffset: new.trailer.indexOffset)
        guard from.count + to.count <= PatchLayout.maximumExpandedIndexLength else { return nil }
        let level = self.level ?? Self.indexPatchLevel(bytes: UInt64(to.count))
        let frame = to.withUnsafeBytes { t in from.withUnsafeBytes { f in ZstdCompressor(level: level).compress(t, prefix: f, level: level) } }
        guard frame.count < newBytes.count else { return nil }
        let patch = IndexPatch(expandedLength: UInt64(to.count), frame: frame)
        guard (try? patch.apply(to: oldBytes, previousOffset: old.trailer.indexOffset, digest: new.digest)) != nil else { return nil }
        return patch
    }

    /// The level for patching `bytes` of new chunks: 19 up to 64 MiB (a typical update: every
    /// byte saved counts, and it takes seconds), 9 up to 256 MiB, 3 beyond. Where much changed, the
    /// changed bytes are mostly new content that no level compresses against the base, and level
    /// 19 runs at about 2 MB/s against level 3's 80 (1 % of the 4 KiB pages of a random file
    /// rewritten: the three levels' patches differ by less than 0.1 %).
    public static func automaticLevel(bytes: UInt64) -> Int32 {
        bytes <= 64 << 20 ? 19 : bytes <= 256 << 20 ? 9 : 3
    }

    /// The level for an index patch whose new expanded index takes `bytes`: 19 up to 2 MiB (about
    /// 160,000 files, under a second), 16 beyond. Two expanded indexes differ in a few entries, and
    /// level 16 finds them as well as 19 does in a quarter of the time (for a million files, 12.5 MB
    /// expanded with 4 rewritten: 6,971 bytes in 1.9 s at 16, 6,669 bytes in 7.8 s and 47 MB more
    /// memory at 19; 20,594 bytes at 3).
    public static func indexPatchLevel(bytes: UInt64) -> Int32 {
        bytes <= 2 << 20 ? 19 : 16
    }

    struct PatchFrame: Sendable { var frame: [UInt8]; var baseDigest: SHA256Digest }

    /// The patch frame for one candidate, or nil when it is not smaller than the chunk's frame.
    private func frame(for candidate: Candidate, old: PackReader, new: PackReader, level: Int32, compressor: ZstdCompressor,
                       decompressor: ZstdDecompressor) throws(PackError) -> PatchFrame? {
        let entry = new.index.chunks[candidate.chunk]
        let chunk = try new.chunk(candidate.chunk, using: decompressor)
        let base = try Self.streamBytes(old, candidate.base, decompressor: decompressor)
        var frame = chunk.withUnsafeBytes { c in base.withUnsafeBytes { b in compressor.compress(c, prefix: b, level: level) } }
        // A sealed pack's patch frames are sealed like its chunk frames (purpose `patch`).
        if let key = new.index.contentKey { frame = SealedFrame.seal(frame, purpose: .patch, key: key) }
        guard frame.count < Int(entry.compressedSize) else { return nil }
        return PatchFrame(frame: frame, baseDigest: SHA256Digest.hash(base))
    }

    /// The verified bytes of `range` of a pack's content stream.
    static func streamBytes(_ reader: PackReader, _ range: Range<UInt64>, decompressor: ZstdDecompressor) throws(PackError) -> [UInt8] {
        let index = reader.index
        var lo = 0, hi = index.sequence.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if index.sequenceOffsets[mid] + UInt64(index.chunks[Int(index.sequence[mid])].uncompressedSize) <= range.lowerBound { lo = mid + 1 } else { hi = mid }
        }
        var out: [UInt8] = []
        out.reserveCapacity(range.count)
        var s = lo
        while s < index.sequence.count, index.sequenceOffsets[s] < range.upperBound {
            let bytes = try reader.chunk(Int(index.sequence[s]), using: decompressor)
            let chunkStart = index.sequenceOffsets[s]
            let from = Int(max(range.lowerBound, chunkStart) - chunkStart)
            let to = Int(min(range.upperBound, chunkStart + UInt64(bytes.count)) - chunkStart)
            out.append(contentsOf: bytes[from..<to])
            s += 1
        }
        return out
    }
}

/// Fixed slots written by concurrent workers, one each.
private final class PatchSlots: @unchecked Sendable {
    private var slots: [Swift.Result<PatchWriter.PatchFrame?, PackError>?]
    private let lock = NSLock()
    init(count: Int) { slots = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ r: Swift.Result<PatchWriter.PatchFrame?, PackError>) { lock.withLock { slots[i] = r } }
    func get(_ i: Int) -> Swift.Result<PatchWriter.PatchFrame?, PackError> { lock.withLock { slots[i]! } }
}
