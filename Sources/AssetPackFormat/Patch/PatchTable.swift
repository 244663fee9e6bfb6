/// One patch of a patch file: how to make a chunk of the new pack version from bytes of the
/// old version's content stream (its *base*) and a zstd frame that refers to them.
public struct PatchEntry: Sendable, Equatable {
    /// SHA-256 of the chunk the patch makes (a chunk of the new version's index).
    public var chunkDigest: SHA256Digest
    /// Where the patch frame lies in the patch file, and its size.
    public var frameOffset: UInt64
    public var frameSize: UInt32
    /// The chunk's uncompressed size (the frame must declare exactly this).
    public var chunkSize: UInt32
    /// The base: a byte range of the old version's content stream, and its SHA-256.
    public var baseOffset: UInt64
    public var baseLength: UInt32
    public var baseDigest: SHA256Digest

    public init(chunkDigest: SHA256Digest, frameOffset: UInt64, frameSize: UInt32, chunkSize: UInt32,
                baseOffset: UInt64, baseLength: UInt32, baseDigest: SHA256Digest) {
        self.chunkDigest = chunkDigest
        self.frameOffset = frameOffset
        self.frameSize = frameSize
        self.chunkSize = chunkSize
        self.baseOffset = baseOffset
        self.baseLength = baseLength
        self.baseDigest = baseDigest
    }
}

/// The table at the end of a patch file: which pack version the patches start from, which one
/// they lead to, and one entry per patched chunk, frames end to end in entry order
/// (docs/FORMAT.md, "Patch file"). The catalog pins the table's bytes with their SHA-256; each
/// patch's result is verified by its chunk's SHA-256 before it is written.
public struct PatchTable: Sendable, Equatable {
    /// The pack digest of the version the bases come from.
    public var from: SHA256Digest
    /// The pack digest of the version whose chunks the patches make.
    public var to: SHA256Digest
    public var entries: [PatchEntry]
    /// Whether the table belongs to a sealed pack's patch file (format version 2): its frames
    /// are sealed frames, and the table itself is stored only sealed (`SealedPatchTable`).
    public var isSealed: Bool
    /// The index patch that ends the table (format version 3, unsealed packs only): the
    /// to-version's index made from the from-version's.
    public var indexPatch: IndexPatch?

    public init(from: SHA256Digest, to: SHA256Digest, entries: [PatchEntry], isSealed: Bool = false, indexPatch: IndexPatch? = nil) {
        precondition(!isSealed || indexPatch == nil, "a sealed pack's patch table has no index patch")
        self.from = from
        self.to = to
        self.entries = entries
        self.isSealed = isSealed
        self.indexPatch = indexPatch
    }

    /// The format version the table declares.
    public var formatVersion: UInt32 {
        isSealed ? PatchLayout.sealedFormatVersion : indexPatch == nil ? PatchLayout.formatVersion : PatchLayout.indexPatchFormatVersion
    }

    /// The table bytes exactly as stored (after the frames).
    public func encoded() -> [UInt8] {
        var w = ByteWriter()
        w.bytes.reserveCapacity(PatchLayout.tablePreambleSize + entries.count * PatchLayout.entrySize)
        w.append(PatchLayout.tableMagic)
        w.append(formatVersion)
        w.append(UInt32(0))
        w.append(from.bytes)
        w.append(to.bytes)
        w.append(UInt64(entries.count))
        for e in entries {
            w.append(e.chunkDigest.bytes)
            w.append(e.frameOffset)
            w.append(e.frameSize)
            w.append(e.chunkSize)
            w.append(e.baseOffset)
            w.append(e.baseLength)
            w.append(e.baseDigest.bytes)
        }
        if let indexPatch {
            w.append(indexPatch.expandedLength)
            w.append(UInt64(indexPatch.frame.count))
            w.append(indexPatch.frame)
        }
        return w.bytes
    }

