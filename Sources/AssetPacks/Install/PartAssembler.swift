import AssetPackFormat
import AssetPackTransport
import Foundation

/// Assembles one part of an install in stream order: each frame is taken from the part's spool
/// once it is whole, decompressed (a patch frame against its base, read from the previous
/// version's files, read ahead by `BaseReadAhead`, and checked), verified (SHA-256) and written
/// straight into its files (of a patched chunk, the files whose bytes did not change are linked
/// instead), and only then let go of; chunks from the previous version, from seed folders or from earlier in
/// the part are placed between frames (each read, then verified, then written: the bytes
/// checked are the bytes written), and a chunk whose bytes do not verify is fetched again on its own. The
/// network side (`PartDownloader`) fills the spool on a thread of its own meanwhile.
///
/// A killed process loses nothing it had received: the next run finds every chunk before the
/// first missing one verified on disk, and the bytes after it in the spool.
///
/// While it runs, the part can give the end of its stretch to another part (`cede`): it then
/// stops before that position, and its network side where that position's frames begin.
final class PartAssembler: @unchecked Sendable {
    let index: PackIndex
    let plan: InstallPlan
    /// The part as it stands (its end moves down when it cedes the rest); under `bounds`.
    private var stretch: InstallPart
    /// The received bytes not yet placed; nil for a part that needs no network bytes.
    let spool: PartSpool?
    private var writer: ContentRangeWriter
    private let staged: ContentStreamReader
    private let previous: ContentStreamReader?
    /// Links of the previous version's files that a patched chunk holds unchanged
    /// (`PreviousVersionLinks.linkUnchangedFiles`); nil without an installed version whose files
    /// its commit's change time vouches for (`verifiedBefore`, 0 when none does).
    private var links: PreviousVersionLinks?
    private let verifiedBefore: Int64
    /// Where seed folders hold chunks, if the plan takes any from there.
    var seeds: SeedMatches?
    /// The bytes placed, by source (the network side counts its own).
    var sources = SourceCounters()
    private let decompressor = ZstdDecompressor()
    /// The next sequence position to place; under `bounds`, and read by the thread that splits parts.
    private var position: Int
    private let bounds = NSLock()
    /// Patches applied, and patches discarded for the full frame (their base missing or
    /// modified, or their result not the chunk).
    private(set) var patchesApplied = 0
    private(set) var patchesDiscarded = 0
    /// Files of patched chunks linked from the previous version instead of written.
    private(set) var filesLinkedFromPatchedChunks = 0
    /// Chunks of the previous version copied inside the kernel, unread (`copyUnchanged`).
    private(set) var chunksCopiedUnread = 0
    /// Told of each chunk placed, and of each frame from the spool that did not verify.
    var placed: () -> Void = {}
    var corruptFrame: () -> Void = {}

    /// - Parameters:
    ///   - directory: the folder the files are assembled in.
    ///   - root: the storage root, through which the spool is opened.
    ///   - spoolPath: the file that keeps the received bytes, relative to `root`.
    ///   - start: the first position not yet on disk.
    init(index: PackIndex, plan: InstallPlan, part: InstallPart, directory: ConfinedDirectory,
         root: ConfinedDirectory, spoolPath: String,
         previous: ContentStreamReader?, verifiedBefore: Int64 = 0, start: Int) throws {
        self.index = index
        self.plan = plan
        stretch = part
        // Its own open file: a part goes through the previous version's large files in order.
        self.previous = previous?.holdingFiles()
        self.verifiedBefore = verifiedBefore
        if verifiedBefore > 0, let old = previous?.directory { links = PreviousVersionLinks(from: old, to: directory) }
        writer = ContentRangeWriter(root: directory, index: index, range: part.content, includesEnd: part.isLast, skipping: plan.linkedFiles)
        staged = ContentStreamReader(index: index, directory: directory)
        position = start
        var largest = 0
        for s in part.sequences { largest = max(largest, Int(plan.frameSize(s, in: index))) }
        // Room for 4 MiB (two bursts of a rate-limited server) and twice the largest frame, or for
        // the part's whole download when that is less.
        let room = min(Int(part.download.upperBound - part.download.lowerBound), max(4 << 20, 2 * largest + (64 << 10)))
        spool = largest > 0 ? try PartSpool(root: root, path: spoolPath, capacity: room, end: part.download.upperBound) : nil
        var next = part.download.upperBound
        for s in start..<part.sequences.upperBound { if let d = plan.downloadOffset(s) { next = d; break } }
        _ = spool?.resume(at: next)
    }

