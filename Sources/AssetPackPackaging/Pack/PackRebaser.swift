import AssetPackFormat
import Foundation

/// Turns a device variant's pack file into a pack file with bases (format version 4 or 5,
/// docs/FORMAT.md "Pack file with bases"): the frames of the chunks that other files of its
/// group already store — its group's default file, the variants before it in the catalog's order — are
/// dropped from it, and its index points at those frames where they lie, so that what the
/// files of a group share is stored once in a repository. Chunks, the sequence and the files
/// stay as they were; only where frames lie changes (and so the digest).
public enum PackRebaser {
    /// A file the variant may take frames from: where it lies now, and the SHA-256 and size the
    /// catalog lists for it.
    public struct Candidate: Sendable {
        public var path: String
        public var sha256: SHA256Digest
        public var size: UInt64

        public init(path: String, sha256: SHA256Digest, size: UInt64) {
            self.path = path
            self.sha256 = sha256
            self.size = size
        }
    }

    /// What a rebase wrote.
    public struct Result: Sendable {
        /// Chunks whose frames the bases hold.
        public var sharedChunks: Int
        /// Bytes of frames the written file does not store (they lie in the bases).
        public var sharedBytes: UInt64
        /// SHA-256 of the whole written file.
        public var sha256: SHA256Digest
        /// The SHA-256 of each base the written file names, in its index's order.
        public var bases: [SHA256Digest]
    }

    /// Writes to `output` the pack at `path` with every frame a candidate stores itself (a chunk
    /// of the same SHA-256 and size, among the frames the candidate's file holds, not those it
    /// takes from its own bases) taken from there. `candidates` come in order of precedence, the
    /// group's default first: a frame two candidates hold is taken from the first, so the rule
    /// is deterministic. The written file names only the candidates it takes frames from, in
    /// that order; it is version 4 when that is the first candidate alone (the default), else
    /// version 5. Returns nil, writing nothing, when no candidate holds a chunk of the pack, or
    /// when the pack is sealed or already has bases. A sealed candidate, or one chunked with
    /// other parameters, is passed over.
    public static func rebase(_ path: String, onto candidates: [Candidate], to output: String) throws -> Result? {
        let variant = try PackReader(path: path)
        let old = variant.index
        guard !old.isSealed, old.bases.isEmpty else { return nil }
        var holder: [SHA256Digest: (candidate: Int, entry: ChunkEntry)] = [:]
        for (n, candidate) in candidates.enumerated() {
            let reader = try PackReader(path: candidate.path)
            guard reader.fileSize == candidate.size else {
                throw PackError.io("\(candidate.path) has \(reader.fileSize) bytes, not the \(candidate.size) the base was described with")
            }
            let index = reader.index
            guard !index.isSealed, index.chunking == old.chunking else { continue }
            // Only the frames the candidate's file stores itself.
            for c in index.baseChunkCount..<index.chunks.count where holder[index.chunks[c].digest] == nil {
                holder[index.chunks[c].digest] = (n, index.chunks[c])
            }
        }
        var shared: [(old: Int, candidate: Int, entry: ChunkEntry)] = []
        var own: [Int] = []
        for (c, entry) in old.chunks.enumerated() {
            if let h = holder[entry.digest], h.entry.uncompressedSize == entry.uncompressedSize {
                shared.append((c, h.candidate, h.entry))
            } else {
                own.append(c)
            }
        }
        guard !shared.isEmpty else { return nil }
        // Each base's frames in that file's order, the bases in the candidates' order; this
        // file's own frames in their order of first use.
        shared.sort { ($0.candidate, $0.entry.offset) < ($1.candidate, $1.entry.offset) }
        var bases: [PackBase] = []
        for s in shared {
            if bases.count == 0 || bases[bases.count - 1].sha256 != candidates[s.candidate].sha256 {
                bases.append(PackBase(sha256: candidates[s.candidate].sha256, size: candidates[s.candidate].size, chunkCount: 0))
            }
            bases[bases.count - 1].chunkCount += 1
        }
        var chunks: [ChunkEntry] = shared.map(\.entry)
        var renumbered = [UInt32](repeating: 0, count: old.chunks.count)
        for (n, s) in shared.enumerated() { renumbered[s.old] = UInt32(n) }
        var offset = UInt64(PackLayout.headerSize)
        for c in own {
            renumbered[c] = UInt32(chunks.count)
            var entry = old.chunks[c]
            entry.offset = offset
            offset += UInt64(entry.compressedSize)
            chunks.append(entry)
        }
        let defaultAlone = bases.count == 1 && bases[0].sha256 == candidates[0].sha256
        let version = defaultAlone ? PackLayout.baseFormatVersion : PackLayout.basesFormatVersion
        let index = PackIndex(metadata: old.metadata, chunking: old.chunking, chunks: chunks, sequence: old.sequence.map { renumbered[Int($0)] },
                              files: old.files, formatVersion: version, bases: bases)
        let indexBytes = index.encoded()
        let file = try AtomicFile(destination: output, digesting: true)
        let source = open(path, O_RDONLY | O_CLOEXEC)
        guard source >= 0 else { throw PackError.io("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(source) }
        try file.write(PackLayout.header(version: version))
        for c in own {
            let entry = old.chunks[c]
            var frame = [UInt8](repeating: 0, count: Int(entry.compressedSize))
            let n = frame.withUnsafeMutableBytes { pread(source, $0.baseAddress!, $0.count, off_t(entry.offset)) }
            guard n == frame.count else { throw PackError.io("cannot read \(path) at byte \(entry.offset)") }
            try file.write(frame)
        }
        try file.write(indexBytes)
        try file.write(PackTrailer(indexOffset: offset, indexLength: UInt64(indexBytes.count), indexDigest: SHA256Digest.hash(indexBytes),
                                   formatVersion: version).encoded())
        let sha256 = file.digest()!
        try file.commit()
        return Result(sharedChunks: shared.count, sharedBytes: shared.reduce(0) { $0 + UInt64($1.entry.compressedSize) }, sha256: sha256,
                      bases: bases.map(\.sha256))
    }
}
