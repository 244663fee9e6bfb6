/// The base of a pack file of format version 4 (docs/FORMAT.md, "Pack file with a base: version
/// 4"): another pack file — a device variant's group default — that holds some of this file's
/// chunk frames, so that frames the two share are stored once. The first `chunkCount` entries of
/// the chunk table are frames of the base file (their offsets are the base file's); the rest are
/// this file's own. The base is pinned by the SHA-256 of its whole file and its size.
public struct PackBase: Sendable, Equatable {
    /// SHA-256 of the whole base file (the catalog's `sha256` of the file the base must be).
    public var sha256: SHA256Digest
    /// The base file's size in bytes.
    public var size: UInt64
    /// How many entries at the start of the chunk table are frames of the base file (at least 1).
    public var chunkCount: Int

    public init(sha256: SHA256Digest, size: UInt64, chunkCount: Int) {
        self.sha256 = sha256
        self.size = size
        self.chunkCount = chunkCount
    }

    /// Bytes of the base record in the index: SHA-256, size, chunk count.
    static let encodedSize = 48

    /// Why a base file of `size` bytes whose whole-file SHA-256 is `sha256` is not this base, or
    /// nil when it is. `name` names the file in the message.
    public func mismatch(sha256 actual: SHA256Digest, size actualSize: UInt64, name: String) -> String? {
        guard actual != sha256 || actualSize != size else { return nil }
        return "the pack's index names as its base a file of \(size) bytes with SHA-256 \(sha256.hex), but \(name) has \(actualSize) bytes"
            + " and SHA-256 \(actual.hex): the base is not that file (refused)"
    }
}

extension PackIndex {
    /// Whether chunk `c`'s frame lies in the base file (format version 4) rather than this one.
    public func isInBase(_ c: Int) -> Bool { c < (base?.chunkCount ?? 0) }

    /// Compressed bytes of the frames this pack file itself stores (those of its base aside).
    public var ownCompressedSize: UInt64 {
        var total: UInt64 = 0
        for c in chunks.indices where !isInBase(c) { total += UInt64(chunks[c].compressedSize) }
        return total
    }
}