    /// Where the network side goes on: the first download byte neither placed nor held.
    var downloadStart: UInt64 { spool?.end ?? part.download.upperBound }

    /// The part as it stands.
    var part: InstallPart { bounds.withLock { stretch } }

    /// The positions still to place (from the next one to the part's end as it stands).
    var remaining: Range<Int> { bounds.withLock { position..<stretch.sequences.upperBound } }

    /// Gives positions from `rest.sequences.lowerBound` on to another part (`rest`, the second
    /// half of `InstallPart.split(at:)`), if none of them is placed yet and the spool holds no
    /// byte of their frames: the part then ends at `kept`. Returns whether it did.
    func cede(keeping kept: InstallPart, rest: InstallPart) -> Bool {
        bounds.withLock {
            guard position < rest.sequences.lowerBound, kept.sequences.lowerBound == stretch.sequences.lowerBound,
                  rest.sequences.upperBound == stretch.sequences.upperBound else { return false }
            if !rest.download.isEmpty {
                guard let spool, spool.limit(to: rest.download.lowerBound) else { return false }
            }
            stretch = kept
            return true
        }
    }

    /// Whether position `p` is still this part's (checked before each position is placed).
    private func claim(_ p: Int) -> Bool { bounds.withLock { p < stretch.sequences.upperBound } }

