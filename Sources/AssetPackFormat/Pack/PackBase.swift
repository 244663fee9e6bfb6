/// A base of a pack file with bases (format versions 4 and 5; docs/FORMAT.md, "Pack file with
/// bases"): another pack file of the same device variant group — the group's default, or a
/// variant before this one in the catalog's order — that holds some of this file's chunk frames, so that
/// frames the two share are stored once. The chunk table starts with the frames of each base in
/// turn (`chunkCount` entries each, their offsets that base file's); the rest are this file's
/// own. A base is pinned by the SHA-256 of its whole file and its size.
public struct PackBase: Sendable, Equatable {
    /// SHA-256 of the whole base file (the catalog's `sha256` of the file the base must be).
    public var sha256: SHA256Digest
    /// The base file's size in bytes.
    public var size: UInt64
    /// How many entries of the chunk table are frames of this base file (at least 1).
    public var chunkCount: Int

    public init(sha256: SHA256Digest, size: UInt64, chunkCount: Int) {
        self.sha256 = sha256
        self.size = size
        self.chunkCount = chunkCount
    }

    /// Bytes of one base record in the index: SHA-256, size, chunk count.
    static let encodedSize = 48
    /// The most bases one pack file may name (a device variant group has at most 64 variants
    /// beside its default).
    public static let maximumCount = 64

    /// Why a base file of `size` bytes whose whole-file SHA-256 is `sha256` is not this base, or
    /// nil when it is. `name` names the file in the message.
    public func mismatch(sha256 actual: SHA256Digest, size actualSize: UInt64, name: String) -> String? {
        guard actual != sha256 || actualSize != size else { return nil }
        return "the pack's index names as its base a file of \(size) bytes with SHA-256 \(sha256.hex), but \(name) has \(actualSize) bytes"
            + " and SHA-256 \(actual.hex): the base is not that file (refused)"
    }
}

extension PackIndex {
    /// How many entries at the start of the chunk table are frames of a base file.
    public var baseChunkCount: Int { bases.reduce(0) { $0 + $1.chunkCount } }

    /// Whether chunk `c`'s frame lies in a base file (format versions 4 and 5) rather than this one.
    public func isInBase(_ c: Int) -> Bool { c < baseChunkCount }

    /// The base (a position in `bases`) whose file holds chunk `c`'s frame; nil for a frame this
    /// file stores.
    public func baseHolding(_ c: Int) -> Int? {
        var end = 0
        for (b, base) in bases.enumerated() {
            end += base.chunkCount
            if c < end { return b }
        }
        return nil
    }

    /// Compressed bytes of the frames this pack file itself stores (those of its bases aside).
    public var ownCompressedSize: UInt64 {
        var total: UInt64 = 0
        for c in baseChunkCount..<chunks.count { total += UInt64(chunks[c].compressedSize) }
        return total
    }
}
