/// A stored chunk: a zstd frame at `offset` that decompresses to `uncompressedSize` bytes whose
/// SHA-256 is `digest`. Identical chunks are stored once.
public struct ChunkEntry: Sendable, Equatable {
    public var digest: SHA256Digest
    public var offset: UInt64
    public var compressedSize: UInt32
    public var uncompressedSize: UInt32

    package init(digest: SHA256Digest, offset: UInt64, compressedSize: UInt32, uncompressedSize: UInt32) {
        self.digest = digest
        self.offset = offset
        self.compressedSize = compressedSize
        self.uncompressedSize = uncompressedSize
    }
}

/// A piece of one file that lies in one chunk.
public struct ChunkSpan: Sendable, Equatable {
    /// Position in `PackIndex.sequence`.
    public var sequenceIndex: Int
    public var chunkIndex: Int
    /// Where the file's bytes start inside the uncompressed chunk, and how many there are.
    public var offsetInChunk: Int
    public var length: Int
}

/// The index of a pack. Files, in byte-wise path order, are laid end to end in one content stream;
/// `sequence` lists the chunks that make up that stream, in order (a chunk may recur).
public struct PackIndex: Sendable, Equatable {
    public var metadata: PackMetadata
    public var chunking: ChunkingParameters
    public var chunks: [ChunkEntry]
    public var sequence: [UInt32]
    public var files: PackFiles
    /// The pack format version the index is encoded in (`encoded()` keeps it): 2 for packs
    /// written now, 1 for older ones. The model is the same; only the file table's bytes differ.
    public var formatVersion: UInt32
    /// For a sealed pack (version 3), the content key its index was opened with: its chunk frames
    /// open with it (`ChunkVerifier`). Not part of the index's bytes or of equality.
    public var contentKey: ContentKey?
    /// Whether the pack is sealed (format version 3).
    public var isSealed: Bool { formatVersion == SealedIndex.formatVersion }
    /// For a pack file with bases (format versions 4 and 5), the files that hold the frames of
    /// the first chunks, in the order the chunk table lists their frames (version 4: exactly
    /// one, the group's default); empty otherwise.
    public var bases: [PackBase]

    /// Start of each file in the content stream (derived).
    public var fileOffsets: PackFiles.Offsets { files.offsets }
    /// Start of each sequence entry in the content stream (derived).
    public private(set) var sequenceOffsets: [UInt64] = []

    public init(metadata: PackMetadata, chunking: ChunkingParameters, chunks: [ChunkEntry], sequence: [UInt32], files: [FileEntry],
                formatVersion: UInt32 = PackLayout.formatVersion, bases: [PackBase] = []) {
        self.init(metadata: metadata, chunking: chunking, chunks: chunks, sequence: sequence, files: PackFiles(files),
                  formatVersion: formatVersion, bases: bases)
    }

    public init(metadata: PackMetadata, chunking: ChunkingParameters, chunks: [ChunkEntry], sequence: [UInt32], files: PackFiles,
                formatVersion: UInt32 = PackLayout.formatVersion, bases: [PackBase] = []) {
        self.formatVersion = formatVersion
        self.bases = bases
        self.metadata = metadata
        self.chunking = chunking
        self.chunks = chunks
        self.sequence = sequence
        self.files = files
        deriveOffsets()
    }

    private mutating func deriveOffsets() {
        var o: UInt64 = 0
        sequenceOffsets = []
        sequenceOffsets.reserveCapacity(sequence.count)
        for s in sequence { sequenceOffsets.append(o); o += UInt64(chunks[Int(s)].uncompressedSize) }
    }

    public static func == (a: PackIndex, b: PackIndex) -> Bool {
        a.metadata == b.metadata && a.chunking == b.chunking && a.chunks == b.chunks && a.sequence == b.sequence && a.files == b.files
            && a.formatVersion == b.formatVersion && a.bases == b.bases
    }

    /// Uncompressed bytes of all files (the install size).
    public var installSize: UInt64 { files.totalSize }
    /// Compressed bytes of all chunks (the bases' frames included: what a fresh install fetches).
    public var compressedSize: UInt64 { chunks.reduce(0) { $0 + UInt64($1.compressedSize) } }

    /// Index of the file at `path`, by binary search (files are sorted byte-wise).
    public func fileIndex(of path: String) -> Int? { files.index(of: path) }

    /// The file whose bytes include stream offset `offset` (never an empty file), if any.
    public func file(containing offset: UInt64) -> Int? {
        // First file that ends after `offset`; file ends never decrease.
        var lo = 0, hi = files.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if files.end(at: mid) <= offset { lo = mid + 1 } else { hi = mid }
        }
        return lo < files.count && files.offset(at: lo) <= offset ? lo : nil
    }

    /// The chunks that hold file `i`, in order, with the part of each that belongs to it.
    public func spans(ofFile i: Int) -> [ChunkSpan] {
        let start = files.offset(at: i), end = files.end(at: i)
        guard end > start else { return [] }
        // Last sequence entry that starts at or before `start`.
        var lo = 0, hi = sequence.count
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if sequenceOffsets[mid] <= start { lo = mid } else { hi = mid }
        }
        var spans: [ChunkSpan] = []
        var s = lo
        while s < sequence.count && sequenceOffsets[s] < end {
            let c = Int(sequence[s])
            let chunkStart = sequenceOffsets[s], chunkEnd = chunkStart + UInt64(chunks[c].uncompressedSize)
            let from = max(start, chunkStart), to = min(end, chunkEnd)
            spans.append(ChunkSpan(sequenceIndex: s, chunkIndex: c, offsetInChunk: Int(from - chunkStart), length: Int(to - from)))
            s += 1
        }
        return spans
    }

    /// The paths of the files that use chunk `c` (for error messages).
    public func files(usingChunk c: Int) -> [String] {
        var out: [String] = []
        for (s, entry) in sequence.enumerated() where Int(entry) == c {
            let start = sequenceOffsets[s], end = start + UInt64(chunks[c].uncompressedSize)
            // Files overlapping [start, end).
            var lo = 0, hi = files.count
            while lo < hi { let mid = (lo + hi) / 2; if files.end(at: mid) <= start { lo = mid + 1 } else { hi = mid } }
            var f = lo
            while f < files.count && files.offset(at: f) < end {
                if files.size(at: f) > 0, case let path = files.path(at: f), !out.contains(path) { out.append(path) }
                f += 1
            }
        }
        return out
    }
}
