import AssetPackFormat

/// What a client on one pack version fetches and writes to reach another, worked out from the
/// two indexes and the patch table between them, as the client plans it: the patch table when
/// there is one, the new index unless the table's index patch makes it, then per new chunk the old version lacks its patch frame when
/// the table has one, else its full frame. (A client's Range requests may also carry the small
/// gaps between frames it merges; those are not counted here.) Bytes written are those of the
/// files that changed by the two indexes: the unchanged ones are hard links of the installed
/// files. It is an upper bound: a file that shares a chunk with an edited one counts as changed,
/// and a client links it too when its bytes, compared with the patch's base, did not change.
public struct UpdateSize: Sendable, Equatable, Codable {
    public var id: String
    /// The device variant the update is of (`VariantConditions.name`); nil for a pack's default.
    public var variant: String?
    public var fromVersion: Int
    public var toVersion: Int
    /// Bytes of the new version's index (0 when the patch table's index patch makes it from the
    /// installed one) and of the patch table.
    public var indexBytes: UInt64
    public var patchTableBytes: UInt64
    /// The new index's own size: what a client fetches for it without the index patch (a client
    /// whose zstd compresses the file table differently from the publisher's).
    public var newIndexBytes: UInt64
    /// Patch frames: how many chunks, how many bytes.
    public var patchedChunks: Int
    public var patchBytes: UInt64
    /// Full frames of the new chunks without a patch.
    public var frameChunks: Int
    public var frameBytes: UInt64
    /// What the same chunks would cost as full frames (the update without patches).
    public var withoutPatchesBytes: UInt64
    /// Bytes of the changed and added files: the most the client writes.
    public var writtenBytes: UInt64
    public var changedFiles: Int
    public var unchangedFiles: Int

    /// Everything fetched.
    public var downloadBytes: UInt64 { indexBytes + patchTableBytes + patchBytes + frameBytes }

    public init(id: String, fromVersion: Int, toVersion: Int, old: PackIndex, new: PackIndex, newIndexLength: UInt64,
                patch: PatchTable?, patchTableLength: UInt64) {
        self.id = id
        self.fromVersion = fromVersion
        self.toVersion = toVersion
        indexBytes = patch?.indexPatch == nil ? newIndexLength : 0
        newIndexBytes = newIndexLength
        patchTableBytes = patch == nil ? 0 : patchTableLength
        let oldDigests = Set(old.chunks.map(\.digest))
        var patches: [SHA256Digest: PatchEntry] = [:]
        for e in patch?.entries ?? [] { patches[e.chunkDigest] = e }
        (patchedChunks, patchBytes, frameChunks, frameBytes, withoutPatchesBytes) = (0, 0, 0, 0, 0)
        for c in new.chunks where !oldDigests.contains(c.digest) {
            withoutPatchesBytes += UInt64(c.compressedSize)
            if let e = patches[c.digest], e.chunkSize == c.uncompressedSize {
                patchedChunks += 1
                patchBytes += UInt64(e.frameSize)
            } else {
                frameChunks += 1
                frameBytes += UInt64(c.compressedSize)
            }
        }
        let unchanged = new.unchangedFiles(since: old)
        unchangedFiles = unchanged.count
        changedFiles = new.files.count - unchanged.count
        writtenBytes = new.files.indices.reduce(0) { $0 + (unchanged[$1] == nil ? new.files.size(at: $1) : 0) }
    }
}
