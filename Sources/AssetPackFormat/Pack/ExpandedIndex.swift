import CZstd

/// A pack index with its file table's frame length and zstd frame replaced by the table the frame
/// decompresses to (docs/FORMAT.md, "Patch file"): the form an index patch is made between. It
/// holds nothing that depends on how the table was compressed, so a store's copy of an index
/// (compressed faster) expands to the same bytes as the pack's own.
/// Two versions of a pack share most of their decompressed file tables, but the compressed
/// frames diverge after the first changed path, so a patch between the stored indexes would
/// cost nearly a whole index.
///
/// `contract` turns an expanded index back into the stored bytes by compressing the table as a
/// pack writer does (`PackFileTableEncoder.frame`). zstd gives the same frame for the same table,
/// level and library version, so the result is the pack's own index when the zstd that contracts
/// is the one that wrote the pack; the caller checks it against the pack digest either way.
///
/// Index versions 2, 4 and 5 (unsealed, with a version-2 file table) expand; version 1 has no
/// frame and version 3 is sealed. Every length read is checked against the bytes that follow,
/// each failure naming the region and the offset, since either form may come from an untrusted
/// copy: a store on disk, or a patch not yet checked.
public enum ExpandedIndex {
    /// Where the file table's preamble lies (file count and table length, then in a stored index
    /// the frame length), what it declares, and where the frame or the expanded table starts.
    package struct FileTable {
        package var preambleOffset: Int
        package var tableLength: UInt64
        /// The frame's declared length (nil in an expanded index, which has none).
        package var frameLength: UInt64?
        package var payloadOffset: Int
    }

    /// The versions whose index expands.
    public static func expands(formatVersion: UInt32) -> Bool {
        formatVersion == PackLayout.formatVersion || PackLayout.hasBases(formatVersion)
    }

    /// `index` (stored at `indexOffset`, for error offsets) with its file table decompressed.
    public static func expand(_ index: [UInt8], indexOffset: UInt64) throws(PackError) -> [UInt8] {
        let table = try locate(index, base: indexOffset, context: "index", expanded: false)
        guard table.frameLength == UInt64(index.count - table.payloadOffset) else {
            throw .malformed("index", at: indexOffset.saturatingAdding(UInt64(table.preambleOffset + 16)),
                             "file table frame of \(table.frameLength ?? 0) bytes does not end the index (\(index.count - table.payloadOffset) bytes remain)")
        }
        let frameAt = indexOffset.saturatingAdding(UInt64(table.payloadOffset))
        let decompressed: [UInt8]
        do {
            decompressed = try index[table.payloadOffset...].withUnsafeBytes { buffer throws(ZstdError) in
                try ZstdDecompressor().decompress(buffer, expectedSize: Int(table.tableLength))
            }
        } catch { throw .malformed("file table", at: frameAt, "the frame does not decompress to the \(table.tableLength) bytes the index declares: \(error)") }
        var out = [UInt8]()
        out.reserveCapacity(table.preambleOffset + 16 + decompressed.count)
        out.append(contentsOf: index[..<(table.preambleOffset + 16)])
        out.append(contentsOf: decompressed)
        return out
    }

    /// The stored index an expanded one stands for: its table compressed as a pack writer
    /// compresses it, the frame's length put back before it. Whether that is the pack's own
    /// index only its digest tells.
    public static func contract(_ expanded: [UInt8]) throws(PackError) -> [UInt8] {
        let table = try locate(expanded, base: 0, context: "expanded index", expanded: true)
        guard table.tableLength == UInt64(expanded.count - table.payloadOffset) else {
            throw .malformed("expanded index", at: UInt64(table.preambleOffset + 8),
                             "declares a file table of \(table.tableLength) bytes, \(expanded.count - table.payloadOffset) follow")
        }
        let frame = PackFileTableEncoder.frame(of: expanded[table.payloadOffset...])
        var out = [UInt8]()
        out.reserveCapacity(table.payloadOffset + 8 + frame.count)
        out.append(contentsOf: expanded[..<table.payloadOffset])
        withUnsafeBytes(of: UInt64(frame.count).littleEndian) { out.append(contentsOf: $0) }
        out.append(contentsOf: frame)
        return out
    }

    /// Walks the regions before the file table (header, metadata, chunking parameters, base
    /// records, chunk table, sequence) by their declared lengths, each checked against what
    /// follows, and reads the table's preamble (`expanded`: without a frame length). The
    /// regions' contents are not checked here: `PackIndex.decode` does that once the bytes are
    /// the pack's.
    package static func locate(_ bytes: [UInt8], base: UInt64, context: String, expanded: Bool) throws(PackError) -> FileTable {
        var r = ByteReader(bytes, context: context, base: base)
        guard try r.bytes(8) == PackLayout.indexMagic else { throw .malformed(context, at: base, "bad index magic") }
        let versionAt = r.offset
        let version = try r.u32()
        guard expands(formatVersion: version) else {
            throw .malformed(context, at: versionAt, "index version \(version) has no compressed file table to expand (versions 2, 4 and 5 do)")
        }
        _ = try r.slice(Int(try r.u32()))
        _ = try r.slice(12)
        if PackLayout.hasBases(version) {
            let countAt = r.offset
            let count = version == PackLayout.basesFormatVersion ? try r.u64() : 1
            guard count <= UInt64(r.remaining / 48) else { throw .malformed(context, at: countAt, "\(count) base records do not fit") }
            _ = try r.slice(Int(count) * 48)
        }
        let chunksAt = r.offset
        let chunkCount = try r.u64()
        guard chunkCount <= UInt64(r.remaining / PackLayout.chunkEntrySize) else {
            throw .malformed(context, at: chunksAt, "chunk count \(chunkCount) does not fit")
        }
        _ = try r.slice(Int(chunkCount) * PackLayout.chunkEntrySize)
        let sequenceAt = r.offset
        let sequenceCount = try r.u64()
        guard sequenceCount <= UInt64(r.remaining / 4) else { throw .malformed(context, at: sequenceAt, "sequence length \(sequenceCount) does not fit") }
        _ = try r.slice(Int(sequenceCount) * 4)
        let preambleOffset = Int(r.offset - base)
        _ = try r.u64()
        let tableLengthAt = r.offset
        let tableLength = try r.u64()
        guard tableLength <= UInt64(PackLayout.maximumIndexSize) else {
            throw .malformed(context, at: tableLengthAt, "file table length \(tableLength) exceeds the \(PackLayout.maximumIndexSize)-byte limit")
        }
        let frameLength = expanded ? nil : try r.u64()
        return FileTable(preambleOffset: preambleOffset, tableLength: tableLength, frameLength: frameLength, payloadOffset: Int(r.offset - base))
    }
}
