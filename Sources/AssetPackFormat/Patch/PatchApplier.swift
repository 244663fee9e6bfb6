/// Makes a chunk from a patch: the frame decompressed against its base, the result checked
/// against the chunk's SHA-256 the (catalog-pinned) pack index gives (and, when it fails, the
/// base against the table's, to say which was wrong). Any
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
        /// A sealed pack's patch frame did not open under the pack's content key (tampered).
        case unsealing(SealedFrame.Failure)

        public var description: String {
            switch self {
            case .baseMismatch: return "its base is not the one the patch was made against"
            case .frame(let e): return "the patch frame is unusable: \(e)"
            case .resultMismatch(let d): return "the patched bytes hash to \(d.hex.prefix(16))…, not the chunk's digest"
            case .unsealing(let e): return "the sealed patch frame does not open: \(e)"
            }
        }
    }

    /// The chunk `entry` makes from `frame` and `base` (the base must be `entry.baseLength` bytes).
    /// - Parameter chunkDigest: the digest the new index gives the chunk.
    ///
    /// The result's SHA-256 is what makes a chunk trusted; the base's is checked only when the
    /// result does not match (or the frame does not decode), to say why: hashing every base up
    /// front would cost several times the chunk for nothing on the usual path, and a wrong base
    /// can only give a wrong result, never more bytes than the chunk.
    /// - Parameter key: the content key of a sealed pack, whose patch frames are sealed (purpose
    ///   `patch`); the frame is opened with it first.
    public static func apply(_ frame: UnsafeRawBufferPointer, base: [UInt8], entry: PatchEntry, chunkDigest: SHA256Digest,
                             decompressor: ZstdDecompressor, key: ContentKey? = nil) throws(Failure) -> [UInt8] {
        if let key {
            // Opened into the decompressor's scratch buffer, decoded from there once it verified.
            let scratch = decompressor.scratch(capacity: max(frame.count, 1))
            let length: Int
            do { length = try SealedFrame.open(frame, purpose: .patch, key: key, into: scratch) } catch { throw .unsealing(error) }
            return try apply(UnsafeRawBufferPointer(rebasing: scratch[0..<length]), base: base, entry: entry, chunkDigest: chunkDigest,
                             decompressor: decompressor)
        }
        guard base.count == Int(entry.baseLength) else { throw .baseMismatch }
        func baseIsRight() -> Bool { SHA256Digest.hash(base) == entry.baseDigest }
        let decoded: Result<[UInt8], ZstdError> = base.withUnsafeBytes { b in
            Result { () throws(ZstdError) in
                try decompressor.decompress(frame, expectedSize: Int(entry.chunkSize), prefix: b, windowLogMax: PatchLayout.windowLogMax)
            }
        }
        let bytes: [UInt8]
        switch decoded {
        case .success(let b): bytes = b
        case .failure(let e):
            // A frame that declares another size is refused from its header, whatever the base.
            if case .corrupt = e, !baseIsRight() { throw .baseMismatch }
            throw .frame(e)
        }
        let actual = SHA256Digest.hash(bytes)
        guard actual == chunkDigest else { throw baseIsRight() ? .resultMismatch(actual) : .baseMismatch }
        return bytes
    }
}
