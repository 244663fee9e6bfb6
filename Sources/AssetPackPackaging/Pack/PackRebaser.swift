import AssetPackFormat
import Foundation

/// Turns a device variant's pack file into a pack file with a base (format version 4,
/// docs/FORMAT.md "Pack file with a base"): the frames of the chunks its group's default file
/// also stores are dropped from it, and its index points at the default's frames instead, so
/// that what the variants share with the default is stored once in a repository. Chunks, the
/// sequence and the files stay as they were; only where frames lie changes (and so the digest).
public enum PackRebaser {
    /// What a rebase wrote.
    public struct Result: Sendable {
        /// Chunks whose frames the base holds.
        public var sharedChunks: Int
        /// Bytes of frames the written file does not store (they lie in the base).
        public var sharedBytes: UInt64
        /// SHA-256 of the whole written file.
        public var sha256: SHA256Digest
    }

    /// Writes to `output` the pack at `path` with every frame the unsealed pack at `basePath`
    /// also stores (a chunk of the same SHA-256 and size) taken from there. `baseSHA256` and
    /// `baseSize` pin the base file (the SHA-256 of its bytes, as the catalog lists it). Returns
    /// nil, writing nothing, when the two share no chunk, when either is sealed or already has a
    /// base, or when their chunking differs: the file then stays as it is.
    public static func rebase(_ path: String, onto basePath: String, baseSHA256: SHA256Digest, baseSize: UInt64,
                              to output: String) throws -> Result? {
        let variant = try PackReader(path: path)
        let base = try PackReader(path: basePath)
        guard base.fileSize == baseSize else {
            throw PackError.io("\(basePath) has \(base.fileSize) bytes, not the \(baseSize) the base was described with")
        }
        let old = variant.index
        guard !old.isSealed, !base.index.isSealed, old.base == nil, base.index.base == nil, old.chunking == base.index.chunking else { return nil }
        var inBase: [SHA256Digest: ChunkEntry] = [:]
        for c in base.index.chunks { inBase[c.digest] = c }
        var shared: [(old: Int, entry: ChunkEntry)] = []
        var own: [Int] = []
        for (c, entry) in old.chunks.enumerated() {
            if let b = inBase[entry.digest], b.uncompressedSize == entry.uncompressedSize { shared.append((c, b)) } else { own.append(c) }
        }
        guard !shared.isEmpty else { return nil }
        // The base's frames in the base's order; this file's own in their order of first use.
        shared.sort { $0.entry.offset < $1.entry.offset }
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
        let version = PackLayout.baseFormatVersion
        let index = PackIndex(metadata: old.metadata, chunking: old.chunking, chunks: chunks, sequence: old.sequence.map { renumbered[Int($0)] },
                              files: old.files, formatVersion: version,
                              base: PackBase(sha256: baseSHA256, size: baseSize, chunkCount: shared.count))
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
        return Result(sharedChunks: shared.count, sharedBytes: shared.reduce(0) { $0 + UInt64($1.entry.compressedSize) }, sha256: sha256)
    }
}
