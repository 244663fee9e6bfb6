/// The index patch that ends a version-3 patch table (docs/FORMAT.md, "Patch file"): one zstd
/// frame that makes the to-version's expanded index (`ExpandedIndex`) with the from-version's
/// expanded index as its reference prefix. A client that holds the from-version's index makes
/// the new index from it instead of fetching it whole: for 100,000 small files with 100 edited,
/// about 5 KB instead of 175 KB.
///
/// The result is trusted only when its SHA-256 is the to-version's pack digest, which the signed
/// catalog gives: a patch that lies, a tampered copy of the previous index or a client whose zstd
/// compresses the file table differently from the publisher's all end in a refusal, and the
/// client fetches the index as it would without a patch.
public struct IndexPatch: Sendable, Equatable {
    /// Bytes of the to-version's expanded index: the frame must declare exactly this.
    public var expandedLength: UInt64
    public var frame: [UInt8]

    public init(expandedLength: UInt64, frame: [UInt8]) {
        self.expandedLength = expandedLength
        self.frame = frame
    }

    /// Why an index patch gave no index.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// The from-version's index at hand does not expand (damaged, or of a version without a
        /// compressed file table).
        case previousIndex(PackError)
        /// The frame does not decode against it (corrupt, a bomb, or another previous index).
        case frame(ZstdError)
        /// The expanded result does not contract (malformed, or another zstd wrote the pack).
        case contraction(PackError)
        /// The result is an index, but not the one the catalog pins.
        case digestMismatch(SHA256Digest)

        public var description: String {
            switch self {
            case .previousIndex(let e): return "the installed index does not expand: \(e)"
            case .frame(let e): return "the index patch frame is unusable: \(e)"
            case .contraction(let e): return "the patched index does not contract: \(e)"
            case .digestMismatch(let d): return "the patched index hashes to \(d.hex.prefix(16))…, not the pack digest"
            }
        }
    }

    /// The to-version's index bytes, made from `previous` (the from-version's index as stored at
    /// `previousOffset` in its pack file) and checked to hash to `digest`.
    public func apply(to previous: [UInt8], previousOffset: UInt64, digest: SHA256Digest,
                      decompressor: ZstdDecompressor = ZstdDecompressor()) throws(Failure) -> [UInt8] {
        let base: [UInt8]
        do { base = try ExpandedIndex.expand(previous, indexOffset: previousOffset) } catch { throw .previousIndex(error) }
        let decoded: Result<[UInt8], ZstdError> = frame.withUnsafeBytes { f in
            base.withUnsafeBytes { b in
                Result { () throws(ZstdError) in
                    try decompressor.decompress(f, expectedSize: Int(expandedLength), prefix: b, windowLogMax: PatchLayout.windowLogMax)
                }
            }
        }
        let expanded: [UInt8]
        switch decoded {
        case .success(let bytes): expanded = bytes
        case .failure(let e): throw .frame(e)
        }
        let index: [UInt8]
        do { index = try ExpandedIndex.contract(expanded) } catch { throw .contraction(error) }
        let actual = SHA256Digest.hash(index)
        guard actual == digest else { throw .digestMismatch(actual) }
        return index
    }
}