    /// Decodes and checks table bytes that start at file offset `tableOffset`. Enforced here, so
    /// that a reader that accepts a table can plan Range requests from it: magic and version;
    /// `from` ≠ `to`; frames end to end from byte 16 to `tableOffset`; chunk sizes 1 … 16 MiB;
    /// frames no larger than the bound for their chunk; bases 1 … 64 MiB; chunk digests unique;
    /// nothing after the last entry, or in version 3 after the index patch, whose expanded
    /// length is 1 … `PatchLayout.maximumExpandedIndexLength` and whose frame is at least one byte
    /// and ends the table. A version-2 table (a sealed pack's) is accepted only when
    /// `opened` says it came out of a sealed patch table (`SealedPatchTable.open`): stored as it
    /// is, it would be a sealed pack's patch table in plaintext.
    public static func decode(_ bytes: [UInt8], tableOffset: UInt64, opened: Bool = false) throws(PackError) -> PatchTable {
        guard bytes.count <= PatchLayout.maximumTableSize else {
            throw .malformed("patch table", at: tableOffset, "\(bytes.count) bytes, more than the \(PatchLayout.maximumTableSize) allowed")
        }
        var r = ByteReader(bytes, context: "patch table", base: tableOffset)
        guard try r.bytes(8) == PatchLayout.tableMagic else { throw .malformed("patch table", at: tableOffset, "bad patch table magic") }
        let versionAt = r.offset
        let version = try r.u32()
        guard (PatchLayout.formatVersion...PatchLayout.indexPatchFormatVersion).contains(version) else {
            throw .malformed("patch table", at: versionAt, "unsupported patch format version \(version) (this tool reads versions \(PatchLayout.formatVersion) to \(PatchLayout.indexPatchFormatVersion))")
        }
        let sealed = version == PatchLayout.sealedFormatVersion
        guard opened || !sealed else {
            throw .malformed("patch table", at: versionAt, "declares version \(version) (a sealed pack's) but is stored in plaintext: a sealed pack's patch table is always sealed")
        }
        _ = try r.u32()
        let from = SHA256Digest(bytes: try r.bytes(32))
        let toAt = r.offset
        let to = SHA256Digest(bytes: try r.bytes(32))
        guard from != to else { throw .malformed("patch table", at: toAt, "a patch leads from a version to itself") }
        let countAt = r.offset
        let count = try r.u64()
        // Version 3 follows the entries with the index patch: two lengths and at least one byte.
        let after = version == PatchLayout.indexPatchFormatVersion ? 17 : 0
        let fits = count <= UInt64(max(0, r.remaining - after) / PatchLayout.entrySize)
        guard fits, after > 0 ? UInt64(r.remaining) >= count * UInt64(PatchLayout.entrySize) + UInt64(after)
                              : UInt64(r.remaining) == count * UInt64(PatchLayout.entrySize) else {
            throw .malformed("patch table", at: countAt, "\(count) entries need \(count.multipliedReportingOverflow(by: UInt64(PatchLayout.entrySize)).partialValue) bytes\(after > 0 ? " and the index patch at least \(after)" : ""), \(r.remaining) follow")
        }
        var entries: [PatchEntry] = []
        entries.reserveCapacity(Int(count))
        var seen = Set<SHA256Digest>()
        var next = UInt64(PatchLayout.headerSize)
        for i in 0..<Int(count) {
            let at = r.offset
            let e = PatchEntry(chunkDigest: SHA256Digest(bytes: try r.bytes(32)), frameOffset: try r.u64(), frameSize: try r.u32(),
                               chunkSize: try r.u32(), baseOffset: try r.u64(), baseLength: try r.u32(),
                               baseDigest: SHA256Digest(bytes: try r.bytes(32)))
            func bad(_ why: String) -> PackError { .malformed("patch table entry \(i)", at: at, why) }
            guard e.frameOffset == next else { throw bad("frame at byte \(e.frameOffset), expected \(next) (frames lie end to end)") }
            guard e.chunkSize >= 1, e.chunkSize <= UInt32(ChunkingParameters.largestAllowedChunk) else {
                throw bad("chunk size \(e.chunkSize) is outside 1…\(ChunkingParameters.largestAllowedChunk)")
            }
            guard e.frameSize >= 1, UInt64(e.frameSize) <= PatchLayout.maximumFrameSize(forChunkOf: e.chunkSize, sealed: sealed) else {
                throw bad("frame of \(e.frameSize) bytes for a chunk of \(e.chunkSize)")
            }
            guard e.baseLength >= 1, e.baseLength <= UInt32(PatchLayout.maximumBaseLength) else {
                throw bad("base of \(e.baseLength) bytes is outside 1…\(PatchLayout.maximumBaseLength)")
            }
            let (end, overflow) = e.baseOffset.addingReportingOverflow(UInt64(e.baseLength))
            guard !overflow, end <= UInt64(Int64.max) else { throw bad("base range overflows") }
            guard seen.insert(e.chunkDigest).inserted else { throw bad("chunk \(e.chunkDigest.hex.prefix(16))… is patched twice") }
            next += UInt64(e.frameSize)
            entries.append(e)
        }
        guard next == tableOffset else {
            throw .malformed("patch table", at: tableOffset, "the frames end at byte \(next), not where the table starts")
        }
        var indexPatch: IndexPatch?
        if version == PatchLayout.indexPatchFormatVersion {
            let lengthAt = r.offset
            let expandedLength = try r.u64()
            guard expandedLength >= 1, expandedLength <= UInt64(PatchLayout.maximumExpandedIndexLength) else {
                throw .malformed("index patch", at: lengthAt, "expanded index of \(expandedLength) bytes is outside 1…\(PatchLayout.maximumExpandedIndexLength)")
            }
            let frameLengthAt = r.offset
            let frameLength = try r.u64()
            guard frameLength >= 1, frameLength == UInt64(r.remaining) else {
                throw .malformed("index patch", at: frameLengthAt, "frame of \(frameLength) bytes does not end the table (\(r.remaining) bytes remain)")
            }
            indexPatch = IndexPatch(expandedLength: expandedLength, frame: try r.bytes(Int(frameLength)))
        }
        return PatchTable(from: from, to: to, entries: entries, isSealed: sealed, indexPatch: indexPatch)
    }
}