    /// Places every chunk from `position` to the part's end, then creates its empty files.
    /// - Parameter refetch: fetches a chunk's frame alone and returns its verified bytes.
    func run(refetch: (_ chunk: Int) throws -> [UInt8], cancellation: CancellationFlag) throws {
        defer { writer.abandon() }
        let readAhead = baseReadAhead()
        readAhead?.start(threads: 3)
        defer { readAhead?.stop() }
        // The part's start never moves (only its end, when it cedes the rest).
        let lower = part.sequences.lowerBound
        while claim(position) {
            if cancellation.isCancelled { throw AssetPackManagerError.cancelled }
            readAhead?.reached(position)
            let c = Int(index.sequence[position])
            switch plan.sources[position] {
            case .present:
                advance()
                placed()
            case .earlier(let first):
                // A copy of a chunk first used in another part waits until every part is done.
                if first < lower { advance(); continue }
                try place(staged.verifiedChunk(atSequence: first) ?? refetch(c))
            case .previous(let p):
                if try copyUnchanged(atSequence: p) {
                    let size = UInt64(index.chunks[c].uncompressedSize)
                    sources.add(.local, nil, bytes: size, saved: UInt64(index.chunks[c].compressedSize))
                    advance()
                    placed()
                } else if let bytes = previous?.verifiedChunk(atSequence: p) {
                    sources.add(.local, nil, bytes: UInt64(bytes.count), saved: UInt64(index.chunks[c].compressedSize))
                    try place(bytes)
                } else {
                    try place(refetch(c))
                }
            case .seed:
                // Read once into memory, verified there, and those bytes written: a seed file
                // that changes meanwhile gives a chunk that does not verify, fetched instead.
                if let found = seeds?.verifiedChunk(c, entry: index.chunks[c]) {
                    sources.add(.seed, found.folder, bytes: UInt64(found.bytes.count), saved: UInt64(index.chunks[c].compressedSize))
                    try place(found.bytes)
                } else {
                    try place(refetch(c))
                }
            case .remote(let d):
                let size = Int(index.chunks[c].compressedSize)
                let decompressor = self.decompressor, index = self.index, part = self.part
                guard let spool, let verified = try spool.withBytes(at: d, length: size, cancellation: cancellation, { frame in
                    try? ChunkVerifier.open(frame, entry: index.chunks[c], chunkIndex: c, index: index, decompressor: decompressor, sealedCheck: .digest)
                }) else {
                    throw AssetPackManagerError.storage("the bytes at download offset \(d) of part \(part.sequences) were let go before they were placed")
                }
                if verified == nil { corruptFrame() }
                try place(verified ?? refetch(c))
                // Let go of the frame only once its chunk is on disk.
                spool.release(upTo: d + UInt64(size))
            case .patched(let d, let e):
                guard let patches = plan.patches else { throw AssetPackManagerError.storage("a patched chunk without a patch file") }
                let entry = patches.table.entries[e]
                let size = Int(entry.frameSize)
                // The base as it stands in the installed files: missing or modified → nil.
                let base = previous?.read(offset: entry.baseOffset, length: Int(entry.baseLength))
                let decompressor = self.decompressor, digest = index.chunks[c].digest, key = index.contentKey
                guard let spool, let outcome = try spool.withBytes(at: d, length: size, cancellation: cancellation, { frame -> Result<[UInt8], PatchApplier.Failure> in
                    guard let base else { return .failure(.baseMismatch) }
                    return Result { () throws(PatchApplier.Failure) in
                        try PatchApplier.apply(frame, base: base, entry: entry, chunkDigest: digest, decompressor: decompressor, key: key)
                    }
                }) else {
                    throw AssetPackManagerError.storage("the bytes at download offset \(d) of part \(part.sequences) were let go before they were placed")
                }
                switch outcome {
                case .success(let bytes):
                    patchesApplied += 1
                    if let base, let old = previous?.index, links != nil {
                        let writer = self.writer, at = index.sequenceOffsets[position], verifiedBefore = self.verifiedBefore
                        let linked = bytes.withUnsafeBytes { chunk in
                            base.withUnsafeBytes { base in
                                links!.linkUnchangedFiles(inChunk: chunk, at: at, of: index, previous: old, base: base, baseOffset: entry.baseOffset,
                                                          verifiedBefore: verifiedBefore, skipping: writer.isSkipped)
                            }
                        }
                        for f in linked { self.writer.skip(f) }
                        filesLinkedFromPatchedChunks += linked.count
                    }
                    try place(bytes)
                case .failure(let failure):
                    // The patch is discarded and the chunk's full frame fetched instead. Only a
                    // frame that decodes wrong can be the mirror's doing, not a base on disk.
                    if failure != .baseMismatch { corruptFrame() }
                    patchesDiscarded += 1
                    try place(refetch(c))
                }
                spool.release(upTo: d + UInt64(size))
            }
        }
        // The part ends where it stands now (nothing moves it once every position is placed).
        let part = self.part
        writer.end(at: part.content.upperBound, includesEnd: part.isLast)
        try writer.finish()
        spool?.remove()
    }

    /// What reads ahead the bases of the part's patches still to apply; nil without any.
    private func baseReadAhead() -> BaseReadAhead? {
        guard let patches = plan.patches, let previous, let directory = previous.directory else { return nil }
        var bases: [(position: Int, range: Range<UInt64>)] = []
        for p in remaining {
            guard case .patched(_, let e) = plan.sources[p] else { continue }
            let entry = patches.table.entries[e]
            bases.append((p, entry.baseOffset..<entry.baseOffset + UInt64(entry.baseLength)))
        }
        return bases.isEmpty ? nil : BaseReadAhead(previous: previous.index, directory: directory, bases: bases)
    }

    /// Places the previous version's chunk at its sequence position `p` by copying it inside the
    /// kernel, when it lies whole in one installed file unchanged since its verified install and
    /// lands whole in one file of this part: its bytes are then neither hashed (as such a file is
    /// linked without being read) nor passed through memory. False when it cannot be copied so.
    private func copyUnchanged(atSequence p: Int) throws -> Bool {
        guard let previous else { return false }
        let at = index.sequenceOffsets[position]
        let copied = try previous.withUnchangedChunkFile(atSequence: p) { fd, offset, length in
            try writer.copy(from: fd, at: offset, length: length, to: at)
        } ?? false
        if copied { chunksCopiedUnread += 1 }
        return copied
    }

    private func place(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try writer.write($0, at: index.sequenceOffsets[position]) }
        advance()
        placed()
    }

    private func advance() { bounds.withLock { position += 1 } }
}
