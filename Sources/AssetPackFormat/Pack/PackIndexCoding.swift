import Foundation

extension PackIndex {
    /// The index bytes exactly as stored in a pack (docs/FORMAT.md, "Index"), in the index's
    /// `formatVersion`.
    public func encoded() -> [UInt8] {
        encoded(fileTable: Self.encodedFileTable(files, formatVersion: formatVersion))
    }

    /// `encoded()` with the file table compressed at zstd's fastest level: bytes that decode to
    /// the same index but are not the pack's own, for a store that keeps an index to decode it
    /// again (a fraction of the time and of the compressor's memory at the end of an install).
    package func encodedForStore() -> [UInt8] {
        encoded(fileTable: Self.encodedFileTable(files, formatVersion: formatVersion, compressionLevel: 1))
    }

    /// The file table of `files` as `encoded()` ends with it in `formatVersion`: a writer encodes
    /// it as soon as the files are known, while their chunks are still being compressed, and
    /// hands it to `encoded(fileTable:)`.
    package static func encodedFileTable(_ files: PackFiles, formatVersion: UInt32,
                                         compressionLevel: Int32 = PackFileTableEncoder.packCompressionLevel) -> [UInt8] {
        var encoder = PackFileTableEncoder(formatVersion: formatVersion, compressionLevel: compressionLevel)
        files.forEachPath { i, path in
            encoder.add(path: path, mode: files.mode(at: i), size: files.size(at: i))
            return true
        }
        return encoder.finish()
    }

