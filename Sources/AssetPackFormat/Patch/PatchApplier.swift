/// Makes a chunk from a patch: the frame decompressed against its base, the base and the result
/// each checked against the SHA-256 the (catalog-pinned) patch table and pack index give. Any
/// failure is an error and nothing is returned, so a caller falls back to the chunk's full frame.
public enum PatchApplier {
    /// Why a patch was not used.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// The base bytes at hand are not the ones the patch was made against (a base the
        /// client lacks, or one modified on disk).
        case baseMismatch
        /// The frame is not a valid patch for this chunk (corrupt, truncated, a bomb).
        case frame(ZstdError)
        /// The frame decoded, but to bytes that do not hash to the chunk's digest.
        case resultMismatch(SHA256Digest)

        public var description: String {
            switch self {
            case .baseMismatch: return "its base is not the one the patch was made against"
            case .frame(let e): return "the patch frame is unusable: \(e)"
            case .resultMismatch(let d): return "the patched bytes hash to \(d.hex.prefix(16))…, not the chunk's digest"
            }
        }
    }

    /// The chunk `entry` makes from `frame` and `base` (the base must be `entry.baseLength` bytes).
    /// - Parameter chunkDigest: the digest the new index gives the chunk.
    public static func apply(_ frame: UnsafeRawBufferPointer, base: [UInt8], entry: PatchEntry, chunkDigest: SHA256Digest,
                             decompressor: ZstdDecompressor) throws(Failure) -> [UInt8] {
        guard base.count == Int(entry.baseLength), SHA256Digest.hash(base) == entry.baseDigest else { throw .baseMismatch }
        let decoded: Result<[UInt8], ZstdError> = base.withUnsafeBytes { b in
            Result { () throws(ZstdError) in
                try decompressor.decompress(frame, expectedSize: Int(entry.chunkSize), prefix: b, windowLogMax: PatchLayout.windowLogMax)
            }
        }
        let bytes: [UInt8]
        switch decoded {
        case .success(let b): bytes = b
        case .failure(let e): throw .frame(e)
        }
        let actual = SHA256Digest.hash(bytes)
        guard actual == chunkDigest else { throw .resultMismatch(actual) }
        return bytes
    }
}