    /// The bytes a file table that `encodedFileTable` gave in `formatVersion` takes once
    /// decoded: the table itself in version 1, its `tableLength` (the decompressed table) after.
    package static func decodedFileTableLength(_ encoded: [UInt8], formatVersion: UInt32) -> UInt64 {
        guard formatVersion != 1, encoded.count >= 16 else { return UInt64(encoded.count) }
        return encoded[8..<16].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    /// `encoded()`, with the file table already encoded (`encodedFileTable` of `files` in
    /// `formatVersion`).
    package func encoded(fileTable: [UInt8]) -> [UInt8] {
        var w = ByteWriter()
        w.append(PackLayout.indexMagic)
        w.append(formatVersion)
        let meta = metadata.canonicalJSON()
        w.append(UInt32(meta.count))
        w.append(meta)
        w.append(UInt32(chunking.minimumSize))
        w.append(UInt32(chunking.averageSize))
        w.append(UInt32(chunking.maximumSize))
        // Version 4: one base record; version 5: their count, then the records.
        if formatVersion == PackLayout.basesFormatVersion { w.append(UInt64(bases.count)) }
        if PackLayout.hasBases(formatVersion) {
            for base in bases {
                w.append(base.sha256.bytes)
                w.append(base.size)
                w.append(UInt64(base.chunkCount))
            }
        }
        w.append(UInt64(chunks.count))
        w.bytes.reserveCapacity(w.bytes.count + chunks.count * PackLayout.chunkEntrySize + sequence.count * 4 + fileTable.count + 8)
        for c in chunks {
            w.append(c.digest.bytes)
            w.append(c.offset)
            w.append(c.compressedSize)
            w.append(c.uncompressedSize)
        }
        w.append(UInt64(sequence.count))
        for s in sequence { w.append(s) }
        w.append(fileTable)
        return w.bytes
    }

    /// Decodes and checks index bytes that start at file offset `indexOffset`. Every structural
    /// rule of the format is enforced here, so a reader that accepts an index can trust it:
    /// chunks lie end to end between the header and the index, sizes are bounded, every chunk is
    /// used, paths are safe, sorted and unique, and no path is both a file and a directory.
    /// A version-3 index (a sealed pack's) is accepted only when `opened` says it came out of a
    /// sealed index (`SealedIndex.open`) or a store that keeps opened indexes: in a pack file it
    /// would be a sealed pack's index stored in plaintext.
    public static func decode(_ bytes: [UInt8], indexOffset: UInt64, opened: Bool = false) throws(PackError) -> PackIndex {
        var r = ByteReader(bytes, context: "index", base: indexOffset)
        guard try r.bytes(8) == PackLayout.indexMagic else { throw .malformed("index", at: indexOffset, "bad index magic") }
        let version = try r.u32()
        guard PackLayout.readableVersions.contains(version) else { throw .unsupportedVersion(version) }
        guard opened || version != SealedIndex.formatVersion else {
            throw .malformed("index", at: indexOffset.saturatingAdding(8), "declares version 3 (a sealed pack) but is stored in plaintext: a sealed pack's index is always sealed")
        }
        // A sealed frame is its zstd frame plus a nonce and a tag.
        let frameOverhead: UInt64 = version == SealedIndex.formatVersion ? UInt64(SealedFrame.overhead) : 0
        let metaAt = r.offset
        let metaLength = Int(try r.u32())
        let metaBytes = try r.bytes(metaLength)
        let metadata: PackMetadata
        do { metadata = try JSONDecoder().decode(PackMetadata.self, from: Data(metaBytes)) } catch {
            throw .malformed("index metadata", at: metaAt, "not valid pack metadata JSON")
        }
        if let problem = AssetPackID.problem(with: metadata.assetPackID) {
            throw .malformed("index metadata", at: metaAt, "asset pack ID \"\(metadata.assetPackID)\" \(problem)")
        }
        let paramsAt = r.offset
        let chunking = ChunkingParameters(minimumSize: Int(try r.u32()), averageSize: Int(try r.u32()), maximumSize: Int(try r.u32()))
        if let problem = chunking.problem { throw .malformed("index", at: paramsAt, problem) }
        let bases = try decodeBases(&r, version: version)
        let baseChunks = bases.reduce(0) { $0 + $1.chunkCount }

        let chunkCountAt = r.offset
        let chunkCount = try r.u64()
        guard chunkCount <= UInt64(r.remaining / PackLayout.chunkEntrySize) else {
            throw .malformed("index", at: chunkCountAt, "chunk count \(chunkCount) does not fit in the index")
        }
        if UInt64(baseChunks) > chunkCount {
            throw .malformed("index", at: chunkCountAt, "the base records name \(baseChunks) base chunks but the chunk table has \(chunkCount)")
        }
        var chunks: [ChunkEntry] = []
        chunks.reserveCapacity(Int(chunkCount))
        var expectedOffset = UInt64(PackLayout.headerSize)
        // The base whose frames the table lists now, where its frames end so far, and where the
        // next base's begin in the table.
        var baseNumber = -1
        var baseEnd = UInt64(PackLayout.headerSize)
        var nextBaseAt = 0
        var seen = Set<SHA256Digest>()
        for i in 0..<Int(chunkCount) {
            let at = r.offset
            let digest = SHA256Digest(bytes: try r.bytes(32))
            let c = ChunkEntry(digest: digest, offset: try r.u64(), compressedSize: try r.u32(), uncompressedSize: try r.u32())
            if i < baseChunks {
                while i == nextBaseAt {
                    baseNumber += 1
                    nextBaseAt += bases[baseNumber].chunkCount
                    baseEnd = UInt64(PackLayout.headerSize)
                }
                // A frame of a base file: in order, not overlapping, between its header and its
                // trailer (the base's own index checks the rest once it is read).
                let base = bases[baseNumber]
                let framesEnd = base.size - UInt64(PackLayout.trailerSize)
                guard c.offset >= baseEnd, c.compressedSize > 0, c.offset <= framesEnd, UInt64(c.compressedSize) <= framesEnd - c.offset else {
                    throw .malformed("chunk table", at: at, "base chunk \(i) lies at bytes \(c.offset)+\(c.compressedSize) of base file \(baseNumber), "
                                     + "outside its frames from \(baseEnd) to \(framesEnd) (base frames are in order, between the base's header and trailer)")
                }
                baseEnd = c.offset + UInt64(c.compressedSize)
            } else if c.offset != expectedOffset {
                throw .malformed("chunk table", at: at, "chunk \(i) starts at \(c.offset), expected \(expectedOffset) (chunks lie end to end)")
            }
            guard c.uncompressedSize > 0, Int(c.uncompressedSize) <= chunking.maximumSize else {
                throw .malformed("chunk table", at: at, "chunk \(i) declares \(c.uncompressedSize) bytes; chunks hold 1 to \(chunking.maximumSize)")
            }
            guard c.compressedSize > 0, UInt64(c.compressedSize) <= UInt64(c.uncompressedSize) + UInt64(c.uncompressedSize >> 7) + 512 + frameOverhead else {
                throw .malformed("chunk table", at: at, "chunk \(i) declares \(c.compressedSize) compressed bytes for \(c.uncompressedSize) uncompressed")
            }
            guard seen.insert(digest).inserted else {
                throw .malformed("chunk table", at: at, "chunk \(i) repeats digest \(digest.hex); identical chunks are stored once")
            }
            if i >= baseChunks { expectedOffset += UInt64(c.compressedSize) }
            chunks.append(c)
        }
        guard expectedOffset == indexOffset else {
            throw .malformed("chunk table", at: chunkCountAt, "chunks end at \(expectedOffset) but the index starts at \(indexOffset)")
        }

        let sequenceAt = r.offset
        let sequenceCount = try r.u64()
        guard sequenceCount <= UInt64(r.remaining / 4) else {
            throw .malformed("index", at: sequenceAt, "sequence length \(sequenceCount) does not fit in the index")
        }
        var sequence: [UInt32] = []
        sequence.reserveCapacity(Int(sequenceCount))
        var used = [Bool](repeating: false, count: chunks.count)
        var streamLength: UInt64 = 0
        for _ in 0..<Int(sequenceCount) {
            let at = r.offset
            let s = try r.u32()
            guard Int(s) < chunks.count else { throw .malformed("sequence", at: at, "chunk reference \(s) is out of range (\(chunks.count) chunks)") }
            used[Int(s)] = true
            streamLength += UInt64(chunks[Int(s)].uncompressedSize)
            sequence.append(s)
        }
        if let unused = used.firstIndex(of: false) {
            throw .malformed("sequence", at: sequenceAt, "chunk \(unused) is stored but never used")
        }

        let files = version == 1 ? try PackFileTable.decodeVersion1(&r, streamLength: streamLength)
                                 : try PackFileTable.decodeVersion2(&r, streamLength: streamLength)
        guard r.remaining == 0 else { throw .malformed("index", at: r.offset, "\(r.remaining) unexpected bytes after the file table") }
        return PackIndex(metadata: metadata, chunking: chunking, chunks: chunks, sequence: sequence, files: files, formatVersion: version, bases: bases)
    }

    /// The base records of a version-4 index (one: the group's default) or a version-5 one (a
    /// count, 1 to `PackBase.maximumCount`, then the records), docs/FORMAT.md "Pack file with
    /// bases": each base file's SHA-256 and size, and how many chunk table entries are its frames
    /// (at least one); no file named twice. Empty for the other versions.
    private static func decodeBases(_ r: inout ByteReader, version: UInt32) throws(PackError) -> [PackBase] {
        guard PackLayout.hasBases(version) else { return [] }
        var count: UInt64 = 1
        if version == PackLayout.basesFormatVersion {
            let at = r.offset
            count = try r.u64()
            guard count >= 1, count <= UInt64(PackBase.maximumCount) else {
                throw .malformed("base records", at: at, "\(count) bases: a pack file with bases names 1 to \(PackBase.maximumCount)")
            }
        }
        var bases: [PackBase] = []
        for n in 0..<Int(count) {
            let at = r.offset
            let sha256 = SHA256Digest(bytes: try r.bytes(32))
            let size = try r.u64()
            let chunks = try r.u64()
            guard size >= UInt64(PackLayout.headerSize + PackLayout.trailerSize) else {
                throw .malformed("base record", at: at.saturatingAdding(32), "base file \(n) has \(size) bytes, fewer than a pack's header and trailer")
            }
            guard chunks >= 1, chunks <= UInt64(Int32.max) else {
                throw .malformed("base record", at: at.saturatingAdding(40), "\(chunks) chunks of base file \(n): a pack file takes 1 or more of its frames from each base it names")
            }
            if let first = bases.firstIndex(where: { $0.sha256 == sha256 }) {
                throw .malformed("base record", at: at, "base file \(n) is base file \(first) again (SHA-256 \(sha256.hex)); each base is named once")
            }
            bases.append(PackBase(sha256: sha256, size: size, chunkCount: Int(chunks)))
        }
        return bases
    }
}
